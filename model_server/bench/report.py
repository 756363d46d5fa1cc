"""Bench output: the console/markdown table, the JSON file, the PNG plot and the docs refresh."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DOCS_BEGIN = "<!-- bench:cpu:begin -->"
DOCS_END = "<!-- bench:cpu:end -->"


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v:.0f}"


def markdown_table(summaries: list[dict[str, Any]]) -> str:
    """One row per concurrency level; TTFA columns are client-side unless marked server."""
    head = (
        "| conc | streams | ok | 503 | err | cut | TTFA p50 | p95 | p99 | max | server TTFA p50 | p99 "
        "| max gap p99 | stalls (streams) | stall ms p99 | audio s / wall s |"
    )
    sep = "|" + "---:|" * 16
    rows = [head, sep]
    for s in summaries:
        t, st, gap, sms = s["client_ttfa_ms"], s["server_ttfa_ms"], s["max_gap_ms"], s["stall_ms"]
        rows.append(
            f"| {s['concurrency']} | {s['streams']} | {s['ok']} | {s['rejected']} | {s['errors']} | {s['cut']} "
            f"| {_ms(t['p50'])} | {_ms(t['p95'])} | {_ms(t['p99'])} | {_ms(t['max'])} "
            f"| {_ms(st['p50'])} | {_ms(st['p99'])} | {_ms(gap['p99'])} "
            f"| {s['stalls']} ({s['streams_with_stalls']}) | {_ms(sms['p99'])} | {s['audio_per_wall_s']:.2f} |"
        )
    return "\n".join(rows)


def write_json(path: Path, result: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, sort_keys=False) + "\n")


def plot(
    path: Path, summaries: list[dict[str, Any]], records: list[dict[str, Any]], meta: dict[str, Any]
) -> None:
    """Left: client TTFA distribution per level (empirical CDF). Right: TTFA p50/p99 and stalls vs level."""
    import matplotlib

    matplotlib.use("Agg")  # headless: no display on servers or CI
    import matplotlib.pyplot as plt

    fig, (ax_cdf, ax_lvl) = plt.subplots(1, 2, figsize=(12, 4.5))
    for s in summaries:
        c = s["concurrency"]
        vals = sorted(
            r["client_ttfa_ms"]
            for r in records
            if r["concurrency"] == c and r["status"] == "ok" and r["client_ttfa_ms"]
        )
        if vals:
            # Empirical CDF from 0: the first stream's TTFA is where the curve leaves the axis.
            ys = [0.0] + [(i + 1) / len(vals) for i in range(len(vals))]
            ax_cdf.step([vals[0]] + vals, ys, where="post", label=f"{c} concurrent")
    target = meta["ttfa_target_ms"]
    ax_cdf.axvline(target, color="grey", linestyle="--", linewidth=1, label=f"target {target:.0f} ms")
    ax_cdf.set_xlabel("client time to first audio (ms)")
    ax_cdf.set_ylabel("fraction of streams")
    ax_cdf.set_ylim(0, 1.02)
    ax_cdf.set_title("TTFA distribution")
    ax_cdf.grid(alpha=0.3)
    ax_cdf.legend(fontsize=8)

    levels = [s["concurrency"] for s in summaries]
    p50 = [s["client_ttfa_ms"]["p50"] for s in summaries]
    p99 = [s["client_ttfa_ms"]["p99"] for s in summaries]
    ax_lvl.plot(levels, [v if v is not None else float("nan") for v in p50], "o-", label="TTFA p50")
    ax_lvl.plot(levels, [v if v is not None else float("nan") for v in p99], "s-", label="TTFA p99")
    ax_lvl.axhline(target, color="grey", linestyle="--", linewidth=1)
    ax_lvl.set_xscale("log", base=2)
    ax_lvl.set_xticks(levels, [str(c) for c in levels])
    ax_lvl.set_xlabel("concurrent streams")
    ax_lvl.set_ylabel("ms")
    ax_lvl.grid(alpha=0.3)
    ax_st = ax_lvl.twinx()
    ax_st.bar(
        levels,
        [s["stalls"] for s in summaries],
        width=[c * 0.25 for c in levels],
        alpha=0.3,
        color="red",
        label="stalls",
    )
    ax_st.set_ylabel("stalls (total)")
    ax_st.set_ylim(0, max(1, max((s["stalls"] for s in summaries), default=0)) * 1.15)  # never below 0
    lines = ax_lvl.get_legend_handles_labels()
    bars = ax_st.get_legend_handles_labels()
    ax_lvl.legend(lines[0] + bars[0], lines[1] + bars[1], fontsize=8, loc="upper left")
    ax_lvl.set_title(f"vs concurrency (jitter buffer {meta['jitter_ms']:.0f} ms)")
    fig.suptitle(f"Statespeak load bench: {meta['protocol']} against {meta['target_label']}", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def capacity_text(result: dict[str, Any]) -> str:
    """Streams per replica as a sentence-ready value: "at least N" when no tested level failed."""
    spr = result["streams_per_replica"]
    levels = result["levels"]
    if levels and all(s["meets_target"] for s in levels):
        return f"at least {spr} (every level tested met the target; test higher levels to find the limit)"
    return str(spr)


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
        f"{m['sample_rate']} Hz pcm_s16le).",
        "",
        markdown_table(result["levels"]),
        "",
        f"**Streams per replica** (highest concurrency with p99 client TTFA under {m['ttfa_target_ms']:.0f} ms, "
        f"no stalls, no errors or rejections): **{spr}**.",
        "",
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
