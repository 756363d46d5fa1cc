"""The HTTP application: Cartesia-compatible /tts/*, OpenAI-compatible /v1/audio/speech, SageMaker
/invocations and /ping, probes, /voices and /metrics. The WebSocket protocol lives in `websocket.py`."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, Response, StreamingResponse

from model_server.api.auth import OPEN_PATHS, is_authorized
from model_server.api.errors import ApiError, new_request_id
from model_server.api.requests import parse_cartesia, parse_json, parse_openai, require_speech
from model_server.api.state import ServerState, Session, b64, word_timestamps
from model_server.api.websocket import serve_websocket, step_time
from model_server.config import ServerConfig
from model_server.contract import HEALTH_PATH, INVOCATIONS_PATH, METRICS_PATH, PING_PATH, READY_PATH
from model_server.metrics import PROMETHEUS_CONTENT_TYPE

log = logging.getLogger("statespeak.server")


class SessionResponse(StreamingResponse):
    """A streaming response that always closes its session, even when the client left before the body
    generator started (its `finally` would then never run): the slot and the drain count are freed."""

    def __init__(self, session: Session, content, **kwargs) -> None:
        super().__init__(content, **kwargs)
        self.session = session

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.session.close()


class StreamFailed(Exception):
    """Raised inside a streaming body after the headers went out: the connection is aborted, so the
    client sees a truncated response instead of a clean end of a wrong one."""


async def read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ApiError(413, "body", f"request body of {declared} bytes exceeds the limit of {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, "body", f"request body exceeds the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def sse(obj: dict) -> bytes:
    return f"event: {obj['type']}\ndata: {json.dumps(obj, separators=(',', ':'))}\n\n".encode()


async def audio_body(session: Session):
    """Raw audio bytes (/tts/bytes, /invocations, /v1/audio/speech with stream_format=audio)."""
    try:
        async for ev in session.stream.events():
            if ev.kind == "audio":
                data = session.encode(ev.audio)
                if data:
                    yield data
            elif ev.kind == "done":
                session.stats = ev.stats
                tail = session.finish_audio()
                if tail:
                    yield tail
                session.outcome = "completed"
            elif ev.kind == "error":
                session.stats = ev.stats
                session.close("error", "generation")
                raise StreamFailed(ev.message)
            elif ev.kind == "cancelled":
                session.close("cancelled", "server")
    finally:
        session.close()  # on disconnect this cancels the stream and frees its slot


async def cartesia_sse_body(session: Session, request_id: str):
    ctx = session.req.context_id
    try:
        async for ev in session.stream.events():
            if ev.kind == "audio":
                t = time.perf_counter()
                data = session.encode(ev.audio)
                if data:
                    msg = {"type": "chunk", "data": b64(data), "done": False, "status_code": 200}
                    msg["step_time"] = step_time(ev.step_ms, t)
                    if ctx is not None:
                        msg["context_id"] = ctx
                    yield sse(msg)
                if session.req.add_timestamps and ev.words:
                    msg = {"type": "timestamps", "done": False, "status_code": 200}
                    msg["word_timestamps"] = word_timestamps(ev.words)
                    if ctx is not None:
                        msg["context_id"] = ctx
                    yield sse(msg)
            elif ev.kind == "done":
                session.stats = ev.stats
                t = time.perf_counter()
                tail = session.finish_audio()
                if tail:
                    msg = {
                        "type": "chunk",
                        "data": b64(tail),
                        "done": False,
                        "status_code": 200,
                        "step_time": step_time(0.0, t),
                    }
                    if ctx is not None:
                        msg["context_id"] = ctx
                    yield sse(msg)
                session.outcome = "completed"
                msg = {"type": "done", "done": True, "status_code": 200, "metrics": session.summary()}
                if ctx is not None:
                    msg["context_id"] = ctx
                yield sse(msg)
            elif ev.kind in ("error", "cancelled"):
                session.stats = ev.stats
                session.close("error" if ev.kind == "error" else "cancelled", "generation")
                err = ApiError(
                    500, "", ev.message or "stream cancelled by the server", code="generation_failed"
                )
                yield sse(err.cartesia_body(request_id, ctx))
    finally:
        session.close()


async def openai_sse_body(session: Session):
    """OpenAI's speech SSE: speech.audio.delta events, then speech.audio.done. OpenAI's `usage` counts
    tokens of its own tokenizer and audio codec; this server has neither, so it sends no `usage` rather
    than numbers that look like tokens and are not."""
    try:
        async for ev in session.stream.events():
            if ev.kind == "audio":
                data = session.encode(ev.audio)
                if data:
                    yield sse({"type": "speech.audio.delta", "audio": b64(data)})
            elif ev.kind == "done":
                session.stats = ev.stats
                tail = session.finish_audio()
                if tail:
                    yield sse({"type": "speech.audio.delta", "audio": b64(tail)})
                session.outcome = "completed"
                yield sse({"type": "speech.audio.done", "metrics": session.summary()})
            elif ev.kind in ("error", "cancelled"):
                session.stats = ev.stats
                session.close("error" if ev.kind == "error" else "cancelled", "generation")
                err = ApiError(
                    500, "", ev.message or "stream cancelled by the server", code="generation_failed"
                )
                yield sse({"type": "error", **err.openai_body()})
    finally:
        session.close()


def create_app(config: ServerConfig, runtime_factory=None, state: ServerState | None = None) -> FastAPI:
    state = state or ServerState(config, runtime_factory)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        async def emf_loop():
            while True:
                await asyncio.sleep(config.emf_interval_s)
                state.metrics.emit_periodic()

        tasks = [asyncio.create_task(state.load()), asyncio.create_task(emf_loop())]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            state.metrics.emit_periodic()
            await asyncio.to_thread(state.shutdown)

    app = FastAPI(title="Statespeak model server", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.server = state

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError):
        return exc.response(openai=request.url.path.startswith("/v1/"))

    def authorize(request: Request) -> None:
        if request.url.path in OPEN_PATHS:
            return
        refuse_query_key(request.query_params)
        if not is_authorized(config.api_keys, request.headers, request.query_params):
            raise ApiError(401, "api_key", "missing or invalid API key (Authorization: Bearer, X-API-Key or ?api_key=)",
                           code="unauthorized", headers={"WWW-Authenticate": "Bearer"})  # fmt: skip

    def refuse_query_key(query_params) -> None:
        # Internet-facing entries: a key in the URL lands in the ALB's access logs, so it is refused.
        if not config.query_api_keys and "api_key" in query_params:
            raise ApiError(401, "api_key", "API keys in the query string (?api_key=) are refused on this entry; "
                           "send Authorization: Bearer or X-API-Key", code="unauthorized")  # fmt: skip

    async def json_request(request: Request):
        authorize(request)
        return parse_json(await read_body(request, config.max_body_bytes))

    def readiness() -> Response:
        if state.ready:
            return JSONResponse({"status": "ready"})
        headers = {"Retry-After": str(config.retry_after_s)}
        body = {"status": state.phase} | (
            {"reason": state.not_ready_reason} if state.not_ready_reason else {}
        )
        return JSONResponse(body, status_code=503, headers=headers)

    @app.get(HEALTH_PATH)
    async def health():
        return {"status": "ok", "phase": state.phase}

    @app.get(READY_PATH)
    async def ready():
        return readiness()

    if config.sagemaker_routes:  # off on the ECS route: SageMaker authenticates these, an ALB does not

        @app.get(PING_PATH)
        async def ping():
            return readiness()

    @app.get(METRICS_PATH)
    async def metrics():
        return Response(state.metrics.prometheus_text(), media_type=PROMETHEUS_CONTENT_TYPE)

    @app.get("/voices")
    async def voices(request: Request):
        authorize(request)
        catalog = state.require_catalog()
        return {"voices": state.voice_list, "openai_voices": catalog.openai_voices}

    async def cartesia_bytes(request: Request, endpoint: str):
        t0 = time.perf_counter()
        data = await json_request(request)
        req = parse_cartesia(data, state.require_catalog(), config.max_transcript_chars)
        require_speech(req)
        session = state.open_session(req, endpoint, t0)
        session.stream.feed(req.transcript)
        session.stream.finish()
        headers = {"X-Request-Id": new_request_id(), "X-Stream-Id": str(session.stream.id)}
        return SessionResponse(
            session, audio_body(session), media_type=req.format.media_type, headers=headers
        )

    @app.post("/tts/bytes")
    async def tts_bytes(request: Request):
        return await cartesia_bytes(request, "bytes")

    if config.sagemaker_routes:

        @app.post(INVOCATIONS_PATH)
        async def invocations(request: Request):
            return await cartesia_bytes(request, "invocations")

    @app.post("/tts/sse")
    async def tts_sse(request: Request):
        t0 = time.perf_counter()
        data = await json_request(request)
        req = parse_cartesia(data, state.require_catalog(), config.max_transcript_chars)
        require_speech(req)
        session = state.open_session(req, "sse", t0)
        session.stream.feed(req.transcript)
        session.stream.finish()
        request_id = new_request_id()
        headers = {"X-Request-Id": request_id, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return SessionResponse(
            session, cartesia_sse_body(session, request_id), media_type="text/event-stream", headers=headers
        )

    @app.post("/v1/audio/speech")
    async def openai_speech(request: Request):
        t0 = time.perf_counter()
        data = await json_request(request)
        req, stream_format = parse_openai(data, state.require_catalog(), config.max_transcript_chars)
        require_speech(req, "input")
        session = state.open_session(req, "openai", t0)
        session.stream.feed(req.transcript)
        session.stream.finish()
        headers = {"X-Request-Id": new_request_id()}
        if stream_format == "sse":
            return SessionResponse(
                session, openai_sse_body(session), media_type="text/event-stream", headers=headers
            )
        return SessionResponse(
            session, audio_body(session), media_type=req.format.media_type, headers=headers
        )

    @app.websocket("/tts/websocket")
    async def tts_websocket(websocket: WebSocket):
        try:
            refuse_query_key(websocket.query_params)
        except ApiError as err:
            await websocket.send_denial_response(JSONResponse(err.cartesia_body(), status_code=401))
            return
        if not is_authorized(config.api_keys, websocket.headers, websocket.query_params):
            err = ApiError(401, "api_key", "missing or invalid API key (Authorization: Bearer, X-API-Key or ?api_key=)",
                           code="unauthorized")  # fmt: skip
            await websocket.send_denial_response(JSONResponse(err.cartesia_body(), status_code=401))
            return
        await serve_websocket(websocket, state)

    return app
