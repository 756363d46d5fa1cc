"""Teacher durations in frames, and DTW boundary mapping."""

import numpy as np
import pytest

from model_server.data import dtw
from model_server.data.build import teacher_frames


def test_teacher_frames_sum_to_n_frames_and_round_half_up():
    segs = [("pau", 0.10), ("a", 0.20625), ("b", 0.3), ("pau", 0.41)]
    n = 34  # 0.41 s at 80 frames/s -> 32.8, plus the num_frames +1 and padding
    d = teacher_frames(segs, n)
    assert sum(d) == n
    assert d[:3] == [8, 9, 7]  # 0.20625 * 80 = 16.5 rounds up to 17
    assert d[3] == n - 24


def test_teacher_frames_clips_segments_past_the_audio():
    d = teacher_frames([("a", 0.5), ("b", 2.0), ("c", 3.0)], 50)
    assert d == [40, 10, 0]


def test_teacher_frames_rejects_empty():
    with pytest.raises(ValueError):
        teacher_frames([], 10)
    with pytest.raises(ValueError):
        teacher_frames([("a", 0.1)], 0)


def test_dtw_path_recovers_a_known_time_warp():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(40, 5))
    x = np.repeat(base, 2, axis=0)  # every frame doubled
    path = dtw.dtw_path(x, base)
    assert tuple(path[0]) == (0, 0) and tuple(path[-1]) == (79, 39)
    assert np.all(np.diff(path, axis=0) >= 0)
    assert np.all(path[:, 1] == path[:, 0] // 2)


def test_map_durations_through_path_preserves_total_and_scales():
    path = np.array([(i, i // 2) for i in range(80)])
    assert dtw.map_durations([20, 40, 20], path, 40) == [10, 20, 10]
    with pytest.raises(ValueError, match="durations sum"):
        dtw.map_durations([10, 10], path, 40)
