"""The HTTP application: Cartesia-compatible /tts/*, OpenAI-compatible /v1/audio/speech, SageMaker
/invocations and /ping, probes, /voices and /metrics. The WebSocket protocol lives in `websocket.py`."""

from __future__ import annotations

import logging
import os
import time
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from model_server.api.auth import OPEN_PATHS, auth_error, origin_error
from model_server.api.errors import ApiError, new_request_id
from model_server.api.pump import CartesiaSSE, Formatter, OpenAISSE, RawAudio, pump
from model_server.api.requests import parse_cartesia, parse_json, parse_openai, require_speech
from model_server.api.state import ServerState, Session
from model_server.api.websocket import serve_websocket
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


async def read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ApiError(413, "body", f"request body of {declared} bytes exceeds the limit of {limit} bytes")
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ApiError(413, "body", f"request body exceeds the limit of {limit} bytes")
            chunks.append(chunk)
    except ClientDisconnect:  # the client left mid-body: nobody to answer, and no server error to log
        raise ApiError(
            400, "body", "the client closed the connection before sending the whole body"
        ) from None
    return b"".join(chunks)


async def body(session: Session, fmt: Formatter):
    """A streaming HTTP body: the pump's items, and the session closed however the body ends."""
    try:
        async for item in pump(session, fmt):
            yield item
    finally:
        session.close()  # on disconnect this cancels the stream and frees its slot


def create_app(config: ServerConfig, state: ServerState) -> FastAPI:
    """One API worker's app; `state` holds its channel to the engine process."""
    worker_headers = {"X-Statespeak-Worker": str(os.getpid())}  # which worker served (ops, tests)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await state.start()
        try:
            yield
        finally:
            await state.shutdown()

    app = FastAPI(
        title="Statespeak model server", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None
    )
    app.state.server = state

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError):
        return exc.response(openai=request.url.path.startswith("/v1/"))

    @app.exception_handler(StarletteHTTPException)
    async def routing_error(request: Request, exc: StarletteHTTPException):
        """The router's refusals (no such route, a method the route does not take) in the error JSON of every
        other refusal: an OpenAI client reads `error.message`, a Cartesia one `message`."""
        path, headers = request.url.path, dict(exc.headers or {})
        if exc.status_code == 404:
            err = ApiError(404, "", f"no route {path} on this server", code="not_found")
        elif exc.status_code == 405:  # Starlette names the route's methods in the Allow header it sets
            message = f"{request.method} is not allowed on {path}; use {headers.get('Allow', '')}"
            err = ApiError(405, "", message, code="method_not_allowed", headers=headers)
        else:
            err = ApiError(exc.status_code, "", str(exc.detail), headers=headers)
        return err.response(openai=path.startswith("/v1/"))

    def authorize(request: Request) -> None:
        refused = origin_error(config, request.headers)
        if refused is not None:
            raise ApiError(403, "origin", refused, code="forbidden")
        if request.url.path in OPEN_PATHS:
            return
        message = auth_error(config, request.headers, request.query_params)
        if message is not None:
            raise ApiError(
                401, "api_key", message, code="unauthorized", headers={"WWW-Authenticate": "Bearer"}
            )

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
        return JSONResponse({"status": "ok", "phase": state.phase}, headers=worker_headers)

    @app.get(READY_PATH)
    async def ready():
        return readiness()

    if config.sagemaker_routes:  # off on the ECS route: SageMaker authenticates these, an ALB does not

        @app.get(PING_PATH)
        async def ping():
            return readiness()

    @app.get(METRICS_PATH)
    async def metrics():
        try:  # the engine process holds every counter: one scrape of any worker sees the whole task
            text = await state.engine.metrics_text()
        except (TimeoutError, ConnectionError) as exc:
            return JSONResponse({"error": f"engine metrics unavailable: {exc or 'timeout'}"}, status_code=503)
        return Response(text, media_type=PROMETHEUS_CONTENT_TYPE)

    @app.get("/voices")
    async def voices(request: Request):
        authorize(request)
        catalog = state.require_catalog()
        return {"voices": list(state.engine.catalog.voices), "openai_voices": catalog.openai_voices}

    async def open_one_shot(req, endpoint: str, t0: float) -> Session:
        """A whole-text request: the open, its text and its end go to the engine in one message."""
        session = state.open_session(req, endpoint, t0)
        try:
            session.stream.feed(req.transcript)
            session.stream.finish()
            await session.admitted()
        except BaseException:
            session.close("error", "open")  # whatever failed, the stream's slot and the drain count go back
            raise
        return session

    async def cartesia_bytes(request: Request, endpoint: str):
        t0 = time.perf_counter()
        data = await json_request(request)
        req = parse_cartesia(data, state.require_catalog(), config.max_transcript_chars)
        require_speech(req)
        session = await open_one_shot(req, endpoint, t0)
        headers = {"X-Request-Id": new_request_id(), "X-Stream-Id": str(session.stream.id), **worker_headers}
        return SessionResponse(
            session, body(session, RawAudio()), media_type=req.format.media_type, headers=headers
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
        session = await open_one_shot(req, "sse", t0)
        request_id = new_request_id()
        headers = {"X-Request-Id": request_id, "Cache-Control": "no-cache", "X-Accel-Buffering": "no",
                   **worker_headers}  # fmt: skip
        fmt = CartesiaSSE(req.context_id, request_id)
        return SessionResponse(session, body(session, fmt), media_type="text/event-stream", headers=headers)

    @app.post("/v1/audio/speech")
    async def openai_speech(request: Request):
        t0 = time.perf_counter()
        data = await json_request(request)
        req, stream_format = parse_openai(data, state.require_catalog(), config.max_transcript_chars)
        require_speech(req, "input", language_field=False)
        session = await open_one_shot(req, "openai", t0)
        headers = {"X-Request-Id": new_request_id(), **worker_headers}
        if stream_format == "sse":
            return SessionResponse(
                session, body(session, OpenAISSE()), media_type="text/event-stream", headers=headers
            )
        return SessionResponse(
            session, body(session, RawAudio()), media_type=req.format.media_type, headers=headers
        )

    @app.websocket("/tts/websocket")
    async def tts_websocket(websocket: WebSocket):
        refused = origin_error(config, websocket.headers)
        if refused is not None:
            err = ApiError(403, "origin", refused, code="forbidden")
            await websocket.send_denial_response(JSONResponse(err.cartesia_body(), status_code=403))
            return
        message = auth_error(config, websocket.headers, websocket.query_params)
        if message is not None:
            err = ApiError(401, "api_key", message, code="unauthorized")
            await websocket.send_denial_response(JSONResponse(err.cartesia_body(), status_code=401))
            return
        await serve_websocket(websocket, state)

    return app
