"""Process-wide server state: lifecycle phase, the runtime and engine, in-flight sessions, admission."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from model_server.api.errors import ApiError
from model_server.api.requests import SynthesisRequest, VoiceCatalog, openai_voice_table
from model_server.audio import StreamEncoder
from model_server.config import ServerConfig
from model_server.metrics import ServerMetrics
from model_server.scheduler import AdmissionError, Engine, Stream

log = logging.getLogger("statespeak.server")

WARMUP_TEXT = "Warming up the speech engine, one two three."


def default_runtime_factory(model_dir, device: str):
    # Imported here: the model stack pulls in torch and the frontend, which the CDK side never needs.
    from model_server.model.runtime import SpeechRuntime

    return SpeechRuntime.load(model_dir, device=device)


def resolve_device(device: str) -> str:
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def cuda_problem() -> tuple[str, str] | None:
    """(reason, detail) when a server asked for cuda cannot serve from the GPU's kernels, else None."""
    import torch

    if not torch.cuda.is_available():
        return "cuda_unavailable", (
            f"torch {torch.__version__} sees no CUDA device (built for CUDA {torch.version.cuda})"
        )
    from model_server.ssm import cuda as kernels

    deliberate = os.environ.get(kernels.DISABLE_ENV) == "1"  # the documented torch-path switch
    if not kernels.available() and not deliberate:
        return "kernels_unavailable", kernels.unavailable_reason()
    return None


class ServerState:
    """phase: loading -> ready -> draining (or failed). Only the event loop thread mutates it."""

    def __init__(self, config: ServerConfig, runtime_factory: Callable | None = None) -> None:
        self.config = config
        self.runtime_factory = runtime_factory or default_runtime_factory
        self.metrics = ServerMetrics(config.deployment, config.max_streams)
        self.phase = "loading"
        self.runtime: Any = None
        self.engine: Engine | None = None
        self.catalog: VoiceCatalog | None = None
        self.voice_list: list[dict] = []
        self.sessions = 0  # streams whose response is still being sent (slot may already be free)
        self.not_ready_reason = ""  # why a server that stays up will not turn ready (readiness body)
        self.on_fatal: Callable[[str], None] = lambda reason: None
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def ready(self) -> bool:
        return self.phase == "ready"

    @property
    def model_rate(self) -> int:
        return int(self.runtime.sample_rate)

    # Lifecycle -------------------------------------------------------------------------------------
    async def load(self) -> None:
        cfg = self.config
        if cfg.device.startswith("cuda"):
            problem = await asyncio.to_thread(cuda_problem)
            if problem is not None:
                self._refuse_readiness(*problem)
                return
        try:
            device = resolve_device(cfg.device)
            log.info("loading model", extra={"model_dir": str(cfg.model_dir), "device": device})
            t0 = time.perf_counter()
            self.runtime = await asyncio.to_thread(self.runtime_factory, cfg.model_dir, device)
            if device.startswith("cuda"):
                self._note_kernel_fallback()
            warmup = getattr(self.runtime, "warmup", None)
            if cfg.warmup and warmup is not None:
                await self._warmup_runtime(warmup, device)
            voices = dict(self.runtime.voices)
            if not voices:
                raise ValueError(f"model in {cfg.model_dir} has no voices")
            languages = {v.language for v in voices.values()} | set(
                getattr(self.runtime, "languages", ()) or ()
            )
            voice_languages = {vid: v.language for vid, v in voices.items()}
            self.catalog = VoiceCatalog(
                voice_languages,
                frozenset(languages),
                openai_voice_table(voice_languages, cfg.openai_voices),
            )
            self.voice_list = [
                {
                    "id": v.id,
                    "name": v.name,
                    "language": v.language,
                    "gender": v.gender,
                    "description": v.description,
                }
                for v in voices.values()
            ]
            self.engine = Engine(
                self.runtime,
                cfg.max_streams,
                first_chunk_frames=cfg.first_chunk_frames,
                max_chunk_frames=cfg.max_chunk_frames,
                stream_buffer_s=cfg.stream_buffer_s,
                stall_timeout_s=cfg.stall_timeout_s,
                metrics=self.metrics,
            )
            self.engine.start()
            if cfg.warmup:
                await self._warmup(next(iter(voices)))
            load_s = time.perf_counter() - t0
        except Exception as exc:
            log.exception("model load failed", extra={"model_dir": str(cfg.model_dir)})
            self.phase = "failed"
            self.on_fatal(f"model load failed: {exc}")
            return
        if self.phase == "loading":  # a SIGTERM during loading already moved us to draining
            self.engine.accepting = True
            self.phase = "ready"
            self.metrics.ready.set(1)
        log.info(
            "ready", extra={"load_s": round(load_s, 3), "voices": len(voices), "max_streams": cfg.max_streams}
        )

    def _refuse_readiness(self, reason: str, detail: str) -> None:
        """Stay up (liveness 200, metrics served) but never ready: a GPU route must not serve from the CPU
        or the torch fallback. The load balancer / SageMaker then replace the instance."""
        self.phase = "failed"
        self.not_ready_reason = f"{reason}: {detail}"
        self.metrics.device_unavailable(reason)
        log.error(
            "not becoming ready: STATESPEAK_DEVICE asks for cuda",
            extra={"reason": reason, "detail": detail, "device": self.config.device},
        )

    def _note_kernel_fallback(self) -> None:
        """`auto` on a CUDA host without the kernels serves from the torch path: say so loudly."""
        from model_server.ssm import cuda as kernels

        if not kernels.available():
            log.warning(
                "mamba-ssm kernels unavailable: the torch path serves (set STATESPEAK_DEVICE=cuda to refuse)",
                extra={"reason": kernels.unavailable_reason()},
            )

    async def _warmup_runtime(self, warmup: Callable, device: str) -> None:
        """Every batch bucket and chunk length once, before readiness: CUDA graphs captured and Triton's
        kernels compiled and autotuned here rather than under the first streams."""
        from model_server.ssm import cuda as kernels

        t0 = time.perf_counter()
        info = await asyncio.to_thread(warmup, self.config.max_streams, self.config.max_chunk_frames)
        on_cuda = device.startswith("cuda")
        log.info(
            "runtime warmed up",
            extra={
                "warmup_s": round(time.perf_counter() - t0, 3),
                "device": device,
                "kernel_path": kernels.kernel_path() if on_cuda else "cpu",
                "kernels_unavailable": (kernels.unavailable_reason() or None) if on_cuda else None,
                **(info or {}),
            },
        )

    async def _warmup(self, voice: str) -> None:
        """One stream through the whole path (planner, every chunk size, vocoder) before readiness."""
        stream = self.engine.open_stream(voice, self.catalog.voices[voice], 1.0, internal=True)
        stream.feed(WARMUP_TEXT)
        stream.finish()
        async for ev in stream.events():
            if ev.audio is not None:
                stream.consumed(len(ev.audio))
            if ev.kind == "error":
                raise RuntimeError(f"warm-up stream failed: {ev.message}")

    def begin_drain(self) -> None:
        if self.phase == "draining":
            return
        log.info("draining", extra={"active_streams": self.active_streams(), "sessions": self.sessions})
        self.phase = "draining"
        self.metrics.ready.set(0)
        if self.engine is not None:
            self.engine.draining = True

    async def wait_drained(self, timeout_s: float) -> bool:
        """True when every in-flight stream finished within the bound."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout_s)
            return True
        except TimeoutError:
            return False

    def active_streams(self) -> int:
        return self.engine.active_count() if self.engine is not None else 0

    def shutdown(self) -> None:
        if self.engine is not None:
            self.engine.stop()

    # Admission -------------------------------------------------------------------------------------
    def require_catalog(self) -> VoiceCatalog:
        if self.catalog is None or self.phase in ("loading", "failed"):
            raise ApiError(
                503, "", f"server is not ready ({self.phase})", code="not_ready",
                headers={"Retry-After": str(self.config.retry_after_s)},
            )  # fmt: skip
        return self.catalog

    def open_session(
        self, req: SynthesisRequest, endpoint: str, t0: float, buffer_delay_s: float | None = None
    ) -> Session:
        """Take a stream slot or raise a 503 ApiError (full / draining). Never queues."""
        if self.engine is None:
            self.require_catalog()
        try:
            stream = self.engine.open_stream(
                req.voice, req.language, req.speed, buffer_delay_s=buffer_delay_s
            )
        except AdmissionError as exc:
            self.metrics.stream_rejected(exc.reason)
            log.info("stream rejected", extra={"reason": exc.reason, "endpoint": endpoint})
            raise ApiError(
                503,
                "",
                str(exc),
                code=f"server_{exc.reason}",
                headers={"Retry-After": str(self.config.retry_after_s)},
            ) from None
        return Session(self, stream, req, endpoint, t0)


class Session:
    """One admitted stream as seen by its protocol handler: encoding, TTFB, metrics and logs."""

    def __init__(
        self, state: ServerState, stream: Stream, req: SynthesisRequest, endpoint: str, t0: float
    ) -> None:
        self.state = state
        self.stream = stream
        self.req = req
        self.endpoint = endpoint
        self.t0 = t0
        self.encoder = StreamEncoder(req.format, state.model_rate, state.config.resample_quality)
        self.ttfb_ms: float | None = None
        self.outcome = "cancelled"
        self.error_kind = ""
        self.stats: dict[str, float] = {}
        self.closed = False
        self.chars = len(req.transcript)  # WebSocket continuations add theirs
        state.sessions += 1
        state._idle.clear()

    def encode(self, audio: np.ndarray) -> bytes:
        """Encode one engine chunk, release its buffer space, and note the first audio for TTFB."""
        self.stream.consumed(len(audio))
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

    def close(self, outcome: str | None = None, error_kind: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        if outcome is not None:
            self.outcome = outcome
        self.error_kind = error_kind or self.error_kind
        self.stream.cancel()  # no-op when the engine already ended it; frees the slot on disconnect
        audio_s = self.encoder.samples_out / self.req.format.sample_rate
        rtf = self.stats.get("rtf") if audio_s > 0 else None
        self.state.metrics.stream_finished(
            outcome=self.outcome, ttfb_ms=self.ttfb_ms, rtf=rtf, audio_s=audio_s, error_kind=self.error_kind
        )
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
        self.state.sessions -= 1
        if self.state.sessions == 0:
            self.state._idle.set()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def word_timestamps(words) -> dict:
    """Cartesia's word_timestamps shape from the runtime's WordSpan(text, start_s, end_s) list."""
    return {
        "words": [w.text for w in words],
        "start": [round(float(w.start_s), 4) for w in words],
        "end": [round(float(w.end_s), 4) for w in words],
    }
