"""Text normalization for the catalog languages beyond en/es/de/fr (see `languages.CATALOG`).

`normalize.normalize_segments` hands every language it has no hand-written rules for to
`normalize_segments` here; en/es/de/fr keep their own rules in the normalize package. One left-to-right scan
with a few rules, each in the language's own conventions from CLDR (Babel) and num2words:

* dates in digits (2024-03-15, and 15/03/2024, 15.03.2024, 15. 3. 2024 day first, as every catalog locale
  that starts its short date with a number writes them): CLDR's long date format ("15 marca 2024",
  "2024年3月15日"), numbers spoken.
* dates whose day is an ordinal: Russian and Polish "3 мая" / "3 maja" in the phrase's case, a day with an
  ordinal dot before a month ("3. května" -> "třetího května", `ordinals.day_ordinal`), Hungarian "május 3-án".
* numbers with an ending written after them ("3:lle", "10-kor", "3'te", "3:e"): one word (`suffixes`).
* times (14:30, and 9.30 where the dot is no decimal symbol): hour and minutes as numbers.
* amounts with a currency symbol or ISO code (12,50 €, $5, 100 EUR): the amount, then CLDR's currency
  name in the plural form for that amount ("dwanaście euro pięćdziesiąt").
* ranges (2-3 dias -> "dois a três dias") where the language says a word for the dash (`RANGE_LINKS`).
* percentages (42 %): the number and CLDR's long unit name for percent ("42 procent").
* amounts with a unit symbol (5 km, 2 h, 21 °C): the number and CLDR's long unit name in its plural form
  for that amount ("pięć kilometrów", "dwie godziny").
* numbers, grouped and separated the locale's way (CLDR decimal and group symbols; "1 234 567", "3,5").

Integers are spelt with num2words where it has the language (`Language.num2words`); elsewhere, and for
decimals (num2words gets several languages' decimals wrong), the number is passed on as plain digits with
the locale's decimal symbol, and espeak-ng's language rules read it (it reads "42" as one number in
every catalog language: tests/frontend/test_languages.py checks that).

Japanese: espeak-ng reads kana only (it spells a kanji out as "Chinese letter"), so the spoken text of
every Japanese segment is rewritten in katakana as pronounced (Janome's IPADIC pronunciation field: 今日は ->
キョーワ); numbers and words the dictionary does not know stay as written.

Characters that cannot be spoken (emoji, symbols) are skipped; letters of every script and their combining
marks are kept (Devanagari vowel signs, Thai tone marks), and CJK, Arabic and Indic sentence punctuation
is folded into . , ? ! so the frontend finds clause and sentence ends.
"""

from __future__ import annotations

import datetime
import re
import threading
import unicodedata
from functools import cache, lru_cache

from babel import Locale
from babel.dates import format_date, format_skeleton, get_date_format, get_month_names, get_time_format
from babel.numbers import format_decimal, get_currency_name, get_decimal_symbol, get_group_symbol
from babel.units import UnknownUnitError, format_unit
from num2words import num2words

from . import agreement, ordinals, suffixes
from .languages import get
from .normalize import NormalizationError, Segment
from .normalize.address import spoken_address
from .normalize.codes import pair_as_number
from .normalize.dates import dotted_kind
from .normalize.ranges import is_range
from .normalize.words import ends_sentence

__all__ = ["normalize_segments", "spell_number"]

_MAX_DIGITS = 15
_CURRENCY_SYMBOLS = {
    "R$": "BRL",
    "€": "EUR",
    "$": "USD",
    "£": "GBP",
    "¥": "JPY",
    "₹": "INR",
    "₩": "KRW",
    "₺": "TRY",
    "₽": "RUB",
    "₫": "VND",
    "฿": "THB",
    "₪": "ILS",
    "₴": "UAH",
    "₸": "KZT",
    "₼": "AZN",
    "₾": "GEL",
    "৳": "BDT",
    "zł": "PLN",
    "Kč": "CZK",
    "Ft": "HUF",
}
# "¥" is the yuan in Chinese text.
_SYMBOL_OVERRIDES = {"zh": {"¥": "CNY"}}
_ISO_CODES = (
    "EUR",
    "USD",
    "GBP",
    "JPY",
    "CNY",
    "INR",
    "CHF",
    "SEK",
    "NOK",
    "DKK",
    "PLN",
    "CZK",
    "HUF",
    "RON",
    "BGN",
    "TRY",
    "RUB",
    "UAH",
    "KRW",
    "IDR",
    "VND",
    "THB",
    "AED",
    "SAR",
    "ILS",
    "BRL",
)
# Sentence punctuation of other scripts -> the marks the frontend tokenizes.
_PUNCT_FOLD = str.maketrans(
    {
        "。": ".",
        "．": ".",
        "、": ",",
        "，": ",",
        "；": ";",
        "：": ":",
        "！": "!",
        "？": "?",
        "؟": "?",
        "،": ",",
        "؛": ";",
        "۔": ".",
        "।": ".",
        "॥": ".",
        "«": '"',
        "»": '"',
        "„": '"',
        "“": '"',
        "”": '"',
        "‘": "'",
        "’": "'",
        "\u00a0": " ",
        "\u202f": " ",
        "\u2009": " ",
    }
)
_KEEP = set(".,;:!?'\"()-")


@cache
def _locale(code: str) -> Locale:
    return Locale.parse(get(code).babel)


@lru_cache(maxsize=4096)
def spell_number(n: int, language: str) -> str:
    """`n` in words where num2words has the language, else as digits for espeak-ng to read."""
    lang = get(language)
    if lang.num2words is None or len(str(abs(n))) > _MAX_DIGITS:
        return str(n)
    return " ".join(num2words(n, lang=lang.num2words).replace(",", " ").split())


def _spell_digits_in(text: str, language: str) -> str:
    return re.sub(r"\d+", lambda m: spell_number(int(m.group(0)), language), text)


# Group separators written beside CLDR's: Portugal's CLDR groups thousands with a space, but "1.284,37 €" (Brazil's
# way) is as common there, and the dot was read as a full stop ("um. duzentos ...").
_GROUP_ALSO = {"pt": "."}


def _parse_amount(text: str, language: str) -> tuple[int, str]:
    """(whole part, fraction digits) of a number written with the locale's separators."""
    loc = _locale(language)
    dec = get_decimal_symbol(loc)
    group = get_group_symbol(loc)
    text = text.replace(" ", "").replace("\u202f", "").replace("\u00a0", "")
    whole, _, frac = text.partition(dec) if dec in text else (text, "", "")
    for g in (group, _GROUP_ALSO.get(language, "")):
        if g and g in ".,":
            whole = whole.replace(g, "")
    whole = re.sub(r"[^\d]", "", whole)
    # past any quantity (and int()'s limit of 4300 digits) only "many" matters: `_number` says the digits
    return int(whole[: _MAX_DIGITS + 1] or "0"), frac


def _number(text: str, language: str, m: re.Match | None = None) -> str:
    if sum(c.isdigit() for c in text) > _MAX_DIGITS:  # as spell_number: the digits, for espeak-ng to read
        return re.sub(r"\D", "", text)  # (int() refuses thousands of them)
    whole, frac = _parse_amount(text, language)
    if not frac:
        words = spell_number(whole, language)
        if m is None or not words[:1].isalpha():
            return words
        noun = agreement.counted_noun(m.string, m.end(), language)
        return agreement.count_form(
            words, whole, noun, language, agreement.previous_words(m.string, m.start())
        )
    # Decimals: plain digits with the locale's decimal symbol, read by espeak-ng.
    return f"{whole}{get_decimal_symbol(_locale(language))}{frac}"


def _currency(code: str, amount: str, language: str, before: list[str]) -> str:
    whole, frac = _parse_amount(amount, language)
    name = get_currency_name(code, count=whole, locale=_locale(language))
    noun = (
        name.split()[-1] if language in ("ru", "uk", "cs") else name.split()[0]
    )  # "российских рубля", "české koruny", "dólares americanos"
    spoken = spell_number(whole, language)
    if agreement.after_genitive_preposition(before, language):
        before = []  # CLDR's currency name is a nominative ("bez 1 Kč"): the count agrees with that
    if spoken[:1].isalpha():
        spoken = agreement.count_form(spoken, whole, noun, language, before)
    words = f"{spoken} {name}"
    if frac and len(frac) == 2 and int(frac):
        words += f" {spell_number(int(frac), language)}"
    elif frac and len(frac) != 2:
        words = f"{_number(amount, language)} {name}"
    return words


def _percent(amount: str, language: str) -> str:
    whole, frac = _parse_amount(amount, language)
    spoken = _number(amount, language)
    loc = _locale(language)
    try:
        value = float(f"{whole}.{frac}") if frac else whole
        written = format_unit(value, "concentr-percent", length="long", locale=loc)
        shown = format_decimal(value, locale=loc)
    except (UnknownUnitError, ArithmeticError):
        return f"{spoken} %"
    if shown not in written or "concentr" in written:  # Babel's fallback is the unit's id (zh)
        return f"{spoken} %"
    return written.replace(shown, f" {spoken} ", 1)


# Unit symbols and their CLDR unit ids: "5 km" is read with CLDR's long name in its plural form for that
# amount ("cinque chilometri", "pięć kilometrów", "dwie godziny"). No "s" (a preposition in cs/sk/sl/hr/sr).
UNITS = {
    "km/h": "speed-kilometer-per-hour",
    "kWh": "energy-kilowatt-hour",
    "km": "length-kilometer",
    "cm": "length-centimeter",
    "mm": "length-millimeter",
    "m": "length-meter",
    "kg": "mass-kilogram",
    "mg": "mass-milligram",
    "g": "mass-gram",
    "ml": "volume-milliliter",
    "l": "volume-liter",  # not "L": a clothing size
    "h": "duration-hour",
    "min": "duration-minute",
    "°C": "temperature-celsius",
    "GB": "digital-gigabyte",
    "MB": "digital-megabyte",
    # Cyrillic symbols (ru, uk, bg, sr, kk); not "г", which is also "год"/"година" (year)
    "км": "length-kilometer",
    "см": "length-centimeter",
    "мм": "length-millimeter",
    "м": "length-meter",
    "кг": "mass-kilogram",
    "мл": "volume-milliliter",
    "л": "volume-liter",
    "ч": "duration-hour",
    "мин": "duration-minute",
}


def _unit(amount: str, symbol: str, language: str, before: list[str]) -> str:
    """ "5 km" -> "cinque chilometri"; where CLDR has no long name for the language, the number and the
    symbol as written. After a genitive preposition (Slavic, Russian) the name is a genitive, which CLDR
    writes as the form for 5 (plural: "do dwóch kilometrów") or for 1.5 (singular: "до одного километра")."""
    whole, frac = _parse_amount(amount, language)
    spoken = _number(amount, language)
    loc = _locale(language)
    unit = UNITS[symbol]
    try:
        value = float(f"{whole}.{frac}") if frac else whole
        form = value
        if not frac and agreement.genitive_count(before, language):
            form = 1.5 if whole % 10 == 1 and whole % 100 != 11 else 5
        written = format_unit(form, unit, length="long", locale=loc)
        shown = format_decimal(form, locale=loc)
    except (UnknownUnitError, ArithmeticError):  # ArithmeticError: a number beyond Decimal's precision
        return f"{spoken} {symbol}"
    if shown not in written or unit in written:  # Babel's fallback is the unit's id
        return f"{spoken} {symbol}"
    name = written.replace(shown, " ", 1).split()
    if not frac and spoken[:1].isalpha() and name:
        # the count agrees with the unit's name, whose first word is its noun: "dwie godziny", "двадцать
        # один градус Цельсия"
        spoken = agreement.count_form(spoken, whole, name[0], language, before)
    return written.replace(shown, f" {spoken} ", 1)


def _date(y: int, m: int, d: int, language: str, before: list[str] | None = None) -> str | None:
    try:
        day = datetime.date(y, m, d)
    except ValueError:
        return None
    if language in _MONTHS_GENITIVE:
        return _day_month(d, _MONTHS_GENITIVE[language][m - 1], y, language, before or [])
    if language == "hu":  # "2024. május 3." -> "kétezer-huszonnégy május harmadika"
        month = get_month_names("wide", "format", _locale(language))[m]
        return f"{spell_number(y, language)} {month} {suffixes.hungarian_day(d)}"
    written = _first_day(format_date(day, format="long", locale=_locale(language)), d, language)
    if language in ordinals.DAY_ORDINAL_LANGUAGES:  # "3. května 2024" -> "třetího května 2024"
        if language in _MONTHS_SPOKEN_GENITIVE:  # CLDR writes "3. maj 2024"; it is said "tretjega maja"
            written = f"{d}. {_MONTHS_SPOKEN_GENITIVE[language][m - 1]} {y}"
        written = _dot_date(language).sub(lambda dm: _dot_day(dm, language), written, count=1)
    if language in _YEAR_CUES:
        written = written.replace(str(y), _year(y, language))
    # "2024. március 15." (hu), "15. 3. 2024" (cs): the dots would end the sentence.
    written = re.sub(r"(?<=\d)\.", " ", written)
    return _spell_digits_in(written, language)


# The first of a month is an ordinal where the others are cardinals: "il primo dicembre", "primeiro de maio".
_FIRST_DAY = {"it": "primo", "pt": "primeiro"}


def _first_day(written: str, day: int, language: str) -> str:
    if day != 1 or language not in _FIRST_DAY:
        return written
    return re.sub(r"(?<!\d)0?1(?!\d)", _FIRST_DAY[language], written, count=1)


def _slash_day_month(language: str) -> bool:
    """Whether the locale writes a day and a month "15/12": its CLDR short date is day first, with slashes."""
    pattern = get_date_format("short", locale=_locale(language)).pattern.lstrip("'")
    return pattern.startswith("d") and "/" in pattern


# Words after which a day and a month with a slash are a date even where they could be a fraction ("il 3/4",
# "no dia 5/3", "fins al 2/3"); without one, only what no fraction is written as (a day past 12 or a month
# past 10: "15/12", "3/11") is a date.
_DATE_CUES = {
    "it": frozenset(
        "il l dal al del entro fino dopo prima da oggi domani lunedì martedì mercoledì giovedì "
        "venerdì sabato domenica".split()
    ),  # fmt: skip
    "pt": frozenset(
        "o no dia até desde após antes hoje amanhã segunda terça quarta quinta sexta sábado domingo".split()
    ),  # fmt: skip
    "ca": frozenset(
        "el l del al fins des dilluns dimarts dimecres dijous divendres dissabte diumenge".split()
    ),
}


def _day_month_slash(m: re.Match, language: str, before: list[str]) -> tuple[str, str]:
    """ "15/12" in a locale that writes dates day first with slashes: CLDR's day and month ("15 dicembre",
    "15 de dezembro"), when it can only be a date or a date cue comes before it; else a fraction where the
    language's words for one are known ("3/4 dei clienti" -> "tre quarti dei clienti", "mezzo litro"), or the
    two numbers as before."""
    day, month = int(m.group("dmd")), int(m.group("dmm"))
    cued = bool(before) and before[-1].lower() in _DATE_CUES.get(language, ())
    proper = 0 < day < month <= 10
    # a day and the same month ("passo 3/3") is more often a step of a count, unless a cue says date
    date_like = cued or (not proper and day != month)
    if (day, month) != (24, 7) and 1 <= month <= 12 and 1 <= day <= 31 and date_like:
        try:
            written = format_skeleton("MMMMd", datetime.date(2000, month, day), locale=_locale(language))
        except ValueError:  # "31/4": no such day
            written = None
        if written:
            return "date", _spell_digits_in(_first_day(written, day, language), language) + _kept_stop(m)
    if proper and language in _FRACTIONS:
        return "fraction", _fraction(day, month, m, language, before)
    return "number", f"{_number(m.group('dmd'), language)} {_number(m.group('dmm'), language)}"


# Fractions in Italian, Portuguese and Catalan: (singular, plural) of each denominator, and the half before a
# masculine and a feminine noun ("mezzo litro", "mezza giornata"; "meio litro", "meia hora"; "mig litre").
_FRACTIONS = {
    "it": {3: ("terzo", "terzi"), 4: ("quarto", "quarti"), 5: ("quinto", "quinti"), 6: ("sesto", "sesti"),
           7: ("settimo", "settimi"), 8: ("ottavo", "ottavi"), 9: ("nono", "noni"), 10: ("decimo", "decimi")},
    "pt": {3: ("terço", "terços"), 4: ("quarto", "quartos"), 5: ("quinto", "quintos"), 6: ("sexto", "sextos"),
           7: ("sétimo", "sétimos"), 8: ("oitavo", "oitavos"), 9: ("nono", "nonos"), 10: ("décimo", "décimos")},
    "ca": {3: ("terç", "terços"), 4: ("quart", "quarts"), 5: ("cinquè", "cinquens"), 6: ("sisè", "sisens"),
           7: ("setè", "setens"), 8: ("vuitè", "vuitens"), 9: ("novè", "novens"), 10: ("desè", "desens")},
}  # fmt: skip
_HALF = {"it": ("mezzo", "mezza"), "pt": ("meio", "meia"), "ca": ("mig", "mitja")}
_ONE = {"it": "un", "pt": "um", "ca": "un"}
_ARTICLES = {
    "it": frozenset("un uno una il lo la i gli le l".split()),
    "pt": frozenset("um uma o a os as".split()),
    "ca": frozenset("un una el la els les l".split()),
}


def _fraction(num: int, den: int, m: re.Match, language: str, before: list[str]) -> str:
    # after an article its own "one" is not said: "un 1/3 della torta" -> "un terzo della torta"
    one_said = "" if before and before[-1].lower() in _ARTICLES[language] else f"{_ONE[language]} "
    if den == 2:
        gender = agreement.noun_gender(agreement.next_word(m.string, m.end()), language)
        half = _HALF[language][gender == "f"]
        return half if gender else f"{one_said}{half}"  # "mezzo litro"; "un mezzo" alone
    one, many = _FRACTIONS[language][den]
    return f"{one_said}{one}" if num == 1 else f"{spell_number(num, language)} {many}"


def _time(h: int, m: int, language: str, before: list[str]) -> str | None:
    if h > 23 or m > 59:
        return None
    minutes = f" {spell_number(m, language)}" if m else ""
    if language == "nl":  # "acht uur dertig"
        return f"{spell_number(h, language)} uur{minutes}"
    if language == "pl" and h:  # the hour is a feminine ordinal: "o siedemnastej dwadzieścia", "jest druga"
        case = "nominative" if before and before[-1] in _PL_NOMINATIVE_CUES else "genitive"
        minutes = f" zero {spell_number(m, language)}" if 0 < m < 10 else minutes
        return ordinals.polish_ordinal(h, case, "f") + minutes
    if language == "uk" and h:  # "о десятій тридцять", "з дев'ятої до вісімнадцятої", "зараз десята"
        prev = before[-1] if before else ""
        case = "nominative" if prev in _UK_NOMINATIVE_CUES else _UK_HOUR_CASES.get(prev)
        if case:
            return ordinals.ukrainian_ordinal(h, case, "f") + minutes
    return spell_number(h, language) + minutes


# Month names in the genitive, as a date writes them: the day before them is an ordinal in Russian and
# Polish ("первого мая", "trzeciego maja").
_MONTHS_GENITIVE = {
    "ru": "января февраля марта апреля мая июня июля августа сентября октября ноября декабря".split(),
    "pl": "stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia".split(),
    "uk": "січня лютого березня квітня травня червня липня серпня вересня жовтня листопада грудня".split(),
}
# Slovenian and Serbian dates are said with the month in the genitive, which CLDR does not write.
_MONTHS_SPOKEN_GENITIVE = {
    "sl": "januarja februarja marca aprila maja junija julija avgusta septembra oktobra novembra decembra".split(),
    "sr": "januara februara marta aprila maja juna jula avgusta septembra oktobra novembra decembra".split(),
}


@cache
def _month_names(language: str) -> tuple[str, ...]:
    """The month names a date may be written with: CLDR's (format and stand-alone) and the genitives."""
    loc = _locale(language)
    names = {
        name.lower()
        for context in ("format", "stand-alone")
        for name in get_month_names("wide", context, loc).values()
    }
    names.update(_MONTHS_SPOKEN_GENITIVE.get(language, ()))
    return tuple(sorted(names, key=len, reverse=True))


@cache
def _genitive_months(language: str) -> frozenset[str]:
    """Month names in the genitive: CLDR's format names where they differ from the stand-alone (nominative)
    ones ("května" / "květen"), and the Slovenian and Serbian genitives CLDR does not write."""
    if language in _MONTHS_SPOKEN_GENITIVE:
        return frozenset(_MONTHS_SPOKEN_GENITIVE[language])
    loc = _locale(language)
    standalone = {n.lower() for n in get_month_names("wide", "stand-alone", loc).values()}
    return frozenset(n.lower() for n in get_month_names("wide", "format", loc).values()) - standalone


# Between the two days of a range of dates ("od 3. do 5. května", "3.–5. května", "3. og 4. mai").
_DAY_RANGE_LINK = r"(?:[-–]|do|až|a|in|i|ili|nebo|alebo|til|og|eller|ja|tai)"


def _dot_date_pattern(language: str) -> str:
    """The day of a date written with an ordinal dot before a month name ("3. května", "3. toukokuuta"), or
    before a second such day ("3. do 5. května"). Months are written in lower case in these languages: a
    capital after "5." starts a sentence."""
    months = "|".join(map(re.escape, _month_names(language)))
    return (
        rf"(?P<dot_day>(?<![\d.,])(?P<dot_day_n>\d{{1,2}})\.(?=\s*(?:{_DAY_RANGE_LINK}\s*\d{{1,2}}\.\s*)?"
        rf"(?P<dot_day_month>{months})\b))"
    )


@cache
def _dot_date(language: str) -> re.Pattern:
    return re.compile(_dot_date_pattern(language))


def _dot_day(m: re.Match, language: str) -> str:
    """ "třetího" before "května", "třetí" before "květen"; a day past 31 is read as a number."""
    day = int(m.group("dot_day_n"))
    if not 1 <= day <= 31:
        return f"{spell_number(day, language)}."
    return ordinals.day_ordinal(day, language, m.group("dot_day_month") in _genitive_months(language))


# Danish, Norwegian and Dutch say years before 2000 in hundreds ("nitten hundrede femogfirs", "negentien
# honderd vijfentachtig"), num2words' `to="year"`: after a month name, or after one of these words.
# "til"/"tot" are left out: "ring til 1813", "open tot 1800" are a hotline and a time.
_YEAR_CUES = {
    "da": frozenset("i år året siden fra født før efter omkring anno".split()),
    "no": frozenset("i år året siden fra født før etter rundt anno".split()),
    "nl": frozenset("in jaar sinds van geboren voor na rond anno".split()),
}
_NOT_AFTER_YEAR = frozenset(
    "euro eur kr kroner krone dollar procent prosent meter km kilometer kg gram uur timer minutter minuten "
    "personer mensen stuks styk stk".split()
)


def _year(y: int, language: str) -> str:
    if language in _YEAR_CUES and 1100 <= y <= 1999:
        words = num2words(y, lang=get(language).num2words, to="year")
        return words.replace(" ", "") if language == "nl" else words  # "negentienhonderdvijfentachtig"
    return spell_number(y, language)


# Words after which a Polish date or hour is nominative ("dziś jest trzeci maja", "jest siedemnasta").
_PL_NOMINATIVE_CUES = frozenset("jest dziś dzisiaj jutro wczoraj godzina".split())
# Words after which a Ukrainian date is nominative ("сьогодні третє грудня") and an hour too ("зараз десята").
_UK_NOMINATIVE_CUES = frozenset("сьогодні завтра вчора зараз є".split())
# Ukrainian hours are feminine ordinals: locative after о/об/по ("о десятій"), accusative after на ("на
# десяту"), genitive after з/від/до/після/близько ("з дев'ятої до вісімнадцятої").
_UK_HOUR_CASES = {"о": "locative", "об": "locative", "по": "locative", "на": "accusative"} | dict.fromkeys(
    "з із від до після близько біля".split(), "genitive"
)
# Words before "9.30" that make it a clock time in Polish (the colon form is one anywhere)
_PL_CLOCK_CUES = _PL_NOMINATIVE_CUES | frozenset("o od do godz około między przed po".split())


def _day_month(day: int, month: str, yr: int | None, language: str, before: list[str]) -> str | None:
    """Russian "первого мая две тысячи двадцать четвёртого года", Polish "trzeciego maja dwa tysiące
    dwudziestego czwartego roku": ordinals, in the case the phrase takes."""
    if not 1 <= day <= 31:
        return None
    if language == "ru":
        words = f"{ordinals.russian_date(day, before)} {month}"
        return words + (" " + " ".join(ordinals.russian_year(yr, "года", [])) if yr is not None else "")
    if language == "uk":  # "третього грудня", "сьогодні третє грудня"
        # the accusative after "на" is the neuter nominative: "на третє грудня"
        nominative = bool(before) and (before[-1] in _UK_NOMINATIVE_CUES or before[-1] == "на")
        case, gender = ("nominative", "n") if nominative else ("genitive", "m")
        year = f" {ordinals.ukrainian_ordinal(yr, 'genitive', 'm')} року" if yr is not None else ""
        return f"{ordinals.ukrainian_ordinal(day, case, gender)} {month}{year}"
    case = "nominative" if before and before[-1] in _PL_NOMINATIVE_CUES else "genitive"
    day_words = (
        num2words(day, lang="pl", to="ordinal")
        if case == "nominative"
        else ordinals.polish_ordinal(day, "genitive", "m")
    )
    year = f" {ordinals.polish_ordinal(yr, 'genitive', 'm')} roku" if yr is not None else ""
    return f"{day_words} {month}{year}"


def _ukrainian_year(n: int, year_word: str, before: list[str]) -> str:
    """ "у 2024 році" -> "у дві тисячі двадцять четвертому році"; "2024 р." after "у"/"в" too; "з 2024 р."
    -> genitive ("року"); "2024 рік" -> nominative."""
    w = year_word.rstrip(".")
    if w in ("рік", "роком"):  # the instrumental: num2words has no such ordinal form, the nominative is said
        return f"{ordinals.ukrainian_ordinal(n, 'nominative', 'm')} {w}"
    if w == "році" or (w == "р" and before and before[-1] in ("у", "в")):
        return f"{ordinals.ukrainian_ordinal(n, 'locative', 'm')} році"
    return f"{ordinals.ukrainian_ordinal(n, 'genitive', 'm')} року"


def _polish_year(n: int, year_word: str, before: list[str]) -> str:
    """ "w 2024 roku" -> "w dwa tysiące dwudziestym czwartym roku"; "2024 r." after "w" too; "od 2024 r."
    -> genitive; "2024 rok" -> nominative."""
    w = year_word.rstrip(".")
    if w == "rok":
        return f"{num2words(n, lang='pl', to='ordinal')} rok"
    case = "locative" if before and before[-1] in ("w", "we") else "genitive"
    return f"{ordinals.polish_ordinal(n, case, 'm')} roku"


def _slavic_patterns(language: str) -> str:
    months = "|".join(_MONTHS_GENITIVE[language])
    # the year's word after a date ("года", "roku", "року") and after a year alone, in any case
    year_words, year_alone = {
        "ru": (r"года\b|г\.", r"год(?:у|а|ом)?\b|г\."),
        "pl": (r"roku\b|r\.", r"roku\b|rok\b|r\."),
        "uk": (r"року\b|р\.", r"р(?:ік|оку|оці|оком)\b|р\."),
    }[language]
    return (
        rf"(?P<sdate>(?<!\d)(?P<sd>\d{{1,2}})\s+(?P<sm>{months})\b(?:\s+(?P<sy>\d{{4}})(?:\s*(?:{year_words}))?)?)"
        rf"|(?P<syear>(?<![\d.,])(?P<syn>\d{{3,4}})\s*(?P<syw>{year_alone}))"
    )


# Language-specific patterns tried before the common ones: Russian and Polish dates and years take
# ordinals in their case ("первого мая", "w dwa tysiące dwudziestym czwartym roku"); Italian and Portuguese
# write ordinals 1º/1ª (NFKC makes them 1o/1a), Catalan 1r/2n/1a.
_ROMANCE_ORDINAL = r"(?P<ord>(?<![\w.,])(?P<ordn>\d{1,9})\.?(?P<ords>[oa])(?!\w))"
# Catalan: 1r, 2n, 3r, 4t, 5è and the feminine 1a, 2a.
_CATALAN_ORDINAL = r"(?P<ord>(?<![\w.,])(?P<ordn>\d{1,9})(?P<ords>r|n|t|è|a)(?!\w))"
# Portuguese clock times written with "h": "9h", "17h30" (the "h" was read as a letter).
_PT_CLOCK = r"(?P<hclock>(?<![\w.,:])(?P<hc_h>\d{1,2})h(?P<hc_m>\d{2})?(?!\w))"
_EXTRA = {
    "ru": _slavic_patterns("ru"),
    "uk": _slavic_patterns("uk"),
    "pl": _slavic_patterns("pl"),
    "it": _ROMANCE_ORDINAL,
    "pt": _ROMANCE_ORDINAL + "|" + _PT_CLOCK,
    "ca": _CATALAN_ORDINAL,
}


# The word a range's dash is said as, where the language says one ("2-3 dias" -> "dois a três dias",
# "2-3 dagen" -> "twee tot drie dagen"); elsewhere the dash stays a short pause ("due-tre giorni", "два-три
# дня" are said so; Czech "až" would need the second count's case too).
RANGE_LINKS = {"pt": "a", "ca": "a", "nl": "tot", "sv": "till", "da": "til", "no": "til"}


def _range_pattern(language: str) -> str:
    if language not in RANGE_LINKS:
        return ""
    return (
        r"|(?P<rng>(?<![\w.,/+*=-])(?P<rlo>[1-9]\d{0,3})\s?[-–]\s?"
        r"(?=(?P<rhi>[1-9]\d{0,3})(?![\d-]|[.,]\d|\s*=)))"
    )


def _range(m: re.Match, language: str, before: list[str]) -> str:
    """The first count of a range and its link ("uma a", "twee tot"); the second is read by its own rule.
    The same test as en/es/de/fr's: rising, of like size, no identifier's cue; a phone number or a score
    keeps its dash ("555-1234", "3-1")."""
    lo, hi = int(m.group("rlo")), int(m.group("rhi"))
    if not is_range(lo, hi, m.string[max(0, m.start() - 40) : m.start()], language):
        return f"{_number(m.group('rlo'), language)} -"
    noun = agreement.counted_noun(m.string, m.end() + len(m.group("rhi")), language)
    words = agreement.count_form(spell_number(lo, language), lo, noun, language, before, ranged=True)
    return f"{words} {RANGE_LINKS[language]}"


# E-mail and web addresses, tried first: "info@azienda.it" -> "info chiocciola azienda punto it" (the "@" was
# dropped as unspeakable). Latin letters only: Chinese and Japanese write no space before an address. The words for "@" and "." where the language has a common one; elsewhere the
# English "at" and "dot", which are said in web addresses in many languages.
_ADDRESS = (
    r"(?P<address>(?<![A-Za-z0-9_.+-])[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"
    r"|(?:https?://|www\.)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?:/[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)*/?)|"
)
_AT = {
    "it": "chiocciola",
    "pt": "arroba",
    "ca": "arrova",
    "nl": "apenstaartje",
    "pl": "małpa",
    "cs": "zavináč",
    "sk": "zavináč",
    "sl": "afna",
    "ru": "собака",
    "uk": "равлик",
    "sv": "snabel-a",
    "da": "snabel-a",
    "no": "krøllalfa",
    "fi": "ät",
    "hu": "kukac",
    "tr": "et",
    "el": "παπάκι",
    "ro": "a rond",
}
# The word for "+" before a country code ("+48 ..." is "plus czterdzieści osiem"); a language without one here
# leaves the sign unsaid, as before.
_PLUS = {
    **dict.fromkeys("nl pl cs sk sl hr sr sv da fi lv ro id af".split(), "plus"),
    **dict.fromkeys("ru uk bg kk".split(), "плюс"),
    **dict.fromkeys("no et".split(), "pluss"),
    "it": "più",
    "pt": "mais",
    "ca": "més",
    "lt": "plius",
    "hu": "plusz",
    "is": "plús",
    "el": "συν",
    "tr": "artı",
    "eu": "gehi",
    "ja": "プラス",
    "zh": "加",
    "ko": "플러스",
    "vi": "cộng",
    "th": "บวก",
    "he": "פלוס",
    "ar": "زائد",
    "hi": "प्लस",
    "ka": "პლუს",
    # The English word, which Indian languages and Urdu say before a country code, in each script.
    "mr": "प्लस",
    "bn": "প্লাস",
    "gu": "પ્લસ",
    "pa": "ਪਲੱਸ",
    "kn": "ಪ್ಲಸ್",
    "ml": "പ്ലസ്",
    "ta": "பிளஸ்",
    "te": "ప్లస్",
    "ur": "پلس",
}
_DOT_WORD = {
    "it": "punto",
    "pt": "ponto",
    "ca": "punt",
    "nl": "punt",
    "pl": "kropka",
    "cs": "tečka",
    "sk": "bodka",
    "sl": "pika",
    "ru": "точка",
    "uk": "крапка",
    "sv": "punkt",
    "da": "punktum",
    "no": "punktum",
    "fi": "piste",
    "hu": "pont",
    "tr": "nokta",
    "el": "τελεία",
    "ro": "punct",
}


def _address(m: re.Match, language: str) -> str:
    words = {".": _DOT_WORD.get(language, "dot"), "@": _AT.get(language, "at"), "/": ","}
    return spoken_address(m.group("address"), words, lambda d: spell_number(d, language))


# Digits and the letters of the scripts that put a space between a word and a number.
_ALPHANUMERIC = "0-9A-Za-z\u00c0-\u024f\u0370-\u052f"


# Phone numbers and other grouped digits (tried after dates, before ranges and numbers): an international
# prefix, an area code in brackets or with its leading zero, three or more groups joined by spaces or
# dashes, or the "555-1234" shape. Groups of thousands ("1 234 567") are numbers (`_phone`).
def _phone_pattern(thousands: str, after_amount: str) -> str:
    """`thousands`: a number grouped the locale's way, which is no phone number; `after_amount`: what may
    follow an amount (a currency, a unit, "%"), after which grouped digits are one."""
    return (
        # (not after a Latin, Greek or Cyrillic letter: "A12-34-56" is a code; Chinese and Japanese write no
        # space before a number: "電話は03-1234-5678")
        rf"|(?P<phone>(?<![{_ALPHANUMERIC}.,+/-])(?!(?:{thousands})(?![\d]|[ -]\d))(?:"
        # a prefix or an area code in brackets: seven digits in all ("+20-25 stopni", "(2) 500 g" are none)
        r"(?=[+(](?:[ ()-]*\d){7})(?:\+\d{1,3}(?:[ -]?\(\d{1,5}\))?(?:[ -]\d{1,8})+"
        r"|\(\d{1,5}\)\s?\d{1,8}(?:[ -]\d{1,8})*)"
        # an area code with its zero: then two more groups, or five digits ("08-16" is a span, "03/2026" a month)
        r"|0\d{1,4}(?:[ /-]\d{2,8}){2,}|0\d{1,4}[ /-]\d{5,8}"
        r"|\d{1,4}(?:[ -]\d{2,4}){2,}"
        r"|\d{3}-\d{4}"
        rf")(?![{_ALPHANUMERIC}]|[.,]\d|[/-]\d|\s?(?:{after_amount})))"
    )


# Versions and network addresses: three or more numbers joined by dots that are no date ("3.12.1",
# "192.168.1.1"); not a group of thousands with its decimals ("1.234.567,89 €").
_DOTTED = r"|(?P<dotted>(?<![\w.,])\d{1,4}(?:\.\d{1,4}){2,}(?!\w|[.,]\d))"
# Where digits are said one by one even in pairs.
_DIGITS_ONLY = frozenset({"zh", "ja", "ko"})


def _digits(group: str, language: str) -> str:
    return " ".join(spell_number(int(d), language) for d in group)


def _phone_groups(groups: list[str], language: str) -> str:
    """ "22 123 45 67" -> "dwadzieścia dwa, jeden dwa trzy, czterdzieści pięć, sześćdziesiąt siedem": one
    pause per written group; a pair is said as a number (as French, Spanish, Russian, Polish, Italian...
    speakers say numbers written in pairs), other groups and any group with a leading zero digit by digit.
    (`_phone_pattern` leaves groups of thousands, "1 234 567", to the number rule.)"""
    return ", ".join(
        spell_number(int(g), language)
        if pair_as_number(g, len(groups)) and language not in _DIGITS_ONLY
        else _digits(g, language)
        for g in groups
    )


def _dotted(m: re.Match, language: str) -> str:
    """ "3.12.1" -> "trzy, dwanaście, jeden"; an IPv4 address digit by digit ("192.168.1.1" -> "jeden dziewięć
    dwa, jeden sześć osiem, jeden, jeden"), seven digits or more as a phone number. The dot is a pause: the word for it differs by language and
    use, and CLDR does not name it. Groups of thousands written with dots are numbers."""
    text = m.group("dotted")
    parts = text.split(".")
    kind = dotted_kind(parts)
    dot_groups = get_group_symbol(_locale(language)) == "." or _GROUP_ALSO.get(language) == "."
    if dot_groups and kind != "ip" and re.fullmatch(r"[1-9]\d{0,2}(?:\.\d{3})+", text):
        return _number(text, language, m)
    if kind == "phone":  # "06.12.34.56.78": a phone number written with dots
        return _phone_groups(parts, language)
    ip = kind == "ip"
    return ", ".join(
        _digits(p, language) if ip or (p[0] == "0" and p != "0") else spell_number(int(p), language)
        for p in parts
    )


def _numeric_date_pattern(language: str) -> str:
    """Dates in digits: "03/12/2024", "3.12.2024", "3. 12. 2024", "03-12-24", day first where the locale's
    CLDR short date starts with the day (every catalog language that starts with a number), and a year of
    four digits first anywhere ("2024/12/03"). A two-digit year is this century's."""
    sep = r"(?:[/-]|\.\s?)"
    year_first = rf"(?P<ny1>\d{{4}}){sep}(?P<nm1>\d{{1,2}}){sep}(?P<nd1>\d{{1,2}})"
    # a two-digit year only after slashes or dots: "06-12-34" is more often a phone number or a code
    day_first = (
        rf"(?P<nd>\d{{1,2}}){sep}(?P<nm>\d{{1,2}}){sep}(?P<ny>\d{{4}})"
        rf"|(?P<nd2>\d{{1,2}})(?:/|\.\s?)(?P<nm2>\d{{1,2}})(?:/|\.\s?)(?P<ny2>\d{{2}})"
    )
    starts_with_day = get_date_format("short", locale=_locale(language)).pattern.lstrip("'").startswith("d")
    both = f"{year_first}|{day_first}" if starts_with_day else year_first
    # "03.12.2024 г.": the year's abbreviation is in the spoken date ("... года")
    year_word = {
        "ru": r"(?:\s?г\.)?",
        "bg": r"(?:\s?г\.)?",
        "uk": r"(?:\s?(?:р\.|року\b))?",
        "pl": r"(?:\s?(?:r\.|roku\b))?",
    }
    year_word = year_word.get(language, "")
    return rf"|(?P<ndate>(?<![\d.,/-])(?:{both})(?![\d/-]|[.,]\d){year_word})"


@cache
def _master(language: str) -> re.Pattern:
    loc = _locale(language)
    dec = re.escape(get_decimal_symbol(loc))
    group = get_group_symbol(loc)
    group_re = r"[ \u00a0\u202f]" if group.strip() in ("", "\u00a0", "\u202f") else re.escape(group)
    if language in _GROUP_ALSO:  # (not after a lone zero: "0.001" is no thousand)
        group_re = f"(?:{group_re}|(?<!(?<!\\d)0){re.escape(_GROUP_ALSO[language])})"
    num = rf"\d{{1,3}}(?:{group_re}\d{{3}})+(?:{dec}\d+)?|\d+(?:{dec}\d+)?"
    # Symbols written with letters (zł, Kč, Ft) only as whole words: "złotych" holds no "zł".
    syms = "|".join(
        rf"(?<!\w){re.escape(s)}(?!\w)" if s[-1].isalpha() else re.escape(s) for s in _CURRENCY_SYMBOLS
    )
    codes = "|".join(_ISO_CODES)
    units = "|".join(map(re.escape, sorted(UNITS, key=len, reverse=True)))
    # Clock times are written 14:30, or 14.30 where the locale writes them so (fi, da, no).
    # Where a dot cannot be the decimal symbol, "9.30" is a time too ("ore 9.30", "kl. 9.30"): a group of
    # thousands has three digits.
    dot_time = ".mm" in get_time_format("short", locale=loc).pattern or get_decimal_symbol(loc) != "."
    time_sep = "[:.]" if dot_time else ":"
    clock_word = ""
    if language == "nl":  # "14.30 uur" as well as "14:30"; the written "uur" is part of the time
        time_sep = r"(?::|\.(?=\d\d\s+uur\b))"
        clock_word = r"(?:\s+uur\b)?"
    extra = f"{_EXTRA[language]}|" if language in _EXTRA else ""
    if language in ordinals.DAY_ORDINAL_LANGUAGES:
        extra += _dot_date_pattern(language) + "|"
    if language == "hu":  # "(2024.) május 3.", "május 3-án"
        months = "|".join(map(re.escape, _month_names(language)))
        extra += (
            rf"(?P<hu_date>(?<![\d.,])(?:(?P<hu_year>\d{{4}})\.\s+)?(?P<hu_month>(?i:{months}))\s+"
            rf"(?P<hu_day>\d{{1,2}})(?:-(?P<hu_ending>[^\W\d_]+)|\.)(?!\w))|"
        )
    if language in suffixes.SEPARATORS:  # "3:lle", "10-kor", "3'te", "3:e"
        sep = re.escape(suffixes.SEPARATORS[language])
        extra += rf"(?P<ended>(?<![\w.,:'-])(?P<ended_n>\d{{1,9}}){sep}(?P<ending>[^\W\d_]+)(?!\w))|"
    return re.compile(
        _ADDRESS
        + extra
        + r"(?P<date>(?<!\d)(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})(?!\d))"
        + _numeric_date_pattern(language)
        + (
            r"|(?P<dm>(?<![\d.,/-])(?P<dmd>\d{1,2})/(?P<dmm>\d{1,2})(?![\d/]|[.,]\d))"
            if _slash_day_month(language)
            else ""
        )
        + _DOTTED
        + _phone_pattern(
            rf"\d{{1,3}}(?:[ {re.escape(group)}]\d{{3}})+",
            rf"{syms}|%|(?:{codes})\b|(?:{units})(?![\w/'’])",
        )
        + _range_pattern(language)
        + rf"|(?P<time>(?<![\d:.,])(?P<h>\d{{1,2}}){time_sep}(?P<mi>\d{{2}})(?![\d:]|[.,]\d)"
        rf"(?!\s?(?:{syms}|%|(?:{codes})\b|(?:{units})(?![\w/'’]))){clock_word})"
        rf"|(?P<cur>(?P<sym>{syms})\s?(?P<amt>{num})|(?P<amt2>{num})\s?(?P<sym2>{syms}|(?:{codes})\b))"
        rf"|(?P<pct>(?P<pamt>{num})\s?%)"
        # not before an ending ("2 km-re", "5 km:n") or inside an abbreviation ("5 л.с.")
        rf"|(?P<unit>(?<![\w.,])(?P<uamt>{num})\s?(?P<usym>{units})(?![\w/'’]|[-:.]\w))"
        rf"|(?P<num>{num})"
    )


def _speakable(text: str) -> str:
    """Letters of any script with their marks, digits, spaces and kept punctuation; the rest -> space."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in _KEEP or cat[0] in "LMN" and (cat != "No"):
            out.append(ch)
        else:
            out.append(" ")
    return " ".join("".join(out).split())


_janome_lock = threading.Lock()


@cache
def _janome():
    from janome.tokenizer import Tokenizer  # loaded on the first Japanese text (0.4 s, a 200 MB dictionary)

    return Tokenizer()


_HAS_KANJI = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Counters after a number, read as counters (the dictionary alone reads 3月 as "3 tsuki", moon).
_COUNTERS = {"年": "ネン", "月": "ガツ", "日": "ニチ", "円": "エン", "時": "ジ", "分": "フン", "人": "ニン"}
_COUNTER = re.compile(r"(?<=\d)([年月日円時分人])")


def _kana(text: str) -> str:
    """Japanese text as katakana pronunciation, for espeak-ng; text without kanji is left as it is."""
    text = _COUNTER.sub(lambda m: _COUNTERS[m.group(1)], text)
    if not _HAS_KANJI.search(text):
        return text
    with _janome_lock:  # Janome's tokenizer keeps state between calls
        tokens = list(_janome().tokenize(text))
    return "".join(t.phonetic if t.phonetic not in ("*", "") else t.surface for t in tokens)


def _add_text(segments: list[Segment], chunk: str) -> None:
    if not chunk:
        return
    spoken = _speakable(chunk)
    if spoken or chunk.strip():
        segments.append(Segment(chunk, spoken, "text"))


def _kept_stop(m: re.Match) -> str:
    """ "." when the match ends in an abbreviation ("г.", "r.") that is also the sentence's full stop."""
    return "." if m.group(0).endswith(".") and ends_sentence(m) else ""


def _handle(m: re.Match, language: str) -> tuple[str, str | None]:
    groups = m.groupdict()
    before = agreement.previous_words(m.string, m.start())
    if groups.get("address"):
        return "address", _address(m, language)
    if groups.get("sdate"):
        yr = int(m.group("sy")) if m.group("sy") else None
        spoken = _day_month(int(m.group("sd")), m.group("sm"), yr, language, before)
        return "date", spoken and spoken + _kept_stop(m)
    if groups.get("hu_date"):
        day, ending = int(m.group("hu_day")), (m.group("hu_ending") or "").lower()
        year = f"{spell_number(int(m.group('hu_year')), language)} " if m.group("hu_year") else ""
        if not 1 <= day <= 31:  # no day: the number as it is written
            said = (
                suffixes.with_ending(day, ending, language) if ending else f"{spell_number(day, language)}."
            )
            return "date", f"{year}{m.group('hu_month')} {said}"
        spoken = f"{year}{m.group('hu_month')} {suffixes.hungarian_day(day, ending)}"
        return "date", spoken + _kept_stop(m)
    if groups.get("ended"):
        n, ending = int(m.group("ended_n")), m.group("ending")
        if not (ending.islower() or ending.isupper()):  # "1:Öppna appen": a new sentence, not an ending
            return "number", f"{spell_number(n, language)} {suffixes.SEPARATORS[language]}{ending}"
        return "number", suffixes.with_ending(n, ending, language)
    if groups.get("hclock"):
        h, mi = int(m.group("hc_h")), int(m.group("hc_m") or 0)
        if h > 23 or mi > 59:  # no clock time: the numbers as written
            return "number", f"{spell_number(h, language)} h" + (
                f" {spell_number(mi, language)}" if mi else ""
            )
        # hours are feminine: "uma hora", "duas horas", "às vinte e duas horas e trinta"
        noun = "hora" if h == 1 else "horas"
        hours = agreement.count_form(spell_number(h, language), h, noun, language, before)
        return "time", f"{hours} {noun}" + (f" e {spell_number(mi, language)}" if mi else "")
    if groups.get("dot_day"):
        return "date", _dot_day(m, language)
    if groups.get("syear"):
        n, word = int(m.group("syn")), m.group("syw")
        if language == "ru":
            words, year_word = ordinals.russian_year(n, word, before)
            return "year", f"{words} {year_word}" + _kept_stop(m)
        if language == "uk":
            return "year", _ukrainian_year(n, word, before) + _kept_stop(m)
        return "year", _polish_year(n, word, before) + _kept_stop(m)
    if groups.get("ord"):
        words = " ".join(num2words(int(m.group("ordn")), lang=language, to="ordinal").split())
        feminine = m.group("ords") == "a"
        return "ordinal", ordinals.romance_feminine_ordinal(words, language) if feminine else words
    if m.group("date"):
        return "iso_date", _date(int(m.group("y")), int(m.group("mo")), int(m.group("d")), language)
    if m.group("ndate"):
        g = m.groupdict()  # one of the three alternatives matched: year first, day first, two-digit year
        y, mo, d = (int(g[f"{k}1"] or g.get(k) or g.get(f"{k}2")) for k in ("ny", "nm", "nd"))
        if g.get("ny2"):  # "12/05/98" is a birth date, not 2098; "03/12/24" this century's
            y += 2000 if y <= datetime.date.today().year % 100 + 10 else 1900
        spoken = _date(y, mo, d, language, before)
        return "date", spoken and (spoken if spoken.endswith(".") else spoken + _kept_stop(m))
    if m.groupdict().get("dm"):
        return _day_month_slash(m, language, before)
    if m.groupdict().get("dotted"):
        return "dotted", _dotted(m, language)
    if m.groupdict().get("phone"):
        plus = _PLUS.get(language, "") if m.group("phone").startswith("+") else ""
        return "phone", (f"{plus} " if plus else "") + _phone_groups(
            re.findall(r"\d+", m.group("phone")), language
        )
    if m.groupdict().get("rng"):
        return "range", _range(m, language, before)
    if m.group("time"):
        dotted = m.group("time")[len(m.group("h"))] == "."
        if dotted and language == "pl" and not (before and before[-1] in _PL_CLOCK_CUES):
            return "time", None  # "wersja 2.10", "art. 5.12": no hour (a Polish hour is an ordinal)
        return "time", _time(int(m.group("h")), int(m.group("mi")), language, before)
    if m.group("cur"):
        sym = m.group("sym") or m.group("sym2")
        code = _SYMBOL_OVERRIDES.get(language, {}).get(sym) or _CURRENCY_SYMBOLS.get(sym, sym)
        return "currency", _currency(code, m.group("amt") or m.group("amt2"), language, before)
    if m.group("pct"):
        return "percent", _percent(m.group("pamt"), language)
    if m.group("unit"):
        return "unit", _unit(m.group("uamt"), m.group("usym"), language, before)
    if language in _YEAR_CUES and re.fullmatch(r"1[1-9]\d\d", m.group("num")):
        cued = before and (before[-1] in _YEAR_CUES[language] or before[-1] in _month_names(language))
        after = agreement.next_word(m.string, m.end())
        # Not before a capitalised word (a postcode: "1799 København") or a unit ("1999 euro", "1700 uur").
        if cued and not after[:1].isupper() and after.lower() not in _NOT_AFTER_YEAR:
            return "year", _year(int(m.group("num")), language)
    if language == "pt" and re.fullmatch(r"[29]\d\d[ \u00a0]\d{3}[ \u00a0]\d{3}", m.group("num")):
        # a Portuguese phone number (nine digits, land lines from 2, mobiles from 9), not 912 million
        return "phone", _phone_groups(re.findall(r"\d+", m.group("num")), language)
    if re.fullmatch(r"0\d{2,}", m.group("num")):  # "0123", "00184": an identifier ("09 часов" is a count)
        return "number", _digits(m.group("num"), language)
    if re.fullmatch(r"\d{7,}", m.group("num")) and not m.group("num").endswith("000"):
        # "ordine 12345678": seven digits or more, ungrouped and not round, are an identifier (an amount
        # that large is written with groups, "12 345 678", or round, "1000000")
        return "number", _digits(m.group("num"), language)
    return "number", _number(m.group("num"), language, m)


def normalize_segments(text: str, language: str) -> list[Segment]:
    """Segments of `text` with their spoken form, for a catalog language without hand-written rules."""
    if not isinstance(text, str):
        raise NormalizationError(f"text must be str, got {type(text).__name__}")
    get(language)
    text = unicodedata.normalize("NFKC", text).translate(_PUNCT_FOLD)
    master = _master(language)
    segments: list[Segment] = []
    pos = 0
    for m in master.finditer(text):
        rule, spoken = _handle(m, language)
        if spoken is None:
            continue  # "25:99" is no time: it stays in the text as written (espeak-ng reads its digits)
        _add_text(segments, text[pos : m.start()])
        segments.append(Segment(m.group(0), " ".join(spoken.split()), rule))
        pos = m.end()
    _add_text(segments, text[pos:])
    if language == "ja":
        kana: list[Segment] = []
        for seg in segments:
            spoken = seg.spoken
            if kana and kana[-1].original[-1:].isdigit() and spoken[:1] in _COUNTERS:  # "3" then "月"
                spoken = _COUNTERS[spoken[0]] + spoken[1:]
            kana.append(Segment(seg.original, _kana(spoken), seg.rule))
        segments = kana
    return segments
