"""The engine's account of a bench level (`bench.engine_account`): parsed from the real server's /metrics
text and differenced around a level."""

from __future__ import annotations

import io

import pytest

from model_server.bench import engine_account
from model_server.metrics import ServerMetrics


def exposition(phases: dict[str, float], steps: int, ticks: int, batches: list[int]) -> str:
    """A real registry's Prometheus text after the given engine activity."""
    m = ServerMetrics("test", 64, emf_out=io.StringIO())
    m.engine_phases(phases)
    m.engine_steps.inc(steps)
    m.engine_ticks.inc(ticks)
    for b in batches:
        m.engine_batch.observe(b)
    m.engine_step_fixed.set(1.1e-3)
    m.engine_step_per_frame.set(6.5e-7)
    m.engine_per_chunk.set(8.0e-5)
    return m.prometheus_text().decode()


def test_the_metrics_text_parses_into_the_engines_counters_and_gauges():
    got = engine_account.parse(exposition({"plan": 0.5, "model_step": 2.0}, steps=5, ticks=4, batches=[1, 2]))
    assert got["phases"] == {"plan": 0.5, "model_step": 2.0}
    assert (got["steps"], got["ticks"], got["batch_sum"], got["batch_count"]) == (5.0, 4.0, 3.0, 2.0)
    assert (got["step_fixed_s"], got["step_per_frame_s"], got["per_chunk_s"]) == (1.1e-3, 6.5e-7, 8.0e-5)


def test_several_engines_are_summed_and_their_cost_models_averaged():
    from model_server.engine.client import merge_prometheus

    one = exposition({"plan": 0.5, "model_step": 2.0}, steps=5, ticks=4, batches=[1, 2])
    two = exposition({"plan": 1.5, "encode": 1.0}, steps=7, ticks=6, batches=[4])
    got = engine_account.parse(merge_prometheus({0: one.encode(), 1: two.encode()}).decode())
    assert got["engines"] == 2 and engine_account.parse(one)["engines"] == 1
    assert got["phases"] == {"plan": 2.0, "model_step": 2.0, "encode": 1.0}
    assert (got["steps"], got["ticks"], got["batch_sum"], got["batch_count"]) == (12.0, 10.0, 7.0, 3.0)
    assert got["step_fixed_s"] == pytest.approx(1.1e-3)  # the same in both: the mean is that value


def test_a_levels_account_is_the_difference_around_it():
    before = engine_account.parse(exposition({"plan": 0.5, "model_step": 2.0}, 5, 4, [1, 2]))
    after = engine_account.parse(
        exposition({"plan": 1.5, "model_step": 5.0, "send": 0.5}, 17, 10, [1, 2, 8, 8, 8])
    )
    acct = engine_account.level_account(before, after, elapsed_s=5.0, chunks=1000)
    assert acct["phase_s"] == {"plan": 1.0, "model_step": 3.0, "send": 0.5}
    assert acct["busy"] == pytest.approx(4.5 / 5.0)
    assert (acct["ticks"], acct["steps"], acct["steps_per_tick"]) == (6.0, 12.0, 2.0)
    assert acct["mean_batch"] == pytest.approx(24 / 3)
    assert acct["us_per_chunk"] == pytest.approx(
        {"plan": 1000.0, "model_step": 3000.0, "send": 500.0, "all": 4500.0}
    )
    assert (acct["step_fixed_ms"], acct["per_chunk_us"]) == (pytest.approx(1.1), pytest.approx(80.0))
    # no account without both scrapes, or for a level of no time; no per-chunk split without chunks
    assert engine_account.level_account(None, after, 5.0, 10) is None
    assert engine_account.level_account(before, after, 0.0, 10) is None
    assert engine_account.level_account(before, after, 5.0, 0)["us_per_chunk"] is None
    # counters that went down: another replica answered, or the engine restarted: no account
    assert engine_account.level_account(after, before, 5.0, 10) is None


def test_a_target_without_engine_metrics_has_no_account():
    assert engine_account.scrape("http://127.0.0.1:9") is None  # nothing listens: no account, no error
