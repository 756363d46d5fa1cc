"""Arrival models: when the streams of a level start.

- closed (runner.run_closed): C streams in flight; a new one starts the moment one ends. All C first
  requests leave together, a thundering herd no real fleet sees.
- staggered: closed loop, but the C workers' first requests are spread evenly over a window, as calls
  ramp up over a minute rather than landing in the same millisecond.
- poisson (open loop): streams arrive at a given rate with exponential gaps, as independent callers do,
  whether or not earlier streams have finished. The server's load is what the rate and its own speed
  make of it (Little's law: streams in flight = rate x time per stream); past capacity the in-flight
  count grows until admission control refuses streams. This is the capacity measurement a fleet sizes by.

Schedules are pure functions of their arguments and a seed, so two runs send the same arrivals.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

from .runner import Driver, LevelResult, StreamRecord, drive_guarded, record_from
from .texts import TextItem

ARRIVAL_MODELS = ("closed", "staggered", "poisson")


def poisson_arrivals(rate_per_s: float, seconds: float, seed: int | str) -> list[float]:
    """Arrival times in [0, seconds) of a Poisson process with `rate_per_s` (exponential gaps)."""
    if rate_per_s <= 0 or seconds <= 0:
        raise ValueError(f"rate and duration must be > 0, got {rate_per_s}/s over {seconds} s")
    rng = random.Random(seed)
    times, t = [], rng.expovariate(rate_per_s)
    while t < seconds:
        times.append(t)
        t += rng.expovariate(rate_per_s)
    return times


def staggered_offsets(concurrency: int, window_s: float) -> list[float]:
    """First start of each of `concurrency` workers, evenly over [0, window_s)."""
    if concurrency < 1 or window_s < 0:
        raise ValueError(f"need concurrency >= 1 and window >= 0, got {concurrency}, {window_s}")
    return [i * window_s / concurrency for i in range(concurrency)]


def poisson_label(rate_per_s: float) -> str:
    return f"{rate_per_s:g}/s poisson"


async def run_open(
    driver: Driver,
    items: list[TextItem],
    arrivals_s: list[float],
    budget_s: float,
    jitter_s: float,
    rate_per_s: float,
    on_done: Callable[[StreamRecord], None] | None = None,
) -> LevelResult:
    """Start stream i at `arrivals_s[i]` whatever else is in flight; wait for all until the budget ends.

    Arrivals later than the budget are not sent (`not_sent`); streams running at its end are `cut`.
    """
    if len(items) != len(arrivals_s):
        raise ValueError(f"{len(items)} items for {len(arrivals_s)} arrivals")
    label = poisson_label(rate_per_s)
    records: list[StreamRecord] = []
    sent_count = 0
    start = time.monotonic()
    deadline = start + budget_s

    async def one(item: TextItem, at: float) -> None:
        nonlocal sent_count
        await asyncio.sleep(max(0.0, start + at - time.monotonic()))
        sent_count += 1
        sent = time.monotonic() - start
        raw = await drive_guarded(driver, item)
        rec = record_from(raw, 0, jitter_s, label, sent, time.monotonic() - start)
        records.append(rec)
        if on_done is not None:
            on_done(rec)

    scheduled = [(item, at) for item, at in zip(items, arrivals_s, strict=True) if at < budget_s]
    tasks = [asyncio.create_task(one(item, at)) for item, at in scheduled]
    pending: set[asyncio.Task] = set()
    if tasks:
        _, pending = await asyncio.wait(tasks, timeout=max(0.0, deadline - time.monotonic()))
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    return LevelResult(
        0,  # the level's concurrency is what the arrivals made of it: see in_flight in the summary
        records,
        sent_count - len(records),
        time.monotonic() - start,
        arrivals="poisson",
        label=label,
        rate_per_s=rate_per_s,
        not_sent=len(items) - sent_count,
    )


def open_capacity(summaries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The highest Poisson rate that met the target, with the load it made; None when none did."""
    passed = [s for s in summaries if s.get("arrivals") == "poisson" and s["meets_target"]]
    if not passed:
        return None
    best = max(passed, key=lambda s: s["rate_per_s"])
    keys = ("rate_per_s", "in_flight_mean", "in_flight_peak", "audio_per_wall_s")
    return {k: best[k] for k in keys}
