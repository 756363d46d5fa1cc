"""Client processes: a level's streams spread over N processes, one event loop each, and how busy each was.

Why several processes: one Python event loop parses every WebSocket frame, decodes the base64 audio and
stamps each arrival. At a few hundred streams it is busy all the time, and a busy loop reads late: the
times it records then include its own queue, not only the server's. `--clients N` runs each level as N
shards in N spawned processes, started together at the same wall-clock instant, and merges the records.

When the client was the limit: each process measures its event-loop utilization during the level, the
share of the level's wall time its loop spent running code rather than waiting in the selector for I/O
(Node.js reports the same quantity as ELU). A loop that is still waiting most of the time picks up
every arrival as it lands; one at or above `--client-busy-limit` (default 0.9) has work queued behind
work, so arrival times are late by its queue and, open loop, the offered rate is lower than intended.
Such a level is marked `client_limited` and never counts as a pass. The process's CPU use (CPU seconds
per wall second) is reported beside it: a loop can be busy while the host gives it little CPU (a
contended machine), which the CPU number shows.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import selectors
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import httpx

from .arrivals import run_open
from .runner import ClientLoad, Driver, LevelResult, StreamRecord, run_closed
from .streams import StreamOptions, http_stream, ws_stream
from .texts import TextItem

SAGEMAKER_SCHEME = "sagemaker://"
BUSY_LIMIT = 0.9
START_DELAY_S = 0.3  # shards are sent first, then all start at the same instant
ANSWER_GRACE_S = 60.0  # beyond a level's budget: a client process this late has failed


@dataclass(frozen=True)
class ClientSetup:
    """What a client process needs to build its driver (picklable: it travels to spawned processes)."""

    target: str
    protocol: str  # ws, http or sse (SageMaker targets ignore it)
    opts: StreamOptions
    region: str | None = None
    endpoint_url: str | None = None
    busy_limit: float = BUSY_LIMIT


@dataclass(frozen=True)
class LevelPlan:
    """A level, or one client process's share of it (a shard has the same shape)."""

    arrivals: str  # closed, staggered or poisson
    label: str
    items: tuple[TextItem, ...]  # the requests, in the order they are sent
    # closed/staggered: each worker's first start (one per worker); poisson: each item's arrival time
    offsets_s: tuple[float, ...]
    budget_s: float
    jitter_s: float
    concurrency: int = 0  # closed/staggered: the level's total
    rate_per_s: float | None = None


def split_level(plan: LevelPlan, clients: int) -> list[LevelPlan]:
    """Deal workers (closed) or arrivals (poisson) and items round-robin to at most `clients` shards.

    Round-robin keeps each shard's starts spread over the whole window, and gives every shard at least
    as many items as workers whenever the level has (each worker sends at least one stream).
    """
    units = len(plan.offsets_s)  # workers, or arrivals
    n = max(1, min(clients, units))
    return [replace(plan, items=plan.items[i::n], offsets_s=plan.offsets_s[i::n]) for i in range(n)]


def merge(plan: LevelPlan, parts: list[LevelResult]) -> LevelResult:
    return LevelResult(
        plan.concurrency,
        [r for p in parts for r in p.records],
        sum(p.cut for p in parts),
        max((p.elapsed_s for p in parts), default=0.0),
        arrivals=plan.arrivals,
        label=plan.label,
        rate_per_s=plan.rate_per_s,
        not_sent=sum(p.not_sent for p in parts),
        clients=[c for p in parts for c in p.clients],
    )


def make_driver(setup: ClientSetup, http_client: httpx.AsyncClient) -> Driver:
    if setup.target.startswith(SAGEMAKER_SCHEME):
        from .sagemaker import sagemaker_driver

        return sagemaker_driver(
            setup.target, setup.opts, region=setup.region, endpoint_url=setup.endpoint_url
        )
    if setup.protocol == "ws":
        return lambda item: ws_stream(setup.target, item, setup.opts)
    sse = setup.protocol == "sse"

    async def drive(item: TextItem):
        return await http_stream(http_client, setup.target, item, setup.opts, sse=sse)

    return drive


DriverFactory = Callable[[ClientSetup, httpx.AsyncClient], Driver]


class TimedSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """The platform's default selector, adding up the time the loop spends waiting in select()."""

    def __init__(self) -> None:
        super().__init__()
        self.idle_s = 0.0

    def select(self, timeout: float | None = None) -> list[Any]:
        t0 = time.perf_counter()
        try:
            return super().select(timeout)
        finally:
            self.idle_s += time.perf_counter() - t0


def run_shard(
    setup: ClientSetup,
    plan: LevelPlan,
    start_at: float | None = None,
    driver_factory: DriverFactory = make_driver,
    on_done: Callable[[StreamRecord], None] | None = None,
) -> LevelResult:
    """Run one shard on a fresh event loop in this process; `start_at` is a time.time() to start at."""
    selector = TimedSelector()
    with asyncio.Runner(loop_factory=lambda: asyncio.SelectorEventLoop(selector)) as runner:
        return runner.run(_run_shard(setup, plan, start_at, selector, driver_factory, on_done))


async def _run_shard(
    setup: ClientSetup,
    plan: LevelPlan,
    start_at: float | None,
    selector: TimedSelector,
    driver_factory: DriverFactory,
    on_done: Callable[[StreamRecord], None] | None,
) -> LevelResult:
    if start_at is not None:
        await asyncio.sleep(max(0.0, start_at - time.time()))
    limits = httpx.Limits(max_connections=len(plan.items) + 4, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=setup.opts.timeout_s, limits=limits) as http_client:
        if setup.target.startswith(SAGEMAKER_SCHEME):
            # boto3 reads block: every in-flight stream holds a worker thread, so the default pool
            # (a few threads on a small machine) would cap the concurrency the bench can offer.
            workers = len(plan.items) + 4
            asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=workers))
        driver = driver_factory(setup, http_client)
        idle0, wall0, cpu0 = selector.idle_s, time.perf_counter(), time.process_time()
        if plan.arrivals == "poisson":
            level = await run_open(
                driver,
                list(plan.items),
                list(plan.offsets_s),
                plan.budget_s,
                plan.jitter_s,
                plan.rate_per_s or 0.0,
                on_done,
            )
        else:
            level = await run_closed(
                driver,
                list(plan.items),
                len(plan.offsets_s),
                plan.budget_s,
                plan.jitter_s,
                list(plan.offsets_s),
                on_done,
                plan.label,
                plan.concurrency,
            )
        wall = max(1e-9, time.perf_counter() - wall0)
        busy = min(1.0, max(0.0, 1.0 - (selector.idle_s - idle0) / wall))
        cpu = (time.process_time() - cpu0) / wall
    level.clients = [ClientLoad(os.getpid(), busy, cpu, busy >= setup.busy_limit)]
    return level


def _serve_shards(conn: Any, setup: ClientSetup) -> None:
    """A client process: run each shard it is sent until it is sent None."""
    while True:
        try:
            msg = conn.recv()
        except EOFError:  # the parent is gone
            return
        if msg is None:
            return
        shard, start_at = msg
        try:
            conn.send(run_shard(setup, shard, start_at))
        except Exception as exc:  # reported to the parent, which stops the run with it
            conn.send(f"{type(exc).__name__}: {exc}")


class ClientPool:
    """`clients` spawned client processes (a fresh interpreter each: no state of the parent leaks in)."""

    def __init__(self, clients: int, setup: ClientSetup) -> None:
        if clients < 1:
            raise ValueError(f"clients must be >= 1, got {clients}")
        self.clients = clients
        self.setup = setup
        self._conns: list[Any] = []
        self._procs: list[Any] = []

    def __enter__(self) -> ClientPool:
        ctx = multiprocessing.get_context("spawn")
        for _ in range(self.clients):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_serve_shards, args=(child, self.setup), daemon=True)
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)
        return self

    def run(self, plan: LevelPlan) -> LevelResult:
        shards = split_level(plan, self.clients)
        start_at = time.time() + START_DELAY_S
        for conn, shard in zip(self._conns, shards, strict=False):
            conn.send((shard, start_at))
        parts = []
        for conn in self._conns[: len(shards)]:
            if not conn.poll(START_DELAY_S + plan.budget_s + ANSWER_GRACE_S):
                raise RuntimeError(f"a client process gave no result for level {plan.label}")
            reply = conn.recv()
            if isinstance(reply, str):
                raise RuntimeError(f"a client process failed at level {plan.label}: {reply}")
            parts.append(reply)
        return merge(plan, parts)

    def __exit__(self, *exc: object) -> None:
        for conn in self._conns:
            try:
                conn.send(None)
            except OSError:
                pass  # that process is already gone
        for proc in self._procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
        for conn in self._conns:
            conn.close()
