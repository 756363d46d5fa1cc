"""The canary handler against the real server: the ALB route (HTTP /tts/bytes) and the SageMaker route
(boto3 through the runtime stand-in, whose container is the real server). The metric document it prints
is what CloudWatch would turn into the canary metrics."""

from __future__ import annotations

import boto3
import botocore.session
import pytest
from botocore.stub import Stubber
from support.sagemaker_runtime_standin import create_app, serve_in_thread

# The bench's real-server fixtures (one server per module, random or bundled weights).
from test_bench_server import model_dir, server, voice  # noqa: F401
from test_canary import canary_env, emf_lines, load_handler

from model_server import contract
from model_server.bench.local import LocalServer

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


SECRET_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:statespeak-api-key-AbCdEf"


@pytest.fixture(scope="module")
def keyed_server(model_dir, tmp_path_factory):  # noqa: F811
    """A server that takes only the key a rotation left in the secret."""
    env = {contract.ENV_MODEL_DIR: str(model_dir), "STATESPEAK_DEVICE": "cpu", "OMP_NUM_THREADS": "1",
           contract.ENV_API_KEYS: "new-key"}  # fmt: skip
    log = tmp_path_factory.mktemp("keyed-server") / "server.log"
    with LocalServer(log, max_streams=2, ready_timeout_s=180, extra_env=env) as srv:
        yield srv


def _secret_reads(monkeypatch, *secrets: str) -> Stubber:
    """Secrets Manager answering GetSecretValue with `secrets` in turn (botocore's Stubber), as the canary's
    boto3 client."""
    client = botocore.session.get_session().create_client(
        "secretsmanager", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    stubber = Stubber(client)
    for secret in secrets:
        stubber.add_response(
            "get_secret_value", {"ARN": SECRET_ARN, "Name": "api-key", "SecretString": secret},
            {"SecretId": SECRET_ARN},
        )  # fmt: skip
    stubber.activate()
    monkeypatch.setattr(boto3, "client", lambda service, *a, **kw: client)
    return stubber


def test_a_warm_canary_reads_a_rotated_key_again_after_a_401(keyed_server, monkeypatch, capsys):
    """docs/ecs.md's rotation ends with only the new key in the secret: a warm container that read the old
    one gets 401, reads the secret again once, and succeeds. A 401 with the key just read is a failure."""
    canary_env(
        monkeypatch, CANARY_TARGET_URL=keyed_server.url, voice=None, CANARY_API_KEY_SECRET_ARN=SECRET_ARN
    )
    handler = load_handler()
    stubber = _secret_reads(monkeypatch, "new-key", "old-key")
    handler._cache["api_key"] = "old-key"  # what a container warm since before the rotation holds
    result = handler.handler({}, None)
    _check_success(result, capsys.readouterr().out)
    assert handler._cache["api_key"] == "new-key"
    # a cold container whose secret holds a key the server refuses: one read, no retry, a failed canary
    handler._cache.clear()
    failed = handler.handler({}, None)
    assert failed["success"] is False and "HTTP 401" in failed["error"], failed
    stubber.assert_no_pending_responses()  # exactly one read each
