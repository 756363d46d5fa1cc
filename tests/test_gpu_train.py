"""tools/gpu_train.sh (the prepared GPU fine-tune) rehearsed end to end on this CPU: every step runs for real
(hibari renders, model_server.train fine-tunes the shipped model, the weights come back and load), at a size
that takes about half a minute. The CUDA run itself needs a GPU host (docs/model.md)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from model_server.model import checkpoint
from model_server.model.runtime import SpeechRuntime
from tests.support.gpu_tools import device_host_env, has_gpu, load_tool

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "gpu_train.sh"
gpu_train = load_tool("gpu_train")

STEPS = ("env", "render", "baseline", "train", "export", "speed")
DEVICE_NAME = re.compile(r"^[A-Za-z0-9._-]+$")  # what the device tool brings back: 8 files, 16 MiB each


def test_script_parses():
    assert subprocess.run(["bash", "-n", str(SCRIPT)]).returncode == 0


def test_the_carried_wheels_include_what_every_language_normalizer_imports_for_english():
    assert {"hibari-tts", "espeakng-loader", "babel", "num2words", "pyworld"} <= set(carried_wheels())


def test_the_device_host_environment_hides_what_the_host_lacks_and_keeps_what_it_has():
    env = {**os.environ, **device_host_env(["babel"])}
    probe = (
        "import importlib, sys\nfor m in sys.argv[1:]:\n"
        "    try: importlib.import_module(m); print(m, 'ok')\n    except ImportError: print(m, 'absent')"
    )
    proc = subprocess.run([sys.executable, "-c", probe, "babel", "numpy", "torch", "janome", "fastapi"], env=env,
                          capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    found = dict(zip(*[iter(proc.stdout.split())] * 2, strict=True))
    assert found == {"babel": "ok", "numpy": "ok", "torch": "ok", "janome": "absent", "fastapi": "absent"}


@pytest.mark.skipif(has_gpu(), reason="checks the no-GPU path")
def test_without_a_gpu_it_stops_before_installing_anything(tmp_path):
    proc = subprocess.run(
        [str(SCRIPT), "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert proc.returncode == 2
    assert "no CUDA" in proc.stderr and "GPU_TRAIN_DEVICE=cpu" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def carried_wheels() -> list[str]:
    """The distributions tools/gpu_train.sh carries to the device as wheels."""
    proc = subprocess.run([str(SCRIPT), "--wheels"], capture_output=True, text=True, check=True, timeout=30)
    return proc.stdout.split()


def _rehearse(tmp: Path, args: list[str]) -> tuple[Path, dict, str]:
    """tools/gpu_train.sh on this CPU with ``args``, importing only what the device host holds and the wheels
    the run carries (the first H100 run lost its render to a babel it did not carry): (its output folder, its
    report, its stderr)."""
    out = tmp / "out"
    env = {**os.environ, "GPU_TRAIN_DEVICE": "cpu", "GPU_TRAIN_PYTHON": sys.executable,
           **device_host_env(carried_wheels())}  # fmt: skip
    env.pop("OUT", None)
    proc = subprocess.run([str(SCRIPT), *args, "--out", str(out), "--work", str(tmp / "work")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, json.loads((out / "gpu-train.json").read_text()), proc.stderr


@pytest.fixture(scope="module")
def rehearsal(tmp_path_factory):
    """One CPU run of every step (about 25 s on two busy cores: render 21 sentences, 6 s of training)."""
    return _rehearse(tmp_path_factory.mktemp("gpu-train"), ["--minutes", "0.1", "--hours-scale", "0.016", "--batch",
                                                            "8", "--crop", "96", "--speed-sentences", "1"])  # fmt: skip


@pytest.mark.slow
def test_every_step_ran_and_was_timed(rehearsal):
    _, report, stderr = rehearsal
    assert report["ok"] is True
    steps = report["steps"]
    assert [s for s in STEPS if s in steps] == list(STEPS)
    assert all(steps[s]["seconds"] >= 0 and "error" not in steps[s] for s in STEPS)
    # each figure is rounded to 0.01 s on its own: the sum of six may pass the total by that much each
    assert report["total_s"] >= sum(steps[s]["seconds"] for s in STEPS) - 0.005 * len(STEPS)
    assert steps["env"]["mamba2_path"] == "torch" and "skipped" in steps["env"]["grad_check"]
    assert steps["render"]["utterances"] > 20 and steps["render"]["batches_timed_out"] == 0
    # the render started before the env step ended (beside its kernel compile on a GPU) and its wall time
    # counts from then, so it is at least the seconds the render step itself waited
    assert steps["render"]["started_at_s"] < steps["env"]["seconds"]
    assert steps["render"]["wall_s"] >= steps["render"]["seconds"] - 0.01
    assert steps["train"]["steps"] >= 1 and steps["train"]["frames_per_s"] > 0
    assert steps["train"]["mamba2_path"] == "torch" and steps["train"]["minutes"] == 0.1
    # more than 20 utterances: one is held out, so both validation losses exist
    assert steps["baseline"]["val_loss"] > 0 and steps["train"]["val_loss"] > 0
    assert steps["speed"]["cpu_1_thread"]["rtf"] > 0 and "cuda" not in steps["speed"]
    assert "done in" in stderr and "val loss" in stderr


@pytest.mark.slow
def test_the_weights_load_and_keep_every_voice_of_the_init_model(rehearsal):
    out, report, _ = rehearsal
    weights = out / "weights"
    rt = SpeechRuntime.load(weights)
    init = checkpoint.load(gpu_train.INIT)
    assert set(rt.voices) == {v.info.id for v in init.voices}
    assert report["steps"]["export"]["voices"] == len(init.voices) > 1
    trained = checkpoint.load(weights)
    assert (
        trained.extra["init"] == str(gpu_train.INIT)
        and trained.extra["step"] == report["steps"]["train"]["steps"]
    )
    assert not torch.equal(trained.model.encoder.symbol_emb.weight, init.model.encoder.symbol_emb.weight)


@pytest.mark.slow
def test_outputs_fit_what_the_device_tool_brings_back(rehearsal):
    out, _, _ = rehearsal
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.relative_to(out).as_posix() for p in files} >= {
        "gpu-train.json", "train.log", "run.log", "weights/config.json", "weights/model.safetensors"
    }  # fmt: skip
    assert len(files) <= 8
    for p in files:
        rel = p.relative_to(out)
        assert len(rel.parts) <= 3 and all(DEVICE_NAME.match(part) for part in rel.parts), rel
        assert p.stat().st_size <= gpu_train.OUT_FILE_LIMIT


def test_gradient_check_separates_a_right_path_from_a_wrong_one():
    """The device's kernel check (grad_errors) on two torch paths here: the chunked scan and the recurrent
    step agree in value and gradient; a path with the right output but a wrong backward does not."""
    mixer = checkpoint.load(gpu_train.INIT).model.decoder.layers[0].mixer.float()

    def recurrent(x):
        conv, ssm = mixer.allocate_state(x.shape[0])
        ys = []
        for t in range(x.shape[1]):
            y, (conv, ssm) = mixer.step(x[:, t : t + 1], conv, ssm)
            ys.append(y)
        return torch.cat(ys, dim=1), (conv, ssm)

    def scan(x):
        return mixer.scan(x)

    def half_gradient(x):
        y, state = mixer.scan(x)
        return y.detach() + (y - y.detach()) * 0.5, state

    with torch.no_grad():  # the caller's grad mode does not matter (an in-process server test turns it off)
        errors = gpu_train.grad_errors(mixer, scan, recurrent, batch=2, length=24)
    assert {"output", "grad.input", "grad.A_log", "grad.D", "grad.dt_bias", "grad.in_proj.weight"} <= set(
        errors
    )
    assert max(errors.values()) < 1e-4, errors
    wrong = gpu_train.grad_errors(mixer, half_gradient, scan, batch=2, length=24)
    assert wrong["output"] < 1e-6 and wrong["grad.input"] > gpu_train.GRAD_TOLERANCE


@pytest.fixture(scope="module")
def vocoder_rehearsal(tmp_path_factory):
    """The learned vocoder's stage (`--stage vocoder`) on this CPU: 12 teacher sentences, 3 s of training."""
    out, report, _ = _rehearse(tmp_path_factory.mktemp("gpu-vocoder"), [
        "--stage", "vocoder", "--minutes", "0.05", "--vocoder-sentences", "12", "--vocoder-batch", "2",
        "--vocoder-crop", "16", "--vocoder-channels", "32", "--workers", "2", "--speed-sentences", "1"])  # fmt: skip
    return out, report


@pytest.mark.slow
def test_the_vocoder_stage_runs_every_step_and_brings_back_a_vocoder_that_serves(vocoder_rehearsal):
    from model_server import neural_vocoder

    out, report = vocoder_rehearsal
    steps = report["steps"]
    assert report["ok"] is True
    assert [s for s in steps if s != "install"] == ["env", "vocoder_render", "vocoder_train", "vocoder_export",
                                                    "vocoder_speed"]  # fmt: skip
    # the shipped model's features at the teacher's timing (an utterance with a poor alignment would be dropped)
    assert steps["vocoder_render"]["features"] == "model" and steps["vocoder_render"]["utterances"] >= 11
    assert steps["vocoder_render"]["hours"] > 0
    assert (
        steps["vocoder_train"]["steps"] >= 1 and steps["vocoder_train"]["gan"] is False
    )  # the GAN is for CUDA
    assert steps["vocoder_train"]["config"]["channels"] == 32
    assert steps["vocoder_speed"]["cpu_1_thread"]["rtf"] > 0 and "cuda" not in steps["vocoder_speed"]
    model = neural_vocoder.NeuralVocoder.load(out / "weights-vocoder")
    assert model.config.channels == 32 and model.sample_rate == 24000
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) <= 8 and all(p.stat().st_size <= gpu_train.OUT_FILE_LIMIT for p in files)
    assert (
        "neural:" in report["evaluate_here"]
        and "model_server.evaluate --model runs/served" in report["evaluate_here"]
    )


def _alive(pid: int) -> bool:
    """Running (a zombie left to a container's init counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def test_a_stopped_job_takes_its_worker_processes_with_it(tmp_path):
    # The render runs in the background beside the env step; when that step fails or the run is
    # interrupted, stopping the render must also stop the worker processes it started (its pool).
    run = gpu_train.Run(tmp_path / "out")
    pidfile = tmp_path / "child.pid"
    code = (
        "import subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
        f"open({str(pidfile)!r}, 'w').write(str(p.pid)); time.sleep(120)"
    )
    job = run.start(["-c", code])
    deadline = time.monotonic() + 20
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(pidfile.read_text())
    assert _alive(child) and job.proc.poll() is None
    job.stop()
    assert job.proc.poll() is not None and job.log.closed
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)
    job.stop()  # again: harmless
    assert "$ -c import subprocess" in (tmp_path / "out" / "run.log").read_text()


def test_the_device_render_asks_for_no_word_sentences(tmp_path):
    """wordfreq is not among the carried wheels: a non-English --voice must not need it on the device."""
    from model_server.data import __main__ as data_cli

    cmd = gpu_train.render_cmd(gpu_train.parse_args(["--voice", "fr_female_f2"]), tmp_path)
    assert cmd[:2] == ["-m", "model_server.data"]
    parsed = data_cli._build_parser().parse_args(cmd[2:])  # flags the data CLI accepts
    assert parsed.word_share == 0 and parsed.voices == "fr_female_f2" and parsed.out == tmp_path
