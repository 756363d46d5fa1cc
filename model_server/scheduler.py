"""The stream scheduler: a fixed pool of per-stream state slots, advanced one batched step per tick.

It runs in the engine process, on one thread, and knows nothing of sockets or event loops: the engine
process (`model_server.engine.process`) hands it each worker's ops and ships what it emits. Its parts:

- `SlotAllocator`: the slot pool's free list. At most `max_streams` streams hold a slot; admission beyond
  that is refused (never queued), so the count is exact however many workers feed this engine.
- `Stream`: one stream's ops in arrival order (sentences the API worker already split and phonemized,
  flushes, finish, cancel), its planner (phonemized sentences -> frame conditioning) and its output
  accounting (samples its client has not consumed yet).
- `ChunkPolicy`: chunks start small (`first_chunk_frames`, for time to first audio) and double up to
  `max_chunk_frames`; lengths are powers of two so a tick needs few distinct groups.
- `TickCost` (`engine/cost.py`): what a tick costs, measured as it runs: a step's fixed cost, its cost
  per stream and per stream-frame, and everything else per chunk served. The step budget, the
  lead-bounded chunk sizes, the fit of a tick into the streams' leads and the merging of chunk lengths
  all read it.
- `Engine.tick`: admits new streams (one `reset_slots` for all), applies inboxes, hands each stream's
  sentences to its planner, chooses the streams whose buffer has room, encodes the phone windows of all
  of them that are short of frames with ONE batched encoder call (`runtime.prepare_batch`: encoder,
  durations and conditioning on the device), pops their chunks and advances each group of equal chunk
  length with ONE batched `runtime.step` (a short length whose streams' extra frames cost less than the
  step they save rides with the next longer one: `Engine._merge_lengths`). The steps are capped (TICK_TARGET_S at the measured cost per
  frame): the most urgent streams go first and a stream far ahead of real time waits for the next tick,
  so a tick stays short when many streams speak.
- events: every event goes to the `emit(stream, event)` callback the owner gave.

A stream whose client does not read is skipped (its buffer is full) instead of blocking the tick, and
loses its slot after `stall_timeout_s`.
"""

from __future__ import annotations

import collections
import heapq
import itertools
import logging
import math
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import torch

from model_server.engine.cost import TickCost
from model_server.engine.protocol import DRAINING_MESSAGE, LOADING_MESSAGE, AdmissionError, StreamEvent, Word

__all__ = ["ChunkPolicy", "Engine", "PhaseTimes", "SlotAllocator", "Stream", "TickCost"]

log = logging.getLogger("statespeak.scheduler")

_FLUSH, _FINISH, _CANCEL = "flush", "finish", "cancel"
_SENTENCE, _TEXT_ERROR = "sentence", "text_error"
# Step budget: a tick aims to stay under TICK_TARGET_S (at its measured cost, `TickCost`), so a
# new stream's first chunk never waits behind one huge step. Streams furthest ahead of real time wait for
# a later tick when the budget is spent; a stream less than SAFE_AHEAD_S ahead is never held back.
TICK_TARGET_S = 0.04
SAFE_AHEAD_S = 0.5
LEAD_CHUNKS = 2.0  # a chunk may hold up to this many times the stream's lead (see ChunkPolicy)
# A tick's estimated duration stays under this share of the smallest lead among the streams it serves (the
# rest is for shipping the audio through a worker to the client): see Engine._fit_to_lead.
LEAD_SHARE = 0.5


def pow2_floor(n: int) -> int:
    return 1 << (n.bit_length() - 1)


class SlotAllocator:
    """Free state-slot indices: exact admission (a slot is held from open to the end). The lowest free
    slot goes first, so the streams of a tick hold a compact run of slots, which the executor steps in
    place (views of the pool, no gather/scatter copy of their state)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._free = list(range(size))  # a heap

    def acquire(self) -> int | None:
        return heapq.heappop(self._free) if self._free else None

    def release(self, slot: int) -> None:
        heapq.heappush(self._free, slot)

    @property
    def in_use(self) -> int:
        return self.size - len(self._free)


@dataclass(frozen=True)
class ChunkPolicy:
    """Frames per chunk: `first` for the first chunk (time to first audio), then at most double the
    previous chunk, up to `largest`, and, while a stream is ahead of real-time playback, at most twice
    its lead (the audio it has beyond playback since its first chunk), or, when that is more, the
    engine's growth floor (`floor_frames`: `Engine._growth_floor`).

    Why the lead: streams that start together (a closed-loop burst) advance in lockstep, and a tick
    costs about the sum of their chunks. Doubling alone makes the tick that carries everyone's 32-frame
    chunk (400 ms of audio each) longer than the lead the earlier chunks built, so every stream stalls
    there once the CPU is more than about half busy. A chunk bounded by the lead grows only as the lead
    does; the engine also fits each tick into the smallest lead it serves (`Engine._fit_to_lead`), since a
    tick costs the sum of its chunks. A stream behind playback (no lead) still grows one doubling per chunk: larger steps cost
    less per frame, and a jump from the first size to the largest would be one very long tick.

    Why the floor: a chunk costs a fixed part (planner window, slicing, events: about 200-300 us on this
    CPU and on a GPU host) plus its frames' share of the step, and a tick serving N streams a chunk of f
    frames lasts N * (fixed + f * per frame) while bringing each f frames of audio. Below the floor
    (`TickCost.growth_frames`) that is less audio than the tick takes, so every lead shrinks, the chunks
    with them, and the fixed work per second of audio grows: a spiral into stalls (bounding GPU chunks by
    the lead shrank them to 0.1 s of audio under load on an H200; on this CPU, halving 64 streams' chunks
    to 4 frames stalled the burst)."""

    first: int
    largest: int

    @classmethod
    def of(cls, first_chunk_frames: int, max_chunk_frames: int) -> ChunkPolicy:
        first = pow2_floor(first_chunk_frames)
        return cls(first, max(first, pow2_floor(max_chunk_frames)))

    def want(
        self,
        chunks_sent: int,
        lead_frames: float | None = None,
        last_frames: int = 0,
        floor_frames: float = 0.0,
    ) -> int:
        """Frames for the next chunk. `lead_frames`: the stream's lead in frames (None: no audio sent
        yet); `last_frames`: its previous chunk's length (0: none); `floor_frames`: frames the lead bound
        never goes below."""
        frames = min(self.first << min(chunks_sent, 16), self.largest)
        if last_frames:
            frames = min(frames, max(self.first, 2 * pow2_floor(last_frames)))
        if lead_frames is not None and lead_frames >= 0:
            frames = min(frames, pow2_floor(int(max(self.first, LEAD_CHUNKS * lead_frames, floor_frames))))
        return frames


class PhaseTimes:
    """Seconds the engine thread spent in each phase of its ticks, and on the owner's messages: where a
    tick's time goes, always on (a clock read per phase), on /metrics as
    `statespeak_engine_phase_seconds_total{phase}`.

    admit: new streams' planners and slot reset; text: inboxes and sentences handed to planners; plan:
    choosing the chunks and popping them (less the encoder); encode: the batched phone encoder and its
    host work; model_step: the batched decoder + vocoder steps; events: stacking the chunks and making
    each stream's audio event; drain: ending flushed and finished streams; receive / send: the owner
    reading the workers' messages and shipping the events (`Engine.io_time`)."""

    PHASES = ("admit", "text", "plan", "encode", "model_step", "events", "drain", "receive", "send")

    def __init__(self) -> None:
        self.total = dict.fromkeys(self.PHASES, 0.0)
        self._tick = dict.fromkeys(self.PHASES, 0.0)

    def add(self, phase: str, seconds: float) -> None:
        self._tick[phase] += seconds

    def close_tick(self) -> dict[str, float]:
        """The running tick's seconds per phase (the messages since the last tick included), now counted
        in `total`; the next tick starts from zero."""
        tick, self._tick = self._tick, dict.fromkeys(self.PHASES, 0.0)
        for phase, seconds in tick.items():
            self.total[phase] += seconds
        return tick


class Stream:
    """One synthesis stream inside the engine. The owner calls sentence/text_error/flush/finish/cancel/
    consumed (queued in arrival order and applied at the next tick); the engine does the rest."""

    _ids = itertools.count(1)

    def __init__(self, key: Hashable, slot: int, voice: str, language: str, speed: float) -> None:
        self.id = next(self._ids)
        self.key = key  # the owner's name for it: (worker identity, worker stream id)
        self.slot = slot
        self.voice, self.language, self.speed = voice, language, speed
        self.inbox: collections.deque[tuple[str, Any]] = collections.deque()
        self.buffered = 0  # samples produced but not yet consumed by the client
        self.last_consumed = time.monotonic()
        self.flushes = 0
        self.ended = False
        self.planner: Any = None
        self.text: collections.deque[tuple[str, Any]] = collections.deque()
        self.waiting_flush = 0  # flush id whose frames are still being generated
        self.finishing = False
        self.flushes_done = 0
        self.chunks = 0
        self.last_chunk = 0  # frames in the latest chunk
        self.frames = 0
        self.compute_s = 0.0
        self.first_audio_at: float | None = None  # monotonic time of the first chunk

    def ahead_s(self, now: float, hop: int, sample_rate: int) -> float:
        """Audio produced beyond what real-time playback since the first chunk has used (-inf: none yet)."""
        if self.first_audio_at is None:
            return float("-inf")
        return self.frames * hop / sample_rate - (now - self.first_audio_at)

    # owner side (same thread as the engine) -----------------------------------------------------------
    def sentence(self, ids: list[int], words: list) -> None:
        """A sentence an API worker already phonemized."""
        self.inbox.append((_SENTENCE, (ids, words)))

    def text_error(self, message: str) -> None:
        """A sentence the worker's frontend refused: the stream fails there, after the audio before it."""
        self.inbox.append((_TEXT_ERROR, message))

    def flush(self) -> int:
        self.flushes += 1
        self.inbox.append((_FLUSH, self.flushes))
        return self.flushes

    def finish(self) -> None:
        self.inbox.append((_FINISH, None))

    def cancel(self) -> None:
        if not self.ended:
            self.inbox.append((_CANCEL, None))

    def consumed(self, samples: int) -> None:
        self.buffered -= samples
        self.last_consumed = time.monotonic()

    # engine side ----------------------------------------------------------------------------------------
    def has_room(self, limit: int) -> bool:
        return self.buffered < limit

    def stalled(self, limit: int, timeout_s: float) -> bool:
        return self.buffered >= limit and time.monotonic() - self.last_consumed > timeout_s

    def stats(self, hop: int, sample_rate: int) -> dict[str, float]:
        audio_s = self.frames * hop / sample_rate
        return {
            "audio_s": audio_s,
            "compute_s": self.compute_s,
            "rtf": self.compute_s / audio_s if audio_s > 0 else 0.0,
            "frames": float(self.frames),
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
        emit: Callable[[Stream, StreamEvent], None] | None = None,
    ) -> None:
        self.rt = runtime
        self.max_streams = max_streams
        self.sample_rate = int(runtime.sample_rate)
        self.hop = int(runtime.hop)
        self.chunks = ChunkPolicy.of(first_chunk_frames, max_chunk_frames)
        self.first_chunk, self.max_chunk = self.chunks.first, self.chunks.largest
        self.buffer_limit = int(stream_buffer_s * self.sample_rate)
        self.stall_timeout_s = stall_timeout_s
        self.metrics = metrics
        self.emit = emit or (lambda stream, event: None)
        self.pool = runtime.new_pool(max_streams)
        self.slots = SlotAllocator(max_streams)
        self._joining: list[Stream] = []
        self._active: dict[int, Stream] = {}
        self.draining = False
        self.accepting = False  # False until warm-up is done
        self._rr = 0
        self.cost = TickCost(pad=getattr(runtime, "padded_batch", None))  # steps run at their graph bucket
        self._tick_step_s = 0.0  # model step time in the running tick
        self._tick_chunks = 0  # chunks the running tick served
        self._io_s = 0.0  # the owner's message handling since the last tick (io_time)
        self._tick_encode_s = 0.0  # the running tick's phone encoder time
        self.phases = PhaseTimes()

    def active_count(self) -> int:
        return self.slots.in_use

    def io_time(self, seconds: float, phase: str = "receive") -> None:
        """Time the owner spent on this engine's messages since the last tick (`phase` "receive": reading
        the workers' ops; "send": shipping the events): counted into the next tick's per-chunk cost, since
        it grows with the chunks, and into its phase times."""
        self._io_s += seconds
        self.phases.add(phase, seconds)

    # Admission ------------------------------------------------------------------------------------------
    def open_stream(
        self,
        key: Hashable,
        voice: str,
        language: str,
        speed: float,
        *,
        internal: bool = False,
    ) -> Stream:
        """Take a slot or raise AdmissionError."""
        if not internal and self.draining:
            raise AdmissionError("draining", DRAINING_MESSAGE)
        if not internal and not self.accepting:
            raise AdmissionError("loading", LOADING_MESSAGE)
        slot = self.slots.acquire()
        if slot is None:
            raise AdmissionError("full", f"all {self.max_streams} stream slots are busy")
        stream = Stream(key, slot, voice, language, speed)
        self._joining.append(stream)
        return stream

    # Events ---------------------------------------------------------------------------------------------
    def _push(self, stream: Stream, event: StreamEvent) -> None:
        if event.audio is not None:
            stream.buffered += len(event.audio)
        if event.kind in ("done", "error", "cancelled"):
            stream.ended = True
        self.emit(stream, event)

    def _release(self, stream: Stream) -> None:
        if self._active.pop(stream.id, None) is not None or stream in self._joining:
            self.slots.release(stream.slot)

    def _fail(self, stream: Stream, message: str) -> None:
        log.warning("stream failed", extra={"stream_id": stream.id, "error": message})
        self._release(stream)  # before the event: a consumer that sees the end may reuse the slot at once
        self._push(stream, StreamEvent("error", message=message, stats=self._stats(stream)))

    def _stats(self, stream: Stream) -> dict[str, float]:
        return stream.stats(self.hop, self.sample_rate)

    def fail_all(self, message: str) -> None:
        """A bug in a tick must not kill the engine silently: every stream fails, the engine goes on."""
        for stream in [*self._active.values(), *self._joining]:
            self._fail(stream, message)
        self._joining.clear()

    # Tick -----------------------------------------------------------------------------------------------
    def _admit(self) -> None:
        joined: list[Stream] = []
        for stream in self._joining:
            try:
                stream.planner = self.rt.new_planner(stream.voice, stream.language, stream.speed)
            except Exception as exc:  # e.g. a voice the model lacks: that stream fails, nobody else
                self.slots.release(stream.slot)
                self._push(stream, StreamEvent("error", message=f"cannot start stream: {exc}",
                                               stats=self._stats(stream)))  # fmt: skip
                continue
            self._active[stream.id] = stream
            joined.append(stream)
        self._joining.clear()
        if joined:
            self.rt.reset_slots(self.pool, [s.slot for s in joined], [s.voice for s in joined])

    def _apply_inbox(self, stream: Stream) -> bool:
        """Move queued ops into the stream's text queue. False when the stream was cancelled."""
        while stream.inbox:
            op, arg = stream.inbox.popleft()
            if op == _CANCEL:
                self._release(stream)
                self._push(stream, StreamEvent("cancelled", stats=self._stats(stream)))
                return False
            stream.text.append((op, arg))
        return True

    def _prefill(self, streams: list[Stream]) -> None:
        """Hand each stream's queued sentences and ops to its planner (cheap: sentences come phonemized);
        text after a flush waits until that flush is spoken."""
        for stream in streams:
            while stream.id in self._active and stream.text and not stream.waiting_flush:
                op, arg = stream.text.popleft()
                t0 = time.perf_counter()
                try:
                    if op == _SENTENCE:
                        stream.planner.feed_sentence(*arg)
                    elif op == _TEXT_ERROR:
                        stream.planner.feed_error(arg)
                    elif op == _FLUSH:
                        stream.planner.flush()
                        stream.waiting_flush = arg  # later text waits until this flush is spoken
                    else:
                        stream.planner.finish()
                        stream.finishing = True
                except Exception as exc:
                    self._fail(stream, f"text processing failed: {exc}")
                    break
                stream.compute_s += time.perf_counter() - t0

    def _check_drained(self, stream: Stream) -> None:
        """flush_done once a flush's frames are all out; done once a finished stream has nothing left."""
        planner = stream.planner
        if planner.has_work:  # frames buffered or text to encode (the next tick's batch does that)
            return
        if stream.waiting_flush:
            self._push(stream, StreamEvent("flush_done", flush_id=stream.waiting_flush))
            stream.flushes_done = stream.waiting_flush
            stream.waiting_flush = 0
        if stream.finishing and not stream.text and planner.done:
            self._release(stream)
            self._push(stream, StreamEvent("done", stats=self._stats(stream)))

    def _choose(self, streams: list[Stream]) -> tuple[list[tuple[Stream, int]], bool]:
        """The streams that get a chunk this tick, most urgent first, with the frames each wants; also
        whether some were held back by the step budget."""
        now = time.monotonic()
        ahead = {s.id: s.ahead_s(now, self.hop, self.sample_rate) for s in streams}
        streams = sorted(streams, key=lambda s: ahead[s.id])  # most urgent first (new streams first of all)
        floor = self._growth_floor(len(streams))
        chosen: list[tuple[Stream, int]] = []
        planned, deferred = 0, False  # frames chosen so far
        lengths: set[int] = set()  # one step each
        for stream in streams:
            if stream.id not in self._active:
                continue
            if not stream.has_room(self.buffer_limit):
                if stream.stalled(self.buffer_limit, self.stall_timeout_s):
                    self._fail(stream, f"client read nothing for {self.stall_timeout_s:.0f} s")
                continue
            if not stream.planner.has_work:
                continue  # waiting for text (or done: _check_drained ends it)
            lead = ahead[stream.id] * self.sample_rate / self.hop  # -inf before the first chunk
            want = self.chunks.want(
                stream.chunks, lead if stream.first_audio_at is not None else None, stream.last_chunk, floor
            )
            steps = len(lengths) + (want not in lengths)
            over = self.cost.seconds(len(chosen) + 1, planned + want, steps) > TICK_TARGET_S
            if over and planned and ahead[stream.id] > SAFE_AHEAD_S:
                deferred = True  # far enough ahead: its chunk comes in a later, shorter tick
                continue
            planned += want
            lengths.add(want)
            chosen.append((stream, want))
        return self._merge_lengths(self._fit_to_lead(chosen, ahead)), deferred

    def _fit_to_lead(
        self, chosen: list[tuple[Stream, int]], ahead: dict[int, float]
    ) -> list[tuple[Stream, int]]:
        """Halve the largest chunks until the tick's estimated duration fits in LEAD_SHARE of the smallest
        lead among the chosen streams that are playing (never below TICK_TARGET_S, never a chunk below
        the first size).

        Why: each stream's chunk is bounded by its own lead, but a tick costs the sum of all its chunks.
        N streams that start together (a closed burst) each ask for up to LEAD_CHUNKS x their lead L, so
        the tick lasts N * LEAD_CHUNKS * L / R for an engine making R audio seconds per second, and every
        listener runs dry during it unless R > N * LEAD_CHUNKS: twice the real-time capacity. Measured on
        the 2-core machine, 64 such streams stalled at R = 99 audio s/s. Fitting the tick to the smallest
        lead needs only R > N / LEAD_SHARE while the leads are small; the leads, and the chunks with them,
        grow every tick the engine is faster than real time.

        Halving shortens only the frames' part of the tick (`TickCost`), and never takes a chunk below the
        growth floor (`_growth_floor`): below it a tick brings less audio than it lasts, so halving to fit
        one tick into the leads would shrink every lead after it (see ChunkPolicy). Nor does it go on once
        the frames are less than the tick's fixed part (its steps' fixed cost and every chunk's own work):
        from there a halving buys less than a quarter of the tick and costs every halved stream half its audio.
        That is a GPU serving hundreds of streams (about 1 ms a step and 80 us a chunk against 0.6 us a
        stream-frame on an H200): under 200 calls a second the newest streams' small leads had every
        1,000 streams' chunks halved to 8 frames (0.1 s), which kept them at 1.2x real time, with stalls
        (docs/benchmarks.md, "GPU results"). A CPU's frames are most of its tick, so there it still fits."""
        if self.cost.per_frame <= 0 or len(chosen) < 2:
            return chosen
        leads = [ahead[s.id] for s, _ in chosen if s.first_audio_at is not None and ahead[s.id] >= 0]
        if not leads:
            return chosen
        budget = max(TICK_TARGET_S, LEAD_SHARE * min(leads))
        floor = self._growth_floor(len(chosen))
        wants = [want for _, want in chosen]
        while True:
            fixed = self.cost.seconds(len(wants), 0, len(set(wants)))
            frames = self.cost.per_frame * sum(wants)
            if fixed + frames <= budget or frames < fixed:
                break
            top = max(wants)
            if top <= floor:
                break
            wants = [w // 2 if w == top else w for w in wants]
        return [(stream, want) for (stream, _), want in zip(chosen, wants, strict=True)]

    def _merge_lengths(self, chosen: list[tuple[Stream, int]]) -> list[tuple[Stream, int]]:
        """Fewer steps per tick: from the shortest chunk length up, the streams of a length get the next
        longer length instead when their extra frames cost less than the step they save
        (`TickCost.merge_gain`), so they ride in its step. The tick's estimated duration only shrinks.

        Why: a step costs `per_step` whatever it carries. On a GPU that is most of a small step (about
        1 ms against 0.6 us per stream-frame on an H200: a 4-frame chunk for 100 streams costs less as 32
        frames in the 32-frame step than in a step of its own), and the streams of a tick want several
        lengths (new streams start small, chunks grow by doubling and are bounded by their leads). On a
        CPU a stream-frame costs about 100 us, so only a few streams' chunks move (docs/benchmarks.md,
        "Fewer steps per tick"). Steps are priced at their graph bucket: a merge that takes the longer
        step over a power of two pays for the padding. A stream given more frames than it asked for gets
        more lead, never less; a new stream's first chunk may ride too (its first window holds them), and
        arrives with the same, shorter, tick."""
        if len(chosen) < 2:
            return chosen
        counts = collections.Counter(want for _, want in chosen)
        lengths = sorted(counts)
        rides = set()  # lengths whose streams ride in the next longer step
        for short, longer in itertools.pairwise(lengths):
            if self.cost.merge_gain((counts[short], short), (counts[longer], longer)) > 0:
                counts[longer] += counts[short]
                rides.add(short)
        final, target = {}, 0
        for length in reversed(lengths):  # longest first (never riding), so a chain 4 -> 8 -> 16 resolves
            final[length] = target if length in rides else length
            target = final[length]
        return [(stream, final[want]) for stream, want in chosen]

    def _growth_floor(self, streams: int) -> int:
        """The shortest chunk (a power of two, from the first size to the largest) with which serving
        `streams` streams makes their leads grow (`TickCost.growth_frames`)."""
        frames = self.cost.growth_frames(streams, self.hop / self.sample_rate)
        if frames <= self.first_chunk:
            return self.first_chunk
        if frames >= self.max_chunk:
            return self.max_chunk
        return 1 << math.ceil(math.log2(frames))

    def _encode(self, chosen: list[tuple[Stream, int]]) -> None:
        """Frames for every chosen stream short of its chunk: ONE batched phone-encoder call (durations
        and conditioning included) over all of them, on the device; no per-stream encoder calls."""
        short = [(s, want) for s, want in chosen if s.planner.buffered_frames < want]
        if not short:
            return
        t0 = time.perf_counter()
        try:
            failed = self.rt.prepare_batch([(s.planner, want) for s, want in short])
        except Exception as exc:  # the batch itself broke: its streams fail, the others speak on
            log.exception("phone encoder batch failed", extra={"batch": len(short)})
            for stream, _ in short:
                self._fail(stream, f"text processing failed: {exc}")
            return
        took = time.perf_counter() - t0
        self._tick_encode_s += took
        share = took / len(short)
        by_planner = {id(s.planner): s for s, _ in short}
        for planner, exc in failed:
            self._fail(by_planner[id(planner)], f"text processing failed: {exc}")
        for stream, _ in short:
            stream.compute_s += share

    def _pop_chunks(self, streams: list[Stream]) -> tuple[dict[int, list[tuple[Stream, Any]]], bool]:
        """Each chosen stream gives its next chunk, grouped by length. Also: whether some were deferred."""
        chosen, deferred = self._choose(streams)
        self._encode(chosen)
        groups: dict[int, list[tuple[Stream, Any]]] = {}
        for stream, want in chosen:
            if stream.id not in self._active:
                continue
            pending = stream.planner.buffered_frames
            try:
                chunk = stream.planner.pop_frames(pow2_floor(min(want, pending))) if pending > 0 else None
            except Exception as exc:  # this stream's text broke the frontend: fail it alone
                self._fail(stream, f"text processing failed: {exc}")
                continue
            got = 0 if chunk is None else int(chunk.cond.shape[0])
            if got == 0:
                self._check_drained(stream)
                continue
            groups.setdefault(got, []).append((stream, chunk))
        return groups, deferred

    def tick(self) -> bool:
        """One scheduling round. Returns True when a model step ran (more work is likely)."""
        clock = time.perf_counter
        start = mark = clock()
        self._tick_step_s, self._tick_chunks, self._tick_encode_s = 0.0, 0, 0.0

        def phase(name: str, less: float = 0.0) -> None:  # the time since the last mark, less a part
            nonlocal mark
            now = clock()
            self.phases.add(name, now - mark - less)
            mark = now

        self._admit()
        phase("admit")
        streams = list(self._active.values())
        if streams:  # rotate so no stream is always first among equally urgent ones
            self._rr = (self._rr + 1) % len(streams)
            streams = streams[self._rr :] + streams[: self._rr]
        streams = [s for s in streams if self._apply_inbox(s)]
        self._prefill(streams)
        phase("text")
        groups, deferred = self._pop_chunks(streams)
        phase("plan", less=self._tick_encode_s)
        self.phases.add("encode", self._tick_encode_s)
        for length, items in groups.items():
            self._step(length, items)
        phase("events", less=self._tick_step_s)
        self.phases.add("model_step", self._tick_step_s)
        for stream in streams:
            if stream.id in self._active:
                self._check_drained(stream)
        phase("drain")
        tick_phases = self.phases.close_tick()
        if self.metrics is not None:
            self.metrics.engine_phases(tick_phases)
        if self._tick_chunks:  # the tick's other work and the owner's since the last tick (steps: _step)
            rest = mark - start - self._tick_step_s + self._io_s
            self.cost.observe_rest(rest, self._tick_chunks)
            if self.metrics is not None:
                self.metrics.engine_ticks.inc()
                self.metrics.engine_step_per_frame.set(self.cost.per_frame)
                self.metrics.engine_step_fixed.set(self.cost.per_step)
                self.metrics.engine_per_chunk.set(self.cost.per_chunk)
        self._io_s = 0.0
        return bool(groups) or deferred or bool(self._joining)

    def _step(self, length: int, items: list[tuple[Stream, Any]]) -> None:
        slots = [s.slot for s, _ in items]
        cond = torch.stack([c.cond for _, c in items])
        t0 = time.perf_counter()
        try:
            audio = self.rt.step(self.pool, slots, cond, pcm16=True)  # int16, made on the device
        except Exception as exc:
            log.exception("model step failed", extra={"batch": len(items), "frames": length})
            for stream, _ in items:
                self._fail(stream, f"model step failed: {exc}")
            return
        elapsed = time.perf_counter() - t0
        self.cost.observe_step(elapsed, len(items), length)
        self._tick_step_s += elapsed
        self._tick_chunks += len(items)
        audio = audio.numpy()
        if self.metrics is not None:
            self.metrics.engine_steps.inc()
            self.metrics.engine_batch.observe(len(items))
        share = elapsed / len(items)  # each stream's part of the batched call, for its RTF
        for i, (stream, chunk) in enumerate(items):
            stream.chunks += 1
            stream.last_chunk = length
            stream.frames += length
            if stream.first_audio_at is None:
                stream.first_audio_at = time.monotonic()
            stream.compute_s += share
            words = [Word(w.text, w.start_s, w.end_s) for w in chunk.words or ()]
            self._push(
                stream,
                StreamEvent("audio", audio=audio[i], words=words, flush_id=stream.flushes_done + 1,
                            step_ms=elapsed * 1000),
            )  # fmt: skip
