"""WS /tts/websocket: Cartesia's multiplexed streaming protocol.

Many contexts share one connection. A context starts with its first generation request (voice, output
format, language, speed are fixed then), takes more text with `continue: true` messages (spoken as they
arrive: the planner needs only a few phones of lookahead), `flush: true` forces out what was sent so far
and answers `flush_done`, `continue: false` closes the input and `cancel: true` stops it at the next
engine tick. Server messages: chunk, timestamps, flush_done, done, error. Every context ends with exactly
one terminal message: `done` (also after a cancel, marked `cancelled`, and at once for a context that
closes with nothing to speak) or `error` (also when a drain runs out of time with the context open). An
error in one context ends that context only; the connection and the other contexts go on. A context that
neither gets a message nor sends audio for STATESPEAK_CONTEXT_IDLE_TIMEOUT_S has its input closed, as if
the client had sent `continue: false`: an abandoned turn does not hold a stream slot for good.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import time
import uuid

from fastapi import WebSocket

from model_server.api.errors import ApiError, new_request_id
from model_server.api.pump import CartesiaWebSocket, compact, pump
from model_server.api.requests import (
    check_transcript,
    flag,
    parse_cartesia,
    parse_json,
    require_language,
    speakable,
)
from model_server.api.state import ServerState, Session

log = logging.getLogger("statespeak.websocket")
FINISHED_MEMORY = 4096  # finished context ids remembered per connection, to answer late messages clearly


class Context:
    def __init__(self, cid: str, session: Session, request_id: str) -> None:
        self.id = cid
        self.session = session
        self.input_closed = False
        self.fmt = CartesiaWebSocket(cid, request_id)
        self.task: asyncio.Task | None = None
        self.language = ""  # the language text fed now is spoken in
        self.last_activity = time.monotonic()  # the client's last message for it, or its last audio sent
        self.ended = False  # its terminal message was sent outside its pump (drain timeout)
        self.sending = False  # a message of it is on its way to the client now


class Connection:
    def __init__(self, ws: WebSocket, state: ServerState) -> None:
        self.ws = ws
        self.state = state
        self.request_id = new_request_id()
        self.contexts: dict[str, Context] = {}
        self.finished: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._send_lock = asyncio.Lock()
        self.closed = False
        self._watchdog: asyncio.Task | None = None

    async def send(self, obj: dict | str) -> None:
        if self.closed:
            return
        async with self._send_lock:
            try:
                await self.ws.send_text(obj if isinstance(obj, str) else compact(obj))
            except Exception:  # the peer went away mid-send: the receive loop will see the disconnect
                self.closed = True

    async def send_error(self, err: ApiError, context_id: str | None) -> None:
        body = err.cartesia_body(self.request_id, context_id)
        if context_id is not None and context_id in self.contexts:
            # A refused message of a context that goes on (a bad continuation, text after continue=false):
            # the refusal is not the context's end, which still comes as its one terminal message.
            body["done"] = False
        await self.send(body)

    # Receive loop ---------------------------------------------------------------------------------
    async def run(self) -> None:
        limit = self.state.config.max_body_bytes
        self._watchdog = asyncio.create_task(self._close_idle_contexts())
        while True:
            msg = await self.ws.receive()
            if msg["type"] == "websocket.disconnect":
                return
            text = msg.get("text")
            if text is None:
                await self.send_error(
                    ApiError(400, "message", "binary frames are not accepted; send JSON text messages"), None
                )
                continue
            t0 = time.perf_counter()
            if len(text) > limit or (4 * len(text) > limit and len(text.encode("utf-8")) > limit):  # bytes
                await self.send_error(
                    ApiError(413, "message", f"message exceeds the limit of {limit} bytes"), None
                )
                continue
            data = None
            try:
                data = parse_json(text.encode("utf-8"), "message")
                await self.handle(data, t0)
            except ApiError as err:
                cid = data.get("context_id") if isinstance(data, dict) else None
                await self.send_error(err, cid if isinstance(cid, str) else None)
            except Exception:  # a bug handling one message must not end the connection's other contexts
                log.exception("websocket message failed", extra={"request_id": self.request_id})
                cid = data.get("context_id") if isinstance(data, dict) else None
                err = ApiError(500, "", "internal error while handling the message", code="internal_error")
                await self.send_error(err, cid if isinstance(cid, str) else None)

    async def handle(self, data, t0: float) -> None:
        if not isinstance(data, dict):
            raise ApiError(400, "message", f"message must be a JSON object, got {type(data).__name__}")
        cid = data.get("context_id")
        if cid is not None and (not isinstance(cid, str) or not cid or len(cid) > 256):
            raise ApiError(
                400, "context_id", "context_id must be a non-empty string of at most 256 characters"
            )
        cancel, _, _ = (
            flag(data.get(name), name) for name in ("cancel", "flush", "continue")
        )  # before any effect
        if cancel:
            self.cancel(cid)
            return
        cid = cid or uuid.uuid4().hex  # legacy one-shot clients send no context_id
        ctx = self.contexts.get(cid)
        if ctx is None:
            if cid in self.finished:
                raise ApiError(400, "context_id", f"context {cid!r} has finished; use a new context_id")
            await self.open_context(cid, data, t0)
            return
        else:
            if ctx.session.stream.closed and not ctx.input_closed:  # ended by the server (error) just now
                raise ApiError(400, "context_id", f"context {cid!r} has ended; use a new context_id")
            if ctx.input_closed:
                raise ApiError(
                    400,
                    "context_id",
                    f"context {cid!r} takes no more input (closed with continue=false, or cancelled)",
                )
            transcript = check_transcript(
                data.get("transcript"), "transcript", self.state.config.max_transcript_chars, allow_empty=True
            )
            ctx.session.chars += len(transcript)
            language = data.get("language")
            if language is not None and language != ctx.language:
                # A language switch inside a context: spoken from the next sentence on.
                ctx.language = require_language(language, self.state.require_catalog().languages)
                ctx.session.stream.set_language(ctx.language)
        self.apply(ctx, data, transcript)

    async def open_context(self, cid: str, data: dict, t0: float) -> None:
        """Open a context with its first message, or answer `done` at once when it opens and closes with
        nothing to say: a framework ending a turn that produced no text must not wait, nor cost a slot."""
        catalog = self.state.require_catalog()
        req = parse_cartesia(data, catalog, self.state.config.max_transcript_chars, allow_empty=True)
        if not flag(data.get("continue"), "continue") and not speakable(req.transcript, req.language):
            self.remember_finished(cid)
            metrics = {"ttfb_ms": None, "rtf": None, "audio_s": 0.0,
                       "total_ms": round((time.perf_counter() - t0) * 1000, 2)}  # fmt: skip
            await self.send(
                {"type": "done", "context_id": cid, "done": True, "status_code": 200, "metrics": metrics}
            )
            return
        delay_ms = req.max_buffer_delay_ms
        if delay_ms is None:
            delay_ms = self.state.config.max_buffer_delay_ms
        session = self.state.open_session(req, "websocket", t0, buffer_delay_s=delay_ms / 1000)
        ctx = Context(cid, session, self.request_id)
        ctx.language = req.language
        try:
            self.apply(ctx, data, req.transcript)  # travels with the open: no round trip before the text
            await session.admitted()  # a refusal (full, draining) is this context's error message
        except BaseException:
            session.close("error", "open")  # whatever failed, the stream's slot and the drain count go back
            raise
        self.contexts[cid] = ctx
        ctx.task = asyncio.create_task(self.forward(ctx))

    def apply(self, ctx: Context, data: dict, transcript: str) -> None:
        ctx.last_activity = time.monotonic()
        stream = ctx.session.stream
        flush, more = (
            flag(data.get("flush"), "flush"),
            flag(data.get("continue"), "continue"),
        )  # before any effect
        if transcript:
            stream.feed(transcript)
        if flush:
            stream.flush()
        if not more:
            ctx.input_closed = True
            stream.finish()

    def cancel(self, cid) -> None:
        if cid is None:
            raise ApiError(400, "context_id", "cancel needs the context_id to cancel")
        ctx = self.contexts.get(cid)
        if ctx is None:
            if cid in self.finished:  # it ended (done sent) while the cancel was on its way: nothing to do
                return
            raise ApiError(400, "context_id", f"cannot cancel context {cid!r}: it is unknown")
        ctx.fmt.client_cancelled = True
        ctx.input_closed = True
        ctx.session.stream.cancel()

    # Per-context forwarding ------------------------------------------------------------------------
    async def forward(self, ctx: Context) -> None:
        session, cid = ctx.session, ctx.id
        try:
            async for item in pump(session, ctx.fmt):
                if ctx.ended:  # its terminal message went out already (drain timeout)
                    continue
                ctx.sending = True  # a send held up by a client that reads slowly is no idleness
                try:
                    await self.send(item)
                finally:
                    ctx.sending = False
                    ctx.last_activity = time.monotonic()
        finally:
            if self.closed and not session.closed:
                session.close("cancelled", "disconnect")
            else:
                session.close()
            self.contexts.pop(cid, None)
            self.remember_finished(cid)

    def remember_finished(self, cid: str) -> None:
        self.finished[cid] = None
        while len(self.finished) > FINISHED_MEMORY:
            self.finished.popitem(last=False)

    async def _close_idle_contexts(self) -> None:
        """Close the input of each context idle past the timeout: it speaks what it has, then `done`."""
        timeout = self.state.config.context_idle_timeout_s
        while not self.closed:
            await asyncio.sleep(min(1.0, timeout / 4))
            now = time.monotonic()
            for ctx in list(self.contexts.values()):
                if not ctx.input_closed and not ctx.sending and now - ctx.last_activity > timeout:
                    log.warning(
                        "websocket context idle: input closed",
                        extra={"request_id": self.request_id, "context_id": ctx.id, "idle_s": timeout},
                    )
                    ctx.input_closed = True
                    ctx.session.stream.finish()

    async def end_contexts(self, err: ApiError) -> None:
        """Each open context's terminal message, `err`, now (the drain ran out of time): a client must not
        be left waiting for a `done` that never comes when the socket closes."""
        for ctx in list(self.contexts.values()):
            if not ctx.ended:
                ctx.ended = True
                await self.send(err.cartesia_body(self.request_id, ctx.id))
                ctx.session.stream.cancel()

    async def close(self) -> None:
        """The client went away: every context counts as cancelled and frees its slot now."""
        self.closed = True
        if self._watchdog is not None:
            self._watchdog.cancel()
        tasks = []
        for ctx in list(self.contexts.values()):
            ctx.session.stream.cancel()
            if ctx.task is not None:
                tasks.append(ctx.task)
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


async def serve_websocket(ws: WebSocket, state: ServerState) -> None:
    await ws.accept(headers=[(b"x-statespeak-worker", str(os.getpid()).encode())])  # which worker serves
    conn = Connection(ws, state)
    log.info("websocket connected", extra={"request_id": conn.request_id})
    state.connections.add(conn)
    try:
        await conn.run()
    except Exception:
        log.exception("websocket receive loop failed", extra={"request_id": conn.request_id})
        if not conn.closed:
            try:
                await ws.close(code=1011, reason="internal error")
            except Exception:  # already gone
                pass
    finally:
        state.connections.discard(conn)
        await conn.close()
        log.info("websocket closed", extra={"request_id": conn.request_id})
