"""Torch's CPU thread pools in the engine process, sized once at start instead of left to torch's defaults.

Only the engine process imports torch (the API workers never do), so only it calls this. Why it matters:
the API workers and torch's intra-op pool share the host's cores. An intra-op pool larger than the cores
the engine may use (torch counts the host's cores, not a container's CPU share) makes its threads spin
against each other and against the workers; on a 2-core machine the per-stream encoder work cost 1.4 ms
per audio second with one torch thread and 5.6 ms with two (docs/benchmarks.md, before the encoder was
batched over streams). Since then, on the same machine with one worker, two threads (or two engine
processes) carried more audio under load than one (docs/benchmarks.md, "Two engine processes on the
2-core CPU"): the plan is unchanged until more than three noisy rounds say so. Inter-op threads serve
only forked graph work, which the server does not use: one on CPU, two on CUDA (kernel launches overlap
host work there).

Precedence for the intra-op count: STATESPEAK_TORCH_THREADS, then OMP_NUM_THREADS (what torch itself
reads), then by device: on CUDA one thread (the host side only launches kernels, so none spin against the
workers); on the CPU the CPUs this process may run on (its affinity mask, capped by a cgroup v2 CPU quota)
less one per API worker, shared among the engine processes (`STATESPEAK_ENGINES`), at least one.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass
from pathlib import Path

from model_server.config import ENV_TORCH_THREADS, ServerConfig

log = logging.getLogger("statespeak.threads")
CGROUP_CPU_MAX = Path("/sys/fs/cgroup/cpu.max")


def available_cpus(cpu_max: Path = CGROUP_CPU_MAX) -> int:
    """CPUs this process may use: the affinity mask, capped by a cgroup v2 quota ("QUOTA PERIOD")."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        quota, period = cpu_max.read_text().split()[:2]
        if quota != "max":
            cpus = min(cpus, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass  # no cgroup v2 quota visible: the affinity mask is the bound
    return max(1, cpus)


@dataclass(frozen=True)
class ThreadPlan:
    intra_op: int
    inter_op: int
    source: str  # where the intra-op count came from, for the start log


def plan_threads(config: ServerConfig, cuda: bool, env: dict[str, str] | None = None) -> ThreadPlan:
    """The engine's plan; `config.workers` API workers (0 in-process: none) share the host's CPUs."""
    env = dict(os.environ if env is None else env)
    omp = env.get("OMP_NUM_THREADS", "").strip()
    if config.torch_threads:
        intra, source = config.torch_threads, ENV_TORCH_THREADS
    elif omp.isdigit() and int(omp) > 0:
        intra, source = int(omp), "OMP_NUM_THREADS"
    elif cuda:
        intra, source = 1, "CUDA device"
    else:
        intra, source = max(1, (available_cpus() - config.workers) // config.engines), "available CPUs"
    inter = config.torch_interop_threads or (2 if cuda else 1)
    return ThreadPlan(intra, inter, source)


def configure_torch_threads(config: ServerConfig) -> ThreadPlan:
    """Apply the plan before the model loads (torch refuses a new inter-op count once work has run)."""
    import torch

    cuda = config.device.startswith("cuda") or (config.device == "auto" and torch.cuda.is_available())
    plan = plan_threads(config, cuda)
    torch.set_num_threads(plan.intra_op)
    try:
        torch.set_num_interop_threads(plan.inter_op)
    except RuntimeError as exc:  # already started in this process (a second server in one test process)
        log.warning("torch inter-op threads already set", extra={"error": str(exc)})
    log.info(
        "torch threads",
        extra={
            "intra_op_threads": torch.get_num_threads(),
            "inter_op_threads": torch.get_num_interop_threads(),
            "source": plan.source,
            "api_workers": config.workers,
            "engines": config.engines,
        },
    )
    return plan
