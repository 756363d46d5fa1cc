"""The engine's cost model (`engine.cost.TickCost`) on made-up measurements: what it fits, and what the
scheduler reads from it."""

from __future__ import annotations

import math
import random

import pytest

from model_server.engine.cost import TickCost

# What one step of B streams by L frames costs: a fixed part, a part per stream, a part per stream-frame.
H200 = (1.0e-3, 1.7e-6, 0.6e-6)  # fitted to docs/benchmarks.md's H200 decode table (CUDA graphs)
CPU = (4.0e-3, 0.27e-3, 105e-6)  # one thread of this 2-core CPU (the shipped weights, 64 x 1-32 frames)


def step_seconds(costs, streams: int, length: int) -> float:
    fixed, per_stream, per_frame = costs
    return fixed + per_stream * streams + per_frame * streams * length


def observe_mixed_steps(cost: TickCost, costs, batches, n: int = 200, noise: float = 0.0, seed: int = 0):
    rng = random.Random(seed)
    for _ in range(n):
        streams, length = rng.choice(batches), rng.choice((1, 2, 4, 8, 16, 32))
        seconds = step_seconds(costs, streams, length) * (1.0 + rng.uniform(-noise, noise))
        cost.observe_step(seconds, streams, length)


def test_unmeasured_costs_are_zero_and_no_budget_applies():
    cost = TickCost()
    assert (cost.per_step, cost.per_stream, cost.per_frame, cost.per_chunk) == (0.0, 0.0, 0.0, 0.0)
    assert cost.seconds(10, 320, 3) == 0.0 and cost.growth_frames(64, 0.0125) == 0.0


@pytest.mark.parametrize(("costs", "batches"), [(H200, (1, 3, 8, 20, 64, 200, 1000)), (CPU, (1, 4, 16, 64))])
def test_steps_of_several_shapes_tell_the_fixed_cost_from_the_per_stream_and_per_frame_costs(costs, batches):
    cost = TickCost()
    observe_mixed_steps(cost, costs, batches)
    fitted = (cost.per_step, cost.per_stream, cost.per_frame)
    assert fitted == pytest.approx(costs, rel=0.05)  # the prior's pull is small where the data decides
    # with 10 % noise on every step the fixed cost is still found within a fifth, the frames' within 5 %
    noisy = TickCost()
    observe_mixed_steps(noisy, costs, batches, noise=0.1, seed=1)
    assert noisy.per_step == pytest.approx(costs[0], rel=0.2)
    assert noisy.per_frame == pytest.approx(costs[2], rel=0.05)


def test_steps_of_one_shape_are_all_per_frame_and_predicted_exactly():
    """Any split of one shape's seconds fits those steps; the model keeps the plain ratio then (no fixed
    cost it cannot see), which still predicts them exactly."""
    cost = TickCost()
    seconds = step_seconds(CPU, 64, 32)
    for _ in range(30):
        cost.observe_step(seconds, 64, 32)
    assert cost.per_step == pytest.approx(0.0, abs=1e-9) and cost.per_stream == pytest.approx(0.0, abs=1e-9)
    assert cost.per_frame == pytest.approx(seconds / (64 * 32))
    assert cost.seconds(64, 64 * 32) == pytest.approx(seconds)


def test_the_fit_never_goes_negative_and_follows_a_change():
    cost = TickCost()
    # a step that got faster as it grew (a warm-up, a clock oddity): no negative cost comes out of it
    cost.observe_step(0.010, 1, 4)
    cost.observe_step(0.002, 64, 32)
    cost.observe_step(-1.0, 8, 8)
    cost.observe_step(math.nan, 8, 8)  # not a measurement: ignored
    assert min(cost.per_step, cost.per_stream, cost.per_frame) >= 0.0
    assert all(math.isfinite(v) for v in (cost.per_step, cost.per_stream, cost.per_frame))
    # a running estimate: after the machine slows down twofold, recent steps decide
    observe_mixed_steps(cost, H200, (1, 8, 64, 256))
    slower = tuple(2 * c for c in H200)
    observe_mixed_steps(cost, slower, (1, 8, 64, 256), n=100)
    assert cost.per_step == pytest.approx(slower[0], rel=0.1)
    assert cost.per_frame == pytest.approx(slower[2], rel=0.1)


def test_a_tick_is_its_steps_plus_the_rest_per_chunk():
    cost = TickCost()
    cost.per_step, cost.per_frame = 1e-3, 1e-5
    cost.observe_rest(0.020, 100)  # 20 ms besides the steps in a tick of 100 chunks
    assert cost.rest_per_chunk == pytest.approx(2e-4) and cost.per_chunk == pytest.approx(2e-4)
    assert cost.seconds(100, 1000, steps=3) == pytest.approx(3e-3 + 100 * 2e-4 + 1000 * 1e-5)
    # the rest weighs each tick by its size, and never goes negative
    cost.observe_rest(0.001, 1)
    assert cost.rest_per_chunk == pytest.approx((0.8 * 0.020 + 0.001) / (0.8 * 100 + 1))
    cost.observe_rest(-1.0, 10)
    assert cost.rest_per_chunk >= 0.0
    # the step's part per stream counts per chunk too
    cost.per_stream = 5e-5
    assert cost.per_chunk == pytest.approx(cost.rest_per_chunk + 5e-5)


def test_the_growth_floor_counts_the_steps_fixed_cost():
    """The chunk below which N streams' leads shrink: (per_step + N x per_chunk) / (frame - N x per_frame)."""
    cost = TickCost()
    cost.per_frame, cost.per_chunk = 1e-5, 2e-4
    assert cost.growth_frames(100, 0.0125) == pytest.approx(100 * 2e-4 / (0.0125 - 100 * 1e-5))
    cost.per_step = 5e-3
    assert cost.growth_frames(100, 0.0125) == pytest.approx((5e-3 + 100 * 2e-4) / (0.0125 - 100 * 1e-5))
    assert cost.growth_frames(1250, 0.0125) == math.inf  # 1,250 streams x 10 us: no spare time per frame


def test_merging_pays_when_the_steps_fixed_cost_exceeds_the_extra_frames():
    gpu, cpu = TickCost(), TickCost()
    gpu.per_step, gpu.per_frame = H200[0], H200[2]
    cpu.per_step, cpu.per_frame = CPU[0], CPU[2]
    # 50 new streams' 4-frame chunks as 32 frames: 1,400 stream-frames, 0.84 ms on the GPU, under its 1 ms step
    gain = gpu.merge_gain((50, 4), (200, 32))
    assert gain == pytest.approx(1e-3 - 50 * 28 * 0.6e-6) and gain > 0
    assert gpu.merge_gain((100, 4), (200, 32)) < 0  # 1.68 ms of frames: a step of their own is cheaper
    # on the CPU a stream-frame costs 105 us: one stream's 4 frames as 8 pay, three streams' 16 as 32 do not
    assert cpu.merge_gain((1, 4), (5, 8)) > 0 and cpu.merge_gain((3, 16), (5, 32)) < 0


def test_a_merge_is_priced_at_the_graph_buckets_the_steps_run():
    """On CUDA graphs a step of n streams runs its power-of-two bucket: 40 streams joining a 500-stream step
    take it from bucket 512 to 1024, which costs far more than the 1 ms step they would save."""
    flat, bucketed = TickCost(), TickCost(pad=lambda n: 1 << (n - 1).bit_length())
    for cost in (flat, bucketed):
        cost.per_step, cost.per_stream, cost.per_frame = H200
    assert flat.merge_gain((40, 4), (500, 32)) > 0  # unpadded, the 40 streams' frames cost less than a step
    apart = bucketed.step_seconds(40, 4) + bucketed.step_seconds(500, 32)  # buckets 64 and 512
    merged = bucketed.step_seconds(540, 32)  # bucket 1024
    assert bucketed.merge_gain((40, 4), (500, 32)) == pytest.approx(apart - merged) and apart < merged
    assert bucketed.merge_gain((12, 4), (500, 32)) > 0  # 512 holds them: the step is saved
    # and the fit learns the costs of the padded batches the device ran
    rng = random.Random(0)
    learned = TickCost(pad=bucketed.pad)
    for _ in range(200):
        streams, length = rng.choice((3, 20, 200, 1000)), rng.choice((1, 2, 4, 8, 16, 32))
        learned.observe_step(step_seconds(H200, learned.pad(streams), length), streams, length)
    assert (learned.per_step, learned.per_frame) == pytest.approx((H200[0], H200[2]), rel=0.05)


def test_one_stalled_step_barely_moves_a_warm_fit():
    """A step 100x slower than its shape (a page fault, a busy neighbour) counts as at most OUTLIER times its
    prediction: the fixed cost stays near 1 ms, and merging 1,000 streams' 16-frame chunks stays a loss."""
    cost = TickCost()
    observe_mixed_steps(cost, H200, (1, 3, 8, 20, 64, 200, 1000))
    cost.observe_step(0.100, 1, 4)  # 100 ms for one stream's 4 frames
    assert cost.per_step < 2.0 * H200[0] and cost.per_frame > 0.5 * H200[2]
    assert cost.merge_gain((1000, 16), (1000, 32)) < 0
    # a shape the fit has not seen, slower than it predicts every time, is learned within a few steps
    for _ in range(8):
        cost.observe_step(step_seconds(H200, 4000, 32) * 3, 4000, 32)
    assert cost.step_seconds(4000, 32) > 2 * step_seconds(H200, 4000, 32)


def test_the_per_frame_cost_never_collapses_to_zero():
    """Steps of one shape, then one of another: a free fit puts every second into the fixed parts and the
    frames at 0, which would switch off every budget that reads them; the frames keep at least a quarter of
    the biggest recent step's seconds per stream-frame."""
    cost = TickCost()
    for _ in range(5):  # a cold fit: no outlier bound yet
        cost.observe_step(0.001, 64, 32)
    cost.observe_step(0.005, 1, 4)
    assert cost.per_frame == pytest.approx(TickCost.FRAME_FLOOR * 0.001 / (64 * 32))
    assert cost.step_seconds(1, 4) > 0.001  # the rest went to the fixed parts
    # warm, the same step counts as at most OUTLIER times its prediction, and the frames keep their cost
    warm = TickCost()
    for _ in range(200):
        warm.observe_step(0.001, 64, 32)
    warm.observe_step(0.005, 1, 4)
    assert warm.per_frame > 0.9 * 0.001 / (64 * 32)


def test_a_failed_fit_keeps_the_last_good_estimate(monkeypatch):
    import model_server.engine.cost as cost_module

    cost = TickCost()
    observe_mixed_steps(cost, CPU, (1, 4, 16, 64))
    good = (cost.per_step, cost.per_stream, cost.per_frame)

    def broken(a, b):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(cost_module, "_solve_linear", broken)
    cost.observe_step(0.05, 16, 8)
    assert (cost.per_step, cost.per_stream, cost.per_frame) == good  # the engine thread reads on
