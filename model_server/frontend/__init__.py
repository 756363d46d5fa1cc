"""Text frontend: text -> units of model symbols, identical at data-generation and serving time.

    fe = Frontend("en")
    units = fe.text_to_units("Dr. Smith paid $12.50.")
    ids = units_to_ids(units)            # the acoustic model's input

A sentence becomes: <pause>, then words separated by <wb> (or by a punctuation unit such as <,>),
then the final punctuation unit and <pause>. A word unit keeps the text as the client wrote it
("$12.50") and the symbols of everything it is spoken as ("twelve dollars and fifty cents", with <wb>
between the spoken words), so the server can time-stamp the client's words.

Pipeline: `normalize.normalize_segments` -> tokenize spoken text into words and punctuation ->
espeak-ng phonemes per clause (so cross-word context such as "the" before a vowel is kept; when espeak
merges or splits words, that clause is phonemized word by word instead) -> `symbols.SymbolMapper`.
Text with nothing speakable gives an empty list.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

from . import espeak
from .align import Alignment, align
from .normalize import NormalizationError, normalize, normalize_segments
from .script import WORD_CHAR
from .symbols import (
    LANGUAGE_VOICES,
    LENGTH_MARKS,
    PAUSE,
    PUNCTUATION,
    SYMBOL_TO_ID,
    WORD_BOUNDARY,
    LengthMarks,
    SymbolMapper,
    UnsupportedLanguageError,
    is_pause,
)

__all__ = [
    "EspeakTeacher",
    "Frontend",
    "has_words",
    "NormalizationError",
    "Unit",
    "UnsupportedLanguageError",
    "supported_languages",
    "units_to_ids",
    "units_to_symbols",
]


@dataclass(frozen=True, slots=True)
class Unit:
    """kind: "word" (spoken words from `text`), "punct" (a punctuation class), "boundary" (<wb>),
    or "pause" (<pause> at sentence start/end). `symbols` and `ids` are parallel."""

    kind: str
    text: str
    symbols: tuple[str, ...]
    ids: tuple[int, ...]


def supported_languages() -> list[str]:
    """Language codes the frontend (and the symbol inventory) supports."""
    return sorted(LANGUAGE_VOICES)


def has_words(text: str, language: str) -> bool:
    """Whether `text` has anything to speak: a word once normalized ("%" is "percent"; "...", "$" alone
    and emoji are not, nor combining marks without a letter: "\u0301\u0301" answered 200 with no audio).
    Cheap: the normalizer and the tokenizer only, no phonemizer."""
    return any(
        m.group(0)[0] not in _CLAUSE_PUNCT and _LETTER_OR_DIGIT.search(m.group(0))
        for segment in normalize_segments(text, language)
        for m in _TOKEN.finditer(segment.spoken)
    )


def units_to_symbols(units: list[Unit]) -> list[str]:
    return [s for u in units for s in u.symbols]


def units_to_ids(units: list[Unit]) -> list[int]:
    return [i for u in units for i in u.ids]


_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
# Spoken-text tokens: dotted initialisms ("U.S."), words with inner apostrophes/hyphens, punctuation runs.
_TOKEN = re.compile(rf"(?:[^\W\d_]\.){{2,}}|{WORD_CHAR}+(?:['\-]{WORD_CHAR}+)*|[.,;:!?]+|(?<=\s)-(?=\s)")
_PUNCT_STRENGTH = {"<,>": 0, "<.>": 1, "<!>": 2, "<?>": 3}
_CLAUSE_PUNCT = {",": "<,>", ";": "<,>", ":": "<,>", "-": "<,>", ".": "<.>", "?": "<?>", "!": "<!>"}


def _punct_symbol(run: str) -> str:
    # "?!" asks, "..." ends, "!!!" exclaims: the strongest mark in the run wins.
    for mark in ("?", "!", "."):
        if mark in run:
            return PUNCTUATION[mark]
    return _CLAUSE_PUNCT[run[0]]


def _unit(kind: str, text: str, symbols: list[str] | tuple[str, ...]) -> Unit:
    return Unit(kind, text, tuple(symbols), tuple(SYMBOL_TO_ID[s] for s in symbols))


@dataclass(frozen=True)
class EspeakTeacher:
    """espeak-ng teacher audio for one text with a duration (in audio samples) for every symbol.

    `durations[i]` belongs to `units_to_symbols(units)[i]`; they sum to `len(audio)`. `alignment` tells
    how well espeak's own phonemes matched the frontend's symbols (normally exactly).
    """

    audio: object  # np.ndarray int16
    sample_rate: int
    units: list[Unit]
    durations: list[int]
    alignment: Alignment


_MAX_GROUP = 3
# (our words, clause words, cost of the grouping): one to one, or up to _MAX_GROUP on one side
_GROUPINGS = (
    [(1, 1, 0.0)]
    + [(k, 1, 0.5 * (k - 1)) for k in range(2, _MAX_GROUP + 1)]
    + [(1, k, 0.5 * (k - 1)) for k in range(2, _MAX_GROUP + 1)]
)
MAX_CLAUSE_WORDS = 64  # words phonemized in one espeak call (a sentence's clauses are rarely longer)


def _regroup(clause: list[list[str]], alone: list[tuple[str, ...]]) -> list[list[str]]:
    """Give each word its part of espeak's clause output when espeak merged or split words.

    A small DP pairs groups of clause words with groups of our words (one-to-one, one clause word for up
    to 3 of ours, or up to 3 clause words for one of ours), preferring groups whose phoneme counts
    match the words said alone. A merged clause word is cut where the words said alone would end, so
    context-dependent forms elsewhere in the clause are kept. If no sensible grouping exists, the
    words said alone are used.
    """
    n, m = len(alone), len(clause)
    ours_end = list(itertools.accumulate((len(x) for x in alone), initial=0))  # phone counts, prefix sums
    theirs_end = list(itertools.accumulate((len(x) for x in clause), initial=0))
    limit = 0.25 * (
        ours_end[n] or 1
    )  # a grouping that costs more is not used, so no path past it is followed
    inf = float("inf")
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    back: list[list[tuple[int, int] | None]] = [[None] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0
    # what is left to pair costs at least the difference of the phones left on each side (a sum of |x| is at
    # least |the sum|), so a state that cannot end within the limit is skipped: exact, and near linear
    gap = ours_end[n] - theirs_end[m]
    for i in range(n + 1):
        row = cost[i]
        for j in range(m + 1):
            here = row[j]
            if here + abs(gap - ours_end[i] + theirs_end[j]) > limit:  # also inf: unreachable
                continue
            for a, b, penalty in _GROUPINGS:
                if i + a > n or j + b > m:
                    continue
                ours = ours_end[i + a] - ours_end[i]
                theirs = theirs_end[j + b] - theirs_end[j]
                c = here + abs(ours - theirs) + penalty
                if c < cost[i + a][j + b]:
                    cost[i + a][j + b] = c
                    back[i + a][j + b] = (a, b)
    if cost[n][m] > limit:
        return [list(x) for x in alone]
    groups: list[tuple[int, int, int, int]] = []
    i, j = n, m
    while i > 0 or j > 0:
        a, b = back[i][j]
        groups.append((i - a, a, j - b, b))
        i, j = i - a, j - b
    out: list[list[str]] = []
    for i0, a, j0, b in reversed(groups):
        phones = [p for y in range(j0, j0 + b) for p in clause[y]]
        if a == 1:
            out.append(phones)
            continue
        start = 0
        for k in range(a):
            end = len(phones) if k == a - 1 else min(len(phones), start + len(alone[i0 + k]))
            out.append(phones[start:end])
            start = end
    return out


def _written_tokens(seg) -> list[tuple[str, str]]:
    """(spoken token, the client's text of it) for each token of a text segment. Text segments are spoken
    as written, less what the language cannot read, except Japanese text, which is spoken in katakana
    ("公園に" -> "コーエンニ"): where the spoken words are not in the written text, and the two have the same
    tokens in the same places (words, punctuation), they are paired by position. A unit's text is what word
    timestamps carry, and "コーエンニ" is not in the transcript the client sent."""
    spoken = [m.group(0) for m in _TOKEN.finditer(seg.spoken)]
    if seg.spoken != seg.original and any(tok not in seg.original for tok in spoken):
        written = [m.group(0) for m in _TOKEN.finditer(seg.original)]
        if len(written) == len(spoken) and all(
            (a[0] in _CLAUSE_PUNCT) == (b[0] in _CLAUSE_PUNCT) for a, b in zip(spoken, written, strict=True)
        ):
            return list(zip(spoken, written, strict=True))
    return [(tok, tok) for tok in spoken]


class Frontend:
    """Text -> units for one catalog language (`languages.CATALOG`: "en", "es", "zh", ...). Thread-safe.

    `length_marks` is the rule the model was trained with (`symbols.LengthMarks`; a model's config says).
    """

    def __init__(self, language: str = "en", length_marks: LengthMarks = LENGTH_MARKS) -> None:
        if not isinstance(language, str) or language not in LANGUAGE_VOICES:
            raise UnsupportedLanguageError(
                f"language {language!r} is not supported; choose one of {supported_languages()}"
            )
        self.language = language
        self.voice = LANGUAGE_VOICES[language]
        self._mapper = SymbolMapper(language, length_marks)
        self._word_cache = lru_cache(maxsize=20000)(self._phonemize_word_uncached)

    @property
    def length_marks(self) -> LengthMarks:
        return self._mapper.length_marks

    # -- phonemization -----------------------------------------------------------------------------

    def _phonemize_word_uncached(self, word: str) -> tuple[str, ...]:
        names = [p for w in espeak.phonemize(word, self.voice) for p in w]
        return tuple(names)

    def _phonemize_clause(self, words: list[str]) -> list[list[str]]:
        """espeak phoneme names for each of `words` (one clause, no punctuation). A clause longer than
        MAX_CLAUSE_WORDS goes to espeak in parts of that many words, so the regrouping, quadratic in the
        clause's length, stays bounded whatever the text (one e-mail-like token of 5,000 characters is
        thousands of spoken words with no punctuation between them)."""
        if len(words) > MAX_CLAUSE_WORDS:
            return [
                names
                for start in range(0, len(words), MAX_CLAUSE_WORDS)
                for names in self._phonemize_clause(words[start : start + MAX_CLAUSE_WORDS])
            ]
        if not words:
            return []
        out = espeak.phonemize(" ".join(words), self.voice)
        if len(out) == len(words):
            return out
        # espeak joined ("did not", "in the") or split words: regroup using each word said alone.
        return _regroup(out, [self._word_cache(w) for w in words])

    def _to_symbols(self, per_word: list[list[str]]) -> list[list[str]]:
        lang = self.language
        result = []
        for names in per_word:
            syms, lang = self._mapper.map_phonemes(names, lang)
            result.append(syms)
        return result

    # -- public ------------------------------------------------------------------------------------

    def text_to_units(self, text: str, sentence: bool = True) -> list[Unit]:
        """Units for `text`; with `sentence`, framed by <pause> units (as in training data)."""
        segments = normalize_segments(text, self.language)
        # Items: ("word", original, spoken word) or ("punct", original, symbol); a rule segment's
        # words share one group id so they become one unit.
        items: list[tuple[str, int, str, str]] = []
        for gid, seg in enumerate(segments):
            if seg.rule == "text":
                for tok, original in _written_tokens(seg):
                    if tok[0] in _CLAUSE_PUNCT:
                        items.append(("punct", -1, original, _punct_symbol(tok)))
                    else:
                        items.append(("word", -1, original, tok))
            else:
                for m in _TOKEN.finditer(seg.spoken):
                    tok = m.group(0)
                    if tok[0] in _CLAUSE_PUNCT:
                        items.append(("punct", gid, seg.original, _punct_symbol(tok)))
                    else:
                        items.append(("word", gid, seg.original, tok))
        # Phonemize clause by clause (a clause ends at punctuation outside rule segments).
        word_syms: dict[int, list[str]] = {}
        clause: list[int] = []
        for k, item in enumerate(items + [("punct", -1, "", "")]):
            if item[0] == "word":
                clause.append(k)
                continue
            if item[1] != -1:
                continue  # punctuation inside a rule segment (e.g. phone number groups) keeps the clause
            if clause:
                names = self._phonemize_clause([items[c][3] for c in clause])
                for c, syms in zip(clause, self._to_symbols(names), strict=True):
                    word_syms[c] = syms
                clause = []
        return self._assemble(items, word_syms, sentence)

    def _assemble(self, items, word_syms: dict[int, list[str]], sentence: bool) -> list[Unit]:
        units: list[Unit] = []
        pending: list[str] = []  # symbols of the rule-segment unit being built
        pending_text = ""
        pending_gid = None

        def flush() -> None:
            nonlocal pending, pending_gid
            trailing = None  # "et cetera." from "etc." at a sentence end: the full stop stays a unit
            while pending and pending[-1] in (WORD_BOUNDARY, *PUNCTUATION.values()):
                last = pending.pop()
                if last != WORD_BOUNDARY and trailing is None:
                    trailing = last
            if pending:
                add("word", pending_text, pending)
                if trailing is not None:
                    add("punct", "", [trailing])
            pending, pending_gid = [], None

        def add(kind: str, text: str, syms: list[str]) -> None:
            if kind == "word" and units and units[-1].kind == "word":
                units.append(_unit("boundary", "", [WORD_BOUNDARY]))
            if kind == "punct" and units and units[-1].kind == "punct":
                # ", ." -> one pause mark is enough: keep the stronger one.
                if _PUNCT_STRENGTH[syms[0]] > _PUNCT_STRENGTH[units[-1].symbols[0]]:
                    units[-1] = _unit(kind, units[-1].text + text, syms)
                return
            units.append(_unit(kind, text, syms))

        for k, (kind, gid, original, value) in enumerate(items):
            if gid != -1:
                if gid != pending_gid:
                    flush()
                    pending_gid, pending_text = gid, original
                if kind == "word" and word_syms.get(k):
                    if pending and pending[-1] not in (WORD_BOUNDARY, *PUNCTUATION.values()):
                        pending.append(WORD_BOUNDARY)
                    pending.extend(word_syms[k])
                elif kind == "punct" and pending:
                    if pending[-1] == WORD_BOUNDARY:
                        pending[-1] = value
                    else:
                        pending.append(value)
                continue
            flush()
            if kind == "word":
                if word_syms.get(k):
                    add("word", original, word_syms[k])
            elif units:  # leading punctuation says nothing
                add("punct", original, [value])
        flush()
        if not any(u.kind == "word" for u in units):
            return []
        if sentence:
            units.insert(0, _unit("pause", "", [PAUSE]))
            units.append(_unit("pause", "", [PAUSE]))
        return units

    def text_to_symbols(self, text: str, sentence: bool = True) -> list[str]:
        return units_to_symbols(self.text_to_units(text, sentence))

    def text_to_ids(self, text: str, sentence: bool = True) -> list[int]:
        return units_to_ids(self.text_to_units(text, sentence))

    def espeak_teacher(self, text: str, rate: int | None = None) -> EspeakTeacher | None:
        """Render `text` with espeak-ng and time every symbol of `text_to_units(text)` (training data).

        espeak reads the normalized text; its phoneme events are mapped to symbols (an event that maps
        to several symbols splits its samples evenly) and aligned to the frontend's symbols, which
        carries the durations over even where per-word fallback phonemized a word differently.
        Returns None when the text has nothing to speak.
        """
        units = self.text_to_units(text)
        if not units:
            return None
        audio, sr, events = espeak.synthesize_with_phonemes(normalize(text, self.language), self.voice, rate)
        teacher_syms: list[str] = []
        teacher_durs: list[int] = []
        lang = self.language
        for name, dur in espeak.phone_durations(events, len(audio)):
            if is_pause(name, lang):
                teacher_syms.append(PAUSE)
                teacher_durs.append(dur)
                continue
            syms, lang = self._mapper.map_phonemes([name], lang)
            if not syms:
                if teacher_durs:  # a language-switch marker or a silent mnemonic: keep its samples
                    teacher_durs[-1] += dur
                else:
                    teacher_syms.append(PAUSE)
                    teacher_durs.append(dur)
                continue
            share, extra = divmod(dur, len(syms))
            for k, sym in enumerate(syms):
                teacher_syms.append(sym)
                teacher_durs.append(share + (1 if k < extra else 0))
        result = align(units_to_symbols(units), teacher_syms, teacher_durs)
        if sum(result.durations) != len(audio):
            # Audio before the first phoneme event is already inside phone_durations; this cannot differ.
            raise espeak.EspeakError("espeak teacher durations do not cover the audio")
        return EspeakTeacher(audio, sr, units, result.durations, result)
