"""The engine process: owns the runtime (and the GPU), the slot pool, admission and the metrics.

Its loop, on one thread: read every message the workers sent since the last round (ops are applied in
arrival order), run one scheduler tick (one batched model step per chunk length for all streams of all
workers), then send each worker ONE message with its admission answers and every event of its streams.
The model loads on a side thread meanwhile, so probes, metrics and early opens ("loading") are answered
during a long load or warm-up.

The engine is the one place that counts: admitted streams (exact across workers), rejections, errors,
time to first audio (workers report each finished stream), the Prometheus registry and the EMF lines.

With several engine processes (STATESPEAK_ENGINES) each owns a share of MAX_STREAMS (`engine_slots`) and
its own slot pool on the same device; each writes its active count into a shared array (`loads`) once per
loop, which the workers read to open a stream on the least-loaded engine and which engine 0 sums for the
task's ActiveStreams EMF line (the other engines leave that value out).
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import zmq

from model_server.config import ServerConfig
from model_server.engine import protocol as p
from model_server.metrics import ServerMetrics
from model_server.threads import configure_torch_threads

log = logging.getLogger("statespeak.engine")

WARMUP_TEXT = "Warming up the speech engine, one two three."
IDLE_POLL_MS = 50  # how long an idle engine waits for a message (stall checks run then)


def default_runtime_factory(model_dir, device: str, vocoder_choice: str = "auto"):
    from model_server.model.runtime import SpeechRuntime

    return SpeechRuntime.load(model_dir, device=device, vocoder_choice=vocoder_choice)


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


class EngineServer:
    """phase: loading -> ready -> draining, or failed (stays up, never ready: a cuda route without CUDA)."""

    def __init__(
        self,
        config: ServerConfig,
        endpoint: str,
        runtime_factory: Callable | None = None,
        *,
        index: int = 0,
        loads: Sequence[int] | None = None,
    ) -> None:
        """config.max_streams is this engine's share; `index` and `loads` (a shared array, one active count
        per engine) when several engine processes serve the task."""
        self.config = config
        self.endpoint = endpoint
        self.index = index
        self.loads = loads
        self.runtime_factory = runtime_factory or functools.partial(
            default_runtime_factory, vocoder_choice=config.vocoder
        )
        self.metrics = ServerMetrics(config.deployment, config.max_streams, kit=config.kit)
        self.metrics.bind_active(self._active)
        if loads is not None and len(loads) > 1:
            self.metrics.bind_task_active((lambda: sum(loads)) if index == 0 else None)
        self.phase = "loading"
        self.reason = ""
        self.catalog: p.Catalog | None = None
        self.engine: Any = None
        self.exit_code = 0
        self._load_s = 0.0  # how long the load took (logged at readiness)
        self._loaded: tuple[Any, p.Catalog] | None = None  # handed over by the load thread
        self._fatal = ""
        self._stop = threading.Event()
        self._workers: set[bytes] = set()
        self._streams: dict[tuple[bytes, int], Any] = {}
        self._out: defaultdict[bytes, list] = defaultdict(list)
        self._status_sent: tuple | None = None

    # Loading (side thread) --------------------------------------------------------------------------------
    def load(self) -> None:
        cfg = self.config
        try:
            if cfg.device.startswith("cuda"):
                problem = cuda_problem()
                if problem is not None:
                    self._refuse_readiness(*problem)
                    return
            device = resolve_device(cfg.device)
            threads = configure_torch_threads(cfg).intra_op
            chunk_frames = cfg.chunk_frames_on(device)
            log.info("loading model", extra={"model_dir": str(cfg.model_dir), "device": device, "engine": self.index,
                                             "torch_threads": threads, "max_chunk_frames": chunk_frames})  # fmt: skip
            t0 = time.perf_counter()
            runtime = self.runtime_factory(cfg.model_dir, device)
            log.info("vocoder", extra={"vocoder": getattr(runtime, "vocoder_name", "harmonic"),
                                       "sample_rate": int(runtime.sample_rate)})  # fmt: skip
            if device.startswith("cuda"):
                self._note_kernel_fallback()
            warmup = getattr(runtime, "warmup", None)
            if cfg.warmup and warmup is not None:
                self._warmup_runtime(warmup, device, chunk_frames)
            voices = dict(runtime.voices)
            if not voices:
                raise ValueError(f"model in {cfg.model_dir} has no voices")
            languages = {v.language for v in voices.values()} | set(getattr(runtime, "languages", ()) or ())
            from model_server.model.measured import voice_support

            supported = voice_support(cfg.model_dir, voices)  # measured beside the weights (evaluation.json)
            catalog = p.Catalog(
                [{"id": v.id, "name": v.name, "language": v.language, "gender": v.gender,
                  "description": v.description, "teacher": v.teacher, "supported": supported[v.id]}
                 for v in voices.values()],
                frozenset(languages),
                int(runtime.sample_rate),
                list(runtime.catalog.symbols),
                runtime.catalog.length_marks,
            )  # fmt: skip
            from model_server.scheduler import Engine

            engine = Engine(
                runtime,
                cfg.max_streams,
                first_chunk_frames=cfg.first_chunk_frames,
                max_chunk_frames=chunk_frames,
                stream_buffer_s=cfg.stream_buffer_s,
                stall_timeout_s=cfg.stall_timeout_s,
                metrics=self.metrics,
                emit=self._emit,
            )
            if cfg.warmup:
                self._warmup_stream(engine, next(iter(voices)))
            self._load_s = time.perf_counter() - t0
            self._loaded = (engine, catalog)
        except Exception as exc:
            log.exception("model load failed", extra={"model_dir": str(cfg.model_dir)})
            self._fatal = f"model load failed: {exc}"

    def _refuse_readiness(self, reason: str, detail: str) -> None:
        """Stay up (liveness 200, metrics served) but never ready: a GPU route must not serve from the CPU
        or the torch fallback. The load balancer / SageMaker then replace the instance."""
        self.phase = "failed"
        self.reason = f"{reason}: {detail}"
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

    def _warmup_runtime(self, warmup: Callable, device: str, chunk_frames: int) -> None:
        """Every batch bucket and chunk length once, before readiness: CUDA graphs captured and Triton's
        kernels compiled and autotuned here rather than under the first streams."""
        from model_server.ssm import cuda as kernels

        t0 = time.perf_counter()
        info = warmup(self.config.max_streams, chunk_frames)
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

    @staticmethod
    def _warmup_stream(engine, voice: str) -> None:
        """One stream through the whole path (planner, every chunk size, vocoder) before readiness, fed
        as a worker feeds it: sentences split and phonemized by the workers' torch-free text module."""
        from model_server.model.text import split_sentences

        ended: list[p.StreamEvent] = []

        def consume(stream, ev: p.StreamEvent) -> None:
            if ev.kind in p.TERMINAL:
                ended.append(ev)
            elif ev.audio is not None:
                stream.consumed(len(ev.audio))

        engine.emit = consume
        language = engine.rt.voices[voice].language
        stream = engine.open_stream(None, voice, language, 1.0, internal=True)
        text = engine.rt.catalog.text
        for sentence in split_sentences(WARMUP_TEXT, final=True)[0]:
            stream.sentence(*text.sentence(sentence, language))
        stream.finish()
        while not ended:
            engine.tick()
        if ended[0].kind != "done":
            raise RuntimeError(f"warm-up stream failed: {ended[0].message}")

    # Events out ---------------------------------------------------------------------------------------------
    def _emit(self, stream, ev: p.StreamEvent) -> None:
        owner, sid = stream.key
        out = self._out[owner]
        if ev.kind == "audio":
            out.append((p.AUDIO, sid, ev.audio, ev.words, ev.flush_id, ev.step_ms))
        elif ev.kind == "flush_done":
            out.append((p.FLUSH_DONE, sid, ev.flush_id))
        else:
            out.append((ev.kind, sid, ev.message, ev.stats))
            self._streams.pop(stream.key, None)

    def _active(self) -> int:
        return self.engine.active_count() if self.engine is not None else 0

    def _status(self) -> tuple:
        return (p.STATUS, self.phase, self.reason, self.catalog, self._active())

    # Ops in ------------------------------------------------------------------------------------------------
    def handle(self, sender: bytes, items: list[tuple]) -> None:
        if sender == p.SUPERVISOR_ID:
            for item in items:
                self._supervise(item)
            return
        if sender not in self._workers:
            self._workers.add(sender)
            self._out[sender].append(self._status())
        for item in items:
            op, rest = item[0], item[1:]
            if op in (p.SENTENCE, p.TEXT_ERROR, p.FLUSH, p.FINISH, p.CANCEL, p.CONSUMED):
                stream = self._streams.get((sender, rest[0]))
                if stream is None:
                    continue  # refused, or ended while this op was on its way
                if op == p.SENTENCE:
                    stream.sentence(rest[1], rest[2])
                elif op == p.TEXT_ERROR:
                    stream.text_error(rest[1])
                elif op == p.FLUSH:
                    stream.flush()
                elif op == p.FINISH:
                    stream.finish()
                elif op == p.CANCEL:
                    stream.cancel()
                else:
                    stream.consumed(rest[1])
            elif op == p.OPEN:
                self._open(sender, *rest)
            elif op == p.FINISHED:
                outcome, ttfb_ms, rtf, audio_s, error_kind = rest
                self.metrics.stream_finished(
                    outcome=outcome, ttfb_ms=ttfb_ms, rtf=rtf, audio_s=audio_s, error_kind=error_kind
                )
            elif op == p.REJECTED:
                self.metrics.stream_rejected(rest[0])
            elif op == p.METRICS:
                self._out[sender].append((p.METRICS, rest[0], self.metrics.prometheus_text()))
            elif op == p.DRAIN:
                self._drain()
            elif op == p.HELLO:
                self._out[sender].append(self._status())

    def _open(self, sender: bytes, sid: int, voice: str, language: str, speed: float) -> None:
        if self.engine is None:
            draining = self.phase == "draining"
            reason, message = ("draining", p.DRAINING_MESSAGE) if draining else ("loading", p.LOADING_MESSAGE)
            self._refuse(sender, sid, reason, message)
            return
        try:
            stream = self.engine.open_stream((sender, sid), voice, language, speed)
        except p.AdmissionError as exc:
            self._refuse(sender, sid, exc.reason, str(exc))
            return
        self._streams[(sender, sid)] = stream
        self._out[sender].append((p.ADMITTED, sid))

    def _refuse(self, sender: bytes, sid: int, reason: str, message: str) -> None:
        self.metrics.stream_rejected(reason)
        self._out[sender].append((p.REFUSED, sid, reason, message))

    def _supervise(self, item: tuple) -> None:
        if item[0] == p.DRAIN:
            self._drain()
        elif item[0] == p.STOP:
            self._stop.set()
        elif item[0] == p.WORKER_GONE:
            gone = item[1]
            self._workers.discard(gone)
            self._out.pop(gone, None)
            for key, stream in list(self._streams.items()):
                if key[0] == gone:
                    stream.cancel()  # its slot frees at the next tick; the event goes nowhere
            log.warning("worker gone: its streams are cancelled", extra={"worker": gone.decode()})

    def _drain(self) -> None:
        if self.phase == "draining":
            return
        active = self.engine.active_count() if self.engine is not None else 0
        log.info("engine draining", extra={"active_streams": active})
        if self.phase != "failed":
            self.phase = "draining"
        self.metrics.ready.set(0)
        if self.engine is not None:
            self.engine.draining = True

    # Loop ---------------------------------------------------------------------------------------------------
    def _take_loaded(self) -> None:
        if self._loaded is None:
            return
        self.engine, self.catalog = self._loaded
        self._loaded = None
        self.engine.emit = self._emit
        self.engine.accepting = True
        if self.phase == "loading":
            self.phase = "ready"
            self.metrics.ready.set(1)
        else:  # a drain came during loading
            self.engine.draining = True
        log.info("ready", extra={"load_s": round(self._load_s, 3), "voices": len(self.catalog.voices),
                                 "max_streams": self.config.max_streams, "engine": self.index})  # fmt: skip

    def _send_all(self, sock: zmq.Socket) -> None:
        status = (self.phase, self.reason, self.catalog is not None)
        if status != self._status_sent:
            self._status_sent = status
            for worker in self._workers:
                self._out[worker].append(self._status())
        for worker, items in self._out.items():
            if items and worker in self._workers:
                sock.send_multipart([worker, p.pack(items)])
        self._out.clear()

    def stop(self) -> None:
        self._stop.set()

    def run(self) -> int:
        """Serve until STOP (or a fatal load error: exit code 1)."""
        ctx = zmq.Context.instance()
        sock = ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, 1000)
        sock.bind(self.endpoint)
        loader = threading.Thread(target=self.load, name="statespeak-load", daemon=True)
        loader.start()
        next_emf = time.monotonic() + self.config.emf_interval_s
        busy = False
        try:
            while not self._stop.is_set():
                if sock.poll(0 if busy else IDLE_POLL_MS):
                    io_start = time.perf_counter()  # after the wait: what reading and handling cost
                    while True:
                        try:
                            sender, data = sock.recv_multipart(zmq.NOBLOCK)
                        except zmq.Again:
                            break
                        try:
                            self.handle(sender, p.unpack(data))
                        except Exception:  # a bad message must not take the engine down
                            log.exception(
                                "engine message failed", extra={"sender": sender.decode(errors="replace")}
                            )
                    if self.engine is not None:  # the engine's cost model counts it per chunk served
                        self.engine.io_time(time.perf_counter() - io_start)
                if self._fatal:
                    self.exit_code = 1
                    break
                self._take_loaded()
                busy = False
                if self.engine is not None:
                    try:
                        busy = self.engine.tick()
                    except Exception:
                        log.exception("engine tick failed")
                        self.engine.fail_all("internal error in the engine")
                if self.loads is not None:  # before the answers go out: a worker that reads ADMITTED sees it
                    self.loads[self.index] = self._active()
                sent = time.perf_counter()
                self._send_all(sock)
                if self.engine is not None:
                    self.engine.io_time(time.perf_counter() - sent, phase="send")
                if time.monotonic() >= next_emf:
                    next_emf = time.monotonic() + self.config.emf_interval_s
                    self.metrics.emit_periodic()
        finally:
            self.metrics.emit_periodic()
            sock.close()
        return self.exit_code


def engine_main(
    config: ServerConfig, endpoint: str, index: int = 0, loads: Sequence[int] | None = None
) -> None:
    """Entry point of an engine process (multiprocessing target); see EngineServer for index and loads."""
    import sys

    from model_server.api.logs import setup_logging
    from model_server.engine.supervisor import detach_from_terminal

    detach_from_terminal()
    setup_logging(config.log_level)
    import torch

    torch.set_grad_enabled(False)
    sys.exit(EngineServer(config, endpoint, index=index, loads=loads).run())
