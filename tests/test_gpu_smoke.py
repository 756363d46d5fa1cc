"""tools/gpu_smoke.sh (the GPU smoke run from the image's lock) on a machine without a GPU: it stops before
installing anything, it takes mamba-ssm's sources from the Dockerfile, and its summary says what a GPU run
is judged by. The run itself needs a CUDA host (docs/benchmarks.md)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
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


# --- the offline run's preparation (tools/gpu_smoke.sh --prepare) and its guards, on small fakes ---

KERNELS = ("layernorm_gated", "selective_state_update", "ssd_combined")
TRITON_ONLY_INIT = '__version__ = "9.9.9"  # Triton-only: no compiled selective_scan_cuda\n'


def fake_sdist(tmp_path: Path, kernels=KERNELS, version: str = "9.9.9") -> tuple[str, str]:
    """A mamba-ssm-shaped sdist (its __init__ imports the compiled extension, as the real one does):
    its file:// URL and sha256."""
    root = tmp_path / "src" / f"mamba_ssm-{version}"
    triton = root / "mamba_ssm" / "ops" / "triton"
    triton.mkdir(parents=True)
    (root / "mamba_ssm" / "__init__.py").write_text("import selective_scan_cuda\n")
    (root / "mamba_ssm" / "ops" / "__init__.py").write_text("")
    (triton / "__init__.py").write_text("")
    for k in kernels:
        (triton / f"{k}.py").write_text(f"KERNEL = {k!r}\n")
    tarball = tmp_path / f"mamba_ssm-{version}.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(root, arcname=root.name)
    return tarball.as_uri(), hashlib.sha256(tarball.read_bytes()).hexdigest()


def mamba_copy(dest: str, url: str, sha: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPT), "--mamba-triton-copy", dest, url, sha], cwd=cwd, capture_output=True,
                          text=True, timeout=30)  # fmt: skip


def test_mamba_triton_copy_checks_the_sha256_and_replaces_init(tmp_path):
    url, sha = fake_sdist(tmp_path)
    proc = mamba_copy("mssm", url, sha, cwd=tmp_path)  # a relative DIR is the caller's, not the repository's
    assert proc.returncode == 0, proc.stderr
    pkg = tmp_path / "mssm" / "mamba_ssm"
    assert (pkg / "__init__.py").read_text() == TRITON_ONLY_INIT
    for k in KERNELS:
        assert (pkg / "ops" / "triton" / f"{k}.py").read_text() == f"KERNEL = {k!r}\n"
    # the package imports without the compiled extension its own __init__ asked for
    version = subprocess.run([sys.executable, "-c", "import mamba_ssm; print(mamba_ssm.__version__)"],
                             cwd=tmp_path / "mssm", capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert version.strip() == "9.9.9"


def test_mamba_triton_copy_refuses_a_wrong_sha256_and_keeps_the_old_copy(tmp_path):
    url, sha = fake_sdist(tmp_path)
    old = tmp_path / "mssm" / "mamba_ssm" / "__init__.py"
    old.parent.mkdir(parents=True)
    old.write_text("old\n")
    wrong = ("0" if sha[0] != "0" else "1") + sha[1:]
    proc = mamba_copy(str(tmp_path / "mssm"), url, wrong, cwd=tmp_path)
    assert proc.returncode == 1
    assert "sha256 mismatch" in proc.stderr and sha in proc.stderr and wrong in proc.stderr
    assert old.read_text() == "old\n" and sorted(p.name for p in old.parent.iterdir()) == ["__init__.py"]


def test_mamba_triton_copy_refuses_sources_without_the_kernel_modules(tmp_path):
    """The broken .mssm an H200 run got (no layernorm_gated.py) cannot come out of this step."""
    url, sha = fake_sdist(tmp_path, kernels=("selective_state_update", "ssd_combined"))
    proc = mamba_copy(str(tmp_path / "mssm"), url, sha, cwd=tmp_path)
    assert proc.returncode == 1 and "ops/triton/layernorm_gated.py" in proc.stderr
    assert not (tmp_path / "mssm" / "mamba_ssm").exists()


def test_gpu_train_prepares_mamba_through_the_same_step():
    """One copy of the download-verify-copy logic: gpu_train.sh --prepare calls gpu_smoke.sh's."""
    train = (REPO / "tools" / "gpu_train.sh").read_text()
    assert 'tools/gpu_smoke.sh --mamba-triton-copy "$MSSM"' in train
    assert "sha256sum" not in train and "curl" not in train


def test_wheel_pins_are_requirements_less_the_host_and_the_cdk():
    out = subprocess.run([str(SCRIPT), "--wheel-pins"], capture_output=True, text=True, check=True).stdout
    pins = out.split()
    expected = []
    for line in (REPO / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and line.split("==")[0].split("[")[0] not in {
            "torch", "numpy", "aws-cdk-lib", "constructs", "cdk-nag", "boto3"
        }:  # fmt: skip
            expected.append(re.sub(r"\[.*?\]", "", line))
    # and uvicorn[standard]'s HTTP parser at the image lock's pin (the offline server parses as the image does)
    lock = (REPO / "model_server" / "requirements-image.lock").read_text()
    expected.append(re.search(r"^(httptools==[^\s\\]+)", lock, re.M).group(1))
    assert pins == expected
    assert any(p.startswith("uvicorn==") for p in pins) and any(p.startswith("pyzmq==") for p in pins)
    assert not any("[" in p or p.startswith(("torch==", "numpy==", "boto3==")) for p in pins)


def fake_wheel(folder: Path, name: str, version: str) -> Path:
    """A minimal valid pure-Python wheel (pip reads its metadata, installs its one module)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-{version}-py3-none-any.whl"
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": "",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{f},,\n" for f in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as whl:
        for f, text in {**files, f"{info}/RECORD": record}.items():
            whl.writestr(f, text)
    return path


def fake_checkout(tmp_path: Path) -> Path:
    """A repository root holding this gpu_smoke.sh, a gpu_bench.py that only leaves a mark, and a bin/ with
    an nvidia-smi that sees a GPU."""
    root = tmp_path / "repo"
    (root / "tools").mkdir(parents=True)
    shutil.copy(SCRIPT, root / "tools" / "gpu_smoke.sh")
    (root / "tools" / "gpu_bench.py").write_text("import pathlib\npathlib.Path('BENCH_RAN').write_text('')\n")
    smi = root / "bin" / "nvidia-smi"
    smi.parent.mkdir()
    smi.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H200 (UUID: GPU-fake)'\n")
    smi.chmod(0o755)
    lock = root / "model_server" / "requirements-image.lock"  # the image lock's httptools pin
    lock.parent.mkdir()
    lock.write_text("httptools==0.9.0 \\\n    --hash=sha256:" + "0" * 64 + "\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (tmp_path / "tmp").mkdir()  # the script's mktemp folders (TMPDIR), kept out of /tmp
    return root


def run_checkout(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    path = f"{root / 'bin'}:{Path(sys.executable).parent}:/usr/bin:/bin"  # python3: this one, with pip
    return subprocess.run(
        [str(root / "tools" / "gpu_smoke.sh"), *args], cwd=root, capture_output=True, text=True, timeout=60,
        env={"PATH": path, "HOME": str(root), "TMPDIR": str(root.parent / "tmp"), "PIP_CONFIG_FILE": os.devnull,
             "PIP_NO_CACHE_DIR": "1", **env},
    )  # fmt: skip


def fake_mssm(root: Path, kernels=KERNELS) -> Path:
    triton = root / ".mssm" / "mamba_ssm" / "ops" / "triton"
    triton.mkdir(parents=True)
    (root / ".mssm" / "mamba_ssm" / "__init__.py").write_text('__version__ = "9.9.9"\n')
    (root / ".mssm" / "mamba_ssm" / "ops" / "__init__.py").write_text("")
    (triton / "__init__.py").write_text("")
    for k in kernels:
        (triton / f"{k}.py").write_text("")
    return triton


def test_offline_stops_before_the_bench_when_a_kernel_module_is_missing(tmp_path):
    root = fake_checkout(tmp_path)
    fake_wheel(root / ".whl", "fakedep", "1.0")
    fake_mssm(root, kernels=("selective_state_update", "ssd_combined"))  # the broken prepare's .mssm
    start = time.monotonic()
    proc = run_checkout(root, "--full", GPU_SMOKE_OFFLINE="1")
    assert proc.returncode == 1 and time.monotonic() - start < 10
    assert "layernorm_gated" in proc.stderr and "tools/gpu_smoke.sh --prepare" in proc.stderr
    assert "shared/gpu" not in proc.stderr
    assert not (root / "BENCH_RAN").exists()


def test_offline_stops_before_the_bench_when_the_kernels_do_not_import(tmp_path):
    """Every file there, but the import the server makes fails: the error is shown and the bench never
    starts. torch, triton, einops and packaging are stubs in the checkout (on the PYTHONPATH it sets)."""
    root = fake_checkout(tmp_path)
    fake_wheel(root / ".whl", "fakedep", "1.0")
    triton = fake_mssm(root)
    (triton / "layernorm_gated.py").write_text("raise ImportError('fake: triton.language has no tl.dot')\n")
    for stub in ("torch", "triton", "einops", "packaging"):
        (root / stub).mkdir()
        (root / stub / "__init__.py").write_text("")
    proc = run_checkout(root, "--full", GPU_SMOKE_OFFLINE="1")
    assert proc.returncode == 1, proc.stderr
    assert "fake: triton.language has no tl.dot" in proc.stderr and "do not import" in proc.stderr
    assert "layernorm_gated" in proc.stderr and "tools/gpu_smoke.sh --prepare" in proc.stderr
    assert not (root / "BENCH_RAN").exists()


def test_offline_without_prepared_folders_points_at_prepare(tmp_path):
    root = fake_checkout(tmp_path)
    proc = run_checkout(root, GPU_SMOKE_OFFLINE="1")
    assert proc.returncode == 1 and "tools/gpu_smoke.sh --prepare" in proc.stderr
    assert not (root / "BENCH_RAN").exists()


def test_prepare_fails_naming_the_pin_it_could_not_download(tmp_path):
    """A local index (find-links) with docopt and pyzmq only: the prepare stops with the missing pin named,
    before touching .whl/ or .mssm/; the git exclude file gets both folders."""
    root = fake_checkout(tmp_path)
    (root / "requirements.txt").write_text("torch==2.13.0\npyzmq==27.3.0\nno-such-pkg-xyz[extra]==1.0\n")
    links = tmp_path / "links"
    fake_wheel(links, "docopt", "0.6.2")
    fake_wheel(links, "pyzmq", "27.3.0")
    fake_wheel(links, "httptools", "0.9.0")
    empty = tmp_path / "empty-index"
    empty.mkdir()
    proc = run_checkout(root, "--prepare", PIP_INDEX_URL=empty.as_uri(), PIP_FIND_LINKS=str(links))
    assert proc.returncode == 1
    named = re.search(r"could not download (.*) as cp312", proc.stderr)
    assert named and named.group(1) == "no-such-pkg-xyz==1.0", proc.stderr
    assert not (root / ".whl").exists() and not (root / ".mssm").exists()
    exclude = (root / ".git" / "info" / "exclude").read_text().splitlines()
    assert "/.whl/" in exclude and "/.mssm/" in exclude


def test_prepare_refuses_a_requirement_that_is_not_a_pin(tmp_path):
    root = fake_checkout(tmp_path)
    (root / "requirements.txt").write_text("pyzmq==27.3.0\nfastapi>=0.100\n")
    proc = run_checkout(root, "--wheel-pins")
    assert proc.returncode == 1 and "fastapi>=0.100" in proc.stderr and "NAME==VERSION" in proc.stderr


def test_carry_check_counts_the_repository_and_the_carried_folders_and_fails_over_64_mib(tmp_path):
    # The one size check both prepares use (gpu_train.sh calls it too): what the device tool would send.
    root = fake_checkout(tmp_path)
    assert (
        run_checkout(root, "--ignore", ".big", ".other").returncode == 0
    )  # carried, so not sent as untracked
    exclude = (root / ".git" / "info" / "exclude").read_text().splitlines()
    assert "/.big/" in exclude and "/.other/" in exclude
    (root / ".big").mkdir()
    with open(root / ".big" / "blob", "wb") as fh:
        fh.truncate(40 * 1024 * 1024)
    ok = run_checkout(root, "--carry-check", ".big")
    assert ok.returncode == 0 and ".big 40 MiB" in ok.stderr and "(limit 64 MiB)" in ok.stderr
    with open(root / ".big" / "blob", "wb") as fh:
        fh.truncate(65 * 1024 * 1024)
    over = run_checkout(root, "--carry-check", ".big")
    assert over.returncode == 1 and "over the 64 MiB" in over.stderr
