"""Postcodes, said as people say them: the shapes no other number takes ("1012 LG", "110 00", "00-950") and
five digits after a street ("Via Roma 1, 20121 Milano"). A postcode's shape or place is what tells it from an
amount; where neither does, the digits stay a number ("20121 persone")."""

from __future__ import annotations

import re

from .. import agreement
from .amounts import _digits, spell_number
from .cues import AMOUNT_WORDS

# The shapes, by language; each has the groups `pc_a` and `pc_b` (the digits before and after the space or
# dash; Dutch: `pc_b` is the two letters).
# - Dutch "1012 LG": four digits and two capitals.
# - Czech and Slovak PSČ "110 00", "811 01": three digits and two; no group of thousands has two digits, so the
#   shape is a postcode wherever it stands (Czech ones start 1-7, Slovak ones 0, 8 or 9).
# - Polish "00-950": two digits, a dash and three, before its town (a capital) or after "pocztowy"; elsewhere
#   "10-150" stays a range.
_POLISH_TOWN = "A-ZĄĆĘŁŃÓŚŹŻ"
SHAPES = {
    "nl": r"(?<![\w.,])(?P<pc_a>[1-9]\d{3}) ?(?P<pc_b>[A-Z]{2})(?![\w-])",
    "cs": r"(?<![\w.,])(?P<pc_a>[1-7]\d{2}) (?P<pc_b>\d{2})(?!\d|[.,]\d)",
    "sk": r"(?<![\w.,])(?P<pc_a>[089]\d{2}) (?P<pc_b>\d{2})(?!\d|[.,]\d)",
    "pl": (
        rf"(?:(?<=pocztowy )|(?<=pocztowy: )|(?=\d\d-\d{{3}}\s+[{_POLISH_TOWN}]))"
        r"(?<![\w.,-])(?P<pc_a>\d{2})-(?P<pc_b>\d{3})(?![\w-])"
    ),
}


def _group(digits: str, language: str) -> str:
    """A group of a postcode: its leading zeros one by one, then the rest as a number ("042" -> "zero
    czterdzieści dwa", "00" -> "zero zero", not "zero")."""
    rest = digits.lstrip("0")
    zeros = digits[: len(digits) - len(rest)]
    words = [_digits(zeros, language)] if zeros else []
    return " ".join(words + ([spell_number(int(rest), language)] if rest else []))


def shaped(m: re.Match, language: str) -> str:
    """The words for a match of `SHAPES[language]`: Dutch in pairs, then the letters ("tien twaalf L G"); the
    others group by group ("sto deset nula nula", "trzydzieści jeden, zero czterdzieści dwa")."""
    a, b = m.group("pc_a"), m.group("pc_b")
    if language == "nl":
        return f"{_group(a[:2], language)} {_group(a[2:], language)} {' '.join(b)}"
    return f"{_group(a, language)}{',' if language == 'pl' else ''} {_group(b, language)}"


# Five digits after a street, its number and a comma, before the town: a postcode, digit by digit, as Italians
# say a CAP ("Piazza Duomo 1, 20122 Milano" -> "due zero uno due due Milano"; it was "ventimilacentoventidue").
_STREET_BEFORE = {
    "it": re.compile(
        r"\b(?:via|viale|v\.le|piazza|piazzale|p\.za|p\.zza|corso|c\.so|largo|vicolo|vico|strada|lungomare|"
        r"lungotevere|contrada|località|loc\.|borgo|salita|galleria)\s[^\n]{0,60}\d[^\n]{0,20},\s$",
        re.IGNORECASE,
    ),
}


# ... or after a preposition of place, before the town: "spedito a 10121 Torino", "consegna in 20121 Milano" (it
# was "diecimilacentoventuno Torino"); "a 20000 persone" has no capital after it.
_PLACE_BEFORE = {"it": frozenset("a ad in per da verso".split())}


def after_street(m: re.Match, language: str) -> str | None:
    """The digits of a five-digit number before a capitalised word, one by one, after a street
    (`_STREET_BEFORE`) or a preposition of place (`_PLACE_BEFORE`); None for any other number."""
    street = _STREET_BEFORE.get(language)
    number = m.group(0)
    if street is None or not re.fullmatch(r"\d{5}", number):
        return None
    town = agreement.next_word(m.string, m.end())
    if not town[:1].isupper() or town.lower() in AMOUNT_WORDS:  # ("Via Garibaldi 12, 10000 Euro di danni")
        return None
    before = agreement.previous_words(m.string, m.start())
    placed = bool(before) and before[-1] in _PLACE_BEFORE.get(language, ())
    if not placed and not street.search(m.string[max(0, m.start() - 100) : m.start()]):
        return None
    return _digits(number, language)
