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

They are fitted by least squares over the recent steps (decayed), held at zero or above, and drawn toward
the plain ratio of step seconds to stream-frames where the steps so far cannot tell them apart (steps of
one shape only: then the fit is that ratio, which predicts those steps exactly). The rest of a tick
(admission, planner windows, events, the owner's messages) is `rest_per_chunk`, a ratio of decayed sums
that weighs each tick by its size.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["TickCost"]


class TickCost:
    DECAY = 0.8  # weight of the rest-of-tick sums so far at each new tick
    STEP_DECAY = 0.95  # weight of the step fit's sums so far at each new step (about 20 steps' memory)
    # How strongly the fit is drawn toward the ratio (0, 0, seconds per stream-frame), relative to the data
    # on each coefficient's own scale: enough to pick that answer among the fits that are all exact (one
    # step shape), too little to move a fit the steps determine.
    PRIOR = 0.005

    def __init__(self) -> None:
        self._gram = np.zeros((3, 3))  # decayed sums of x x^T over steps, x = (1, streams, stream-frames)
        self._xy = np.zeros(3)  # decayed sums of x * seconds
        self._ratio = [0.0, 0.0]  # decayed step seconds, stream-frames (the prior)
        self._fit = (0.0, 0.0, 0.0)  # per_step, per_stream, per_frame
        self._rest = [0.0, 0.0]  # decayed other seconds, chunks

    # the step ------------------------------------------------------------------------------------------
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
        self._fit = (fit[0], fit[1], fit[2])
        self._gram[:] = 0.0
        self._xy[:] = 0.0

    def observe_step(self, seconds: float, streams: int, frames: int) -> None:
        """One model step: its seconds, the streams it carried and their stream-frames in all."""
        seconds = max(0.0, seconds)
        x = np.array([1.0, float(streams), float(frames)])
        self._gram *= self.STEP_DECAY
        self._gram += np.outer(x, x)
        self._xy *= self.STEP_DECAY
        self._xy += x * seconds
        self._ratio = [self.STEP_DECAY * self._ratio[0] + seconds, self.STEP_DECAY * self._ratio[1] + frames]
        self._fit = self._solve()

    def _solve(self) -> tuple[float, float, float]:
        """Least squares with a ridge toward the ratio, each coefficient scaled by its own data, and an
        active set for the bounds: a coefficient the free fit makes negative is held at zero and the
        others are fitted again (three unknowns: at most three rounds)."""
        ratio = self._ratio[0] / self._ratio[1] if self._ratio[1] else 0.0
        prior = np.array([0.0, 0.0, ratio])
        ridge = self.PRIOR * np.maximum(np.diag(self._gram), 1e-12)
        free = [0, 1, 2]
        theta = np.zeros(3)
        while free:
            idx = np.array(free)
            a = self._gram[np.ix_(idx, idx)] + np.diag(ridge[idx])
            b = self._xy[idx] + ridge[idx] * prior[idx]
            solved = np.linalg.solve(a, b)
            if (solved >= 0).all():
                theta[:] = 0.0
                theta[idx] = solved
                break
            free.remove(free[int(np.argmin(solved))])
        return (float(theta[0]), float(theta[1]), float(theta[2]))

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
        self._fit = (self._fit[0], 0.0, self._fit[2])

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

    def merge_gain(self, streams: int, extra_frames: int) -> float:
        """Seconds a tick saves by running `streams` streams' chunks `extra_frames` frames longer each, in
        the step of a longer length, instead of in a step of their own (negative: a loss)."""
        return self.per_step - self.per_frame * streams * extra_frames
