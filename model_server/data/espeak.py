"""espeak-ng teacher rendering for es, de and fr through the frontend's `synthesize_with_phonemes`.

espeak-ng reports the output sample at which each phoneme starts, so phone durations are exact (no
alignment guesswork). Audio comes out at espeak's own rate (22050 Hz) and is resampled to 16 kHz with
soxr; phoneme boundaries are scaled by the same ratio.

Determinism: libespeak-ng's audio is not reproducible sample for sample. Measured with espeakng-loader
0.2.4: the same sentence synthesized twice differs in its noise, and in length by up to a few frames
(4 frames, 50 ms, seen on a 1.5 s French sentence), depending on the process and on what it synthesized
before; neither `espeak_ng_SetRandSeed`, libc `srand`, reselecting the voice, `espeak_Terminate` +
`espeak_Initialize` nor a fresh process per batch makes it bit-exact (the state lives in the library's
statics; only a new process that renders the same sequence gets the same audio). Texts, symbols and the
utterance list are deterministic; the render cache keeps a dataset's espeak audio stable across resumed runs.
"""

from __future__ import annotations

import numpy as np
import soxr

from model_server.data.festival import SAMPLE_RATE, TeacherRender
from model_server.frontend.espeak import EspeakError, phone_durations, synthesize_with_phonemes


def render_one(voice: str, text: str) -> TeacherRender:
    """Synthesize `text`; return 16 kHz int16 audio and (phoneme, end seconds) segments, pauses included."""
    try:
        audio, sr, events = synthesize_with_phonemes(text, voice)
        durs = phone_durations(events, len(audio))
    except EspeakError as exc:
        return TeacherRender(text, None, [], f"espeak-ng ({voice}) failed on {text!r}: {exc}")
    if not durs or len(audio) == 0:
        return TeacherRender(text, None, [], f"espeak-ng ({voice}) produced no audio for {text!r}")
    audio16 = soxr.resample(audio.astype(np.float32) / 32768.0, sr, SAMPLE_RATE, quality="HQ")
    ends = np.cumsum([d for _, d in durs]) / float(sr)
    segments = [(name, float(end)) for (name, _), end in zip(durs, ends, strict=True)]
    pcm = np.clip(np.round(audio16 * 32768.0), -32768, 32767).astype(np.int16)
    return TeacherRender(text, pcm, segments)


def render_batch(voice: str, texts: list[str]) -> list[TeacherRender]:
    return [render_one(voice, t) for t in texts]
