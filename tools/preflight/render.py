"""The preflight table: check, needed, available, verdict; then how to fix each miss."""

from __future__ import annotations

from stacks.config import StatespeakConfig
from tools.preflight.checks import FAIL, OK, WARN
from tools.preflight.runner import Report

HEADER = ("check", "needed", "available", "verdict")


def not_checkable(config: StatespeakConfig) -> str:
    """What no API answers before a deploy, said under every table."""
    unknown = ["free GPU capacity on the day (InsufficientInstanceCapacity is only known at launch)"]
    if config.deploy_ecs and config.weights_storage == "fsx":
        unknown.insert(
            0,
            "whether FSx for Lustre accepts PERSISTENT_2 in the GPU zone (CloudFormation reports it when it "
            "creates the file system, before any GPU host starts)",
        )
    if config.deploy_sagemaker:
        unknown.append("instances other endpoints already hold against the SageMaker quota")
    return "Not checkable by API: " + "; ".join(unknown) + "."


def table(report: Report) -> str:
    cells = [HEADER] + [(r.check, r.needed, r.available, r.verdict) for r in report.rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(HEADER))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def render(report: Report, config: StatespeakConfig) -> str:
    counts = {v: sum(r.verdict == v for r in report.rows) for v in (OK, WARN, FAIL)}
    parts = [
        f"Statespeak preflight: account {report.account}, region {config.region}, "
        f"deployment={config.deployment}",
        "",
        table(report),
    ]
    fixes = [f"- {r.check} ({r.verdict}): {r.hint}" for r in report.rows if r.verdict != OK and r.hint]
    if fixes:
        parts += ["", "To fix:", *fixes]
    parts += ["", not_checkable(config), "", f"{counts[OK]} ok, {counts[WARN]} warn, {counts[FAIL]} FAIL"]
    return "\n".join(parts)
