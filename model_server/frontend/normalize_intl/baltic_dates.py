"""Latvian, Lithuanian and Estonian dates, years, hours and dotted ordinals, said as ordinals in their case
(`frontend.baltic`):

* Latvian "2024. gada 5. martā" -> "divi tūkstoši divdesmit ceturtā gada piektajā martā": the year takes its
  word's case ("gada", "gadā", "gads"), the day its month's ("marts", "marta", "martam", "martā"); a numeric
  date the case of the word before it ("līdz 05.03.2024." -> "... piektajam martam"); "3. stāvā" -> "trešajā
  stāvā" by the noun's ending;
* Lithuanian "2024 m. kovo 5 d." -> "du tūkstančiai dvidešimt ketvirtųjų metų kovo penktą dieną": "m." is
  "metų" before a month and "metais" ("in 2024") otherwise, a day "penktą dieną" ("on the fifth"),
  "penktoji diena" after "šiandien" ("today is the fifth"), "penktosios dienos" after "iki", "nuo", "po";
  "10:30 val." -> "dešimtą valandą trisdešimt";
* Estonian "5. märtsil" -> "viiendal märtsil", "5. märts" -> "viies märts": the day takes its month's case ending.

Before, espeak-ng read cardinals, each dot as a full stop, and the Lithuanian "m." as metres."""

from __future__ import annotations

import re

from ..baltic import ESTONIAN_MONTHS, estonian_day, latvian_ordinal, lithuanian_ordinal
from .amounts import spell_number

__all__ = [
    "LANGUAGES",
    "date",
    "estonian_date_day",
    "day_month",
    "day_ordinal",
    "latvian_days",
    "latvian_year",
    "lithuanian_date",
    "lithuanian_day_alone",
    "lithuanian_hour",
    "lithuanian_ordinal_before",
    "lithuanian_year",
    "pattern",
]

LANGUAGES = frozenset({"lv", "lt", "et"})

# Latvian months: the second declension's ("janvāris") and the first's ("marts"), with their endings by case.
_LV_MONTHS = ("janvār", "februār", "mart", "aprīl", "maij", "jūnij", "jūlij", "august", "septembr", "oktobr",
              "novembr", "decembr")  # fmt: skip
_LV_FIRST_DECLENSION = frozenset({"mart", "maij", "jūnij", "jūlij", "august"})
_LV_MONTH_ENDINGS = {
    False: {"nominative": "is", "genitive": "a", "dative": "im", "accusative": "i", "locative": "ī"},
    True: {"nominative": "s", "genitive": "a", "dative": "am", "accusative": "u", "locative": "ā"},
}
_LV_MONTH_FORMS = "|".join(
    f"{stem}(?:{'|'.join(_LV_MONTH_ENDINGS[stem in _LV_FIRST_DECLENSION].values())})" for stem in _LV_MONTHS
)
_LV_YEAR_WORDS = {"gads": "nominative", "gada": "genitive", "gadam": "dative", "gadu": "accusative",
                  "gadā": "locative"}  # fmt: skip
# Words after "2024. g." that make it "gada" (of the year): a month, a part of the year, a day's number.
_LV_OF_THE_YEAR = re.compile(rf"\s*(?:\d|(?:{_LV_MONTH_FORMS})\b|beig|sākum|vid|pus|ceturksn)")
# The case a Latvian preposition or cue gives a date after it.
_LV_CASE_AFTER = {"līdz": "dative", "no": "genitive", "pēc": "genitive", "pirms": "genitive", "kopš": "genitive",
                  "šodien": "nominative", "rīt": "nominative", "vakar": "nominative", "ir": "nominative",
                  "datums": "nominative"}  # fmt: skip
_LV_LINKS = {"-": "līdz", "–": "līdz", "līdz": "līdz", "un": "un", "vai": "vai"}

_LT_MONTHS = ("sausio", "vasario", "kovo", "balandžio", "gegužės", "birželio", "liepos", "rugpjūčio", "rugsėjo",
              "spalio", "lapkričio", "gruodžio")  # fmt: skip
# The beginnings of the Lithuanian months in any case ("kovo", "kovą", "kovas"): a year before one is "metų".
_LT_MONTH_STARTS = ("saus", "vasar", "kov", "baland", "gegu", "biržel", "liep", "rugpjū", "rugsėj", "spal",
                    "lapkri", "gruod")  # fmt: skip
_LT_YEAR_WORDS = {"metų": "genitive_plural", "metais": "locative_plural", "metai": "nominative_plural",
                  "metus": "accusative_plural"}  # fmt: skip
# Words after which a Lithuanian day, hour or year is in the genitive ("iki kovo penktosios dienos"), the
# accusative ("prieš dvidešimtuosius metus"), or the nominative ("šiandien kovo penktoji").
_LT_GENITIVE_BEFORE = frozenset("iki ligi nuo po".split())
_LT_ACCUSATIVE_BEFORE = frozenset({"prieš"})
_LT_NOMINATIVE_BEFORE = frozenset("šiandien rytoj vakar poryt".split())
_LT_DAY_WORDS = {"feminine_accusative": "dieną", "feminine": "diena", "feminine_genitive": "dienos"}


def pattern(language: str) -> str:
    """The alternatives of the catalog scan for these languages' dates, years and hours (empty elsewhere)."""
    if language == "lv":
        return (
            r"(?P<lv_year>(?<![\d.,])(?P<lv_yn>\d{3,4})\.\s*(?:(?P<lv_ylink>un|vai|līdz|[-–])\s*"
            r"(?P<lv_yn2>\d{3,4})\.\s*)?(?P<lv_yw>gad(?:s|a|am|u|ā)\b|g\.))|"
            r"(?P<lv_day>(?<![\d.,])(?P<lv_dn>\d{1,2})\.\s*(?:(?P<lv_link>[-–]|līdz|un|vai)\s*(?P<lv_dn2>\d{1,2})\.\s*)?"
            rf"(?P<lv_month>{_LV_MONTH_FORMS})\b)|"
        )
    if language == "et":
        months = "|".join(sorted({m for pair in ESTONIAN_MONTHS for m in pair}, key=len, reverse=True))
        return rf"(?P<et_day>(?<![\d.,])(?P<et_dn>\d{{1,2}})\.\s*(?P<et_month>(?:{months})[a-zõäöü]*)\b)|"
    if language == "lt":
        months = "|".join(_LT_MONTHS)
        return (
            # a whole date first, so that the word before its year decides the day's case
            rf"(?P<lt_date>(?<![\d.,])(?:(?P<lt_dy>\d{{4}})\s*m\.\s+)?(?P<lt_month>(?i:{months}))\s+"
            r"(?P<lt_dn>\d{1,2})(?:\s?[-–]\s?(?P<lt_dn2>\d{1,2}))?(?![\d:-]|[.,]\d)"
            r"(?:\s*(?P<lt_dw>d\.|(?:dieną|diena|dienos)\b))?)|"
            r"(?P<lt_year>(?<![\d.,])(?P<lt_yn>\d{4})\s*(?P<lt_yw>m\.|(?:metų|metais|metai|metus)\b))|"
            # a day without its month after "iki", "nuo" ("iki 25 d."): the "d." says it is one
            r"(?P<lt_bday>(?<![\d.,:])(?P<lt_bdn>\d{1,2})\s*(?P<lt_bdw>d\.|dienos\b))|"
            # a bare number before a noun in the singular's locative or accusative is an ordinal ("3 aukšte")
            r"(?P<lt_ord>(?<![\d.,:-])(?P<lt_on>\d{1,3})(?=\s+[^\W\d_]*(?:yje|uje|oje|ėje|e|ą|ę)\b))|"
            r"(?P<lt_hour>(?<![\d.,:])(?:(?P<lt_h1>\d{1,2})(?:[:.](?P<lt_mi1>[0-5]\d))?\s*(?:[-–]|iki)\s*)?"
            r"(?P<lt_h>\d{1,2})(?:[:.](?P<lt_mi>[0-5]\d))?\s*val\.)|"
        )
    return ""


# --- Latvian ---------------------------------------------------------------------------------------------


def _latvian_case(word: str) -> tuple[str, bool] | None:
    """The case (and whether feminine) a Latvian noun's ending shows, where it shows one."""
    for endings, case, feminine in (
        (("ā", "ī", "ē", "ū"), "locative", False),
        (("am", "im"), "dative", False),
        (("ai", "ei"), "dative", True),
        (("as", "es"), "genitive", True),
        (("s", "š"), "nominative", False),
        (("e",), "nominative", True),
        (("u", "i"), "accusative", False),  # "trešo reizi", "otro stāvu": "-o" in both genders
        (("a",), "genitive", False),  # "stāva" or "vieta": both take "-ā"
    ):
        if word.endswith(endings):
            return case, feminine
    return None


def _latvian_month(month: int, case: str) -> str:
    stem = _LV_MONTHS[month - 1]
    return stem + _LV_MONTH_ENDINGS[stem in _LV_FIRST_DECLENSION][case]


def _latvian_month_case(written: str) -> str:
    stem = next(s for s in sorted(_LV_MONTHS, key=len, reverse=True) if written.startswith(s))
    endings = _LV_MONTH_ENDINGS[stem in _LV_FIRST_DECLENSION]
    return next(case for case, ending in endings.items() if written == stem + ending)


def _latvian_pair(first: int, second: int | None, link: str | None, case: str, before: list[str]) -> str:
    """One ordinal, or two joined ("no piektā līdz septītajam", "divdesmitajā un divdesmit pirmajā")."""
    last = latvian_ordinal(second if second is not None else first, case)
    if second is None:
        return last
    said_link = _LV_LINKS[link]
    first_case = "genitive" if said_link == "līdz" and before and before[-1] == "no" else case
    return f"{latvian_ordinal(first, first_case)} {said_link} {last}"


# "1. un 2. stāvā": the first of two ordinals takes the case of the noun after the second.
_LV_SECOND_ORDINAL = re.compile(r"\s+(?:un|vai|līdz|[-–])\s+\d{1,3}\.\s+([^\W\d_]+)")


def day_ordinal(n: int, text: str, end: int) -> str | None:
    """A Latvian ordinal written with its dot before a noun ("3. stāvā" -> "trešajā", "1. un 2. stāvā" ->
    "pirmajā un otrajā"); None where the noun's ending shows no case. `end` is where the ordinal's dot ends."""
    second = _LV_SECOND_ORDINAL.match(text, end)
    noun = second.group(1) if second else re.match(r"\s*([^\W\d_]*)", text[end:]).group(1)
    case = _latvian_case(noun) if noun not in ("un", "vai", "līdz") else None
    return latvian_ordinal(n, case[0], case[1]) if case else None


def latvian_year(m: re.Match, before: list[str], after: str) -> str:
    word = m.group("lv_yw")
    if (
        word == "g."
    ):  # "2024. g." is "gada" before a month or a part of the year, otherwise "gadā" ("in 2024")
        word = "gada" if _LV_OF_THE_YEAR.match(after) else "gadā"
    second = int(m.group("lv_yn2")) if m.group("lv_yn2") else None
    years = _latvian_pair(int(m.group("lv_yn")), second, m.group("lv_ylink"), _LV_YEAR_WORDS[word], before)
    return f"{years} {word}"


def latvian_days(m: re.Match, before: list[str]) -> str | None:
    """ "5. martā" -> "piektajā martā", "no 5. līdz 7. martam" -> "no piektā līdz septītajam martam"."""
    first = int(m.group("lv_dn"))
    second = int(m.group("lv_dn2")) if m.group("lv_dn2") else None
    if not all(1 <= d <= 31 for d in (first, second or first)):
        return None
    month = m.group("lv_month")
    return f"{_latvian_pair(first, second, m.group('lv_link'), _latvian_month_case(month), before)} {month}"


def _latvian_date_case(before: list[str]) -> str:
    """A numeric date's case from the word before it: "līdz" the dative, "no", "pēc", "pirms" the genitive,
    "šodien ir" or nothing the nominative; otherwise the locative of a date something happens on."""
    if not before:
        return "nominative"
    return _LV_CASE_AFTER.get(before[-1], "locative")


# --- Lithuanian ------------------------------------------------------------------------------------------


def _lithuanian_day_form(cue: str, written_day_word: str = "") -> str:
    if written_day_word in ("diena", "dienos"):
        return "feminine" if written_day_word == "diena" else "feminine_genitive"
    if cue in _LT_GENITIVE_BEFORE:
        return "feminine_genitive"
    if cue in _LT_NOMINATIVE_BEFORE:
        return "feminine"
    return "feminine_accusative"


def lithuanian_date(m: re.Match, before: list[str]) -> str | None:
    """ "2024 m. kovo 5 d." -> "du tūkstančiai dvidešimt ketvirtųjų metų kovo penktą dieną"; "gruodžio 24–26 d."
    -> "gruodžio dvidešimt ketvirtosios iki dvidešimt šeštosios dienos"."""
    days = [int(m.group("lt_dn"))] + ([int(m.group("lt_dn2"))] if m.group("lt_dn2") else [])
    if not all(1 <= d <= 31 for d in days):
        return None
    cue = before[-1] if before else ""
    written = (m.group("lt_dw") or "").rstrip(".")
    form = "feminine_genitive" if len(days) == 2 else _lithuanian_day_form(cue, written)
    said = " iki ".join(lithuanian_ordinal(d, form) for d in days)
    day_word = f" {_LT_DAY_WORDS[form]}" if m.group("lt_dw") or len(days) == 2 else ""
    year = f"{lithuanian_ordinal(int(m.group('lt_dy')), 'genitive_plural')} metų " if m.group("lt_dy") else ""
    return f"{year}{m.group('lt_month')} {said}{day_word}"


def lithuanian_day_alone(m: re.Match, before: list[str]) -> str | None:
    """ "iki 25 d." -> "iki dvidešimt penktosios dienos" (a day of this month)."""
    day = int(m.group("lt_bdn"))
    cue = before[-1] if before else ""
    if not 1 <= day <= 31 or (m.group("lt_bdw") == "dienos" and cue not in _LT_GENITIVE_BEFORE):
        return None  # "2 dienos" are two days
    form = _lithuanian_day_form(cue, m.group("lt_bdw").rstrip("."))
    return f"{lithuanian_ordinal(day, form)} {_LT_DAY_WORDS[form]}"


def lithuanian_year(m: re.Match, before: list[str], after: str) -> str:
    word = m.group("lt_yw")
    cue = before[-1] if before else ""
    if word == "m.":
        month_next = re.match(r"\s*([^\W\d_]+)", after)
        if (
            month_next and month_next.group(1).lower().startswith(_LT_MONTH_STARTS)
        ) or cue in _LT_GENITIVE_BEFORE:
            word = "metų"
        elif cue in _LT_ACCUSATIVE_BEFORE:
            word = "metus"  # "prieš 2020 m." -> "prieš du tūkstančiai dvidešimtuosius metus"
        else:
            word = "metais"
    return f"{lithuanian_ordinal(int(m.group('lt_yn')), _LT_YEAR_WORDS[word])} {word}"


# The singular endings that make a bare number before its noun an ordinal, and the ordinal's form for each.
_LT_ORDINAL_BEFORE = (
    (("oje", "ėje"), "feminine_locative"),
    (("yje", "uje", "e"), "locative"),
    (("ą", "ę"), "feminine_accusative"),  # masculine and feminine alike: "trečią aukštą", "trečią eilę"
)


def lithuanian_ordinal_before(m: re.Match) -> str | None:
    """ "3 aukšte" -> "trečiame aukšte", "14 eilėje" -> "keturioliktoje eilėje", "į 4 kabinetą" -> "į ketvirtą
    kabinetą": a count would put its noun in the plural ("trijuose aukštuose", "keturis kabinetus"), so a
    singular after a number above one names a place in order. One before an accusative is a count ("1 dieną")."""
    n = int(m.group("lt_on"))
    noun = re.match(r"\s+([^\W\d_]+)", m.string[m.end() :]).group(1).lower()
    form = next(f for endings, f in _LT_ORDINAL_BEFORE if noun.endswith(endings))
    if n == 0 or (n == 1 and form == "feminine_accusative"):
        return None
    return lithuanian_ordinal(n, form)


def lithuanian_hour(m: re.Match, before: list[str]) -> str | None:
    """ "10:30 val." -> "dešimtą valandą trisdešimt", "iki 18 val." -> "iki aštuonioliktosios valandos", "nuo 8
    iki 18 val." -> "nuo aštuntosios iki aštuonioliktosios valandos"."""
    hours = [
        (int(m.group(h)), int(m.group(mi) or 0))
        for h, mi in (("lt_h1", "lt_mi1"), ("lt_h", "lt_mi"))
        if m.group(h)
    ]
    if any(h > 24 for h, _ in hours):
        return None
    genitive = len(hours) == 2 or (bool(before) and before[-1] in _LT_GENITIVE_BEFORE)
    form, word = ("feminine_genitive", "valandos") if genitive else ("feminine_accusative", "valandą")
    minutes = any(mi for _, mi in hours)
    said = [
        lithuanian_ordinal(h, form)
        + (f" {word} {spell_number(mi, 'lt')}" if mi else f" {word}" if minutes else "")
        for h, mi in hours
    ]
    opening = "nuo " if len(hours) == 2 and (not before or before[-1] != "nuo") else ""  # "9–18 val."
    return opening + " iki ".join(said) + ("" if minutes else f" {word}")


# --- Estonian --------------------------------------------------------------------------------------------


def estonian_date_day(m: re.Match) -> str | None:
    """ "5. märtsil" -> "viiendal märtsil" (espeak-ng read "viis märtsil")."""
    day = int(m.group("et_dn"))
    if not 1 <= day <= 31:
        return None
    return f"{estonian_day(day, m.group('et_month'))} {m.group('et_month')}"


# --- all three -------------------------------------------------------------------------------------------


def date(y: int, month: int, d: int, language: str, before: list[str]) -> str:
    """A numeric date ("05.03.2024", "2024-03-05") read as the language writes it in full."""
    if language == "et":  # "viies märts 2024" (the year a cardinal, which espeak-ng reads from its digits)
        nominative = ESTONIAN_MONTHS[month - 1][0]
        return f"{estonian_day(d, nominative)} {nominative} {y}"
    if language == "lv":
        case = _latvian_date_case(before)
        return (
            f"{latvian_ordinal(y, 'genitive')} gada {latvian_ordinal(d, case)} {_latvian_month(month, case)}"
        )
    form = _lithuanian_day_form(before[-1] if before else "")
    return (
        f"{lithuanian_ordinal(y, 'genitive_plural')} metų {_LT_MONTHS[month - 1]} {lithuanian_ordinal(d, form)} "
        f"{_LT_DAY_WORDS[form]}"
    )


def day_month(day: int, month: int, language: str, before: list[str]) -> str:
    """A day and a month in digits ("līdz 05.03." -> "līdz piektajam martam")."""
    if language == "et":
        nominative = ESTONIAN_MONTHS[month - 1][0]
        return f"{estonian_day(day, nominative)} {nominative}"
    if language == "lv":
        case = _latvian_date_case(before)
        return f"{latvian_ordinal(day, case)} {_latvian_month(month, case)}"
    form = _lithuanian_day_form(before[-1] if before else "")
    return f"{_LT_MONTHS[month - 1]} {lithuanian_ordinal(day, form)} {_LT_DAY_WORDS[form]}"
