"""WS /tts/websocket: the Cartesia SDK and a raw websockets client against the real server."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from cartesia import AsyncCartesia
from websockets.asyncio.client import connect

from model_server.contract import METRIC_ACTIVE_STREAMS
from model_server.metrics import prom_name

from .conftest import HOP, MODEL_RATE, decode_pcm, rms

VOICE = "en_female_a"
FMT = {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}
ACTIVE = prom_name(METRIC_ACTIVE_STREAMS)


def gen(cid: str, transcript: str, cont: bool, **over) -> str:
    msg = {"context_id": cid, "model_id": "statespeak", "transcript": transcript,
           "voice": {"mode": "id", "id": VOICE}, "output_format": FMT, "continue": cont}  # fmt: skip
    msg.update(over)
    return json.dumps(msg)


async def recv(ws, timeout: float = 20.0) -> dict:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def collect(ws, cids: set[str], timeout: float = 30.0) -> dict[str, list[dict]]:
    """Messages per context until every context in `cids` sent done or error."""
    out: dict[str, list[dict]] = {c: [] for c in cids}
    open_ = set(cids)
    while open_:
        msg = await recv(ws, timeout)
        out.setdefault(msg.get("context_id"), []).append(msg)
        if msg["type"] in ("done", "error") and msg.get("done") and msg.get("context_id") in open_:
            open_.discard(msg["context_id"])
    return out


def audio_of(msgs: list[dict]) -> bytes:
    return b"".join(base64.b64decode(m["data"]) for m in msgs if m["type"] == "chunk")


def test_cartesia_sdk_context_with_continuations(server):
    async def main():
        client = AsyncCartesia(api_key="unused", base_url=server.base_url, websocket_base_url=server.ws_url)
        async with client.tts.websocket_connect() as conn:
            ctx = conn.context(model_id="sonic-3", voice={"mode": "id", "id": VOICE}, output_format=FMT,
                               language="en", add_timestamps=True)  # fmt: skip
            for piece in ("Hello ", "there, my ", "friend. ", "See you ", "soon."):
                await ctx.push(piece)
            await ctx.no_more_inputs()
            events = [ev async for ev in ctx.receive()]
        return events

    events = asyncio.run(main())
    assert events[-1].type == "done"
    audio = b"".join(e.audio for e in events if e.type == "chunk" and e.audio)
    words = [w for e in events if e.type == "timestamps" for w in e.word_timestamps.words]
    assert [w.strip(".,").lower() for w in words] == ["hello", "there", "my", "friend", "see", "you", "soon"]
    assert len(audio) % (2 * HOP) == 0 and rms(decode_pcm(audio, "pcm_s16le")) > 1e-3
    metrics = events[-1].model_extra["metrics"]
    assert metrics["ttfb_ms"] > 0 and abs(metrics["audio_s"] - len(audio) / 2 / MODEL_RATE) < 1e-3


def test_first_audio_arrives_before_the_last_piece_is_sent(server):
    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(gen("s1", "This is the first sentence. ", True))
            first = await recv(ws)  # would time out if the server waited for the rest of the text
            assert first["type"] == "chunk" and first["context_id"] == "s1"
            await ws.send(gen("s1", "And this is the second one.", False))
            return [first] + (await collect(ws, {"s1"}))["s1"]

    msgs = asyncio.run(main())
    assert msgs[-1]["type"] == "done" and len(audio_of(msgs)) > 0


def test_concurrent_contexts_on_one_connection_match_solo_runs(server):
    texts = {"a": "One two three.", "b": "Four five six seven.", "c": "Eight."}

    async def solo(cid):
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(gen(cid, texts[cid], False))
            return audio_of((await collect(ws, {cid}))[cid])

    async def together():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            for cid, text in texts.items():
                await ws.send(gen(cid, text, False))
            got = await collect(ws, set(texts))
            return {cid: audio_of(msgs) for cid, msgs in got.items()}

    async def main():
        return await together(), {cid: await solo(cid) for cid in texts}

    mixed, alone = asyncio.run(main())
    for cid in texts:
        # Batched with others or alone, a stream's state is its own: same frames, same samples.
        assert len(mixed[cid]) == len(alone[cid]) > 0
        a, b = decode_pcm(mixed[cid], "pcm_s16le"), decode_pcm(alone[cid], "pcm_s16le")
        assert float(abs(a - b).max()) < 1e-3


def test_flush_gives_flush_done_then_context_goes_on(server):
    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(gen("f", "Flush this part", True, flush=True))
            msgs = []
            while True:
                msgs.append(await recv(ws))
                if msgs[-1]["type"] == "flush_done":
                    break
            await ws.send(gen("f", " and then this part.", False))
            return msgs, (await collect(ws, {"f"}))["f"]

    before, after = asyncio.run(main())
    fd = before[-1]
    assert fd == {"type": "flush_done", "context_id": "f", "done": False, "flush_done": True, "flush_id": 1,
                  "status_code": 200}  # fmt: skip
    assert audio_of(before) and all(m["flush_id"] == 1 for m in before if m["type"] == "chunk")
    assert after[-1]["type"] == "done" and audio_of(after)
    assert all(m["flush_id"] == 2 for m in after if m["type"] == "chunk" and "flush_id" in m)


def test_cancel_stops_one_context_frees_its_slot_and_others_continue(server):
    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(gen("keep", "Keep talking. ", True))
            await ws.send(gen("stop", "Stop me. ", True))
            assert await asyncio.to_thread(server.wait_metric, ACTIVE, 2) == 2
            await ws.send(json.dumps({"context_id": "stop", "cancel": True}))
            assert await asyncio.to_thread(server.wait_metric, ACTIVE, 1) == 1
            await ws.send(gen("keep", "Still here.", False))
            got = await collect(ws, {"keep", "stop"})
            # a cancelled context may have had chunks in flight, then ends with one done marked cancelled
            stop_ends = [m for m in got["stop"] if m["type"] in ("done", "error")]
            assert [(m["type"], m.get("cancelled")) for m in stop_ends] == [("done", True)]
            await ws.send(gen("stop", "more", False))  # the cancelled context is finished
            err = await recv(ws)
            return got["keep"], err

    keep, err = asyncio.run(main())
    assert keep[-1]["type"] == "done" and audio_of(keep)
    assert err["type"] == "error" and err["context_id"] == "stop" and err["field"] == "context_id"
    assert server.wait_metric(ACTIVE, 0) == 0


def test_disconnect_frees_every_slot(server):
    async def main():
        ws = await connect(server.ws_url + "/tts/websocket")
        for cid in ("d1", "d2", "d3"):
            await ws.send(gen(cid, "Waiting for more text. ", True))
        await recv(ws)
        await ws.close()

    asyncio.run(main())
    assert server.wait_metric(ACTIVE, 0) == 0


def test_error_in_one_context_leaves_the_others_running(server):
    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(gen("good", "Good context. ", True))
            await ws.send(gen("bad", "Bad voice.", False, voice={"mode": "id", "id": "nobody"}))
            await ws.send(gen("bad2", "Bad rate.", False, output_format={**FMT, "sample_rate": 1234}))
            await ws.send(gen("good", "Still going.", False))
            return await collect(ws, {"good", "bad", "bad2"})

    got = asyncio.run(main())
    assert got["bad"][-1]["type"] == "error" and got["bad"][-1]["field"] == "voice.id"
    assert got["bad"][-1]["status_code"] == 400
    assert got["bad2"][-1]["field"] == "output_format.sample_rate"
    assert got["good"][-1]["type"] == "done" and audio_of(got["good"])


@pytest.mark.parametrize(
    ("frame", "field"),
    [
        (b"\x00\x01binary", "message"),
        ("{not json", "message"),
        ("[1, 2, 3]", "message"),
        (json.dumps({"context_id": "ghost", "cancel": True}), "context_id"),
        (json.dumps({"context_id": 42, "transcript": "Hi."}), "context_id"),
        (gen("e2", "word " * 100, False), "transcript"),
        (gen("e3", "Hi.", False, speed=9), "speed"),
        (gen("e4", "Hi.", False, language="xx"), "language"),
        (gen("e5", "Hi.", False, output_format={**FMT, "encoding": "opus"}), "output_format.encoding"),
        (gen("e6", "Hi.", False, output_format={**FMT, "container": "ogg"}), "output_format.container"),
        (gen("e7", "Hi.", False, max_buffer_delay_ms=-5), "max_buffer_delay_ms"),
        ("x" * 5000, "message"),  # over the 4 KiB message limit
        (gen("e8", "Hi. " + "\U0001f600" * 1100, False), "message"),  # 1,100 characters, over 4 KiB in bytes
        ("[" * 1500 + "]" * 1500, "message"),  # nested deeper than the JSON parser recurses
        # true/false fields take JSON booleans: "false" and "no" are strings (and truthy)
        (gen("e9", "Hi.", "false"), "continue"),
        (gen("e10", "Hi.", True, flush="no"), "flush"),
        (json.dumps({"context_id": "e11", "cancel": "no"}), "cancel"),
    ],
)
def test_bad_messages_get_an_error_and_the_connection_survives(server, frame, field):
    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(frame)
            err = await recv(ws)
            await ws.send(gen("after", "Fine.", False))
            return err, (await collect(ws, {"after"}))["after"]

    err, after = asyncio.run(main())
    assert err["type"] == "error" and err["field"] == field and 400 <= err["status_code"] < 500, err
    assert after[-1]["type"] == "done"


def test_message_after_done_is_refused(server):
    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(gen("once", "Once.", False))
            await collect(ws, {"once"})
            await ws.send(gen("once", "Again.", False))
            return await recv(ws)

    err = asyncio.run(main())
    assert err["type"] == "error" and err["context_id"] == "once" and "finished" in err["message"]


def test_audio_before_flush_done_is_the_whole_flushed_text_even_when_resampled(server):
    fmt8k = {**FMT, "sample_rate": 8000}

    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(gen("whole", "Flush this part.", False, output_format=fmt8k))
            whole = audio_of((await collect(ws, {"whole"}))["whole"])
            await ws.send(gen("f8", "Flush this part.", True, flush=True, output_format=fmt8k))
            before = []
            while not before or before[-1]["type"] != "flush_done":
                before.append(await recv(ws))
            await ws.send(gen("f8", " More.", False))
            await collect(ws, {"f8"})
            return whole, audio_of(before)

    whole, before = asyncio.run(main())
    # the resampler's held-back tail went out before flush_done, not with the next segment
    assert abs(len(before) - len(whole)) <= 2 * 2


def test_text_after_continue_false_is_refused_while_the_context_finishes(server):
    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(gen("closed", "This context is closed but still has a lot to say. " * 3, False))
            await ws.send(gen("closed", "Too late.", True))
            msgs = [await recv(ws)]
            while msgs[-1]["type"] != "done":
                msgs.append(await recv(ws))
            return msgs

    msgs = asyncio.run(main())
    errors = [m for m in msgs if m["type"] == "error"]
    assert len(errors) == 1 and errors[0]["field"] == "context_id" and "no more input" in errors[0]["message"]
    assert (
        errors[0]["done"] is False
    )  # it refuses the message; the context's one terminal message is its done
    assert msgs[-1]["type"] == "done" and audio_of(msgs)  # the refusal did not end the context


def test_a_bad_continuation_is_refused_without_ending_the_context(server):
    """A continuation with a bad field is refused (done: false); the context goes on and ends with exactly one
    terminal message, and a client that closes it gets its slot back."""

    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(gen("bad-next", "Hello there.", True))
            await ws.send(gen("bad-next", "More.", True, language="xx"))
            await ws.send(gen("bad-next", " And the end.", False))
            return (await collect(ws, {"bad-next"}))["bad-next"]

    msgs = asyncio.run(main())
    errors = [m for m in msgs if m["type"] == "error"]
    assert len(errors) == 1 and errors[0]["field"] == "language" and errors[0]["done"] is False
    terminal = [m for m in msgs if m.get("done")]
    assert len(terminal) == 1 and terminal[0] is msgs[-1] and msgs[-1]["type"] == "done" and audio_of(msgs)


def test_unfinished_sentence_is_spoken_once_text_stops_coming(server):
    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            # no sentence end and no flush: only the buffer delay gets this spoken before more text comes
            await ws.send(gen("slow-llm", "the model is still thinking about how to end this", True,
                              max_buffer_delay_ms=100))  # fmt: skip
            first = await recv(ws, timeout=20)
            await ws.send(gen("slow-llm", " sentence.", False))
            return [first] + (await collect(ws, {"slow-llm"}))["slow-llm"]

    msgs = asyncio.run(main())
    assert msgs[0]["type"] == "chunk" and msgs[-1]["type"] == "done"


def test_an_idle_context_ends_and_frees_its_slot(server):
    """A context left open with no text (an abandoned turn, a hostile client) held its stream slot for as long
    as the socket stayed up: with MAX_STREAMS of them, every other client got 503. After the idle timeout (4 s
    on the test server, 60 s by default) its input is closed: it speaks what it has and ends with `done`."""

    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(gen("abandoned", "", True))
            await ws.send(gen("half", "Half a turn, then nothing", True, max_buffer_delay_ms=5000))
            assert server.wait_metric(ACTIVE, 2) == 2
            out = await collect(ws, {"abandoned", "half"}, timeout=30)
            await ws.send(gen("half", " more text.", False))  # refused: the context has ended
            late = await recv(ws)
            return out, late

    out, late = asyncio.run(main())
    assert [m["type"] for m in out["abandoned"]] == ["done"]
    assert out["half"][-1]["type"] == "done" and audio_of(out["half"])  # its text was spoken first
    assert late["type"] == "error" and late["field"] == "context_id"
    assert server.wait_metric(ACTIVE, 0) == 0
    assert "websocket context idle" in server.stderr()


def test_a_run_of_whitespace_past_the_sentence_bound_opens_a_context(server):
    """Over 600 characters of whitespace with continue=true were a 500 whose slot was never freed; now the
    context goes on and speaks what comes after."""

    async def main():
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(gen("blank", "\n" * 300, True))  # the test server takes 400 characters a message
            for _ in range(3):
                await ws.send(gen("blank", " " * 300, True))
            await ws.send(gen("blank", "Then words.", False))
            return (await collect(ws, {"blank"}))["blank"]

    msgs = asyncio.run(main())
    assert msgs[-1]["type"] == "done" and audio_of(msgs) and not [m for m in msgs if m["type"] == "error"], (
        msgs[-1]
    )
    assert server.wait_metric(ACTIVE, 0) == 0


def test_a_slow_reader_is_not_idle(server):
    """A client that stops reading for a while (a paused listener) holds the context's audio in the socket: that
    is backpressure, which the stall timeout (30 s) bounds, not idleness. The idle timeout (4 s here) closed such
    a context's input, and the client's next text was refused."""
    text = "This is a fairly long sentence that keeps the speaker busy for a few seconds at least. " * 4
    fmt = {"container": "raw", "encoding": "pcm_f32le", "sample_rate": 48000}  # big chunks fill the socket

    async def main():
        async with connect(server.ws_url + "/tts/websocket", max_size=None, max_queue=1) as ws:
            await ws.send(gen("paused", text, True, output_format=fmt))
            await asyncio.sleep(6)  # nothing read for longer than the idle timeout
            await ws.send(gen("paused", "And one more thing.", False))
            return (await collect(ws, {"paused"}, timeout=60))["paused"]

    msgs = asyncio.run(main())
    assert msgs[-1]["type"] == "done" and not [m for m in msgs if m["type"] == "error"], msgs[-1]
