"""The canary handler against the real server: the ALB route (HTTP /tts/bytes) and the SageMaker route
(boto3 through the runtime stand-in, whose container is the real server). The metric document it prints
is what CloudWatch would turn into the canary metrics."""

from __future__ import annotations

import pytest
from support.sagemaker_runtime_standin import create_app, serve_in_thread

# The bench's real-server fixtures (one server per module, random or bundled weights).
from test_bench_server import model_dir, server, voice  # noqa: F401
from test_canary import canary_env, emf_lines, load_handler

from model_server import contract

pytestmark = pytest.mark.slow


def _check_success(result, out):
    assert result["success"] is True, result["error"]
    assert result["ttfa_ms"] > 0 and result["audio_s"] > 0.2 and result["chunks"] >= 1
    (doc,) = emf_lines(out)
    assert doc[contract.METRIC_CANARY_SUCCESS] == 1
    assert doc[contract.METRIC_CANARY_TTFB] == pytest.approx(result["ttfa_ms"], abs=0.01)
    assert doc[contract.METRIC_CANARY_STALLS] == result["stalls"]
    return doc


def test_alb_route_against_the_real_server(server, voice, monkeypatch, capsys):  # noqa: F811
    canary_env(monkeypatch, CANARY_TARGET_URL=server.url, voice=voice)
    result = load_handler().handler({}, None)
    doc = _check_success(result, capsys.readouterr().out)
    assert doc[contract.DIM_SERVICE] == contract.DEPLOYMENT_ECS and doc["route"] == server.url


def test_alb_route_finds_a_voice_when_none_is_configured(server, voice, monkeypatch, capsys):  # noqa: F811
    canary_env(monkeypatch, CANARY_TARGET_URL=server.url, voice=None)
    handler = load_handler()
    result = handler.handler({}, None)
    _check_success(result, capsys.readouterr().out)
    assert handler._cache["voice"] == voice  # the first voice GET /voices lists, kept while warm


def test_unknown_voice_is_a_failure_with_the_servers_reason(server, monkeypatch, capsys):  # noqa: F811
    canary_env(monkeypatch, CANARY_TARGET_URL=server.url, voice="no_such_voice")
    result = load_handler().handler({}, None)
    assert result["success"] is False and "HTTP 4" in result["error"] and "voice" in result["error"]
    (doc,) = emf_lines(capsys.readouterr().out)
    assert doc[contract.METRIC_CANARY_SUCCESS] == 0


def test_sagemaker_route_through_the_runtime_standin(server, voice, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with serve_in_thread(create_app(server.url, "canary-endpoint")) as runtime_url:
        canary_env(
            monkeypatch,
            CANARY_ENDPOINT_NAME="canary-endpoint",
            CANARY_SAGEMAKER_ENDPOINT_URL=runtime_url,
            service=contract.DEPLOYMENT_SAGEMAKER,
            voice=voice,
        )
        handler = load_handler()
        result = handler.handler({}, None)
        doc = _check_success(result, capsys.readouterr().out)
        assert doc[contract.DIM_SERVICE] == contract.DEPLOYMENT_SAGEMAKER
        # A refusal from the container (here: unknown voice) arrives as ModelError: a failed canary.
        monkeypatch.setenv("CANARY_VOICE", "no_such_voice")
        failed = handler.handler({}, None)
    assert failed["success"] is False and "ModelError" in failed["error"]
