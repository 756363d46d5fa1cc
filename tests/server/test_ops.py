"""Operations, each on its own server process: API keys, SIGTERM drain, bounded drain, a model that
fails to load, the command line, and the EMF metric lines."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import subprocess
import sys
import time

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from model_server.config import ServerConfig
from model_server.contract import (
    DIM_SERVICE,
    ENV_API_KEYS,
    ENV_API_KEYS_FILE,
    ENV_DEPLOYMENT,
    ENV_DRAIN_TIMEOUT_S,
    ENV_MODEL_DIR,
    METRIC_ACTIVE_STREAMS,
    METRIC_REAL_TIME_FACTOR,
    METRIC_REJECTED_STREAMS,
    METRIC_TIME_TO_FIRST_AUDIO,
    METRICS_NAMESPACE,
)

from ._server import REPO, InThreadServer, ServerProcess

VOICE = {"mode": "id", "id": "en_female_a"}
HOP = 200
FMT = {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}


def tts(text: str) -> dict:
    return {"transcript": text, "voice": VOICE, "output_format": FMT}


def ws_msg(cid: str, text: str, cont: bool) -> str:
    return json.dumps({**tts(text), "context_id": cid, "continue": cont})


@pytest.fixture(scope="module")
def auth_server(model_dir, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("auth")
    (tmp / "keys").write_text("file-key\n")
    env = {ENV_MODEL_DIR: str(model_dir), ENV_API_KEYS: "env-key", ENV_API_KEYS_FILE: str(tmp / "keys")}
    proc = InThreadServer(ServerConfig.from_env({**env, "STATESPEAK_DEVICE": "cpu"}))
    proc.start()
    try:
        yield proc.wait_ready()
    finally:
        proc.stop()


@pytest.mark.parametrize(
    ("headers", "params", "status"),
    [
        ({}, {}, 401),
        ({"Authorization": "Bearer wrong"}, {}, 401),
        ({"X-API-Key": "nope"}, {}, 401),
        ({"Authorization": "Bearer env-key"}, {}, 200),
        ({"X-API-Key": "file-key"}, {}, 200),
        ({}, {"api_key": "env-key"}, 200),
        ({"X-API-Key": "file-key", "Cartesia-Version": "1999-12-31"}, {}, 200),
    ],
)
def test_api_keys_on_http(auth_server, headers, params, status):
    r = httpx.post(
        auth_server.base_url + "/tts/bytes", json=tts("Hi."), headers=headers, params=params, timeout=30
    )
    assert r.status_code == status, r.text
    if status == 401:
        assert r.json()["field"] == "api_key"
    v = httpx.get(auth_server.base_url + "/voices", headers=headers, params=params)
    assert v.status_code == status


def test_a_refused_websocket_logs_no_error(auth_server, caplog):
    """A 401 on the WebSocket is the client's doing: uvicorn's sansio protocol logged "ASGI callable returned
    without completing handshake" at ERROR for each one, which log alarms read as a fault (ws_protocol)."""

    async def main():
        with pytest.raises(InvalidStatus) as refused:
            async with connect(auth_server.ws_url + "/tts/websocket"):
                pass
        return refused.value.response

    with caplog.at_level(logging.INFO):
        response = asyncio.run(main())
        time.sleep(0.2)  # the server thread logs after the client has its answer
    assert response.status_code == 401 and json.loads(response.body)["field"] == "api_key"
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


def test_api_keys_on_websocket_and_open_paths(auth_server):
    async def main():
        with pytest.raises(InvalidStatus) as refused:
            async with connect(auth_server.ws_url + "/tts/websocket"):
                pass
        assert refused.value.response.status_code == 401
        async with connect(auth_server.ws_url + "/tts/websocket?api_key=file-key") as ws:
            await ws.send(ws_msg("a", "Hi.", False))
            while (msg := json.loads(await asyncio.wait_for(ws.recv(), 20)))["type"] != "done":
                assert msg["type"] == "chunk"
        headers = {"Authorization": "Bearer env-key"}
        async with connect(auth_server.ws_url + "/tts/websocket", additional_headers=headers) as ws:
            await ws.send(ws_msg("b", "Hi.", False))
            assert json.loads(await asyncio.wait_for(ws.recv(), 20))["type"] == "chunk"

    asyncio.run(main())
    # probes and scrapes need no key
    for path in ("/health", "/ready", "/metrics"):
        assert httpx.get(auth_server.base_url + path).status_code == 200
    # no route map for whoever asks without a key (FastAPI served /openapi.json on every server)
    assert httpx.get(auth_server.base_url + "/openapi.json").status_code in (401, 404)
    # SageMaker's keyless routes are off once keys are set (unless STATESPEAK_SAGEMAKER_ROUTES=true): a server
    # given keys kept a synthesis route that took none
    assert httpx.get(auth_server.base_url + "/ping").status_code == 404
    assert httpx.post(auth_server.base_url + "/invocations", json=tts("Hi."), timeout=30).status_code == 404


def test_sigterm_drains_every_stream_then_exits(model_dir, tmp_path):
    with ServerProcess(model_dir, tmp_path, **{ENV_DRAIN_TIMEOUT_S: "20", ENV_DEPLOYMENT: "ecs"}) as proc:
        long_text = "An HTTP stream whose client is slow to read is still sending when the signal comes. " * 4
        big = {"container": "raw", "encoding": "pcm_f32le", "sample_rate": 48000}

        async def main():
            slow = httpx.AsyncClient(base_url=proc.base_url, timeout=30)
            body = {**tts(long_text), "output_format": big}
            http_stream = await slow.send(slow.build_request("POST", "/tts/bytes", json=body), stream=True)
            chunks = http_stream.aiter_raw()
            received = [await anext(chunks)]  # started; the rest waits in the socket
            async with connect(proc.ws_url + "/tts/websocket") as ws:
                # two more streams in flight: contexts that wait for more text
                await ws.send(ws_msg("x", "Before the signal. ", True))
                await ws.send(ws_msg("y", "Also before. ", True))
                seen = set()
                while seen != {"x", "y"}:
                    seen.add(json.loads(await asyncio.wait_for(ws.recv(), 20))["context_id"])
                proc.signal()
                async with httpx.AsyncClient(base_url=proc.base_url, timeout=10) as client:
                    for _ in range(100):  # readiness flips to 503 while the streams go on
                        if (await client.get("/ready")).status_code == 503:
                            break
                        await asyncio.sleep(0.05)
                    ready, ping = (
                        (await client.get("/ready")).status_code,
                        (await client.get("/ping")).status_code,
                    )
                    health = (await client.get("/health")).json()
                    refused = await client.post("/tts/bytes", json=tts("Too late."))
                await ws.send(ws_msg("z", "New context during the drain.", False))
                await ws.send(ws_msg("x", "After the signal.", False))
                await ws.send(ws_msg("y", "Also after.", False))
                done, errors = set(), {}
                while len(done) < 2:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if msg["type"] == "done":
                        done.add(msg["context_id"])
                    elif msg["type"] == "error":
                        errors[msg["context_id"]] = msg
            async for part in chunks:  # a truncated body would raise here
                received.append(part)
            await http_stream.aclose()
            await slow.aclose()
            return ready, ping, health, refused, done, errors, b"".join(received)

        ready, ping, health, refused, done, errors, audio = asyncio.run(main())
        assert (ready, ping, health["phase"]) == (503, 503, "draining")
        assert refused.status_code == 503 and refused.json()["error_code"] == "server_draining"
        assert "retry-after" in refused.headers
        assert errors["z"]["status_code"] == 503
        assert done == {"x", "y"}  # every in-flight stream finished
        assert len(audio) % (4 * HOP * 3) == 0 and len(audio) > 4 * 48000  # whole frames, > 1 s at 48 kHz
        assert proc.proc.wait(30) == 0  # then the process exited on its own, cleanly
    logs = [json.loads(line) for line in proc.stderr().splitlines() if line.startswith("{")]
    messages = [entry["msg"] for entry in logs]
    assert "draining" in messages and "drained" in messages
    draining = next(entry for entry in logs if entry["msg"] == "draining")
    assert draining["sessions"] == 3  # the signal came with all three streams in flight
    assert all({"ts", "level", "logger", "msg"} <= set(entry) for entry in logs)  # structured logs
    emf = proc.emf_lines()
    assert emf and all(e["_aws"]["CloudWatchMetrics"][0]["Namespace"] == METRICS_NAMESPACE for e in emf)
    assert all(e[DIM_SERVICE] == "ecs" for e in emf)
    names = {m["Name"] for e in emf for m in e["_aws"]["CloudWatchMetrics"][0]["Metrics"]}
    assert {METRIC_ACTIVE_STREAMS, METRIC_TIME_TO_FIRST_AUDIO, METRIC_REAL_TIME_FACTOR} <= names
    assert METRIC_REJECTED_STREAMS in names
    rejected = sum(e.get(METRIC_REJECTED_STREAMS, 0) for e in emf)
    assert rejected == 2  # the HTTP request and the WebSocket context refused during the drain


def test_drain_is_bounded_by_drain_timeout(model_dir, tmp_path):
    with ServerProcess(model_dir, tmp_path, **{ENV_DRAIN_TIMEOUT_S: "1"}) as proc:

        async def main():
            async with connect(proc.ws_url + "/tts/websocket") as ws:
                await ws.send(ws_msg("never", "This context never gets its last message. ", True))
                await asyncio.wait_for(ws.recv(), 20)
                t0 = time.monotonic()
                proc.signal()
                messages = []
                with contextlib.suppress(ConnectionClosed):
                    while True:  # until the server closes the socket
                        messages.append(json.loads(await asyncio.wait_for(ws.recv(), 30)))
                code = await asyncio.to_thread(proc.proc.wait, 30)
                return code, time.monotonic() - t0, messages

        code, took, messages = asyncio.run(main())
        assert code == 0 and took < 20  # 1 s drain bound + 3 s shutdown grace + exit; unbounded would hang
        # the open context got its one terminal message before the socket closed (it got none before)
        terminal = [m for m in messages if m.get("done")]
        assert len(terminal) == 1 and terminal[0]["type"] == "error" and terminal[0]["context_id"] == "never"
        assert terminal[0]["error_code"] == "server_draining" and terminal[0]["status_code"] == 503
    assert "drain timeout" in proc.stderr()


def test_model_that_fails_to_load_exits_nonzero_naming_the_dir(tmp_path):
    missing = tmp_path / "no-such-model"
    proc = ServerProcess(missing, tmp_path).start()
    code = proc.proc.wait(60)
    assert code == 1
    errors = [json.loads(line) for line in proc.stderr().splitlines() if '"ERROR"' in line]
    assert any(e.get("model_dir") == str(missing) for e in errors)


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ([], "serve"),
        (["serve", "--port", "70000"], "port"),
        (["serve", "--port", "x"], "port"),
        (["train"], "serve"),
    ],
)
def test_command_line_errors(args, text):
    r = subprocess.run(
        [sys.executable, "-m", "model_server", *args], cwd=REPO, capture_output=True, text=True
    )
    assert r.returncode == 2 and text in r.stderr


def test_bad_environment_exits_with_the_variable_named():
    env = {"MAX_STREAMS": "lots", "PATH": "/usr/bin:/bin"}
    cmd = [sys.executable, "-m", "model_server", "serve", "--port", "1"]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "MAX_STREAMS" in r.stderr
