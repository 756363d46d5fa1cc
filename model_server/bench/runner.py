"""Closed-loop levels: keep N streams in flight, collect per-stream records, summarize each level.

A level with concurrency C runs C workers; each worker sends one stream, waits for it to finish and
sends the next, so C streams are in flight at all times until the level has sent `streams` streams or
its time budget runs out. Streams still in flight at the budget's end are cancelled and counted as
`cut`, not as failures. Workers may start staggered (`start_offsets_s`) instead of all at once; open-loop
(Poisson) levels are in `arrivals.py`, the spread over several client processes in `clients.py`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
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
    level: str = ""  # the level's label, e.g. "c=8" or "4/s poisson" (groups records in the plot)
    start_s: float = 0.0  # when the stream's request began, seconds since the level started
    end_s: float = 0.0  # when the stream ended, same clock


def record_from(
    raw: RawStream,
    concurrency: int,
    jitter_s: float,
    level: str = "",
    start_s: float = 0.0,
    end_s: float = 0.0,
) -> StreamRecord:
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
        level=level,
        start_s=start_s,
        end_s=end_s,
    )


@dataclass(frozen=True)
class ClientLoad:
    """How loaded one client process was during a level (see clients.py for how it is measured)."""

    pid: int
    loop_busy: float  # share of the level's wall time the event loop spent running code, not waiting
    cpu: float  # process CPU seconds per wall second (1.0 = one core)
    saturated: bool  # loop_busy at or above the limit: the client, not the server, may set the pace


def in_flight(records: list[StreamRecord], elapsed_s: float) -> tuple[float, int]:
    """(time-averaged, peak) number of streams in flight over the level, from each stream's span."""
    if not records or elapsed_s <= 0:
        return 0.0, 0
    busy = sum(max(0.0, r.end_s - r.start_s) for r in records)
    events = sorted([(r.start_s, 1) for r in records] + [(r.end_s, -1) for r in records])
    peak = now = 0
    for _, step in events:  # an end sorts before a start at the same instant: no false overlap
        now += step
        peak = max(peak, now)
    return busy / elapsed_s, peak


@dataclass
class LevelResult:
    concurrency: int
    records: list[StreamRecord]
    cut: int
    elapsed_s: float
    arrivals: str = "closed"  # closed, staggered or poisson
    label: str = ""
    rate_per_s: float | None = None  # poisson: the offered arrival rate
    not_sent: int = 0  # poisson: arrivals scheduled after the level's time budget ran out
    clients: list[ClientLoad] = field(default_factory=list)
    server_cpu_s: float | None = None  # --local: CPU seconds the server process used during the level
    engine: dict[str, Any] | None = None  # the engine's account of the level (bench.engine_account)
    gpu_busy_s: float | None = None  # seconds the GPU ran kernels during the level (NVML, tools/gpu_bench.py)

    def summary(self, ttfa_target_ms: float) -> dict[str, Any]:
        ok = [r for r in self.records if r.status == StreamStatus.OK]
        rejected = sum(r.status == StreamStatus.REJECTED for r in self.records)
        errors = sum(r.status == StreamStatus.ERROR for r in self.records)
        ttfa = summarize([r.client_ttfa_ms for r in ok])
        audio = sum(r.audio_s for r in ok)
        stalls = sum(r.stalls for r in ok)
        client_limited = any(c.saturated for c in self.clients)
        # A level a client process limited proves nothing about the server either way: never a pass.
        # A stream still running when the level's time ran out went unheard past that point: its listener
        # may have been waiting on silence for seconds, so it fails the level too (it passed as "cut").
        meets = (
            bool(ok)
            and not rejected
            and not errors
            and not self.cut
            and stalls == 0
            and (ttfa["p99"] or 0) < ttfa_target_ms
            and not client_limited
        )
        # Streams the server carried: a refused request is not a stream in flight.
        carried = [r for r in self.records if r.status != StreamStatus.REJECTED]
        mean_in_flight, peak_in_flight = in_flight(carried, self.elapsed_s)
        return {
            # Open loop: the concurrency is what the arrivals made of it, the peak in flight.
            "concurrency": peak_in_flight if self.arrivals == "poisson" else self.concurrency,
            "label": self.label or f"c={self.concurrency}",
            "arrivals": self.arrivals,
            "rate_per_s": self.rate_per_s,
            "in_flight_mean": mean_in_flight,
            "in_flight_peak": peak_in_flight,
            "not_sent": self.not_sent,
            "clients": len(self.clients) or 1,
            "client_loop_busy_max": max((c.loop_busy for c in self.clients), default=None),
            "client_cpu_max": max((c.cpu for c in self.clients), default=None),
            "client_limited": client_limited,
            "client_load": [asdict(c) for c in self.clients],
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
            "server_cpu_s": self.server_cpu_s,
            # What one second of delivered audio cost the server in CPU (ms), whatever else shared the cores.
            "server_cpu_ms_per_audio_s": (
                self.server_cpu_s * 1000.0 / audio if self.server_cpu_s is not None and audio > 0 else None
            ),
            "engine": self.engine,
            # The share of the level's wall time the GPU ran a kernel: low beside an engine busy near 1 says
            # the engine's host work, not the GPU, is the limit.
            "gpu_busy": self.gpu_busy_s / self.elapsed_s
            if self.gpu_busy_s is not None and self.elapsed_s > 0
            else None,
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
    items = [mix.next() for _ in range(max(streams, concurrency))]  # every worker sends at least one
    return await run_closed(driver, items, concurrency, budget_s, jitter_s, on_done=on_done)


async def run_closed(
    driver: Driver,
    items: list[TextItem],
    workers: int,
    budget_s: float,
    jitter_s: float,
    start_offsets_s: list[float] | None = None,
    on_done: Callable[[StreamRecord], None] | None = None,
    level: str = "",
    concurrency: int | None = None,
) -> LevelResult:
    """`workers` streams in flight until `items` are sent or the budget is spent.

    Worker i waits `start_offsets_s[i]` before its first stream (staggered starts). `concurrency` is the
    level's total when this is one client process's share of it (records carry the level's number).
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    offsets = start_offsets_s or [0.0] * workers
    if len(offsets) != workers:
        raise ValueError(f"{len(offsets)} start offsets for {workers} workers")
    if len(items) < workers:
        raise ValueError(f"{len(items)} items for {workers} workers: each worker sends at least one")
    level_c = concurrency or workers
    # Each worker's first stream is its own: a worker that starts early (staggered) cannot take the
    # streams of those that start later. The rest go to whichever worker is free first.
    firsts = list(items[:workers])
    queue = list(reversed(items[workers:]))
    in_flight = 0
    records: list[StreamRecord] = []
    start = time.monotonic()
    deadline = start + budget_s

    async def worker(first: TextItem, offset: float) -> None:
        nonlocal in_flight
        await asyncio.sleep(offset)
        item: TextItem | None = first
        while item is not None and time.monotonic() < deadline:
            in_flight += 1
            sent = time.monotonic() - start
            raw = await drive_guarded(driver, item)
            in_flight -= 1
            rec = record_from(raw, level_c, jitter_s, level, sent, time.monotonic() - start)
            records.append(rec)
            if on_done is not None:
                on_done(rec)
            item = queue.pop() if queue else None

    tasks = [asyncio.create_task(worker(f, o)) for f, o in zip(firsts, offsets, strict=True)]
    _, pending = await asyncio.wait(tasks, timeout=max(0.0, deadline - time.monotonic()))
    cut = in_flight if pending else 0
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    arrivals = "staggered" if any(offsets) else "closed"
    return LevelResult(level_c, records, cut, time.monotonic() - start, arrivals=arrivals, label=level)


async def drive_guarded(driver: Driver, item: TextItem) -> RawStream:
    """`driver(item)`, with anything it raises (a malformed server message the driver did not expect) made an
    error stream: it killed the worker, the stream vanished from the level and the level still passed."""
    try:
        return await driver(item)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return RawStream(item.kind, len(item.text), StreamStatus.ERROR, f"{type(exc).__name__}: {exc}"[:300])


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


def streams_per_replica(summaries: list[dict[str, Any]], arrivals: str = "closed") -> int | None:
    """Highest concurrency whose level met the target (p99 TTFA under it, no stalls, no failures, no
    saturated client), among the levels of one arrival model: `closed` (every stream of the level starts
    at once) or `staggered` (the same C in flight, first starts spread out). They are reported apart: a
    level that starts its C streams at once is the harder test, and a staggered level must not pass
    for it. Open-loop (Poisson) levels have their own measure (arrivals.open_capacity).

    None when the run had no level of that model; 0 when none met the target. A lower level that failed
    (on a shared machine, usually one slow outlier: with a dozen streams the p99 is close to the slowest
    stream) does not cap it; the table shows it.
    """
    if arrivals not in ("closed", "staggered"):
        raise ValueError(f"arrivals must be closed or staggered, got {arrivals!r}")
    levels = [s for s in summaries if s.get("arrivals", "closed") == arrivals]
    if not levels:
        return None
    return max((s["concurrency"] for s in levels if s["meets_target"]), default=0)


def records_as_dicts(levels: list[LevelResult]) -> list[dict[str, Any]]:
    return [asdict(r) for level in levels for r in level.records]
