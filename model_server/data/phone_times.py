"""Phone times of the duration-predicting neural teachers (Kokoro, hibari), corrected to their sound.

Kokoro-82M and hibari (distilled from it) predict a whole number of 25 ms frames for each input symbol and
make the audio from those frames, so their durations are the phone times `make data` needs, but not
exactly where the sound is:

- The sound runs ahead of the frames. Labelled with the frames as they are, a phone's frames look most alike
  across a corpus with every boundary moved LEAD_FRAMES (50 ms) earlier; espeak-ng's exact synthesis times
  are best unmoved, and Festival's within one frame (`tools/teacher_timing.py`, docs/model.md "The neural
  teachers' phone times").
- A sentence's trailing silence lands in its last phoneme (a final "s" of 425 ms, 60 ms of it audible), and
  a phrase's first sound starts inside the pause before it. `snap_pauses` moves the boundaries beside a
  pause to where the audio goes quiet or loud.

Times here are the model's 12.5 ms frames (`vocoder.HOP` at 16 kHz); one teacher frame is two of them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

LEAD_FRAMES = 4  # how far the teachers' sound runs ahead of their duration frames, in 12.5 ms frames
FRAME_RATE = 80  # frames per second (12.5 ms)
SILENCE_DB = 40.0  # a frame this far below the utterance's loudest is silence (also `ljspeech.speech_bounds`')
RULES = ["lead", LEAD_FRAMES, "pause edges at dB below the peak", SILENCE_DB]  # part of `make data`'s cache keys


def loud_frames(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """Per 12.5 ms frame of `audio`: louder than SILENCE_DB below the utterance's loudest frame."""
    hop = sample_rate // FRAME_RATE
    n = len(audio) // hop
    if n == 0:
        return np.zeros(0, bool)
    power = np.square(np.asarray(audio[: n * hop], np.float64)).reshape(n, hop).mean(axis=1)
    return power > power.max() * 10.0 ** (-SILENCE_DB / 10.0)


def lead(frames: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Every boundary of one rendering (a pause at each end) moved LEAD_FRAMES earlier: the leading pause gives
    them to the trailing one, so the total is kept."""
    moved = min(LEAD_FRAMES, frames[0][1])
    if len(frames) < 2 or moved == 0:
        return list(frames)
    (first, f0), (last, f1) = frames[0], frames[-1]
    return [(first, f0 - moved), *frames[1:-1], (last, f1 + moved)]


def segments(frames: list[tuple[str, int]], audio: np.ndarray, sample_rate: int, is_pause: Callable[[str], bool]
             ) -> list[tuple[str, float]]:
    """A rendering's (name, frames), already `lead`, as the (name, end seconds) segments `make data` takes, with
    the pause edges snapped to `audio`'s sound (`snap_pauses`)."""
    snapped = snap_pauses(frames, loud_frames(audio, sample_rate), is_pause)
    ends = np.cumsum([n for _, n in snapped]) / FRAME_RATE
    return [(name, float(end)) for (name, _), end in zip(snapped, ends, strict=True)]


def snap_pauses(frames: list[tuple[str, int]], loud: np.ndarray, is_pause: Callable[[str], bool]
                ) -> list[tuple[str, int]]:
    """Boundaries between a pause and a phone moved to where the audio goes quiet or loud: frames of silence
    at the phone's edge go to the pause, frames of sound at the pause's edge to the phone. Every segment keeps
    at least one frame; boundaries between two phones, or two pauses, stay."""
    labels = [name for name, _ in frames]
    counts = [n for _, n in frames]
    pause = [is_pause(name) for name in labels]

    def sounds(k: int) -> bool:
        return k < len(loud) and bool(loud[k])  # a frame past the analysed audio is silence

    edge = 0
    for i in range(len(counts) - 1):
        edge += counts[i]  # the first frame of segment i + 1
        if pause[i] == pause[i + 1]:
            continue
        # the frame before the edge belongs to the right segment while it sounds like it; then the frame after
        # the edge to the left segment while it sounds like that one
        while counts[i] > 1 and sounds(edge - 1) == pause[i]:
            counts[i], counts[i + 1], edge = counts[i] - 1, counts[i + 1] + 1, edge - 1
        while counts[i + 1] > 1 and sounds(edge) == pause[i + 1]:
            counts[i], counts[i + 1], edge = counts[i] + 1, counts[i + 1] - 1, edge + 1
    return list(zip(labels, counts, strict=True))
