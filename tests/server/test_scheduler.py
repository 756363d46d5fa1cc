"""The scheduler directly, on the real runtime (random weights): batching, buffers, cancel, admission.

The engine process drives `Engine.tick` in a loop and ships what `emit` hands it; here a small driver
does the same on the test's thread, so every case is deterministic and needs no sockets."""

from __future__ import annotations

import io
import time
import types
from collections import defaultdict

import numpy as np
import pytest

from model_server.engine.protocol import AdmissionError
from model_server.metrics import ServerMetrics
from model_server.model.runtime import SpeechRuntime
from model_server.model.text import SentenceText, split_sentences
from model_server.scheduler import ChunkPolicy, Engine, PhaseTimes, SlotAllocator

from ._server import VOICES

VOICE = VOICES[0][0]


@pytest.fixture(scope="module")
def runtime(model_dir):
    return SpeechRuntime.load(model_dir, device="cpu")


def stop_scheduler_clock(monkeypatch, now: float, perf_counter=time.perf_counter) -> None:
    """The scheduler reads `now` as the time from here on: leads a test sets from `now` stay as set however
    slowly a loaded machine runs the rest of it (a lead 50 ms shorter halves a 32-frame chunk). With
    `perf_counter` stopped too, its work takes no time: the costs it measures are zero."""
    import model_server.scheduler as sched

    monkeypatch.setattr(
        sched, "time", types.SimpleNamespace(monotonic=lambda: now, perf_counter=perf_counter)
    )


class Driver:
    """Ticks an engine; collects each stream's events; the consumer reads all audio unless told not to."""

    def __init__(self, runtime, max_streams=4, **kw) -> None:
        metrics = ServerMetrics("test", max_streams, emf_out=io.StringIO())
        self.events = defaultdict(list)
        self.unread: set = set()
        self.engine = Engine(runtime, max_streams, metrics=metrics, emit=self._emit, **kw)
        self.engine.accepting = True
        self.text = SentenceText(runtime.catalog.symbols)
        self._keys = iter(range(1, 1_000_000))

    def _emit(self, stream, ev) -> None:
        self.events[stream.key].append(ev)
        if ev.audio is not None and stream.key not in self.unread:
            stream.consumed(len(ev.audio))

    def open(self, voice=VOICE, read=True):
        key = next(self._keys)
        if not read:
            self.unread.add(key)
        return self.engine.open_stream(key, voice, "en", 1.0)

    def say(self, stream, text: str) -> None:
        """What an API worker sends for `text`: its sentences, split and phonemized."""
        for sentence in split_sentences(text, final=True)[0]:
            stream.sentence(*self.text.sentence(sentence, stream.language))

    def start(self, n: int, text: str) -> list:
        """`n` new streams, each given `text` and finished."""
        streams = [self.open() for _ in range(n)]
        for stream in streams:
            self.say(stream, text)
            stream.finish()
        return streams

    def run_until(self, done, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not done():
            assert time.monotonic() < deadline, "engine made no progress"
            if not self.engine.tick():
                time.sleep(0.01)

    def ended(self, stream) -> bool:
        evs = self.events[stream.key]
        return bool(evs) and evs[-1].kind in ("done", "error", "cancelled")


def test_slot_allocator_and_chunk_policy():
    slots = SlotAllocator(2)
    a, b = slots.acquire(), slots.acquire()
    assert {a, b} == {0, 1} and slots.acquire() is None and slots.in_use == 2
    slots.release(a)
    assert slots.in_use == 1 and slots.acquire() == a
    # the lowest free slot goes first: a tick's streams hold a compact run the executor steps in place
    slots = SlotAllocator(4)
    held = [slots.acquire() for _ in range(4)]
    for slot in (3, 0, 2):
        slots.release(slot)
    assert held == [0, 1, 2, 3] and [slots.acquire() for _ in range(3)] == [0, 2, 3]
    policy = ChunkPolicy.of(5, 40)  # rounded down to powers of two
    assert (policy.first, policy.largest) == (4, 32)
    assert [policy.want(n) for n in range(5)] == [4, 8, 16, 32, 32]
    # at most twice the stream's lead over real-time playback (in frames), never less than the first
    assert [policy.want(5, lead) for lead in (100.0, 15.9, 5.0, 0.25, 0.0)] == [32, 16, 8, 4, 4]
    assert policy.want(1, 100.0) == 8  # the doubling still applies
    # at most double the previous chunk, also for a stream behind playback (no lead: no lead cap)
    assert [policy.want(9, lead, last_frames=4) for lead in (None, -3.0, 100.0)] == [8, 8, 8]
    assert policy.want(9, -3.0, last_frames=16) == 32
    # the lead bound never goes below the engine's growth floor
    assert [policy.want(5, 0.25, floor_frames=f) for f in (0.0, 3.0, 8.0, 16.0, 32.0)] == [4, 4, 8, 16, 32]
    assert policy.want(1, 0.25, floor_frames=32.0) == 8  # the doubling still applies
    assert policy.want(5, None, floor_frames=32.0) == 32 and policy.want(0, None, floor_frames=32.0) == 4


def test_the_phase_times_account_for_every_tick_and_reach_the_metrics(runtime):
    d = Driver(runtime, max_streams=4)
    streams = d.start(3, "Three streams show where a tick's time goes, phase by phase.")
    wall = 0.0
    while not all(d.ended(s) for s in streams):
        t0 = time.perf_counter()
        d.engine.tick()
        wall += time.perf_counter() - t0
    total = d.engine.phases.total
    assert set(total) == set(PhaseTimes.PHASES)
    for name in ("admit", "text", "plan", "encode", "model_step", "events", "drain"):
        assert total[name] > 0, name
    assert total["receive"] == total["send"] == 0.0  # no owner messages here
    # the phases split each tick whole: together they are the ticks' time (a few clock reads aside)
    ticked = sum(total.values())
    assert ticked <= wall and ticked > 0.95 * wall - 1e-3
    # the model step is the step the cost model saw; the owner's message time lands in its own phase
    d.engine.io_time(0.25, phase="send")
    (s,) = d.start(1, "One more.")
    while not d.ended(s):
        d.engine.tick()
    assert total["send"] == pytest.approx(0.25)
    text = d.engine.metrics.prometheus_text().decode()
    for name in ("encode", "model_step", "send"):
        assert f'statespeak_engine_phase_seconds_total{{phase="{name}"}}' in text
    assert 'statespeak_engine_phase_seconds_total{phase="send"} 0.25' in text


def test_the_engine_measures_its_step_and_per_chunk_costs_and_counts_the_owners_io(runtime):
    d = Driver(runtime, max_streams=4)
    streams = d.start(3, "Three streams measure what a tick costs.")
    d.run_until(lambda: all(d.ended(s) for s in streams))
    cost = d.engine.cost
    assert cost.per_frame > 0 and cost.per_chunk > 0
    text = d.engine.metrics.prometheus_text().decode()  # what /metrics shows of them
    assert f"statespeak_engine_seconds_per_chunk {cost.per_chunk}" in text
    assert f"statespeak_engine_step_seconds_per_frame {cost.per_frame}" in text
    assert f"statespeak_engine_step_seconds_fixed {cost.per_step}" in text
    steps, ticks = d.engine.metrics.engine_steps._value.get(), d.engine.metrics.engine_ticks._value.get()
    assert 0 < ticks <= steps and f"statespeak_engine_ticks_total {ticks}" in text
    # the owner's message time since the last tick goes into the next tick's per-chunk cost
    (s,) = d.start(1, "One more.")
    before = cost.per_chunk
    d.engine.io_time(5.0)  # 5 s of message handling: far more than any tick here
    while not d.ended(s):
        d.engine.tick()
    assert cost.per_chunk > before + 0.1  # 5 s over the few chunks the decayed sums hold
    assert d.engine._io_s == 0.0  # counted once


def test_concurrent_streams_share_batched_steps(runtime, monkeypatch):
    import model_server.scheduler as sched

    d = Driver(runtime)
    streams = [d.open() for _ in range(4)]
    for s in streams:
        d.say(s, "Four streams speak at once, in one batch.")
        s.finish()
    # Chunks grow with each stream's lead over real-time playback: on a machine too loaded to stay ahead
    # they would stay small. Here every listener starts late (plenty of lead) and no step budget binds.
    monkeypatch.setattr(sched, "TICK_TARGET_S", 1e9)
    d.run_until(lambda: all(s.first_audio_at for s in streams))
    for s in streams:
        s.first_audio_at += 60.0
    d.run_until(lambda: all(d.ended(s) for s in streams))
    results = [d.events[s.key] for s in streams]
    lengths = {sum(len(e.audio) for e in evs if e.audio is not None) for evs in results}
    assert len(lengths) == 1 and lengths.pop() > 0  # same text: same frames in every stream
    assert all(evs[-1].kind == "done" for evs in results)
    batch = d.engine.metrics.engine_batch
    sizes = {s.labels["le"]: s.value for s in batch.collect()[0].samples if s.name.endswith("_bucket")}
    assert sizes["1.0"] < sizes["+Inf"]  # some steps advanced more than one stream
    # chunk sizes start small for time to first audio, then grow
    first = [e for e in results[0] if e.kind == "audio"]
    assert len(first[0].audio) == d.engine.first_chunk * d.engine.hop
    assert max(len(e.audio) for e in first) > len(first[0].audio)
    chunk_frames = [len(e.audio) // d.engine.hop for e in first]  # each chunk at most doubles the one before
    assert (
        all(b <= 2 * a for a, b in zip(chunk_frames, chunk_frames[1:], strict=False))
        and streams[0].last_chunk == chunk_frames[-1]
    )
    assert d.engine.active_count() == 0


def test_reader_that_stops_reading_is_skipped_without_blocking_others(runtime):
    d = Driver(runtime, stream_buffer_s=0.1, max_chunk_frames=8)
    stalled = d.open(read=False)
    d.say(stalled, "This stream's client never reads anything at all, so it must wait. " * 3)
    stalled.finish()
    reader = d.open()
    d.say(reader, "This one reads, and finishes.")
    reader.finish()
    d.run_until(lambda: d.ended(reader))
    for _ in range(5):
        d.engine.tick()
    held, active = stalled.buffered, d.engine.active_count()
    stalled.cancel()
    d.run_until(lambda: d.ended(stalled), 10)
    assert d.events[reader.key][-1].kind == "done"
    # the stalled stream stopped at its buffer bound (plus at most one chunk) and kept its slot
    assert 0 < held <= d.engine.buffer_limit + d.engine.max_chunk * d.engine.hop
    assert active == 1
    assert d.events[stalled.key][-1].kind == "cancelled"
    assert d.engine.active_count() == 0


def test_stalled_client_loses_its_slot_after_the_timeout(runtime):
    d = Driver(runtime, stream_buffer_s=0.1, stall_timeout_s=0.3)
    s = d.open(read=False)
    d.say(s, "Nobody reads this stream, it will be dropped for stalling.")
    s.finish()
    d.run_until(lambda: d.ended(s), 30)
    events = d.events[s.key]
    assert events[-1].kind == "error" and "read nothing" in events[-1].message
    assert d.engine.active_count() == 0


def test_cancel_stops_generation_and_frees_the_slot_at_once(runtime):
    d = Driver(runtime, max_streams=1, stream_buffer_s=0.5)
    s = d.open()
    d.say(s, "A long text to cancel part way. " * 10)
    s.finish()
    d.run_until(lambda: any(e.kind == "audio" for e in d.events[s.key]))
    s.cancel()
    d.engine.tick()  # the cancel is applied at the next tick
    assert d.events[s.key][-1].kind == "cancelled"
    assert s.frames < 200  # far less than the whole text
    again = d.open()  # the only slot is free again
    again.cancel()
    d.run_until(lambda: d.ended(again), 10)
    assert d.engine.active_count() == 0


def test_admission_refuses_beyond_max_streams_and_while_draining(runtime):
    d = Driver(runtime, max_streams=2)
    a, b = d.open(), d.open()
    with pytest.raises(AdmissionError) as full:
        d.open()
    assert full.value.reason == "full"
    a.cancel()
    d.run_until(lambda: d.ended(a), 10)
    d.engine.draining = True
    with pytest.raises(AdmissionError) as draining:
        d.open()
    assert draining.value.reason == "draining"
    d.say(b, "Streams already admitted finish during a drain.")
    b.finish()
    d.run_until(lambda: d.ended(b))
    assert d.events[b.key][-1].kind == "done"


def test_unknown_voice_fails_only_that_stream(runtime):
    d = Driver(runtime)
    bad = d.open("nobody")
    good = d.open()
    d.say(good, "Fine.")
    good.finish()
    d.run_until(lambda: d.ended(bad) and d.ended(good))
    assert d.events[bad.key][-1].kind == "error" and "nobody" in d.events[bad.key][-1].message
    assert d.events[good.key][-1].kind == "done"
    assert d.engine.active_count() == 0


def test_a_failed_tick_fails_every_stream_and_frees_every_slot(runtime):
    d = Driver(runtime)
    streams = [d.open() for _ in range(3)]
    for s in streams:
        d.say(s, "Some text.")
    d.engine.tick()
    d.engine.fail_all("internal error in the engine")
    assert all(d.events[s.key][-1].kind == "error" for s in streams)
    assert d.engine.active_count() == 0


def test_step_budget_holds_back_only_streams_far_ahead_of_real_time(runtime, monkeypatch):
    """With the budget spent, a stream seconds ahead of playback waits a tick; a new stream never does."""
    import model_server.scheduler as sched

    d = Driver(runtime, stream_buffer_s=30.0)
    ahead = d.open()
    d.say(ahead, "A stream that is far ahead of its listener already. " * 3)
    ahead.finish()
    d.run_until(lambda: ahead.chunks >= 3)
    ahead.first_audio_at = time.monotonic() + 10.0  # as if ten seconds of its audio were still unplayed
    newcomer = d.open()
    d.say(newcomer, "Hello.")
    newcomer.finish()
    monkeypatch.setattr(sched, "TICK_TARGET_S", 1e-9)  # any step is over budget
    d.engine.cost.per_step, d.engine.cost.per_frame, d.engine.cost.per_chunk = 0.0, 1.0, 0.0
    before = ahead.frames
    d.engine.tick()
    assert newcomer.chunks == 1  # the most urgent stream goes first and always goes
    assert ahead.frames == before  # the one far ahead waited
    ahead.first_audio_at = time.monotonic() - 60.0  # now behind playback: served despite the budget
    d.engine.tick()
    assert ahead.frames > before


def test_a_tick_fits_in_the_smallest_lead_of_the_streams_it_serves(runtime, monkeypatch):
    """Streams that started together each ask for a chunk of up to twice their lead; their chunks are
    halved, largest first, until the tick's estimated duration fits in LEAD_SHARE of the smallest lead."""
    import model_server.scheduler as sched

    d = Driver(runtime, max_streams=4, stream_buffer_s=30.0)
    streams = [d.open() for _ in range(4)]
    for s in streams:
        d.say(s, "Four streams that started together keep speaking for a good while longer. " * 2)
        s.finish()
    d.run_until(lambda: all(s.chunks >= 4 for s in streams))
    now = time.monotonic()
    hop_s = d.engine.hop / d.engine.sample_rate
    leads_s = [0.45, 0.45, 0.45, 0.25]  # each may ask for the largest chunk (32 frames) at LEAD_CHUNKS 2
    for s, lead in zip(streams, leads_s, strict=True):
        s.first_audio_at = now - s.frames * hop_s + lead
        # after a 32-frame chunk: a chunk grows at most twofold, and a loaded machine's real ticks above may
        # have left 8-frame chunks (CI got [16] * 4 for [32] * 4)
        s.last_chunk = 32
    stop_scheduler_clock(monkeypatch, now)
    # 2 ms per stream-frame and no fixed work per chunk (a CPU's case): a 4 x 32-frame tick would take 256 ms
    d.engine.cost.per_step, d.engine.cost.per_frame, d.engine.cost.per_chunk = 0.0, 0.002, 0.0
    chosen, _ = d.engine._choose(streams)
    wants = {s.id: want for s, want in chosen}
    assert len(chosen) == 4
    assert sum(wants.values()) * 0.002 <= sched.LEAD_SHARE * 0.25  # fits in half of the smallest lead
    assert all(w >= d.engine.first_chunk for w in wants.values())
    # with an engine fast enough for the whole request, nothing is cut
    d.engine.cost.per_frame = 1e-6
    chosen, _ = d.engine._choose(streams)
    by_urgency = sorted(zip(streams, leads_s, strict=True), key=lambda pair: pair[1])
    expected = [d.engine.chunks.want(s.chunks, lead / hop_s, s.last_chunk) for s, lead in by_urgency]
    assert [want for _, want in chosen] == expected
    # Fixed work per chunk sets a growth floor: with 4 streams at 2 ms a frame, a 12.5 ms frame leaves
    # 4.5 ms, so chunks under 4 * fixed / 4.5 ms frames bring less audio than their tick lasts.
    # 50 ms of fixed work: 44 frames, over the largest chunk, so nothing is halved (halving to fit this
    # tick into the leads would shrink every lead after it)
    d.engine.cost.per_frame, d.engine.cost.per_chunk = 0.002, 0.05
    chosen, _ = d.engine._choose(streams)
    assert [want for _, want in chosen] == [32, 32, 32, 32]
    # 10 ms: 8.9 frames, so no chunk is halved below 16, though the tick does not fit the lead then
    d.engine.cost.per_chunk = 0.01
    chosen, _ = d.engine._choose(streams)
    assert [want for _, want in chosen] == [16, 16, 16, 16]
    # 1 ms: under one frame, so the floor is the first size and the frames are fitted into what is left
    d.engine.cost.per_chunk = 0.001  # 4 ms of fixed work: 121 ms left, 60 frames at 2 ms
    chosen, _ = d.engine._choose(streams)
    wants = [want for _, want in chosen]
    assert sum(wants) * 0.002 <= sched.LEAD_SHARE * 0.25 - 4 * 0.001 and min(wants) >= d.engine.first_chunk


def test_phonemized_sentences_speak_and_a_refused_one_fails_the_stream_after_them(runtime):
    """What API workers send: sentences as symbol ids and words, and a refused sentence in its place."""
    d = Driver(runtime)
    s = d.open()
    s.sentence(*d.text.sentence("Hello there.", "en"))
    s.text_error("the frontend refused this")
    s.finish()
    d.run_until(lambda: d.ended(s))
    events = d.events[s.key]
    assert any(e.kind == "audio" for e in events)  # the sentence before the refused one is spoken
    assert [w.text for e in events for w in e.words] == ["Hello", "there."]
    assert events[-1].kind == "error" and "the frontend refused this" in events[-1].message
    assert d.engine.active_count() == 0


def test_a_stream_starts_with_its_voices_vocoder_postfilter():
    """The engine resets a joining stream's slot with its voice's post-filter (`VoiceInfo.postfilter`), so
    streams of differently tuned voices share one batched step."""
    from model_server import vocoder
    from model_server.model.checkpoint import Postfilter, VoiceInfo

    voices = [
        VoiceInfo("plain", "P", "en", "female", "test"),
        VoiceInfo("sharp", "S", "en", "female", "test", postfilter=Postfilter(0.8, 48)),
    ]
    d = Driver(
        SpeechRuntime.init_random(voices, seed=0, d_enc=32, d_model=48, headdim=16, d_state=8, n_layers=2)
    )
    streams = {voice: d.open(voice) for voice in ("sharp", "plain")}
    for s in streams.values():
        d.say(s, "Hello there.")
        s.finish()
    d.engine.tick()
    lifter = d.engine.pool.vocoder["lifter"]
    for voice, gains in (("sharp", vocoder.lifter_gains(0.8, 48)), ("plain", vocoder.lifter_gains())):
        assert lifter[streams[voice].slot].tolist() == pytest.approx(gains.tolist())


def test_short_chunk_lengths_ride_in_a_longer_step_when_the_step_costs_more_than_their_frames(runtime):
    """A step's fixed cost against the frames it would add: on a GPU-like cost the streams of a tick that
    want 4, 8 and 16 frames all step with the 32-frame ones (one step); on a CPU-like cost only a group
    whose extra frames cost less than a step moves."""
    d = Driver(runtime, max_streams=8)
    streams = d.start(7, "Seven streams at different points of their speech want different chunks.")
    chosen = list(zip(streams, [4, 4, 8, 16, 32, 32, 32], strict=True))
    d.engine.cost.per_step, d.engine.cost.per_frame = 1.0e-3, 0.6e-6  # an H200 (engine/cost.py)
    assert [want for _, want in d.engine._merge_lengths(chosen)] == [32] * 7
    d.engine.cost.per_step, d.engine.cost.per_frame = 4.0e-3, 105e-6  # one CPU thread
    # 4 -> 8: 2 x 4 frames, 0.84 ms < 4 ms; then 8 -> 16: 3 x 8 frames, 2.5 ms < 4 ms; then 16 -> 32:
    # 4 x 16 frames, 6.7 ms > 4 ms, so two steps are left
    assert [want for _, want in d.engine._merge_lengths(chosen)] == [16, 16, 16, 16, 32, 32, 32]
    d.engine.cost.per_step = 0.0  # unmeasured: nothing moves
    assert d.engine._merge_lengths(chosen) == chosen


def test_merged_chunk_lengths_speak_the_same_audio_in_fewer_steps(runtime, monkeypatch):
    """Merging changes how a stream's frames are cut into chunks, never the audio: the same streams with
    every merge taken and with none give the same samples, the merged run in fewer steps. Both on stopped
    clocks: chunk lengths follow leads and measured costs, which a loaded machine changed between the two
    runs (CI once took 25 merged steps for 23 apart)."""
    from model_server.engine.cost import TickCost

    def run(gain: float) -> tuple[list, int]:
        monkeypatch.setattr(TickCost, "merge_gain", lambda self, short, longer: gain)
        stop_scheduler_clock(monkeypatch, time.monotonic(), perf_counter=lambda: 0.0)
        d = Driver(runtime, max_streams=4)
        texts = ["Hello there.", "A longer sentence keeps this stream going for a while.", "Numbers: 42."]
        streams = [d.open() for _ in texts]
        for s, text in zip(streams, texts, strict=True):
            d.say(s, text)
            s.finish()
        d.engine.tick()  # the first chunks alone, all 4 frames
        late = d.open()  # a stream that starts later wants 4 frames while the others want more
        d.say(late, "I joined later.")
        late.finish()
        streams.append(late)
        d.run_until(lambda: all(d.ended(s) for s in streams))
        audio = [np.concatenate([e.audio for e in d.events[s.key] if e.audio is not None]) for s in streams]
        return audio, int(d.engine.metrics.engine_steps._value.get())

    apart, steps_apart = run(-1.0)
    merged, steps_merged = run(+1.0)
    assert steps_merged < steps_apart
    for a, b in zip(apart, merged, strict=True):
        assert len(a) == len(b) and np.abs(a.astype(np.int32) - b.astype(np.int32)).max() <= 2


def test_chunks_are_not_halved_to_fit_a_tick_whose_fixed_work_dominates(runtime, monkeypatch):
    """Where a tick is mostly its chunks' own work (a GPU serving many streams), halving the frames buys
    little time and costs every stream half its audio: the lead fit leaves the chunks alone once the frames
    are less than the fixed part, even though the tick does not fit the smallest lead."""
    d = Driver(runtime, max_streams=4, stream_buffer_s=30.0)
    streams = d.start(4, "Four streams that started together keep speaking for a good while longer. " * 2)
    d.run_until(lambda: all(s.chunks >= 4 for s in streams))
    now = time.monotonic()
    hop_s = d.engine.hop / d.engine.sample_rate
    # after a 32-frame chunk each: three streams 0.45 s ahead (32 frames wanted), a newer one 0.11 s (16)
    for s, lead in zip(streams, [0.45, 0.45, 0.45, 0.11], strict=True):
        s.first_audio_at = now - s.frames * hop_s + lead
        s.last_chunk = 32
    stop_scheduler_clock(monkeypatch, now)
    # 1 ms a step and 15 ms a chunk: 61 ms of fixed work, over the 55 ms budget (half the smallest lead);
    # the 112 frames are 11.2 ms
    d.engine.cost.per_step, d.engine.cost.per_frame, d.engine.cost.per_chunk = 1e-3, 1e-4, 15e-3
    assert d.engine._growth_floor(4) == 8  # what the fit used to halve every chunk down to
    chosen, _ = d.engine._choose(streams)
    assert [want for _, want in chosen] == [16, 32, 32, 32]
    # the same tick with frames that cost more than its fixed part is still fitted (down to the floor)
    d.engine.cost.per_frame = 1e-3  # 112 ms of frames
    chosen, _ = d.engine._choose(streams)
    assert [want for _, want in chosen] == [8, 8, 8, 8]
