"""Russian and Ukrainian numbers with a case ending after a hyphen: "на 3-м этаже", "1-го мая", "в 90-х",
"до 2-х часов", "5-летний", "на 3-му поверсі", "2-кімнатна".

The ending is the last letters of the word said, so the number is said in the form that ends with them:
* An ordinal's ending ("3-й", "3-я", "3-е", "1-го", "5-му", "3-м", "3-ю", "90-х") picks the ordinal's case,
  gender and number among the forms whose last word ends with it: "3-м" -> "третьем" or "третьим", "3-й"
  -> "третий" or "третьей". Where several fit, the preposition before decides the case ("на 3-м этаже" ->
  "третьем", "с 3-м" -> "третьим"), and the next word's ending the gender ("3-й день" -> "третий", "на 3-й
  линии" -> "третьей"); otherwise the nominative, then the oblique cases in their usual order.
* A count's ending in the oblique cases: "2-х", "3-х", "4-х" (the last digit 2-4, so not "90-х", a decade's
  ordinal) -> "двух", "трёх"; "5-ти", "7-ми" -> "пяти", "семи"; "3-мя", "2-ма" (uk) -> "тремя", "двома";
  "5-ю" after "с" -> "пятью" (elsewhere "5-ю" is the ordinal "пятую").
* A longer ending is the second part of a compound adjective, joined to the number's combining form:
  "5-летний" -> "пятилетний", "2-комнатная" -> "двухкомнатная", "100-процентный" -> "стопроцентный",
  "5-річний" -> "п'ятирічний".
"""

from __future__ import annotations

from functools import lru_cache

from num2words import num2words

from .ordinals import ukrainian_ordinal

__all__ = ["LANGUAGES", "with_ending"]

LANGUAGES = frozenset({"ru", "uk"})

# The endings an ordinal or a count is written with; a longer one, or any other of three letters or more,
# is a compound's second part.
_SUFFIXES = frozenset(
    (
        "й я е ю м х у а є го му ми ти мя ма ой ей ий ый ій ая яя ое ее ые ие ых их іх ым им ім ом ем ую юю "
        "ого его ому ему ыми ими іми ью ої ою ього ьому ьої"
    ).split()
)

# (case, gender) of an ordinal in the order a tie goes: the nominative first ("p": plural).
_RU_FORMS = (
    ("nominative", "m"), ("nominative", "f"), ("nominative", "n"), ("genitive", "m"), ("genitive", "f"),
    ("dative", "m"), ("accusative", "f"), ("instrumental", "m"), ("prepositional", "m"),
    ("nominative", "p"), ("genitive", "p"), ("dative", "p"), ("instrumental", "p"),
)  # fmt: skip
_UK_FORMS = (
    ("nominative", "m"), ("nominative", "f"), ("nominative", "n"), ("genitive", "m"), ("genitive", "f"),
    ("dative", "m"), ("accusative", "f"), ("instrumental", "m"), ("instrumental", "f"), ("locative", "m"),
    ("locative", "f"), ("nominative", "p"), ("genitive", "p"), ("instrumental", "p"),
)  # fmt: skip
# The case a preposition gives a following ordinal.
_CASE_AFTER = {
    "ru": {
        **dict.fromkeys("в во на о об обо при".split(), "prepositional"),
        **dict.fromkeys("с со за над под перед между".split(), "instrumental"),
        **dict.fromkeys("к ко по".split(), "dative"),
        **dict.fromkeys("до от из без для около после у кроме".split(), "genitive"),
    },
    "uk": {
        **dict.fromkeys("в у на о об по при".split(), "locative"),
        **dict.fromkeys("з із зі за над під перед між".split(), "instrumental"),
        **dict.fromkeys("до від для біля після без крім".split(), "genitive"),
    },
}
# Endings of a following feminine noun in an oblique case ("на 3-й линии", "к 3-й главе", "3-ю неделю").
_FEMININE_OBLIQUE = ("и", "е", "ой", "ей", "ю", "у", "і", "ї")
# A compound's first part where it is not the genitive: "однокомнатная", "стопроцентный", "двокімнатна".
_COMBINING = {
    "ru": {1: "одно", 90: "девяносто", 100: "сто", 1000: "тысяче"},
    "uk": {1: "одно", 2: "дво", 3: "три", 4: "чотири", 90: "дев'яносто", 100: "сто", 1000: "тисяче"},
}


def _words(text: str) -> str:
    return " ".join(text.replace(",", "").split())


def _cardinal(n: int, case: str, language: str) -> str:
    return _words(num2words(n, lang=language, case=case))


@lru_cache(maxsize=256)
def _ordinals(n: int, language: str) -> tuple[tuple[str, str, str], ...]:
    """(case, gender, words) of every ordinal form of n, in tie order."""
    out = []
    for case, gender in _RU_FORMS if language == "ru" else _UK_FORMS:
        if language == "ru":
            plural = gender == "p"
            words = num2words(
                n, lang="ru", to="ordinal", case=case, gender="m" if plural else gender, plural=plural
            )
        else:
            words = ukrainian_ordinal(n, case, gender)
        out.append((case, gender, _words(words)))
    return tuple(out)


def _ordinal(n: int, ending: str, language: str, before: list[str], after: str) -> str:
    forms = _ordinals(n, language)
    fits = [f for f in forms if f[2].endswith(ending)] or [f for f in forms if f[2].endswith(ending[-1])]
    if not fits:
        return forms[0][2]
    case = _CASE_AFTER[language].get(before[-1] if before else "")
    feminine = after.lower().endswith(_FEMININE_OBLIQUE)

    def rank(form: tuple[str, str, str]) -> tuple[int, int]:
        return (form[0] != case, (form[1] == "f") != feminine)

    return min(fits, key=rank)[2]


def with_ending(n: int, ending: str, language: str, before: list[str], after: str = "") -> str:
    """`n` with the ending written after its hyphen, as said (module docstring). `before`: the lower-cased
    words before it (`agreement.previous_words`); `after`: the next word."""
    ending = ending.lower()
    prev = before[-1] if before else ""
    if ending not in _SUFFIXES and len(ending) >= 3:
        head = _COMBINING[language].get(n) or _cardinal(n, "genitive", language).replace(" ", "")
        return head + ending
    last = n % 10 if n % 100 not in range(11, 20) else 0
    if ending == "х" and last in (2, 3, 4):
        return _cardinal(n, "genitive", language)
    if ending in ("ти", "ми"):
        return _cardinal(n, "genitive", language)
    if ending in ("мя", "ма") or (ending == "ю" and prev in ("с", "со", "з", "із", "зі") and n >= 5):
        return _cardinal(n, "instrumental", language)
    return _ordinal(n, ending, language, before, after)
