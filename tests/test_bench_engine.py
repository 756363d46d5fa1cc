"""tools/engine_burst.py: the engine alone under a closed-loop burst (its numbers are in docs/benchmarks.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

# A random-weight checkpoint with speech-like durations (or the bundled weights), from the bench tests.
from test_bench_server import model_dir  # noqa: F401

SCRIPT = Path(__file__).resolve().parent.parent / "tools" / "engine_burst.py"
_spec = importlib.util.spec_from_file_location("engine_burst", SCRIPT)
engine_burst = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(engine_burst)


def test_arguments():
    args = engine_burst.build_parser().parse_args(["--streams", "8", "--cpu-clock"])
    assert args.streams == 8 and args.cpu_clock and args.jitter_ms == 100.0 and args.repo is None
    with pytest.raises(SystemExit, match="--streams"):
        engine_burst.run(engine_burst.build_parser().parse_args(["--streams", "0"]))


@pytest.mark.slow
@pytest.mark.parametrize("cpu_clock", [False, True])
def test_a_small_burst_runs_every_stream_to_the_end(model_dir, cpu_clock):  # noqa: F811
    import model_server.scheduler as sched

    argv = ["--streams", "3", "--model-dir", str(model_dir)] + (["--cpu-clock"] if cpu_clock else [])
    threads = torch.get_num_threads()
    try:
        r = engine_burst.run(engine_burst.build_parser().parse_args(argv))
    finally:
        sched.time = __import__("time")  # the CPU clock is patched into the scheduler module
    # the tool's thread count and grad mode stay in the tool: later tests in this process keep theirs
    assert torch.is_grad_enabled() and torch.get_num_threads() == threads
    assert r["failed"] == 0 and r["streams"] == 3 and r["clock"] == ("cpu" if cpu_clock else "wall")
    assert r["ticks"] > 0 and r["audio_s"] > 0 and 0 < r["ttfa_p50_ms"] <= r["ttfa_p99_ms"]
    assert r["streams_with_stalls"] <= 3 and r["stall_ms"] >= 0
    assert (
        r["chunks"] >= 3 and r["us_per_chunk"] > 0 and r["us_per_frame"] > 0
    )  # the scheduler's cost account


@pytest.mark.slow
def test_torch_calls_are_counted_per_chunk_outside_the_models_forward(model_dir):  # noqa: F811
    argv = ["--streams", "3", "--model-dir", str(model_dir), "--count-ops"]
    r = engine_burst.run(engine_burst.build_parser().parse_args(argv))
    calls = r["torch_calls_per_chunk"]
    assert r["failed"] == 0 and set(calls) == {"engine", "encode", "step", "all"}
    assert calls["all"] == pytest.approx(calls["engine"] + calls["encode"] + calls["step"])
    # each place makes some calls; the decoder's and vocoder's hundreds per step are left out
    assert all(calls[k] > 0 for k in ("engine", "encode", "step")) and calls["step"] < 50
    plain = engine_burst.run(engine_burst.build_parser().parse_args(argv[:-1]))
    assert plain["torch_calls_per_chunk"] is None
