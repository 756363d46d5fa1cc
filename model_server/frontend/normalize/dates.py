"""Dates and times: numeric and written dates, clock times, years and decades, weekdays, durations, and
numbers with dots that may be a time, a date or a version."""

from __future__ import annotations

import re
from functools import cache

from .. import agreement, ordinals
from .words import (
    _DOT,
    _EN_MONTH_ABBR,
    _MONTH_ABBR_AFTER_DAY,
    _MONTHS,
    _WORDS,
    _number,
    _number_pair,
    cardinal,
    digits,
    ends_sentence,
    ordinal,
    year,
)


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
    written = g.get("mon") or g.get("mon2") or ""
    month_word = written.rstrip(".")
    day = int(g.get("day") or g.get("day2"))
    yr = g.get("yr") or g.get("yr2")
    month = _MONTH_ABBR_AFTER_DAY.get(lang, {}).get(written) or _month_index(month_word, lang)
    if month is None or not _valid_date(day, month):
        return None
    said = _day_month_year(day, month, int(yr) if yr else None, lang, _date_context(m))
    if written in _MONTH_ABBR_AFTER_DAY.get(lang, {}) and not yr and ends_sentence(m, lang):
        said += "."  # "le 12 sept.": the abbreviation's period also ends the sentence
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
    hour = "una" if h == 1 else "veintiuna" if h == 21 else cardinal(h, lang)  # "la hora" is feminine
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
    r"winter|the|this|that|their|our|your|its|his|her|early|late|mid|class|vintage|Q[1-4]|H[12]|FY)\s*$"
    r"|\b(?:" + "|".join(_MONTHS["en"]) + r")\.?,?\s*$",
    re.IGNORECASE,
)


# After "for", a year when a verb or a year's business follows ("the limit for 2025 is", "rates for 2026 plans").
_AFTER_YEAR = re.compile(
    r"\s+(?:is|are|was|were|will|would|has|have|had|and|or|but|only|remains?|starts?|begins?|ends?|at|in|on|to|"
    r"if|as|so|plans?|coverage|enrollment|benefits?|taxes|tax|filing|season|premiums?|rates?|budgets?|models?)\b"
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
    ("Born 1984.", "1984, a novel"), or after "for" when a verb or a year's business follows (`_AFTER_YEAR`:
    "the limit for 2025 is"). Otherwise it counts the word after it and is a cardinal: "2024 calls" -> "two
    thousand and twenty four calls", and also "1984 was..." (no cue; say "In 1984" or "the year 1984").
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
    if 1950 <= n <= 2049 and re.search(r"\bfor\s*$", before, re.I) and _AFTER_YEAR.match(after):
        return year(n, lang)  # "the limit for 2025 is" (but "for 2000 people" counts)
    return cardinal(n, lang)


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
    if cue is None and fraction and _in_date_list(m):
        cue = m  # "Dates: 3/10, 3/12 and 3/15": a list of dates is dates, its first item too
    if not _valid_date(day, month) or (cue is None and (fraction or (month, day) == (24, 7))):
        return None
    after = agreement.next_word(m.string, m.end())
    if after == "of" or (after.endswith("s") and after not in _NOT_PLURALS):
        return None  # "on 9/10 devices", "on 1/2 of the items": a fraction
    if cue is not None and cue.group(0).split()[0].lower().rstrip(".,") in _AMOUNT_CUES and month < day <= 4:
        return None  # "cut by 1/3", "from 1/4 to 1/2": a half, a third or a quarter
    return _day_month_year(day, month, None, lang)


_LIST_NEXT = re.compile(r"\s*(?:,|and\b|or\b|&)\s*(\d{1,2})/(\d{1,2})(?![\d/])")
_LIST_PREVIOUS = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})\s*(?:,|and|or|&)\s*$")


def _in_date_list(m: re.Match) -> bool:
    """Whether a month/day item stands in a list beside one that can only be a date (its day above 10)."""
    after = _LIST_NEXT.match(m.string, m.end())
    before = _LIST_PREVIOUS.search(m.string[max(0, m.start() - 12) : m.start()])
    if after is not None and agreement.next_word(m.string, after.end()) == "of":
        after = None  # "1/2, 3/4 or 12/5 of it": fractions
    for other in (after, before):
        if other is not None:
            month, day = int(other.group(1)), int(other.group(2))
            if _valid_date(day, month) and not 0 < month < day <= 10:
                return True
    return False


# Words in -s after a date that are no plural noun ("on 3/4 this year", "due 5/12 as agreed").
_NOT_PLURALS = frozenset("is was has this his its as us yes thus plus".split())


# Cues that also go before amounts: after them only a date that cannot be a half, third or quarter.
_AMOUNT_CUES = frozenset({"by", "from", "through", "thru", "before", "after"})


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
    day = _SHORT_WEEKDAYS[lang][m.group("day") or m.group("after") or m.group("after2") or m.group("after3")]
    if m.string[m.end() : m.end() + 1] == "/":  # "Tue/Thu" -> "Tuesday and Thursday"
        return f"{day} {_WORDS[lang]['and']}"
    return day


# The words that open and join a span of days: "du lun. au sam.", "von Mo. bis Sa.", "de lun. a sáb.", "from Mon.
# to Fri." (a dash between them is `ranges._weekday_range`'s).
_DAY_SPAN_WORDS = {
    "en": (("from",), ("to", "through", "thru", "till", "until")),
    "es": (("de", "del"), ("a", "al", "hasta")),
    "de": (("von",), ("bis",)),
    "fr": (("du", "de"), ("au", "à")),
}


def _weekday_span(m: re.Match, lang: str) -> str | None:
    """ "du lun. au sam." -> "du lundi au samedi": both days written short in a span said with words (the same
    day twice is none: "de mar a mar" is the sea)."""
    days = _SHORT_WEEKDAYS[lang]
    if m.group("d1") == m.group("d2"):
        return None
    stop = "." if m.group("dot2") and ends_sentence(m, lang) else ""
    return f"{days[m.group('d1')]} {m.group('link')} {days[m.group('d2')]}{stop}"


# Spanish and French write a day and a month with a slash too: after an article or a preposition of time
# ("el 3/4", "le 3/4", "hasta el 15/12") it is a date, day first; elsewhere a fraction ("3/4 de los clientes").
_DATE_CUE_EU = {
    "es": re.compile(r"\b(?:el|del|al|hasta\s+el|desde\s+el|día)\s*$", re.IGNORECASE),
    "fr": re.compile(r"\b(?:le|du|au|jusqu'au|depuis\s+le|jour)\s*$", re.IGNORECASE),
}


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
    text = m.group(0).lstrip("v")  # es/de/fr "v2.3.1": a version, its "v" not said
    parts = text.split(".")
    before = m.string[max(0, m.start() - 24) : m.start()]
    cued = VERSION_CUE.search(before) is not None or text != m.group(0)
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
    if kind == "phone" and not cued:
        return None  # the phone rule's ("build 10.0.19045" is a version: its cue says so)
    word = _WORDS["en"]["point"] if lang == "en" else _DOT[lang]
    return f" {word} ".join(
        digits(p, lang) if (p.startswith("0") and p != "0") or len(p) > 4 else cardinal(int(p), lang)
        for p in parts
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


def _military(m: re.Match, lang: str) -> str:
    """ "at 0900" -> "oh nine hundred", "at 0730" -> "oh seven thirty"."""
    return f"oh {cardinal(int(m.group(1)), lang)} {_number_pair(int(m.group(2)), lang)}"
