"""A worker's side of the engine channel (no torch): remote streams, the engine's status, metrics.

Ops are queued and sent once per event-loop turn as one message (`flush` is scheduled with call_soon when
the first op is queued), so the ops of all streams of this worker that happen in one turn travel
together; the engine answers with one message per tick.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable

import zmq
import zmq.asyncio

from model_server.engine import protocol as p

log = logging.getLogger("statespeak.worker")
HELLO_INTERVAL_S = 0.5


class RemoteStream:
    """One stream as the protocol handler sees it; the engine holds its slot and state."""

    def __init__(self, client: EngineClient, sid: int) -> None:
        self.client = client
        self.id = sid
        self._events: asyncio.Queue[p.StreamEvent] = asyncio.Queue()
        self._admission: asyncio.Future = asyncio.get_running_loop().create_future()
        self.closed = False  # no more input accepted after finish/cancel
        self.ended = False  # a terminal event was received (or admission refused)
        self.flushes = 0

    def feed(self, text: str) -> None:
        if self.closed:
            raise RuntimeError("stream no longer accepts input")
        if text:
            self.client.send((p.FEED, self.id, text))

    def set_language(self, language: str) -> None:
        """Speak the text fed after this in `language`, starting at a sentence boundary."""
        if self.closed:
            raise RuntimeError("stream no longer accepts input")
        self.client.send((p.LANGUAGE, self.id, language))

    def flush(self) -> int:
        """Generate everything fed so far without waiting for lookahead; returns the flush id."""
        if self.closed:
            raise RuntimeError("stream no longer accepts input")
        self.flushes += 1
        self.client.send((p.FLUSH, self.id))
        return self.flushes

    def finish(self) -> None:
        if not self.closed:
            self.closed = True
            self.client.send((p.FINISH, self.id))

    def cancel(self) -> None:
        """Stop generation at the engine's next tick and free the slot (idempotent; also on disconnect)."""
        self.closed = True
        if not self.ended:
            self.client.send((p.CANCEL, self.id))

    def consumed(self, samples: int) -> None:
        if samples and not self.ended:
            self.client.send((p.CONSUMED, self.id, samples))

    async def admitted(self) -> None:
        """Returns once the engine gave the stream a slot; raises AdmissionError when it did not."""
        await self._admission

    async def events(self):
        """Events until the terminal one (done, error or cancelled), which is yielded too."""
        while True:
            ev = await self._events.get()
            yield ev
            if ev.kind in p.TERMINAL:
                return

    # from the dispatcher ------------------------------------------------------------------------------------
    def _admit(self, error: p.AdmissionError | None) -> None:
        if self._admission.done():
            return
        if error is None:
            self._admission.set_result(None)
        else:
            self.ended = self.closed = True
            self._admission.set_exception(error)

    def _deliver(self, ev: p.StreamEvent) -> None:
        if ev.kind in p.TERMINAL:
            self.ended = True
            self._admit(None)
        self._events.put_nowait(ev)


class EngineClient:
    def __init__(self, endpoint: str, identity: bytes) -> None:
        self.endpoint = endpoint
        self.identity = identity
        self.phase = "loading"  # the engine's: loading, ready, draining, failed
        self.reason = ""
        self.catalog: p.Catalog | None = None
        self.active = 0
        self.on_status: Callable[[], None] = lambda: None
        self._streams: dict[int, RemoteStream] = {}
        self._ids = itertools.count(1)
        self._pending: list[tuple] = []
        self._flush_scheduled = False
        self._metrics: dict[int, asyncio.Future] = {}
        self._tasks: list[asyncio.Task] = []
        self._ctx: zmq.asyncio.Context | None = None
        self._sock: zmq.asyncio.Socket | None = None
        self.lost = False

    async def start(self) -> None:
        self._ctx = zmq.asyncio.Context()
        self._sock = self._ctx.socket(zmq.DEALER)
        self._sock.setsockopt(zmq.IDENTITY, self.identity)
        self._sock.setsockopt(zmq.LINGER, 1000)
        self._sock.connect(self.endpoint)
        self._tasks = [asyncio.create_task(self._receive()), asyncio.create_task(self._hello())]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._flush()
        if self._sock is not None:
            self._sock.close()
            self._ctx.term()
            self._sock = None

    # Sending --------------------------------------------------------------------------------------------
    def send(self, item: tuple) -> None:
        if self.lost:
            return
        self._pending.append(item)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        if self._pending and self._sock is not None:
            items, self._pending = self._pending, []
            self._sock.send(p.pack(items))

    async def _hello(self) -> None:
        """Announce this worker until the engine answers (it may still be starting)."""
        while self.catalog is None and self.phase == "loading" and not self.lost:
            self.send((p.HELLO,))
            await asyncio.sleep(HELLO_INTERVAL_S)

    # API ------------------------------------------------------------------------------------------------
    def open_stream(
        self, voice: str, language: str, speed: float, buffer_delay_s: float | None
    ) -> RemoteStream:
        """A stream whose OPEN is queued: ops sent now travel with it; `admitted()` says if it got a slot."""
        stream = RemoteStream(self, next(self._ids))
        self._streams[stream.id] = stream
        self.send((p.OPEN, stream.id, voice, language, speed, buffer_delay_s))
        return stream

    def stream_finished(self, outcome: str, ttfb_ms, rtf, audio_s: float, error_kind: str) -> None:
        self.send((p.FINISHED, outcome, ttfb_ms, rtf, audio_s, error_kind))

    def stream_rejected(self, reason: str) -> None:
        self.send((p.REJECTED, reason))

    def drain(self) -> None:
        self.send((p.DRAIN,))

    async def metrics_text(self, timeout_s: float = 5.0) -> bytes:
        rid = next(self._ids)
        fut = self._metrics[rid] = asyncio.get_running_loop().create_future()
        self.send((p.METRICS, rid))
        try:
            return await asyncio.wait_for(fut, timeout_s)
        finally:
            self._metrics.pop(rid, None)

    def engine_lost(self, reason: str) -> None:
        """The engine process is gone: every stream ends with an error now, never a hang."""
        if self.lost:
            return
        self.lost = True
        self.phase, self.reason = "failed", reason
        for stream in list(self._streams.values()):
            stream._admit(p.AdmissionError("engine_lost", reason))
            if not stream.ended:
                stream._deliver(p.StreamEvent(p.ERROR, message=reason))
        self._streams.clear()
        for fut in self._metrics.values():
            if not fut.done():
                fut.set_exception(ConnectionError(reason))
        self.on_status()

    # Receiving ------------------------------------------------------------------------------------------
    async def _receive(self) -> None:
        while True:
            data = await self._sock.recv()
            for item in p.unpack(data):
                try:
                    self._dispatch(item)
                except Exception:  # one bad item must not stop this worker's other streams
                    log.exception("engine message failed", extra={"item": str(item[:2])})

    def _dispatch(self, item: tuple) -> None:
        kind = item[0]
        if kind == p.AUDIO:
            _, sid, audio, words, flush_id, step_ms = item
            stream = self._streams.get(sid)
            if stream is not None:
                stream._deliver(p.StreamEvent(p.AUDIO, audio=audio, words=words, flush_id=flush_id,
                                              step_ms=step_ms))  # fmt: skip
        elif kind == p.ADMITTED:
            stream = self._streams.get(item[1])
            if stream is not None:
                stream._admit(None)
        elif kind == p.REFUSED:
            stream = self._streams.pop(item[1], None)
            if stream is not None:
                stream._admit(p.AdmissionError(item[2], item[3]))
        elif kind == p.FLUSH_DONE:
            stream = self._streams.get(item[1])
            if stream is not None:
                stream._deliver(p.StreamEvent(p.FLUSH_DONE, flush_id=item[2]))
        elif kind in p.TERMINAL:
            _, sid, message, stats = item
            stream = self._streams.pop(sid, None)
            if stream is not None:
                stream._deliver(p.StreamEvent(kind, message=message, stats=stats))
        elif kind == p.STATUS:
            _, phase, reason, catalog, active = item
            if not self.lost:
                self.phase, self.reason, self.active = phase, reason, active
                if catalog is not None:
                    self.catalog = catalog
                self.on_status()
        elif kind == p.METRICS:
            fut = self._metrics.get(item[1])
            if fut is not None and not fut.done():
                fut.set_result(item[2])
