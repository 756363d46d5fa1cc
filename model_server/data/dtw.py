"""DTW between two feature sequences and mapping of segment boundaries through the warping path.

Used by the LJSpeech importer: espeak-ng renders the same text with exact phoneme timings, and the
warping path between espeak's frames and the recording's frames carries those timings onto the
recording. No well-kept DTW library is in the dependency set (librosa would pull in numba, llvmlite and
scipy for one function), so this is a small numpy implementation: the cost matrix is filled one
anti-diagonal at a time, which vectorizes the O(N*M) recursion without a per-cell Python loop.
"""

from __future__ import annotations

import numpy as np

from model_server import vocoder

N_CEPS = 20


def cepstra(features: np.ndarray) -> np.ndarray:
    """Speaker-normalized cepstra from vocoder features: DCT of the log mel envelope, c0 dropped.

    Dropping c0 (overall level) and normalizing each coefficient over the utterance (mean and variance)
    removes most of the channel and speaker difference between a synthetic and a recorded voice, which
    is what lets DTW match the two. A voicing column (weighted like one cepstrum) helps at voicing edges.
    """
    env = np.asarray(features[:, vocoder.ENV], dtype=np.float64)
    n = env.shape[1]
    k = np.arange(1, N_CEPS + 1)[:, None]
    basis = np.cos(np.pi * k * (np.arange(n)[None, :] + 0.5) / n)  # DCT-II rows 1..N_CEPS
    c = env @ basis.T
    c = (c - c.mean(axis=0)) / (c.std(axis=0) + 1e-8)
    vuv = np.asarray(features[:, vocoder.VUV], dtype=np.float64)
    vuv = (vuv - vuv.mean()) / (vuv.std() + 1e-8)
    return np.concatenate([c, vuv], axis=1)


def dtw_path(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Minimum-cost monotone path between x [N, D] and y [M, D] (Euclidean frame distance).

    Steps (1,0), (0,1) and (1,1); the path starts at (0, 0) and ends at (N-1, M-1). Returns int [L, 2].
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[1] or len(x) == 0 or len(y) == 0:
        raise ValueError(f"dtw_path needs non-empty [N, D] and [M, D] arrays, got {x.shape} and {y.shape}")
    n, m = len(x), len(y)
    dist = np.sqrt(np.maximum(
        (x * x).sum(1)[:, None] + (y * y).sum(1)[None, :] - 2.0 * x @ y.T, 0.0))
    acc = np.full((n, m), np.inf)
    acc[0, 0] = dist[0, 0]
    for k in range(1, n + m - 1):
        i = np.arange(max(0, k - m + 1), min(n, k + 1))
        j = k - i
        best = np.full(len(i), np.inf)
        ok = i > 0
        best[ok] = np.minimum(best[ok], acc[i[ok] - 1, j[ok]])
        ok = j > 0
        best[ok] = np.minimum(best[ok], acc[i[ok], j[ok] - 1])
        ok = (i > 0) & (j > 0)
        best[ok] = np.minimum(best[ok], acc[i[ok] - 1, j[ok] - 1])
        acc[i, j] = dist[i, j] + best
    # Backtrack; ties prefer the diagonal so the path stays as short as possible.
    path = [(n - 1, m - 1)]
    i, j = n - 1, m - 1
    while i > 0 or j > 0:
        cands = []
        if i > 0 and j > 0:
            cands.append((acc[i - 1, j - 1], i - 1, j - 1))
        if i > 0:
            cands.append((acc[i - 1, j], i - 1, j))
        if j > 0:
            cands.append((acc[i, j - 1], i, j - 1))
        _, i, j = min(cands, key=lambda c: c[0])
        path.append((i, j))
    return np.array(path[::-1], dtype=np.int64)


def map_durations(durations: list[int], path: np.ndarray, n_target: int) -> list[int]:
    """Carry segment durations (frames of the source sequence) onto the target through a DTW path.

    A source boundary at frame b maps to the first target frame that the path pairs with a source frame
    >= b. The mapped boundaries are monotone, start at 0 and end at `n_target`, so the result sums to
    `n_target` exactly.
    """
    if sum(durations) != int(path[-1, 0]) + 1:
        raise ValueError(f"durations sum to {sum(durations)} but the path covers {int(path[-1, 0]) + 1} "
                         "source frames")
    n_source = int(path[-1, 0]) + 1
    # first target frame paired with each source frame (path is sorted by source index)
    first = np.full(n_source + 1, n_target, dtype=np.int64)
    for i, j in path[::-1]:
        first[i] = j
    for i in range(n_source - 1, -1, -1):  # source boundary -> first target frame at or after it
        first[i] = min(first[i], first[i + 1])
    bounds = np.cumsum(durations)[:-1]
    mapped = [0] + [int(first[b]) for b in bounds] + [n_target]
    mapped = np.maximum.accumulate(np.clip(mapped, 0, n_target))
    return [int(b - a) for a, b in zip(mapped[:-1], mapped[1:], strict=True)]
