"""Japanese text as katakana for espeak-ng, which reads kana only (it spells a kanji out as "Chinese letter"):
Janome's IPADIC pronunciation field (今日は -> キョーワ), with numbers read with their counters (`cjk.counted`:
3日 みっか, not "san nichi")."""

from __future__ import annotations

import re
import threading
from functools import cache

from ..normalize import Segment
from . import cjk

_janome_lock = threading.Lock()


@cache
def _janome():
    from janome.tokenizer import Tokenizer  # loaded on the first Japanese text (0.4 s, a 200 MB dictionary)

    return Tokenizer()


_HAS_KANJI = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _kana(text: str) -> str:
    """Japanese text as katakana pronunciation, for espeak-ng; text without kanji is left as it is."""
    return _pronounced(_tokens(text)) if _HAS_KANJI.search(text) else text


def _tokens(text: str) -> list:
    if not text:
        return []
    with _janome_lock:  # Janome's tokenizer keeps state between calls
        return list(_janome().tokenize(text))


def _pronounced(tokens: list) -> str:
    """The tokens' pronunciation in katakana (a token without one, punctuation or a Latin word, as written)."""
    return "".join(t.phonetic if t.phonetic not in ("*", "") else t.surface for t in tokens)


def _kana_after_counter(text: str, counter: str) -> str | None:
    """The katakana of `text` after the counter it starts with ("日後" -> ゴ), or None where the dictionary
    reads the counter as part of a longer word (then it is no counter)."""
    tokens = _tokens(text)
    if not tokens or not tokens[0].surface.startswith(counter):
        return None
    if tokens[0].surface != counter:  # "時に" read as one word (toki-ni, "sometimes"): the rest read anew
        return _pronounced(_tokens(text[len(counter) :]))
    rest = tokens[1:]
    if rest and rest[0].surface == "様":  # "2名様": alone the dictionary reads 様 as ヨウ
        return "サマ" + _kana(text[len(counter) + 1 :])
    return _pronounced(rest)


def kana_segments(segments: list[Segment]) -> list[Segment]:
    """The segments with their spoken text in katakana, a number and its counter said together."""
    kana: list[Segment] = []
    for seg in segments:
        spoken, number = seg.spoken, kana[-1] if kana and kana[-1].rule == "number" else None
        counted = number is not None and re.fullmatch(r"\d[\d,]*", number.original) is not None
        # (the dictionary is asked about a counter only after a number)
        counter = next((c for c in cjk.COUNTERS if spoken.startswith(c)), None) if counted else None
        rest = _kana_after_counter(spoken, counter) if counter else None
        if rest is not None:
            # "3" then "日": the number and its counter are said together (みっか, not "san nichi"); the
            # dictionary alone would read 3月 as "3 tsuki", moon
            after_month = len(kana) > 1 and kana[-2].original.endswith("月")
            said = cjk.counted(int(number.original.replace(",", "")), counter, after_month)
            kana[-1] = Segment(number.original, said, number.rule)
            kana.append(Segment(seg.original, rest, seg.rule))
            continue
        kana.append(Segment(seg.original, _kana(spoken), seg.rule))
    return kana
