"""The stream scheduler: a fixed pool of per-stream state slots advanced by one engine thread.

Each admitted stream holds one slot of the runtime's state pool from admission until it finishes, fails
or is cancelled; at most `max_streams` exist, and admission beyond that is refused (never queued). The
engine thread owns the runtime: every tick it

1. admits streams opened since the last tick (one `reset_slots` call for all of them),
2. applies each stream's inbox (text, flush, finish, cancel) in arrival order,
3. feeds queued text to the planners in small pieces within a time budget (round-robin),
4. pops frames from every stream whose output buffer has room, groups the streams by chunk length and
   advances each group with ONE batched `runtime.step`. The planner phonemizes and encodes lazily (a
   sentence, then a window of phones) when a stream is short of frames; that prefill work is capped per
   tick (PREP_BUDGET_S, at least one stream always progresses, rotating), so a burst of new or long
   requests is spread over ticks instead of stalling the decode of streams already speaking.

Chunks start small (`first_chunk_frames`, for time to first audio) and double up to `max_chunk_frames`;
lengths are powers of two so a tick needs few distinct groups. A stream whose client does not read is
skipped (its buffer is full) instead of blocking the tick, and loses its slot after `stall_timeout_s`.
Model calls run on the engine thread; results reach the asyncio side via `call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

log = logging.getLogger("statespeak.scheduler")

_FEED, _FLUSH, _FINISH, _CANCEL = "feed", "flush", "finish", "cancel"
_LANGUAGE = "language"  # text fed after it is spoken in another language (from the next sentence on)
PIECE_CHARS = 48  # text handed to a planner at once; split at whitespace
PREFILL_BUDGET_S = 0.004  # text splitting per tick before decode runs (at least one piece always goes)
PREP_BUDGET_S = 0.025  # phonemize/encode time per tick for streams short of frames (at least one always goes)
IDLE_WAIT_S = 0.05


class AdmissionError(Exception):
    """No slot for a new stream. reason: 'full', 'draining' or 'loading'."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass
class StreamEvent:
    """What a stream's consumer receives. kind: audio, flush_done, done, error, cancelled."""

    kind: str
    audio: np.ndarray | None = None
    words: list[Any] = field(default_factory=list)
    flush_id: int = 0
    step_ms: float = 0.0
    message: str = ""
    stats: dict[str, float] = field(default_factory=dict)


def split_text(text: str, limit: int = PIECE_CHARS) -> list[str]:
    """Split at whitespace into pieces of about `limit` chars; concatenating them gives `text` back."""
    pieces: list[str] = []
    start = 0
    while len(text) - start > limit:
        cut = text.rfind(" ", start, start + limit)
        if cut <= start:
            cut = text.find(" ", start + limit)
            if cut < 0:
                break
        pieces.append(text[start : cut + 1])
        start = cut + 1
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def _pow2_floor(n: int) -> int:
    return 1 << (n.bit_length() - 1)


class Stream:
    """One synthesis stream. The loop side calls feed/flush/finish/cancel/consumed and iterates events();
    everything prefixed `_e_` belongs to the engine thread."""

    _ids = itertools.count(1)

    def __init__(
        self, engine: Engine, slot: int, voice: str, language: str, speed: float, loop, buffer_delay_s=None
    ) -> None:
        self.id = next(self._ids)
        self.engine = engine
        self.slot = slot
        self.voice, self.language, self.speed = voice, language, speed
        # Streaming text input: when no new text came for this long, speak what there is even if its
        # sentence has not ended (None: only flush/finish do that, as for one-shot HTTP requests).
        self.buffer_delay_s = buffer_delay_s
        self.created = time.perf_counter()
        self._loop = loop
        self._events: asyncio.Queue[StreamEvent] = asyncio.Queue()
        self._inbox: collections.deque[tuple[str, str]] = collections.deque()
        self._lock = threading.Lock()
        self._buffered = 0  # samples produced but not yet consumed by the client
        self._last_consumed = time.monotonic()
        self.closed = False  # loop side: no more input accepted after finish/cancel
        self.ended = False  # loop side: a terminal event was received
        self.flushes = 0
        # engine side
        self._e_planner: Any = None
        self._e_text: collections.deque[tuple[str, Any]] = collections.deque()
        self._e_waiting_flush = 0  # flush id whose frames are still being generated
        self._e_finishing = False
        self._e_flushes_done = 0
        self._e_unflushed = False  # text fed since the last flush/finish
        self._e_last_feed = 0.0
        self._e_chunks = 0
        self._e_frames = 0
        self._e_compute_s = 0.0

    # Loop side -----------------------------------------------------------------------------------
    def _send(self, op: str, arg: str = "") -> None:
        self._inbox.append((op, arg))
        self.engine.wake()

    def feed(self, text: str) -> None:
        if self.closed:
            raise RuntimeError("stream no longer accepts input")
        if text:
            self._send(_FEED, text)

    def set_language(self, language: str) -> None:
        """Speak the text fed after this in `language`, starting at a sentence boundary."""
        if self.closed:
            raise RuntimeError("stream no longer accepts input")
        self._send(_LANGUAGE, language)

    def flush(self) -> int:
        """Generate everything fed so far without waiting for lookahead; returns the flush id."""
        if self.closed:
            raise RuntimeError("stream no longer accepts input")
        self.flushes += 1
        self._send(_FLUSH, str(self.flushes))
        return self.flushes

    def finish(self) -> None:
        if not self.closed:
            self.closed = True
            self._send(_FINISH)

    def cancel(self) -> None:
        """Stop generation at the next tick and free the slot (idempotent; also used on disconnect)."""
        self.closed = True
        if not self.ended:
            self._send(_CANCEL)

    def consumed(self, samples: int) -> None:
        with self._lock:
            self._buffered -= samples
            self._last_consumed = time.monotonic()
        if samples:
            self.engine.wake()

    async def events(self):
        """Events until the terminal one (done, error or cancelled), which is yielded too."""
        while not self.ended:
            ev = await self._events.get()
            if ev.kind in ("done", "error", "cancelled"):
                self.ended = True
            yield ev

    # Engine side ---------------------------------------------------------------------------------
    def _e_push(self, ev: StreamEvent) -> None:
        if ev.audio is not None:
            with self._lock:
                self._buffered += len(ev.audio)
        try:
            self._loop.call_soon_threadsafe(self._events.put_nowait, ev)
        except RuntimeError:
            pass  # the event loop is closed (process shutting down): nobody is listening any more

    def _e_room(self, limit: int) -> bool:
        with self._lock:
            return self._buffered < limit

    def _e_stalled(self, limit: int, timeout_s: float) -> bool:
        with self._lock:
            return self._buffered >= limit and time.monotonic() - self._last_consumed > timeout_s

    def _e_stats(self) -> dict[str, float]:
        audio_s = self._e_frames * self.engine.hop / self.engine.sample_rate
        return {
            "audio_s": audio_s,
            "compute_s": self._e_compute_s,
            "rtf": self._e_compute_s / audio_s if audio_s > 0 else 0.0,
            "frames": float(self._e_frames),
        }


class Engine:
    def __init__(
        self,
        runtime: Any,
        max_streams: int,
        *,
        first_chunk_frames: int = 4,
        max_chunk_frames: int = 32,
        stream_buffer_s: float = 5.0,
        stall_timeout_s: float = 30.0,
        metrics: Any = None,
    ) -> None:
        self.rt = runtime
        self.max_streams = max_streams
        self.sample_rate = int(runtime.sample_rate)
        self.hop = int(runtime.hop)
        self.first_chunk = _pow2_floor(first_chunk_frames)
        self.max_chunk = max(self.first_chunk, _pow2_floor(max_chunk_frames))
        self.buffer_limit = int(stream_buffer_s * self.sample_rate)
        self.stall_timeout_s = stall_timeout_s
        self.metrics = metrics
        self.pool = runtime.new_pool(max_streams)
        self._lock = threading.Lock()
        self._free = list(range(max_streams - 1, -1, -1))
        self._joining: collections.deque[Stream] = collections.deque()
        self._active: dict[int, Stream] = {}  # engine thread only
        self._wake = threading.Event()
        self._running = False
        self._thread: threading.Thread | None = None
        self.draining = False
        self.accepting = False  # False until warm-up is done
        self._rr = 0
        if metrics is not None:
            metrics.bind_active(self.active_count)

    # Lifecycle -----------------------------------------------------------------------------------
    def start(self) -> None:
        self._running = True
        self._thread = threading.Thread(target=self._run, name="statespeak-engine", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._running = False
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def wake(self) -> None:
        self._wake.set()

    def active_count(self) -> int:
        with self._lock:
            return self.max_streams - len(self._free)

    # Admission (event loop thread) ------------------------------------------------------------------
    def open_stream(
        self,
        voice: str,
        language: str,
        speed: float,
        *,
        buffer_delay_s: float | None = None,
        internal: bool = False,
    ) -> Stream:
        """Take a slot or raise AdmissionError. Must be called from the event loop that consumes it."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if not internal and self.draining:
                raise AdmissionError("draining", "server is draining for shutdown; retry on another instance")
            if not internal and not self.accepting:
                raise AdmissionError("loading", "model is still loading")
            if not self._free:
                raise AdmissionError("full", f"all {self.max_streams} stream slots are busy")
            slot = self._free.pop()
            stream = Stream(self, slot, voice, language, speed, loop, buffer_delay_s)
            self._joining.append(stream)
        self._wake.set()
        return stream

    # Engine thread ---------------------------------------------------------------------------------
    def _release(self, stream: Stream) -> None:
        self._active.pop(stream.id, None)
        with self._lock:
            self._free.append(stream.slot)

    def _fail(self, stream: Stream, message: str) -> None:
        log.warning("stream failed", extra={"stream_id": stream.id, "error": message})
        self._release(stream)  # before the event: a consumer that sees the end may reuse the slot at once
        stream._e_push(StreamEvent("error", message=message, stats=stream._e_stats()))

    def _run(self) -> None:
        torch.set_grad_enabled(False)
        while self._running:
            try:
                busy = self.tick()
            except Exception:  # a bug here must not kill the engine silently: fail every stream, go on
                log.exception("engine tick failed")
                for stream in list(self._active.values()):
                    self._fail(stream, "internal error in the engine")
                busy = False
            if not busy:
                self._wake.wait(IDLE_WAIT_S)
                self._wake.clear()

    def _admit(self) -> None:
        joined: list[Stream] = []
        while self._joining:
            with self._lock:
                stream = self._joining.popleft()
            try:
                stream._e_planner = self.rt.new_planner(stream.voice, stream.language, stream.speed)
            except Exception as exc:  # e.g. a voice the model lacks: that stream fails, nobody else
                self._fail(stream, f"cannot start stream: {exc}")
                continue
            self._active[stream.id] = stream
            joined.append(stream)
        if joined:
            self.rt.reset_slots(self.pool, [s.slot for s in joined])

    def _apply_inbox(self, stream: Stream) -> bool:
        """Move loop-side ops into the engine-side text queue. False when the stream was cancelled."""
        while stream._inbox:
            op, arg = stream._inbox.popleft()
            if op == _CANCEL:
                self._release(stream)
                stream._e_push(StreamEvent("cancelled", stats=stream._e_stats()))
                return False
            if op == _FEED:
                stream._e_text.extend((_FEED, p) for p in split_text(arg))
            elif op == _FLUSH:
                stream._e_text.append((_FLUSH, int(arg)))
            elif op == _FINISH:
                stream._e_text.append((_FINISH, None))
            elif op == _LANGUAGE:
                stream._e_text.append((_LANGUAGE, arg))
        return True

    def _prefill(self, streams: list[Stream]) -> None:
        """Feed queued text round-robin, one piece per stream per round, within the tick's budget."""
        deadline = time.perf_counter() + PREFILL_BUDGET_S
        progressed = True
        while progressed:
            progressed = False
            for stream in streams:
                if stream.id not in self._active or not stream._e_text or stream._e_waiting_flush:
                    continue
                op, arg = stream._e_text.popleft()
                t0 = time.perf_counter()
                try:
                    if op == _FEED:
                        stream._e_planner.feed(arg)
                        stream._e_unflushed = True
                        stream._e_last_feed = time.monotonic()
                    elif op == _FLUSH:
                        stream._e_planner.flush()
                        stream._e_waiting_flush = arg  # later text waits until this flush is spoken
                        stream._e_unflushed = False
                    elif op == _LANGUAGE:
                        stream._e_planner.set_language(arg)
                    else:
                        stream._e_planner.finish()
                        stream._e_finishing = True
                        stream._e_unflushed = False
                except Exception as exc:
                    self._fail(stream, f"text processing failed: {exc}")
                    continue
                stream._e_compute_s += time.perf_counter() - t0
                progressed = True
                if time.perf_counter() > deadline:
                    return

    def _flush_stalled_text(self, streams: list[Stream]) -> None:
        """Text waiting for its sentence to end is spoken anyway once no new text came for the stream's
        buffer delay: an LLM that pauses mid-sentence (a tool call, a slow token) does not hold audio."""
        now = time.monotonic()
        for stream in streams:
            if (
                stream.buffer_delay_s is None
                or not stream._e_unflushed
                or stream._e_text
                or stream.id not in self._active
                or now - stream._e_last_feed < stream.buffer_delay_s
            ):
                continue
            try:
                stream._e_planner.flush()
            except Exception as exc:
                self._fail(stream, f"text processing failed: {exc}")
                continue
            stream._e_unflushed = False

    def _check_drained(self, stream: Stream) -> None:
        """flush_done once a flush's frames are all out; done once a finished stream has nothing left."""
        planner = stream._e_planner
        try:
            if planner.pending_frames > 0:
                return
        except Exception as exc:
            self._fail(stream, f"text processing failed: {exc}")
            return
        if stream._e_waiting_flush:
            stream._e_push(StreamEvent("flush_done", flush_id=stream._e_waiting_flush))
            stream._e_flushes_done = stream._e_waiting_flush
            stream._e_waiting_flush = 0
        if stream._e_finishing and not stream._e_text and planner.done:
            self._release(stream)
            stream._e_push(StreamEvent("done", stats=stream._e_stats()))

    def tick(self) -> bool:
        """One scheduling round. Returns True when a model step ran (more work is likely)."""
        self._admit()
        streams = list(self._active.values())
        if streams:  # rotate so no stream is always first for prefill time
            self._rr = (self._rr + 1) % len(streams)
            streams = streams[self._rr :] + streams[: self._rr]
        streams = [s for s in streams if self._apply_inbox(s)]
        self._prefill(streams)
        self._flush_stalled_text(streams)

        groups: dict[int, list[tuple[Stream, Any]]] = {}
        prep_deadline = time.perf_counter() + PREP_BUDGET_S
        prepared = deferred = False
        for stream in streams:
            if stream.id not in self._active:
                continue
            if not stream._e_room(self.buffer_limit):
                if stream._e_stalled(self.buffer_limit, self.stall_timeout_s):
                    self._fail(stream, f"client read nothing for {self.stall_timeout_s:.0f} s")
                continue
            planner = stream._e_planner
            want = min(self.first_chunk << min(stream._e_chunks, 16), self.max_chunk)
            if getattr(planner, "buffered_frames", 0) < want:
                # Frames must first be made from text (phonemize, encode a window). A burst of new
                # streams spreads that work over ticks instead of holding up everyone's next chunk.
                if prepared and time.perf_counter() > prep_deadline:
                    deferred = True
                    continue
                prepared = True
            t0 = time.perf_counter()
            try:
                pending = planner.pending_frames
                chunk = planner.pop_frames(_pow2_floor(min(want, pending))) if pending > 0 else None
            except Exception as exc:  # this stream's text broke the frontend: fail it alone
                self._fail(stream, f"text processing failed: {exc}")
                continue
            stream._e_compute_s += time.perf_counter() - t0
            got = 0 if chunk is None else int(chunk.cond.shape[0])
            if got == 0:
                self._check_drained(stream)
                continue
            groups.setdefault(got, []).append((stream, chunk))

        for length, items in groups.items():
            self._step(length, items)
        more_text = False
        for stream in streams:
            if stream.id in self._active:
                self._check_drained(stream)
                more_text |= bool(stream._e_text) and not stream._e_waiting_flush
        return bool(groups) or deferred or more_text or bool(self._joining)

    def _step(self, length: int, items: list[tuple[Stream, Any]]) -> None:
        slots = [s.slot for s, _ in items]
        cond = torch.stack([c.cond for _, c in items])
        t0 = time.perf_counter()
        try:
            audio = self.rt.step(self.pool, slots, cond)
        except Exception as exc:
            log.exception("model step failed", extra={"batch": len(items), "frames": length})
            for stream, _ in items:
                self._fail(stream, f"model step failed: {exc}")
            return
        elapsed = time.perf_counter() - t0
        audio = audio.detach().to("cpu", torch.float32).numpy()
        if self.metrics is not None:
            self.metrics.engine_steps.inc()
            self.metrics.engine_batch.observe(len(items))
        share = elapsed / len(items)  # each stream's part of the batched call, for its RTF
        for i, (stream, chunk) in enumerate(items):
            stream._e_chunks += 1
            stream._e_frames += length
            stream._e_compute_s += share
            stream._e_push(
                StreamEvent(
                    "audio",
                    audio=audio[i],
                    words=list(chunk.words or []),
                    flush_id=stream._e_flushes_done + 1,
                    step_ms=elapsed * 1000,
                )
            )
