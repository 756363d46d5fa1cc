"""Ranges and pairs joined by a dash: numbers, years, times, amounts, weekdays and German dates."""

from __future__ import annotations

import re
from functools import cache

from .. import agreement, ordinals
from .amounts import _currency_names
from .codes import _CODE_CUE
from .dates import _month_index, _valid_date, _weekdays
from .words import _MONTHS, _WORDS, _alt, _number_words, cardinal, ends_sentence, ordinal, year

# Words before a dashed number that make it an identifier or a phone number, not a range ("order 1234-5678",
# "Llame al 555-1234", "Room 5-201").
_ID_CUE = re.compile(
    r"\b(?:room|model|item|flight|gate|platform|line|tel|phone|call|dial|fax|boeing|airbus|"
    r"pedido|c[oó]digo|n[uú]mero|tel[eé]fono|llame|llamar|habitaci[oó]n|vuelo|"
    r"nummer|bestellung|telefon|anrufen|zimmer|flug|"
    r"num[eé]ro|commande|t[eé]l[eé]phone|appelez|chambre|vol)\b\.?\s*(?:#|:|no\.?|nr\.?|al)?\s*$",
    re.IGNORECASE,
)


_HOURS_CUE = re.compile(
    # "between 9-5", "from 10-4": hours said with the words of a span (a score is never "from" or "between")
    r"\b(?:open|hours(?:\s+are)?|available|daily|weekdays|weekends|between|from|m\s?[-–/]\s?f|abierto|abre|"
    r"horario|geöffnet|"
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
    if lang == "en" and re.search(r"[^\s.!?]\s+(?![A-Z][a-z]{2,}s\s*$)[A-Z][a-z]*\s*$", before):
        # after a name inside a sentence: a model or a room ("Boeing 737-800", "Gate B 5-7"); not after a
        # plural ("Read Chapters 3-4", "Seats 5-6")
        return False
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


# A tally after a verb ("The Yankees are 3-1 in the series", "The vote passed 7-2"): the dash was a pause.
_TALLY_CUE = re.compile(
    r"\b(?:are|is|was|were|passed|failed|carried|voted|split|stands?|stood|went)\s*$", re.I
)


# A game's result: the verb or noun before the score ("won 27-0", "Ganó 3-1", "a gagné 3-1") or after it ("a
# 3-0 win", "3:1 gewonnen"), and the word said for the dash (the catalog languages' Italian and Portuguese
# words are in normalize_intl.scan, which reads them). An English record ("went 10-2", "a record of 45-37")
# says "and". German "steht", "stand", "endete" name a score only in its own "2:0" form ("steht 3-5 Tage
# bereit" is a range).
_SCORE_WORDS = {
    "en": r"score|scored|won|win|wins|lost|lose|loses|beat|beats|ended|finished|final|lead|leads|leading|"
    r"trailing|defeated|tied|drew|victory|loss|defeat|shutout",
    "es": r"gan[óo]|ganaron|venci[óo]|vencieron|perdi[óo]|perdieron|empat[óo]|termin[óo]|resultado|marcador|"
    r"victoria|derrota",
    "de": r"gewonnen|gewinnt|gewann|verloren|verliert|verlor|Endstand|Ergebnis|Sieg|Niederlage|siegte",
    "fr": r"gagn[ée]|gagnent|perdu|battu|impos[ée]|score|victoire|d[ée]faite|m[èe]ne|menait",
}
_COLON_SCORE_WORDS = (
    r"steht|stand|endete|gewonnen|gewinnt|gewann|verloren|verlor|Endstand|Ergebnis|Sieg|siegte"
)
SCORE_LINK = {"en": "to", "es": "a", "de": "zu", "fr": "à", "it": "a", "pt": "a"}
# A count's noun after "2-3": a range whatever came before ("went there 2-3 times", "keep records 5-7 years").
_COUNTED_AFTER = re.compile(
    r"\s*(?:times|days|weeks|months|years|hours|minutes|people|items|sentences|pages|Tage|Wochen|Jahre|Stunden|"
    r"Minuten|días|semanas|años|horas|minutos|jours|semaines|ans|heures|minutes)\b",
    re.IGNORECASE,
)


def _score_link(before: str, after: str, lang: str, colon: bool = False) -> str | None:
    """The word for a score's dash ("to", "a", "zu", "à"; "and" in an English record) when a result's word is
    within two words before the score (`before`: the text before it) or right after it (`after`), else None.
    `colon`: the score is written "2:0" (German)."""
    if _COUNTED_AFTER.match(after):
        return None
    near = r"\b(?:{})\b(?:\s+\S+){{0,2}}?\s*:?\s*$"
    next_words = r"^\s*(?:\S+\s+)?(?:{})\b"
    if lang == "en" and (
        re.search(r"\b(?:went|record\s+(?:is|was|of|at|to|now))\s*$", before, re.I)
        or re.match(r"^\s*record\b", after, re.I)
    ):
        return "and"
    words = _COLON_SCORE_WORDS if colon else _SCORE_WORDS[lang]
    if re.search(near.format(words), before, re.I) or re.match(next_words.format(words), after, re.I):
        return SCORE_LINK[lang]
    return None


def _score(m: re.Match, lang: str) -> str | None:
    """ "The Chiefs won 27-0" -> "twenty seven to zero", "Ganó 3-1" -> "tres a uno", "Bayern hat 3:1
    gewonnen" -> "drei zu eins", "went 10-2" -> "ten and two"; the dash was a pause, a zero kept it."""
    colon = m.groupdict().get("s2c") is not None
    a, b = int(m.group("s1")), int(m.group("s2c") if colon else m.group("s2"))
    link = _score_link(
        m.string[max(0, m.start() - 40) : m.start()], m.string[m.end() : m.end() + 30], lang, colon
    )
    if link is None:
        return None
    return f"{cardinal(a, lang)} {link} {cardinal(b, lang)}"


def _range(m: re.Match, lang: str) -> str | None:
    """The first number of a range and the word for the dash: "three to", "uno a", "ein bis", "une à"; the
    second number is read by its own rule (a unit, a currency...). Years are read together: "nineteen ninety
    to nineteen ninety five"."""
    lo, hi = int(m.group("lo")), int(m.group("hi"))
    before = m.string[max(0, m.start() - 40) : m.start()]
    if lang == "en" and hi <= lo < 1000 and (_SCORE_CUE.search(before) or _TALLY_CUE.search(before)):
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


def _spoken(text: str, lang: str) -> str:
    """One side of a span read by the whole scan ("9am", "$20")."""
    from .scan import normalize  # here, not at the top: the scan imports the rules, which import this

    return normalize(text, lang)


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
    return f"{_spoken(first, lang)} {_range_link(m, lang, contract=False)}"


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
        return (
            f"{_number_words(lo, lang)} {_range_link(m, lang, contract=False)} {_spoken(f'{sym}{hi}', lang)}"
        )
    if not _amount(lo, lang) < _amount(re.match(r"[\d.,\s]*\d", hi).group(0), lang):
        return None
    if g["sym"]:
        first, second = f"{sym}{lo}", f"{sym}{hi}"
    else:
        first, second = f"{lo} {sym}", f"{hi} {sym}"
    link = _range_link(m, lang, contract=False)
    dec_sep = "." if lang == "en" else ","
    if dec_sep in lo and len(lo.rsplit(dec_sep, 1)[1]) == 2:  # cents: "ten dollars and fifty cents to"
        return f"{_spoken(first, lang)} {link} {_spoken(second, lang)}"
    words = _number_words(lo, lang)  # "$1.5-2M": "one point five to two million dollars"
    if lang != "en" and lo.isdigit():
        noun = _currency_names(sym, lang)[1].split()[0]
        words = agreement.count_form(
            words, int(lo), noun, lang, agreement.previous_words(m.string, m.start()), ranged=True
        )
    return f"{words} {link} {_spoken(second, lang)}"


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
    stop = "." if dotted and ends_sentence(m, lang) else ""  # "Mo.-Fr." ends a sentence
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
