"""Conformance of the Cartesia API, written from Cartesia's API reference, against the real server.

Every way a client may end a context (or a one-shot request) must end it with exactly one terminal
message (`done` or `error`), within a bound, and nothing for that context after it. The message shapes
are checked with the models of Cartesia's own SDK (`cartesia.types.websocket_response`), so a field the
SDK requires and the server forgot fails here. The final-message shapes are the ones agent frameworks
really send: LiveKit's Cartesia plugin closes every context with `{"transcript": " ", "continue": false}`,
Pipecat's with `""`, the Cartesia SDK's `no_more_inputs()` with `""`.
"""

from __future__ import annotations

import asyncio
import base64
import json

import httpx
import pytest
from cartesia.types.websocket_response import Chunk, Done, Error, FlushDone, Timestamps
from websockets.asyncio.client import connect

VOICE = "en_female_a"
FMT = {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}
BOUND_S = 20.0  # every context ends within this (a shared 2-core CI machine; typically well under 1 s)
QUIET_S = 0.4  # after its terminal message a context must stay silent this long
SDK_MODELS = {"chunk": Chunk, "timestamps": Timestamps, "flush_done": FlushDone, "done": Done, "error": Error}


def msg(cid: str, transcript: str, cont: bool, **extra) -> dict:
    return {"context_id": cid, "model_id": "sonic-3", "transcript": transcript, "continue": cont,
            "voice": {"mode": "id", "id": VOICE}, "output_format": FMT, "language": "en", **extra}  # fmt: skip


async def exchange(url: str, steps: list, cids: set[str]) -> dict[str, list[dict]]:
    """Send the steps (a dict is sent as JSON; ("wait", type, cid) waits for that message), then read until
    every context in `cids` has ended and the socket stayed quiet for QUIET_S. Messages per context."""
    got: dict[str | None, list[dict]] = {}
    ended: set[str] = set()

    async def read_one(timeout: float) -> dict:
        m = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        got.setdefault(m.get("context_id"), []).append(m)
        if m["type"] in ("done", "error") and m.get("context_id") in cids:
            ended.add(m["context_id"])
        return m

    async with connect(url + "/tts/websocket") as ws:
        for step in steps:
            if isinstance(step, dict):
                await ws.send(json.dumps(step))
                continue
            _, kind, cid = step
            while not any(m["type"] == kind for m in got.get(cid, [])):
                await read_one(BOUND_S)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BOUND_S
        while ended != cids:
            await read_one(max(0.1, deadline - loop.time()))
        try:
            while True:
                await read_one(QUIET_S)
        except TimeoutError:
            pass
    return got


def run(server, steps: list, cids: set[str]) -> dict[str, list[dict]]:
    got = asyncio.run(exchange(server.ws_url, steps, cids))
    for cid in cids:
        check_context(got[cid])
    return got


def check_context(msgs: list[dict]) -> None:
    """One context's messages: SDK-valid shapes, one terminal message and it is the last, flush order."""
    for m in msgs:
        SDK_MODELS[m["type"]].model_validate(m)
    terminal = [m for m in msgs if m["type"] in ("done", "error")]
    assert len(terminal) == 1 and msgs[-1] is terminal[0], [m["type"] for m in msgs]
    assert all(m["done"] is (m["type"] in ("done", "error")) for m in msgs)
    for m in msgs:
        if m["type"] == "chunk":
            assert base64.b64decode(m["data"]) and m["step_time"] > 0 and m["status_code"] == 200
    flushes = [m["flush_id"] for m in msgs if m["type"] == "flush_done"]
    assert flushes == list(range(1, len(flushes) + 1))
    for i, m in enumerate(msgs):  # no audio of a flushed segment after its flush_done
        if m["type"] == "flush_done":
            later = [c for c in msgs[i + 1 :] if c["type"] == "chunk" and c.get("flush_id") is not None]
            assert all(c["flush_id"] > m["flush_id"] for c in later)


def audio(msgs: list[dict]) -> bytes:
    return b"".join(base64.b64decode(m["data"]) for m in msgs if m["type"] == "chunk")


def kinds(msgs: list[dict]) -> list[str]:
    return [m["type"] for m in msgs if m["type"] != "chunk"]


# One context, every way of ending it -------------------------------------------------------------------
@pytest.mark.parametrize("text", ["", " ", "\n\t ", "...", "?!", " - "])
def test_context_with_nothing_to_speak_ends_with_done_at_once(server, text):
    got = run(server, [msg("c", text, False)], {"c"})
    assert kinds(got["c"]) == ["done"] and not audio(got["c"])


@pytest.mark.parametrize("closing", ["", " ", "  \n", "."])
def test_streamed_context_closed_by_a_piece_without_words(server, closing):
    # LiveKit closes with " ", Pipecat and the Cartesia SDK with "": both must end with done
    steps = [msg("c", "Hello there. ", True), msg("c", "How are you? ", True), msg("c", closing, False)]
    got = run(server, steps, {"c"})
    assert kinds(got["c"]) == ["done"] and audio(got["c"])


def test_context_opened_empty_then_filled_then_closed(server):
    got = run(server, [msg("c", "", True), msg("c", "Words came later", True), msg("c", "", False)], {"c"})
    assert kinds(got["c"]) == ["done"] and audio(got["c"])


@pytest.mark.parametrize(
    "pieces", [["Hello there"], ["Hello ", "there"], ["The total is 3.5"], ["one, two, three"]]
)
def test_final_piece_without_sentence_punctuation_is_spoken(server, pieces):
    steps = [msg("c", p, i < len(pieces) - 1) for i, p in enumerate(pieces)]
    got = run(server, steps, {"c"})
    assert kinds(got["c"]) == ["done"] and audio(got["c"])


@pytest.mark.parametrize("final", [" and the end.", " and no end", " ", ""])
def test_final_piece_after_a_flush(server, final):
    steps = [msg("c", "First part", True, flush=True), msg("c", final, False)]
    got = run(server, steps, {"c"})
    assert kinds(got["c"]) == ["flush_done", "done"] and audio(got["c"])


def test_final_piece_after_a_flush_that_was_answered(server):
    steps = [
        msg("c", "First part", True, flush=True),
        ("wait", "flush_done", "c"),
        msg("c", " second part", False),
    ]
    got = run(server, steps, {"c"})
    assert kinds(got["c"]) == ["flush_done", "done"]
    after = got["c"][[m["type"] for m in got["c"]].index("flush_done") + 1 :]
    assert audio(after) and all(m["flush_id"] == 2 for m in after if m["type"] == "chunk")


def test_flush_and_close_in_one_message(server):
    got = run(server, [msg("c", "Flush and close", False, flush=True)], {"c"})
    assert kinds(got["c"]) == ["flush_done", "done"] and audio(got["c"])


def test_empty_flush_on_an_empty_context(server):
    got = run(server, [msg("c", "", True, flush=True), msg("c", "", False)], {"c"})
    assert kinds(got["c"]) == ["flush_done", "done"] and not audio(got["c"])


# Several contexts, cancel, reuse ---------------------------------------------------------------------
def test_two_contexts_interleaved_on_one_socket(server):
    steps = [
        msg("a", "Alpha one. ", True),
        msg("b", "Bravo one ", True),
        msg("a", "alpha two", True),
        msg("b", "bravo two.", True, flush=True),
        msg("a", " ", False),
        msg("b", "", False),
    ]
    got = run(server, steps, {"a", "b"})
    assert kinds(got["a"]) == ["done"] and kinds(got["b"]) == ["flush_done", "done"]
    assert audio(got["a"]) and audio(got["b"])


def test_cancel_mid_sentence_ends_with_one_done(server):
    long = "This sentence goes on and on, " * 8
    steps = [msg("c", long, True), ("wait", "chunk", "c"), {"context_id": "c", "cancel": True}]
    got = run(server, steps, {"c"})
    assert kinds(got["c"]) == ["done"] and got["c"][-1]["cancelled"] is True


def test_cancel_after_done_is_a_no_op(server):
    steps = [msg("c", "Short.", False), ("wait", "done", "c"), {"context_id": "c", "cancel": True}]
    got = run(server, steps, {"c"})
    assert kinds(got["c"]) == ["done"]  # no error after the done: the cancel raced the end, nothing to say


def test_context_id_reused_after_done_gets_one_error(server):
    steps = [msg("c", "Once.", False), ("wait", "done", "c"), msg("c", "Twice.", False)]
    got = asyncio.run(exchange(server.ws_url, steps, {"c"}))["c"]
    done_at = [m["type"] for m in got].index("done")
    check_context(got[: done_at + 1])
    assert [m["type"] for m in got[done_at + 1 :]] == ["error"]  # one refusal, then silence
    err = Error.model_validate(got[-1])
    assert err.context_id == "c" and got[-1]["field"] == "context_id" and err.status_code == 400


def test_context_id_may_be_reused_on_another_socket(server):
    for _ in range(2):  # context ids belong to their connection
        got = run(server, [msg("c", "Same id.", False)], {"c"})
        assert kinds(got["c"]) == ["done"] and audio(got["c"])


# Timestamps -------------------------------------------------------------------------------------------
def test_word_timestamps_read_like_the_input_text(server):
    pieces = ["Hello, world! ", "It costs 3.5 dollars, ", "doesn't it? ", '"Yes" - she said']
    steps = [msg("c", p, True, add_timestamps=True) for p in pieces] + [msg("c", " ", False)]
    got = run(server, steps, {"c"})
    stamps = [m["word_timestamps"] for m in got["c"] if m["type"] == "timestamps"]
    words = [w for s in stamps for w in s["words"]]
    starts = [t for s in stamps for t in s["start"]]
    ends = [t for s in stamps for t in s["end"]]
    # words keep their punctuation, so joining them gives the text back (what Pipecat shows, and what
    # LiveKit's alignment finds in the text it sent)
    assert " ".join(words) == " ".join("".join(pieces).split())
    assert all(len(s["words"]) == len(s["start"]) == len(s["end"]) for s in stamps)
    assert all(0 <= a <= b for a, b in zip(starts, ends, strict=True))
    assert starts == sorted(starts) and all(e <= s2 + 1e-6 for e, s2 in zip(ends, starts[1:], strict=False))
    duration = len(audio(got["c"])) / 2 / FMT["sample_rate"]
    assert ends[-1] <= duration + 1e-3  # seconds, on the audio's own clock


# HTTP: /tts/sse and /tts/bytes --------------------------------------------------------------------------
def body(transcript: str, **extra) -> dict:
    return {"model_id": "sonic-3", "transcript": transcript, "voice": {"mode": "id", "id": VOICE},
            "output_format": FMT, "language": "en", **extra}  # fmt: skip


def sse_events(text: str) -> list[dict]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


@pytest.mark.parametrize("path", ["/tts/sse", "/tts/bytes"])
@pytest.mark.parametrize("text", ["", " ", "...", "?! -"])
def test_http_nothing_to_speak_is_one_clear_400(server, path, text):
    r = httpx.post(server.base_url + path, json=body(text), timeout=BOUND_S)
    err = r.json()
    assert r.status_code == 400 and err["type"] == "error" and err["field"] == "transcript"
    Error.model_validate(err)


@pytest.mark.parametrize(
    "text",
    ["Hello there", "Ends with a question?", "Numbers like 42", "a, b; c",
     "Open at 9am-5pm, Mon-Fri.", "Open 10-20 May, 9h-17h."],  # a token of two spoken words is one word
)  # fmt: skip
def test_sse_ends_with_exactly_one_done(server, text):
    r = httpx.post(
        server.base_url + "/tts/sse", json=body(text, context_id="s1", add_timestamps=True), timeout=BOUND_S
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = sse_events(r.text)
    types = [e["type"] for e in events]
    assert types[-1] == "done" and types.count("done") == 1 and "error" not in types
    assert all(e["context_id"] == "s1" and e["status_code"] == 200 for e in events)
    chunks = [e for e in events if e["type"] == "chunk"]
    assert chunks and all(e["step_time"] > 0 and base64.b64decode(e["data"]) for e in chunks)
    words = [w for e in events if e["type"] == "timestamps" for w in e["word_timestamps"]["words"]]
    assert " ".join(words) == text


@pytest.mark.parametrize("text", ["Hello there", "Ends with a question?", "one, two"])
def test_bytes_is_whole_audio_and_a_clean_end(server, text):
    with httpx.stream("POST", server.base_url + "/tts/bytes", json=body(text), timeout=BOUND_S) as r:
        assert r.status_code == 200
        data = r.read()  # raises on a truncated chunked body
    assert len(data) > 0 and len(data) % 2 == 0
