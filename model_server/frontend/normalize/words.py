"""Number words and the words every rule shares: cardinals, ordinals, years and digits in each language,
month names, and the small helpers the rule handlers build on."""

from __future__ import annotations

import re
from functools import lru_cache

from num2words import num2words

from .. import agreement, ordinals

# Beyond this many digits a number is read digit by digit ("one nonillion ..." helps nobody).
_MAX_CARDINAL_DIGITS = 15


@lru_cache(maxsize=4096)
def cardinal(n: int, lang: str) -> str:
    if len(str(abs(n))) > _MAX_CARDINAL_DIGITS:
        return digits(str(abs(n)), lang) if n >= 0 else f"{_WORDS[lang]['minus']} {digits(str(-n), lang)}"
    return _clean_words(num2words(n, lang=lang), lang)


@lru_cache(maxsize=1024)
def ordinal(n: int, lang: str) -> str:
    return _clean_words(num2words(n, lang=lang, to="ordinal"), lang)


@lru_cache(maxsize=1024)
def year(n: int, lang: str) -> str:
    return _clean_words(num2words(n, lang=lang, to="year"), lang)


def digits(s: str, lang: str) -> str:
    return " ".join(cardinal(int(d), lang) for d in s if d.isdigit())


def _clean_words(words: str, lang: str) -> str:
    # num2words writes "one thousand, nine hundred and ninety-nine": the commas would become pauses.
    words = words.replace(",", "")
    if lang == "en":
        words = words.replace("-", " ")
    return " ".join(words.split())


def _int(s: str) -> int:
    # agreement depends on the last digits only; int() refuses thousands of them
    return int(re.sub(r"[^\d]", "", s)[-_MAX_CARDINAL_DIGITS:] or "0")


_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "minus": "minus",
        "point": "point",
        "percent": "percent",
        "and": "and",
        "oclock": "o'clock",
        "hundred": "hundred",
        "oh": "oh",
        # Dotted, so that both espeak-ng and Festival say the letter names "ay em" (Festival reads "AM"
        # as the word "am", which the voices learned to blur into "and").
        "am": "a.m.",
        "pm": "p.m.",
        "to": "to",
        "per": "per",
    },
    "es": {
        "minus": "menos",
        "point": "coma",
        "percent": "por ciento",
        "and": "con",
        "oclock": "en punto",
        "hundred": "",
        "oh": "cero",
        "am": "de la mañana",
        "pm": "de la tarde",
        "to": "a",
        "per": "por",
    },
    "de": {
        "minus": "minus",
        "point": "Komma",
        "percent": "Prozent",
        "and": "und",
        "oclock": "Uhr",
        "hundred": "",
        "oh": "null",
        "am": "morgens",
        "pm": "nachmittags",
        "to": "bis",
        "per": "pro",
    },
    "fr": {
        "minus": "moins",
        "point": "virgule",
        "percent": "pour cent",
        "and": "et",
        "oclock": "heures",
        "hundred": "",
        "oh": "zéro",
        "am": "du matin",
        "pm": "de l'après-midi",
        "to": "à",
        "per": "par",
    },
}


_MONTHS: dict[str, tuple[str, ...]] = {
    "en": (
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ),
    "es": (
        "enero",
        "febrero",
        "marzo",
        "abril",
        "mayo",
        "junio",
        "julio",
        "agosto",
        "septiembre",
        "octubre",
        "noviembre",
        "diciembre",
    ),
    "de": (
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ),
    "fr": (
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ),
}


# English month abbreviations accepted in dates ("Mar. 5", "Sept 5").
_EN_MONTH_ABBR = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}

# Spanish, German and French month abbreviations, with their period, after a day ("12 sept.", "15 de dic.",
# "am 12. Sept."): "sept." alone is French for seven. Not before the day: "mar." is also Tuesday.
_MONTH_ABBR_AFTER_DAY = {
    "es": {"ene.": 1, "feb.": 2, "mar.": 3, "abr.": 4, "jun.": 6, "jul.": 7, "ago.": 8, "sep.": 9, "sept.": 9,
           "oct.": 10, "nov.": 11, "dic.": 12},
    "de": {"Jan.": 1, "Feb.": 2, "Apr.": 4, "Aug.": 8, "Sep.": 9, "Sept.": 9, "Okt.": 10, "Nov.": 11, "Dez.": 12},
    "fr": {"janv.": 1, "févr.": 2, "fév.": 2, "avr.": 4, "juil.": 7, "sept.": 9, "oct.": 10, "nov.": 11,
           "déc.": 12},
}  # fmt: skip


_SCALES = {
    "k": 10**3,
    "thousand": 10**3,
    "m": 10**6,
    "million": 10**6,
    "mn": 10**6,
    "mm": 10**6,
    "b": 10**9,
    "bn": 10**9,
    "billion": 10**9,
    "t": 10**12,
    "trillion": 10**12,
}


def _plural_is_one(n_text: str) -> bool:
    return n_text.lstrip("0") == "1" and "." not in n_text and "," not in n_text


def _number_words(num: str, lang: str) -> str:
    """A written number with optional grouping and decimals, in the language's conventions."""
    dec_sep, group_sep = (".", ",") if lang == "en" else (",", ".")
    num = num.replace(" ", "").replace("\u202f", "")
    neg = num.startswith(("-", "\u2212"))
    num = num.lstrip("-\u2212")
    if dec_sep in num:
        whole, frac = num.rsplit(dec_sep, 1)
    else:
        whole, frac = num, ""
    whole = whole.replace(group_sep, "")
    if len(whole) > _MAX_CARDINAL_DIGITS:  # "1 234 234 ..." past any quantity (and int()'s limit): digits
        words = digits(whole, lang)
    else:
        words = cardinal(int(whole or "0"), lang)
    if frac:
        # Spanish and French say two decimals as a number ("tres coma veinticinco", "trois virgule vingt-cinq");
        # English and German say them digit by digit, as everyone does past two or after a zero ("0,05")
        two = lang in ("es", "fr") and len(frac) == 2 and frac[0] != "0"
        words += f" {_WORDS[lang]['point']} {cardinal(int(frac), lang) if two else digits(frac, lang)}"
    return f"{_WORDS[lang]['minus']} {words}" if neg else words


# The letter A said alone: espeak-ng and Festival both read a lone "A" as the article "uh" (and espeak-ng a
# hyphenated "four-A" too), while both say this spelling as the letter's name (Festival's lexicon: "eigh" ->
# ey). It is spoken text only: word timestamps carry what the client wrote.
LETTER_A = "Eigh"


# A clothing size in capitals ("XL", "XXS"): spelled, since espeak-ng reads "XL" as the roman numeral 40 in the
# other languages ("cuarenta", "römisch vierzig").
CLOTHING_SIZE = r"(?<![\w.'-])X{1,3}[LS](?![\w'])"
# A name joined to its number by a dash, "COVID-19", "Т-34", "A-380": the name alone is said, then the number (the
# dash was a pause, "Т- тридцать четыре"). Capitalised names only (`name_before_number`).
NAME_DASH = r"(?<![\w-])(?P<name>[^\W\d_]{1,6})-(?=\d{1,5}(?!\d))"


# A number with a slash inside an identifier, a law's or a case's ("Ley 39/2015", "2024/00123"): each side as it
# is said, joined by the slash's word (it was dropped: "treinta y nueve dos mil quince"). One side of four digits
# or more, so that "3/4", "15/03", "120/80" and "110/110" stay a fraction, a date, a pressure and a mark; a month
# and a year ("03/2026") is left to the date rules but after a law's name.
SLASH_NUMBER = (
    r"(?<![\w/.,-])(?=\d{4,6}/|\d{1,6}/\d{4,6}(?!\d))(?P<sa>\d{1,6})/(?P<sb>\d{2,6})(?![\w/]|[.,]\d)"
)
SLASH_WORDS = {"es": "barra", "pt": "barra", "it": "barra", "fr": "barre", "de": "Strich"}
# Spanish laws and decrees name their year: "Ley 39/2015" is "treinta y nueve de dos mil quince".
_LAW_BEFORE = re.compile(r"\b(?:Ley|Decreto|Real Decreto|Orden|Directiva|Reglamento)\s+$")


def slash_number(m: re.Match, lang: str, number, figures, year_words) -> str | None:
    """`SLASH_NUMBER` said with the scanner's own `number`, `figures` (digit by digit) and `year_words`; None
    for a month and a year ("gültig bis 03/2026")."""

    def side(part: str) -> str:
        if part.startswith("0") or len(part) >= 5:
            return figures(part)
        return year_words(int(part)) if len(part) == 4 and 1900 <= int(part) <= 2099 else number(part)

    law = lang == "es" and _LAW_BEFORE.search(m.string[max(0, m.start() - 20) : m.start()])
    a, b = m.group("sa"), m.group("sb")
    if not law and len(a) <= 2 and 1 <= int(a) <= 12 and len(b) == 4:
        return None
    return f"{side(a)} {'de' if law else SLASH_WORDS[lang]} {side(b)}"


def name_before_number(m: re.Match, lang: str) -> str | None:
    """`NAME_DASH`'s name, or None for a lower-case word ("pre-2020" is read by the other rules)."""
    return m.group("name") if m.group("name")[0].isupper() else None


def _spell_letters(letters: str) -> str:
    """Letters said one by one, written so that espeak-ng and Festival both say the letter names: a run of
    two or more is a dotted initialism ("F.B.I."), one letter stays a capital, and a lone "A" is `LETTER_A`."""
    letters = letters.upper()
    if letters == "A":
        return LETTER_A
    if "EG" in letters:  # espeak-ng reads a dotted "E.G." before a word as "for example": the letters apart
        return " ".join(LETTER_A if c == "A" else c for c in letters)
    return letters if len(letters) == 1 else "".join(f"{c}." for c in letters)


def _ordinal(m: re.Match, lang: str) -> str:
    n = int(m.group(1))
    words = ordinal(n, lang)
    suffix = m.group(0)[len(m.group(1)) :]
    if lang == "de":  # "am dritten Mai", "der dritte Platz"
        return ordinals.german_ordinal(words, agreement.previous_words(m.string, m.start()))
    if lang == "fr" and n == 1 and suffix == "re":
        return "première"
    if lang == "es":
        if suffix.endswith(("ª", "a")):
            return ordinals.romance_feminine_ordinal(words)  # "la segunda planta"
        noun = agreement.next_word(m.string, m.end())
        # (a letter is no noun: the floor "3.º B" is "tercero B")
        # (nor is an address's door: "3.º izq." is "tercero izquierda", said without its noun)
        doors = ("izq", "izqda", "izda", "dcha", "dcho", "der", "izquierda", "derecha", "centro", "ctro")
        if (
            len(noun) > 1
            and agreement.noun_gender(noun, lang) == "m"
            and noun not in ("de", "del", "y", "o", *doors)
        ):
            return re.sub(r"(prim|terc)ero$", r"\1er", words)  # "el primer piso", "el tercer día"
    return words


def _long_digits(m: re.Match, lang: str) -> str:
    return digits(m.group(0), lang)


# Nine or more digits written without grouping are an identifier (an IMEI, a tax or account number, a PUK),
# not an amount, unless round ("1000000000"): said digit by digit.
UNGROUPED_ID = re.compile(r"\d{9,}(?<!000)")


def _number(m: re.Match, lang: str) -> str:
    if UNGROUPED_ID.fullmatch(m.group(0)):
        return digits(m.group(0), lang)
    words = _number_words(m.group(0), lang)
    return _counting(words, m.group(0), lang, agreement.counted_noun(m.string, m.end(), lang), m)


def _counting(words: str, written: str, lang: str, noun: str, m: re.Match | None = None) -> str:
    """An integer's words in the form they take before the noun they count ("una noche", "eine Stunde")."""
    if lang == "en" or not re.fullmatch(r"\d{1,3}(?:[.\u202f ]\d{3})*|\d+", written):
        return words
    # German reads a count's digits before it too: a second conjunct takes the first count's case.
    before = agreement.previous_words(m.string, m.start(), numbers=lang == "de") if m is not None else []
    # the first count of a range is a bare number ("1 oder 2 Nächte"); after a unit, "und" joins two amounts
    ranged = (
        m is not None
        and m.group(0)[-1:].isdigit()
        and agreement.range_end(m.string, m.end(), lang) is not None
    )
    return agreement.count_form(words, _int(written), noun, lang, before, ranged)


_DOT = {"en": "dot", "es": "punto", "de": "Punkt", "fr": "point"}


def _number_pair(n: int, lang: str) -> str:
    return "hundred" if n == 0 else f"oh {cardinal(n, lang)}" if n < 10 else cardinal(n, lang)


def pairs(number: str, lang: str) -> str:
    """A three- or four-digit name in pairs, as flights, models and forms are said: "1099" -> "ten ninety nine",
    "150" -> "one fifty", "405" -> "four oh five", "2500" -> "twenty five hundred"."""
    return f"{cardinal(int(number[:-2]), lang)} {_number_pair(int(number[-2:]), lang)}"


def _alt(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def ends_sentence(m: re.Match, lang: str = "") -> bool:
    """True when the text after a match that ends in a period ends, or goes on with a capital (of any
    script: "г. Москва", "r. Źródło"). German capitalizes every noun, so there the capital must open a
    sentence (a pronoun, an article, "Bitte"...): "45 Min. Verspätung" goes on."""
    rest = m.string[m.end() :]
    if not rest.strip():
        return True
    nxt = re.match(r"\s+(\w+)", rest)
    if nxt is None or not nxt.group(1)[0].isupper():
        return False
    return lang != "de" or nxt.group(1) in _GERMAN_OPENERS


_GERMAN_OPENERS = frozenset(
    "Sie Wir Ich Er Es Das Der Die Den Dem Des Dies Diese Dieser Bitte Danke Vielen Ihr Ihre Unser Unsere Wenn "
    "Dann Danach Falls Auch Leider Gerne Hier Da So Am Im Ab Um Bei Mit Für Nach Vor Zum Zur Ein Eine Einen "
    "Kein Keine Man Was Wie Wo Wann Warum Wer Ja Nein Oder Und Aber Heute Morgen Jetzt Sobald".split()
)
