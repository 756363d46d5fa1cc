"""Letters as regex classes that keep a word's combining marks. Python's `\\w` leaves marks (Mn, Mc, Me) out,
which cuts Devanagari, Bengali, Thai or vowelled Arabic words at every vowel sign and virama ("वर्ष" was the
two words "वर" and "ष")."""

from __future__ import annotations

import unicodedata

__all__ = ["LETTER", "MARKS", "WORD_CHAR"]


def _mark_class() -> str:
    """The combining marks of the BMP and the SMP as a character class body ("\\U00000300-\\U0000036f...")."""
    ranges: list[list[int]] = []
    for cp in range(0x20000):
        if unicodedata.category(chr(cp))[0] == "M":
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    return "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


MARKS = _mark_class()
LETTER = rf"(?:[^\W\d_]|[{MARKS}])"  # a letter, or a mark inside a word
WORD_CHAR = rf"(?:[^\W_]|[{MARKS}])"  # a letter, a digit, or a mark
