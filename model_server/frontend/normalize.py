"""Text normalization: turn written text into the words a speaker would say.

One left-to-right scan with a table of rules (`_rules(language)`), tried in order at each position:
currency, dates, times, phone-number-like digit groups, percentages, ordinals, numbers with units,
decimals, grouped and plain numbers, abbreviations and symbols. Text between matches is kept, minus
characters that cannot be spoken (emoji, other scripts, control characters), which are skipped.

`normalize_segments()` keeps, for every piece, the original text next to the spoken text, so the
frontend can report word timestamps against what the client sent ("$12.50" rather than "twelve dollars
and fifty cents"). `normalize()` is the spoken text alone.

Number words come from num2words for every language; English number words lose their commas and
hyphens ("nineteen ninety nine"), so the English frontend sees one word per spoken word.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache

from num2words import num2words

__all__ = ["LANGUAGES", "NormalizationError", "Segment", "normalize", "normalize_segments"]

LANGUAGES = ("en", "es", "de", "fr")


class NormalizationError(ValueError):
    """The input cannot be normalized (wrong type, unsupported language)."""


@dataclass(frozen=True, slots=True)
class Segment:
    """A piece of the input: `original` as written, `spoken` as words; `rule` names the rule or "text"."""

    original: str
    spoken: str
    rule: str


# --- number words ---------------------------------------------------------------------------------

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
    return int(re.sub(r"[^\d]", "", s))


# --- per-language words ---------------------------------------------------------------------------

_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "minus": "minus",
        "point": "point",
        "percent": "percent",
        "and": "and",
        "oclock": "o'clock",
        "hundred": "hundred",
        "oh": "oh",
        "am": "AM",
        "pm": "PM",
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

# symbol -> (singular, plural, subunit singular, subunit plural); None subunit: no minor unit spoken.
_CURRENCIES: dict[str, dict[str, tuple[str, str, str | None, str | None]]] = {
    "en": {
        "$": ("dollar", "dollars", "cent", "cents"),
        "€": ("euro", "euros", "cent", "cents"),
        "£": ("pound", "pounds", "penny", "pence"),
        "¥": ("yen", "yen", None, None),
    },
    "es": {
        "$": ("dólar", "dólares", "centavo", "centavos"),
        "€": ("euro", "euros", "céntimo", "céntimos"),
        "£": ("libra", "libras", "penique", "peniques"),
        "¥": ("yen", "yenes", None, None),
    },
    "de": {
        "$": ("Dollar", "Dollar", "Cent", "Cent"),
        "€": ("Euro", "Euro", "Cent", "Cent"),
        "£": ("Pfund", "Pfund", "Penny", "Pence"),
        "¥": ("Yen", "Yen", None, None),
    },
    "fr": {
        "$": ("dollar", "dollars", "cent", "cents"),
        "€": ("euro", "euros", "centime", "centimes"),
        "£": ("livre", "livres", "penny", "pence"),
        "¥": ("yen", "yens", None, None),
    },
}
_SCALES = {
    "k": 10**3,
    "thousand": 10**3,
    "m": 10**6,
    "million": 10**6,
    "mn": 10**6,
    "b": 10**9,
    "bn": 10**9,
    "billion": 10**9,
    "t": 10**12,
    "trillion": 10**12,
}

# unit -> (singular, plural) per language; only unambiguous unit spellings after a number.
_UNITS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {
        "km/h": ("kilometer per hour", "kilometers per hour"),
        "mph": ("mile per hour", "miles per hour"),
        "km": ("kilometer", "kilometers"),
        "cm": ("centimeter", "centimeters"),
        "mm": ("millimeter", "millimeters"),
        "m": ("meter", "meters"),
        "kg": ("kilogram", "kilograms"),
        "mg": ("milligram", "milligrams"),
        "g": ("gram", "grams"),
        "lb": ("pound", "pounds"),
        "lbs": ("pound", "pounds"),
        "ml": ("milliliter", "milliliters"),
        "l": ("liter", "liters"),
        "mi": ("mile", "miles"),
        "ft": ("foot", "feet"),
        "°C": ("degree Celsius", "degrees Celsius"),
        "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
        "°": ("degree", "degrees"),
        "kHz": ("kilohertz", "kilohertz"),
        "Hz": ("hertz", "hertz"),
        "GB": ("gigabyte", "gigabytes"),
        "MB": ("megabyte", "megabytes"),
        "KB": ("kilobyte", "kilobytes"),
        "TB": ("terabyte", "terabytes"),
        "ms": ("millisecond", "milliseconds"),
        "min": ("minute", "minutes"),
        "h": ("hour", "hours"),
    },
    "es": {
        "km/h": ("kilómetro por hora", "kilómetros por hora"),
        "km": ("kilómetro", "kilómetros"),
        "cm": ("centímetro", "centímetros"),
        "mm": ("milímetro", "milímetros"),
        "m": ("metro", "metros"),
        "kg": ("kilo", "kilos"),
        "g": ("gramo", "gramos"),
        "l": ("litro", "litros"),
        "°C": ("grado", "grados"),
        "°": ("grado", "grados"),
        "h": ("hora", "horas"),
        "min": ("minuto", "minutos"),
    },
    "de": {
        "km/h": ("Kilometer pro Stunde", "Kilometer pro Stunde"),
        "km": ("Kilometer", "Kilometer"),
        "cm": ("Zentimeter", "Zentimeter"),
        "mm": ("Millimeter", "Millimeter"),
        "m": ("Meter", "Meter"),
        "kg": ("Kilogramm", "Kilogramm"),
        "g": ("Gramm", "Gramm"),
        "l": ("Liter", "Liter"),
        "°C": ("Grad Celsius", "Grad Celsius"),
        "°": ("Grad", "Grad"),
        "h": ("Stunde", "Stunden"),
        "min": ("Minute", "Minuten"),
    },
    "fr": {
        "km/h": ("kilomètre heure", "kilomètres heure"),
        "km": ("kilomètre", "kilomètres"),
        "cm": ("centimètre", "centimètres"),
        "mm": ("millimètre", "millimètres"),
        "m": ("mètre", "mètres"),
        "kg": ("kilo", "kilos"),
        "g": ("gramme", "grammes"),
        "l": ("litre", "litres"),
        "°C": ("degré", "degrés"),
        "°": ("degré", "degrés"),
        "h": ("heure", "heures"),
        "min": ("minute", "minutes"),
    },
}

# Abbreviations (matched case-sensitively, with their period). "St." is handled by a rule below.
_ABBREVIATIONS: dict[str, dict[str, str]] = {
    "en": {
        "Dr.": "Doctor",
        "Mr.": "Mister",
        "Mrs.": "Missus",
        "Ms.": "Miz",
        "Prof.": "Professor",
        "Jr.": "Junior",
        "Sr.": "Senior",
        "Gen.": "General",
        "Capt.": "Captain",
        "Lt.": "Lieutenant",
        "Sgt.": "Sergeant",
        "Rev.": "Reverend",
        "Mt.": "Mount",
        "Ave.": "Avenue",
        "Rd.": "Road",
        "Blvd.": "Boulevard",
        "etc.": "et cetera",
        "e.g.": "for example",
        "i.e.": "that is",
        "vs.": "versus",
        "vs": "versus",
        "approx.": "approximately",
        "Inc.": "Incorporated",
        "Ltd.": "Limited",
        "Co.": "Company",
        "Corp.": "Corporation",
        "Dept.": "Department",
        "Jan.": "January",
        "Feb.": "February",
        "Aug.": "August",
        "Sept.": "September",
        "Oct.": "October",
        "Nov.": "November",
        "Dec.": "December",
        "a.m.": "AM",
        "p.m.": "PM",
    },
    "es": {
        "Sr.": "señor",
        "Sra.": "señora",
        "Srta.": "señorita",
        "Dr.": "doctor",
        "Dra.": "doctora",
        "Ud.": "usted",
        "Uds.": "ustedes",
        "etc.": "etcétera",
        "p. ej.": "por ejemplo",
        "aprox.": "aproximadamente",
        "Avda.": "avenida",
        "núm.": "número",
        "pág.": "página",
    },
    "de": {
        "Dr.": "Doktor",
        "Prof.": "Professor",
        "Hr.": "Herr",
        "Fr.": "Frau",
        "z.B.": "zum Beispiel",
        "z. B.": "zum Beispiel",
        "usw.": "und so weiter",
        "bzw.": "beziehungsweise",
        "d.h.": "das heißt",
        "d. h.": "das heißt",
        "ca.": "circa",
        "Nr.": "Nummer",
        "Str.": "Straße",
        "evtl.": "eventuell",
        "u.a.": "unter anderem",
        "inkl.": "inklusive",
        "vgl.": "vergleiche",
    },
    "fr": {
        "M.": "Monsieur",
        "Mme": "Madame",
        "Mmes": "Mesdames",
        "Mlle": "Mademoiselle",
        "Dr": "docteur",
        "Dr.": "docteur",
        "etc.": "et cetera",
        "p.ex.": "par exemple",
        "p. ex.": "par exemple",
        "env.": "environ",
        "av.": "avenue",
        "bd": "boulevard",
        "n°": "numéro",
    },
}
# Abbreviations that can also end a sentence: their period is kept when the text ends or a capital follows.
_SENTENCE_FINAL = {
    "en": {"etc.", "Inc.", "Ltd.", "Co.", "Corp.", "Jr.", "Sr.", "a.m.", "p.m."},
    "es": {"etc."},
    "de": {"usw.", "ca."},
    "fr": {"etc."},
}

_SYMBOLS: dict[str, dict[str, str]] = {
    "en": {
        "&": "and",
        "+": "plus",
        "@": "at",
        "=": "equals",
        "%": "percent",
        "#": "number",
        "°": "degrees",
        "×": "times",
        "÷": "divided by",
        "<": "less than",
        ">": "greater than",
        "~": "about",
        "½": "one half",
        "¼": "one quarter",
        "¾": "three quarters",
    },
    "es": {
        "&": "y",
        "+": "más",
        "@": "arroba",
        "=": "igual a",
        "%": "por ciento",
        "#": "número",
        "°": "grados",
        "×": "por",
        "½": "un medio",
        "¼": "un cuarto",
        "¾": "tres cuartos",
    },
    "de": {
        "&": "und",
        "+": "plus",
        "@": "at",
        "=": "gleich",
        "%": "Prozent",
        "#": "Nummer",
        "°": "Grad",
        "×": "mal",
        "½": "ein halb",
        "¼": "ein viertel",
        "¾": "drei viertel",
    },
    "fr": {
        "&": "et",
        "+": "plus",
        "@": "arobase",
        "=": "égale",
        "%": "pour cent",
        "#": "numéro",
        "°": "degrés",
        "×": "fois",
        "½": "un demi",
        "¼": "un quart",
        "¾": "trois quarts",
    },
}

# Characters kept as punctuation (the frontend turns them into punctuation/pause symbols).
_PUNCT_KEEP = set(".,;:!?'\"()-")
_PRE_NFKC = str.maketrans(
    {
        c: " "
        for c in "\u00b9\u00b2\u00b3\u2070\u2074\u2075\u2076\u2077\u2078\u2079"
        "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089"
    }
)
_VULGAR = re.compile("([\u00bd\u00bc\u00be])")
_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2013": ", ",
        "\u2014": ", ",
        "\u2026": "...",
        "\u00a0": " ",
        "\u202f": " ",
        "\u2009": " ",
        "\u00bf": " ",
        "\u00a1": " ",
    }
)


# --- rule handlers --------------------------------------------------------------------------------


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
    words = cardinal(int(whole or "0"), lang)
    if frac:
        words += f" {_WORDS[lang]['point']} {digits(frac, lang)}"
    return f"{_WORDS[lang]['minus']} {words}" if neg else words


def _currency(m: re.Match, lang: str) -> str:
    sym = m.group("sym") or m.group("sym2")
    amount = m.group("amt") or m.group("amt2")
    scale = (m.groupdict().get("scale") or "").lower()
    one, many, sub_one, sub_many = _CURRENCIES[lang][sym]
    dec_sep = "." if lang == "en" else ","
    group_sep = "," if lang == "en" else "."
    if scale:
        return f"{_number_words(amount, lang)} {cardinal(_SCALES[scale], lang).split()[-1]} {many}"
    if dec_sep in amount:
        whole_s, cents_s = amount.rsplit(dec_sep, 1)
        if len(cents_s) != 2:  # "$80,9" or "$1.5": not cents, read as a decimal amount
            return f"{_number_words(amount, lang)} {many}"
    else:
        whole_s, cents_s = amount, ""
    whole = int(whole_s.replace(group_sep, "") or "0")
    cents = int(cents_s or "0")
    parts = []
    if whole or not cents:
        parts.append(f"{cardinal(whole, lang)} {one if whole == 1 else many}")
    if cents and sub_one:
        parts.append(f"{cardinal(cents, lang)} {sub_one if cents == 1 else sub_many}")
    elif cents:
        parts = [f"{_number_words(amount, lang)} {many}"]
    return f" {_WORDS[lang]['and']} ".join(parts)


def _day_month_year(day: int, month: int, yr: int | None, lang: str) -> str:
    name = _MONTHS[lang][month - 1]
    y = f" {year(yr, lang)}" if yr is not None else ""
    if lang == "en":
        return f"{name} {ordinal(day, lang)}{',' if y else ''}{y}"
    if lang == "es":
        d = "primero" if day == 1 else cardinal(day, lang)
        return f"{d} de {name}" + (f" de {cardinal(yr, lang)}" if yr is not None else "")
    if lang == "de":
        return f"{ordinal(day, lang)}r {name}{y}"
    d = "premier" if day == 1 else cardinal(day, lang)
    return f"{d} {name}" + (f" {cardinal(yr, lang)}" if yr is not None else "")


def _valid_date(day: int, month: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31


def _iso_date(m: re.Match, lang: str) -> str | None:
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    return _day_month_year(d, mo, y, lang) if _valid_date(d, mo) else None


def _slash_date(m: re.Match, lang: str) -> str | None:
    a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if y < 100:
        y += 2000
    # US order in English, day first elsewhere.
    mo, d = (a, b) if lang == "en" else (b, a)
    return _day_month_year(d, mo, y, lang) if _valid_date(d, mo) else None


def _month_name_date(m: re.Match, lang: str) -> str | None:
    g = m.groupdict()
    month_word = (g.get("mon") or g.get("mon2") or "").rstrip(".")
    day = int(g.get("day") or g.get("day2"))
    yr = g.get("yr") or g.get("yr2")
    month = _month_index(month_word, lang)
    if month is None or not _valid_date(day, month):
        return None
    return _day_month_year(day, month, int(yr) if yr else None, lang)


def _month_index(word: str, lang: str) -> int | None:
    low = word.lower()
    for i, name in enumerate(_MONTHS[lang]):
        if name.lower() == low:
            return i + 1
    return _EN_MONTH_ABBR.get(low) if lang == "en" else None


def _time(m: re.Match, lang: str) -> str | None:
    h, mi = int(m.group("h")), int(m.group("min"))
    ampm = (m.group("ampm") or "").lower().replace(".", "").replace(" ", "")
    if h > 23 or mi > 59 or (ampm and not 1 <= h <= 12):
        return None
    w = _WORDS[lang]
    suffix = f" {w['am'] if ampm == 'am' else w['pm']}" if ampm else ""
    if (m.group("ampm") or "").endswith(".") and _ends_sentence(m):
        suffix += "."  # "3 p.m." at the end of a sentence: the dot is also the full stop
    if lang == "en":
        if mi == 0:
            body = cardinal(h, lang) + (suffix if ampm else f" {w['oclock']}" if h <= 12 else " hundred")
            return body
        mins = f"{w['oh']} {cardinal(mi, lang)}" if mi < 10 else cardinal(mi, lang)
        return f"{cardinal(h, lang)} {mins}{suffix}"
    if lang == "de":
        return f"{cardinal(h, lang)} Uhr" + (f" {cardinal(mi, lang)}" if mi else "") + suffix
    if lang == "fr":
        hours = "une heure" if h == 1 else f"{cardinal(h, lang)} heures"
        return hours + (f" {cardinal(mi, lang)}" if mi else "") + suffix
    hour = "una" if h == 1 else cardinal(h, lang)
    return f"{hour} " + (f"y {cardinal(mi, lang)}" if mi else w["oclock"]) + suffix


def _phone(m: re.Match, lang: str) -> str | None:
    text = m.group(0)
    if lang != "en" and re.fullmatch(r"\d{1,3}(?:[ .\u202f]\d{3})+", text):
        return None  # "1 000 000" / "1.000.000": a grouped number, not a phone number
    groups = re.findall(r"\d+", text)
    spoken = ", ".join(digits(g, lang) for g in groups)
    return (f"{_SYMBOLS[lang]['+']} " if text.startswith("+") else "") + spoken


def _percent(m: re.Match, lang: str) -> str:
    return f"{_number_words(m.group(1), lang)} {_WORDS[lang]['percent']}"


def _ordinal(m: re.Match, lang: str) -> str:
    return ordinal(int(m.group(1)), lang)


def _unit(m: re.Match, lang: str) -> str:
    num, unit = m.group("num"), m.group("unit")
    one, many = _UNITS[lang][unit]
    return f"{_number_words(num, lang)} {one if _plural_is_one(num) else many}"


def _decade(m: re.Match, lang: str) -> str:
    n = int(m.group(1))
    words = year(n, lang) if n >= 1000 else cardinal(n, lang)
    # "nineteen ninety" -> "nineteen nineties", "eighty" -> "eighties"
    return words[:-1] + "ies" if words.endswith("y") else words + "s"


def _year(m: re.Match, lang: str) -> str:
    return year(int(m.group(0)), lang)


def _long_digits(m: re.Match, lang: str) -> str:
    return digits(m.group(0), lang)


def _number(m: re.Match, lang: str) -> str:
    return _number_words(m.group(0), lang)


def _fraction(m: re.Match, lang: str) -> str | None:
    num, den = int(m.group(1)), int(m.group(2))
    if lang != "en" or den < 2 or den > 10:
        return None
    if den == 2:
        name = "half" if num == 1 else "halves"
    elif den == 4:
        name = "quarter" if num == 1 else "quarters"
    else:
        name = ordinal(den, lang) + ("" if num == 1 else "s")
    return f"{cardinal(num, lang)} {name}"


_DOT = {"en": "dot", "es": "punto", "de": "Punkt", "fr": "point"}


def _address(m: re.Match, lang: str) -> str:
    # "jane.doe@example.com" -> "jane dot doe at example dot com"; digits inside are read one by one.
    text = m.group(0)
    for scheme in ("https://", "http://"):
        if text.lower().startswith(scheme):
            text = text[len(scheme) :]
    text = text.rstrip("/")
    words = []
    for part in re.split(r"([.@/])", text):
        if part == ".":
            words.append(_DOT[lang])
        elif part == "@":
            words.append(_SYMBOLS[lang]["@"])
        elif part == "/":
            words.append("slash")
        elif part:
            words.append(
                re.sub(
                    r"\d",
                    lambda d: f" {cardinal(int(d.group(0)), lang)} ",
                    part.replace("-", " ").replace("_", " "),
                )
            )
    return " ".join(" ".join(words).split())


def _saint_street(m: re.Match, lang: str) -> str:
    # "St. Louis" -> Saint; "Main St." -> Street.
    return "Saint" if m.group("next") else "Street"


# --- rule table -----------------------------------------------------------------------------------

Handler = Callable[[re.Match, str], str | None]


@dataclass(frozen=True)
class _Rule:
    name: str
    pattern: re.Pattern
    handler: Handler


def _alt(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


@cache
def _rules(lang: str) -> tuple[_Rule, ...]:
    num_en = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
    num_eu = r"\d{1,3}(?:[.\u202f ]\d{3})+(?:,\d+)?|\d+(?:,\d+)?"
    num = num_en if lang == "en" else num_eu
    syms = _alt(_CURRENCIES[lang])
    months = _alt(list(_MONTHS[lang]) + ([m.capitalize() for m in _MONTHS[lang]] if lang != "en" else []))
    if lang == "en":
        months = _alt(
            list(_MONTHS["en"])
            + [a.capitalize() + "." for a in _EN_MONTH_ABBR]
            + [a.capitalize() for a in _EN_MONTH_ABBR]
        )
    units = _alt(_UNITS[lang])
    ordinal_suffix = {
        "en": r"(?:st|nd|rd|th)",
        "es": r"(?:º|ª|\.?o|\.?a)",
        "de": r"\.(?=\s+\w)",
        "fr": r"(?:er|re|e|ème|eme)",
    }[lang]
    abbr = {k: v for k, v in _ABBREVIATIONS[lang].items()}
    # Scale words after an amount ("$5 million", "$3bn") are English spellings.
    scale = r"(?:\s?(?P<scale>thousand|million|billion|trillion|bn|mn|[kKmMbBtT])\b)?" if lang == "en" else ""
    table: list[tuple[str, str, Handler]] = [
        (
            "address",
            r"(?:https?://)?[\w+-]+(?:\.[\w+-]+)*@[\w-]+(?:\.[\w-]+)+"
            r"|(?:https?://|www\.)[\w-]+(?:\.[\w-]+)+(?:/[\w.-]*)*"
            r"|(?<![\w.@])[a-z][\w-]*(?:\.[\w-]+)*\.(?:com|org|net|io|edu|gov|de|fr|es|uk)\b",
            _address,
        ),
        (
            "currency",
            rf"(?P<sym>{syms})\s?(?P<amt>{num}){scale}|(?P<amt2>{num})\s?(?P<sym2>{syms})",
            _currency,
        ),
        ("iso_date", r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)", _iso_date),
        ("slash_date", r"(?<![\d/])(\d{1,2})[/.](\d{1,2})[/.](\d{4}|\d{2})(?![\d/])", _slash_date),
        (
            "month_date",
            rf"(?P<mon>{months})\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<yr>\d{{4}})\b)?"
            rf"|(?P<day2>\d{{1,2}})(?:st|nd|rd|th|\.|er)?\s+(?:de\s+)?(?P<mon2>{months})"
            rf"(?:,?\s+(?:de\s+)?(?P<yr2>\d{{4}})\b)?",
            _month_name_date,
        ),
        # German "15:30 Uhr" is read "fünfzehn Uhr dreißig": the written "Uhr" is part of the time.
        (
            "time",
            r"(?<![\d:])(?P<h>\d{1,2}):(?P<min>\d{2})(?![\d:])(?:\s*(?P<ampm>[aApP]\.?\s?[mM]\.?)(?!\w))?"
            + (r"(?:\s+Uhr\b)?" if lang == "de" else ""),
            _time,
        ),
        (
            "phone",
            r"(?<![\w.,])\+?(?:\(\d{1,4}\)\s?|\d{1,4}[-. ])(?:\d{2,4}[-. ]){1,3}\d{2,4}(?!\w|[.,]\d)",
            _phone,
        ),
        ("percent", rf"(-?(?:{num}))\s?%", _percent),
        ("ordinal", rf"\b(\d{{1,9}}){ordinal_suffix}(?!\w)", _ordinal),
        *([("decade", r"(?<![\w.])(\d{1,3}0)'?s\b", _decade)] if lang == "en" else []),
        ("unit", rf"(?P<num>-?(?:{num}))\s?(?P<unit>{units})(?![\w/])", _unit),
        ("fraction", r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])", _fraction),
        ("long_digits", rf"\d{{{_MAX_CARDINAL_DIGITS + 1},}}", _long_digits),
    ]
    if lang == "en":
        table.append(("year", r"(?<![\d])(?<!\d[.,])(?:1[1-9]\d\d|20\d\d)(?!\d|%|[.,]\d)", _year))
    table += [
        ("number", rf"(?<![\w.])-?(?:{num})|(?:{num})", _number),
    ]
    if lang == "en":
        table.append(("saint_street", r"\bSt\.(?P<next>\s+(?=[A-Z]))?", _saint_street))
        table.append(("number_abbr", r"\b[Nn]o\.(?=\s?\d)", lambda m, lg: "number"))
    table += [
        ("abbreviation", rf"(?<!\w)(?:{_alt(abbr)})(?!\w)", lambda m, lg, _a=abbr: _abbrev(m, lg, _a)),
        ("symbol", rf"[{re.escape(''.join(_SYMBOLS[lang]))}]", lambda m, lg: f" {_SYMBOLS[lg][m.group(0)]} "),
    ]
    return tuple(_Rule(n, re.compile(p), h) for n, p, h in table)


def _abbrev(m: re.Match, lang: str, table: dict[str, str]) -> str:
    key = m.group(0)
    spoken = table[key]
    if key in _SENTENCE_FINAL[lang] and _ends_sentence(m):
        spoken += "."
    return spoken


def _ends_sentence(m: re.Match) -> bool:
    """True when the text after a match that ends in a period ends, or goes on with a capital."""
    rest = m.string[m.end() :]
    return not rest.strip() or re.match(r"\s+[A-Z]", rest) is not None


@cache
def _master(lang: str) -> re.Pattern:
    """One alternation of all rules: finds the next position where any rule may apply."""
    return re.compile("|".join(f"(?:{_renumber(r.pattern.pattern, i)})" for i, r in enumerate(_rules(lang))))


def _renumber(pattern: str, i: int) -> str:
    # Named groups must be unique across the alternation: suffix them with the rule index.
    return re.sub(r"\(\?P<(\w+)>", lambda m: f"(?P<{m.group(1)}__{i}>", pattern)


# --- the scan -------------------------------------------------------------------------------------

# ASCII fast path of `_speakable`: everything but letters, digits, space and kept punctuation -> space.
_ASCII_DROP = str.maketrans(
    {c: " " for c in map(chr, range(128)) if not (c.isalnum() or c == " " or c in _PUNCT_KEEP)}
)


def _speakable(text: str) -> str:
    """Keep letters of Latin script, digits, whitespace and kept punctuation; skip the rest."""
    if text.isascii():
        return text.translate(_ASCII_DROP)
    out = []
    for ch in text:
        if ch.isspace():
            out.append(" ")
        elif ch in _PUNCT_KEEP or ch.isdecimal():
            out.append(ch)
        elif ch.isalpha():
            out.append(ch if "LATIN" in unicodedata.name(ch, "") else " ")
        elif unicodedata.category(ch) in ("Pd", "Pc"):
            out.append(" ")
        else:
            out.append(" ")
    return "".join(out)


def normalize_segments(text: str, language: str = "en") -> list[Segment]:
    """Split `text` into segments with their spoken form (see module docstring)."""
    if not isinstance(text, str):
        raise NormalizationError(f"text must be str, got {type(text).__name__}")
    if language not in LANGUAGES:
        # The other catalog languages: CLDR/num2words rules in normalize_intl (the one place they join).
        from . import languages, normalize_intl

        if isinstance(language, str) and language in languages.CATALOG:
            return normalize_intl.normalize_segments(text, language)
        raise NormalizationError(
            f"language {language!r} is not supported; choose one of {sorted(languages.CATALOG)}"
        )
    # Superscripts would become plain digits under NFKC ("km²" -> "km2"): drop them first. NFKC then folds
    # full-width digits and letters, ligatures and the like into what the rules expect.
    if not text.isascii():
        parts = _VULGAR.split(text.translate(_PRE_NFKC))
        # "½" stays a symbol (NFKC would make it "1⁄2"); everything else is folded.
        text = "".join(p if k % 2 else unicodedata.normalize("NFKC", p) for k, p in enumerate(parts))
        text = text.translate(_TRANSLATE)
    rules = _rules(language)
    master = _master(language)
    segments: list[Segment] = []
    pos = 0
    while pos < len(text):
        m = master.search(text, pos)
        if m is None:
            break
        spoken = None
        rule_name = ""
        for r in rules:
            # Re-run the winning region with each rule in order; a handler may decline (None).
            rm = r.pattern.match(text, m.start())
            if rm is None or rm.end() == rm.start():
                continue
            spoken = r.handler(rm, language)
            if spoken is not None:
                rule_name = r.name
                m_end = rm.end()
                break
        if spoken is None:
            # Every rule declined (e.g. "13/45" is no date): keep one character as plain text.
            _add_text(segments, text[pos : m.start() + 1])
            pos = m.start() + 1
            continue
        _add_text(segments, text[pos : m.start()])
        segments.append(Segment(text[m.start() : m_end], " ".join(spoken.split()), rule_name))
        pos = m_end
    _add_text(segments, text[pos:])
    return segments


def _add_text(segments: list[Segment], chunk: str) -> None:
    if not chunk:
        return
    spoken = " ".join(_speakable(chunk).split())
    if spoken or chunk.strip():
        segments.append(Segment(chunk, spoken, "text"))


def normalize(text: str, language: str = "en") -> str:
    """Spoken form of `text`: numbers, dates, currency, abbreviations... as words; unspeakable skipped."""
    joined = " ".join(s.spoken for s in normalize_segments(text, language) if s.spoken)
    return _SPACE_BEFORE_PUNCT.sub(r"\1", joined)


_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?])(?=\s|$)")
