"""The one event-to-protocol pump: a session's engine events in, wire items out, through a formatter.

Every protocol (raw audio bytes, Cartesia SSE, OpenAI SSE, the Cartesia WebSocket) shares the same
sequence: encode each audio chunk (resample, sample format; this also frees the engine's buffer space and
marks the time to first audio), drain the encoder's tail at a flush and at the end, report the end with
the session's summary. Only the shape of each message differs, and that is the formatter's job. JSON
messages are built from string templates: the base64 audio goes in as it is, never re-serialized.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncIterator
from typing import Protocol

from model_server.api.errors import ApiError
from model_server.api.state import Session
from model_server.engine.protocol import StreamEvent, Word


class StreamFailed(Exception):
    """Raised inside a streaming body after the headers went out: the connection is aborted, so the
    client sees a truncated response instead of a clean end of a wrong one."""


class Formatter(Protocol):
    def chunk(self, data: bytes, step_ms: float, flush_id: int) -> bytes | str | None: ...
    def timestamps(self, words: list[Word], flush_id: int) -> bytes | str | None: ...
    def flush_done(self, flush_id: int) -> bytes | str | None: ...
    def done(self, session: Session) -> bytes | str | None: ...
    def failed(self, session: Session, ev: StreamEvent) -> bytes | str | None:
        """Close the session for an error/cancelled event and return the message (or raise)."""


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def compact(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"))


def word_timestamps(words) -> dict:
    """Cartesia's word_timestamps shape from the engine's Word(text, start_s, end_s) list."""
    return {
        "words": [w.text for w in words],
        "start": [round(float(w.start_s), 4) for w in words],
        "end": [round(float(w.end_s), 4) for w in words],
    }


def step_time(model_ms: float, encode_start: float) -> float:
    """Milliseconds of server work behind one chunk: its model step (shared by the batch that made it)
    plus its resampling and encoding; a flush's or the end's tail chunk is the encoder's work alone."""
    return round(model_ms + (time.perf_counter() - encode_start) * 1000, 3)


def sse(event: str, body: str) -> bytes:
    return f"event: {event}\ndata: {body}\n\n".encode()


async def pump(session: Session, fmt: Formatter) -> AsyncIterator[bytes | str]:
    """Wire items for one session until its terminal event. The caller closes the session afterwards
    (close() is idempotent: it records the outcome set here, or cancels the stream on a disconnect)."""
    timestamps = session.req.add_timestamps
    async for ev in session.stream.events():
        kind = ev.kind
        if kind == "audio":
            t = time.perf_counter()
            data = session.encode(ev.audio)
            if data and (item := fmt.chunk(data, step_time(ev.step_ms, t), ev.flush_id)) is not None:
                yield item
            if timestamps and ev.words and (item := fmt.timestamps(ev.words, ev.flush_id)) is not None:
                yield item
        elif kind == "flush_done":
            t = time.perf_counter()
            tail = session.encoder.drain()  # the flushed text's audio goes out whole first
            if tail and (item := fmt.chunk(tail, step_time(0.0, t), ev.flush_id)) is not None:
                yield item
            if (item := fmt.flush_done(ev.flush_id)) is not None:
                yield item
        elif kind == "done":
            session.stats = ev.stats
            t = time.perf_counter()
            tail = session.finish_audio()
            if tail and (item := fmt.chunk(tail, step_time(0.0, t), session.stream.flushes + 1)) is not None:
                yield item
            session.outcome = "completed"
            if (item := fmt.done(session)) is not None:
                yield item
        else:  # error or cancelled
            session.stats = ev.stats
            if (item := fmt.failed(session, ev)) is not None:
                yield item


def _generation_error(session: Session, ev: StreamEvent) -> ApiError:
    session.close("error" if ev.kind == "error" else "cancelled", "generation")
    return ApiError(500, "", ev.message or "stream cancelled by the server", code="generation_failed")


class RawAudio:
    """Audio bytes alone (/tts/bytes, /invocations, /v1/audio/speech with stream_format=audio)."""

    def chunk(self, data, step_ms, flush_id):
        return data

    def timestamps(self, words, flush_id):
        return None

    def flush_done(self, flush_id):
        return None

    def done(self, session):
        return None

    def failed(self, session, ev):
        if ev.kind == "error":
            session.close("error", "generation")
            raise StreamFailed(ev.message)
        session.close("cancelled", "server")
        return None


class CartesiaSSE:
    def __init__(self, context_id: str | None, request_id: str) -> None:
        self.request_id = request_id
        self.context_id = context_id
        self._ctx = "" if context_id is None else f',"context_id":{json.dumps(context_id)}'

    def chunk(self, data, step_ms, flush_id):
        return sse("chunk", f'{{"type":"chunk","data":"{b64(data)}","done":false,"status_code":200,'
                            f'"step_time":{step_ms!r}{self._ctx}}}')  # fmt: skip

    def timestamps(self, words, flush_id):
        ts = compact(word_timestamps(words))
        return sse("timestamps", f'{{"type":"timestamps","done":false,"status_code":200,'
                                 f'"word_timestamps":{ts}{self._ctx}}}')  # fmt: skip

    def flush_done(self, flush_id):
        return None

    def done(self, session):
        metrics = compact(session.summary())
        return sse("done", f'{{"type":"done","done":true,"status_code":200,"metrics":{metrics}{self._ctx}}}')

    def failed(self, session, ev):
        body = _generation_error(session, ev).cartesia_body(self.request_id, self.context_id)
        return sse(body["type"], compact(body))


class OpenAISSE:
    """OpenAI's speech SSE: speech.audio.delta events, then speech.audio.done. OpenAI's `usage` counts
    tokens of its own tokenizer and audio codec; this server has neither, so it sends no `usage` rather
    than numbers that look like tokens and are not."""

    def chunk(self, data, step_ms, flush_id):
        return sse("speech.audio.delta", f'{{"type":"speech.audio.delta","audio":"{b64(data)}"}}')

    def timestamps(self, words, flush_id):
        return None

    def flush_done(self, flush_id):
        return None

    def done(self, session):
        metrics = compact(session.summary())
        return sse("speech.audio.done", f'{{"type":"speech.audio.done","metrics":{metrics}}}')

    def failed(self, session, ev):
        body = {"type": "error", **_generation_error(session, ev).openai_body()}
        return sse("error", compact(body))


class CartesiaWebSocket:
    """Text messages of one WebSocket context. `client_cancelled` tells a cancel the client asked for
    (answered with a `done` marked cancelled) from one the server made (an error); once the client
    cancelled, audio still on its way from the engine is dropped instead of sent: a client that has moved
    on to its next turn gets no stray chunk or word of the old one, only the context's `done`."""

    def __init__(self, context_id: str, request_id: str) -> None:
        self.context_id = context_id
        self.request_id = request_id
        self.client_cancelled = False
        self._ctx = json.dumps(context_id)

    def chunk(self, data, step_ms, flush_id):
        if self.client_cancelled:
            return None
        return (f'{{"type":"chunk","context_id":{self._ctx},"data":"{b64(data)}","done":false,'
                f'"status_code":200,"step_time":{step_ms!r},"flush_id":{flush_id}}}')  # fmt: skip

    def timestamps(self, words, flush_id):
        if self.client_cancelled:
            return None
        ts = compact(word_timestamps(words))
        return (f'{{"type":"timestamps","context_id":{self._ctx},"done":false,"status_code":200,'
                f'"flush_id":{flush_id},"word_timestamps":{ts}}}')  # fmt: skip

    def flush_done(self, flush_id):
        if self.client_cancelled:
            return None
        return (f'{{"type":"flush_done","context_id":{self._ctx},"done":false,"flush_done":true,'
                f'"flush_id":{flush_id},"status_code":200}}')  # fmt: skip

    def done(self, session):
        metrics = compact(session.summary())
        return f'{{"type":"done","context_id":{self._ctx},"done":true,"status_code":200,"metrics":{metrics}}}'

    def failed(self, session, ev):
        if ev.kind == "error":
            session.close("error", "generation")
            err = ApiError(500, "", ev.message, code="generation_failed")
        elif self.client_cancelled:
            # Every context ends with one terminal message, a cancelled one too: a client that waits
            # per context gets its end without guessing how long to wait.
            session.close("cancelled", "client")
            metrics = compact(session.summary())
            return (f'{{"type":"done","context_id":{self._ctx},"done":true,"status_code":200,'
                    f'"cancelled":true,"metrics":{metrics}}}')  # fmt: skip
        else:
            session.close("cancelled", "server")
            err = ApiError(503, "", "stream cancelled by the server")
        return compact(err.cartesia_body(self.request_id, self.context_id))
