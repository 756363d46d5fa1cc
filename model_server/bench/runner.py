"""Concurrency levels: keep N streams in flight, collect per-stream records, summarize each level.

A level with concurrency C runs C workers; each worker sends one stream, waits for it to finish and
sends the next, so C streams are in flight at all times until the level has sent `streams` streams or
its time budget runs out. Streams still in flight at the budget's end are cancelled and counted as
`cut`, not as failures.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Any

from .playback import simulate_playback, summarize
from .streams import RawStream, StreamStatus
from .texts import TextItem, TextMix

Driver = Callable[[TextItem], Awaitable[RawStream]]


@dataclass(frozen=True)
class StreamRecord:
    """One finished stream, as the tables and the JSON report see it. Times in milliseconds."""

    concurrency: int
    kind: str
    chars: int
    status: str
    error: str | None
    client_ttfa_ms: float | None  # request sent -> first audio byte received, client clock
    server_ttfa_ms: float | None  # as the server reported it (request accepted -> first audio sent)
    playback_start_ms: float | None  # client TTFA plus the time to fill the jitter buffer
    stalls: int
    stall_ms: float
    max_gap_ms: float
    chunks: int
    audio_s: float
    wall_s: float


def record_from(raw: RawStream, concurrency: int, jitter_s: float) -> StreamRecord:
    play = simulate_playback(raw.arrivals, jitter_s)
    first = raw.arrivals[0][0] * 1000.0 if raw.arrivals else None
    status = raw.status
    if status == StreamStatus.OK and not raw.arrivals:
        # A stream that "succeeds" with no audio is a failure from the listener's side.
        status, raw.error = StreamStatus.ERROR, "stream finished without audio"
    return StreamRecord(
        concurrency=concurrency,
        kind=raw.kind,
        chars=raw.chars,
        status=status,
        error=raw.error,
        client_ttfa_ms=first,
        server_ttfa_ms=raw.server_ttfa_ms,
        playback_start_ms=None if play.playback_start_s is None else play.playback_start_s * 1000.0,
        stalls=play.stalls,
        stall_ms=play.stall_s * 1000.0,
        max_gap_ms=play.max_gap_s * 1000.0,
        chunks=len(raw.arrivals),
        audio_s=play.audio_s,
        wall_s=raw.wall_s,
    )


@dataclass
class LevelResult:
    concurrency: int
    records: list[StreamRecord]
    cut: int
    elapsed_s: float

    def summary(self, ttfa_target_ms: float) -> dict[str, Any]:
        ok = [r for r in self.records if r.status == StreamStatus.OK]
        rejected = sum(r.status == StreamStatus.REJECTED for r in self.records)
        errors = sum(r.status == StreamStatus.ERROR for r in self.records)
        ttfa = summarize([r.client_ttfa_ms for r in ok])
        audio = sum(r.audio_s for r in ok)
        stalls = sum(r.stalls for r in ok)
        meets = (
            bool(ok) and not rejected and not errors and stalls == 0 and (ttfa["p99"] or 0) < ttfa_target_ms
        )
        return {
            "concurrency": self.concurrency,
            "streams": len(self.records),
            "ok": len(ok),
            "rejected": rejected,
            "errors": errors,
            "cut": self.cut,
            "elapsed_s": self.elapsed_s,
            "client_ttfa_ms": ttfa,
            "server_ttfa_ms": summarize([r.server_ttfa_ms for r in ok if r.server_ttfa_ms is not None]),
            "playback_start_ms": summarize([r.playback_start_ms for r in ok]),
            "max_gap_ms": summarize([r.max_gap_ms for r in ok]),
            "stall_ms": summarize([r.stall_ms for r in ok]),
            "stalls": stalls,
            "streams_with_stalls": sum(r.stalls > 0 for r in ok),
            "audio_s": audio,
            # Seconds of audio delivered per wall second over the level: how many real-time listeners
            # the server fed on average.
            "audio_per_wall_s": audio / self.elapsed_s if self.elapsed_s > 0 else 0.0,
            "meets_target": meets,
            "first_errors": sorted({r.error for r in self.records if r.error})[:3],
        }


async def run_level(
    driver: Driver,
    mix: TextMix,
    concurrency: int,
    streams: int,
    budget_s: float,
    jitter_s: float,
    on_done: Callable[[StreamRecord], None] | None = None,
) -> LevelResult:
    """Run one level: `concurrency` streams in flight, at least `concurrency` and `streams` in total."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    total = max(streams, concurrency)  # every worker sends at least one stream
    to_send = total
    in_flight = 0
    records: list[StreamRecord] = []
    start = time.monotonic()
    deadline = start + budget_s

    async def worker() -> None:
        nonlocal to_send, in_flight
        while to_send > 0 and time.monotonic() < deadline:
            to_send -= 1
            item = mix.next()
            in_flight += 1
            raw = await driver(item)
            in_flight -= 1
            rec = record_from(raw, concurrency, jitter_s)
            records.append(rec)
            if on_done is not None:
                on_done(rec)

    tasks = [asyncio.create_task(worker()) for _ in range(concurrency)]
    _, pending = await asyncio.wait(tasks, timeout=max(0.0, deadline - time.monotonic()))
    cut = in_flight if pending else 0
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    return LevelResult(concurrency, records, cut, time.monotonic() - start)


def ramp_levels(max_concurrency: int) -> list[int]:
    """1, 2, 4, ... up to and including max_concurrency."""
    if max_concurrency < 1:
        raise ValueError(f"ramp maximum must be >= 1, got {max_concurrency}")
    levels, c = [], 1
    while c < max_concurrency:
        levels.append(c)
        c *= 2
    levels.append(max_concurrency)
    return levels


def streams_per_replica(summaries: list[dict[str, Any]]) -> int:
    """Highest concurrency whose level met the target (p99 TTFA under it, no stalls, no failures).

    0 when no level did. A lower level that failed (on a shared machine, usually one slow outlier: with
    a dozen streams the p99 is close to the slowest stream) does not cap it; the table shows it.
    """
    return max((s["concurrency"] for s in summaries if s["meets_target"]), default=0)


def records_as_dicts(levels: list[LevelResult]) -> list[dict[str, Any]]:
    return [asdict(r) for level in levels for r in level.records]
