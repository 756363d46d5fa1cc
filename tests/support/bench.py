"""The run metadata `bench_document()` takes, as the bench CLI fills it, for report tests."""

from __future__ import annotations


def bench_meta(**over) -> dict:
    """A closed-loop WebSocket run's metadata; `over` replaces or adds keys (arrival models, clients...)."""
    meta = {
        "date": "2026-11-29 20:00 UTC",
        "command": "python -m model_server.bench --local",
        "target_label": "test",
        "protocol": "WebSocket",
        "jitter_ms": 100.0,
        "ttfa_target_ms": 200.0,
        "streams_per_level": 4,
        "sample_rate": 16000,
        "text_mix": "turn 50%",
        "host": {"cpu": "test cpu", "cpus": 2, "python": "3.12", "torch": "x"},
        "weights": "test weights",
    }
    meta.update(over)
    return meta
