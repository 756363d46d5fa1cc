"""Addresses: house numbers, street types, compass points, apartment units and US states."""

from __future__ import annotations

import re
from collections.abc import Callable

from .abbreviations import _SYMBOLS
from .words import _DOT, cardinal, digits, ends_sentence

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
    # A capital after "Elm Dr." (or the end of the text) means its period also ended the sentence, unless the
    # address goes on with a unit or a compass point ("12 Elm St. Apt. 4B", "Main St. NW").
    rest = m.string[m.end() :]
    if re.match(_ADDRESS_GOES_ON, rest):
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


def _german_street(m: re.Match, lang: str) -> str:
    """ "Goethestr. 12" -> "Goethestraße zwölf", "Karl-Marx-Str." -> "Karl-Marx-Straße"; a sentence's end
    keeps its period."""
    stop = "." if not re.match(r"\s*\d", m.string[m.end() :]) and ends_sentence(m) else ""
    return f"{m.group('name')}{'Straße' if m.group('name').endswith('-') else 'straße'}{stop}"


def _german_postcode(m: re.Match, lang: str) -> str | None:
    """A postcode before its town ("Goethestr. 12, 10115 Berlin") is said digit by digit: after a street and
    its house number, or at a line's start (German nouns are capitalized too: "12, 10115 Menschen")."""
    before = m.string[max(0, m.start() - 60) : m.start()]
    if before and not before.endswith("\n") and not _GERMAN_STREET_BEFORE.search(before):
        return None
    return digits(m.group(0), lang)


_GERMAN_STREET_BEFORE = re.compile(
    r"(?:stra(?:ß|ss)e|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|markt)\s+\d+\s?[a-z]?,\s$",
    re.IGNORECASE,
)


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
