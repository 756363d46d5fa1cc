"""Bench output: the console/markdown table, the JSON file, the PNG plot and the docs refresh."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DOCS_BEGIN = "<!-- bench:cpu:begin -->"
DOCS_END = "<!-- bench:cpu:end -->"


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v:.0f}"


def _busy(s: dict[str, Any]) -> str:
    busy = s.get("client_loop_busy_max")
    if busy is None:
        return "-"
    return f"{busy:.2f} **client-limited**" if s.get("client_limited") else f"{busy:.2f}"


def _engine_busy(s: dict[str, Any]) -> str:
    """The engine thread's working seconds per wall second over the level (it races ahead of real time
    while streams have buffer room, so near 1 means the limit only where streams are barely real-time)."""
    engine = s.get("engine") or {}
    return f"{engine['busy']:.2f}" if engine.get("busy") is not None else "-"


def markdown_table(summaries: list[dict[str, Any]]) -> str:
    """One row per level; TTFA columns are client-side unless marked server.

    level: c=N closed loop (N streams in flight), "staggered" when the first starts were spread, R/s
    poisson for open-loop arrivals. in flight: time-averaged / peak streams the server carried (refused
    requests excluded), from each stream's start and end on the client clock. engine busy: the engine's
    own account of the level (`engine_account`), where the target is a Statespeak server: working seconds
    per wall second, summed over its engine processes (up to their count).
    """
    head = (
        "| level | clients | streams | ok | 503 | err | cut | in flight mean / peak | TTFA p50 | p95 | p99 | max "
        "| server TTFA p50 | p99 | max gap p99 | stalls (streams) | stall ms p99 | audio s / wall s "
        "| client loop busy max | server CPU ms / audio s | engine busy |"
    )
    sep = "|" + "---:|" * 21
    rows = [head, sep]
    for s in summaries:
        t, st, gap, sms = s["client_ttfa_ms"], s["server_ttfa_ms"], s["max_gap_ms"], s["stall_ms"]
        label = s.get("label") or f"c={s['concurrency']}"
        rows.append(
            f"| {label} | {s.get('clients', 1)} | {s['streams']} | {s['ok']} | {s['rejected']} | {s['errors']} "
            f"| {s['cut']} | {s.get('in_flight_mean', 0):.1f} / {s.get('in_flight_peak', 0)} "
            f"| {_ms(t['p50'])} | {_ms(t['p95'])} | {_ms(t['p99'])} | {_ms(t['max'])} "
            f"| {_ms(st['p50'])} | {_ms(st['p99'])} | {_ms(gap['p99'])} "
            f"| {s['stalls']} ({s['streams_with_stalls']}) | {_ms(sms['p99'])} | {s['audio_per_wall_s']:.2f} "
            f"| {_busy(s)} | {_ms(s.get('server_cpu_ms_per_audio_s'))} | {_engine_busy(s)} |"
        )
    return "\n".join(rows)


def write_json(path: Path, result: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, sort_keys=False) + "\n")


def _curve(ax: Any, xs: list[float], summaries: list[dict[str, Any]], name: str) -> None:
    for key, marker in (("p50", "o-"), ("p99", "s-")):
        ys = [s["client_ttfa_ms"][key] for s in summaries]
        ax.plot(xs, [v if v is not None else float("nan") for v in ys], marker, label=f"{name} TTFA {key}")


def plot(
    path: Path, summaries: list[dict[str, Any]], records: list[dict[str, Any]], meta: dict[str, Any]
) -> None:
    """Left: client TTFA distribution per level (empirical CDF). Middle: TTFA p50/p99 and stalls vs
    concurrency (closed loop). Right, with open-loop levels: TTFA p50/p99 vs arrival rate."""
    import matplotlib

    matplotlib.use("Agg")  # headless: no display on servers or CI
    import matplotlib.pyplot as plt

    closed = [s for s in summaries if s.get("arrivals", "closed") != "poisson"]
    open_ = [s for s in summaries if s.get("arrivals") == "poisson"]
    panels = 1 + bool(closed) + bool(open_)
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, 4.5), squeeze=False)
    ax_cdf = axes[0][0]
    for s in summaries:
        label = s.get("label") or f"c={s['concurrency']}"
        vals = sorted(
            r["client_ttfa_ms"]
            for r in records
            if (r.get("level") or f"c={r['concurrency']}") == label
            and r["status"] == "ok"
            and r["client_ttfa_ms"]
        )
        if vals:
            # Empirical CDF from 0: the first stream's TTFA is where the curve leaves the axis.
            ys = [0.0] + [(i + 1) / len(vals) for i in range(len(vals))]
            ax_cdf.step([vals[0]] + vals, ys, where="post", label=label)
    target = meta["ttfa_target_ms"]
    ax_cdf.axvline(target, color="grey", linestyle="--", linewidth=1, label=f"target {target:.0f} ms")
    ax_cdf.set_xlabel("client time to first audio (ms)")
    ax_cdf.set_ylabel("fraction of streams")
    ax_cdf.set_ylim(0, 1.02)
    ax_cdf.set_title("TTFA distribution")
    ax_cdf.grid(alpha=0.3)
    ax_cdf.legend(fontsize=7)

    panel = 1
    if closed:
        ax_lvl = axes[0][panel]
        panel += 1
        for model in dict.fromkeys(s.get("arrivals", "closed") for s in closed):
            group = [s for s in closed if s.get("arrivals", "closed") == model]
            _curve(ax_lvl, [s["concurrency"] for s in group], group, model)
        levels = sorted({s["concurrency"] for s in closed})
        ax_lvl.axhline(target, color="grey", linestyle="--", linewidth=1)
        ax_lvl.set_xscale("log", base=2)
        ax_lvl.set_xticks(levels, [str(c) for c in levels])
        ax_lvl.set_xlabel("concurrent streams (closed loop)")
        ax_lvl.set_ylabel("ms")
        ax_lvl.grid(alpha=0.3)
        ax_st = ax_lvl.twinx()
        ax_st.bar(
            [s["concurrency"] for s in closed],
            [s["stalls"] for s in closed],
            width=[s["concurrency"] * 0.25 for s in closed],
            alpha=0.3,
            color="red",
            label="stalls",
        )
        ax_st.set_ylabel("stalls (total)")
        ax_st.set_ylim(0, max(1, max((s["stalls"] for s in closed), default=0)) * 1.15)  # never below 0
        lines = ax_lvl.get_legend_handles_labels()
        bars = ax_st.get_legend_handles_labels()
        ax_lvl.legend(lines[0] + bars[0], lines[1] + bars[1], fontsize=8, loc="upper left")
        ax_lvl.set_title(f"vs concurrency (jitter buffer {meta['jitter_ms']:.0f} ms)")
    if open_:
        ax_open = axes[0][panel]
        _curve(ax_open, [s["rate_per_s"] for s in open_], open_, "poisson")
        ax_open.axhline(target, color="grey", linestyle="--", linewidth=1)
        for s in open_:  # what the rate made of the load: peak streams in flight
            ax_open.annotate(
                f"{s['in_flight_peak']} in flight",
                (s["rate_per_s"], s["client_ttfa_ms"]["p99"] or 0),
                fontsize=7,
                textcoords="offset points",
                xytext=(4, 4),
            )
        ax_open.set_xlabel("arrival rate (streams per second, Poisson, open loop)")
        ax_open.set_ylabel("ms")
        ax_open.grid(alpha=0.3)
        ax_open.legend(fontsize=8, loc="upper left")
        ax_open.set_title("vs arrival rate")
    clients = meta.get("clients", 1)
    fig.suptitle(
        f"Statespeak load bench: {meta['protocol']} against {meta['target_label']}, "
        f"{clients} client process{'es' if clients != 1 else ''}",
        fontsize=10,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def arrivals_text(meta: dict[str, Any]) -> str:
    parts = []
    for model in meta.get("arrivals", ["closed"]):
        if model == "closed":
            parts.append("closed loop (each level's streams start together)")
        elif model == "staggered":
            parts.append(f"closed loop with first starts staggered over {meta['stagger_seconds']:g} s")
        else:
            rates = ", ".join(f"{r:g}" for r in meta["rates"])
            parts.append(f"Poisson at {rates} streams/s, arrivals for {meta['arrival_seconds']:g} s per rate")
    return "; ".join(parts)


def capacity_text(result: dict[str, Any], arrivals: str = "closed") -> str:
    """Streams per replica for one arrival model (closed or staggered) as a sentence-ready value:
    "at least N" when no tested level of that model failed."""
    key = "streams_per_replica" if arrivals == "closed" else "staggered_streams_per_replica"
    spr = result.get(key)
    levels = [s for s in result["levels"] if s.get("arrivals", "closed") == arrivals]
    if not levels or spr is None:
        return f"not measured (no {arrivals} level)"
    if all(s["meets_target"] for s in levels):
        return f"at least {spr} (every level tested met the target; test higher levels to find the limit)"
    return str(spr)


def open_capacity_text(result: dict[str, Any]) -> str | None:
    """The open-loop capacity as a sentence, or None when the run had no Poisson levels."""
    if not any(s.get("arrivals") == "poisson" for s in result["levels"]):
        return None
    cap = result.get("open_loop_capacity")
    if cap is None:
        return "no arrival rate tested met the target"
    return (
        f"{cap['rate_per_s']:g} streams/s (Poisson), which kept {cap['in_flight_mean']:.1f} streams in flight "
        f"on average and {cap['in_flight_peak']} at the peak, {cap['audio_per_wall_s']:.1f} audio s per wall s"
    )


def clients_text(result: dict[str, Any]) -> str:
    """How many client processes drove the run, and whether any level was limited by one of them."""
    m = result["meta"]
    n, limit = m.get("clients", 1), m.get("client_busy_limit", 0.9)
    busiest = [
        s["client_loop_busy_max"] for s in result["levels"] if s.get("client_loop_busy_max") is not None
    ]
    cpu = [s["client_cpu_max"] for s in result["levels"] if s.get("client_cpu_max") is not None]
    text = f"{n} client process{'es' if n != 1 else ''}"
    limited = result.get("client_limited_levels") or []
    if limited:
        return (
            f"{text}; **client-limited** at {', '.join(limited)} (a client event loop busy >= {limit:g} of the "
            "time): those levels' timings include the client's own queue and do not count; rerun with more "
            "--clients"
        )
    if busiest:
        text += (
            f"; no level was client-limited (event-loop utilization at most {max(busiest):.2f}, limit {limit:g}; "
            f"client CPU at most {max(cpu):.2f} core)"
        )
    return text


def docs_section(result: dict[str, Any], image_rel: str) -> str:
    """The generated markdown between the docs markers."""
    m = result["meta"]
    spr = capacity_text(result)
    lines = [
        f"Measured {m['date']} on {m['host']['cpu']} ({m['host']['cpus']} logical CPUs, shared with other work), "
        f"Python {m['host']['python']}, torch {m['host']['torch']}.",
        f"Weights: {m['weights']}.",
        "",
        f"Command: `{m['command']}` ({m['protocol']}, jitter buffer {m['jitter_ms']:.0f} ms, "
        f"TTFA target {m['ttfa_target_ms']:.0f} ms, {m['streams_per_level']} streams per level or the "
        f"concurrency if higher, text mix {m['text_mix']}, voice {m.get('voice') or 'given'}, "
        f"{m['sample_rate']} Hz pcm_s16le). Arrivals: {arrivals_text(m)}. Load generator: {clients_text(result)}.",
        "",
        markdown_table(result["levels"]),
        "",
        f"**Streams per replica, closed loop** (highest concurrency whose streams all start at once with p99 "
        f"client TTFA under {m['ttfa_target_ms']:.0f} ms, no stalls, no errors or rejections, no client-limited "
        f"level): **{spr}**.",
        "",
    ]
    if any(s.get("arrivals") == "staggered" for s in result["levels"]):
        lines += [
            f"**Streams per replica, staggered starts** (the same C in flight, first starts spread out; same "
            f"target): **{capacity_text(result, 'staggered')}**.",
            "",
        ]
    open_text = open_capacity_text(result)
    if open_text is not None:
        lines += [
            f"**Open-loop capacity** (highest arrival rate meeting the same target): **{open_text}**.",
            "",
        ]
    lines += [
        f"![TTFA distribution and TTFA/stalls vs concurrency]({image_rel})",
    ]
    return "\n".join(lines)


def update_docs(doc: Path, section: str) -> None:
    """Replace the text between DOCS_BEGIN and DOCS_END in `doc` with `section`."""
    if not doc.exists():
        raise FileNotFoundError(f"{doc} does not exist: --update-docs refreshes an existing page")
    text = doc.read_text()
    begin, end = text.find(DOCS_BEGIN), text.find(DOCS_END)
    if begin < 0 or end < 0 or end < begin:
        raise ValueError(
            f"{doc} lacks the markers {DOCS_BEGIN} ... {DOCS_END} around the CPU results section"
        )
    new = text[: begin + len(DOCS_BEGIN)] + "\n" + section.strip() + "\n" + text[end:]
    doc.write_text(new)
