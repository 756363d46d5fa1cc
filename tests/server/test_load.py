"""Many streams at once on the shared server: all complete correctly; full means 503; a client that
leaves or stops reading costs nobody else anything."""

from __future__ import annotations

import asyncio
import json

import httpx
import numpy as np
from websockets.asyncio.client import connect

from model_server.contract import METRIC_ACTIVE_STREAMS, METRIC_REJECTED_STREAMS, METRIC_STREAMS_COMPLETED
from model_server.metrics import prom_name

from .conftest import MAX_STREAMS, decode_pcm, rms

VOICES = ("en_female_a", "en_male_b")
ACTIVE = prom_name(METRIC_ACTIVE_STREAMS)
TEXTS = [
    "The first stream says one thing.",
    "A second stream, a little longer than the first one.",
    "Three.",
    "Number four talks about the weather today.",
    "Five is quick.",
    "And the sixth stream closes the set.",
]


def req(text: str, i: int, rate: int = 16000) -> dict:
    return {
        "transcript": text,
        "voice": {"mode": "id", "id": VOICES[i % 2]},
        "output_format": {"container": "raw", "encoding": "pcm_s16le", "sample_rate": rate},
    }


def test_concurrent_streams_all_complete_with_their_own_audio(server):
    assert len(TEXTS) == MAX_STREAMS

    async def run_all(concurrent: bool):
        async with httpx.AsyncClient(base_url=server.base_url, timeout=120) as client:

            async def one(i):
                r = await client.post("/tts/bytes", json=req(TEXTS[i], i))
                assert r.status_code == 200, r.text
                return r.content

            if concurrent:
                return await asyncio.gather(*(one(i) for i in range(len(TEXTS))))
            return [await one(i) for i in range(len(TEXTS))]

    together = asyncio.run(run_all(True))
    alone = asyncio.run(run_all(False))
    for i, (a, b) in enumerate(zip(together, alone, strict=True)):
        assert len(a) == len(b) > 0, TEXTS[i]  # frames (so audio length) do not depend on the batch
        x, y = decode_pcm(a, "pcm_s16le"), decode_pcm(b, "pcm_s16le")
        assert rms(x) > 1e-3 and float(np.abs(x - y).max()) < 1e-3
    assert len({len(a) for a in together}) > 1  # different texts, different lengths: no mix-up
    assert server.wait_metric(ACTIVE, 0) == 0


def test_full_server_answers_503_with_retry_after_never_queues(server):
    rejected_before = server.metric(prom_name(METRIC_REJECTED_STREAMS) + "_total", 'reason="full"')

    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            for i in range(MAX_STREAMS):  # hold every slot: contexts waiting for more text
                await ws.send(
                    json.dumps({**req("Holding a slot. ", i), "context_id": f"h{i}", "continue": True})
                )
            await asyncio.to_thread(server.wait_metric, ACTIVE, MAX_STREAMS)
            async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as client:
                r = await client.post("/tts/bytes", json=req("No room.", 0))
                o = await client.post(
                    "/v1/audio/speech", json={"model": "m", "voice": VOICES[0], "input": "No."}
                )
            await ws.send(json.dumps({**req("No room here either.", 0), "context_id": "extra"}))
            ws_err = None
            while ws_err is None:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
                if msg["type"] == "error":
                    ws_err = msg
            for i in range(MAX_STREAMS):
                await ws.send(json.dumps({"context_id": f"h{i}", "transcript": "", "continue": False,
                                          "voice": {"mode": "id", "id": VOICES[0]}}))  # fmt: skip
            done = set()
            while len(done) < MAX_STREAMS:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if msg["type"] == "done":
                    done.add(msg["context_id"])
            return r, o, ws_err

    r, o, ws_err = asyncio.run(main())
    assert (
        r.status_code == 503
        and int(r.headers["retry-after"]) >= 1
        and r.json()["error_code"] == "server_full"
    )
    assert o.status_code == 503 and "slots" in o.json()["error"]["message"]
    assert ws_err["context_id"] == "extra" and ws_err["status_code"] == 503
    rejected = server.metric(prom_name(METRIC_REJECTED_STREAMS) + "_total", 'reason="full"')
    assert rejected == rejected_before + 3
    assert server.wait_metric(ACTIVE, 0) == 0
    assert (
        httpx.post(server.base_url + "/tts/bytes", json=req("Room again.", 0), timeout=30).status_code == 200
    )


def test_http_client_disconnect_cancels_its_stream(server):
    cancelled = prom_name(METRIC_STREAMS_COMPLETED) + "_total"
    before = server.metric(cancelled, 'outcome="cancelled"')
    long_text = "This is a long text that the client will not wait for. " * 6
    with httpx.stream("POST", server.base_url + "/tts/bytes", json=req(long_text, 0, 48000), timeout=30) as r:
        next(r.iter_raw())  # first audio arrived: the stream is running
    # leaving the block closed the connection mid-stream
    assert server.wait_metric(ACTIVE, 0) == 0
    assert server.wait_metric(cancelled, before + 1, labels='outcome="cancelled"') == before + 1


def test_client_that_stops_reading_does_not_slow_the_others(server):
    long_text = "A client that reads nothing asks for a lot of audio in the biggest format. " * 2

    async def main():
        fmt = {"container": "raw", "encoding": "pcm_f32le", "sample_rate": 48000}
        # max_queue=1: the client stops reading its socket; close_timeout: do not wait 10 s for the close
        stalled = await connect(server.ws_url + "/tts/websocket", max_queue=1, close_timeout=0.5)
        await stalled.send(json.dumps({**req(long_text, 0), "output_format": fmt, "context_id": "s"}))
        async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as client:
            results = await asyncio.gather(
                *(client.post("/tts/bytes", json=req(TEXTS[i], i)) for i in range(3))
            )
        await stalled.close()
        return results

    results = asyncio.run(main())
    assert all(r.status_code == 200 and len(r.content) > 0 for r in results)
    assert server.wait_metric(ACTIVE, 0) == 0
