"""Start-up: the runtime warms up before readiness, and a server asked for cuda never turns ready without
CUDA and the mamba-ssm kernels (the real server process on this CPU machine)."""

from __future__ import annotations

import json
import time

import httpx
import pytest
import torch

from model_server.contract import DEVICE_CUDA, ENV_DEVICE, METRIC_DEVICE_UNAVAILABLE
from model_server.metrics import prom_name
from model_server.model.executor import graph_bucket, warmup_shapes
from model_server.model.runtime import SpeechRuntime

from ._server import ServerProcess


def log_lines(proc: ServerProcess) -> list[dict]:
    return [json.loads(line) for line in proc.stderr().splitlines() if line.startswith("{")]


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks a CUDA request on a host without CUDA")
def test_cuda_requested_without_cuda_stays_unready_and_says_why(model_dir, tmp_path):
    proc = ServerProcess(model_dir, tmp_path, **{ENV_DEVICE: DEVICE_CUDA, "STATESPEAK_EMF_INTERVAL_S": "0.2"})
    proc.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.proc.poll() is None, f"the server exited:\n{proc.stderr()[-3000:]}"
            try:
                if "failed" in httpx.get(proc.base_url + "/health", timeout=2).text:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        time.sleep(1.0)  # still up, still refusing, a moment later
        health = httpx.get(proc.base_url + "/health", timeout=5)
        assert health.status_code == 200 and health.json()["phase"] == "failed"
        for path in ("/ready", "/ping"):
            r = httpx.get(proc.base_url + path, timeout=5)
            assert r.status_code == 503, path
            assert (
                r.json()["reason"].startswith("cuda_unavailable: torch")
                and "no CUDA device" in r.json()["reason"]
            )
        speak = {"transcript": "Hello.", "voice": {"mode": "id", "id": "en_female_a"},
                 "output_format": {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}}  # fmt: skip
        assert httpx.post(proc.base_url + "/tts/bytes", json=speak, timeout=10).status_code == 503
        assert proc.metric(prom_name(METRIC_DEVICE_UNAVAILABLE), 'reason="cuda_unavailable"') == 1.0
        assert proc.proc.poll() is None
    finally:
        proc.stop()
    refusal = [e for e in log_lines(proc) if e.get("reason") == "cuda_unavailable"]
    assert refusal and refusal[0]["level"] == "ERROR" and "cuda" in refusal[0]["msg"]
    assert not any(e["msg"] == "loading model" for e in log_lines(proc))  # refused before loading
    emf = [e for e in proc.emf_lines() if METRIC_DEVICE_UNAVAILABLE in e]
    assert len(emf) >= 2 and all(e[METRIC_DEVICE_UNAVAILABLE] == 1 for e in emf)  # at once, then periodic


def test_the_runtime_warms_up_before_readiness(server):
    """The shared CPU server: the runtime's warm-up ran, and finished before `ready` was logged."""
    msgs = [e["msg"] for e in log_lines(server)]
    assert "runtime warmed up" in msgs and "ready" in msgs
    assert msgs.index("runtime warmed up") < msgs.index("ready")
    warm = next(e for e in log_lines(server) if e["msg"] == "runtime warmed up")
    assert warm["device"] == "cpu" and warm["cuda_graphs"] == 0 and warm["warmup_s"] >= 0
    assert warm["batches"] == [1, 6]  # the shared server's MAX_STREAMS


def test_warmup_shapes_cover_every_bucket_and_length_the_engine_uses():
    batches, lengths = warmup_shapes(16, 32, graphs=True)
    assert batches == [1, 2, 4, 8, 16] and lengths == [1, 2, 4, 8, 16, 32]
    # 12 streams are padded to the 16 bucket: that graph must exist before traffic
    assert warmup_shapes(12, 32, graphs=True)[0] == [1, 2, 4, 8, 16]
    # graphs up to the bucket that holds MAX_STREAMS, so no batch runs eagerly or captures under traffic
    assert warmup_shapes(100, 4, graphs=True) == ([1, 2, 4, 8, 16, 32, 64, 128], [1, 2, 4])
    assert warmup_shapes(4096, 1, graphs=True)[0][-1] == 4096
    assert [graph_bucket(b) for b in (1, 2, 3, 64, 65, 1000)] == [1, 2, 4, 64, 128, 1024]
    assert warmup_shapes(1, 1, graphs=True) == ([1], [1])
    assert warmup_shapes(16, 32, graphs=False) == ([1, 16], [8])  # CPU: no graphs, two small steps


def test_runtime_warmup_on_cpu_runs_its_steps_and_captures_nothing():
    rt = SpeechRuntime.init_random(seed=0)
    info = rt.warmup(3, 4)
    assert info == {"batches": [1, 3], "lengths": [4], "cuda_graphs": 0, "graph_failures": 0}


def test_a_model_directory_with_a_learned_vocoder_is_served_at_its_24_khz(model_dir, tmp_path):
    """The real server on a copy of the random model with a (random, small) learned vocoder beside it: the
    engine serves from it at 24 kHz (logged at load), and a 16 kHz request is resampled down from it.
    ``STATESPEAK_VOCODER=harmonic`` keeps the 16 kHz vocoder for the same directory."""
    import shutil

    from model_server import neural_vocoder

    served = tmp_path / "model"
    shutil.copytree(model_dir, served)
    small = neural_vocoder.NeuralVocoderConfig(channels=16, layers=1, kernel=3, mlp_ratio=2)
    neural_vocoder.NeuralVocoder(small).save(served)
    speak = {"transcript": "Hello there.", "voice": {"mode": "id", "id": "en_female_a"},
             "output_format": {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}}  # fmt: skip
    for choice, rate in (("auto", 24000), ("harmonic", 16000)):
        with ServerProcess(served, tmp_path, STATESPEAK_VOCODER=choice, STATESPEAK_WORKERS="1") as proc:
            r = httpx.post(proc.base_url + "/tts/bytes", json=speak, timeout=30)
            assert r.status_code == 200 and len(r.content) > 3200, (r.status_code, r.text[:200])
        vocoder = [e for e in log_lines(proc) if e["msg"] == "vocoder"]
        assert [(e["vocoder"], e["sample_rate"]) for e in vocoder] == [
            ("neural" if choice == "auto" else "harmonic", rate)
        ]


def test_asking_for_the_learned_vocoder_without_one_fails_the_start_and_says_why(model_dir, tmp_path):
    proc = ServerProcess(model_dir, tmp_path, STATESPEAK_VOCODER="neural", STATESPEAK_WORKERS="1")
    proc.start()
    try:
        proc.proc.wait(60)
    finally:
        proc.stop()
    assert proc.proc.returncode != 0
    failed = [e for e in log_lines(proc) if e["msg"] == "model load failed"]
    assert (
        failed
        and "vocoder 'neural' requested but" in proc.stderr()
        and "neural_vocoder.json" in proc.stderr()
    )
