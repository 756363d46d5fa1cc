"""tools/gpu_smoke.sh (the GPU smoke run from the image's lock) on a machine without a GPU: it stops before
installing anything, it takes mamba-ssm's sources from the Dockerfile, and its summary says what a GPU run
is judged by. The run itself needs a CUDA host (docs/benchmarks.md)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.gpu_tools import has_gpu, load_tool

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "gpu_smoke.sh"
gpu_bench = load_tool("gpu_bench")


def test_script_parses():
    assert subprocess.run(["bash", "-n", str(SCRIPT)]).returncode == 0


@pytest.mark.skipif(has_gpu(), reason="checks the no-GPU path")
def test_without_a_gpu_it_stops_before_installing_anything(tmp_path):
    venv = tmp_path / "venv"
    proc = subprocess.run(
        [str(SCRIPT)], cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "GPU_SMOKE_VENV": str(venv)},
    )  # fmt: skip
    assert proc.returncode == gpu_bench.EXIT_NO_CUDA
    assert "no CUDA" in proc.stderr and "H100/H200" in proc.stderr
    assert not venv.exists()


def test_mamba_sources_are_the_dockerfiles():
    out = subprocess.run([str(SCRIPT), "--mamba-source"], capture_output=True, text=True, check=True).stdout
    url, sha = out.split()
    dockerfile = (REPO / "model_server" / "Dockerfile").read_text()
    assert re.search(rf"^ADD --checksum=sha256:{sha} \\\n\s+{re.escape(url)} \\", dockerfile, re.M)
    assert url.endswith(".tar.gz") and len(sha) == 64


def result(kernel_path: str, server_path: str | None, parity_ok: bool = True) -> dict:
    return {
        "hardware": {"device_name": "NVIDIA H200", "torch": "2.13.0", "torch_cuda": "13.0", "triton": "3.7.1",
                     "mamba_ssm": "2.3.2.post1"},
        "kernels": {"path": kernel_path, "fallback": kernel_path == "torch",
                    "reason": None if kernel_path != "torch" else "mamba_ssm's Triton kernels do not import"},
        "parity": {"ok": parity_ok, "checks": [{"check": "decoder.features", "max_rel": 1.1e-3, "ok": parity_ok}]},
        "decode": {"summary": {"max_realtime_batch_frames4_graphs": 64}},
        "server": {"startup": {"kernel_path": server_path, "cuda_graphs": 42, "warmup_s": 30.5, "load_s": 41.0},
                   "max_realtime_streams": 32},
    }  # fmt: skip


def test_summary_of_a_good_run():
    text = "\n".join(gpu_bench.summary_lines(result("triton", "triton")))
    assert "parity: OK (1 checks, decoder max relative error 1.10e-03)" in text
    assert "kernel path: benchmark triton, server triton" in text and "fallback: none" in text
    assert "warm-up 30.5 s, 42 CUDA graphs, ready after 41.0 s" in text
    assert "max_realtime_batch_frames4_graphs=64" in text and "max real-time streams closed loop 32," in text


def test_summary_names_a_fallback_here_or_in_the_server():
    here = "\n".join(gpu_bench.summary_lines(result("torch", "torch", parity_ok=False)))
    assert "fallback: YES" in here and "parity: FAILED" in here and "do not import" in here
    in_server = "\n".join(gpu_bench.summary_lines(result("triton", "torch")))
    assert "fallback: YES" in in_server


def test_summary_option_prints_an_earlier_run(tmp_path, capsys):
    path = tmp_path / "gpu-smoke.json"
    path.write_text(json.dumps(result("triton", "triton")))
    assert gpu_bench.main(["--summary", str(path)]) == 0
    assert "fallback: none" in capsys.readouterr().out


def test_bench_client_pins_the_script_installs_are_in_requirements_dev():
    """Online, the script installs the load bench's client and matplotlib at the dev pins (the image has
    neither): the pattern it greps must find exactly those three pinned lines."""
    script = SCRIPT.read_text()
    pattern = re.search(r"grep -E '([^']+)' requirements-dev.txt", script).group(1)
    lines = [ln for ln in (REPO / "requirements-dev.txt").read_text().splitlines() if re.match(pattern, ln)]
    assert sorted(ln.split("==")[0] for ln in lines) == ["httpx", "matplotlib", "tqdm"]
    assert "--full" in script and "--clients 8" in script and "${OUT:+$OUT/}" in script
