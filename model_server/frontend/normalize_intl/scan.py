"""The scan: one pattern of all rules per language, the handler that reads a match, and the pass over the text."""

from __future__ import annotations

import datetime
import re
import unicodedata
from functools import cache

from babel.dates import get_time_format
from babel.numbers import get_decimal_symbol, get_group_symbol
from num2words import num2words

from .. import agreement, ordinals, roman, suffixes
from ..languages import get
from ..normalize import NormalizationError, Segment
from ..normalize.amounts import GRADE_WORDS, grade
from ..normalize.ranges import SCORE_LINK
from ..normalize.words import (
    CLOTHING_SIZE,
    NAME_DASH,
    SLASH_NUMBER,
    SLASH_WORDS,
    ends_sentence,
    name_before_number,
    slash_number,
)
from ..script import LETTER
from . import baltic_dates, cjk, japanese, postcodes
from .amounts import (
    _CURRENCY_SYMBOLS,
    _GROUP_ALSO,
    _ISO_CODES,
    _SYMBOL_OVERRIDES,
    PER_UNITS,
    UNITS,
    _currency,
    _locale,
    _number,
    _percent,
    _unit,
    compound_unit,
    currency_name,
    minus_word,
    spell_number,
)
from .cues import CLOCK_CUES, NUMBER_NAMES, VERSION_WORDS, after_name, continues_code, is_code
from .dates import (
    _NOT_AFTER_YEAR,
    _PL_CLOCK_CUES,
    _YEAR_CUES,
    IN_HUNDREDS,
    _date,
    _day_month,
    _day_month_slash,
    _dot_date_pattern,
    _dot_day,
    _kept_stop,
    _month_names,
    _polish_year,
    _slash_day_month,
    _time,
    _ukrainian_year,
    _year,
    day_and_month,
    day_before_month,
    day_month_dot,
    day_month_dot_pattern,
    dot_day_month,
    polish_hour_context,
    polish_hour_word,
)
from .patterns import (
    _ABBREVIATIONS,
    _ADDRESS,
    _EXTRA,
    _PLUS,
    SOUTH_SLAVIC_YEAR_END,
    _abbreviation_pattern,
    _address,
    _characters,
    _digits,
    _dotted,
    _dotted_pattern,
    _numeric_date_pattern,
    _phone_groups,
    _phone_pattern,
    _range,
    _range_pattern,
    weekday_span,
    weekday_span_pattern,
    word_char,
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
        "٪": "%",  # Arabic percent, decimal and thousands signs (the locales' CLDR symbols are "." and ",")
        "٫": ".",
        "٬": ",",
    }
)


# The ideographic and Arabic commas are never decimal or thousands marks, so a digit after one starts a new
# number; folded to "," alone they joined it to the number before ("15:45、2016" was no clock time,
# "15:45,2016"). The full-width comma is one only between digits in threes ("１２，５００").
_WIDE_COMMA_BEFORE_DIGIT = re.compile(r"[、،]\s*(?=\d)|(?<!\d)，\s*(?=\d)|，\s*(?=\d)(?!\d{3}(?!\d))")

_KEEP = set(".,;:!?'\"()-")


@cache
def _master(language: str, fallback: bool = False) -> re.Pattern:
    """Every rule of `language` in one pattern; with `fallback`, without the rules whose handler may decline
    a match for the others to read (`_DECLINES`)."""
    loc = _locale(language)
    dec = re.escape(get_decimal_symbol(loc))
    group = get_group_symbol(loc)
    group_re = r"[ \u00a0\u202f]" if group.strip() in ("", "\u00a0", "\u202f") else re.escape(group)
    if language in _GROUP_ALSO:  # (not after a lone zero: "0.001" is no thousand)
        group_re = f"(?:{group_re}|(?<!(?<!\\d)0){re.escape(_GROUP_ALSO[language])})"
    num = rf"\d{{1,3}}(?:{group_re}\d{{3}}(?!\d))+(?:{dec}\d+)?|\d+(?:{dec}\d+)?"  # "T3 2025": no "3 202"
    # lakh and crore: "1,25,000", "2,50,00,000" (India's locales, and Pakistan's and Karnataka's as written)
    if loc.decimal_formats[None].grouping[1] == 2 or language in ("ur", "kn"):
        num = rf"\d{{1,2}}(?:{group_re}\d{{2}})+{group_re}\d{{3}}(?!\d)(?:{dec}\d+)?|{num}"
    # Symbols written with letters (zł, Kč, Ft, Rp) not inside a word ("złotych" holds no "zł"); a digit may touch
    # them ("12zł", "Rp250.000").
    syms = "|".join(
        rf"(?<![^\W\d_]){re.escape(s)}(?![^\W\d_]){_NOT_AFTER_SYMBOL.get(s, '')}"
        if s[-1].isalpha()
        else re.escape(s)
        for s in _CURRENCY_SYMBOLS
        if language in _SYMBOL_LANGUAGES.get(s, (language,))
    )
    codes = "|".join(_ISO_CODES)
    # a scale word after a price ("Rp1,5 juta", "₹50 लाख"): said before the currency's name
    scales = _SCALE_WORDS.get(language)
    scale = rf"(?:\s?(?P<scale>{'|'.join(map(re.escape, scales))})(?!\w))?" if scales else ""
    units = "|".join(map(re.escape, sorted(UNITS, key=len, reverse=True)))
    per_units = "|".join(map(re.escape, sorted(PER_UNITS, key=len, reverse=True)))
    # Clock times are written 14:30, or 14.30 where the locale writes them so (fi, da, no).
    # Where a dot cannot be the decimal symbol, "9.30" is a time too ("ore 9.30", "kl. 9.30"): a group of
    # thousands has three digits.
    dot_time = ".mm" in get_time_format("short", locale=loc).pattern or get_decimal_symbol(loc) != "."
    time_sep = "[:.]" if dot_time else ":"
    clock_word = ""
    if language == "th":  # "14:30 น.", "14.30 น." (นาฬิกา): the written abbreviation is part of the time
        time_sep = r"(?::|\.(?=\d\d\s*น\.))"
        clock_word = r"(?:\s*น\.)?"
    if language == "nl":  # "14.30 uur" as well as "14:30"; the written "uur" is part of the time
        time_sep = r"(?::|\.(?=\d\d\s+uur\b))"
        clock_word = r"(?:\s+uur\b)?"
    word = word_char(language)
    glued = "[:.]" if language == "hu" else "[-:.]"  # "5 km-re": a Hungarian ending joins the unit's word
    extra = (
        weekday_span_pattern(language)
        + _abbreviation_pattern(language)
        + (f"{_EXTRA[language]}|" if language in _EXTRA else "")
    )
    if language in SLASH_WORDS and not fallback:  # "2024/00123", "Lei 39/2015": the slash's word
        extra += rf"(?P<slash_number>{SLASH_NUMBER})|"
    if language == "it":  # the codice fiscale: character by character (its digits were cardinals)
        extra += r"(?P<tax_code>(?<![\w-])[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z](?![\w-]))|"
    # letters glued to three or four digits, a flight or a train ("TP1234", "AZ610"): the letters, then the digits
    # (Chinese and Japanese read such a code in their own digits: `cjk`)
    if get(language).spaces:
        extra += r"(?P<flight>(?<![\w-])(?!RM|TL|KM)[A-Z]{2}(?P<flight_n>\d{3,4})(?![\w-]))|"  # (not "RM249")
        # a code of capitals and digits mixed, six characters or more ("1Z999AA10123456784", "RTX4090"): one by one
        extra += r"(?P<alnum>(?<![\w-])(?!RM\d|TL\d)(?=[A-Z0-9]*[A-Z])(?=[A-Z0-9]*\d)[A-Z0-9]{6,}(?![\w-]))|"
    if language in _LOCAL_PHONE:
        extra += rf"(?P<local_phone>(?<![\d.,+-]){_LOCAL_PHONE[language]}(?![\d-]|[.,]\d))|"
    extra += rf"(?P<size>{CLOTHING_SIZE})|" + ("" if fallback else rf"(?P<name_dash>{NAME_DASH})|")
    if language in roman.LANGUAGES and not fallback:  # "Luigi XIV", "D. João VI", "XXI secolo"
        extra += rf"(?P<roman_numeral>{roman.PATTERN})|"
    if language in _KEY_PLUS:  # "Ctrl+Alt+Canc": the keys' "+" is said (it was dropped)
        extra += r"(?P<key_plus>(?<=[A-Za-z])\+(?=[A-Z][a-z]{0,5}\b))|"
    # an IBAN: country, check digits and groups, character by character, a pause per group
    extra += r"(?P<iban>\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b)|"
    if minus_word(language):  # "-20 €", "-5 °C": a sign before a number, after a space or the start
        extra += rf"(?P<minus>(?<!{word})(?<![.,)\]/+*=-])(?<!\d\s)[-−](?=\d))|"
    if language == "tr":  # Turkish writes the percent sign first: "%20 indirim"
        extra += rf"(?P<pct_first>(?<![\w%])%\s?(?P<pfamt>{num}))|"
    if language == "pl" and not fallback:  # a span of clock times, "8:00-16:00": "od ósmej do szesnastej"
        extra += r"(?P<pl_hours>(?<![\d:.,])(?P<plh_a>\d{1,2}:\d{2})\s?[-–]\s?(?P<plh_b>\d{1,2}:\d{2})(?![\d:]|[.,]\d))|"
    if language in postcodes.SHAPES:  # "1012 LG Amsterdam", "110 00 Praha", "00-950 Warszawa"
        extra += rf"(?P<postcode>{postcodes.SHAPES[language]})|"
    if language in _SCORE_BEFORE:  # a result: "Ha vinto 3-1" -> "tre a uno" (the dash was a pause)
        cues = "|".join(
            rf"(?<=\b{w} )|(?<=\b{w} {p} )"
            for w in _SCORE_BEFORE[language]
            for p in ("per", "por", "de", "di")
        )
        after = "|".join(_SCORE_AFTER[language])
        extra += (
            rf"(?P<score>(?:(?i:{cues})|(?=\d{{1,3}}\s?[-–]\s?\d{{1,3}}\s+(?:{after})\b))"
            r"(?P<sc1>\d{1,3})\s?[-–]\s?(?P<sc2>\d{1,3})(?![\d-]|[.,:]\d))|"
        )
    # a mark out of 20, 30 or 110: "28/30" -> "ventotto su trenta" (before the day and month; a "/10" stays theirs)
    if language in GRADE_WORDS:
        extra += r"(?P<grade>(?<![\d/.,])(?P<grade_a>\d{1,3}(?:,\d{1,2})?)\s?/\s?(?P<grade_b>20|30|110)(?![\d/]|[.,]\d))|"
    if language in _BY_WORD:  # a size: "30 x 40 cm", a promotion "3x2" (espeak-ng said the letter x)
        extra += r"(?P<dim>(?<![\w.,])(?P<dim_a>\d{1,4})\s?[x×]\s?(?=\d{1,4}(?!\d)))|"
    if language in _TIMES_WORD:  # a dose: "2x per dag", "3x al giorno"
        extra += r"(?P<times>(?<![\w.,])(?P<times_n>[1-9]\d?)\s?x(?=\s+[^\W\d_])(?!\s?\d))|"
    if language in ordinals.DAY_ORDINAL_LANGUAGES:
        extra += _dot_date_pattern(language) + "|"
    # a Serbian or Croatian year after a month's name or before "godine" ("3. maja 2024.", "u maju 2024. godine");
    # declined elsewhere
    if language in ordinals.YEAR_ORDINAL_LANGUAGES and not fallback:
        extra += (
            rf"(?P<month_year>(?<![\d.,])(?P<month_year_n>\d{{4}})(?![\d]|[.,]\d){SOUTH_SLAVIC_YEAR_END})|"
        )
    if not fallback:  # "2024. gada 5. martā", "2024 m. kovo 5 d." (a day past 31 declines)
        extra += baltic_dates.pattern(language)
    if language == "hu":  # "(2024.) május 3.", "május 3-án"
        months = "|".join(map(re.escape, _month_names(language)))
        extra += (
            rf"(?P<hu_date>(?<![\d.,])(?:(?P<hu_year>\d{{4}})\.\s+)?(?P<hu_month>(?i:{months}))\s+"
            rf"(?P<hu_day>\d{{1,2}})(?:-(?P<hu_ending>[^\W\d_]+)|\.)(?!\w))|"
        )
    # "3. emelet" -> "harmadik emelet", "på 3. sal" (a date's day is matched above); not a sentence's last number
    # before a lower-case word, nor a house number after its street ("Váci út 23.")
    if (
        language in _DOT_ORDINAL
        or (language in ordinals.SLAVIC_CASE_BEFORE or language == "lv")
        and not fallback
    ):
        # (Croatian and Serbian ordinals go to 2999: "2024. primjerak"; a year's case is read above)
        digits = "1,4" if language in ordinals.YEAR_ORDINAL_LANGUAGES else "1,3"
        extra += rf"(?P<dotord>(?<![\w.,])(?P<dotord_n>\d{{{digits}}})\.(?=\s+[^\W\d_A-ZÀ-ÖØ-ÞŐŰА-Я]))|"
    if language in suffixes.SEPARATORS:  # "3:lle", "10-kor", "3'te", "3:e"
        sep = re.escape(suffixes.SEPARATORS[language])
        extra += rf"(?P<ended>(?<![\w.,:'-])(?P<ended_n>\d{{1,9}}){sep}(?P<ending>{LETTER}+)(?!\w))|"
    return re.compile(
        _ADDRESS
        + extra
        + r"(?P<date>(?<!\d)(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})(?!\d))"
        + _numeric_date_pattern(language)
        + ("" if fallback else day_month_dot_pattern(language))
        + (
            r"|(?P<dm>(?<![\d.,/-])(?P<dmd>\d{1,2})/(?P<dmm>\d{1,2})(?![\d/]|[.,]\d))"
            if _slash_day_month(language)
            else ""
        )
        + _dotted_pattern(rf"{syms}|%|(?:{codes})\b|(?:{units})(?![\w/'’])")
        + _phone_pattern(
            rf"\d{{1,3}}(?:[ {re.escape(group)}]\d{{3}})+",
            rf"{syms}|%|(?:{codes})\b|(?:{units})(?![\w/'’])",
        )
        + _range_pattern(language)
        + rf"|(?P<time>(?<![\d:.,])(?P<h>\d{{1,2}}){time_sep}(?P<mi>\d{{2}})(?![\d:]|[.,]\d)"
        rf"(?!\s?(?:{syms}|%|(?:{codes})\b|(?:{units})(?![\w/'’]))){clock_word})"
        rf"|(?P<cur>(?:(?P<sym>{syms})\s?(?P<amt>{num}){scale}|(?P<amt2>{num})\s?(?P<sym2>{syms}|(?:{codes})\b))"
        # a price per unit: "9,99 €/mese", "49 kr/mån"
        + (r"(?:\s?/\s?(?P<per>[^\W\d_]{2,12})\b)?)" if language in _PER_WORD else ")")
        + rf"|(?P<pct>(?P<pamt>{num})\s?%)"
        # not before an ending ("2 km-re", "5 km:n") or inside an abbreviation ("5 л.с.")
        rf"|(?P<cunit>(?<!{word})(?<![.,])(?P<cuamt>{num})\s?(?P<cu1>{units})/(?P<cu2>{per_units})(?!{word}|[/'’]))"
        rf"|(?P<unit>(?<!{word})(?<![.,])(?P<uamt>{num})\s?(?P<usym>{units})(?!{word}|[/'’]|{glued}\w))"
        # a currency's sign no amount took ("2 milioni €", "prezzi in €"): its name (it was dropped)
         + r"|(?P<lone_sym>(?:(?<=\w)|(?<=[\w.]\s))[$€£¥₹₩₺₽₫฿₪₴₸₼₾৳₨])" + rf"|(?P<num>{num})"
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


def _add_text(segments: list[Segment], chunk: str) -> None:
    if not chunk:
        return
    spoken = _speakable(chunk)
    if spoken or chunk.strip():
        segments.append(Segment(chunk, spoken, "text"))


_PHONE_333 = {
    "pt": r"[289]\d\d[ \u00a0]\d{3}[ \u00a0]\d{3}",
    "pl": r"[1-9]\d\d[ \u00a0]\d{3}[ \u00a0]\d{3}",
    "cs": r"[1-9]\d\d[ \u00a0]\d{3}[ \u00a0]\d{3}",  # "800 123 456", "603 123 456"
    "sk": r"[1-9]\d\d[ \u00a0]\d{3}[ \u00a0]\d{3}",
    "lv": r"[26]\d[ \u00a0]\d{3}[ \u00a0]\d{3}",  # "67 123 456": land lines from 6, mobiles from 2
}
# Local phone numbers whose groups are no group of thousands, so the number rule sees two numbers: Iceland's
# seven digits ("555 1234"), Lithuania's mobiles ("612 34567"), Estonia's ("5123 4567").
_LOCAL_PHONE = {
    "is": r"[4-8]\d{2}[ -]\d{4}",
    "lt": r"[68]\d{2}[ -]\d{5}",
    "et": r"[3-8]\d{2,3}[ -]\d{4}",
    "ko": r"1[5-9]\d\d-\d{4}",  # a company's representative number: "1588-1234", digit by digit
    "ca": r"[6789]\d\d \d{3} \d{3}",  # Spain's nine digits in threes, as the Spanish rule reads them
    "it": r"(?:80[03]|199|89[2-9]) \d{3} \d{3}",  # a toll-free or shared-cost number: "800 123 456"
    "pt": r"\d{4,5}-\d{3}",  # a postcode: Portugal's "1100-048", Brazil's CEP "01310-100" (no range, no minus)
}
# "№" is the word for number in the Cyrillic languages (NFKC would make it the letters "No").
_NUMERO = {"ru": "номер", "uk": "номер", "bg": "номер", "kk": "нөмір"}
# Short forms that may end a sentence (the others are titles, streets and the like before a name).
_ENDING_ABBREVIATIONS = frozenset({"ecc.", "itd.", "т.д.", "vb.", "aprox.", "dll.", "dsb."})
# How a price per unit says its "/" ("9,99 €/mese" -> "al mese"), and the units written short after it.
_PER_WORD = {
    "it": lambda unit: "al" if unit in ("mese", "giorno", "anno", "minuto") else "a",
    "pt": "por",
    "nl": "per",
    "sv": "per",
    "da": "pr.",
    "no": "per",
}
_PER_UNIT = {
    "sv": {"mån": "månad", "st": "styck", "år": "år"},
    "nl": {"mnd": "maand", "st": "stuk"},
    "da": {"md": "måned", "stk": "styk"},
    "no": {"mnd": "måned", "stk": "stykk"},
}
# A game's result: the words before a score ("ha vinto 3-1", "venceu por 3-1") and after it ("una vittoria
# 3-0"); the dash is said with `SCORE_LINK`.
_SCORE_BEFORE = {
    "it": "vinto vince vincono perso perde battuto pareggiato finita finito risultato vittoria sconfitta".split(),
    "pt": "venceu venceram ganhou ganharam perdeu perderam empatou terminou resultado placar vitória derrota "
    "por".split(),  # "venceu o Porto por 2-1"
}
_SCORE_AFTER = {"it": ("vittoria", "sconfitta"), "pt": ("vitória", "derrota")}
# Hebrew's one-letter prefixes, vowelled so espeak-ng says them as syllables, when a dash joins them to a number.
_HEBREW_PREFIXES = {"ב": "בְּ", "ל": "לְ", "מ": "מִ", "ה": "הַ", "ו": "וְ", "כ": "כְּ", "ש": "שֶׁ"}
_HEBREW_PREFIX = re.compile(r"(?<![\u0590-\u05ff])([בלמהוכש])-(?=[\dA-Za-z])")  # "ל-15", "ל-Windows"
# Rules whose handler may decline a match and leave it to the rules after them (the scan retries without them).
_DECLINES = frozenset(
    {
        "pl_hours",
        "month_year",
        "dmdot",
        "name_dash",
        "dotord",
        "roman_numeral",
        "slash_number",
        "lv_day",
        "lt_date",
        "lt_bday",
        "lt_hour",
        "lt_ord",
        "et_day",
    }
)


# Languages that write an ordinal with a dot ("3. emelet"), and whose ordinals num2words spells in the form
# said before a noun.
_DOT_ORDINAL = frozenset({"hu", "da", "no", "fi", "tr"})  # ("Sırada 3. kişisiniz" -> "üçüncü")
# Symbols written as a word of some languages only: the Italian "lei" is "you" or "she" ("Paga lei 20 euro?" was
# "venti lei rumeni euro").
_SYMBOL_LANGUAGES = {"lei": ("ro",)}
# What may not follow a currency's symbol: "đ." before a name is a street (đường), not đồng.
_NOT_AFTER_SYMBOL = {"đ": r"(?!\.\s?[^\W\d_])"}
# Scale words written after a price, and how they are said.
_SCALE_WORDS = {
    "id": {"juta": "juta", "ribu": "ribu", "rb": "ribu", "miliar": "miliar", "triliun": "triliun"},
    "ms": {"juta": "juta", "ribu": "ribu", "bilion": "bilion"},
    "vi": {"triệu": "triệu", "nghìn": "nghìn", "tỷ": "tỷ"},
    "hi": {"लाख": "लाख", "करोड़": "करोड़", "lakh": "लाख", "crore": "करोड़"},
    "mr": {"लाख": "लाख", "कोटी": "कोटी", "lakh": "लाख", "crore": "कोटी"},
}
# Where an Italian "21°" past 10 is an ordinal, not degrees: before these nouns, after these words.
_DEGREE_ORDINAL_NOUNS = frozenset(
    "posto piano anniversario edizione secolo giorno livello turno compleanno classificato classificata".split()
)
_DEGREE_ORDINAL_AFTER = frozenset("classificato classificata arrivato arrivata piazzato piazzata".split())
# The "+" between keys pressed together.
_KEY_PLUS = {"it": "più", "pt": "mais", "ca": "més"}
# The word for the "x" between a size's numbers: "trenta per quaranta", "dertig bij veertig", "тридцать на сорок".
_BY_WORD = {"it": "per", "pt": "por", "ca": "per", "nl": "bij", "pl": "na", "ru": "на", "uk": "на"}
# A dose's count: "2x per dag" -> "twee keer per dag".
_TIMES_WORD = {
    "it": "volte",
    "pt": "vezes",
    "nl": "keer",
    "pl": "razy",
    "sv": "gånger",
    "tr": "kez",
    "ca": "vegades",
}


# Words after a Serbian or Croatian four-digit number with its dot that are no noun for it to agree with: the
# number is a year ("rođen je 1985. i živi ..."), its "godine" understood.
_SOUTH_SLAVIC_LINKS = frozenset(
    "i a ali pa te ili je su smo ste sam si bio bila bilo u na do od za s sa iz kod po pri o prema nakon prije "
    "poslije posle kada kad što da se".split()
)

# Prepositions before a Serbian or Croatian year with its dot that put it in the locative ("u 2024." -> "u dve
# hiljade dvadeset četvrtoj"): the "godini" understood after it.
_YEAR_LOCATIVE_BEFORE = frozenset("u o po pri".split())


def _south_slavic_year_case(m: re.Match, before: list[str], language: str) -> str | None:
    """The case of a Serbian or Croatian year ("genitive", "locative"), or None where it is read as a number:
    the case of "godine"/"godini" after it; the genitive after a month's name ("3. maja 2024.") or, with the
    year's dot, after a preposition that takes it ("do 2024."); with the dot, the locative after "u"."""
    said = m.group(0)
    if said.endswith(("godine", "godini")):
        return "locative" if said.endswith("godini") else "genitive"
    previous = before[-1] if before else ""
    if previous in _month_names(language):
        return "genitive"
    if not said.endswith("."):
        return None
    if previous in _YEAR_LOCATIVE_BEFORE:
        return "locative"
    return "genitive" if agreement.after_genitive_preposition(before, language) else None


def _handle(m: re.Match, language: str) -> tuple[str, str | None]:
    groups = m.groupdict()
    before = agreement.previous_words(m.string, m.start())
    if groups.get("address"):
        return "address", _address(m, language)
    if groups.get("abbr"):
        # a title or a street before a name keeps no period; "ecc." at a sentence's end does
        ends = not m.string[m.end() :].strip() or (m.group("abbr") in _ENDING_ABBREVIATIONS and _kept_stop(m))
        word = _ABBREVIATIONS[language][m.group("abbr")]
        if language == "pl" and m.group("abbr").lower() == "godz.":
            word = polish_hour_word(before)
        if m.group("abbr")[0].isupper():  # "Kl. 9.30" opens a sentence: "Klockan"
            word = word[0].upper() + word[1:]
        return "abbreviation", word + ("." if ends else "")
    if groups.get("postcode"):
        return "postcode", postcodes.shaped(m, language)
    if groups.get("pl_hours"):
        (h1, m1), (h2, m2) = (map(int, m.group(g).split(":")) for g in ("plh_a", "plh_b"))
        if max(h1, h2) > 24 or max(m1, m2) > 59:
            return "time", None  # no clock times: as written
        return "time", f"od {_time(h1, m1, language, ['od'])} do {_time(h2, m2, language, ['do'])}"
    if groups.get("iban"):  # "IT60 X054 2811" -> "I.T. sei zero, X. zero cinque quattro, due otto uno uno"
        return "code", ", ".join(_characters(group, language) for group in m.group("iban").split())
    if groups.get("grade"):
        before_text = m.string[max(0, m.start() - 40) : m.start()]
        said = grade(m.group("grade_a"), m.group("grade_b"), before_text, language, _number)
        return (
            "number",
            said or f"{_number(m.group('grade_a'), language)} {_number(m.group('grade_b'), language)}",
        )
    if groups.get("key_plus"):
        return "text", f" {_KEY_PLUS[language]} "
    if groups.get("slash_number"):
        return "code", slash_number(
            m,
            language,
            lambda p: _number(p, language),
            lambda p: _digits(p, language),
            lambda y: spell_number(y, language),
        )
    if groups.get("tax_code"):
        return "code", _characters(m.group("tax_code"), language)
    if groups.get("alnum"):
        return "code", _characters(m.group("alnum"), language)
    if groups.get("flight"):
        return "code", _characters(m.group("flight"), language)
    if groups.get("local_phone"):
        return "phone", _phone_groups(re.findall(r"\d+", m.group("local_phone")), language)
    if groups.get("roman_numeral"):
        return "number", roman.read(m, language, ends_sentence(m))
    if groups.get("wspan"):
        return "weekday", weekday_span(m, language)
    if groups.get("name_dash"):
        return "name", name_before_number(m, language)
    if groups.get("size"):  # "XL": the letters (espeak-ng reads a roman 40)
        return "abbreviation", ".".join(m.group("size")) + "."
    if groups.get("minus"):
        return "number", minus_word(language)
    if groups.get("pct_first"):
        return "percent", _percent(m.group("pfamt"), language)
    if groups.get("score"):
        a, b = (spell_number(int(m.group(g)), language) for g in ("sc1", "sc2"))
        return "number", f"{a} {SCORE_LINK[language]} {b}"
    if groups.get("dotord"):
        n = int(m.group("dotord_n"))
        # "ve 2. patře" -> "ve druhém patře" (it was "dva." and a full stop)
        if language in ordinals.SLAVIC_CASE_BEFORE:
            noun = agreement.next_word(m.string, m.end())
            return "ordinal", ordinals.slavic_ordinal(n, language, before, noun)
        if language == "lv":  # "3. stāvā" -> "trešajā stāvā"
            return "ordinal", baltic_dates.day_ordinal(n, m.string, m.end())
        return "ordinal", num2words(n, lang=get(language).num2words, to="ordinal")
    if groups.get("dim"):
        return "number", f"{spell_number(int(m.group('dim_a')), language)} {_BY_WORD[language]}"
    if groups.get("times"):
        return "number", f"{spell_number(int(m.group('times_n')), language)} {_TIMES_WORD[language]}"
    if groups.get("sdate"):
        yr = int(m.group("sy")) if m.group("sy") else None
        spoken = _day_month(int(m.group("sd")), m.group("sm"), yr, language, before)
        return "date", spoken and spoken + _kept_stop(m)
    if groups.get("et_day"):
        return "date", baltic_dates.estonian_date_day(m)
    if groups.get("lv_year"):
        return "year", baltic_dates.latvian_year(m, before, m.string[m.end() :]) + _kept_stop(m)
    if groups.get("lv_day"):
        return "date", baltic_dates.latvian_days(m, before)
    if groups.get("lt_date"):
        spoken = baltic_dates.lithuanian_date(m, before)
        return "date", spoken and spoken + _kept_stop(m)
    if groups.get("lt_year"):
        return "year", baltic_dates.lithuanian_year(m, before, m.string[m.end() :]) + _kept_stop(m)
    if groups.get("lt_bday"):
        spoken = baltic_dates.lithuanian_day_alone(m, before)
        return "date", spoken and spoken + _kept_stop(m)
    if groups.get("lt_ord"):
        return "ordinal", baltic_dates.lithuanian_ordinal_before(m)
    if groups.get("lt_hour"):
        spoken = baltic_dates.lithuanian_hour(m, before)
        return "time", spoken and spoken + _kept_stop(m)
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
        if ending not in (ending.lower(), ending.upper()):  # "1:Öppna appen": a new sentence, not an ending
            return "number", f"{spell_number(n, language)} {suffixes.SEPARATORS[language]}{ending}"
        if language == "bn":  # "১৯৭১-এ" -> "উনিশশো একাত্তরে"
            words = _year(n, language) if 1100 <= n <= 1999 else spell_number(n, language)
            return "number", suffixes.bengali_attach(words, ending)
        after = agreement.next_word(m.string, m.end())
        return "number", suffixes.with_ending(n, ending, language, before, after)
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
    if groups.get("month_year"):  # "3. maja 2024." -> "trećeg maja dve hiljade dvadeset četvrte"
        n = int(m.group("month_year_n"))
        case = _south_slavic_year_case(m, before, language)
        noun = agreement.next_word(m.string, m.end()) if m.group(0).endswith(".") else ""
        # the dot before a lower-case word: an ordinal agreeing with its noun ("2024. primjerak" -> "dvije tisuće
        # dvadeset četvrti primjerak"), or before a conjunction a year, its "godine" understood ("rođen 1985. i")
        if not case and noun[:1].islower() and noun not in _SOUTH_SLAVIC_LINKS:
            return "ordinal", ordinals.slavic_ordinal(n, language, before, noun)
        if not case and noun[:1].islower():
            case = "genitive"
        year = case and ordinals.year_ordinal(n, language, case)
        if not year:
            return "year", None
        word = re.search(r"godin[ei]$", m.group(0))
        return "year", year + (f" {word[0]}" if word else "") + _kept_stop(m)
    if groups.get("syear"):
        n, word = int(m.group("syn")), m.group("syw")
        if language == "ru":
            words, year_word = ordinals.russian_year(n, word, before)
            return "year", f"{words} {year_word}" + _kept_stop(m)
        if language == "uk":
            return "year", _ukrainian_year(n, word, before) + _kept_stop(m)
        return "year", _polish_year(n, word, before) + _kept_stop(m)
    if groups.get("ord"):
        following = agreement.next_word(m.string, m.end())
        if (
            groups.get("ordd")
            and int(m.group("ordn")) > 10
            and following not in _month_names(language)
            and following.lower() not in _DEGREE_ORDINAL_NOUNS
            and (not before or before[-1] not in _DEGREE_ORDINAL_AFTER)
        ):  # "30° all'ombra": degrees (a day's "15° marzo", "21° posto", "classificato 21°" go on)
            degrees = "gradi" if language == "it" else "graus"
            return "number", f"{spell_number(int(m.group('ordn')), language)} {degrees}"
        try:
            words = " ".join(num2words(int(m.group("ordn")), lang=language, to="ordinal").split())
        except KeyError:  # num2words 0.5.14 has no Catalan ordinal for the tens from 30: the cardinal
            return "ordinal", spell_number(int(m.group("ordn")), language)
        feminine = groups.get("ords") == "a"
        return "ordinal", ordinals.romance_feminine_ordinal(words, language) if feminine else words
    if m.group("date"):
        return "iso_date", _date(int(m.group("y")), int(m.group("mo")), int(m.group("d")), language, before)
    if m.group("ndate"):
        g = m.groupdict()  # one of the three alternatives matched: year first, day first, two-digit year
        y, mo, d = (int(g[f"{k}1"] or g.get(k) or g.get(f"{k}2")) for k in ("ny", "nm", "nd"))
        if g.get("ny2"):  # "12/05/98" is a birth date, not 2098; "03/12/24" this century's
            y += 2000 if y <= datetime.date.today().year % 100 + 10 else 1900
        spoken = _date(y, mo, d, language, before)
        if spoken and m.group("ndate").endswith("godine"):  # "12.03.2025. godine": the year's word is said
            spoken += " godine"
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
    if groups.get("dmdot"):
        return "date", day_month_dot(m, language, before)
    if m.group("time"):
        if language == "pl":
            before = polish_hour_context(m.string, m.start(), before)
        dotted = m.group("time")[len(m.group("h"))] == "."
        day, month = int(m.group("h")), int(m.group("mi"))
        prev = before[-1].lower() if before else ""
        clock_cue = prev in CLOCK_CUES.get(language, ())
        # "Ubuntu 22.04", "Версия 11.02": a version, not a day (the word for version, or a Latin name in a
        # Cyrillic text)
        latin_name = (
            language in ("ru", "uk", "bg", "kk") and re.fullmatch(r"[a-z][a-z0-9-]*", prev) is not None
        )
        version = latin_name or prev.startswith(VERSION_WORDS) or after_name(m)
        if (
            dotted
            and dot_day_month(language)
            and len(m.group("h")) == 2
            and 1 <= month <= 12
            and month % 5
            and 1 <= day <= 31
            and not clock_cue
            and not version
        ):
            # "до 15.03": a day and a month (it was "пятнадцать ноль три"); "15.05", "9.07", "в 15.03" stay
            # clock times
            said = day_and_month(day, month, language, before)
            if said:
                return "date", said
        if dotted and language == "pl" and not (before and before[-1] in _PL_CLOCK_CUES):
            return "time", None  # "wersja 2.10", "art. 5.12": no hour (a Polish hour is an ordinal)
        return "time", _time(int(m.group("h")), int(m.group("mi")), language, before)
    if m.group("cur"):
        sym = m.group("sym") or m.group("sym2")
        code = _SYMBOL_OVERRIDES.get(language, {}).get(sym) or _CURRENCY_SYMBOLS.get(sym, sym)
        said = _currency(code, m.group("amt") or m.group("amt2"), language, before)
        if language == "zh" and code == "CNY" and m.string.startswith(("元", "块"), m.end()):
            said = _number(m.group("amt") or m.group("amt2"), language)  # "¥5000元": the 元 is written
        if groups.get(
            "scale"
        ):  # "Rp1,5 juta" -> "satu koma lima juta rupiah" (it was "... Rupiah Indonesia juta")
            scale_word = _SCALE_WORDS[language][m.group("scale")]
            said = f"{_number(m.group('amt'), language)} {scale_word} {currency_name(code, 5, language)}"
        if m.group(0).endswith("."):  # "25 лв. Искате ли...": the abbreviation's dot also ends the sentence
            said += _kept_stop(m)
        if groups.get("per"):
            unit = _PER_UNIT.get(language, {}).get(m.group("per").lower(), m.group("per"))
            link = _PER_WORD[language]
            link = link(unit) if callable(link) else link
            said += f" {link} {unit}"
        return "currency", said
    if m.group("pct"):
        return "percent", _percent(m.group("pamt"), language)
    if groups.get("lone_sym"):
        sym = m.group("lone_sym")
        code = _SYMBOL_OVERRIDES.get(language, {}).get(sym) or _CURRENCY_SYMBOLS[sym]
        name = agreement.after_millions(currency_name(code, 5, language), language, before[-1:])
        return "currency", f" {name} "
    if groups.get("cunit"):
        symbol = f"{m.group('cu1')}/{m.group('cu2')}"
        if symbol in UNITS:  # "60 km/h": a unit of its own
            return "unit", _unit(m.group("cuamt"), symbol, language, before)
        said = compound_unit(m.group("cuamt"), m.group("cu1"), m.group("cu2"), language)
        if said:
            return "unit", said
        return "unit", f"{_unit(m.group('cuamt'), m.group('cu1'), language, before)} {m.group('cu2')}"
    if m.group("unit"):
        return "unit", _unit(m.group("uamt"), m.group("usym"), language, before)
    if re.fullmatch(r"\d{4}", m.group("num")) and 1100 <= int(m.group("num")) <= 1999:
        named = bool(before) and before[-1] in NUMBER_NAMES
        if language in IN_HUNDREDS and not named and not is_code(m, before, language):  # "पंद्रह सौ", "উনিশশো"
            return "number", _year(int(m.group("num")), language)
        if language in _YEAR_CUES:
            after = agreement.next_word(m.string, m.end())
            cued = before and (before[-1] in _YEAR_CUES[language] or before[-1] in _month_names(language))
            # Not before a capitalised word (a postcode: "1799 København") or a unit ("1999 euro", "1700 uur").
            if cued and not after[:1].isupper() and after.lower() not in _NOT_AFTER_YEAR:
                return "year", _year(int(m.group("num")), language)
    if language == "zh" and re.fullmatch(r"\d{4}", m.group("num")) and m.string.startswith("年", m.end()):
        return "year", cjk.chinese_digits(m.group("num"))  # "2024年": 二零二四年
    if language == "zh":
        head = re.sub(
            r"[是为:\s]+$", "", m.string[max(0, m.start() - 8) : m.start()]
        )  # "订单号是" -> "订单号"
        if (
            (
                re.fullmatch(r"1[3-9]\d{9}", m.group("num"))  # a mobile number (it was 一百三十八亿...)
                or head.endswith(cjk.CHINESE_ID_CUES)
                # "CA1831": a flight, a code (letters glued to it; "Windows 11" counts)
                or re.match(r"[A-Za-z]", m.string[m.start() - 1 : m.start()])
            )
            and m.group("num").isdigit()
        ):
            return "number", cjk.chinese_code(m.group("num"))
        if m.group("num") == "2" and m.string.startswith(cjk.CHINESE_MEASURES, m.end()):
            return "number", cjk.chinese_number(2, before_measure=True)
    if (
        language == "ja"
        and m.group("num").isdigit()
        and cjk.japanese_identifier(m.string[max(0, m.start() - 10) : m.start()])
    ):
        return "number", _digits(m.group("num"), language)  # "ご注文番号は48213": よん はち に いち さん
    if language == "pl" and re.fullmatch(r"\d{1,2}", m.group("num")) and int(m.group("num")) <= 24:
        hour_before = polish_hour_context(m.string, m.start(), before)
        if hour_before[-1:] == ["godz"]:  # "do godz. 18" -> "do godziny osiemnastej" (it was "osiemnaście")
            return "time", _time(int(m.group("num")), 0, language, hour_before)
    day = day_before_month(m, language)
    if day:
        return "date", day
    if language in _PHONE_333 and re.fullmatch(_PHONE_333[language], m.group("num")):
        # a phone number of nine digits in threes, not 912 million: Portugal's (land lines from 2, toll-free and
        # shared-cost from 8, mobiles from 9) and Poland's ("601 234 567")
        return "phone", _phone_groups(re.findall(r"\d+", m.group("num")), language)
    if re.fullmatch(r"\d{4,8}", m.group("num")):
        # "Mã OTP của bạn là 482910", "आपका OTP 482910 है": a code, digit by digit, a pause before a second group
        if continues_code(m, before, language):
            return "number", ", " + _digits(m.group("num"), language)
        if is_code(m, before, language):
            return "number", _digits(m.group("num"), language)
    street_postcode = postcodes.after_street(m, language)
    if street_postcode:
        return "postcode", street_postcode
    if re.fullmatch(r"0\d{2,}", m.group("num")):  # "0123", "00184": an identifier ("09 часов" is a count)
        return "number", _digits(m.group("num"), language)
    if re.fullmatch(r"\d{7,}", m.group("num")) and not m.group("num").endswith("000"):
        # "ordine 12345678": seven digits or more, ungrouped and not round, are an identifier (an amount
        # that large is written with groups, "12 345 678", or round, "1000000")
        return "number", _digits(m.group("num"), language)
    return "number", _number(m.group("num"), language, m)


_HU_ENDING = re.compile(r"-([^\W\d_]+)")


def _glue_hungarian_endings(segments: list[Segment]) -> list[Segment]:
    """A Hungarian ending after a time, an amount or a unit, "10:30-kor", "1500 Ft-ért", "20%-os", "5 km-re", joins
    the words said ("tíz harminckor"); it was left apart ("tíz harminc -kor") and espeak-ng stressed it alone."""
    out: list[Segment] = []
    for seg in segments:
        ending = _HU_ENDING.match(seg.original) if seg.rule == "text" else None
        if ending and out and out[-1].rule != "text" and out[-1].spoken[-1:].isalpha():
            prev = out.pop()
            out.append(
                Segment(
                    prev.original + ending.group(0),
                    suffixes.hungarian_attach(prev.spoken, ending.group(1)),
                    prev.rule,
                )
            )
            rest = seg.original[ending.end() :]
            if rest:
                _add_text(out, rest)
            continue
        out.append(seg)
    return out


def normalize_segments(text: str, language: str) -> list[Segment]:
    """Segments of `text` with their spoken form, for a catalog language without hand-written rules."""
    if not isinstance(text, str):
        raise NormalizationError(f"text must be str, got {type(text).__name__}")
    get(language)
    if language in _NUMERO:
        text = text.replace("№", f"{_NUMERO[language]} ")
    # "ל-15/03/2024": a prefix joined by a dash is said as its syllable (espeak-ng said the letter, "lamed")
    if language == "he":
        text = _HEBREW_PREFIX.sub(lambda p: f"{_HEBREW_PREFIXES[p.group(1)]} ", text)
    text = _WIDE_COMMA_BEFORE_DIGIT.sub(", ", text)
    text = unicodedata.normalize("NFKC", text).translate(_PUNCT_FOLD)
    master = _master(language)
    segments: list[Segment] = []
    pos = start = 0
    while (m := master.search(text, start)) is not None:
        rule, spoken = _handle(m, language)
        if spoken is None and m.lastgroup in _DECLINES:  # "versio 2.10.": what the other rules make of it
            m = _master(language, fallback=True).search(text, m.start())
            rule, spoken = _handle(m, language) if m else ("text", None)
            if m is None:
                break
        start = m.end()
        if spoken is None:
            continue  # "25:99" is no time: it stays in the text as written (espeak-ng reads its digits)
        _add_text(segments, text[pos : m.start()])
        segments.append(Segment(m.group(0), " ".join(spoken.split()), rule))
        pos = m.end()
    _add_text(segments, text[pos:])
    if language == "hu":
        segments = _glue_hungarian_endings(segments)
    if language == "ko":
        segments = cjk.korean_counts(segments)
    if language == "ja":
        segments = japanese.kana_segments(segments)
    return segments
