"""The engine directly, on the real runtime (random weights): batching, buffers, cancel, admission."""

from __future__ import annotations

import asyncio
import io
import time

import pytest

from model_server.metrics import ServerMetrics
from model_server.model.runtime import SpeechRuntime
from model_server.scheduler import AdmissionError, Engine, split_text

from ._server import VOICES

VOICE = VOICES[0][0]


@pytest.fixture(scope="module")
def runtime(model_dir):
    return SpeechRuntime.load(model_dir, device="cpu")


def make_engine(runtime, max_streams=4, **kw) -> Engine:
    metrics = ServerMetrics("test", max_streams, emf_out=io.StringIO())
    engine = Engine(runtime, max_streams, metrics=metrics, **kw)
    engine.accepting = True
    engine.start()
    return engine


async def drain_events(stream, consume=True):
    events = []
    async for ev in stream.events():
        if ev.audio is not None and consume:
            stream.consumed(len(ev.audio))
        events.append(ev)
    return events


@pytest.mark.parametrize("text", ["", "short", "a b c " * 40, "x" * 130 + " tail", "  lead and trail  "])
def test_split_text_pieces_concatenate_back(text):
    pieces = split_text(text, 16)
    assert "".join(pieces) == text
    assert all(p for p in pieces)


def test_concurrent_streams_share_batched_steps(runtime):
    engine = make_engine(runtime)

    async def main():
        streams = [engine.open_stream(VOICE, "en", 1.0) for _ in range(4)]
        for s in streams:
            s.feed("Four streams speak at once, in one batch.")
            s.finish()
        return await asyncio.gather(*(drain_events(s) for s in streams))

    try:
        results = asyncio.run(main())
    finally:
        engine.stop()
    lengths = {sum(len(e.audio) for e in evs if e.audio is not None) for evs in results}
    assert len(lengths) == 1 and lengths.pop() > 0  # same text: same frames in every stream
    assert all(evs[-1].kind == "done" for evs in results)
    batch = engine.metrics.engine_batch
    sizes = {s.labels["le"]: s.value for s in batch.collect()[0].samples if s.name.endswith("_bucket")}
    assert sizes["1.0"] < sizes["+Inf"]  # some steps advanced more than one stream
    # chunk sizes start small for time to first audio, then grow
    first = [e for e in results[0] if e.kind == "audio"]
    assert len(first[0].audio) == engine.first_chunk * engine.hop
    assert max(len(e.audio) for e in first) > len(first[0].audio)
    assert engine.active_count() == 0


def test_reader_that_stops_reading_is_skipped_without_blocking_others(runtime):
    engine = make_engine(runtime, stream_buffer_s=0.1, max_chunk_frames=8)

    async def main():
        stalled = engine.open_stream(VOICE, "en", 1.0)
        stalled.feed("This stream's client never reads anything at all, so it must wait. " * 3)
        stalled.finish()
        reader = engine.open_stream(VOICE, "en", 1.0)
        reader.feed("This one reads, and finishes.")
        reader.finish()
        got = await asyncio.wait_for(drain_events(reader), 60)
        await asyncio.sleep(0.2)
        held = stalled._buffered
        active = engine.active_count()
        stalled.cancel()
        cancelled = await asyncio.wait_for(drain_events(stalled, consume=False), 10)
        return got, held, active, cancelled

    try:
        got, held, active, cancelled = asyncio.run(main())
        assert got[-1].kind == "done"
        # the stalled stream stopped at its buffer bound (plus at most one chunk) and kept its slot
        assert 0 < held <= engine.buffer_limit + engine.max_chunk * engine.hop
        assert active == 1
        assert cancelled[-1].kind == "cancelled"
        assert engine.active_count() == 0
    finally:
        engine.stop()


def test_stalled_client_loses_its_slot_after_the_timeout(runtime):
    engine = make_engine(runtime, stream_buffer_s=0.1, stall_timeout_s=0.3)

    async def main():
        s = engine.open_stream(VOICE, "en", 1.0)
        s.feed("Nobody reads this stream, it will be dropped for stalling.")
        s.finish()
        return await asyncio.wait_for(drain_events(s, consume=False), 30)

    try:
        events = asyncio.run(main())
    finally:
        engine.stop()
    assert events[-1].kind == "error" and "read nothing" in events[-1].message
    assert engine.active_count() == 0


def test_cancel_stops_generation_and_frees_the_slot_at_once(runtime):
    # a small buffer bounds how far the engine runs ahead of this (deliberately slow) consumer
    engine = make_engine(runtime, max_streams=1, stream_buffer_s=0.5)

    async def main():
        s = engine.open_stream(VOICE, "en", 1.0)
        s.feed("A long text to cancel part way. " * 10)
        s.finish()
        async for ev in s.events():
            if ev.kind == "audio":
                s.consumed(len(ev.audio))
                t0 = time.perf_counter()
                s.cancel()
                break
        rest = await drain_events(s)
        freed_after = time.perf_counter() - t0
        again = engine.open_stream(VOICE, "en", 1.0)  # the only slot is free again
        again.cancel()
        await drain_events(again)
        return rest, freed_after, s

    try:
        rest, freed_after, s = asyncio.run(main())
    finally:
        engine.stop()
    assert rest[-1].kind == "cancelled"
    assert s._e_frames < 200  # far less than the whole text
    assert freed_after < 5.0


def test_admission_refuses_beyond_max_streams_and_while_draining(runtime):
    engine = make_engine(runtime, max_streams=2)

    async def main():
        a = engine.open_stream(VOICE, "en", 1.0)
        b = engine.open_stream(VOICE, "en", 1.0)
        with pytest.raises(AdmissionError) as full:
            engine.open_stream(VOICE, "en", 1.0)
        assert full.value.reason == "full"
        a.cancel()
        await drain_events(a)
        engine.draining = True
        with pytest.raises(AdmissionError) as draining:
            engine.open_stream(VOICE, "en", 1.0)
        assert draining.value.reason == "draining"
        b.feed("Streams already admitted finish during a drain.")
        b.finish()
        return await drain_events(b)

    try:
        events = asyncio.run(main())
    finally:
        engine.stop()
    assert events[-1].kind == "done"


def test_unknown_voice_fails_only_that_stream(runtime):
    engine = make_engine(runtime)

    async def main():
        bad = engine.open_stream("nobody", "en", 1.0)
        good = engine.open_stream(VOICE, "en", 1.0)
        good.feed("Fine.")
        good.finish()
        return await drain_events(bad), await drain_events(good)

    try:
        bad, good = asyncio.run(main())
    finally:
        engine.stop()
    assert bad[-1].kind == "error" and "nobody" in bad[-1].message
    assert good[-1].kind == "done"
    assert engine.active_count() == 0
