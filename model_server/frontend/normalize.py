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

import itertools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache

from num2words import num2words

from . import agreement, ordinals

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
    # agreement depends on the last digits only; int() refuses thousands of them
    return int(re.sub(r"[^\d]", "", s)[-_MAX_CARDINAL_DIGITS:] or "0")


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

# What a rate is per, written after a slash ("$20/hr", "3,50 €/Monat"): the written word -> the spoken one.
_PER: dict[str, dict[str, str]] = {
    "en": {
        **{
            w: w
            for w in "month week day year hour night person minute user seat room head unit bottle guest "
            "ticket session item visit lesson class ride device license box".split()
        },
        **{"mo": "month", "wk": "week", "yr": "year", "hr": "hour", "h": "hour", "min": "minute"},
        **{"pp": "person", "gb": "gigabyte", "kwh": "kilowatt hour", "kg": "kilogram", "lb": "pound"},
    },
    "es": {
        **{w: w for w in "mes semana día año hora noche persona minuto habitación".split()},
        **{"h": "hora", "min": "minuto", "kg": "kilo", "kwh": "kilovatio hora"},
    },
    "de": {
        **{w.lower(): w for w in "Monat Woche Tag Jahr Stunde Nacht Person Minute Kopf Zimmer".split()},
        **{
            "std": "Stunde",
            "h": "Stunde",
            "min": "Minute",
            "kg": "Kilo",
            "kwh": "Kilowattstunde",
            "pers": "Person",
        },
    },
    "fr": {
        **{w: w for w in "mois semaine jour an heure nuit personne minute chambre".split()},
        **{"h": "heure", "min": "minute", "pers": "personne", "kg": "kilo", "kwh": "kilowattheure"},
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
        # dollars named by their country before the sign ("US$20", "C$49.99", "AU$120")
        "US$": ("U.S. dollar", "U.S. dollars", "cent", "cents"),
        "C$": ("Canadian dollar", "Canadian dollars", "cent", "cents"),
        "CA$": ("Canadian dollar", "Canadian dollars", "cent", "cents"),
        "A$": ("Australian dollar", "Australian dollars", "cent", "cents"),
        "AU$": ("Australian dollar", "Australian dollars", "cent", "cents"),
        "NZ$": ("New Zealand dollar", "New Zealand dollars", "cent", "cents"),
        "$": ("dollar", "dollars", "cent", "cents"),
        "€": ("euro", "euros", "cent", "cents"),
        "£": ("pound", "pounds", "penny", "pence"),
        "¥": ("yen", "yen", None, None),
        "¢": ("cent", "cents", None, None),
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
# ISO codes written for a currency ("12,50 EUR", "USD 20"): said as the currency's name.
_ISO_CURRENCY_CODES = {"EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥"}


def _currency_names(sym: str, lang: str) -> tuple[str, str, str | None, str | None]:
    """(one, many, one of the hundredth, many of it) for a written symbol or ISO code."""
    return _CURRENCIES[lang][_ISO_CURRENCY_CODES.get(sym, sym)]


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
        "mins": ("minute", "minutes"),
        "h": ("hour", "hours"),
        "hr": ("hour", "hours"),
        "hrs": ("hour", "hours"),
        "sec": ("second", "seconds"),
        "oz": ("ounce", "ounces"),
        "gal": ("gallon", "gallons"),
        "yd": ("yard", "yards"),
        "mL": ("milliliter", "milliliters"),
        "L": ("liter", "liters"),
        "kW": ("kilowatt", "kilowatts"),
        "kWh": ("kilowatt hour", "kilowatt hours"),
        "MHz": ("megahertz", "megahertz"),
        "GHz": ("gigahertz", "gigahertz"),
        "Mbps": ("megabit per second", "megabits per second"),
        "sq ft": ("square foot", "square feet"),
        "sq. ft.": ("square foot", "square feet"),
        "sqft": ("square foot", "square feet"),
        "psi": ("P.S.I.", "P.S.I."),
        "yr": ("year", "years"),
        "yrs": ("year", "years"),
        "mos": ("month", "months"),
        "wk": ("week", "weeks"),
        "wks": ("week", "weeks"),
    },
    "es": {
        "km/h": ("kilómetro por hora", "kilómetros por hora"),
        "km": ("kilómetro", "kilómetros"),
        "cm": ("centímetro", "centímetros"),
        "mm": ("milímetro", "milímetros"),
        "m": ("metro", "metros"),
        "kg": ("kilo", "kilos"),
        "g": ("gramo", "gramos"),
        "mg": ("miligramo", "miligramos"),
        "ml": ("mililitro", "mililitros"),
        "mL": ("mililitro", "mililitros"),
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
        "mg": ("Milligramm", "Milligramm"),
        "ml": ("Milliliter", "Milliliter"),
        "mL": ("Milliliter", "Milliliter"),
        "l": ("Liter", "Liter"),
        "°C": ("Grad Celsius", "Grad Celsius"),
        "°": ("Grad", "Grad"),
        "h": ("Stunde", "Stunden"),
        "min": ("Minute", "Minuten"),
        "Min.": ("Minute", "Minuten"),
        "Std.": ("Stunde", "Stunden"),
        "Std": ("Stunde", "Stunden"),
    },
    "fr": {
        "km/h": ("kilomètre heure", "kilomètres heure"),
        "km": ("kilomètre", "kilomètres"),
        "cm": ("centimètre", "centimètres"),
        "mm": ("millimètre", "millimètres"),
        "m": ("mètre", "mètres"),
        "kg": ("kilo", "kilos"),
        "g": ("gramme", "grammes"),
        "mg": ("milligramme", "milligrammes"),
        "ml": ("millilitre", "millilitres"),
        "mL": ("millilitre", "millilitres"),
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
        "appt.": "appointment",
        "appt": "appointment",
        "Rx": "R X",
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
        "a.m.": "a.m.",
        "p.m.": "p.m.",
        "Ste.": "Suite",
        "Apt.": "Apartment",
        "Hwy.": "Highway",
        "Ln.": "Lane",
        "Ct.": "Court",
        "ext.": "extension",
        "Ext.": "extension",
        "Mon.": "Monday",
        "Tue.": "Tuesday",
        "Tues.": "Tuesday",
        "Wed.": "Wednesday",
        "Thu.": "Thursday",
        "Thurs.": "Thursday",
        "Fri.": "Friday",
        "Sat.": "Saturday",
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
        "N°": "numéro",
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

# The telephone keys "#" and "*" as voice menus name them.
_KEYS = {
    "en": {"#": "pound", "*": "star"},
    "es": {"#": "almohadilla", "*": "asterisco"},
    "de": {"#": "Raute", "*": "Stern"},
    "fr": {"#": "dièse", "*": "étoile"},
}

# Words before a phone key ("Press #", "then *", "the # key" also counts by what follows).
_KEY_CUE = {
    "en": r"press|dial|call|hit|push|tap|enter|then|or|and|followed\s+by|the",
    "es": r"pulse|marque|presione|oprima|teclee|la\s+tecla|luego|o|y",
    "de": r"drücken\s+sie|wählen\s+sie|tippen\s+sie|taste|dann|oder|und|die",
    "fr": r"appuyez\s+sur|sur|tapez|composez|touche|puis|ou|et|la",
}


def _key(m: re.Match, lang: str) -> str | None:
    """A phone key, after a word that presses or names one, or before "key": "Press # to repeat" -> "pound",
    "Dial *67" -> "star six seven". A "*" elsewhere (a footnote, a product) is not said."""
    before = m.string[max(0, m.start() - 20) : m.start()]
    after = m.string[m.end() : m.end() + 12]
    cued = re.search(rf"\b(?:{_KEY_CUE[lang]})\s*$", before, re.IGNORECASE) or re.match(
        r"\s+(?:key|button|Taste|tecla|touche)\b", after, re.IGNORECASE
    )
    if not cued:
        return None  # "order #12", "# 1": the symbol's own reading ("number"); a lone "*" is not said
    code = m.group("code")
    return f" {_KEYS[lang][m.group('key')]}" + (f" {digits(code, lang)} " if code else " ")


# Characters kept as punctuation (the frontend turns them into punctuation/pause symbols).
_PUNCT_KEEP = set(".,;:!?'\"()-")
_PRE_NFKC = str.maketrans(
    {
        **{
            c: " "
            for c in "\u00b9\u00b2\u00b3\u2070\u2074\u2075\u2076\u2077\u2078\u2079"
            "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089"
        },
        # trademark and copyright signs are not said (NFKC made "Acme™" "AcmeTM")
        **dict.fromkeys("\u2122\u00ae\u00a9\u2120", ""),
    }
)
_VULGAR = re.compile("([\u00bd\u00bc\u00be])")
# A dash joining the ends of a range ("10–20", "9am–5pm", "Mon–Fri") is a range's hyphen, not a pause.
_DIGIT_DASH = re.compile(
    r"(?:(?<=\d)|(?<=\d[aApP][mM])|(?<=\d\s[aApP][mM]))\s?[\u2013\u2012]\s?(?=\d)"  # "10 – 20", "9am – 5pm"
    r"|(?:(?<=[aApP]\.[mM]\.)|(?<=\d[hH]))[\u2013\u2012](?=\d)"  # "9 a.m.–5 p.m.", "9h–17h"
    r"|(?:(?<=\b[nN]oon)|(?<=[mM]idnight))\s?[\u2013\u2012]\s?(?=\d)"  # "noon–1pm"
)
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
    if len(whole) > _MAX_CARDINAL_DIGITS:  # "1 234 234 ..." past any quantity (and int()'s limit): digits
        words = digits(whole, lang)
    else:
        words = cardinal(int(whole or "0"), lang)
    if frac:
        words += f" {_WORDS[lang]['point']} {digits(frac, lang)}"
    return f"{_WORDS[lang]['minus']} {words}" if neg else words


def _currency(m: re.Match, lang: str) -> str:
    if m.group("neg") or m.group("neg2"):
        return f"{_WORDS[lang]['minus']} {_currency_amount(m, lang)}"
    said = _currency_amount(m, lang)
    amount = m.group("amt") or m.group("amt2")
    if lang == "en" and "." not in amount and not m.group("scale") and _attributive(m):
        one, many, _, _ = _currency_names(m.group("sym") or m.group("sym2"), lang)
        said = re.sub(rf"\b{many}$", one, said)  # "a $5 fee": "a five dollar fee", as a compound adjective
    return said


def _attributive(m: re.Match) -> bool:
    """An English amount between "a"/"an" and the noun it qualifies ("a $50 gift card")."""
    before = agreement.previous_words(m.string, m.start(), 1)
    after = agreement.next_word(m.string, m.end())
    return (
        bool(before)
        and before[-1].lower() in ("a", "an")
        and after[:1].islower()
        and after not in _NOT_MEASURED
    )


def _currency_amount(m: re.Match, lang: str) -> str:
    sym = m.group("sym") or m.group("sym2")
    amount = m.group("amt") or m.group("amt2")
    return _money(sym, amount, (m.groupdict().get("scale") or "").lower(), m, lang)


def _currency_word(m: re.Match, lang: str) -> str:
    """An amount with cents before the currency's name, as it is written in running text: "29,99 euros al mes"
    -> "veintinueve euros con noventa y nueve céntimos", "12.50 dollars" -> "twelve dollars and fifty cents"
    (they were decimals: "veintinueve coma nueve nueve euros")."""
    return _money(_CURRENCY_BY_NAME[lang][m.group("name").lower()], m.group("amt"), "", m, lang)


# A currency's name (singular or plural, any case) -> its symbol, per language.
_CURRENCY_BY_NAME = {
    lang: {name.lower(): sym for sym, names in table.items() if sym != "¢" for name in names[:2]}
    for lang, table in _CURRENCIES.items()
}


def _money(sym: str, amount: str, scale: str, m: re.Match, lang: str) -> str:
    one, many, sub_one, sub_many = _currency_names(sym, lang)
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
    # CLDR groups thousands with a (narrow) no-break space in fr, sv, pl, ...: "12 500,50 €"
    whole_digits = re.sub(r"[\s\u00a0\u202f]", "", whole_s.replace(group_sep, ""))
    if len(whole_digits) > _MAX_CARDINAL_DIGITS:
        return f"{_number_words(amount, lang)} {many}"  # no amount: its digits
    whole = int(whole_digits or "0")
    cents = int(cents_s or "0")
    parts = []
    if whole or not cents:
        name = one if whole == 1 else many
        parts.append(f"{_counting(cardinal(whole, lang), str(whole), lang, name.split()[0], m)} {name}")
    if cents and sub_one:
        name = sub_one if cents == 1 else sub_many
        parts.append(f"{_counting(cardinal(cents, lang), str(cents), lang, name.split()[0], m)} {name}")
    elif cents:
        parts = [f"{_number_words(amount, lang)} {many}"]
    return f" {_WORDS[lang]['and']} ".join(parts)


def _day_month_year(day: int, month: int, yr: int | None, lang: str, before: list[str] | None = None) -> str:
    name = _MONTHS[lang][month - 1]
    y = f" {year(yr, lang)}" if yr is not None else ""
    if lang == "en":
        return f"{name} {ordinal(day, lang)}{',' if y else ''}{y}"
    if lang == "es":
        d = "primero" if day == 1 else cardinal(day, lang)
        return f"{d} de {name}" + (f" de {cardinal(yr, lang)}" if yr is not None else "")
    if lang == "de":  # "der dritte Mai", "am dritten Mai", "Montag, dritter Mai"
        before = before or []
        article = _DE_DATE_ARTICLE.get(before[-1].lower()) if before else None
        if (
            len(before) >= 2
            and before[-2].lower() == "bis"
            and before[-1].lower() in ("spätestens", "längstens")
        ):
            article = "zum"  # "bis spätestens 15.12." -> "bis spätestens zum fünfzehnten Dezember"
        if (
            len(before) >= 2
            and before[-2].lower() in ("am", "ab", "bis", "seit", "vom")
            and before[-1] in _DE_WEEKDAYS
        ):
            article = "dem"  # "am Dienstag, 5. März" -> "am Dienstag, dem fünften März"
        if article:  # "bis 8.10." -> "bis zum achten Oktober", "seit dem dritten Mai"
            return f"{article} {ordinals.german_ordinal(ordinal(day, lang), [*before, article], date=True)} {name}{y}"
        return f"{ordinals.german_ordinal(ordinal(day, lang), before, date=True)} {name}{y}"
    d = "premier" if day == 1 else cardinal(day, lang)
    return f"{d} {name}" + (f" {cardinal(yr, lang)}" if yr is not None else "")


# German prepositions that take a date with its article, which writing leaves out: "bis 8.10." is said "bis
# zum achten Oktober", "ab 1.5." "ab dem ersten Mai".
_DE_DATE_ARTICLE = {"bis": "zum", "ab": "dem", "seit": "dem"}
_DE_WEEKDAYS = frozenset("Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag".split())


def _valid_date(day: int, month: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31


# German "am Dienstag, 5. März": the weekday and its preposition before the comma set the date's case.
_DE_WEEKDAY_BEFORE = re.compile(
    r"\b((?i:am|ab|bis|seit|vom))\s+(Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag),\s*$"
)


def _date_context(m: re.Match) -> list[str]:
    """The words before a date that its spoken form depends on (`agreement.previous_words`), or for German
    "am Dienstag, 5. März" the preposition and the weekday across the comma."""
    weekday = _DE_WEEKDAY_BEFORE.search(m.string[max(0, m.start() - 30) : m.start()])
    return list(weekday.groups()) if weekday else agreement.previous_words(m.string, m.start())


def _iso_date(m: re.Match, lang: str) -> str | None:
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    return _day_month_year(d, mo, y, lang, _date_context(m)) if _valid_date(d, mo) else None


def _slash_date(m: re.Match, lang: str) -> str | None:
    if "." in m.group(0) and VERSION_CUE.search(m.string[max(0, m.start() - 24) : m.start()]):
        return None  # "Firmware 1.2.03", "Version 3.1.24": a version (`_dotted`)
    a, b, y = (int(g) for g in (m.groups()[:3] if m.group(1) else m.groups()[3:]))
    if y < 100:
        y += 2000
    # US order in English, day first elsewhere.
    mo, d = (a, b) if lang == "en" else (b, a)
    return _day_month_year(d, mo, y, lang, _date_context(m)) if _valid_date(d, mo) else None


def _month_name_date(m: re.Match, lang: str) -> str | None:
    g = m.groupdict()
    month_word = (g.get("mon") or g.get("mon2") or "").rstrip(".")
    day = int(g.get("day") or g.get("day2"))
    yr = g.get("yr") or g.get("yr2")
    month = _month_index(month_word, lang)
    if month is None or not _valid_date(day, month):
        return None
    said = _day_month_year(day, month, int(yr) if yr else None, lang, _date_context(m))
    if g.get("end"):  # "December twentieth to twenty third", "November seventh to November ninth"
        end_month = _month_index(g["mon3"].rstrip("."), lang) if g.get("mon3") else month
        end = int(g["end"])
        if end_month is None or not _valid_date(end, end_month) or (end_month == month and end <= day):
            return None
        start = _day_month_year(day, month, None, lang)
        tail = (
            _day_month_year(end, end_month, int(yr) if yr else None, lang)
            if g.get("mon3")
            else ordinal(end, lang)
        )
        said = f"{start} to {tail}" + (f", {year(int(yr), lang)}" if yr and not g.get("mon3") else "")
    return said


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
    if (m.group("ampm") or "").endswith(".") and ends_sentence(m):
        suffix += "."  # "3 p.m." at the end of a sentence: the dot is also the full stop
    if lang == "en":
        noon = m.groupdict().get("noon")
        if noon and not ampm and mi == 0 and h in (0, 12):
            return f"twelve {noon.lower()}"
        if noon:
            return None
        if mi == 0:
            body = cardinal(h, lang) + (suffix if ampm else f" {w['oclock']}" if h <= 12 else " hundred")
            return body
        mins = f"{w['oh']} {cardinal(mi, lang)}" if mi < 10 else cardinal(mi, lang)
        return f"{cardinal(h, lang)} {mins}{suffix}"
    return _clock_words(h, mi, lang) + suffix


def _clock_words(h: int, mi: int, lang: str) -> str:
    """A Spanish, German or French clock time: "neun Uhr dreißig", "neuf heures trente", "nueve y treinta"."""
    if lang == "de":
        hour = "ein" if h == 1 else cardinal(h, lang)  # "ein Uhr dreißig", not "eins Uhr"
        return f"{hour} Uhr" + (f" {cardinal(mi, lang)}" if mi else "")
    if lang == "fr":
        hours = "une heure" if h == 1 else f"{cardinal(h, lang)} heures"
        return hours + (f" {cardinal(mi, lang)}" if mi else "")
    hour = "una" if h == 1 else cardinal(h, lang)
    return f"{hour} " + (f"y {cardinal(mi, lang)}" if mi else _WORDS[lang]["oclock"])


def _time_hour(m: re.Match, lang: str) -> str | None:
    """English "9am", "9 p.m.", "11 AM": an hour with am/pm and no minutes."""
    h = int(m.group("h"))
    if not 1 <= h <= 12:
        return None
    ampm = m.group("ampm").lower().replace(".", "").replace(" ", "")
    # "at 3 p.m. Now": the written dot is also the full stop; the frontend needs to see both.
    stop = "." if m.group("ampm").endswith(".") and ends_sentence(m) else ""
    return f"{cardinal(h, lang)} {_WORDS[lang][ampm]}{stop}"


# Area codes people say as a number ("one eight hundred"), not digit by digit.
_HUNDRED_AREA_CODES = {"800", "900"}
# Where a phone number written in pairs is said in pairs, each as a number (the French and Spanish
# custom; English and German say the digits).
_PAIRS_AS_NUMBERS = frozenset({"es", "fr"})
# Phone numbers written as one run of digits, where their shape sets them apart from amounts (written with
# groups, or round) and identifiers: North American numbers (ten digits, the area code from 2 to 9, "1" before
# them) and Spanish ones (nine digits, mobiles from 6 and 7, land lines from 8 and 9).
_UNGROUPED_PHONE = {"en": r"1?[2-9]\d{9}(?<!000)", "es": r"[6-9]\d{8}(?<!000)"}
# Words after which a Spanish "612 345 678" is a phone number, not an amount grouped by spaces.
_PHONE_CUE_ES = re.compile(
    r"\b(?:al|llame|llámenos|llámanos|llama|teléfono|tel|tlf|móvil|celular|número|whatsapp|marque|contacto)"
    r"\b\W*$",
    re.IGNORECASE,
)


def pair_as_number(group: str, n_groups: int) -> bool:
    """Whether a group of a phone number is said as a number: a pair without a leading zero, in a number
    written in three groups or more ("01 23 45" -> "zéro un, vingt-trois, quarante-cinq")."""
    return len(group) == 2 and group[0] != "0" and n_groups > 2


def _phone(m: re.Match, lang: str) -> str | None:
    """A phone number, card number or other grouped digits: digit by digit, one pause per group.

    "555-0142" -> "five five five, zero one four two"; "+1 (555) 123-4567" -> "plus one, five five five,
    one two three, four five six seven"; "1-800-..." -> "one, eight hundred, ..."; an extension
    ("ext. 12", "x12", "extension 12") -> ", extension one two". Zero is "zero" (not "oh") throughout.
    """
    text = m.group(0)
    ext = m.groupdict().get("ext")
    if ext:
        text = text[: m.start("extword") - m.start()]
    if lang != "en" and re.fullmatch(r"\d{1,3}(?:[ .\u202f]\d{3})+", text):
        cued = _PHONE_CUE_ES.search(m.string[max(0, m.start() - 30) : m.start()])
        if not (lang == "es" and cued and re.fullmatch(r"[6-9]\d\d \d{3} \d{3}", text)):
            return None  # "1 000 000" / "1.000.000": a grouped number ("llame al 612 345 678" is a phone)
    groups = re.findall(r"\d+", text)
    if m.groupdict().get("ungrouped"):  # "5551234567" -> 555, 123, 4567; "612345678" -> 612, 345, 678
        groups = (
            [text[:-10], text[-10:-7], text[-7:-4], text[-4:]] if lang == "en" else re.findall(r"\d{3}", text)
        )
        groups = [g for g in groups if g]
    said = []
    for i, g in enumerate(groups):
        if lang == "en" and i > 0 and g in _HUNDRED_AREA_CODES and len(groups) >= 3 and groups[0] == "1":
            said.append(_hundred_code(g, lang))
        elif lang in _PAIRS_AS_NUMBERS and pair_as_number(g, len(groups)):
            said.append(cardinal(int(g), lang))
        else:
            said.append(digits(g, lang))
    spoken = _with_plus(text, ", ".join(said), lang)
    if ext:
        spoken += f", extension {digits(ext, lang)}"
    return spoken


def _vanity(m: re.Match, lang: str) -> str | None:
    """A toll-free number with letters, read as it is advertised: "1-800-FLOWERS" -> "one, eight hundred,
    flowers", "1-800-GOT-JUNK" -> "one, eight hundred, got junk". The digit groups are read as `_phone` reads
    them (800 is "eight hundred"); letters with a vowel are a word, letters without are spelled ("CVS" ->
    "C.V.S."), digits among letters are digits ("KARS4KIDS" -> "kars four kids"). After an identifier's cue
    ("code 800-ABC1") it is a code."""
    if _CODE_CUE.search(m.string[max(0, m.start() - 40) : m.start()]):
        return None
    said = []
    # runs of digit groups are read one group at a time; a run of groups with letters is one phrase ("got junk")
    for numeric, run in itertools.groupby(re.split(r"[-. ()]+", m.group(0).lstrip("+(")), str.isdigit):
        if numeric:
            said += [_hundred_code(g, lang) if g in _HUNDRED_AREA_CODES else digits(g, lang) for g in run]
        else:
            parts = [p for g in run for p in re.findall(r"\d+|[A-Z]+", g)]
            said.append(" ".join(digits(p, lang) if p.isdigit() else _letters_as_said(p) for p in parts))
    return _with_plus(m.group(0), ", ".join(said), lang)


def _letters_as_said(letters: str) -> str:
    """Capital letters of a vanity number: a word when they hold a vowel ("FLOWERS" -> "flowers"), spelled
    when they do not ("CVS" -> "C.V.S.")."""
    return letters.lower() if re.search(r"[AEIOUY]", letters) else _spell_letters(letters)


def _hundred_code(group: str, lang: str) -> str:
    """A toll-free area code as it is said: "800" -> "eight hundred"."""
    return f"{cardinal(int(group[0]), lang)} {_WORDS[lang]['hundred']}"


def _with_plus(written: str, spoken: str, lang: str) -> str:
    """`spoken` with the word for "+" in front when the number was written with it ("+1 ..." -> "plus one")."""
    return f"{_SYMBOLS[lang]['+']} {spoken}" if written.startswith("+") else spoken


def _spell_letters(letters: str) -> str:
    """Letters said one by one, written so that espeak-ng and Festival both say the letter names: a run of
    two or more is a dotted initialism ("F.B.I."), one letter stays a capital. A lone "A" would be read as
    the article "uh", so the caller joins it to its neighbour with a hyphen ("A-one")."""
    letters = letters.upper()
    return letters if len(letters) == 1 else "".join(f"{c}." for c in letters)


# Words after which a run of digits (or letters and digits) is an identifier read character by character:
# "ZIP 90210", "order #A1B2-339", "confirmation code X7Q9", "card ending in 4242", "PIN 0042".
_CODE_CUE = re.compile(
    r"(?:\b(?:zip|postal|order|confirmation|reference|ref|account|acct|ticket|tracking|invoice|booking|"
    r"reservation|policy|member|membership|case|claim|card|pin|id|serial|code|extension|ext|"
    r"routing|voucher|coupon|promo|passcode|pass\s+code|password|otp|verification|prescription|rx|"
    r"last\s+(?:four|4)(?:\s+digits)?|text\s+[A-Z]+\s+to|text\s+(?:us\s+)?(?:at|to)|"
    # "ends in 6789" after what has a number ("the card ending in"); "the offer ends in 2025" is a year
    r"(?:card|account|acct|number|no\.|ssn|phone|mobile|checking|savings|visa|mastercard|amex)\b[^.]{0,25}?"
    r"\b(?:ends?|ending)\s+(?:in|with))\b\.?"
    r"(?:\s+(?:number|no\.|num|code|id|#|is|was))*\s*(?:#|:|\bis\b)?\s*"
    r"|#\s*)$",
    re.IGNORECASE,
)
# The same for Spanish, German and French: "Ihre Bestellnummer ist 12345678", "código postal 28001", "votre
# numéro de commande est le 12345". After the cue: "de/du" and a noun ("número de pedido"), a verb ("ist",
# "es", "est") and an article ("le"), a colon or "#".
_CODE_CUE_EU = {
    "es": re.compile(
        r"\b(?:n[uú]mero|n\.?[ºo°]|c[oó]digo(?:\s+postal|\s+de\s+verificaci[oó]n|\s+de\s+un\s+solo\s+uso)?|"
        r"cp|pin|pedido|referencia|ref|reserva|localizador|ticket|expediente|id|seguimiento|dni|nif|"
        r"terminad[ao]\s+en|acaba\s+en|termina\s+en)\b\.?"
        r"(?:\s+(?:de(?:l)?\s+(?:pedido|cliente|referencia|reserva|cuenta|factura|tel[eé]fono|seguimiento|"
        r"expediente|serie|socio|p[oó]liza|confirmaci[oó]n|contrato)|es|era|el|:|#))*\s*[:#]?\s*$",
        re.IGNORECASE,
    ),
    "de": re.compile(
        r"\b(?:[^\W\d]*nummer|nr|plz|postleitzahl|pin|[^\W\d]*code|kennung|id|ticket|referenz|bestellung|"
        r"buchung|vorgang|aktenzeichen|iban|endung|endet\s+auf|endend\s+auf)\b\.?"
        r"(?:\s+(?:ist|lautet|war|:|#))*\s*[:#]?\s*$",
        re.IGNORECASE,
    ),
    "fr": re.compile(
        r"\b(?:num[eé]ro|n[°o]|code(?:\s+postal|\s+de\s+v[eé]rification|\s+[aà]\s+usage\s+unique)?|cp|pin|"
        r"commande|r[eé]f[eé]rence|r[eé]f|r[eé]servation|dossier|ticket|suivi|id|identifiant|"
        r"se\s+terminant\s+par|terminant\s+par|finissant\s+par)\b\.?"
        r"(?:\s+(?:d[eu]\s+(?:commande|client|r[eé]f[eé]rence|r[eé]servation|dossier|facture|t[eé]l[eé]phone|"
        r"suivi|s[eé]rie|compte|confirmation|contrat)|est|était|le|la|:|#))*\s*[:#]?\s*$",
        re.IGNORECASE,
    ),
}
# Cues that name an identifier outright in es/de/fr: a number of any length after them is one. "Nummer",
# "número" and "numéro" are not: "Zimmernummer 12", "Nr. 12", "número 3" are said as numbers.
_STRONG_CUE_EU = re.compile(
    r"#|:|\b(?:c[oó]digo|[^\W\d]*code|pin|plz|postleitzahl|cp|id|en|auf|par|endung)\b", re.IGNORECASE
)


def _eu_code(m: re.Match, lang: str) -> str | None:
    """Spanish, German and French codes of letters and digits, said character by character: "ABC123" -> "A B C
    uno dos tres", an IBAN "DE89 3704 ..." -> "D E acht neun, drei sieben null vier, ..." (the digits were
    cardinals: "ABC ciento veintitrés", "DE neunundachtzigtausend ..."). One or two capitals with one or two
    digits are a name with its number ("G20" -> "G veinte", "A7"); lower-case words ("mp3") are left alone."""
    token = m.group(0)
    if any(c.islower() for c in token) and not any(c.isupper() for c in token):
        return None  # "mp3", "h2o": a word, as written
    if re.fullmatch(r"[A-Z]{1,2}\d{1,2}", token):  # a name with a number: "G20", "A7", "B52"
        letters, number = re.match(r"([A-Z]+)(\d+)", token).groups()
        return f"{' '.join(letters)} {cardinal(int(number), lang)}"
    if re.fullmatch(r"\d{1,3}[A-Z]", token):  # a seat or a room: "23A" -> "veintitrés A"
        return f"{cardinal(int(token[:-1]), lang)} {token[-1]}"
    groups = token.split()
    said = []
    for group in groups:
        parts = []
        for run in re.findall(r"\d+|[A-Za-z]+", group):
            parts.append(digits(run, lang) if run.isdigit() else " ".join(run.upper()))
        said.append(" ".join(parts))
    return ", ".join(said)


def _identifier(m: re.Match, lang: str) -> str | None:
    """Spanish, German and French digits after an identifier's cue (`_CODE_CUE_EU`), digit by digit: "Die
    PLZ ist 10115" -> "eins null eins eins fünf", "Su pedido 12345" -> "uno dos tres cuatro cinco". As in
    English, a number of fewer than four digits after a bare noun cue is a count ("Bestellung 3 Pizzen")."""
    before = m.string[max(0, m.start() - 40) : m.start()]
    cue = _CODE_CUE_EU[lang].search(before)
    if cue is None or (len(m.group(0)) < 4 and not _STRONG_CUE_EU.search(cue.group(0))):
        return None
    if agreement.next_word(m.string, m.end()).lower() in _CURRENCY_WORDS[lang]:
        return None  # "Die Bestellung ist 1500 Euro": an amount
    return digits(m.group(0), lang)


# Currency names after a number make it an amount, whatever the cue before it.
_CURRENCY_WORDS = {
    lang: frozenset(w.lower() for names in table.values() for w in names[:2]) | {"pesos", "peso", "franken"}
    for lang, table in _CURRENCIES.items()
}
# A cue that names an identifier outright: then even a short number after it is read digit by digit.
_STRONG_CUE = re.compile(
    r"#|:|\b(?:number|no|num|code|id|is|was|in|with|to|extension|ext|pin|zip|postal|four|4|digits)\b", re.I
)
# Letters and a number joined by a hyphen are a name and a number, not a code: "COVID-19", "F-16".
_NAME_NUMBER = re.compile(r"[A-Za-z]+-\d{1,4}")


# A promo code's cue, and a code's letters that read as a word (a vowel, no run of three consonants inside).
def _spaced_code(m: re.Match, lang: str) -> str | None:
    """ "Your OTP is 739 204" -> "seven three nine, two zero four" (the second group was "two hundred and four")."""
    if not _CODE_CUE.search(m.string[max(0, m.start() - 40) : m.start()]):
        return None
    return ", ".join(digits(g, lang) for g in m.group(0).split())


_SEAT_CUE = re.compile(
    r"\b(?:gate|seat|terminal|row|platform|pier|bay|dock|concourse|track)\s*$", re.IGNORECASE
)
_PROMO_CUE = re.compile(r"\b(?:promo|coupon|voucher|discount|(?:use|enter|apply)\s+(?:the\s+)?code)\b", re.I)
_WORDLIKE = re.compile(r"(?=.*[AEIOUY])[B-DF-HJ-NP-TV-Z]{0,3}(?:[AEIOUY]+[B-DF-HJ-NP-TV-Z]{0,2})+")


def _code(m: re.Match, lang: str) -> str | None:
    """Identifiers: a token of letters and digits ("A1B2-339", "X7Q9", "3D"), or digits after a cue word
    (`_CODE_CUE`), read character by character: digits one by one, letters by name, "-" as a pause.

    Digits alone with no cue decline (they are numbers, years...); so do "COVID-19"-like name-numbers.
    """
    token = m.group(0)
    has_letters = any(c.isalpha() for c in token)
    before = m.string[max(0, m.start() - 40) : m.start()]
    cue = _CODE_CUE.search(before)
    cued = cue is not None or (
        # a US state code before a ZIP code: "Springfield, IL 62704"
        re.search(r"\b[A-Z]{2},?\s+$", before) is not None
        and re.fullmatch(r"\d{5}(?:-\d{4})?", token) is not None
    )
    if cue is not None and not has_letters and len(token) < 4 and not _STRONG_CUE.search(cue.group(0)):
        cued = False  # "order 12 pizzas" counts; "order number 12", "order #12" and "order 12345" do not
    if not cued and not has_letters:
        return None
    if not cued and _NAME_NUMBER.fullmatch(token):
        name, number = token.split("-")
        return f"{_name_word(name)} {cardinal(int(number), lang)}"
    seat = re.fullmatch(r"([A-Z])(\d{1,3})|(\d{1,3})([A-Z])", token)
    if seat and _SEAT_CUE.search(before):  # "Gate B22" -> "B twenty two", "seat 14C" -> "fourteen C"
        letter, number = (seat.group(1), seat.group(2)) if seat.group(1) else (seat.group(4), seat.group(3))
        said = cardinal(int(number), lang)
        return f"{letter} {said}" if seat.group(1) else f"{said} {letter}"
    promo = re.fullmatch(r"([A-Z]{4,})(\d{1,3})", token)
    promo_cue = _PROMO_CUE.search(m.string[max(0, m.start() - 40) : m.start()])
    if promo and promo_cue and _WORDLIKE.fullmatch(promo.group(1)):
        # a promo code is a word and a number, as it is advertised: "SAVE20" -> "save twenty"
        return f"{promo.group(1).lower()} {cardinal(int(promo.group(2)), lang)}"
    groups = []
    for group in token.split("-"):
        words: list[str] = []
        for run in re.findall(r"\d+|[A-Za-z]+", group):
            if run.isdigit():
                words.append(digits(run, lang))
            else:
                words.append(_spell_letters(run))
        # A lone "A" joins the next word ("A-one"), or the previous one at the end ("seven-A").
        for i, w in enumerate(words):
            if w == "A":
                if i + 1 < len(words):
                    first, _, rest = words[i + 1].partition(" ")
                    words[i + 1] = f"A-{first}" + (f" {rest}" if rest else "")
                    words[i] = ""
                elif i > 0:
                    head, _, last = words[i - 1].rpartition(" ")
                    words[i - 1] = (f"{head} " if head else "") + f"{last}-A"
                    words[i] = ""
        groups.append(" ".join(w for w in words if w))
    return ", ".join(g for g in groups if g)


def _name_word(word: str) -> str:
    """The name in a name-number such as "COVID-19" or "F-16": a word acronym as a word, capitals spelled."""
    if word in _WORD_ACRONYMS:
        return word.capitalize()
    return _spell_letters(word) if word.isupper() else word


def _n11(m: re.Match, lang: str) -> str:
    """Three-digit service numbers (911, 411, 311...) are said digit by digit: "nine one one"."""
    return digits(m.group(0), lang)


def _leading_zero(m: re.Match, lang: str) -> str:
    """A digit string that starts with 0 is an identifier, never a quantity: "0987" -> "zero nine eight
    seven" (a cardinal would drop the zero)."""
    return digits(m.group(0), lang)


def _percent(m: re.Match, lang: str) -> str:
    return f"{_number_words(m.group(1), lang)} {_WORDS[lang]['percent']}"


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
        if agreement.noun_gender(noun, lang) == "m" and noun not in ("de", "del", "y", "o"):
            return re.sub(r"(prim|terc)ero$", r"\1er", words)  # "el primer piso", "el tercer día"
    return words


def _unit(m: re.Match, lang: str) -> str:
    num, unit = m.group("num"), m.group("unit")
    one, many = _UNITS[lang][unit]
    name = one if _plural_is_one(num) else many
    if lang == "en" and _attributive(m):
        name = one  # "a 2L soda": "a two liter soda", a compound adjective
    if unit.endswith(".") and ends_sentence(m):
        name += "."  # "1,5 Std." at the end: the abbreviation's dot is also the full stop
    return f"{_counting(_number_words(num, lang), num, lang, name.split()[0], m)} {name}"


def _german_decade(m: re.Match, lang: str) -> str:
    """ "90er Jahre" -> "neunziger Jahre": the decade's adjective (it was "neunzig er")."""
    return cardinal(int(m.group(1)), lang) + "er"  # "80er-Jahre": the hyphen goes with the match


def _decade(m: re.Match, lang: str) -> str:
    n = int(m.group(1))
    words = year(n, lang) if n >= 1000 else cardinal(n, lang)
    # "nineteen ninety" -> "nineteen nineties", "eighty" -> "eighties"
    return words[:-1] + "ies" if words.endswith("y") else words + "s"


# Words after which a four-digit number is a year: "in 2024", "since 1999", "the 2024 election".
_YEAR_CUE = re.compile(
    r"\b(?:in|since|from|until|till|through|by|of|during|before|after|circa|year|summer|spring|fall|autumn|"
    r"winter|the|this|that|their|our|your|its|his|her|early|late|mid|class|vintage)\s*$"
    r"|\b(?:" + "|".join(_MONTHS["en"]) + r")\.?,?\s*$",
    re.IGNORECASE,
)
# German: "im Jahr 1999", "seit 1999", "von 1990 bis 1999"; a capitalised word after it is what it counts.
_YEAR_CUE_DE = re.compile(
    r"\b(?:Jahr|Jahre|Jahres|im|seit|bis|ab|von|vor|nach|um|Anfang|Ende|Mitte|Sommer|Winter|Frühjahr|Herbst)\s*$"
    r"|\b(?:" + "|".join(_MONTHS["de"]) + r")\s*$"
)


def _year(m: re.Match, lang: str) -> str:
    """A four-digit number from 1100 to 2099: a year or a count?

    Rule (English): it is a year ("nineteen eighty four") when a year cue comes before it (`_YEAR_CUE`: "in",
    "since", "by", a month, a determiner as in "the 2024 election"...), or when no lowercase word follows it
    ("Born 1984.", "1984, a novel"). Otherwise it counts the word after it and is a cardinal: "2024 calls"
    -> "two thousand and twenty four calls", and also "1984 was..." (no cue; say "In 1984" or "the year 1984").
    """
    n = int(m.group(0))
    before = m.string[max(0, m.start() - 20) : m.start()]
    after = m.string[m.end() :]
    if lang == "de":  # German years up to 1999 are read in hundreds: "neunzehnhundertneunundneunzig"
        if n < 2000 and (_YEAR_CUE_DE.search(before) or not re.match(r"\s+[A-ZÄÖÜ]", after)):
            return year(n, lang)
        return _number(m, lang)
    if _YEAR_CUE.search(before) or not re.match(r"\s+[a-z]", after):
        return year(n, lang)
    return cardinal(n, lang)


def _long_digits(m: re.Match, lang: str) -> str:
    return digits(m.group(0), lang)


def _number(m: re.Match, lang: str) -> str:
    words = _number_words(m.group(0), lang)
    return _counting(words, m.group(0), lang, agreement.counted_noun(m.string, m.end(), lang), m)


# Words before a dashed number that make it an identifier or a phone number, not a range ("order 1234-5678",
# "Llame al 555-1234", "Room 5-201").
_ID_CUE = re.compile(
    r"\b(?:room|model|item|flight|gate|platform|line|tel|phone|call|dial|fax|"
    r"pedido|c[oó]digo|n[uú]mero|tel[eé]fono|llame|llamar|habitaci[oó]n|vuelo|"
    r"nummer|bestellung|telefon|anrufen|zimmer|flug|"
    r"num[eé]ro|commande|t[eé]l[eé]phone|appelez|chambre|vol)\b\.?\s*(?:#|:|no\.?|nr\.?|al)?\s*$",
    re.IGNORECASE,
)
_HOURS_CUE = re.compile(
    r"\b(?:open|hours(?:\s+are)?|available|daily|weekdays|weekends|m\s?[-–/]\s?f|abierto|abre|horario|geöffnet|"
    r"öffnungszeiten|ouvert|horaires|"
    # after the days they apply to: "Mon-Fri 9-5", "Sat 10-4", "lunes a viernes 9-14", "Mo.-Fr. 9-17"
    r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?|"
    r"lunes|martes|miércoles|jueves|viernes|sábado|domingo|"
    r"montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|mo|di|mi|do|fr|sa|so|"
    r"lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)\b\W*$",
    re.IGNORECASE,
)
# "between 2-3 pm": "between two and three".
_BETWEEN = {"en": "between", "es": "entre", "de": "zwischen", "fr": "entre"}


def is_range(lo: int, hi: int, before: str, lang: str) -> bool:
    """Whether "lo-hi" is a range: rising, of like size (not a phone number "555-1234" or an identifier
    "1234-5678"), and not after a word that names an identifier. Scores ("3-1"), sums ("15-7"), year-months
    ("2024-03") do not rise or do not match in size and keep their dash."""
    if _CODE_CUE.search(before) or _ID_CUE.search(before):
        return False
    if hi <= lo:  # a score or a sum keeps its dash; opening hours fall ("open 9-5")
        return hi < lo <= 12 and _HOURS_CUE.search(before) is not None
    if lang == "en" and re.search(r"[^\s.!?]\s+[A-Z][a-z]*\s*$", before):
        return False  # after a name inside a sentence: a model or a room ("Boeing 737-800", "Gate B 5-7")
    if len(str(hi)) - len(str(lo)) > 1:
        return False
    if (len(str(lo)), len(str(hi))) == (3, 4):  # a phone number, unless round ("100-1000")
        return lo % 100 == 0 and hi % 100 == 0
    if len(str(lo)) == 4:  # round amounts ("1200-1500 sq ft"); years are `_year_range`'s
        return lo % 100 == 0 and hi % 100 == 0
    return True


def _year_range(m: re.Match, lang: str) -> str | None:
    """ "1990-1995" -> "nineteen ninety to nineteen ninety five", "the 2024-25 season" -> "... to twenty
    five"; a falling pair or one after an identifier's cue ("Invoice 2024-0012") is no range."""
    y1, y2 = int(m.group("y1")), m.group("y2")
    full = int(y2) if len(y2) == 4 else y1 - y1 % 100 + int(y2)
    before = m.string[max(0, m.start() - 40) : m.start()]
    if full <= y1 or full - y1 > 99 or _CODE_CUE.search(before) or _ID_CUE.search(before):
        return None
    second = year(full, lang) if len(y2) == 4 else cardinal(int(y2), lang)
    return f"{year(y1, lang)} {_WORDS[lang]['to']} {second}"


_BETWEEN_AND = {"en": "and", "es": "y", "de": "und", "fr": "et"}
# "del 3-5 de mayo" -> "del tres al cinco", "du 3-5 mai" -> "du trois au cinq"
_CONTRACTED_LINK = {("es", "del"): "al", ("fr", "du"): "au"}


def _range_link(m: re.Match, lang: str, contract: bool = True) -> str:
    """The word a range's dash is read as: "to", "a", "bis", "à"; "and" after "between"; with `contract`
    (days and counts, not times or amounts) "al"/"au" after Spanish "del" / French "du"."""
    prev = agreement.previous_words(m.string, m.start(), n=1)
    if prev == [_BETWEEN[lang]]:
        return _BETWEEN_AND[lang]
    link = _WORDS[lang]["to"]
    return _CONTRACTED_LINK.get((lang, prev[0] if prev else ""), link) if contract else link


# Words before a pair of numbers that make it a score, said "three to two" (the dash was a pause).
_SCORE_CUE = re.compile(
    r"\b(?:score|scored|won|win|wins|lost|lose|loses|beat|beats|ended|finished|final|lead|leads|leading|"
    r"trailing|defeated|tied|drew)\b(?:\s+(?:was|is|at|by|with|the\s+game))?\s*:?\s*$",
    re.IGNORECASE,
)


def _range(m: re.Match, lang: str) -> str | None:
    """The first number of a range and the word for the dash: "three to", "uno a", "ein bis", "une à"; the
    second number is read by its own rule (a unit, a currency...). Years are read together: "nineteen ninety
    to nineteen ninety five"."""
    lo, hi = int(m.group("lo")), int(m.group("hi"))
    before = m.string[max(0, m.start() - 40) : m.start()]
    if lang == "en" and hi <= lo < 1000 and _SCORE_CUE.search(before):
        return f"{cardinal(lo, lang)} to"  # a score: "The game ended 3-2" -> "three to two"
    if not is_range(lo, hi, before, lang):
        return None
    link = _range_link(m, lang)
    words = _number_words(str(lo), lang)
    if lang != "en":
        noun = agreement.counted_noun(m.string, m.end("hi"), lang)
        words_before = agreement.previous_words(m.string, m.start(), numbers=lang == "de")
        words = agreement.count_form(words, lo, noun, lang, words_before, ranged=True)
    return f"{words} {link}"


def _amount(text: str, lang: str) -> float:
    """The value of a written amount: "1,250.5" (English) or "1.250,5" / "1 250,5" (es, de, fr)."""
    if lang == "en":
        return float(text.replace(",", ""))
    return float(re.sub(r"[.\s]", "", text).replace(",", "."))


def _number_range(m: re.Match, lang: str) -> str | None:
    """A range with a decimal or grouped number: "2.5-3 kg" -> "two point five to", "1,000-2,000" -> "one
    thousand to"; the second number is read by its own rule. Plain integers are `_range`'s (which declines
    phone numbers and identifiers, so this rule does too)."""
    lo, hi = m.group("lo"), m.group("hi")
    if (lo + hi).isdigit():
        return None
    before = m.string[max(0, m.start() - 40) : m.start()]
    if _CODE_CUE.search(before) or _ID_CUE.search(before) or not _amount(lo, lang) < _amount(hi, lang):
        return None
    return f"{_number_words(lo, lang)} {_range_link(m, lang)}"


def _time_range(m: re.Match, lang: str) -> str:
    """The first time of a span and its dash: "9am-5pm" -> "nine a.m. to", "9:00-18:00 Uhr" -> "neun Uhr bis",
    "9h-17h" -> "neuf heures à" (not "moins"); the second time is read by its own rule. Times may fall
    ("10pm-2am"): two times joined by a dash are always a span."""
    # "9.00-18.00 Uhr": alone, "9.00" is no time
    first = re.sub(r"^(\d{1,2})\.(\d\d)$", r"\1:\2", m.group("a"))
    second_has_ampm = re.match(r"\d{1,2}(?::\d\d)?\s?[aApP]\.?\s?[mM]", m.string[m.end() :])
    if lang == "en" and re.fullmatch(r"\d{1,2}:00", first) and second_has_ampm:
        # "2:00-4:00 PM": the first hour shares the second's am/pm; alone it would be "two o'clock"
        first = first[:-3]
    return f"{normalize(first, lang)} {_range_link(m, lang, contract=False)}"


def _currency_range(m: re.Match, lang: str) -> str | None:
    """ "$10-$20" / "$5-10 per month" / "10-20 €" -> "ten to twenty dollars": whole amounts name the
    currency once, after the second; amounts with cents are read in full on both sides."""
    g = m.groupdict()
    sym = g["sym"] or g["sym_after"]
    lo, hi = g["lo"] or g["lo_after"], g["hi"] or g["hi_after"]
    if g.get("lo_scale"):  # "$10k-$15k": "ten to fifteen thousand dollars", when both have the scale
        if not hi.lower().endswith(g["lo_scale"].lower()):
            return None
        if not _amount(lo, lang) < _amount(re.match(r"[\d.,\s]*\d", hi).group(0), lang):
            return None
        return f"{_number_words(lo, lang)} {_range_link(m, lang, contract=False)} {normalize(f'{sym}{hi}', lang)}"
    if not _amount(lo, lang) < _amount(re.match(r"[\d.,\s]*\d", hi).group(0), lang):
        return None
    if g["sym"]:
        first, second = f"{sym}{lo}", f"{sym}{hi}"
    else:
        first, second = f"{lo} {sym}", f"{hi} {sym}"
    link = _range_link(m, lang, contract=False)
    dec_sep = "." if lang == "en" else ","
    if dec_sep in lo and len(lo.rsplit(dec_sep, 1)[1]) == 2:  # cents: "ten dollars and fifty cents to"
        return f"{normalize(first, lang)} {link} {normalize(second, lang)}"
    words = _number_words(lo, lang)  # "$1.5-2M": "one point five to two million dollars"
    if lang != "en" and lo.isdigit():
        noun = _currency_names(sym, lang)[1].split()[0]
        words = agreement.count_form(
            words, int(lo), noun, lang, agreement.previous_words(m.string, m.start()), ranged=True
        )
    return f"{words} {link} {normalize(second, lang)}"


@cache
def _weekdays(lang: str) -> dict[str, str]:
    """Written weekday -> its full name, from CLDR (Babel): full and abbreviated, with or without the
    abbreviation's dot, as CLDR writes it and capitalised ("Mon" / "lun." / "Lun" / "Mo")."""
    from babel.dates import get_day_names

    full = get_day_names("wide", locale=lang)
    names: dict[str, str] = {}
    for width in ("wide", "abbreviated"):
        for context in ("format", "stand-alone"):
            for i, name in get_day_names(width, context=context, locale=lang).items():
                for form in (name, name.rstrip(".")):
                    names[form] = names[form[:1].upper() + form[1:]] = full[i]
    return names


@cache
def _weekday_dash(lang: str) -> re.Pattern:
    """An en dash between two weekdays ("Mon–Fri", "Mo.–Fr."): it joins a range, where between other words
    it is a pause."""
    days = _alt(_weekdays(lang))
    return re.compile(rf"(?<![\w-])((?:{days})\.?)\s?[\u2013\u2012]\s?(?=(?:{days})(?!\w))")


def _weekday_range(m: re.Match, lang: str) -> str | None:
    """ "Mon-Fri" -> "Monday to Friday", "Mo.-Fr." -> "Montag bis Freitag", "lun-vie" -> "lunes a viernes",
    "lundi-vendredi" -> "lundi au vendredi"."""
    days = _weekdays(lang)
    if days[m.group("d1")] == days[m.group("d2")]:  # "So-So": no range
        return None
    link = _range_link(m, lang)
    if lang == "fr" and link == "à":
        link = "au"
    dotted = m.group("d2").endswith(".") or m.groupdict().get("dot2")
    stop = "." if dotted and ends_sentence(m) else ""  # "Mo.-Fr." ends a sentence
    return f"{days[m.group('d1')]} {link} {days[m.group('d2')]}{stop}"


def _german_date_range(m: re.Match, lang: str) -> str | None:
    """ "vom 3.-5. Mai" -> "vom dritten bis fünften Mai", "3.-5. Mai" -> "dritter bis fünfter Mai": both
    days take the ending of the phrase before the first."""
    lo, hi = int(m.group("lo")), int(m.group("hi"))
    month = _month_index(m.group("mon"), lang)
    if month is None or not (_valid_date(lo, month) and _valid_date(hi, month)) or hi <= lo:
        return None
    before = agreement.previous_words(m.string, m.start())
    days = [ordinals.german_ordinal(ordinal(d, lang), before, date=True) for d in (lo, hi)]
    yr = f" {year(int(m.group('yr')), lang)}" if m.group("yr") else ""
    return f"{days[0]} {_range_link(m, lang)} {days[1]} {_MONTHS[lang][month - 1]}{yr}"


def _per(m: re.Match, lang: str) -> str:
    """ "/month" -> "per month", "/user/month" -> "per user per month", "/hr. plus" -> "per hour plus"."""
    per = _WORDS[lang]["per"]
    return " ".join(f"{per} {_PER[lang][w.strip().rstrip('.').lower()]}" for w in m.group(0).split("/")[1:])


def _counting(words: str, written: str, lang: str, noun: str, m: re.Match | None = None) -> str:
    """An integer's words in the form they take before the noun they count ("una noche", "eine Stunde")."""
    if lang == "en" or not re.fullmatch(r"\d{1,3}(?:[.\u202f ]\d{3})*|\d+", written):
        return words
    # German reads a count's digits before it too: a second conjunct takes the first count's case.
    before = agreement.previous_words(m.string, m.start(), numbers=lang == "de") if m is not None else []
    ranged = m is not None and agreement.range_end(m.string, m.end(), lang) is not None
    return agreement.count_form(words, _int(written), noun, lang, before, ranged)


# Words after which an English "3/4" is a date (March fourth), not three quarters.
_DATE_CUE = re.compile(
    r"\b(?:on|by|until|till|since|from|through|thru|due|before|after|starting|effective|expires?|dated|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thurs|fri|sat|sun)"
    r"\.?,?\s*$",
    re.IGNORECASE,
)


def _duration(m: re.Match, lang: str) -> str | None:
    """Hours and minutes written short: "2h 45m" -> "two hours forty five minutes" (the "m" was meters), "1h30"
    -> "one hour thirty" (it was "one H three zero")."""
    hours, minutes = int(m.group("h")), int(m.group("min"))
    if minutes > 59:
        return None
    said = f"{cardinal(hours, lang)} {'hour' if hours == 1 else 'hours'} {cardinal(minutes, lang)}"
    return said + (f" {'minute' if minutes == 1 else 'minutes'}" if m.group("unit") else "")


# "exp." and "expiry" name a card's date; "expires" and "valid thru" only after "card" ("the offer expires 12/25",
# "valid through 12/31" are days)
_PHONE_CUE_EN = re.compile(
    r"\b(?:number|phone|call|dial|tel|text|fax|line|reach\s+(?:us|me)\s+at|at)\b\.?(?:\s+is)?\s*:?\s*$", re.I
)


def _phone_spaced(m: re.Match, lang: str) -> str | None:
    """ "The number is 555 1234": seven digits in a group of three and one of four, after a phone's cue, are a
    local number (they were "five hundred and fifty five twelve thirty four")."""
    if not _PHONE_CUE_EN.search(m.string[max(0, m.start() - 30) : m.start()]):
        return None
    return ", ".join(digits(g, lang) for g in m.group(0).split())


_EXPIRY_CUE = re.compile(
    r"(?:\b(?:exp\.?|expiry|expiration(?:\s+date)?)|\bcard\b.{0,30}\b(?:expir(?:es|ing)|valid\s+(?:thru|through|until)))"
    r"\s*:?\s*$",
    re.IGNORECASE,
)


def _card_expiry(m: re.Match, lang: str) -> str | None:
    """A card's expiry, month and two-digit year after "expires" or "valid thru": "08/27" -> "August twenty
    twenty seven" (it was read as a day, "August twenty seventh")."""
    if not _EXPIRY_CUE.search(m.string[max(0, m.start() - 50) : m.start()]):
        return None
    return f"{_MONTHS[lang][int(m.group(1)) - 1]} {year(2000 + int(m.group(2)), lang)}"


_RATING_BEFORE = frozenset("rated rating ratings score scored scores review reviews graded grade".split())
_RATING_AFTER = frozenset("stars star points rating review".split())


def _rating(m: re.Match, lang: str) -> str | None:
    """A score out of 5, 10 or 100 after "rated", "score"... or before "stars": "Rated 4.5/5 stars" -> "four point
    five out of five stars" (it was "four point five five stars"), "Your score is 98/100" -> "ninety eight out
    of one hundred". Elsewhere "4/5" is a fraction or a date."""
    before = agreement.previous_words(m.string, m.start(), 3)
    after = agreement.next_word(m.string, m.end()).lower()
    if not (set(w.lower() for w in before) & _RATING_BEFORE or after in _RATING_AFTER):
        return None
    score, scale = m.group(1), int(m.group(2))
    if float(score) > scale:
        return None
    return f"{_number_words(score, lang)} out of {cardinal(scale, lang)}"


def _month_day(m: re.Match, lang: str) -> str | None:
    """A day and a month written with a slash, after a date cue: English "on 3/4" -> "on March fourth"
    (month first, as US dates are written; `_DATE_CUE`), Spanish and French "el 3/4" -> "el tres de abril",
    "jusqu'au 15/12" (day first; `_DATE_CUE_EU`). Without a cue, or before what a fraction counts ("of", a
    plural noun, "de"/"des"), it is `_fraction`'s ("3/4 cup", "el 1/3 de los invitados")."""
    if lang != "en":
        day, month = int(m.group(1)), int(m.group(2))
        fraction = 0 < day < month <= 10  # what a fraction is written as: without a cue, "14/03" is a date
        if (day, month) == (24, 7) or not _valid_date(day, month):
            return None
        if fraction and not _DATE_CUE_EU[lang].search(m.string[max(0, m.start() - 16) : m.start()]):
            return None
        if fraction and agreement.next_word(m.string, m.end()) in ("de", "del", "des", "du", "d"):
            return None
        return _day_month_year(day, month, None, lang)
    month, day = int(m.group(1)), int(m.group(2))
    if (month, day) == (9, 11):
        return f"{cardinal(9, lang)} {cardinal(11, lang)}"  # "since 9/11": the day's name
    cue = _DATE_CUE.search(m.string[max(0, m.start() - 24) : m.start()])
    # Without a cue, what no fraction is written as is a date ("Appointment date: 3/14", "12/5"); "3/4" and
    # "1/2" stay fractions, "24/7" a phrase.
    fraction = 0 < month < day <= 10
    if not _valid_date(day, month) or (cue is None and (fraction or (month, day) == (24, 7))):
        return None
    after = agreement.next_word(m.string, m.end())
    if after == "of" or (after.endswith("s") and after not in _NOT_PLURALS):
        return None  # "on 9/10 devices", "on 1/2 of the items": a fraction
    if cue is not None and cue.group(0).split()[0].lower().rstrip(".,") in _AMOUNT_CUES and month < day <= 4:
        return None  # "cut by 1/3", "from 1/4 to 1/2": a half, a third or a quarter
    return _day_month_year(day, month, None, lang)


# Words in -s after a date that are no plural noun ("on 3/4 this year", "due 5/12 as agreed").
_NOT_PLURALS = frozenset("is was has this his its as us yes thus plus".split())
# Cues that also go before amounts: after them only a date that cannot be a half, third or quarter.
_AMOUNT_CUES = frozenset({"by", "from", "through", "thru", "before", "after"})


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
    name = _english_fraction_name(num, den)
    if num == 1:
        before = agreement.previous_words(m.string, m.start(), 1)
        if before and before[-1] in _ARTICLES["en"]:
            return name  # "a 1/2 hour": "a half hour", "the 1/4 mile": "the quarter mile"
        after = agreement.next_word(m.string, m.end())
        if den in (2, 4) and after.isalpha() and after.islower() and after not in _NOT_COUNTED["en"]:
            return f"a {name}"  # "1/2 cup": "a half cup" ("1/2 of the items" stays "one half of")
    return f"{cardinal(num, lang)} {name}"


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


# Weekdays written short where a date, a time, another day or a dash follows ("Fri, Dec 20", "Sat & Sun",
# "auf Fr., 7.11."): espeak-ng reads "Fri" as "fry" and "Sat" as "sat", and German "Fr." was "Frau".
_SHORT_WEEKDAYS = {
    "en": {"Mon": "Monday", "Tue": "Tuesday", "Tues": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday",
           "Thur": "Thursday", "Thurs": "Thursday", "Fri": "Friday", "Sat": "Saturday", "Sun": "Sunday"},
    "es": {"lun": "lunes", "mar": "martes", "mié": "miércoles", "jue": "jueves", "vie": "viernes", "sáb": "sábado",
           "dom": "domingo"},
    "de": {"Mo": "Montag", "Di": "Dienstag", "Mi": "Mittwoch", "Do": "Donnerstag", "Fr": "Freitag",
           "Sa": "Samstag", "So": "Sonntag"},
    "fr": {"lun": "lundi", "mar": "mardi", "mer": "mercredi", "jeu": "jeudi", "ven": "vendredi", "sam": "samedi",
           "dim": "dimanche"},
}  # fmt: skip


def _weekday_short(m: re.Match, lang: str) -> str:
    day = _SHORT_WEEKDAYS[lang][m.group("day") or m.group("after") or m.group("after2")]
    if m.string[m.end() : m.end() + 1] == "/":  # "Tue/Thu" -> "Tuesday and Thursday"
        return f"{day} {_WORDS[lang]['and']}"
    return day


# US states in an address: after a city and its comma, before a ZIP code, a comma or the end ("Springfield, IL
# 62704" -> "Illinois"; it was spelled "I.L.").
_US_STATES = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California", "CO": "Colorado",
    "CT": "Connecticut", "DE": "Delaware", "FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho",
    "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana",
    "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota",
    "MS": "Mississippi", "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada",
    "NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York", "NC": "North Carolina",
    "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania",
    "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota", "TN": "Tennessee", "TX": "Texas",
    "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington", "WV": "West Virginia",
    "WI": "Wisconsin", "WY": "Wyoming", "DC": "D.C.",
}  # fmt: skip


def _us_state(m: re.Match, lang: str) -> str | None:
    """A state's code after a city: the word before the comma is capitalized ("Springfield, IL"); "That's fine,
    OK." is no state."""
    city = re.search(r"\b[A-Z][\w'-]*,\s*$", m.string[max(0, m.start() - 40) : m.start()])
    return _US_STATES[m.group("st")] if city else None


_COMPOUND_ABBR = {"min": "minute", "mins": "minute", "hr": "hour", "hrs": "hour", "sec": "second", "yr": "year",
                  "mo": "month", "wk": "week", "mi": "mile", "km": "kilometer", "lb": "pound", "oz": "ounce",
                  "ft": "foot", "in": "inch", "gal": "gallon", "sq": "square"}  # fmt: skip


def _compound(m: re.Match, lang: str) -> str | None:
    """A number joined to words by hyphens, a compound adjective: "4-digit" -> "four digit", "a 10-year-old"
    -> "a ten year old", "2-for-1" -> "two for one" (they were read as codes, "four, D.I.G.I.T."); German joins
    the number to its word: "4-stellige" -> "vierstellige", "30-minütiges" -> "dreißigminütiges". A part in
    capitals ("1-800-FLOWERS", "3-ABC") is a code's; a German noun follows the number as a word ("3-Zimmer-Wohnung"
    -> "drei Zimmer-Wohnung")."""
    parts = m.group(0).split("-")
    words = [p for p in parts if not p.isdigit()]
    if any(w.isupper() and len(w) > 1 for w in words):
        return None
    parts = [_COMPOUND_ABBR.get(p, p) if lang == "en" else p for p in parts]  # "15-min drive": "minute"
    if lang == "de":
        if len(parts) == 2 and parts[1].islower():
            return cardinal(int(parts[0]), lang) + parts[1]
        return f"{cardinal(int(parts[0]), lang)} {'-'.join(parts[1:])}"  # "drei Zimmer-Wohnung"
    return " ".join(cardinal(int(p), lang) if p.isdigit() else p for p in parts)


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
# Spanish and French write a day and a month with a slash too: after an article or a preposition of time
# ("el 3/4", "le 3/4", "hasta el 15/12") it is a date, day first; elsewhere a fraction ("3/4 de los clientes").
_DATE_CUE_EU = {
    "es": re.compile(r"\b(?:el|del|al|hasta\s+el|desde\s+el|día)\s*$", re.IGNORECASE),
    "fr": re.compile(r"\b(?:le|du|au|jusqu'au|depuis\s+le|jour)\s*$", re.IGNORECASE),
}


_DOT = {"en": "dot", "es": "punto", "de": "Punkt", "fr": "point"}

# Words after which "2.10" names a version or a section, not an amount: "version 2.10" is "two point ten".
VERSION_CUE = re.compile(
    r"(?:\b(?:version|versions|versión|versiones|ver|v|release|build|firmware|update|patch|iOS|iPadOS|macOS|"
    r"Android|Python|Java|Node|Windows|Ubuntu|Debian|Kapitel|Abschnitt|Absatz|Punkt|section|chapter|"
    r"sección|capítulo|apartado|chapitre|article|art)\.?|§)\s*$",
    re.IGNORECASE,
)


# Words after which "9.30" is a clock time in es/de/fr ("um 9.30", "a las 10.30", "à 10.30").
_DOTTED_TIME_CUE = {
    "es": re.compile(r"\b(?:las|la|desde\s+las|hasta\s+las)\s*$", re.IGNORECASE),
    "de": re.compile(r"\b(?:um|gegen|ab|bis|von|Punkt|ca\.?|circa)\s*$", re.IGNORECASE),
    "fr": re.compile(r"\b(?:à|vers|dès|jusqu'à|de)\s*$", re.IGNORECASE),
}


def dotted_kind(parts: list[str]) -> str:
    """What numbers joined by dots are, read from the numbers alone: "ip" (four parts of at most 255),
    "phone" (three parts or more, seven digits or more: "555.867.5309", "01.23.45.67.89"; a version has fewer
    digits) or "version"."""
    if len(parts) == 4 and all(int(p) <= 255 for p in parts):
        return "ip"
    if len(parts) > 2 and sum(map(len, parts)) >= 7:
        return "phone"
    return "version"


def _dotted(m: re.Match, lang: str) -> str | None:
    """Numbers joined by dots that are no decimal: a version ("3.12.1" -> "three point twelve point one")
    or a network address ("192.168.1.1" -> "one nine two dot one six eight dot one dot one").

    Rule: three or more parts are always dotted (a group of thousands in es/de/fr, "1.234.567", is left to
    the number rule); two parts are dotted where a dot is no decimal point (es/de/fr: "Version 2.10" had
    been read as a sentence's end, "zwei. zehn"), and in English after a version or section cue
    (`VERSION_CUE`), where "2.10" would otherwise be the decimal "two point one zero". Four parts of at most
    255 without such a cue are an IPv4 address, read digit by digit with "dot"."""
    text = m.group(0)
    parts = text.split(".")
    before = m.string[max(0, m.start() - 24) : m.start()]
    cued = VERSION_CUE.search(before) is not None
    if lang != "en" and re.fullmatch(r"\d{1,3}(?:\.\d{3})+", text):
        return None  # "9.000", "1.234.567": thousands
    if len(parts) == 2 and lang == "en" and not cued:
        return None  # "2.10": the decimal
    if len(parts) == 2 and lang != "en" and _DOTTED_TIME_CUE[lang].search(before):
        h, mi = parts
        if len(mi) == 2 and int(h) <= 23 and int(mi) <= 59:
            return _clock_words(int(h), int(mi), lang)  # "um 9.30" -> "neun Uhr dreißig", "a las 10.30"
    kind = dotted_kind(parts)
    if kind == "ip" and not cued:
        return f" {_DOT[lang]} ".join(digits(p, lang) for p in parts)
    if kind == "phone":
        return None  # the phone rule's
    word = _WORDS["en"]["point"] if lang == "en" else _DOT[lang]
    return f" {word} ".join(
        digits(p, lang) if p.startswith("0") and p != "0" else cardinal(int(p), lang) for p in parts
    )


# German words after which "8.10." is a time, not the eighth of October ("bis 8.10." stays a date).
_CLOCK_ONLY_DE = re.compile(r"\b(?:um|gegen|Punkt|ca\.?|circa)\s*$", re.IGNORECASE)


def _german_day_month(m: re.Match, lang: str) -> str | None:
    """German "am 24.12." -> "am vierundzwanzigsten Dezember": a day and a month each with its ordinal dot
    and no year (with a year, "24.12.2024", it is `slash_date`). After a version or section cue it is a
    number ("Kapitel 2.10." -> `_dotted`)."""
    day, month = int(m.group("d")), int(m.group("m"))
    before = m.string[max(0, m.start() - 24) : m.start()]
    if not _valid_date(day, month) or VERSION_CUE.search(before) or _CLOCK_ONLY_DE.search(before):
        return None  # "Kapitel 2.10.", "um 8.10." (a time)
    spoken = _day_month_year(day, month, None, lang, _date_context(m))
    # The second dot is also the full stop at the end of the text (German capitalises nouns, so a capital
    # after it says nothing).
    return spoken + ("." if not m.string[m.end() :].strip() else "")


def spoken_address(text: str, words: dict[str, str], digit: Callable[[int], str]) -> str:
    """An e-mail or web address as it is said: "jane.doe@example.com" -> "jane dot doe at example dot com".
    `words` names ".", "@" and "/" (a "," is a pause); digits are said one by one with `digit`; the scheme
    and a closing slash are not said, and "-" and "_" are spaces."""
    text = re.sub(r"^https?://", "", text, flags=re.IGNORECASE).rstrip("/")
    said = []
    for part in re.split(r"([.@/])", text):
        if part in words:
            said.append(words[part])
        elif part:
            spaced = part.replace("-", " ").replace("_", " ")
            said.append(re.sub(r"\d", lambda d: f" {digit(int(d.group(0)))} ", spaced))
    return re.sub(r"\s+,", ",", " ".join(" ".join(said).split()))


def _address(m: re.Match, lang: str) -> str:
    return spoken_address(
        m.group(0), {".": _DOT[lang], "@": _SYMBOLS[lang]["@"], "/": "slash"}, lambda d: cardinal(d, lang)
    )


def _street_context(m: re.Match) -> bool:
    """True when an abbreviation such as "St." or "Dr." ends a street name: it follows a capitalized word
    that is not the first of its sentence, or a house number ("12 Elm Dr."), or no capitalized word
    follows it. "St. Louis", "Call Dr. Smith" -> title; "Main St.", "Elm Dr. Then..." -> street."""
    if not m.group("next"):
        return True
    before = m.string[: m.start()]
    prev = re.search(r"(?:^|([.!?]\s+)|\s)([A-Z][\w']*|\d+\w*)\s+$", before)
    if prev is None:
        return False
    sentence_start = prev.start(2) == 0 or prev.group(1) is not None
    if prev.group(2).isdigit():
        return False  # right after a house number a name follows: "9 St. Mark's Place" is Saint
    return prev.group(2)[0].isdigit() or not sentence_start


def _street_end(m: re.Match) -> str:
    # A capital after "Elm Dr." (or the end of the text) means its period also ended the sentence.
    return "." if m.group("next") or not m.string[m.end() :].strip() else ""


# Street types written short without their period ("88 Lake St, Chicago", "Pennsylvania Ave NW"): after a
# capitalized name, before a comma, the end, a compass point or a unit. espeak-ng read "St" as "Saint", "Dr"
# as "doctor", "Ave" as "ah-vay", and spelled "Blvd" and "Rd".
_STREET_TYPES = {"St": "Street", "Ave": "Avenue", "Blvd": "Boulevard", "Rd": "Road", "Ln": "Lane", "Ct": "Court",
                 "Dr": "Drive", "Hwy": "Highway", "Pkwy": "Parkway", "Pl": "Place", "Ter": "Terrace",
                 "Cir": "Circle", "Sq": "Square"}  # fmt: skip
_COMPASS = {"N": "North", "S": "South", "E": "East", "W": "West", "NE": "Northeast", "NW": "Northwest",
            "SE": "Southeast", "SW": "Southwest"}  # fmt: skip
_UNITS_OF_ADDRESS = {"Apt": "Apartment", "Ste": "Suite", "Suite": "Suite", "Unit": "Unit", "Rm": "Room"}


# Words after a length that it does not qualify ("6 feet long", "65 inches and ..."): the plural stays.
_NOT_MEASURED = frozenset(
    "and or but long wide tall high deep thick of in on at to with by from for is was are were apart away "
    "across across taller shorter longer wider".split()
)


_FLIGHT_ROOM_CUE = re.compile(
    r"\b(?:flight|room|rm)\.?\s+(?:[A-Z]{2}\s?|[A-Z]\d\s?)?(?:#\s?|number\s+)?$", re.I
)


def _number_pair(n: int, lang: str) -> str:
    return "hundred" if n == 0 else f"oh {cardinal(n, lang)}" if n < 10 else cardinal(n, lang)


def _flight_room(m: re.Match, lang: str) -> str | None:
    """A flight's or a room's number is said in pairs, whatever follows it: "flight UA 1234 departs" ->
    "twelve thirty four" (it was "one thousand two hundred and thirty four" before a word), "room 1412" ->
    "fourteen twelve", "room 405" -> "four oh five"."""
    if not _FLIGHT_ROOM_CUE.search(m.string[max(0, m.start() - 30) : m.start()]):
        return None
    text = m.group(0)
    return f"{cardinal(int(text[:-2]), lang)} {_number_pair(int(text[-2:]), lang)}"


_BP_CUE = re.compile(r"\b(?:blood\s+pressure|bp|b\.p\.)\b[^.]{0,20}$", re.IGNORECASE)


def _blood_pressure(m: re.Match, lang: str) -> str | None:
    """ "Your blood pressure was 120/80" -> "one twenty over eighty" (it was "one hundred and twenty eighty")."""
    if not _BP_CUE.search(m.string[max(0, m.start() - 40) : m.start()]):
        return None

    def said(n: int) -> str:
        return cardinal(n, lang) if n < 100 else f"{cardinal(n // 100, lang)} {_number_pair(n % 100, lang)}"

    return f"{said(int(m.group(1)))} over {said(int(m.group(2)))}"


def _military(m: re.Match, lang: str) -> str:
    """ "at 0900" -> "oh nine hundred", "at 0730" -> "oh seven thirty"."""
    return f"oh {cardinal(int(m.group(1)), lang)} {_number_pair(int(m.group(2)), lang)}"


def _feet_inches(m: re.Match, lang: str) -> str | None:
    """Feet and inches written with their marks: 6'2" -> "six foot two", 6' -> "six feet", 65" -> "sixty five
    inches" (the marks were dropped or read as quotes). A lower-case noun after it makes it an adjective:
    a 65" TV -> "a sixty five inch TV"."""
    after = agreement.next_word(m.string, m.end())
    attributive = (after[:1].islower() and after not in _NOT_MEASURED) or (len(after) > 1 and after.isupper())
    if m.group("only"):
        n = m.group("only")
        return f"{_number_words(n, lang)} {'inch' if attributive or n == '1' else 'inches'}"
    feet, inches = int(m.group("ft")), m.group("inch")
    if inches:
        return f"{cardinal(feet, lang)} foot {cardinal(int(inches), lang)}"
    return f"{cardinal(feet, lang)} {'foot' if attributive or feet == 1 else 'feet'}"


def _street_type(m: re.Match, lang: str) -> str:
    compass = m.group("compass")
    return _STREET_TYPES[m.group("type")] + (f" {_COMPASS[compass]}" if compass else "")


def _compass_street(m: re.Match, lang: str) -> str:
    return _COMPASS[m.group("point")]


def _address_unit(m: re.Match, lang: str) -> str:
    """ "Apt 4B", "Apt #12", "Suite #200" -> "Apartment four B", "Apartment twelve", "Suite two hundred"."""
    number, letter = m.group("n"), m.group("letter") or ""
    said = (
        cardinal(int(number), lang)
        if len(number) <= 4 and not number.startswith("0")
        else digits(number, lang)
    )
    return f"{_UNITS_OF_ADDRESS[m.group('unit')]} {said}" + (f" {letter}" if letter else "")


def _saint_street(m: re.Match, lang: str) -> str:
    return "Street" + _street_end(m) if _street_context(m) else "Saint"


def _doctor_drive(m: re.Match, lang: str) -> str:
    return "Drive" + _street_end(m) if _street_context(m) else "Doctor"


# All-capital words said as words, not letter by letter; and words often written in capitals for stress.
_WORD_ACRONYMS = {
    "NASA", "NATO", "NASDAQ", "ZIP", "PIN", "SIM", "GIF", "JPEG", "LASER", "RADAR", "SCUBA", "UNESCO", "UNICEF",
    "FEMA", "OPEC", "COVID", "AIDS", "IKEA", "SWAT", "NAFTA", "FIFA", "SARS", "ASCII", "RAM", "ROM", "LAN",
    "WIFI", "DOS", "CAPTCHA", "YAML", "JSON", "OSHA", "HIPAA",
}  # fmt: skip
_SHOUTED = {
    "NO", "NOT", "STOP", "NOW", "YES", "ALL", "NEW", "FREE", "AND", "OR", "THE", "FOR", "YOU", "WE", "IS", "ARE",
    "DO", "DON'T", "GO", "ME", "MY", "HI", "SO", "TO", "IN", "ON", "AT", "BE", "IF", "UP", "OUT", "NEVER",
    "HELP", "SALE", "CALL", "NOTE", "WARNING", "ONLY", "VERY", "BIG", "HOT", "OFF", "OUR", "HOW", "WHY",
}  # fmt: skip
_ROMAN = re.compile(r"X{0,3}(?:IX|IV|V?I{0,3})")


def _initialism(m: re.Match, lang: str) -> str | None:
    """An all-capital word of 2 to 5 letters is spelled letter by letter ("FBI" -> "F.B.I.", "ETA" ->
    "E.T.A."), unless it is an acronym said as a word (`_WORD_ACRONYMS`: "NASA" -> "Nasa"), a roman numeral
    ("World War II"), a word often capitalized for stress (`_SHOUTED`: "STOP"), or the whole text is in
    capitals (shouting, not initialisms)."""
    word = m.group(0)
    if word in _WORD_ACRONYMS:
        return word.capitalize()
    if word == "OK":
        return "okay"
    if word in _SHOUTED or _ROMAN.fullmatch(word):
        return None
    letters = [c for c in m.string if c.isalpha()]
    if len(m.string.split()) >= 3 and not any(c.islower() for c in letters):
        return None
    return _spell_letters(word)


# --- rule table -----------------------------------------------------------------------------------

Handler = Callable[[re.Match, str], str | None]


@dataclass(frozen=True)
class _Rule:
    name: str
    pattern: re.Pattern
    handler: Handler


def _alt(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def _currency_alt(lang: str) -> str:
    """The currency symbols, and the ISO codes as whole words ("EUR" but not the "EUR" of "EURO")."""
    return (
        _alt(_CURRENCIES[lang])
        + "|"
        + "|".join(rf"(?<![A-Za-z]){c}(?![A-Za-z])" for c in _ISO_CURRENCY_CODES)
    )


@cache
def _rules(lang: str) -> tuple[_Rule, ...]:
    num_en = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
    num_eu = r"\d{1,3}(?:[.\u202f ]\d{3})+(?:,\d+)?|\d+(?:,\d+)?"
    num = num_en if lang == "en" else num_eu
    syms = _currency_alt(lang)
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
        "es": r"(?:\.?º|\.?ª|\.?o|\.?a|\.?er)",  # "1.º", "1.er" (primer, tercer: the RAE's short forms)
        "de": r"\.(?=\s+\w)",
        "fr": r"(?:er|re|e|ème|eme)",
    }[lang]
    abbr = {k: v for k, v in _ABBREVIATIONS[lang].items()}
    # Scale words after an amount ("$5 million", "$3bn") are English spellings.
    scale_words = r"thousand|million|billion|trillion|bn|mn|[kKmMbBtT]"
    scale = rf"(?:\s?(?P<scale>{scale_words})\b)?" if lang == "en" else ""
    scale_text = (
        rf"(?:\s?(?:{scale_words})\b)?" if lang == "en" else ""
    )  # the same, in a span's second amount
    lo_scale = r"(?P<lo_scale>[kKmMbB])?" if lang == "en" else ""  # "$10k-$15k": the first amount's scale
    # German and Spanish also write "14.30 Uhr", "9.30 h": a dot before two digits is a time when the hours'
    # word follows it, or follows the second time of a span ("9.00-18.00 Uhr")
    hours_word = {"de": r"\s?Uhr\b", "es": r"\s?h\b"}.get(lang, "(?!)")
    dotted_time_end = rf"{hours_word}|\s?[-–]\s?\d{{1,2}}\.\d{{2}}{hours_word}"
    time_item = {
        "en": r"\d{1,2}(?::\d{2})?\s?[aApP]\.?\s?[mM]\.?(?!\w)|\d{1,2}:\d{2}(?![\d:])|(?i:noon|midnight)\b",
        "es": rf"\d{{1,2}}:\d{{2}}(?![\d:])|\d{{1,2}}\.\d{{2}}(?={dotted_time_end})",
        "de": rf"\d{{1,2}}:\d{{2}}(?![\d:])|\d{{1,2}}\.\d{{2}}(?={dotted_time_end})",
        "fr": r"\d{1,2}(?::\d{2}(?![\d:])|\s?h(?:\s?\d{2})?(?!\w))",
    }[lang]
    # an hour alone before a time with am/pm shares its am/pm: "12-1pm" -> "twelve to one p.m." (it was "one
    # two, one p.m.")
    bare_hour = (
        r"|\d{1,2}(?=\s?[-–]\s?\d{1,2}(?::\d{2})?\s?[aApP]\.?\s?[mM]\.?(?!\w))" if lang == "en" else ""
    )
    weekdays = _alt(_weekdays(lang))
    en_dot = r"\.?" if lang == "en" else ""  # "Mon.-Fri.": English abbreviations written with a dot
    table: list[tuple[str, str, Handler]] = [
        (
            "address",
            r"(?:https?://)?[\w+-]+(?:\.[\w+-]+)*@[\w-]+(?:\.[\w-]+)+"
            # a path's last dot is the sentence's ("Visit www.example.com/help.")
            r"|(?:https?://|www\.)[\w-]+(?:\.[\w-]+)+(?:/[\w-]+(?:\.[\w-]+)*)*/?"
            r"|(?<![\w.@])[a-z][\w-]*(?:\.[\w-]+)*\.(?:com|org|net|io|edu|gov|de|fr|es|uk)\b",
            _address,
        ),
        # Spans whose two ends are amounts or times: "$10-$20", "9am-5pm", "9h-17h" (before the rules that
        # would read each end alone and the dash as a pause or a minus).
        (
            "currency_range",
            rf"(?<![\w.,])(?:(?P<sym>{syms})\s?(?P<lo>{num}){lo_scale}\s?[-–]\s?(?:(?:{syms})\s?)?(?P<hi>{num}{scale_text})"
            rf"|(?P<lo_after>{num})\s?(?:(?:{syms})\s?)?[-–]\s?(?P<hi_after>{num})\s?(?P<sym_after>{syms}))"
            r"(?![\w.,]\d|\w|\s?%)",  # "$20-30% off" is a discount, not an amount
            _currency_range,
        ),
        (
            "time_range",
            rf"(?<![\w.,:])(?P<a>{time_item}{bare_hour})\s?[-–]\s?(?={time_item})",
            _time_range,
        ),
        # not in a chain of days ("Mon-Wed-Fri" stays three days)
        (
            "weekday_range",
            rf"(?<![\w-])(?P<d1>{weekdays}){en_dot}\s?[-–]\s?(?P<d2>{weekdays})(?P<dot2>{en_dot})(?!\w|\s?[-–]\s?\w)",
            _weekday_range,
        ),
        *(
            [
                (
                    "date_range",
                    rf"(?<![\w.])(?P<lo>\d{{1,2}})\.\s?[-–]\s?(?P<hi>\d{{1,2}})\.\s+(?P<mon>{months})"
                    r"(?:\s+(?P<yr>\d{4})\b)?",
                    _german_date_range,
                )
            ]
            if lang == "de"
            else []
        ),
        (
            "currency",
            # a minus before the amount or its sign is said: "-$23.17", "$-23.17", "-23,17 €" (the sign was a
            # pause, or the euro was lost to the number rule)
            rf"(?P<neg>(?<![\w.,])[-\u2212](?=[^\s\d]|\d))?"
            rf"(?:(?P<sym>{syms})\s?(?P<neg2>[-\u2212])?(?P<amt>{num}){scale}|(?P<amt2>{num})\s?(?P<sym2>{syms}))"
            # "$95 USD": the code after the sign is the same currency, said once
            r"(?:\s(?:USD|EUR|GBP)\b)?",
            _currency,
        ),
        *(
            [
                # "24h/24, 7j/7": around the clock, every day ("vingt-quatre h vingt-quatre" before)
                (
                    "sur",
                    r"(?<![\w/])(\d{1,2})(h|j)/(\d{1,2})(?![\w/])",
                    lambda m, lg: (
                        f"{cardinal(int(m.group(1)), lg)} {'heures' if m.group(2) == 'h' else 'jours'} sur "
                        f"{cardinal(int(m.group(3)), lg)}"
                    ),
                )
            ]
            if lang == "fr"
            else []
        ),
        *(
            [
                # "1.299,- €": whole euros written with a dash for the cents (the euro was lost)
                (
                    "whole_euros",
                    r"(?<![\w.,])(?P<amt>\d{1,3}(?:\.\d{3})*|\d+),-\s?(?:€|EUR\b|Euro\b)",
                    lambda m, lg: _money("€", m.group("amt"), "", m, lg),
                )
            ]
            if lang == "de"
            else []
        ),
        *(
            # "3 x 10 Minuten": times ("drei x zehn" before; English has its own "times" and "by")
            [("times_x", r"(?<=\d) [x×] (?=\d)", lambda m, lg: f" {_SYMBOLS[lg]['×']} ")]
            if lang != "en"
            else []
        ),
        (
            "currency_word",
            rf"(?<![\w.,])(?P<amt>\d{{1,3}}(?:{re.escape(',' if lang == 'en' else '.')}\d{{3}})*"
            rf"{re.escape('.' if lang == 'en' else ',')}\d\d)\s(?P<name>(?i:{_alt(_CURRENCY_BY_NAME[lang])}))\b",
            _currency_word,
        ),
        ("iso_date", r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)", _iso_date),
        (
            "slash_date",
            r"(?<![\d/])(\d{1,2})[/.](\d{1,2})[/.](\d{4}|\d{2})(?![\d/])"
            r"|(?<![\d-])(\d{1,2})-(\d{1,2})-(\d{4})(?![\d-])",
            _slash_date,
        ),
        (
            "month_date",
            rf"(?P<mon>{months})\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b"
            # English days of a range: "Dec 20-23", "March 3rd-5th", "Nov 7 - Nov 9"
            + (
                rf"(?:\s?[-–]\s?(?:(?P<mon3>{months})\s+)?(?P<end>\d{{1,2}})(?:st|nd|rd|th)?\b)?"
                if lang == "en"
                else ""
            )
            + rf"(?:,?\s+(?P<yr>\d{{4}})\b)?"
            rf"|(?P<day2>\d{{1,2}})(?:st|nd|rd|th|\.|er)?\s+(?:de\s+)?(?P<mon2>{months})"
            rf"(?:,?\s+(?:de\s+)?(?P<yr2>\d{{4}})\b)?",
            _month_name_date,
        ),
        # German "15:30 Uhr" is read "fünfzehn Uhr dreißig": the written "Uhr" is part of the time.
        (
            "time",
            r"(?<![\d:])(?P<h>\d{1,2})"
            + (r"(?::|\s?h\s?)" if lang == "fr" else rf"(?::|\.(?=\d\d(?:{dotted_time_end})))")  # fr 14h30
            + r"(?P<min>\d{2})(?![\d:])(?:\s*(?P<ampm>[aApP]\.?\s?[mM]\.?)(?!\w))?"
            + (
                r"(?:\s+Uhr\b)?"
                if lang == "de"
                else r"(?:\s+(?P<noon>noon|midnight)\b)?"
                if lang == "en"
                else r"(?:\s?(?:h|hrs?|horas)\b)?"  # "18:00 h": the hours' sign is read in the time
                if lang == "es"
                else ""
            ),
            _time,
        ),
        *(
            [("time_hour", r"(?<![\w:.,])(?P<h>\d{1,2})\s?(?P<ampm>[aApP]\.?\s?[mM]\.?)(?![\w])", _time_hour)]
            if lang == "en"
            else []
        ),
        *(
            [("day_month", r"(?<![\w.,])(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?!\d)", _german_day_month)]
            if lang == "de"
            else []
        ),
        # versions and addresses: before the phone rule, which takes dots between groups of digits
        (
            "dotted",
            r"(?<![\w.,])\d{1,4}(?:\.\d{1,4})+(?![\w]|\.\d)"
            # "1.5 kg", "update 1.25 million records": the unit's, the amount's
            + rf"(?!\s?(?:%|{units}(?![\w/])|{syms}|(?i:thousand|million|billion|trillion)\b))",
            _dotted,
        ),
        *(
            [
                (
                    "vanity",
                    r"(?<![\w.,-])(?:\+?1[-. ])?\(?8(?:00|33|44|55|66|77|88)\)?[-. ]"
                    r"(?:\d{3}[-. ])?(?=[A-Z0-9-]*[A-Z]{3})[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*(?![\w-])",
                    _vanity,
                )
            ]
            if lang == "en"
            else []
        ),
        (
            "phone",
            r"(?<![\w.,])\+?(?:(?:\d{1,3}[-. ]?)?\(\d{1,4}\)\s?|\d{1,4}[-. ])(?:\d{2,4}[-. ]){1,3}\d{2,4}"
            r"(?:(?P<extword>,?\s*(?:ext\.?|x|extension)\s?)(?P<ext>\d{1,6}))?(?!\w|[.,]\d)"
            # an international number: a country code after "+", then groups of any length ("+49 30 12345678")
            + r"|(?<![\w+])\+\d{1,3}(?:[- ]\(?0?\)?\d{1,10}){2,5}(?!\w|[.,]\d)"
            # 555-0142 (a round "100-1000" is a range)
            + r"|(?<![\w.,-])(?!\d00-\d000(?!\d))\d{3}-\d{4}(?!\w|[.,-]\d)"
            # an area code with its leading zero, then the number in one group: "030 1234567", "02/123456"
            + r"|(?<![\w.,-])0\d{1,4}\s?[-/ ]\s?\d{5,8}(?!\w|[.,-]\d)"
            # written without groups: a North American number (area code and exchange start with 2-9),
            # a Spanish one (nine digits from 6 to 9)
            + (
                rf"|(?<![\w.,-])(?P<ungrouped>{_UNGROUPED_PHONE[lang]})(?!\w|[.,]\d)"
                if lang in _UNGROUPED_PHONE
                else ""
            ),
            _phone,
        ),
        # "3-5 days", "9-5", "10–20 %": the first number and the dash; the second is read by its own rule.
        (
            "year_range",
            r"(?<![\w.,/+*=-])(?P<y1>1[1-9]\d\d|20\d\d)\s?[-–]\s?(?P<y2>1[1-9]\d\d|20\d\d|\d\d)(?![\d-]|[.,]\d)",
            _year_range,
        ),
        (
            "range",
            r"(?<![\w.,/+*=-])(?P<lo>[1-9]\d{0,3})\s?[-–]\s?(?=(?P<hi>[1-9]\d{0,3})(?![\d-]|[.,]\d|\s*=))",
            _range,
        ),
        (
            "number_range",
            rf"(?<![\w.,/+*=-])(?P<lo>{num})\s?[-–]\s?(?=(?P<hi>{num})(?![\w-]|[.,]\d|\s*=))",
            _number_range,
        ),
        *(
            [
                (
                    "compound",
                    r"(?<![\w.,-])\d{1,4}(?:-(?:[^\W\d_]+|\d{1,4}))*-[^\W\d_]+(?:-(?:[^\W\d_]+|\d{1,4}))*(?![\w-])",
                    _compound,
                )
            ]
            if lang in ("en", "de")
            else []
        ),
        (
            "weekday_short",
            rf"(?<![\w.])(?P<day>{_alt(_SHORT_WEEKDAYS[lang])})\.?"
            rf"(?=,?\s*(?:\d|(?:{months})\b|&|/|and\b|und\b|(?:at|um|à|a\s+las)\s+\d))"
            rf"|(?<=[&/] )(?P<after>{_alt(_SHORT_WEEKDAYS[lang])})\b|(?<=[&/])(?P<after2>{_alt(_SHORT_WEEKDAYS[lang])})\b",
            _weekday_short,
        ),
        (
            "mixed_fraction",
            r"(?<![\w.,/])(?P<whole>\d{1,6})(?:\s?(?P<glyph>[\u00bd\u00bc\u00be])"
            r"|[ \u00a0](?P<num>[1-9])/(?P<den>\d{1,2})(?![\d/]))"
            rf"(?:[ \u00a0]?(?P<unit>{units})(?![\w/])|[ \u00a0](?P<noun>[^\W\d_]+)\b)?",
            _mixed_fraction,
        ),
        *(
            [
                (
                    "duration",
                    r"(?<![\w.,:])(?P<h>\d{1,3})\s?h(?:rs?)?\s?(?P<min>\d{1,2})(?P<unit>\s?m(?:ins?|inutes?)?)?(?![\w:])",
                    _duration,
                )
            ]
            if lang == "en"
            else []
        ),
        # inch and foot marks after a number: 65" -> "sixty five inches", 6'2" -> "six foot two"
        *(
            [
                (
                    "feet_inches",
                    r"(?<![\w.\"“'‘])(?P<ft>\d{1,2})['’](?:\s?(?P<inch>\d{1,2})(?:\"|”|'')?)?(?![\w'’])"
                    r"|(?<![\w.\"“'‘])(?P<only>\d{1,3}(?:\.\d)?)(?:\"|”|'')(?!\w)",
                    _feet_inches,
                )
            ]
            if lang == "en"
            else []
        ),
        *(
            [
                # a flight's or a room's number in pairs, as it is said: "flight UA 1234" -> "twelve thirty four"
                ("flight_room", r"(?<![\w.,])\d{3,4}(?![\w]|[.,]\d)", _flight_room),
                # "401(k)", "403(b)": the plans' names, digit by digit
                (
                    "plan_name",
                    r"\b(40[13])\(([kb])\)",
                    lambda m, lg: f"four oh {m.group(1)[2] == '1' and 'one' or 'three'} {m.group(2).upper()}",
                ),
                # "FY2024": the fiscal year
                (
                    "fiscal_year",
                    r"\bFY\s?(\d{4}|\d{2})\b",
                    lambda m, lg: "F.Y. " + year(int(m.group(1)) + (2000 if len(m.group(1)) == 2 else 0), lg),
                ),
                # "v3.0.4": a version
                (
                    "version_v",
                    r"\bv(\d+(?:\.\d+)+)\b(?!\.\d)",
                    lambda m, lg: (
                        "version " + " point ".join(cardinal(int(p), lg) for p in m.group(1).split("."))
                    ),
                ),
                # "10K steps": a number of thousands said with its letter
                (
                    "thousands_k",
                    r"(?<![\w.$€£¥])(\d{1,3})K\b",
                    lambda m, lg: f"{cardinal(int(m.group(1)), lg)} K",
                ),
                # "1.5x faster", "2x points": times; "12 x 10 x 8": by
                (
                    "times",
                    r"(?<![\w.])(\d+(?:\.\d+)?)x(?=\s+[a-z])",
                    lambda m, lg: f"{_number_words(m.group(1), lg)} times",
                ),
                ("by", r"(?<=\d)(?:\s[x×]\s|[x×])(?=\d)", lambda m, lg: " by "),
                # "M-F": the work week
                ("work_week", r"\bM\s?[-–/]\s?F\b", lambda m, lg: "Monday to Friday"),
                # "120/80" after blood pressure: "one twenty over eighty"
                ("blood_pressure", r"(?<![\d/])(\d{2,3})/(\d{2,3})(?![\d/])", _blood_pressure),
                # "at 0900": a time of the 24-hour clock with its leading zero
                ("military", r"(?<=\bat )0([0-9])([0-5]\d)\b", _military),
            ]
            if lang == "en"
            else []
        ),
        ("per", rf"(?<=[\d%€$£¥kKmM])(?:\s?/\s?(?i:{_alt(_PER[lang])})\b(?:\.(?=\s+[a-zäöüéèàç]))?)+", _per),
        # "19.99%-29.99%": the first of two percentages and the dash ("minus" before)
        (
            "percent_range",
            rf"(?<![\w.,])(?P<lo>{num})\s?%\s?[-–]\s?(?=(?:{num})\s?%)",
            lambda m, lg: f"{_number_words(m.group('lo'), lg)} {_range_link(m, lg, contract=False)}",
        ),
        ("percent", rf"(-?(?:{num}))\s?%", _percent),
        ("ordinal", rf"\b(\d{{1,9}}){ordinal_suffix}(?!\w)", _ordinal),
        *([("decade", r"(?<![\w.'])'?(\d{1,3}0)'?s\b", _decade)] if lang == "en" else []),
        *(
            [("decade", r"(?<![\w.'])(\d?[1-9]0)er(-?)(?=\s?[A-ZÄÖÜ]|-)", _german_decade)]
            if lang == "de"
            else []
        ),
        ("unit", rf"(?P<num>-?(?:{num}))\s?(?P<unit>{units})(?![\w/])", _unit),
        *(
            [("rating", r"(?<![\d/.,])(\d{1,3}(?:\.\d{1,2})?)\s?/\s?(5|10|100)(?![\d/]|[.,]\d)", _rating)]
            if lang == "en"
            else []
        ),
        *(
            [("phone_spaced", r"(?<![\w.,-])\d{3} \d{4}(?![\w]|[.,-]?\d)", _phone_spaced)]
            if lang == "en"
            else []
        ),
        *(
            [("card_expiry", r"(?<![\d/])(0?[1-9]|1[0-2])/(\d\d)(?![\d/])", _card_expiry)]
            if lang == "en"
            else []
        ),
        *([("month_day", r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])", _month_day)] if lang != "de" else []),
        (
            "fraction",
            rf"(?<![\d/])(\d{{1,2}})/(\d{{1,2}})(?![\d/])(?:[ \u00a0]?(?P<unit>{units})(?![\w/]))?",
            _fraction,
        ),
        ("long_digits", rf"\d{{{_MAX_CARDINAL_DIGITS + 1},}}", _long_digits),
    ]
    if lang == "en":
        table += [
            # a code shown in groups after its cue ("Your OTP is 739 204"): every group digit by digit
            ("spaced_code", r"(?<![\w.@/$€£¥-])\d{3,4}(?: \d{3,4}){1,2}(?![\w@/]|[.,]\d)", _spaced_code),
            (
                "code",
                r"(?<![\w.@/$€£¥-])(?=[A-Za-z-]*\d)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![\w@/]|[.,]\d)",
                _code,
            ),
            ("n11", r"(?<![\w.,$€£¥-])(?:[2-9]11|988)(?![\w%]|[.,]\d)", _n11),  # 911, 411, the 988 line
        ]
    else:
        table += [
            # an IBAN: its country, check digits and groups, character by character, a pause per group
            ("iban", r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b", _eu_code),
            # letters and digits in one token ("ABC123", "1Z999AA10123456784"): spelled, digit by digit
            (
                "alnum_code",
                r"(?<![\w.@/$€£¥-])(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{3,}(?![\w@/]|[.,]\d)",
                _eu_code,
            ),
            ("identifier", r"(?<![\w.,/$€£¥-])\d+(?![\w@/%]|[.,]\d|\s?(?:€|\$|£|¥))", _identifier),
        ]
    table.append(("leading_zero", r"(?<![\w.,])0\d+(?![\w]|[.,]\d)", _leading_zero))
    if lang in ("en", "de"):
        table.append(("year", r"(?<![\d])(?<!\d[.,])(?:1[1-9]\d\d|20\d\d)(?!\d|%|[.,]\d)", _year))
    table += [
        ("number", rf"(?<![\w.])-?(?:{num})|(?:{num})", _number),
    ]
    if lang == "en":
        street_types, compass = _alt(_STREET_TYPES), _alt(_COMPASS)
        table.append(
            (
                "street_type",
                rf"(?<=[A-Z][a-z] |[a-z]{{2}} )(?<![.!?] )(?P<type>{street_types})(?![\w.])"
                rf"(?:\s(?P<compass>{compass})\b(?!\.\w))?(?=\s*(?:,|$|\.\s|\.$|\s(?:{_alt(_UNITS_OF_ADDRESS)})\b|\s#))",
                _street_type,
            )
        )
        table.append(
            (
                "rate_words",
                r"\b(?P<what>days|times|hours|nights|visits|meals|classes|sessions|shifts)/(?P<per>week|wk|month|mo|"
                r"day|year|yr)\b",
                lambda m, lg: (
                    f"{m.group('what')} a {_PER[lg][m.group('per')]}"
                ),  # "3 days/week": "three days a week"
            )
        )
        table.append(
            (
                "us_state",
                rf"(?<=[a-z], )(?P<st>{_alt(_US_STATES)})(?=,?\s+\d{{5}}(?:-\d{{4}})?\b|\s*[.,]?\s*$|,)",
                _us_state,
            )
        )
        table.append(("compass_street", r"(?<=\d )(?P<point>[NSEW])\.(?=\s+[A-Z][a-z])", _compass_street))
        table.append(
            (
                "address_unit",
                rf"\b(?P<unit>{_alt(_UNITS_OF_ADDRESS)})\.?\s?#?\s?(?P<n>\d{{1,6}})(?P<letter>[A-Z])?(?![\w-])",
                _address_unit,
            )
        )
        table.append(("saint_street", r"\bSt\.(?=(?P<next>\s+[A-Z]))?", _saint_street))
        table.append(("doctor_drive", r"\bDr\.(?=(?P<next>\s+[A-Z]))?", _doctor_drive))
        table.append(("initialism", r"(?<![\w.'-])[A-Z]{2,5}(?![\w']|-[A-Za-z]|\.[A-Za-z])", _initialism))
        table.append(("number_abbr", r"\b[Nn]o\.(?=\s?\d)", lambda m, lg: "number"))
    table += [
        ("abbreviation", rf"(?<!\w)(?:{_alt(abbr)})(?!\w)", lambda m, lg, _a=abbr: _abbrev(m, lg, _a)),
        # a markdown heading's marks are not said ("### Next steps" was "number number number Next steps")
        # and neither is a bullet's "*" or "+" ("* First item")
        ("heading", r"(?:^|(?<=\n))[ \t]*(?:#{1,6}|[*+])(?=[ \t]+\S)", lambda m, lg: " "),
        # a phone key on its own ("Press # to repeat, * to go back"): its name, not "number" or nothing
        ("key", r"(?<![\w#*])(?<!\d )(?P<key>[#*])(?P<code>\d{2,3}\b)?(?![\w#*]|\s?\d)", _key),
        ("symbol", rf"[{re.escape(''.join(_SYMBOLS[lang]))}]", lambda m, lg: f" {_SYMBOLS[lg][m.group(0)]} "),
    ]
    return tuple(_Rule(n, re.compile(p), h) for n, p, h in table)


def _abbrev(m: re.Match, lang: str, table: dict[str, str]) -> str:
    key = m.group(0)
    spoken = table[key]
    if key in _SENTENCE_FINAL[lang] and ends_sentence(m):
        spoken += "."
    return spoken


def ends_sentence(m: re.Match) -> bool:
    """True when the text after a match that ends in a period ends, or goes on with a capital (of any
    script: "г. Москва", "r. Źródło")."""
    rest = m.string[m.end() :]
    if not rest.strip():
        return True
    nxt = re.match(r"\s+(\w)", rest)
    return nxt is not None and nxt.group(1).isupper()


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
        text = _DIGIT_DASH.sub("-", text)  # "10–20" is a range, not a pause
        text = _weekday_dash(language).sub(r"\1-", text).translate(_TRANSLATE)  # "Mon–Fri" too
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
            # Every rule declined (e.g. "13/45" is no date): keep one character as plain text, or the
            # whole word when it starts with a letter ("STOP" is no initialism: it stays one word).
            end = m.start() + 1
            if text[m.start()].isalpha():
                end = re.compile(r"[^\W\d_]*").match(text, end).end()
            _add_text(segments, text[pos:end])
            pos = end
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
    joined = _SPACE_BEFORE_PUNCT.sub(r"\1", joined)
    # "the F.B.I." at the end of a sentence: its last dot is also the full stop, as in writing.
    return _INITIALISM_STOP.sub(r"\1", joined)


_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?])(?=\s|$)")
_INITIALISM_STOP = re.compile(r"(\b(?:[A-Za-z]\.){2,})\.(?!\.)")
