"""A worker's state: lifecycle phase (from the engine's status and this worker's drain), the engine client,
in-flight sessions, and admission as the protocol handlers see it. No torch here: the model lives in the
engine process (model_server/engine)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import numpy as np

from model_server.api.errors import ApiError
from model_server.api.requests import SynthesisRequest, VoiceCatalog, openai_voice_table
from model_server.audio import StreamEncoder
from model_server.config import ServerConfig
from model_server.engine.client import EngineClient, RemoteStream
from model_server.engine.protocol import DRAINING_MESSAGE, AdmissionError
from model_server.frontend.languages import api_languages

log = logging.getLogger("statespeak.server")


class ServerState:
    """phase: loading -> ready -> draining (or failed). Only the event loop thread mutates it."""

    def __init__(self, config: ServerConfig, engine: EngineClient) -> None:
        self.config = config
        self.engine = engine
        self.draining = False
        self.catalog: VoiceCatalog | None = None  # the API's view of the engine's catalog (engine.catalog)
        self.sessions = 0  # streams whose response is still being sent (slot may already be free)
        self.on_fatal: Callable[[str], None] = lambda reason: None
        self.connections: set = set()  # open WebSocket connections (api.websocket.Connection)
        self._idle = asyncio.Event()
        self._idle.set()
        engine.on_status = self._engine_status

    @property
    def phase(self) -> str:
        if self.engine.lost:
            return "failed"
        if self.draining:
            return "draining"
        if self.engine.phase == "ready" and not self.engine.warm:
            return "loading"  # ready once this worker's text frontends are warm too
        return self.engine.phase

    @property
    def ready(self) -> bool:
        return self.phase == "ready"

    @property
    def not_ready_reason(self) -> str:
        return self.engine.reason

    def _engine_status(self) -> None:
        catalog = self.engine.catalog
        if catalog is not None and self.catalog is None:
            voice_languages = {v["id"]: v["language"] for v in catalog.voices}
            self.catalog = VoiceCatalog(
                voice_languages,
                api_languages(catalog.languages),  # the model's languages the frontend covers
                openai_voice_table(voice_languages, self.config.openai_voices),
            )
        if self.engine.lost:
            self.on_fatal(f"engine lost: {self.engine.reason}")

    # Lifecycle -------------------------------------------------------------------------------------
    async def start(self) -> None:
        await self.engine.start()

    def begin_drain(self) -> None:
        if self.draining:
            return
        log.info("draining", extra={"active_streams": self.engine.active, "sessions": self.sessions})
        self.draining = True
        self.engine.drain()  # the engine refuses new streams from every worker from now on

    async def wait_drained(self, timeout_s: float) -> bool:
        """True when every in-flight stream of this worker finished within the bound."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout_s)
            return True
        except TimeoutError:
            return False

    async def end_open_contexts(self) -> None:
        """The drain ran out of time: every open WebSocket context gets its terminal error before exit."""
        err = ApiError(
            503, "", "the server is shutting down and its drain timed out: this context ended early",
            code="server_draining",
        )  # fmt: skip
        await asyncio.gather(
            *(conn.end_contexts(err) for conn in list(self.connections)), return_exceptions=True
        )

    async def shutdown(self) -> None:
        await self.engine.close()

    # Admission -------------------------------------------------------------------------------------
    def require_catalog(self) -> VoiceCatalog:
        if self.catalog is None or self.phase in ("loading", "failed"):
            raise ApiError(
                503, "", f"server is not ready ({self.phase})", code="not_ready",
                headers={"Retry-After": str(self.config.retry_after_s)},
            )  # fmt: skip
        return self.catalog

    def _refusal(self, reason: str, message: str, endpoint: str) -> ApiError:
        log.info("stream rejected", extra={"reason": reason, "endpoint": endpoint})
        return ApiError(503, "", message, code=f"server_{reason}",
                        headers={"Retry-After": str(self.config.retry_after_s)})  # fmt: skip

    def open_session(
        self, req: SynthesisRequest, endpoint: str, t0: float, buffer_delay_s: float | None = None
    ) -> Session:
        """Queue a stream's opening; ops given to its stream now travel with it. `await session.admitted()`
        then raises a 503 ApiError when the engine had no slot (full / draining). Never queues."""
        self.require_catalog()
        if self.draining:
            self.engine.stream_rejected("draining")
            raise self._refusal("draining", DRAINING_MESSAGE, endpoint)
        stream = self.engine.open_stream(req.voice, req.language, req.speed, buffer_delay_s)
        return Session(self, stream, req, endpoint, t0)


class Session:
    """One admitted stream as seen by its protocol handler: encoding, TTFB, metrics and logs."""

    def __init__(
        self, state: ServerState, stream: RemoteStream, req: SynthesisRequest, endpoint: str, t0: float
    ) -> None:
        self.state = state
        self.stream = stream
        self.req = req
        self.endpoint = endpoint
        self.t0 = t0
        self.encoder = StreamEncoder(
            req.format, state.engine.catalog.sample_rate, state.config.resample_quality
        )
        self.ttfb_ms: float | None = None
        self.outcome = "cancelled"
        self.error_kind = ""
        self.stats: dict[str, float] = {}
        self.closed = False
        self.chars = len(req.transcript)  # WebSocket continuations add theirs
        state.sessions += 1
        state._idle.clear()

    async def admitted(self) -> None:
        """Wait for the engine's answer; a refusal becomes a 503 (+ Retry-After) and ends the session."""
        try:
            await self.stream.admitted()
        except AdmissionError as exc:
            self._end()
            raise self.state._refusal(exc.reason, str(exc), self.endpoint) from None

    def encode(self, audio: np.ndarray) -> bytes:
        """Encode one engine chunk, release its buffer space, and note the first audio for TTFB."""
        self.stream.consumed(len(audio))
        if audio.dtype == np.int16:  # the engine's int16 (exact again when encoded as pcm_s16le)
            audio = audio.astype(np.float32) * np.float32(1.0 / 32767.0)
        if self.req.volume != 1.0:
            audio = audio * np.float32(self.req.volume)
        data = self.encoder.encode(audio)
        if self.ttfb_ms is None and self.encoder.samples_out > 0:
            self.ttfb_ms = (time.perf_counter() - self.t0) * 1000
        return data

    def finish_audio(self) -> bytes:
        data = self.encoder.finish()
        if self.ttfb_ms is None and self.encoder.samples_out > 0:
            self.ttfb_ms = (time.perf_counter() - self.t0) * 1000
        return data

    def summary(self) -> dict[str, float | None]:
        """Server-side numbers returned to the client in the final SSE/WebSocket message."""
        rtf = self.stats.get("rtf")
        return {
            "ttfb_ms": None if self.ttfb_ms is None else round(self.ttfb_ms, 2),
            "rtf": None if rtf is None else round(rtf, 4),
            "audio_s": round(self.encoder.samples_out / self.req.format.sample_rate, 4),
            "total_ms": round((time.perf_counter() - self.t0) * 1000, 2),
        }

    def _end(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.state.sessions -= 1
        if self.state.sessions == 0:
            self.state._idle.set()

    def close(self, outcome: str | None = None, error_kind: str = "") -> None:
        if self.closed:
            return
        if outcome is not None:
            self.outcome = outcome
        self.error_kind = error_kind or self.error_kind
        self.stream.cancel()  # no-op when the engine already ended it; frees the slot on disconnect
        audio_s = self.encoder.samples_out / self.req.format.sample_rate
        rtf = self.stats.get("rtf") if audio_s > 0 else None
        self.state.engine.stream_finished(self.outcome, self.ttfb_ms, rtf, audio_s, self.error_kind)
        log.info(
            "stream finished",
            extra={
                "endpoint": self.endpoint,
                "stream_id": self.stream.id,
                "outcome": self.outcome,
                "error_kind": self.error_kind or None,
                "ttfb_ms": None if self.ttfb_ms is None else round(self.ttfb_ms, 2),
                "rtf": None if rtf is None else round(rtf, 4),
                "audio_s": round(audio_s, 3),
                "chars": self.chars,
            },
        )
        self._end()
