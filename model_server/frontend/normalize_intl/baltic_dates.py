"""Latvian and Lithuanian dates, years and dotted ordinals, said as ordinals in their case (`frontend.baltic`):

* Latvian "2024. gada 5. martā" -> "divi tūkstoši divdesmit ceturtā gada piektajā martā": the year's case is
  its word's ("gada", "gadā", "gads"), the day's its month's ("marts", "marta", "martam", "martā"); "3. stāvā"
  -> "trešajā stāvā" by the noun's ending;
* Lithuanian "2024 m. kovo 5 d." -> "du tūkstančiai dvidešimt ketvirtųjų metų kovo penktą dieną": "m." is
  "metų" before a month and "metais" ("in 2024") otherwise, a day is "penktą dieną" ("on the fifth"),
  "penktoji" after "šiandien" ("today is the fifth"), "penktosios dienos" after "iki", "nuo", "po".

Before, espeak-ng read cardinals, each dot as a full stop, and the Lithuanian "m." as metres."""

from __future__ import annotations

import re

from ..baltic import latvian_ordinal, lithuanian_ordinal

__all__ = [
    "LANGUAGES",
    "date",
    "day_ordinal",
    "latvian_days",
    "latvian_year",
    "lithuanian_day",
    "lithuanian_year",
    "pattern",
]

LANGUAGES = frozenset({"lv", "lt"})

# Latvian months by case: the first-declension ones ("marts") and the second's ("janvāris").
_LV_MONTH_STEMS = ("janvār", "februār", "mart", "aprīl", "maij", "jūnij", "jūlij", "august", "septembr",
                   "oktobr", "novembr", "decembr")  # fmt: skip
_LV_MONTHS = [*(f"{s}(?:is|a|im|i|ī)" for s in _LV_MONTH_STEMS if s in ("janvār", "februār", "aprīl", "septembr",
               "oktobr", "novembr", "decembr")), *(f"{s}(?:s|a|am|u|ā)" for s in ("mart", "maij", "jūnij", "jūlij",
               "august"))]  # fmt: skip
_LV_MONTH_NOMINATIVE = ("janvāris", "februāris", "marts", "aprīlis", "maijs", "jūnijs", "jūlijs", "augusts",
                        "septembris", "oktobris", "novembris", "decembris")  # fmt: skip
_LV_YEAR_WORDS = {"gads": "nominative", "gada": "genitive", "gadam": "dative", "gadu": "accusative",
                  "gadā": "locative"}  # fmt: skip
_LT_MONTHS = ("sausio", "vasario", "kovo", "balandžio", "gegužės", "birželio", "liepos", "rugpjūčio", "rugsėjo",
              "spalio", "lapkričio", "gruodžio")  # fmt: skip
# The beginnings of the Lithuanian months in any case ("kovo", "kovą", "kovas"): a year before one is "metų".
_LT_MONTH_STARTS = ("saus", "vasar", "kov", "baland", "gegu", "biržel", "liep", "rugpjū", "rugsėj", "spal",
                    "lapkri", "gruod")  # fmt: skip
_LT_YEAR_WORDS = {"metų": "genitive_plural", "metais": "locative_plural", "metai": "nominative_plural",
                  "metus": "accusative_plural"}  # fmt: skip
# Words after which a Lithuanian day or year is in the genitive ("iki kovo penktosios dienos", "nuo ... metų"),
# and after which a day is nominative ("šiandien kovo penktoji").
_LT_GENITIVE_BEFORE = frozenset("iki ligi nuo po".split())
_LT_NOMINATIVE_BEFORE = frozenset("šiandien rytoj vakar poryt yra buvo bus".split())
_LT_DAY_FORMS = {
    "feminine_accusative": "dieną",
    "feminine": "diena",
    "feminine_genitive": "dienos",
}


def pattern(language: str) -> str:
    """The alternatives of the catalog scan for these languages' years and days (empty elsewhere)."""
    if language == "lv":
        months = "|".join(_LV_MONTHS)
        return (
            r"(?P<lv_year>(?<![\d.,])(?P<lv_yn>\d{3,4})\.\s+(?P<lv_yw>gad(?:s|a|am|u|ā)\b|g\.))|"
            rf"(?P<lv_day>(?<![\d.,])(?P<lv_dn>\d{{1,2}})\.\s*(?:(?P<lv_link>[-–]|līdz)\s*(?P<lv_dn2>\d{{1,2}})\.\s*)?"
            rf"(?P<lv_month>(?:{months}))\b)|"
        )
    if language == "lt":
        return (
            r"(?P<lt_year>(?<![\d.,])(?P<lt_yn>\d{4})\s*(?P<lt_yw>m\.|(?:metų|metais|metai|metus)\b))|"
            rf"(?P<lt_day>(?P<lt_month>{'|'.join(_LT_MONTHS)})\s+(?P<lt_dn>\d{{1,2}})(?![\d:]|[.,]\d)"
            r"(?:\s*(?P<lt_dw>d\.|(?:dieną|diena|dienos)\b))?)|"
        )
    return ""


def _latvian_case(word: str) -> tuple[str, bool] | None:
    """The case (and whether feminine) a Latvian noun's ending shows, where it shows one."""
    for endings, case, feminine in (
        (("ā", "ī", "ē", "ū"), "locative", False),
        (("am", "im"), "dative", False),
        (("ai", "ei"), "dative", True),
        (("as", "es"), "genitive", True),
        (("s", "š"), "nominative", False),
        (("e",), "nominative", True),
        (("u",), "accusative", False),
        (("a",), "genitive", False),  # "stāva" or "vieta": both take "-ā"
    ):
        if word.endswith(endings):
            return case, feminine
    return None


def _latvian_month_case(month: str) -> str:
    for endings, case in (
        (("is", "s"), "nominative"),
        (("im", "am"), "dative"),
        (("ā", "ī"), "locative"),
        (("a",), "genitive"),
    ):
        if month.endswith(endings):
            return case
    return "accusative"


def day_ordinal(n: int, noun: str, language: str) -> str | None:
    """A Latvian ordinal written with its dot before a noun ("3. stāvā" -> "trešajā"); None where the noun's
    ending shows no case."""
    case = _latvian_case(noun) if language == "lv" else None
    return latvian_ordinal(n, case[0], case[1]) if case else None


_LV_MONTH_START = re.compile(rf"\s*(?:\d{{1,2}}\.\s*)?(?:{'|'.join(_LV_MONTHS)})\b")


def latvian_year(m: re.Match, after: str) -> str:
    word = m.group("lv_yw")
    if word == "g.":  # "2024. g." is "gada" before a day or a month, otherwise "gadā" ("in 2024")
        word = "gada" if _LV_MONTH_START.match(after) else "gadā"
    return f"{latvian_ordinal(int(m.group('lv_yn')), _LV_YEAR_WORDS[word])} {word}"


def latvian_days(m: re.Match, before: list[str]) -> str | None:
    """ "5. martā" -> "piektajā martā", "no 5. līdz 7. martam" -> "piektā līdz septītajam martam"."""
    month = m.group("lv_month")
    case = _latvian_month_case(month)
    days = [int(m.group("lv_dn"))] + ([int(m.group("lv_dn2"))] if m.group("lv_dn2") else [])
    if not all(1 <= d <= 31 for d in days):
        return None
    last = latvian_ordinal(days[-1], case)
    if len(days) == 1:
        return f"{last} {month}"
    first_case = "genitive" if before and before[-1].lower() == "no" else case  # "no" takes the genitive
    return f"{latvian_ordinal(days[0], first_case)} līdz {last} {month}"


def lithuanian_year(m: re.Match, before: list[str], after: str) -> str:
    word = m.group("lt_yw")
    if word == "m.":
        month_next = re.match(r"\s*([^\W\d_]+)", after)
        genitive = (month_next and month_next.group(1).lower().startswith(_LT_MONTH_STARTS)) or (
            before and before[-1].lower() in _LT_GENITIVE_BEFORE
        )
        word = "metų" if genitive else "metais"
    return f"{lithuanian_ordinal(int(m.group('lt_yn')), _LT_YEAR_WORDS[word])} {word}"


def lithuanian_day(m: re.Match, before: list[str]) -> str | None:
    """ "kovo 5 d." -> "kovo penktą dieną"; the case from the word before the date (or before its year)."""
    day = int(m.group("lt_dn"))
    if not 1 <= day <= 31:
        return None
    cue = next((w.lower() for w in reversed(before) if not re.fullmatch(r"\d+|m\.?|metų", w)), "")
    written = (m.group("lt_dw") or "").rstrip(".")
    if written in ("diena", "dienos"):
        form = "feminine" if written == "diena" else "feminine_genitive"
    elif cue in _LT_GENITIVE_BEFORE:
        form = "feminine_genitive"
    elif cue in _LT_NOMINATIVE_BEFORE:
        form = "feminine"
    else:
        form = "feminine_accusative"
    day_word = f" {_LT_DAY_FORMS[form]}" if m.group("lt_dw") else ""
    return f"{m.group('lt_month')} {lithuanian_ordinal(day, form)}{day_word}"


def date(y: int, month: int, d: int, language: str, before: list[str]) -> str:
    """A numeric date ("05.03.2024", "2024-03-05") read as the language writes it in full."""
    if language == "lv":
        return f"{latvian_ordinal(y, 'genitive')} gada {latvian_ordinal(d)} {_LV_MONTH_NOMINATIVE[month - 1]}"
    form = (
        "feminine_genitive"
        if before and before[-1].lower() in _LT_GENITIVE_BEFORE
        else "feminine"
        if before and before[-1].lower() in _LT_NOMINATIVE_BEFORE
        else "feminine_accusative"
    )
    return (
        f"{lithuanian_ordinal(y, 'genitive_plural')} metų {_LT_MONTHS[month - 1]} {lithuanian_ordinal(d, form)} "
        f"{_LT_DAY_FORMS[form]}"
    )
