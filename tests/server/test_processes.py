"""The multi-process server: API workers without torch, admission exact across workers, drain with
several workers, a worker killed (replaced; the other workers' streams go on) and the engine killed
(every stream ends with an error, never a hang; the server exits non-zero); and the same with two engine
processes (STATESPEAK_ENGINES): admission, routing, EMF, drain, one engine killed. Real servers, real
clients.

Which worker serves a connection is the kernel's choice; every response names its worker
(X-Statespeak-Worker), so a test opens a few keep-alive connections and keeps them per worker."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import time
from collections import defaultdict
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect

from model_server.contract import ENV_DRAIN_TIMEOUT_S, METRIC_ACTIVE_STREAMS
from model_server.metrics import prom_name

from ._server import ServerProcess

ACTIVE = prom_name(METRIC_ACTIVE_STREAMS)
WORKER = "x-statespeak-worker"
HOP = 200
FMT = {"container": "raw", "encoding": "pcm_f32le", "sample_rate": 16000}
LONG = "A stream that is still speaking when something happens to the server processes. " * 3


def tts(text: str) -> dict:
    return {"transcript": text, "voice": {"mode": "id", "id": "en_female_a"}, "output_format": FMT}


def ws_msg(cid: str, text: str, cont: bool) -> str:
    return json.dumps({**tts(text), "context_id": cid, "continue": cont})


def log_lines(proc: ServerProcess) -> list[dict]:
    return [json.loads(line) for line in proc.stderr().splitlines() if line.startswith("{")]


def engine_pid(proc: ServerProcess) -> int:
    return next(e["engine_pid"] for e in log_lines(proc) if e["msg"] == "serving")


def maps_torch(pid: int) -> bool:
    return "libtorch" in Path(f"/proc/{pid}/maps").read_text()


async def clients_per_worker(
    proc: ServerProcess, each: int = 2, workers: int = 2, tries: int = 80
) -> dict[str, list[httpx.AsyncClient]]:
    """Keep-alive clients (one connection each), grouped by the worker that accepted the connection:
    new connections until every worker holds `each` of them (or `tries` connections were made)."""
    by_worker: dict[str, list[httpx.AsyncClient]] = defaultdict(list)
    spare: list[httpx.AsyncClient] = []
    for _ in range(tries):
        client = httpx.AsyncClient(base_url=proc.base_url, timeout=30, limits=httpx.Limits(max_connections=1))
        pid = (await client.get("/health")).headers[WORKER]
        if len(by_worker[pid]) < each:
            by_worker[pid].append(client)
        else:
            spare.append(client)
        if len(by_worker) == workers and all(len(c) == each for c in by_worker.values()):
            break
    for client in spare:
        await client.aclose()
    return by_worker


async def start_stream(client: httpx.AsyncClient, text: str = LONG):
    """An HTTP audio stream whose first bytes arrived; the rest waits until the test reads it."""
    response = await client.send(client.build_request("POST", "/tts/bytes", json=tts(text)), stream=True)
    assert response.status_code == 200
    chunks = response.aiter_raw()
    return response, chunks, [await anext(chunks)]


async def read_rest(response, chunks, received: list[bytes]) -> bytes:
    async for part in chunks:
        received.append(part)
    await response.aclose()
    return b"".join(received)


@pytest.fixture
def two_workers(model_dir, tmp_path):
    env = {"STATESPEAK_WORKERS": "2", "MAX_STREAMS": "4", ENV_DRAIN_TIMEOUT_S: "20"}
    with ServerProcess(model_dir, tmp_path, **env) as proc:
        yield proc


def test_workers_never_load_torch_and_the_engine_does(server):
    async def pids():
        by_worker = await clients_per_worker(server, each=1)
        for clients in by_worker.values():
            for c in clients:
                await c.aclose()
        return [int(pid) for pid in by_worker]

    workers = asyncio.run(pids())
    assert workers and not any(maps_torch(pid) for pid in workers)
    assert maps_torch(engine_pid(server))


def test_admission_is_exact_across_workers(two_workers):
    proc = two_workers

    async def main():
        by_worker = await clients_per_worker(proc, each=3)
        assert len(by_worker) == 2 and all(len(c) == 3 for c in by_worker.values()), "one worker got all"
        held = [await start_stream(c) for clients in by_worker.values() for c in clients[:2]]
        refused = [await c[2].post("/tts/bytes", json=tts("One more.")) for c in by_worker.values()]
        active = proc.metric(ACTIVE)
        audio = [await read_rest(*h) for h in held]
        for clients in by_worker.values():
            for c in clients:
                await c.aclose()
        return refused, active, audio

    refused, active, audio = asyncio.run(main())
    assert active == 4  # one count for the whole task, whichever worker scrapes it
    for r in refused:  # the fifth stream is refused on either worker: the engine holds the count
        assert r.status_code == 503 and r.json()["error_code"] == "server_full" and "retry-after" in r.headers
    assert all(len(x) % (4 * HOP) == 0 and len(x) > 0 for x in audio)
    assert proc.wait_metric(ACTIVE, 0) == 0


@pytest.fixture(params=[1, 2], ids=["one engine", "two engines"])
def drained_server(request, model_dir, tmp_path):
    env = {"STATESPEAK_WORKERS": "2", "STATESPEAK_ENGINES": str(request.param), "MAX_STREAMS": "4",
           ENV_DRAIN_TIMEOUT_S: "20"}  # fmt: skip
    with ServerProcess(model_dir, tmp_path, **env) as proc:
        yield proc, request.param


def test_sigterm_drains_streams_on_every_worker(drained_server):
    proc, engines = drained_server

    async def main():
        by_worker = await clients_per_worker(proc)
        assert len(by_worker) == 2 and all(len(c) == 2 for c in by_worker.values())
        streams = {pid: await start_stream(clients[0]) for pid, clients in by_worker.items()}
        proc.signal(signal.SIGTERM)
        probes = {}
        for pid, clients in by_worker.items():  # every worker turns unready and refuses new streams
            for _ in range(100):
                if (await clients[-1].get("/ready")).status_code == 503:
                    break
                await asyncio.sleep(0.05)
            ready = (await clients[-1].get("/ready")).status_code
            refused = await clients[-1].post("/tts/bytes", json=tts("Too late."))
            probes[pid] = (ready, refused.status_code, refused.json().get("error_code"))
        audio = {pid: await read_rest(*s) for pid, s in streams.items()}
        return probes, audio

    probes, audio = asyncio.run(main())
    assert all(p == (503, 503, "server_draining") for p in probes.values()), probes
    for x in audio.values():  # every in-flight stream, on both workers, finished whole
        assert len(x) % (4 * HOP) == 0 and len(x) > 4 * 16000
    assert proc.proc.wait(30) == 0
    msgs = [e["msg"] for e in log_lines(proc)]
    assert msgs.count("drained") == 2 and "stopped" in msgs
    assert msgs.count("engine draining") == engines  # the drain reached every engine


def test_a_killed_worker_is_replaced_and_the_other_workers_streams_go_on(two_workers):
    proc = two_workers

    async def main():
        by_worker = await clients_per_worker(proc, each=1)
        assert len(by_worker) == 2
        victim, survivor = by_worker
        doomed = await start_stream(by_worker[victim][0])
        alive = await start_stream(by_worker[survivor][0])
        async with connect(proc.ws_url + "/tts/websocket") as ws:  # a WebSocket context too
            await ws.send(ws_msg("ctx", "Before the crash. ", True))
            first = json.loads(await asyncio.wait_for(ws.recv(), 20))
            ws_worker = ws.response.headers[WORKER]
            os.kill(int(victim), signal.SIGKILL)
            audio = await read_rest(*alive)
            ws_end = None
            if ws_worker == survivor:
                await ws.send(ws_msg("ctx", "After the crash.", False))
                while (msg := json.loads(await asyncio.wait_for(ws.recv(), 20)))["type"] == "chunk":
                    pass
                ws_end = msg["type"]
        with pytest.raises(httpx.HTTPError):  # the dead worker's stream is cut, not left hanging
            await asyncio.wait_for(read_rest(*doomed), 20)
        return victim, survivor, audio, first, ws_worker, ws_end

    victim, survivor, audio, first, ws_worker, ws_end = asyncio.run(main())
    assert len(audio) % (4 * HOP) == 0 and len(audio) > 4 * 16000  # the survivor's stream is whole
    assert first["type"] == "chunk"
    if ws_worker == survivor:
        assert ws_end == "done"
    assert proc.wait_metric(ACTIVE, 0) == 0  # the dead worker's slots are free again
    deadline = time.monotonic() + 60
    pids = set()
    while time.monotonic() < deadline and not pids - {victim, survivor}:
        try:
            pids.add(httpx.get(proc.base_url + "/health", timeout=5).headers[WORKER])
        except httpx.TransportError:
            pass
    assert pids - {victim, survivor}, "no new worker took the dead one's place"
    for _ in range(4):
        assert httpx.post(proc.base_url + "/tts/bytes", json=tts("Hi."), timeout=30).status_code == 200
    assert httpx.get(proc.base_url + "/ready", timeout=5).status_code == 200
    assert proc.proc.poll() is None
    assert any(e["msg"].startswith("worker exited") for e in log_lines(proc))


def test_a_killed_engine_ends_every_stream_with_an_error_and_the_server_exits_nonzero(two_workers):
    proc = two_workers

    async def main():
        async with httpx.AsyncClient(base_url=proc.base_url, timeout=30) as client:
            http_stream = await start_stream(client)
            async with connect(proc.ws_url + "/tts/websocket") as ws:
                await ws.send(ws_msg("ctx", "Waiting for more text. ", True))
                assert json.loads(await asyncio.wait_for(ws.recv(), 20))["type"] == "chunk"
                os.kill(engine_pid(proc), signal.SIGKILL)
                msg = {"type": "chunk"}
                while msg["type"] == "chunk":  # chunks already on their way, then the error
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
            with pytest.raises(httpx.HTTPError):  # the HTTP stream is cut, never left hanging
                await asyncio.wait_for(read_rest(*http_stream), 20)
            try:
                ready = (await client.get("/ready")).status_code
            except httpx.TransportError:
                ready = None  # the worker is already gone
        return msg, ready

    msg, ready = asyncio.run(main())
    assert msg["type"] == "error" and msg["context_id"] == "ctx" and "engine" in msg["message"]
    assert ready in (503, None)
    assert proc.proc.wait(30) != 0  # ECS / SageMaker see the task fail and replace it
    assert any(e["msg"].startswith("engine process exited") for e in log_lines(proc))


# -- several engine processes (STATESPEAK_ENGINES) ----------------------------------------------------------
@pytest.fixture
def two_engines(model_dir, tmp_path):
    env = {"STATESPEAK_WORKERS": "2", "STATESPEAK_ENGINES": "2", "MAX_STREAMS": "4", ENV_DRAIN_TIMEOUT_S: "20",
           "STATESPEAK_EMF_INTERVAL_S": "0.2"}  # fmt: skip
    with ServerProcess(model_dir, tmp_path, **env) as proc:
        yield proc


def engine_pids(proc: ServerProcess) -> list[int]:
    return next(e["engine_pids"] for e in log_lines(proc) if e["msg"] == "serving")


def test_two_engines_share_max_streams_and_the_workers_fill_both(two_engines):
    """MAX_STREAMS 4 over two engines is 2 slots each: four streams fit only if the workers spread them
    (two on one engine would leave a third refused), and the fifth is refused as one server's would be."""
    proc = two_engines

    async def main():
        by_worker = await clients_per_worker(proc, each=3)
        assert len(by_worker) == 2
        held = [await start_stream(c) for clients in by_worker.values() for c in clients[:2]]
        refused = [await c[2].post("/tts/bytes", json=tts("One more.")) for c in by_worker.values()]
        metrics = (await by_worker[next(iter(by_worker))][2].get("/metrics")).text
        audio = [await read_rest(*h) for h in held]
        for clients in by_worker.values():
            for c in clients:
                await c.aclose()
        return refused, metrics, audio

    refused, metrics, audio = asyncio.run(main())
    for r in refused:
        assert r.status_code == 503 and r.json()["error_code"] == "server_full" and "retry-after" in r.headers
    for engine in ("0", "1"):  # each engine's own registry, labelled: two slots, both held
        assert re.search(rf'^{ACTIVE}{{engine="{engine}"}} 2\.0$', metrics, re.M), metrics
        assert re.search(rf'^statespeak_max_streams{{engine="{engine}"}} 2\.0$', metrics, re.M)
    assert all(len(x) % (4 * HOP) == 0 and len(x) > 0 for x in audio)
    assert len(set(engine_pids(proc))) == 2 and all(maps_torch(pid) for pid in engine_pids(proc))
    # the task's ActiveStreams comes from one engine (the sum of both), so the scaling policy's per-task
    # average is the task's count: 4 was reported although no engine held more than 2
    periodic = [e for e in proc.emf_lines() if "StreamErrors" in e]
    with_active = [e["ActiveStreams"] for e in periodic if "ActiveStreams" in e]
    assert 4 in with_active and max(with_active) == 4
    assert len(with_active) < len(periodic)  # the other engine's lines leave it out


def test_a_killed_engine_of_two_ends_every_stream_and_the_server_exits_nonzero(two_engines):
    proc = two_engines

    async def main():
        by_worker = await clients_per_worker(proc, each=2)
        streams = [await start_stream(c) for clients in by_worker.values() for c in clients]
        os.kill(engine_pids(proc)[1], signal.SIGKILL)
        ended = []
        for s in streams:  # on either engine: cut with an error, never left hanging
            try:
                await asyncio.wait_for(read_rest(*s), 20)
                ended.append("whole")
            except httpx.HTTPError:
                ended.append("cut")
        return ended

    ended = asyncio.run(main())
    assert "cut" in ended
    assert proc.proc.wait(30) != 0
    assert any(e["msg"].startswith("engine process exited") and e.get("engine") == "statespeak-engine-1"
               for e in log_lines(proc))  # fmt: skip
    for pid in engine_pids(proc):  # the surviving engine does not outlive the task
        assert (
            not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
        )
