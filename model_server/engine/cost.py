"""What a tick costs the engine thread, measured as it runs (`TickCost`): the scheduler's step budget, its
chunk sizes, the fit of a tick into the streams' leads and the merging of chunk lengths all read it.

A tick runs a few batched model steps (one per chunk length) and other work per chunk served. One step of
B streams by L frames costs

    per_step + per_stream * B + per_frame * B * L

- per_step: what a step costs whatever it carries (kernel launches, a CUDA graph's input copies, the one
  synchronization; on this CPU the scan's and the vocoder's fixed work): about 1 ms on an H200 and 4 ms on
  one thread of the 2-core CPU (docs/benchmarks.md, "Fewer steps per tick");
- per_stream: each stream's share of a step besides its frames (its state, its vocoder's per-chunk work);
- per_frame: each stream-frame.

B is the batch the device runs: on CUDA graphs the batch padded to its bucket (`pad`, from the runtime), so
a merge that takes a step over a power of two is priced as the bigger step it is.

They are fitted by least squares over the recent steps (decayed), drawn toward the plain ratio of step
seconds to stream-frames where the steps so far cannot tell them apart (steps of one shape only: then the
fit is that ratio, which predicts those steps exactly). Bounds: per_step and per_stream at zero or above,
per_frame at a quarter of the seconds per stream-frame of the biggest recent step or above (that step's
fixed parts are the smallest share of it; a fit that put every second into the fixed parts would switch the
budgets that read the frames off). Once warm, a step is counted at most OUTLIER times its prediction, so
one stall (a page fault, a busy neighbour) does not make every step look fixed-cost for the next twenty; a
really new shape gets there in a few steps. The rest of a tick (admission, planner windows, events, the
owner's messages) is `rest_per_chunk`, a ratio of decayed sums that weighs each tick by its size.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

log = logging.getLogger("statespeak.scheduler")

__all__ = ["TickCost"]


class TickCost:
    DECAY = 0.8  # weight of the rest-of-tick sums so far at each new tick
    STEP_DECAY = 0.95  # weight of the step fit's sums so far at each new step (about 20 steps' memory)
    # How strongly the fit is drawn toward the ratio (0, 0, seconds per stream-frame), relative to the data
    # on each coefficient's own scale: enough to pick that answer among the fits that are all exact (one
    # step shape), too little to move a fit the steps determine.
    PRIOR = 0.005
    FRAME_FLOOR = 0.25  # per_frame at least this share of the biggest recent step's seconds per stream-frame
    BIG_DECAY = 0.98  # per step: a step this much smaller than the biggest one so far takes its place
    OUTLIER = 4.0  # once warm, a step counts as at most this many times its predicted seconds
    WARM = 10.0  # decayed steps after which the fit predicts well enough to bound outliers

    def __init__(self, pad: Callable[[int], int] | None = None) -> None:
        """pad: the batch the device runs for a batch of n streams (None: n itself)."""
        self.pad = pad or (lambda n: n)
        self._ratio = [0.0, 0.0]  # decayed step seconds, stream-frames (the prior)
        self._coef = (0.0, 0.0, 0.0)  # per_step, per_stream, per_frame: the last good fit
        self._stale = False  # steps observed since it: refit when next read
        self._rest = [0.0, 0.0]  # decayed other seconds, chunks
        self._clear_steps()

    def _clear_steps(self) -> None:
        # decayed sums over steps of x x^T and x * seconds, x = (1, streams, stream-frames): plain floats, as
        # numpy's per-call overhead on 3 x 3 arrays was most of the cost (it runs on the engine thread)
        self._gram = [[0.0] * 3 for _ in range(3)]
        self._xy = [0.0] * 3
        self._big = [0.0, 0.0]  # the biggest recent step: stream-frames (decayed), seconds per stream-frame

    # the step ------------------------------------------------------------------------------------------
    @property
    def _fit(self) -> tuple[float, float, float]:  # solved once per change, when read
        if self._stale:
            self._stale = False
            self._refit()
        return self._coef

    @property
    def per_step(self) -> float:
        return self._fit[0]

    @per_step.setter
    def per_step(self, seconds: float) -> None:  # tests and tools pin the costs
        self._pin(0, seconds)

    @property
    def per_stream(self) -> float:
        return self._fit[1]

    @per_stream.setter
    def per_stream(self, seconds: float) -> None:
        self._pin(1, seconds)

    @property
    def per_frame(self) -> float:
        return self._fit[2]

    @per_frame.setter
    def per_frame(self, seconds: float) -> None:
        self._ratio = [seconds, 1.0]
        self._pin(2, seconds)

    def _pin(self, index: int, seconds: float) -> None:
        """Set one coefficient; the measurements so far are dropped (the next step starts a new fit)."""
        fit = list(self._fit)
        fit[index] = max(0.0, seconds)
        self._coef, self._stale = (fit[0], fit[1], fit[2]), False
        self._clear_steps()

    def observe_step(self, seconds: float, streams: int, length: int) -> None:
        """One model step: its seconds, the streams it carried and its chunk length in frames."""
        if not math.isfinite(seconds):
            return
        batch = self.pad(streams)
        frames = batch * length
        seconds = max(0.0, seconds)
        if self._gram[0][0] >= self.WARM:
            seconds = min(seconds, self.OUTLIER * self.step_seconds(streams, length))
        x = (1.0, float(batch), float(frames))
        self._big[0] *= self.BIG_DECAY
        if frames >= self._big[0] and frames > 0:
            self._big = [float(frames), seconds / frames]
        d = self.STEP_DECAY
        for i in range(3):
            row = self._gram[i]
            for j in range(3):
                row[j] = d * row[j] + x[i] * x[j]
            self._xy[i] = d * self._xy[i] + x[i] * seconds
        self._ratio = [d * self._ratio[0] + seconds, d * self._ratio[1] + frames]
        self._stale = True

    def _refit(self) -> None:
        """A new fit, or the last good one kept if this one fails (the engine thread reads it every tick:
        a numerical accident must not fail every stream)."""
        try:
            fit = self._solve_bounded()
        except (ArithmeticError, ValueError):
            log.warning("step cost fit failed: the previous estimate stays", exc_info=True)
            return
        if all(math.isfinite(v) for v in fit):
            self._coef = fit

    def _solve_bounded(self) -> tuple[float, float, float]:
        """Least squares with a ridge toward the ratio, each coefficient scaled by its own data, and an
        active set for the bounds: a coefficient the free fit puts below its bound is held there and the
        others are fitted again (three unknowns: at most three rounds)."""
        ratio = self._ratio[0] / self._ratio[1] if self._ratio[1] else 0.0
        prior = (0.0, 0.0, ratio)
        lower = (0.0, 0.0, min(self.FRAME_FLOOR * self._big[1], ratio))
        ridge = [self.PRIOR * max(self._gram[i][i], 1e-12) for i in range(3)]
        theta = list(lower)
        free = [0, 1, 2]
        while free:
            held = [i for i in range(3) if i not in free]
            a = [[self._gram[i][j] + (ridge[i] if i == j else 0.0) for j in free] for i in free]
            b = [
                self._xy[i] + ridge[i] * prior[i] - sum(self._gram[i][j] * theta[j] for j in held)
                for i in free
            ]
            solved = _solve_linear(a, b)
            below = [v - lower[i] for i, v in zip(free, solved, strict=True)]
            if min(below) >= 0.0:
                for i, value in zip(free, solved, strict=True):
                    theta[i] = value
                break
            free.pop(below.index(min(below)))
        return (theta[0], theta[1], theta[2])

    # the rest of a tick ----------------------------------------------------------------------------------
    @property
    def rest_per_chunk(self) -> float:
        return self._rest[0] / self._rest[1] if self._rest[1] else 0.0

    @rest_per_chunk.setter
    def rest_per_chunk(self, seconds: float) -> None:
        self._rest = [seconds, 1.0]

    def observe_rest(self, seconds: float, chunks: int) -> None:
        """One tick's work besides its steps (and the owner's since the last tick), and the chunks it served."""
        self._rest[0] = self.DECAY * self._rest[0] + max(0.0, seconds)
        self._rest[1] = self.DECAY * self._rest[1] + chunks

    # estimates -----------------------------------------------------------------------------------------
    @property
    def per_chunk(self) -> float:
        """What serving one more chunk costs besides its frames: its share of the step and of the rest."""
        return self.per_stream + self.rest_per_chunk

    @per_chunk.setter
    def per_chunk(self, seconds: float) -> None:  # all of it as the rest (the step's share at zero)
        self.rest_per_chunk = seconds
        self._coef, self._stale = (self.per_step, 0.0, self.per_frame), False

    def seconds(self, chunks: int, frames: int, steps: int = 1) -> float:
        """Estimated duration of a tick that serves `chunks` chunks of `frames` frames in all, in `steps`
        model steps (one per distinct chunk length)."""
        return self.per_step * steps + self.per_chunk * chunks + self.per_frame * frames

    def growth_frames(self, streams: int, frame_s: float) -> float:
        """The chunk length below which a tick serving `streams` streams a chunk each, in one step, brings
        each of them less audio than the tick lasts, so their leads shrink: (per_step + streams *
        per_chunk) / (frame_s - streams * per_frame) frames. Infinite when even the longest chunk cannot
        keep up (more streams than real time allows: then the longest chunks make the most audio), 0 until
        measured."""
        if self.per_frame <= 0:
            return 0.0
        spare = frame_s - streams * self.per_frame
        return (self.per_step + streams * self.per_chunk) / spare if spare > 0 else math.inf

    def step_seconds(self, streams: int, length: int) -> float:
        """Estimated seconds of one step of `streams` streams by `length` frames (at the padded batch)."""
        batch = self.pad(streams)
        return self.per_step + self.per_stream * batch + self.per_frame * batch * length

    def merge_gain(self, short: tuple[int, int], longer: tuple[int, int]) -> float:
        """Seconds a tick saves by stepping the `short` group (streams, length) at the `longer` group's
        length in its step, instead of in a step of its own (negative: a loss)."""
        (n_short, l_short), (n_long, l_long) = short, longer
        apart = self.step_seconds(n_short, l_short) + self.step_seconds(n_long, l_long)
        return apart - self.step_seconds(n_short + n_long, l_long)


def _solve_linear(a: list[list[float]], b: list[float]) -> list[float]:
    """a x = b for a small symmetric positive definite a (the ridge keeps it so): Gaussian elimination
    with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            for c in range(col, n + 1):
                m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x
