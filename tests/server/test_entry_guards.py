"""The ECS route's entry guards on a real server: the env vars the ECS task sets (stacks/ecs_service.py)
turn off the keyless SageMaker routes and refuse `?api_key=`; unset (SageMaker, local) both work, which
test_ops.py's auth server checks with the same requests. The server runs two API workers, as a task does:
each worker applies the switches."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from model_server.config import ServerConfig
from model_server.contract import (
    ENV_API_KEYS,
    ENV_DEPLOYMENT,
    ENV_QUERY_API_KEYS,
    ENV_SAGEMAKER_ROUTES,
)

from ._server import ServerProcess
from .test_processes import clients_per_worker

FMT = {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}
BODY = {"transcript": "Hi.", "voice": {"mode": "id", "id": "en_female_a"}, "output_format": FMT}
KEY = "entry-key"


@pytest.fixture(scope="module")
def ecs_server(model_dir, tmp_path_factory):
    """As an internet-facing ECS task runs it: API keys on, SageMaker routes off, query keys refused."""
    env = {
        ENV_API_KEYS: KEY,
        ENV_DEPLOYMENT: "ecs",
        ENV_SAGEMAKER_ROUTES: "false",
        ENV_QUERY_API_KEYS: "false",
        "STATESPEAK_WORKERS": "2",
    }
    with ServerProcess(model_dir, tmp_path_factory.mktemp("ecs"), **env) as proc:
        yield proc


def test_sagemaker_routes_answer_404_on_the_ecs_route(ecs_server):
    assert httpx.post(ecs_server.base_url + "/invocations", json=BODY, timeout=30).status_code == 404
    assert httpx.get(ecs_server.base_url + "/ping").status_code == 404
    # The ALB's own probes are untouched.
    for path in ("/health", "/ready"):
        assert httpx.get(ecs_server.base_url + path).status_code == 200
    auth = {"Authorization": f"Bearer {KEY}"}
    assert (
        httpx.post(ecs_server.base_url + "/tts/bytes", json=BODY, headers=auth, timeout=30).status_code == 200
    )


def test_every_worker_applies_the_switches(ecs_server):
    async def main():
        by_worker = await clients_per_worker(ecs_server)
        answers = {}
        for worker, clients in by_worker.items():
            c = clients[0]
            answers[worker] = (
                (await c.post("/invocations", json=BODY)).status_code,
                (await c.get("/ping")).status_code,
                (await c.post("/tts/bytes", json=BODY, params={"api_key": KEY})).status_code,
            )
            for c in clients:
                await c.aclose()
        return answers

    answers = asyncio.run(main())
    assert len(answers) == 2, "one worker took every connection"
    assert all(a == (404, 404, 401) for a in answers.values()), answers


def test_query_string_keys_are_refused_even_when_valid(ecs_server):
    r = httpx.post(ecs_server.base_url + "/tts/bytes", json=BODY, params={"api_key": KEY}, timeout=30)
    assert r.status_code == 401
    assert r.json()["field"] == "api_key" and "query string" in r.text
    ok = httpx.post(ecs_server.base_url + "/tts/bytes", json=BODY, headers={"X-API-Key": KEY}, timeout=30)
    assert ok.status_code == 200


def test_query_string_keys_are_refused_on_the_websocket(ecs_server):
    async def main():
        with pytest.raises(InvalidStatus) as refused:
            async with connect(f"{ecs_server.ws_url}/tts/websocket?api_key={KEY}"):
                pass
        assert refused.value.response.status_code == 401
        headers = {"Authorization": f"Bearer {KEY}"}
        async with connect(ecs_server.ws_url + "/tts/websocket", additional_headers=headers) as ws:
            await ws.send(json.dumps({**BODY, "context_id": "a", "continue": False}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 20))["type"] == "chunk"

    asyncio.run(main())
    # uvicorn logs each handshake's path with its query string at INFO: the refused key reached the logs
    logs = ecs_server.stderr()
    assert "/tts/websocket?api_key=<redacted>" in logs and KEY not in logs
    started = [json.loads(line) for line in logs.splitlines() if '"worker started"' in line]
    assert started and all(doc["api_keys"] == 1 and doc["sagemaker_routes"] is False for doc in started)


def test_protocol_logs_keep_keys_and_frames_out_even_at_debug():
    """At STATESPEAK_LOG_LEVEL=DEBUG, uvicorn and websockets logged request headers (x-api-key) and every
    WebSocket frame (transcripts)."""
    import logging

    from model_server.api.logs import JsonFormatter, setup_logging

    root = logging.getLogger()
    before = root.handlers[:], root.level
    try:
        setup_logging("DEBUG")
        assert not logging.getLogger("uvicorn.error").isEnabledFor(logging.DEBUG)
        assert not logging.getLogger("websockets").isEnabledFor(logging.DEBUG)
        assert logging.getLogger("statespeak").isEnabledFor(logging.DEBUG)
    finally:
        root.handlers[:], level = before
        root.setLevel(level)
        for name in ("uvicorn", "uvicorn.error", "websockets"):
            logging.getLogger(name).setLevel(logging.NOTSET)
    record = logging.LogRecord("x", logging.INFO, "", 0, "%s", ("< x-api-key: s3cret",), None)
    assert "s3cret" not in JsonFormatter().format(record)


def test_the_kit_client_speaks_over_the_websocket_with_query_keys_refused(ecs_server):
    from model_server.client import SpeechClient

    client = SpeechClient(ecs_server.base_url, transport="websocket", api_key=KEY)
    try:
        audio, _ = client.synthesize("Hi.", voice=BODY["voice"], output_format=FMT)
    finally:
        client.close()
    assert len(audio) > 0


def test_api_keys_turn_the_keyless_sagemaker_routes_off_unless_asked_for():
    from model_server.config import ENV_API_KEYS

    assert ServerConfig.from_env({ENV_API_KEYS: "k1"}).sagemaker_routes is False
    assert ServerConfig.from_env({ENV_API_KEYS: "k1", ENV_SAGEMAKER_ROUTES: "true"}).sagemaker_routes is True
    assert ServerConfig.from_env({ENV_API_KEYS: "  "}).sagemaker_routes is True  # blank: no keys, no auth


@pytest.mark.parametrize("value", [",", " , ", ",,,"])
def test_api_keys_of_separators_only_are_refused_not_read_as_no_auth(value):
    """ "$OLD,$NEW" with both unset stored "," in the secret, and every task served without a key."""
    from model_server.config import ENV_API_KEYS, ConfigError

    with pytest.raises(ConfigError, match=ENV_API_KEYS):
        ServerConfig.from_env({ENV_API_KEYS: value})


@pytest.mark.parametrize("name", [ENV_SAGEMAKER_ROUTES, ENV_QUERY_API_KEYS])
def test_a_bad_switch_value_names_the_variable(name):
    from model_server.config import ConfigError

    with pytest.raises(ConfigError, match=name):
        ServerConfig.from_env({name: "maybe"})
    assert getattr(ServerConfig.from_env({}), name.removeprefix("STATESPEAK_").lower()) is True


def test_the_kit_client_reports_a_refused_websocket_handshake_like_an_http_refusal(ecs_server):
    """The WebSocket route raised status None and a dump of the raw handshake response."""
    from model_server.client import SpeechClient, SpeechClientError

    client = SpeechClient(ecs_server.base_url, transport="websocket", api_key="wrong")
    with pytest.raises(SpeechClientError) as info:
        client.synthesize("Hi.", voice=BODY["voice"], output_format=FMT)
    assert info.value.status == 401 and "invalid API key" in str(info.value)


def test_browser_origins_are_refused_unless_allowed(server):
    """A web page opened by someone inside the VPC could use the WebSocket (audio included) or post blind
    synthesis requests: browsers send an Origin header, voice agents and SDKs do not."""
    evil = {"Origin": "https://evil.example"}
    r = httpx.post(server.base_url + "/tts/bytes", json=BODY, headers=evil, timeout=30)
    assert r.status_code == 403 and r.json()["field"] == "origin", r.text
    r = httpx.post(
        server.base_url + "/tts/bytes",
        content=json.dumps(BODY),
        headers={**evil, "Content-Type": "text/plain"},
    )
    assert r.status_code == 403  # a CORS "simple" request: the browser sends it without asking first

    async def main():
        with pytest.raises(InvalidStatus) as refused:
            async with connect(server.ws_url + "/tts/websocket", origin="https://evil.example"):
                pass
        assert refused.value.response.status_code == 403
        async with connect(server.ws_url + "/tts/websocket") as ws:  # no Origin: an agent, served
            await ws.send(json.dumps({**BODY, "context_id": "a", "continue": False}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 20))["type"] == "chunk"

    asyncio.run(main())
    assert httpx.post(server.base_url + "/tts/bytes", json=BODY, timeout=30).status_code == 200


def test_an_allowed_origin_is_served():
    from model_server.api.auth import origin_error
    from model_server.config import ENV_ALLOWED_ORIGINS

    config = ServerConfig.from_env({ENV_ALLOWED_ORIGINS: "https://app.example/, https://b.example"})
    assert origin_error(config, {"origin": "https://app.example"}) is None
    assert origin_error(config, {"origin": "https://b.example"}) is None
    assert "https://c.example" in origin_error(config, {"origin": "https://c.example"})
    assert (
        origin_error(ServerConfig.from_env({ENV_ALLOWED_ORIGINS: "*"}), {"origin": "https://c.example"})
        is None
    )
    assert origin_error(ServerConfig.from_env({}), {}) is None
