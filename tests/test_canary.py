"""The canary function (lambda/canary/handler.py) run locally: config, playback model, EMF output, and an
outage seen as a failed measurement. Runs against the real server are in test_canary_server.py."""

from __future__ import annotations

import json
import random
import socket

import pytest

from model_server import contract
from model_server.bench.playback import simulate_playback as bench_playback
from tests.support.lambdas import load_handler as load_lambda_handler

KIT = "Statespeak-Test"


def load_handler():
    """The canary handler, imported afresh (it reads its environment at import)."""
    return load_lambda_handler("canary")


def canary_env(monkeypatch, **route):
    """The environment the construct sets, names taken from contract.py as the construct does."""
    for key in ("CANARY_TARGET_URL", "CANARY_ENDPOINT_NAME", "CANARY_SAGEMAKER_ENDPOINT_URL"):
        monkeypatch.delenv(key, raising=False)
    voice = route.pop("voice", "slt")
    monkeypatch.delenv("CANARY_VOICE", raising=False)
    env = {
        **({"CANARY_VOICE": voice} if voice else {}),
        "CANARY_SERVICE": route.pop("service", contract.DEPLOYMENT_ECS),
        "CANARY_TIMEOUT_S": "10",
        "METRICS_NAMESPACE": contract.METRICS_NAMESPACE,
        "METRIC_DIMENSION_SERVICE": contract.DIM_SERVICE,
        "METRIC_DIMENSION_KIT": contract.DIM_KIT,
        "CANARY_KIT": KIT,
        "METRIC_CANARY_TTFA": contract.METRIC_CANARY_TTFB,
        "METRIC_CANARY_STALLS": contract.METRIC_CANARY_STALLS,
        "METRIC_CANARY_SUCCESS": contract.METRIC_CANARY_SUCCESS,
        **route,
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)


def emf_lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{") and '"_aws"' in line]


def test_canary_playback_model_matches_the_bench():
    # The asset keeps its own copy of the player model; both must count the same stalls.
    rng = random.Random(3)
    for _ in range(300):
        t, arrivals = 0.0, []
        for _ in range(rng.randint(1, 25)):
            t += rng.expovariate(1 / 0.08)
            arrivals.append((t, rng.choice([0.0, 0.025, 0.05, 0.1, 0.2])))
        jitter = rng.choice([0.0, 0.05, 0.1, 0.3])
        want = bench_playback(arrivals, jitter)
        stalls, stall_s = load_handler().simulate_playback(arrivals, jitter)
        assert stalls == want.stalls
        assert stall_s == pytest.approx(want.stall_s)


def test_config_needs_the_kit_dimension(monkeypatch):
    # Every canary metric carries contract.METRIC_DIMENSIONS: without the kit's name there is no metric.
    h = load_handler()
    canary_env(monkeypatch, CANARY_TARGET_URL="http://a")
    monkeypatch.delenv("CANARY_KIT")
    with pytest.raises(h.CanaryConfigError, match="CANARY_KIT"):
        h.load_config()


def test_config_needs_exactly_one_route(monkeypatch):
    h = load_handler()
    canary_env(monkeypatch)
    with pytest.raises(h.CanaryConfigError, match="exactly one"):
        h.load_config()
    canary_env(monkeypatch, CANARY_TARGET_URL="http://a", CANARY_ENDPOINT_NAME="b")
    with pytest.raises(h.CanaryConfigError, match="exactly one"):
        h.load_config()
    canary_env(monkeypatch, CANARY_TARGET_URL="ftp://a")
    with pytest.raises(h.CanaryConfigError, match="http"):
        h.load_config()
    # Only the ALB route can discover its voice; the SageMaker route must be told.
    canary_env(monkeypatch, CANARY_ENDPOINT_NAME="ep", voice=None)
    with pytest.raises(h.CanaryConfigError, match="CANARY_VOICE"):
        h.load_config()
    canary_env(monkeypatch, CANARY_TARGET_URL="http://a", voice=None)
    cfg = h.load_config()
    assert cfg["voice"] is None and cfg["tls_check_hostname"] is True
    monkeypatch.setenv("CANARY_TLS_CHECK_HOSTNAME", "false")
    assert h.load_config()["tls_check_hostname"] is False
    canary_env(monkeypatch, CANARY_TARGET_URL="http://a")
    monkeypatch.delenv("METRIC_CANARY_SUCCESS")
    with pytest.raises(h.CanaryConfigError, match="METRIC_CANARY_SUCCESS"):
        h.load_config()


def test_emf_document_uses_the_names_it_was_given(monkeypatch):
    h = load_handler()
    canary_env(monkeypatch, CANARY_TARGET_URL="http://alb.internal")
    cfg = h.load_config()
    ok = {
        "success": True,
        "ttfa_ms": 81.234,
        "stalls": 1,
        "stall_ms": 40.0,
        "audio_s": 2.5,
        "chunks": 9,
        "error": None,
    }
    doc = h.emf_record(cfg, ok, 1_700_000_000_000)
    directive = doc["_aws"]["CloudWatchMetrics"][0]
    assert directive["Namespace"] == contract.METRICS_NAMESPACE
    assert directive["Dimensions"] == [list(contract.METRIC_DIMENSIONS)]
    names = {m["Name"]: m["Unit"] for m in directive["Metrics"]}
    assert names == {
        contract.METRIC_CANARY_SUCCESS: "Count",
        contract.METRIC_CANARY_TTFB: "Milliseconds",
        contract.METRIC_CANARY_STALLS: "Count",
    }
    assert doc[contract.DIM_SERVICE] == contract.DEPLOYMENT_ECS and doc[contract.DIM_KIT] == KIT
    assert doc[contract.METRIC_CANARY_SUCCESS] == 1 and doc[contract.METRIC_CANARY_TTFB] == 81.23
    failed = dict(ok, success=False, ttfa_ms=None, error="boom")
    doc = h.emf_record(cfg, failed, 1)
    assert [m["Name"] for m in doc["_aws"]["CloudWatchMetrics"][0]["Metrics"]] == [
        contract.METRIC_CANARY_SUCCESS
    ]
    assert doc[contract.METRIC_CANARY_SUCCESS] == 0 and doc["error"] == "boom"


def test_unreachable_route_is_a_failed_measurement_not_a_crash(monkeypatch, capsys):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    canary_env(monkeypatch, CANARY_TARGET_URL=f"http://127.0.0.1:{port}")
    result = load_handler().handler({}, None)
    assert result["success"] is False and "ConnectionRefused" in result["error"]
    (doc,) = emf_lines(capsys.readouterr().out)
    assert doc[contract.METRIC_CANARY_SUCCESS] == 0
    assert contract.METRIC_CANARY_TTFB not in doc


def test_api_key_secret_may_hold_several_keys():
    h = load_handler()
    assert h.first_key("k1") == "k1"
    assert h.first_key(" k1 , k2") == "k1"
    assert h.first_key("\nk1\nk2\n") == "k1"
    with pytest.raises(h.CanaryConfigError, match="empty"):
        h.first_key(" , ")


def test_a_stream_that_trickles_past_the_deadline_is_a_failure_published_in_time(monkeypatch, capsys):
    """Each read waited a whole socket timeout, checked only between reads: a stream that sent a chunk just
    before the timeout and then hung ran to twice it, past the function's own timeout (timeout_s + 15 s),
    and the minute had no datapoint. Now the run's deadline bounds every read."""
    import threading
    import time

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def trickle() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            conn.sendall(b"640\r\n" + b"\0" * 1600 + b"\r\n")  # 50 ms of audio
            time.sleep(1.9)
            conn.sendall(b"640\r\n" + b"\0" * 1600 + b"\r\n")
            time.sleep(10)  # then nothing

    threading.Thread(target=trickle, daemon=True).start()
    canary_env(monkeypatch, CANARY_TARGET_URL=f"http://127.0.0.1:{listener.getsockname()[1]}")
    monkeypatch.setenv("CANARY_TIMEOUT_S", "2")
    t0 = time.monotonic()
    result = load_handler().handler({}, None)
    elapsed = time.monotonic() - t0
    listener.close()
    assert result["success"] is False and "TimeoutError" in result["error"]
    assert elapsed < 3.0  # the deadline (2 s), not deadline + a read's whole timeout (about 3.9 s before)
    (doc,) = emf_lines(capsys.readouterr().out)
    assert doc[contract.METRIC_CANARY_SUCCESS] == 0
