"""Addresses: house numbers, street types, compass points, apartment units and US states."""

from __future__ import annotations

import re
from collections.abc import Callable

from .abbreviations import _SYMBOLS
from .words import _DOT, _number_pair, _spell_letters, cardinal, digits, ends_sentence, pairs

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
    before = m.string[max(0, m.start() - 40) : m.start()]
    city = re.search(r"\b[A-Z][\w'-]*,\s*$", before)
    if (
        city
        and m.group("st") in ("MD", "DO", "PA")
        and re.search(r"\bDr\.?\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?,\s*$", before)
    ):
        return None  # "Dr. Nguyen, MD": a doctor's degree, spelled by the initialism rule
    return _US_STATES[m.group("st")] if city else None


def spoken_address(text: str, words: dict[str, str], digit: Callable[[int], str]) -> str:
    """An e-mail or web address as it is said: "jane.doe@example.com" -> "jane dot doe at example dot com".
    `words` names ".", "@" and "/" (a "," is a pause), and may name "_", "-" and "+", which someone writing the
    address down needs to hear, and a port's ":" and a query's "?", "=" and "&" ("john_smith+orders" -> "john underscore smith plus orders"; without a word
    they are spaces); digits are said one by one with `digit`; the scheme and a closing slash are not said."""
    text = re.sub(r"^https?://", "", text, flags=re.IGNORECASE).rstrip("/")
    said = []
    for part in re.split(r"([.@/:?=&])", text):
        if part in words:
            said.append(words[part])
        elif part:
            spaced = re.sub(r"[-_+]", lambda c: f" {words.get(c.group(0), '')} ", part)
            said.append(re.sub(r"\d", lambda d: f" {digit(int(d.group(0)))} ", spaced))
    return re.sub(r"\s+,", ",", " ".join(" ".join(said).split()))


def _address(m: re.Match, lang: str) -> str:
    words = {
        ".": _DOT[lang],
        "@": _SYMBOLS[lang]["@"],
        "/": "barra" if lang == "es" else "slash",  # German and French say "slash"
        "+": _SYMBOLS[lang]["+"],
        **_ADDRESS_MARKS[lang],
    }
    return spoken_address(m.group(0), words, lambda d: cardinal(d, lang))


# What "_", "-", a port's ":" and a query's "?", "=" and "&" are called when an address is read out.
_ADDRESS_MARKS = {
    "en": {"_": "underscore", "-": "dash", ":": "colon", "?": "question mark", "=": "equals", "&": "and"},
    "es": {"_": "guion bajo", "-": "guion", ":": "dos puntos", "?": "signo de interrogación", "=": "igual",
           "&": "y"},
    "de": {"_": "Unterstrich", "-": "Bindestrich", ":": "Doppelpunkt", "?": "Fragezeichen", "=": "gleich",
           "&": "und"},
    "fr": {"_": "tiret bas", "-": "tiret", ":": "deux-points", "?": "point d'interrogation", "=": "égal",
           "&": "et"},
}  # fmt: skip


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
    # A capital after "Elm Dr." (or the end of the text) means its period also ended the sentence, unless the
    # address goes on with a unit or a compass point ("12 Elm St. Apt. 4B", "Main St. NW").
    rest = m.string[m.end() :]
    if _ADDRESS_GOES_ON.match(rest):
        return ""
    return "." if m.group("next") or not rest.strip() else ""


# Street types written short without their period ("88 Lake St, Chicago", "Pennsylvania Ave NW"): after a
# capitalized name, before a comma, the end, a compass point or a unit. espeak-ng read "St" as "Saint", "Dr"
# as "doctor", "Ave" as "ah-vay", and spelled "Blvd" and "Rd".
_STREET_TYPES = {"St": "Street", "Ave": "Avenue", "Blvd": "Boulevard", "Rd": "Road", "Ln": "Lane", "Ct": "Court",
                 "Dr": "Drive", "Hwy": "Highway", "Pkwy": "Parkway", "Pl": "Place", "Ter": "Terrace",
                 "Cir": "Circle", "Sq": "Square"}  # fmt: skip


_COMPASS = {"N": "North", "S": "South", "E": "East", "W": "West", "NE": "Northeast", "NW": "Northwest",
            "SE": "Southeast", "SW": "Southwest"}  # fmt: skip


_UNITS_OF_ADDRESS = {"Apt": "Apartment", "Ste": "Suite", "Suite": "Suite", "Unit": "Unit", "Rm": "Room"}
_ADDRESS_GOES_ON = re.compile(
    rf"\s+(?:(?:{'|'.join(_UNITS_OF_ADDRESS)})\b|#\s?\d|(?:{'|'.join(_COMPASS)})(?![\w'-]|\.\s))"
)


# Street types written short with their period ("5th Ave.", "Oak Rd. Then left"); "St." and "Dr." have rules of
# their own (Saint, Doctor).
_STREET_ABBREVIATIONS = {"Ave.": "Avenue", "Rd.": "Road", "Blvd.": "Boulevard", "Ln.": "Lane", "Ct.": "Court",
                         "Hwy.": "Highway"}  # fmt: skip


def _street_abbreviation(m: re.Match, lang: str) -> str:
    """ "Oak Rd." -> "Oak Road", with the period when it also ends the sentence ("Oak Rd. Then left."), not
    when the address goes on ("Pennsylvania Ave. NW", "Elm Rd. Apt. 4")."""
    if _ADDRESS_GOES_ON.match(m.string, m.end()):
        return _STREET_ABBREVIATIONS[m.group(0)]
    return _STREET_ABBREVIATIONS[m.group(0)] + ("." if ends_sentence(m) else "")


# A street after a house number: up to three capitalized words and a street type, written out or short.
_STREET_NAME = (
    r"(?:(?:[A-Z][\w'-]*|\d{1,3}(?:st|nd|rd|th))\s+){1,3}"  # "Oak", "Martin Luther King", "5th"
    r"(?:St|Street|Ave|Avenue|Rd|Road|Blvd|Boulevard|Ln|Lane|Dr|Drive|Ct|Court|Way|Pl|Place|Pkwy|Parkway|Hwy"
    r"|Highway|Ter|Terrace|Cir|Circle|Sq|Square)\b"
)
_STREET_AHEAD = rf"(?=\s+(?:[NSEW]\.?\s+)?{_STREET_NAME})"


def _house_number(m: re.Match, lang: str) -> str:
    """A house number of three or four digits is said in pairs, as Americans say them: "2200 Industrial Blvd" ->
    "twenty two hundred", "4521 Oak St" -> "forty five twenty one", "350 5th Ave" -> "three fifty" (a round
    thousand stays "two thousand")."""
    n = int(m.group(0))
    return cardinal(n, lang) if n % 1000 == 0 else f"{cardinal(n // 100, lang)} {_number_pair(n % 100, lang)}"


def _german_street(m: re.Match, lang: str) -> str:
    """ "Goethestr. 12" -> "Goethestraße zwölf", "Karl-Marx-Str." -> "Karl-Marx-Straße"; a sentence's end
    keeps its period."""
    stop = "." if not re.match(r"\s*\d", m.string[m.end() :]) and ends_sentence(m, lang) else ""
    return f"{m.group('name')}{'Straße' if m.group('name').endswith('-') else 'straße'}{stop}"


def _postcode(m: re.Match, lang: str) -> str | None:
    """A postcode before its town, after a street (`_STREET_BEFORE_POSTCODE`) or at a line's start: digit by
    digit in German and Spanish ("Goethestr. 12, 10115 Berlin" -> "eins null eins eins fünf Berlin", "calle
    Alcalá 45, 28014 Madrid"), the département and then the digits in French ("rue de la Paix, 75002 Paris" ->
    "soixante-quinze zéro zéro deux"). Elsewhere five digits before a capital stay a number: German capitalizes
    its nouns ("12, 10115 Menschen")."""
    before = m.string[max(0, m.start() - 80) : m.start()]
    if before and not before.endswith("\n") and not _STREET_BEFORE_POSTCODE[lang].search(before):
        return None
    code = m.group(0)
    if lang == "fr":
        return f"{cardinal(int(code[:2]), lang)} {digits(code[2:], lang)}"
    return digits(code, lang)


# A street, its house number and what may follow them up to the comma before the postcode.
_STREET_BEFORE_POSTCODE = {
    "de": re.compile(
        r"(?:stra(?:ß|ss)e|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|markt)\s+\d+\s?[a-z]?,\s$",
        re.IGNORECASE,
    ),
    "es": re.compile(
        r"\b(?:calle|c/|avenida|avda\.|av\.|plaza|pza\.|paseo|camino|carretera|ronda|traves[ií]a|glorieta)\s"
        r"[^\n]{0,60}\d[^\n]{0,20},\s$",
        re.IGNORECASE,
    ),
    "fr": re.compile(
        r"\b(?:rue|avenue|av\.|boulevard|bd|place|chemin|all[ée]e|impasse|quai|route|cours)\s[^\n]{0,60},\s$",
        re.IGNORECASE,
    ),
}


def _street_type(m: re.Match, lang: str) -> str:
    compass = m.group("compass")
    return _STREET_TYPES[m.group("type")] + (f" {_COMPASS[compass]}" if compass else "")


def _compass_street(m: re.Match, lang: str) -> str:
    return _COMPASS[m.group("point")]


def _address_unit(m: re.Match, lang: str) -> str:
    """ "Apt 4B", "Apt #12", "Suite #200" -> "Apartment four B", "Apartment twelve", "Suite two hundred"."""
    number, letter = m.group("n"), m.group("letter") or ""
    unit = _UNITS_OF_ADDRESS[m.group("unit")]
    said = (
        digits(number, lang)
        if len(number) > 4 or number.startswith("0")
        # four digits, or a room's three, in pairs as they are said: "Rm. 1214" -> "Room twelve fourteen"
        else pairs(number, lang)
        if lang == "en" and (len(number) == 4 or (unit == "Room" and len(number) == 3))
        else cardinal(int(number), lang)
    )
    return f"{unit} {said}" + (f" {_spell_letters(letter)}" if letter else "")


def _saint_street(m: re.Match, lang: str) -> str:
    return "Street" + _street_end(m) if _street_context(m) else "Saint"


def _doctor_drive(m: re.Match, lang: str) -> str:
    return "Drive" + _street_end(m) if _street_context(m) else "Doctor"
