"""Fractions: "3/4", "1 1/2", "½" and their names in each language, with the noun they measure."""

from __future__ import annotations

import re

from .. import agreement
from .amounts import _UNITS
from .words import cardinal, ordinal

# "size 10/12", "sizes 2/4, 6/8 and 10/12": right after the word, or after a list of sizes.
_SIZE_CUE = re.compile(r"\bsizes?\s*:?\s+(?:[\d./]+\s*(?:,|\band\b|\bor\b)\s*){0,4}$", re.IGNORECASE)


def _size_pair(m: re.Match, lang: str) -> str | None:
    """A clothing or shoe size with a slash, after "size": "Size 10/12" -> "ten twelve", "sizes 2/4, 6/8 and
    10/12" (they were October twelfth and two quarters), "size 10.5/11" -> "ten and a half eleven"."""
    if not _SIZE_CUE.search(m.string[max(0, m.start() - 48) : m.start()]):
        return None
    return " ".join(_size(part, lang) for part in (m.group(1), m.group(2)))


def _size(written: str, lang: str) -> str:
    whole, _, half = written.partition(".")
    return cardinal(int(whole), lang) + (" and a half" if half else "")


def _fraction(m: re.Match, lang: str) -> str | None:
    num, den = int(m.group(1)), int(m.group(2))
    if (num, den) == (24, 7):  # "open 24/7": "twenty four seven", not sevenths
        return f"{cardinal(24, lang)} {cardinal(7, lang)}"
    if den < 2 or den > 10:
        return None
    if m.group("unit"):
        return _fraction_of_unit(num, den, _UNITS[lang][m.group("unit")][0], m, lang)
    if lang != "en":
        one, many = _FRACTION_NAMES[lang][den]
        if num != 1:
            return f"{cardinal(num, lang)} {many}"
        return _one_part(one, den, m, lang)
    after = agreement.next_word(m.string, m.end())
    if 1 < num < den and after in _COUNTED:
        return f"{cardinal(num, lang)} out of {cardinal(den, lang)}"  # "3/5 lives left": a count, not a part
    name = _english_fraction_name(num, den)
    if num == 1:
        before = agreement.previous_words(m.string, m.start(), 1)
        if before and before[-1] in _ARTICLES["en"]:
            return name  # "a 1/2 hour": "a half hour", "the 1/4 mile": "the quarter mile"
        after = agreement.next_word(m.string, m.end())
        if den in (2, 4) and after.isalpha() and after.islower() and after not in _NOT_COUNTED["en"]:
            return f"a {name}"  # "1/2 cup": "a half cup" ("1/2 of the items" stays "one half of")
    return f"{cardinal(num, lang)} {name}"


# Plural nouns a fraction before them counts ("3/5 lives left", "9/10 dentists"): "out of"; before others it
# measures ("3/4 cups", "3/4 kilometers", "3/4 sleeves").
_COUNTED = frozenset(
    "lives players people users customers patients students votes questions answers tries attempts tasks steps "
    "devices items dentists doctors respondents members games matches rounds levels points stars".split()
)


def _english_fraction_name(num: int, den: int) -> str:
    if den == 2:
        return "half" if num == 1 else "halves"
    if den == 4:
        return "quarter" if num == 1 else "quarters"
    return ordinal(den, "en") + ("" if num == 1 else "s")


def _fraction_of_unit(num: int, den: int, unit: str, m: re.Match, lang: str) -> str:
    """A fraction of a unit, the unit said in the singular: "1/2 kg" -> "a half kilogram", "3/4 mi" -> "three
    quarters of a mile", "medio kilo", "tres cuartos de kilómetro", "ein halbes Kilogramm", "drei Viertel
    Kilometer", "un demi kilo", "trois quarts d'heure"."""
    if lang == "en":
        name = _english_fraction_name(num, den)
        if num == 1 and den in (2, 4):
            before = agreement.previous_words(m.string, m.start(), 1)
            article = "" if before and before[-1].lower() in _ARTICLES["en"] else "a "
            return f"{article}{name} {unit}"  # "1/2 kg" -> "a half kilogram"; "a 1/2 lb burger" -> "a half pound"
        a = "an" if unit[0] in "aeiou" or unit.startswith("hour") else "a"
        return f"{cardinal(num, lang)} {name} of {a} {unit}"
    one, many = _FRACTION_NAMES[lang][den]
    if num == 1 and (lang == "de" or den == 2):
        return (
            f"{_one_part(one, den, m, lang, unit)} {unit}"  # "medio kilo", "ein halbes Kilo", "un demi litre"
        )
    part = f"{_ONE[lang]} {one}" if num == 1 else f"{cardinal(num, lang)} {many}"
    if lang == "de":
        return f"{part} {unit}"  # "drei Viertel Kilometer"
    of = "d'" if lang == "fr" and unit[0].lower() in "aeiouhéè" else "de "
    return f"{part} {of}{unit}"  # "tres cuartos de kilómetro", "trois quarts d'heure"


def _mixed_fraction(m: re.Match, lang: str) -> str | None:
    """A whole number and a fraction, "3½" or "3 1/2": "three and a half" (not "three one half" or "three a
    half"), "tres y medio", "dreieinhalb", "trois et demi". Before a counted noun or a unit, Spanish and French
    say the part after the noun, agreeing with it, and one of it in the singular: "tres horas y media", "una
    hora y media" ("1½ horas"), "un kilomètre et demi"."""
    n = int(m.group("whole"))
    if m.group("glyph"):
        glyph = m.group("glyph")
        num, den = _GLYPH_FRACTIONS[glyph]
    else:
        num, den = int(m.group("num")), int(m.group("den"))
        if not 0 < num < den <= 10:
            return None  # "2 24/7", "1 3/2": no mixed number
        glyph = next((g for g, f in _GLYPH_FRACTIONS.items() if f == (num, den)), None)
    part = _MIXED_PARTS[lang][glyph] if glyph else _mixed_part(num, den, lang)
    whole = cardinal(n, lang)
    if m.group("unit"):
        one, many = _UNITS[lang][m.group("unit")]
        noun = one if n == 1 and lang in ("es", "fr") else many
    else:
        noun = m.group("noun") or ""
    counted = noun.lower() not in _NOT_COUNTED[lang]
    gender = agreement.noun_gender(noun, lang) if counted else None
    if lang in ("es", "fr") and gender is not None:
        # The part follows the noun and agrees with it: "tres horas y media", "deux heures et demie".
        if n == 1:
            noun = agreement.singular(noun, lang)
            gender = agreement.noun_gender(noun, lang)
        if gender == "f":
            part = part.replace("medio", "media").replace("demi", "demie")
        return f"{agreement.count_form(whole, n, noun, lang)} {noun} {part}"
    if lang == "de" and glyph == "\u00bd":
        if whole.endswith("eins"):
            whole = whole[:-1]  # "eineinhalb", "hunderteineinhalb"
        return f"{whole}{part} {noun}".rstrip()  # "zweieinhalb Stunden"
    return f"{whole} {part} {noun}".rstrip()


_GLYPH_FRACTIONS = {"\u00bd": (1, 2), "\u00bc": (1, 4), "\u00be": (3, 4)}


_MIXED_PARTS = {
    "en": {"\u00bd": "and a half", "\u00bc": "and a quarter", "\u00be": "and three quarters"},
    "es": {"\u00bd": "y medio", "\u00bc": "y cuarto", "\u00be": "y tres cuartos"},
    "de": {"\u00bd": "einhalb", "\u00bc": "ein Viertel", "\u00be": "drei Viertel"},
    "fr": {"\u00bd": "et demi", "\u00bc": "et quart", "\u00be": "et trois quarts"},
}


_AND = {"en": "and", "es": "y", "de": "und", "fr": "et"}


def _mixed_part(num: int, den: int, lang: str) -> str:
    """The part of a mixed number that is no half or quarter: "and a third", "and five eighths", "y dos
    tercios", "und ein Drittel", "et un tiers"."""
    if lang == "en":
        name = ordinal(den, lang) + ("s" if num > 1 else "")
        return f"and {'a' if num == 1 else cardinal(num, lang)} {name}"
    one, many = _FRACTION_NAMES[lang][den]
    return f"{_AND[lang]} {_ONE[lang] if num == 1 else cardinal(num, lang)} {one if num == 1 else many}"


# Articles a fraction can follow (then its "one" is not said: "le 1/3 des" is "le tiers des") and words after
# it that are no measured noun ("1/2 of", "1/3 de los", "1/2 der Kunden").
_ARTICLES = {
    "en": frozenset("a an the".split()),
    "es": frozenset("un una el la".split()),
    "de": frozenset("ein eine einen einem einer eines der die das den dem des".split()),
    "fr": frozenset("un une le la".split()),
}


_NOT_COUNTED = {
    "en": frozenset("of and or to in on at for by per is are was the a an".split()),
    "es": frozenset("de del y o a en por".split()),
    "de": frozenset(),  # German nouns are capitalised: agreement.noun_gender skips everything else
    "fr": frozenset("de des du d et ou à en par".split()),
}


# German "halb" is an adjective before its noun, with the ending the article in front of it calls for
# (mixed declension after "ein", weak after "der"): "eine halbe Stunde", "ein halber Liter", "einen halben".
_DE_HALF_AFTER = {"ein": {"m": "halber", "n": "halbes"}, "eine": "halbe", "der": "halbe", "die": "halbe",
                  "das": "halbe"}  # fmt: skip


def _one_part(name: str, den: int, m: re.Match, lang: str, noun: str | None = None) -> str:
    """One half, third... in Spanish, German and French, agreeing with the noun it measures (`noun`, else the
    word after the match) and leaving out its own "one" after an article: "media hora", "medio kilo", "eine
    halbe Stunde", "une demi heure", "le tiers des votants"."""
    before = agreement.previous_words(m.string, m.start(), 5)
    article = before[-1] if before and before[-1] in _ARTICLES[lang] else None
    noun = noun or agreement.next_word(m.string, m.end())
    gender = None if noun.lower() in _NOT_COUNTED[lang] else agreement.noun_gender(noun, lang)
    if lang == "es" and den == 2 and gender is not None:
        return "media" if gender == "f" else "medio"  # "media hora", "una media hora", "medio kilo"
    if lang == "de" and gender is not None:
        one = article or agreement.count_form("ein", 1, noun, lang, before)
        if den == 2:
            half = _DE_HALF_AFTER.get(one, "halben")
            return (f"{one} " if article is None else "") + (half[gender] if isinstance(half, dict) else half)
        return name if article else f"{one} {name}"  # "eine Viertel Stunde", "ein Viertel Liter"
    if lang == "de" and den == 2 and noun.lower() in ("der", "des"):
        return "Hälfte" if article else "die Hälfte"  # "1/2 der Kunden": "die Hälfte der Kunden"
    if lang == "fr" and den == 2 and gender is not None:
        return "demi" if article else f"{agreement.count_form('un', 1, noun, lang)} demi"  # "une demi heure"
    return name if article else f"{_ONE[lang]} {name}"


# Fractions in Spanish, German and French: "tres cuartos", "ein Drittel", "deux tiers" (they were read as
# two numbers, "drei vier"). (singular, plural) name of each denominator.
_FRACTION_NAMES = {
    "es": {
        2: ("medio", "medios"),
        3: ("tercio", "tercios"),
        4: ("cuarto", "cuartos"),
        5: ("quinto", "quintos"),
        6: ("sexto", "sextos"),
        7: ("séptimo", "séptimos"),
        8: ("octavo", "octavos"),
        9: ("noveno", "novenos"),
        10: ("décimo", "décimos"),
    },
    "de": {
        2: ("halb", "halbe"),
        3: ("Drittel",) * 2,
        4: ("Viertel",) * 2,
        5: ("Fünftel",) * 2,
        6: ("Sechstel",) * 2,
        7: ("Siebtel",) * 2,
        8: ("Achtel",) * 2,
        9: ("Neuntel",) * 2,
        10: ("Zehntel",) * 2,
    },
    "fr": {
        2: ("demi", "demis"),
        3: ("tiers", "tiers"),
        4: ("quart", "quarts"),
        5: ("cinquième", "cinquièmes"),
        6: ("sixième", "sixièmes"),
        7: ("septième", "septièmes"),
        8: ("huitième", "huitièmes"),
        9: ("neuvième", "neuvièmes"),
        10: ("dixième", "dixièmes"),
    },
}


_ONE = {"es": "un", "de": "ein", "fr": "un"}
