"""Real-time playback of a received stream through a jitter buffer, and the statistics the bench reports.

Pure functions, no I/O: the load generator records when each audio chunk arrived and how much audio it
held, and `simulate_playback` replays that against a client that plays audio at real-time speed.

The player model (the one an agent's audio output uses):
- playback starts once the buffer holds `jitter_s` of audio, or once the stream has ended if the whole
  utterance is shorter than that;
- while playing, the playhead advances at real time; if it reaches the end of the received audio before
  the stream has ended, that is a stall: playback pauses and re-primes, resuming when the buffer again
  holds `jitter_s` (or the stream ends). The stall's time runs from the moment the playhead ran dry to
  the moment playback resumes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Playback:
    """What a real-time listener experienced for one stream. Times are seconds from the request send."""

    playback_start_s: float | None  # when audio first became audible; None when no audio arrived
    stalls: int
    stall_s: float
    max_gap_s: float  # longest wait between consecutive chunks (after the first)
    audio_s: float


def simulate_playback(arrivals: Sequence[tuple[float, float]], jitter_s: float) -> Playback:
    """Replay `arrivals` = [(arrival time s, audio seconds in the chunk), ...] through a jitter buffer.

    Arrival times must be non-decreasing; chunks with no audio are ignored. The last chunk marks the
    end of the stream: a stream that ends is never a stall, whatever is left in the buffer plays out.
    """
    if jitter_s < 0:
        raise ValueError(f"jitter_s must be >= 0, got {jitter_s}")
    chunks = [(float(t), float(d)) for t, d in arrivals if d > 0]
    for (t0, _), (t1, _) in zip(chunks, chunks[1:], strict=False):
        if t1 < t0:
            raise ValueError(f"arrival times must be non-decreasing, got {t0} then {t1}")
    if not chunks:
        return Playback(None, 0, 0.0, 0.0, 0.0)

    received = 0.0  # seconds of audio received so far
    playing = False
    pos0 = 0.0  # playhead position (audio seconds) when playback (re)started
    t_resume = 0.0  # wall time when playback (re)started
    dry_at: float | None = None  # wall time the playhead ran dry, while re-priming after a stall
    start: float | None = None
    stalls = 0
    stall_s = 0.0
    last = len(chunks) - 1
    for i, (t, d) in enumerate(chunks):
        if playing:
            playhead = pos0 + (t - t_resume)
            if playhead > received:  # ran out of audio before this chunk arrived
                dry_at = t_resume + (received - pos0)
                stalls += 1
                playing = False
                pos0 = received
        received += d
        # a tolerance: ten 10 ms chunks sum to 0.09999999999999999 s, below a 100 ms buffer by float error
        if not playing and (received - pos0 >= jitter_s - 1e-9 or i == last):
            playing = True
            t_resume = t
            if start is None:
                start = t
            elif dry_at is not None:
                stall_s += t - dry_at
                dry_at = None
    gaps = [b[0] - a[0] for a, b in zip(chunks, chunks[1:], strict=False)]
    return Playback(start, stalls, stall_s, max(gaps, default=0.0), received)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) with linear interpolation between order statistics; None if empty."""
    if not 0 <= q <= 100:
        raise ValueError(f"percentile q must be within 0..100, got {q}")
    xs = sorted(v for v in values if v is not None and not math.isnan(v))
    if not xs:
        return None
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summarize(values: Sequence[float]) -> dict[str, float | None]:
    """p50/p95/p99/max of a sample, the columns every table in the bench uses."""
    vals = [v for v in values if v is not None]
    return {
        "n": len(vals),
        "p50": percentile(vals, 50),
        "p95": percentile(vals, 95),
        "p99": percentile(vals, 99),
        "max": max(vals) if vals else None,
    }
