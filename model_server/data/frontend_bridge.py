"""The data pipeline's use of the frontend: text normalization and symbol/duration alignment.

Kept in one place so the training data is made with exactly the functions the server uses at inference:
Festival, espeak-ng and hibari-tts are given the frontend's normalized text (so teacher and frontend say
the same words), the symbols are `Frontend.text_to_units`, and the teacher's phone durations are distributed
over them by `frontend.align.align`, whose quality scores decide which utterances are dropped.
"""

from __future__ import annotations

from functools import cache

from model_server.data.build import AlignResult
from model_server.data.festival import FESTIVAL_PHONES
from model_server.data.voices import VoiceSpec
from model_server.frontend import Frontend, units_to_symbols
from model_server.frontend.align import AlignmentError
from model_server.frontend.align import align as _align
from model_server.frontend.normalize import normalize as _normalize
from model_server.frontend.symbols import TONE_SYMBOLS, SymbolMapper, is_pause


def normalize(text: str, language: str) -> str:
    return _normalize(text, language)


@cache
def _frontend(language: str) -> Frontend:
    return Frontend(language)


def espeak_segments_to_symbols(language: str, names: list[str], frames: list[int]
                               ) -> tuple[list[str], list[int]]:
    """espeak-ng phoneme events (mnemonics with frames) -> inventory symbols with frames.

    Pauses stay as teacher pauses ("_"); a mnemonic that maps to two symbols ("A@" -> aa r) splits its
    frames between them (the first gets the odd frame); one that maps to nothing, or a language-switch
    marker, gives its frames to the previous symbol, so the total is unchanged.
    """
    mapper = SymbolMapper(language)
    lang = language
    out_names: list[str] = []
    out_frames: list[int] = []
    carry = 0  # frames of leading segments that produced no symbol yet
    for name, f in zip(names, frames, strict=True):
        if is_pause(name, lang):
            syms = ["_"]
        else:
            syms, lang = mapper.map_phonemes([name], lang)
        if not syms:
            if out_frames:
                out_frames[-1] += f
            else:
                carry += f
            continue
        share, rest = divmod(f, len(syms))
        for k, s in enumerate(syms):
            out_names.append(s)
            out_frames.append(share + (rest if k == 0 else 0))
    if not out_names:
        return [], []
    out_frames[0] += carry
    return out_names, out_frames


def align(voice: VoiceSpec, text: str, teacher_phones: list[str], teacher_frames: list[int],
          n_frames: int) -> AlignResult:
    """Symbols for `text` and their frames; `error` says why an utterance should be dropped."""
    symbols = units_to_symbols(_frontend(voice.language).text_to_units(text))
    if not symbols:
        return AlignResult(error="empty: the frontend found nothing to speak")
    if sum(teacher_frames) != n_frames:
        raise ValueError(f"teacher frames sum to {sum(teacher_frames)}, expected {n_frames}")
    if voice.teacher_kind == "festival" and voice.language in FESTIVAL_PHONES:
        table = FESTIVAL_PHONES[voice.language]
        teacher_phones = [table.get(p, p) for p in teacher_phones]
    if voice.teacher_kind in ("espeak", "ljspeech", "kokoro"):  # segments are espeak-ng phonemes
        teacher_phones, teacher_frames = espeak_segments_to_symbols(voice.language, teacher_phones,
                                                                    teacher_frames)
        if not teacher_phones:
            return AlignResult(error="empty teacher: espeak-ng gave no phonemes")
    # Tone symbols (zh, vi, th) have no teacher event: they are aligned out and last 0 frames.
    timed = [s for s in symbols if s not in TONE_SYMBOLS]
    try:
        a = _align(timed, teacher_phones, teacher_frames)
    except AlignmentError as exc:
        return AlignResult(error=f"alignment error: {exc}")
    if not a.is_good():
        return AlignResult(error=f"poor alignment: exact {a.exact_rate:.2f}, cost {a.cost_per_phone:.2f}")
    durations = iter(a.durations)
    return AlignResult(symbols, [0 if s in TONE_SYMBOLS else next(durations) for s in symbols])
