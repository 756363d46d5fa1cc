"""Sentences and their phones, without torch: what an API worker runs on the text of its streams, and
what the engine's planner runs for text given to it directly.

    text = SentenceText(symbols, length_marks)            # the model's symbol inventory and rule
    sentences, rest = split_sentences(buffered_text, final=False)
    ids, words = text.sentence(sentence, language)        # symbol ids; (written word, first, end phone)
"""

from __future__ import annotations

import re
import threading

from model_server.frontend.symbols import LENGTH_MARKS, LengthMarks

MAX_SENTENCE_WORDS = 40  # longer sentences are cut at a comma or a word boundary (bounded phone window)
# ... and longer than this many characters at the last space in range, or right there inside one giant token:
# the text work of a sentence (normalizing, phonemizing) and its phones stay bounded whatever the client sends.
MAX_SENTENCE_CHARS = 600
# ... and a run of more than this many characters without a space (Chinese, Japanese or Thai text, a digit
# string) is cut too, after a clause mark if there is one in its second half, never between two digits or
# Latin letters: such a run is one "word" to the bounds above, and 600 characters of kanji or Thai digits took
# 250-740 ms to normalize and phonemize on an API worker's event loop (40 English words take a few ms).
MAX_RUN_CHARS = 100

# A sentence ends at . ! ? … (Arabic ؟ and Urdu ۔, the Devanagari danda) followed by whitespace, or at the
# CJK full stops, which need none: "你好。你好。" is two sentences.
_SENTENCE_END = re.compile(r"[.!?…؟۔।॥]+[\"')\]»”’]*\s+|[。！？｡]+[」』）〕】\"')\]”’]*\s*")
_LONG_RUN = re.compile(rf"\S{{{MAX_RUN_CHARS + 1},}}")
_CLAUSE_MARK = re.compile(r"[、，,;；:：]")
_ABBREVIATIONS = {
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "st",
    "sr",
    "jr",
    "vs",
    "etc",
    "e.g",
    "i.e",
    "fig",
    "mt",
    "sra",
    "dra",
    "hr",
    "fr",
    "mme",
    "mlle",
    "nr",
    "ca",
    "bzw",
    "z.b",
    "u.a",
}


# -- text -> sentences -----------------------------------------------------------------------------------
def _cut_long(sentence: str) -> list[str]:
    """Split a sentence of more than MAX_SENTENCE_WORDS words, preferring the last comma in range, and any
    piece of more than MAX_SENTENCE_CHARS characters."""
    out = []
    words = sentence.split()
    while len(words) > MAX_SENTENCE_WORDS:
        cut = MAX_SENTENCE_WORDS
        for i in range(MAX_SENTENCE_WORDS - 1, MAX_SENTENCE_WORDS // 2, -1):
            if words[i - 1].endswith((",", ";", ":")):
                cut = i
                break
        out.extend(_cut_chars(" ".join(words[:cut])))
        words = words[cut:]
    if words:
        out.extend(_cut_chars(" ".join(words)))
    return out


def _cut_chars(piece: str) -> list[str]:
    out = []
    while True:
        run = _LONG_RUN.search(piece, 0, MAX_SENTENCE_CHARS + MAX_RUN_CHARS)
        if run is not None and run.start() < MAX_SENTENCE_CHARS:
            cut = _run_cut(piece, run.start())
        elif len(piece) > MAX_SENTENCE_CHARS:
            cut = piece.rfind(" ", 0, MAX_SENTENCE_CHARS + 1)
            cut = cut if cut > 0 else MAX_SENTENCE_CHARS
        else:
            break
        out.append(piece[:cut].strip())
        piece = piece[cut:].strip()
    if piece:
        out.append(piece)
    return out


def _run_cut(piece: str, start: int) -> int:
    """Where to cut the run without spaces that starts at `start`: after its last clause mark in the second
    half of its first MAX_RUN_CHARS characters, else at the last place there not between two digits or two
    Latin letters ("12345元" is one amount), else right at MAX_RUN_CHARS."""
    end = start + MAX_RUN_CHARS
    lo = start + MAX_RUN_CHARS // 2
    marks = [m.end() for m in _CLAUSE_MARK.finditer(piece, lo, end)]
    if marks:
        return marks[-1]
    for cut in range(end, lo, -1):
        a, b = piece[cut - 1], piece[cut]
        if not (
            (a.isdigit() and b.isdigit()) or (a.isascii() and a.isalpha() and b.isascii() and b.isalpha())
        ):
            return cut
    return end


def split_sentences(text: str, final: bool) -> tuple[list[str], str]:
    """Complete sentences in ``text`` and the unfinished rest. A sentence ends at . ! ? followed by
    whitespace (so "3.5" and a half-received "Mr." do not end one), not after a known abbreviation or a
    single letter, or at a CJK full stop (。！？). With ``final`` the rest is a sentence too and nothing is
    left over: whitespace alone is no sentence, and a rest kept after the input closed would keep the stream
    from ever being done."""
    sentences, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        before = text[start : m.start()].split()
        last = before[-1].lower().rstrip(".") if before else ""
        if m.group().startswith(".") and (last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())):
            continue
        sentences.append(text[start : m.end()].strip())
        start = m.end()
    rest = text[start:]
    if final:
        if rest.strip():
            sentences.append(rest.strip())
        rest = ""
    out = [piece for s in sentences if s for piece in _cut_long(s)]
    if len(rest) > MAX_SENTENCE_CHARS or len(rest.split()) > MAX_SENTENCE_WORDS or _LONG_RUN.search(rest):
        # an unfinished sentence past the bounds (text streamed with no sentence end) is spoken in pieces as
        # it comes; the last piece may still grow, so it stays, with the whitespace after it (a run of
        # whitespace alone is no sentence: it shrinks to that one space)
        pieces = _cut_long(rest)
        out.extend(pieces[:-1])
        rest = (pieces[-1] if pieces else "") + (" " if rest[-1].isspace() else "")
    return out, rest


_NON_SPACE = re.compile(r"\S+")


def written_words(sentence: str, words: list[str]) -> list[str | None]:
    """The client's text for each spoken word, punctuation attached: ["Hello,", "world!"] for the words
    ["Hello", "world"] of "Hello, world!". Word timestamps carry these, so a framework that joins them
    with spaces (Pipecat) or finds them in the text it sent (LiveKit) gets the sentence back as written.

    Each whitespace-delimited token of the sentence goes to the first word that starts in it; a later word
    that starts in the same token gets None and is one timestamp with the first ("9am-5pm," is one word,
    not "9am-" and "5pm,", which joined with a space changed the text). A token with no word ("-", "...")
    joins the word before it (or the first word). A word not found verbatim in the sentence keeps its own
    text."""
    if not words:
        return []
    tokens = [(m.start(), m.end()) for m in _NON_SPACE.finditer(sentence)]
    starts: list[int | None] = []
    pos = 0
    for word in words:
        at = sentence.find(word, pos) if word else -1
        starts.append(None if at < 0 else at)
        if at >= 0:
            pos = at + len(word)
    # pieces[i]: the tokens word i stands for, in order; merged[i]: word i shares a token with the one before
    pieces: list[list[str]] = [[] for _ in words]
    merged = [False] * len(words)
    i = 0  # next word to place
    owner = 0  # the word the last token went to
    for t0, t1 in tokens:
        inside = [k for k in range(i, len(words)) if starts[k] is not None and starts[k] < t1]
        if not inside:  # no word starts in this token: it belongs to the word before
            pieces[owner].append(sentence[t0:t1])
            continue
        owner = inside[0]
        pieces[owner].append(sentence[t0:t1])
        for k in inside[1:]:
            merged[k] = True
        i = inside[-1] + 1
    return [
        None if merged[k] else " ".join(parts) if parts else word
        for k, (word, parts) in enumerate(zip(words, pieces, strict=True))
    ]


class SentenceText:
    """One sentence -> the model's symbol ids and its words, through the language's text frontend
    (normalization and espeak-ng phonemization). Thread-safe; frontends are made once per language."""

    def __init__(self, symbols: list[str], length_marks: LengthMarks = LENGTH_MARKS) -> None:
        self._symbol_index = {s: i for i, s in enumerate(symbols)}
        self._length_marks = length_marks  # the model's rule (its config), so it hears what it learned
        self._frontends: dict[str, object] = {}
        self._lock = threading.Lock()

    def _frontend(self, language: str):
        with self._lock:
            fe = self._frontends.get(language)
            if fe is None:
                from model_server.frontend import Frontend

                fe = self._frontends[language] = Frontend(language, self._length_marks)
            return fe

    def phonemize(self, sentence: str, language: str) -> list[tuple[str | None, list[int]]]:
        """[(word text, or None for pauses/boundaries/punctuation, model symbol ids)]."""
        units = self._frontend(language).text_to_units(sentence)
        unk = self._symbol_index.get("<unk>", 0)
        return [
            (u.text if u.kind == "word" else None, [self._symbol_index.get(s, unk) for s in u.symbols])
            for u in units
        ]

    def sentence(self, sentence: str, language: str) -> tuple[list[int], list[tuple[str, int, int]]]:
        """(symbol ids, [(the word as the client wrote it, first phone, end phone)])."""
        return sentence_units(sentence, self.phonemize(sentence, language))


def sentence_units(
    sentence: str, units: list[tuple[str | None, list[int]]]
) -> tuple[list[int], list[tuple[str, int, int]]]:
    ids: list[int] = []
    spans: list[tuple[str, int, int]] = []
    for text, sym_ids in units:
        if text is not None and sym_ids:
            spans.append((text, len(ids), len(ids) + len(sym_ids)))
        ids.extend(sym_ids)
    written = written_words(sentence, [text for text, _, _ in spans])
    out: list[tuple[str, int, int]] = []
    for w, (_, a, b) in zip(written, spans, strict=True):
        if w is None and out:  # a word inside the token of the one before: one timestamp for both
            out[-1] = (out[-1][0], out[-1][1], b)
        else:
            out.append((w if w is not None else "", a, b))
    return ids, out
