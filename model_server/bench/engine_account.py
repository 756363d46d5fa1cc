"""The engine's own account of a level: the server's /metrics read before and after it.

The client's records say what the listeners got; this says where the engine thread's time went meanwhile
(`scheduler.PhaseTimes`), how many steps its ticks ran (one per chunk length they could not merge) and
what its cost model believed at the end (`engine.cost.TickCost`). Together they tell whether a level was
limited by the engine thread, and by which part of it (`us_per_chunk`, per phase): `busy` is the seconds it
worked per wall second, and the engine makes audio as fast as it can while streams have room in their
buffers, so it is near 1 at low concurrency too (one stream runs far ahead of real time); near 1 with the
streams only just ahead of real time, or stalling, the engine thread is the limit. Only a Statespeak server has these metrics: for any other target, or a
SageMaker endpoint, there is no account (None). Behind a load balancer each scrape reads whichever replica
answers, so point the bench at one replica (or `--local`) for an account that means something; a counter
that went down between the scrapes (another replica, or a restarted engine) gives no account.
"""

from __future__ import annotations

from typing import Any

PHASES = "statespeak_engine_phase_seconds"
COUNTERS = {
    "statespeak_engine_steps": "steps",
    "statespeak_engine_ticks": "ticks",
    "statespeak_engine_batch_size": "batch",  # a histogram: its _sum and _count
}
GAUGES = {
    "statespeak_engine_step_seconds_fixed": "step_fixed_s",
    "statespeak_engine_step_seconds_per_frame": "step_per_frame_s",
    "statespeak_engine_seconds_per_chunk": "per_chunk_s",
}


def parse(text: str) -> dict[str, Any]:
    """The engine's counters and gauges from a Prometheus text exposition (prometheus_client's parser). A
    server with several engine processes labels each sample `engine="k"`: counters and phase seconds are
    summed over them (so `busy` is engine-seconds per wall second, up to the engine count), the cost
    model's gauges averaged; `engines` says how many answered."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, Any] = {"phases": {}}
    gauges: dict[str, list[float]] = {}
    engines: set[str] = set()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if family.name == PHASES and sample.name.endswith("_total"):
                phase = sample.labels["phase"]
                out["phases"][phase] = out["phases"].get(phase, 0.0) + sample.value
                engines.add(sample.labels.get("engine", "0"))
            elif family.name in COUNTERS:
                key = COUNTERS[family.name]
                for suffix, name in (("_total", key), ("_sum", key + "_sum"), ("_count", key + "_count")):
                    if sample.name.endswith(suffix):
                        out[name] = out.get(name, 0.0) + sample.value
            elif family.name in GAUGES:
                gauges.setdefault(GAUGES[family.name], []).append(sample.value)
    out.update({key: sum(values) / len(values) for key, values in gauges.items()})
    out["engines"] = max(1, len(engines))
    return out


def scrape(url: str, timeout_s: float = 10.0) -> dict[str, Any] | None:
    """The parsed engine metrics of the server at `url` (http or https), or None when it has none."""
    import httpx

    from model_server.contract import METRICS_PATH

    try:
        response = httpx.get(url.rstrip("/") + METRICS_PATH, timeout=timeout_s)
        response.raise_for_status()
        found = parse(response.text)
    except (httpx.HTTPError, ValueError, ImportError):
        return None
    return found if found["phases"] else None


def level_account(before: dict | None, after: dict | None, elapsed_s: float, chunks: int) -> dict | None:
    """What the engine did between two scrapes around a level of `elapsed_s` wall seconds in which the
    listeners got `chunks` chunks."""
    if before is None or after is None or elapsed_s <= 0:
        return None
    counters = [(after.get(k, 0.0), before.get(k, 0.0)) for k in ("ticks", "steps", "batch_count")]
    counters += [(s, before["phases"].get(p, 0.0)) for p, s in after["phases"].items()]
    if any(a < b for a, b in counters):  # not the same engine process both times
        return None

    def delta(key: str) -> float:
        return after.get(key, 0.0) - before.get(key, 0.0)

    phases = {p: s - before["phases"].get(p, 0.0) for p, s in after["phases"].items()}
    worked = sum(phases.values())
    ticks, steps, batches = delta("ticks"), delta("steps"), delta("batch_count")
    return {
        "busy": worked
        / elapsed_s,  # the engine threads' working seconds per wall second (summed over engines)
        "engines": after.get("engines", 1),
        "ticks": ticks,
        "steps": steps,
        "steps_per_tick": steps / ticks if ticks else None,
        "mean_batch": delta("batch_sum") / batches if batches else None,
        "phase_s": phases,
        "us_per_chunk": (
            {p: s * 1e6 / chunks for p, s in phases.items() if s > 0} | {"all": worked * 1e6 / chunks}
            if chunks
            else None
        ),
        # the cost model at the level's end
        "step_fixed_ms": after.get("step_fixed_s", 0.0) * 1e3,
        "step_per_frame_us": after.get("step_per_frame_s", 0.0) * 1e6,
        "per_chunk_us": after.get("per_chunk_s", 0.0) * 1e6,
    }
