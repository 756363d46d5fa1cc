"""hibari-tts teacher rendering (`hibari:<voice>`): a small neural voice distilled from Kokoro-82M.

hibari (PyPI `hibari-tts`, Apache-2.0) turns text into misaki phonemes with its own G2P, and one ONNX
graph predicts a duration for every phoneme token, then the spectral frames (12.5 ms, 24 kHz) that its
numpy DSP turns into audio. The durations are the exact phone timings we need, but they are not a graph
output, so the graph is loaded once with one more output: the integer durations, the input of the
graph's only CumSum (the length regulator). One duration unit is two spectral frames (25 ms), and the
audio is exactly sum(durations) * 600 samples; its sound runs 50 ms ahead of the units and its pauses'
edges are where the audio goes quiet, which `phone_times` corrects, as for Kokoro.

misaki phoneme characters are mapped to the English inventory's ARPAbet (`MISAKI_TO_ARPABET`): stress
marks give their frames to the phone they stress, a length mark to the phone before it, a space (a word
boundary with no silence in Kokoro's timing) to the phone before it, and punctuation and the padding
tokens at both ends become pauses. The audio is resampled from 24 kHz to the dataset's rate.

Nothing is downloaded: hibari fetches voices other than its bundled "heart" from Hugging Face on first
use, and this module refuses such a voice unless it is already in hibari's cache.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import soxr

from model_server import vocoder
from model_server.data import phone_times
from model_server.data.festival import TeacherRender

HIBARI_RATE = 24000
SEED = 0  # hibari's noise component: fixed per sentence, so a re-render gives the same audio

# misaki (Kokoro) phoneme characters -> ARPAbet (American and British sets). Two-character entries
# are matched first: an r-coloured vowel is one ARPAbet phone.
MISAKI_TO_ARPABET: dict[str, str] = {
    "ɜɹ": "er", "əɹ": "er", "ɚ": "er", "ɜ": "er",
    "A": "ey", "I": "ay", "O": "ow", "Q": "ow", "W": "aw", "Y": "oy",
    "ɑ": "aa", "ɒ": "aa", "æ": "ae", "ɔ": "ao", "ə": "ax", "ᵊ": "ax", "ɐ": "ax", "ɛ": "eh", "ɪ": "ih",
    "ᵻ": "ih", "i": "iy", "u": "uw", "ʊ": "uh", "ʌ": "ah", "a": "aa", "e": "eh", "o": "ow",
    "b": "b", "d": "d", "f": "f", "h": "hh", "j": "y", "k": "k", "l": "l", "m": "m", "n": "n", "p": "p",
    "s": "s", "t": "t", "v": "v", "w": "w", "z": "z", "ɡ": "g", "g": "g", "ŋ": "ng", "ɹ": "r", "r": "r",
    "ʃ": "sh", "ʒ": "zh", "ð": "dh", "θ": "th", "ʤ": "jh", "ʧ": "ch",
    "ɾ": "t", "T": "t", "ʔ": "t",  # flaps (misaki writes "T" for the American one) and the glottal stop
}  # fmt: skip
STRESS_MARKS = frozenset("ˈˌ")  # before the vowel they stress
AFTER_MARKS = frozenset("ː ")  # length mark and word space: frames go to the phone before
TEACHER_PAUSE = "pau"


class HibariError(RuntimeError):
    """hibari-tts is missing, the voice is unknown or not available offline, or its graph is unexpected."""


def _import_hibari():
    try:
        import hibari
        import hibari.dsp
        import hibari.voices
    except ImportError as exc:
        raise HibariError("hibari-tts is not installed (pinned in requirements-dev.txt: "
                          "`.venv/bin/python -m pip install -r requirements-dev.txt`)") from exc
    return hibari


def voice_model_path(voice: str) -> str:
    """Path of the voice's ONNX file: bundled in the wheel or already in hibari's cache, never downloaded."""
    hibari = _import_hibari()
    known = hibari.voices.VOICES
    if voice not in known:
        raise HibariError(f"unknown hibari voice {voice!r}; hibari-tts knows {sorted(known)} "
                          f"(only {[v for v, s in known.items() if s.get('bundled')]} is in the wheel)")
    try:
        return hibari.voices.voice_path(voice, download_missing=False)
    except FileNotFoundError as exc:
        raise HibariError(f"hibari voice {voice!r} is not in the hibari-tts wheel and would be downloaded at run "
                          f"time from {hibari.voices.BASE_URL}; the data build does not download models. "
                          f"Only bundled voices are teachers: {[v for v, s in known.items() if s.get('bundled')]}"
                          ) from exc


class HibariTeacher:
    """One loaded voice: G2P, the ONNX graph with its durations exposed, and hibari's DSP."""

    def __init__(self, voice: str, threads: int = 1):
        hibari = _import_hibari()
        import onnx
        import onnxruntime as ort

        path = voice_model_path(voice)
        model = onnx.load(path)
        cumsums = [n for n in model.graph.node if n.op_type == "CumSum"]
        if len(cumsums) != 1:
            raise HibariError(f"{path}: expected one CumSum (the length regulator) in the graph, found "
                              f"{len(cumsums)}; this hibari-tts version is not supported")
        self.durations_name = cumsums[0].input[0]
        model.graph.output.append(onnx.helper.make_tensor_value_info(self.durations_name, onnx.TensorProto.INT64,
                                                                     None))
        so = ort.SessionOptions()
        so.intra_op_num_threads = so.inter_op_num_threads = threads
        so.log_severity_level = 3
        self.session = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        # hibari's own object for its G2P, vocabulary and sentence splitting (its unmodified session is unused)
        self.tts = hibari.Hibari(voice=voice, model=path, threads=threads)
        self.symbol_of = {i: c for c, i in self.tts.vocab.items()}
        self.dsp = hibari.dsp
        self.voice = voice

    def phonemes(self, text: str) -> list[str]:
        return self.tts.phonemize(text)

    def render_phonemes(self, phonemes: str, rng: np.random.Generator) -> tuple[np.ndarray, list[tuple[str, int]]]:
        """One phoneme string -> (float32 audio at 24 kHz, (token, duration units) per model token)."""
        ids = self.tts.ids(phonemes)
        out = self.session.run(None, {"ids": np.asarray([ids], np.int64), "speed": np.ones(1, np.float32)})
        lh, th, ln, lr, phi, f0 = (o[0] for o in out[:6])
        durs = [int(d) for d in np.asarray(out[6]).reshape(-1)]  # [L]: no batch axis
        if len(durs) != len(ids) or 2 * sum(durs) != f0.shape[-1]:
            raise HibariError(f"hibari graph output {self.durations_name!r} is not the per-token durations: "
                              f"{len(durs)} values for {len(ids)} tokens, {sum(durs)} units for "
                              f"{f0.shape[-1]} frames")
        audio = self.dsp.synth(lh, th, ln, lr, phi, f0, rng)
        tokens = ["" if i == 0 else self.symbol_of.get(i, "?") for i in ids]  # "" = the padding at both ends
        return np.asarray(audio, np.float32), list(zip(tokens, durs, strict=True))


def tokens_to_segments(tokens: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """misaki tokens with duration units -> (ARPAbet phone or pause, units), merged as the module says.

    The total of the units is kept; consecutive pauses become one.
    """
    out: list[list] = []
    pending = 0  # units of stress marks waiting for the phone they stress

    def add(name: str, units: int) -> None:
        nonlocal pending
        units, pending = units + pending, 0
        if name == TEACHER_PAUSE and out and out[-1][0] == TEACHER_PAUSE:
            out[-1][1] += units
        else:
            out.append([name, units])

    k = 0
    while k < len(tokens):
        tok, units = tokens[k]
        pair = tok + tokens[k + 1][0] if k + 1 < len(tokens) else ""
        if len(pair) == 2 and pair in MISAKI_TO_ARPABET:
            add(MISAKI_TO_ARPABET[pair], units + tokens[k + 1][1])
            k += 2
            continue
        k += 1
        if tok in STRESS_MARKS:
            pending += units
        elif tok in AFTER_MARKS and out:
            out[-1][1] += units
        elif tok in MISAKI_TO_ARPABET:
            add(MISAKI_TO_ARPABET[tok], units)
        elif tok.isalpha():
            add(tok, units)  # a letter with no ARPAbet phone: kept, so the aligner counts it as a mismatch
        else:
            add(TEACHER_PAUSE, units)  # the padding at both ends, punctuation
    if pending:
        add(TEACHER_PAUSE, 0)
    return [(name, units) for name, units in out]


@cache
def _teacher(voice: str) -> HibariTeacher:
    return HibariTeacher(voice)  # one per worker process: loading the graph and the G2P takes ~1 s


def render_native(voice: str, text: str) -> tuple[np.ndarray | None, list[tuple[str, float]], str | None]:
    """Synthesize `text` at hibari's own rate: (float32 audio at HIBARI_RATE or None, (phone, end seconds)
    segments, error or None)."""
    teacher = _teacher(voice)
    chunks = teacher.phonemes(text)
    if not chunks:
        return None, [], f"hibari ({voice}) found nothing to say in {text!r}"
    rng = np.random.default_rng(SEED)
    parts, frames = [], []
    for ps in chunks:  # hibari splits at sentence ends (and very long clauses): one graph run each
        audio, tokens = teacher.render_phonemes(ps, rng)
        parts.append(audio)
        # one duration unit (600 samples at 24 kHz) is two 12.5 ms frames; each run's sound leads its units
        frames += phone_times.lead([(name, 2 * units) for name, units in tokens_to_segments(tokens)])
    audio24 = np.concatenate(parts)
    if len(audio24) == 0 or not any(name != TEACHER_PAUSE for name, _ in frames):
        return None, [], f"hibari ({voice}) produced no speech for {text!r}"
    return audio24, phone_times.segments(frames, audio24, HIBARI_RATE, lambda name: name == TEACHER_PAUSE), None


def render_one(voice: str, text: str) -> TeacherRender:
    """Synthesize `text`; int16 audio at the dataset rate and (phone, end seconds) segments."""
    audio24, segments, error = render_native(voice, text)
    if error:
        return TeacherRender(text, None, [], error)
    audio = soxr.resample(audio24, HIBARI_RATE, vocoder.SAMPLE_RATE, quality="HQ") if (
        vocoder.SAMPLE_RATE != HIBARI_RATE) else audio24
    pcm = np.clip(np.round(audio * 32768.0), -32768, 32767).astype(np.int16)
    return TeacherRender(text, pcm, segments)


def render_batch(voice: str, texts: list[str]) -> list[TeacherRender]:
    return [render_one(voice, t) for t in texts]
