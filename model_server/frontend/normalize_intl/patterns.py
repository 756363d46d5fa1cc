"""The patterns of the scan's other rules: ordinals, ranges, e-mail and web addresses, phone numbers,
numbers joined by dots and numeric dates."""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from babel.dates import get_date_format, get_month_names
from babel.numbers import get_group_symbol

from .. import agreement
from ..languages import get
from ..normalize.address import spoken_address
from ..normalize.codes import pair_as_number
from ..normalize.dates import dotted_kind
from ..normalize.ranges import is_range
from ..normalize.words import LETTER_A
from .amounts import _GROUP_ALSO, _digits, _locale, _number, spell_number
from .dates import _slavic_patterns

# Language-specific patterns tried before the common ones: Russian and Polish dates and years take
# ordinals in their case ("первого мая", "w dwa tysiące dwudziestym czwartym roku"); Italian and Portuguese
# write ordinals 1º/1ª (NFKC makes them 1o/1a), Catalan 1r/2n/1a.
# Italians also type the degree sign for "º" ("dal 1° marzo", "3° piano"): an ordinal before a word other than C/F.
_ROMANCE_ORDINAL = (
    r"(?P<ord>(?<![\w.,])(?P<ordn>\d{1,9})(?:\.?(?P<ords>[oa])|(?P<ordd>°)(?=\s+(?![CF]\b)[^\W\d_]))(?!\w))"
)

# Dutch: 1e, 2de, 21ste.
_DUTCH_ORDINAL = r"(?P<ord>(?<![\w.,])(?P<ordn>\d{1,4})(?:e|de|ste)(?!\w))"


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
    "nl": _DUTCH_ORDINAL,
}


# The word a range's dash is said as, where the language says one ("2-3 dias" -> "dois a três dias",
# "2-3 dagen" -> "twee tot drie dagen"); elsewhere the dash stays a short pause ("due-tre giorni", "два-три
# дня" are said so; Czech "až" would need the second count's case too). Italian and Polish say one only after
# the range's opening word (`_LINK_AFTER`).
RANGE_LINKS = {
    "pt": "a",
    "ca": "a",
    "nl": "tot",
    "sv": "till",
    "da": "til",
    "no": "til",
    "zh": "到",
    "ja": "から",
    "hi": "से",
    "mr": "ते",
    "bn": "থেকে",
    "ta": "முதல்",
    "te": "నుండి",
    "vi": "đến",
    "th": "ถึง",
    "id": "sampai",
    "ms": "hingga",
    "ar": "إلى",
    "fa": "تا",
    "ur": "سے",
    "he": "עד",
    # (no case or gender for the link: "3–5 dienas" -> "trīs līdz pieci dienas" keeps the numbers' own forms)
    "is": "til",
    "lv": "līdz",
    "lt": "iki",
    "et": "kuni",
    "el": "έως",
    "bg": "до",
}


def word_char(language: str) -> str:
    """A letter, digit or underscore that joins a number to a word: `\\w`, except in the languages written
    without spaces (zh, ja, th), where a number stands right after a word ("共3-5个", "温度25°C")."""
    if get(language).spaces:
        return r"\w"
    return r"[^\W\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"


def _range_pattern(language: str) -> str:
    if language not in RANGE_LINKS and language not in _LINK_AFTER:
        return ""
    # "3～5営業日", "3〜5営業日" (NFKC folds "～" to "~", not the wave dash "〜")
    dash = "[-–~〜]" if language in ("zh", "ja") else "[-–]"
    return (
        rf"|(?P<rng>(?<!{word_char(language)})(?<![.,/+*=-])(?P<rlo>[1-9]\d{{0,3}})\s?{dash}\s?"
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
    if language in _LINK_AFTER:
        # the link its opening word asks for; else the dash ("in tre - cinque giorni")
        link = _LINK_AFTER[language].get(before[-1] if before else "")
        return f"{words} {link}" if link else f"{words} -"  # "dla 1-2 osób" -> "dla jednej - dwóch osób"
    return f"{words} {RANGE_LINKS[language]}"


# Where a range's link depends on the word that opens it: Italian "dalle 9-18" -> "dalle nove alle diciotto",
# "tra 3-5" -> "tra tre e cinque";
# Polish "od 10-150 osób" -> "od dziesięciu do stu pięćdziesięciu osób" (both counts in the genitive; it was
# "od dziesięć - stu pięćdziesięciu"), while a bare "10-150 osób" keeps its pause.
_LINK_AFTER = {
    "it": {"dalle": "alle", "dalla": "alla", "dal": "al", "da": "a", "tra": "e", "fra": "e"},
    "pl": {"od": "do"},
    "cs": {"od": "do"},
    "sk": {"od": "do"},
    "sr": {"od": "do"},
    "hr": {"od": "do"},
}


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


# The word for "/" in a web address's path (it was a pause, and the path was lost to a listener).
_SLASH_WORD = {"it": "barra", "pt": "barra", "ca": "barra", "nl": "slash", "pl": "ukośnik", "cs": "lomítko",
               "sk": "lomka", "sv": "snedstreck", "da": "skråstreg", "no": "skråstrek", "fi": "kauttaviiva",
               "ru": "слэш", "uk": "слеш", "tr": "eğik çizgi", "ro": "slash", "hu": "per"}  # fmt: skip


def _address(m: re.Match, language: str) -> str:
    words = {
        ".": _DOT_WORD.get(language, "dot"),
        "@": _AT.get(language, "at"),
        "/": _SLASH_WORD.get(language, ","),
    }
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
def _dotted_pattern(after_amount: str) -> str:
    """Three numbers or more joined by dots, not before a currency, a unit or "%" (then they are an amount grouped
    by dots: "2.000.000 €" lost its euro)."""
    return (
        rf"|(?P<dotted>(?:(?<![\w.,])v(?=\d{{1,4}}\.\d)\d{{1,4}}(?:\.\d{{1,4}})+"  # "v2.3", a version
        rf"|(?<![\w.,])\d{{1,4}}(?:\.\d{{1,4}}){{2,}})(?!\w|[.,]\d)(?!\s?(?:{after_amount})))"
    )


# Where digits are said one by one even in pairs.
_DIGITS_ONLY = frozenset({"zh", "ja", "ko"})


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
    """ "3.12.1" -> "tre punto dodici punto uno"; an IPv4 address digit by digit ("192.168.1.1" -> "uno nove due
    punto uno sei otto punto uno punto uno"), seven digits or more as a phone number; "v2.3.1" a version. The dot
    is said where the language's word for it is known (`_DOT_WORD`: a listener types a version or an address from
    it), else a pause. Groups of thousands written with dots are numbers."""
    text = m.group("dotted").lstrip("v")
    parts = text.split(".")
    kind = dotted_kind(parts)
    dot_groups = get_group_symbol(_locale(language)) == "." or _GROUP_ALSO.get(language) == "."
    if dot_groups and kind != "ip" and re.fullmatch(r"[1-9]\d{0,2}(?:\.\d{3})+", text):
        return _number(text, language, m)
    if kind == "phone":  # "06.12.34.56.78": a phone number written with dots
        return _phone_groups(parts, language)
    ip = kind == "ip"
    dot = f" {_DOT_WORD[language]} " if language in _DOT_WORD else ", "
    return dot.join(
        _digits(p, language) if ip or (p[0] == "0" and p != "0") else spell_number(int(p), language)
        for p in parts
    )


# What may follow a Serbian or Croatian year: its dot and the word for year ("12.03.2025.", "2025. godine"), said
# as "... dvadeset pete godine".
SOUTH_SLAVIC_YEAR_END = r"(?:\.(?!\d)(?:\s?godine\b)?|\s?godine\b)?"


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
        "hr": SOUTH_SLAVIC_YEAR_END,
        "sr": SOUTH_SLAVIC_YEAR_END,
    }
    year_word = year_word.get(language, "")
    return rf"|(?P<ndate>(?<![\d.,/-])(?:{both})(?![\d/-]|[.,]\d){year_word})"


# Spans of weekdays written short, "ma–pe", "man.-fre.", "pon.–pt.": each short form's (first, last) spoken form,
# and how the two are joined ("od poniedziałku do piątku", "maanantaista perjantaihin"). espeak-ng spelled them.
def _week(short: str, first: str, last: str | None = None) -> dict[str, tuple[str, str]]:
    return dict(zip(short.split(), zip(first.split(), (last or first).split(), strict=True), strict=True))


# (the written link between the two, beside a dash: "man. til fre.", "od pon. do pt.")
WEEKDAY_SPANS = {
    "da": (_week("man tirs ons tors fre lør søn", "mandag tirsdag onsdag torsdag fredag lørdag søndag"), "{} til {}"),
    "no": (_week("man tir ons tor fre lør søn", "mandag tirsdag onsdag torsdag fredag lørdag søndag"), "{} til {}"),
    "sv": (_week("mån tis ons tor fre lör sön", "måndag tisdag onsdag torsdag fredag lördag söndag"), "{} till {}"),
    "fi": (_week("ma ti ke to pe la su", "maanantaista tiistaista keskiviikosta torstaista perjantaista lauantaista "
                 "sunnuntaista", "maanantaihin tiistaihin keskiviikkoon torstaihin perjantaihin lauantaihin "
                 "sunnuntaihin"), "{} {}"),
    "is": (_week("mán þri mið fim fös lau sun", "mánudag þriðjudag miðvikudag fimmtudag föstudag laugardag sunnudag",
                 "mánudags þriðjudags miðvikudags fimmtudags föstudags laugardags sunnudags"), "{} til {}"),
    "pl": (_week("pon wt śr czw pt sob niedz", "poniedziałku wtorku środy czwartku piątku soboty niedzieli"),
           "od {} do {}"),
    "cs": (_week("po út st čt pá so ne", "pondělí úterý středy čtvrtka pátku soboty neděle"), "od {} do {}"),
    "sk": (_week("po ut st št pi so ne", "pondelka utorka stredy štvrtka piatku soboty nedele"), "od {} do {}"),
    "sl": (_week("pon tor sre čet pet sob ned", "ponedeljka torka srede četrtka petka sobote nedelje"), "od {} do {}"),
    "hr": (_week("pon uto sri čet pet sub ned", "ponedjeljka utorka srijede četvrtka petka subote nedjelje"),
           "od {} do {}"),
    "sr": (_week("pon uto sre čet pet sub ned", "ponedeljka utorka srede četvrtka petka subote nedelje"),
           "od {} do {}"),
}  # fmt: skip


def weekday_span_pattern(language: str) -> str:
    if language not in WEEKDAY_SPANS:
        return ""
    days = "|".join(sorted(WEEKDAY_SPANS[language][0], key=len, reverse=True))
    # the written words around the two days, which the spoken template says: "od pon. do pt.", "man. til fre."
    first, link = re.fullmatch(r"(\w*) ?\{\} ?(\w*) ?\{\}", WEEKDAY_SPANS[language][1]).groups()
    opening = rf"(?:(?i:{first})\s+)?" if first else ""
    joined = rf"\s?[-–]\s?|\s+(?i:{link})\s+" if link else r"\s?[-–]\s?"
    return rf"(?P<wspan>(?<![\w.]){opening}(?P<wd1>(?i:{days}))\.?(?:{joined})(?P<wd2>(?i:{days}))\.?(?!\w))|"


def weekday_span(m: re.Match, language: str) -> str:
    table, joined = WEEKDAY_SPANS[language]
    first, last = table[m.group("wd1").lower()][0], table[m.group("wd2").lower()][1]
    said = joined.format(first, last)
    return said + "." if m.group(0).endswith(".") and not m.string[m.end() :].strip() else said


# Short forms said as words, per language, matched case-sensitively with their period ("n." only before a number).
_ABBREVIATIONS = {
    "it": {"§": "paragrafo", "art.": "articolo", "Art.": "articolo", "ad es.": "ad esempio", "Ctrl": "control", "n.": "numero", "n°": "numero", "N°": "numero", "tel.": "telefono", "Tel.": "telefono", "dott.": "dottor", "Dott.": "dottor",
           "dott.ssa": "dottoressa", "Dott.ssa": "dottoressa", "sig.": "signor", "Sig.": "signor",
           "sig.ra": "signora", "Sig.ra": "signora", "C.so": "corso", "P.zza": "piazza", "p.zza": "piazza",
           "ecc.": "eccetera"},
    # Catalan writes "núm." and, as Spanish does, "n.º" (NFKC: "n.o") and "n°"
    "ca": {"núm.": "número", "Núm.": "número", "n.o": "número", "N.o": "número", "n°": "número", "N°": "número",
           "tel.": "telèfon", "Tel.": "telèfon"},
    "pt": {"§": "parágrafo", "art.": "artigo", "Art.": "artigo", "p. ex.": "por exemplo", "D.": "Dom", "Esq.": "esquerdo",
           "Dto.": "direito", "Ctrl": "control", "n.o": "número", "N.o": "número", "n°": "número", "N°": "número", "Av.": "Avenida", "Sr.": "Senhor", "Sra.": "Senhora",
           "Dra.": "Doutora", "esq.": "esquerdo", "dto.": "direito", "aprox.": "aproximadamente",
           "tel.": "telefone", "Tel.": "telefone"},
    "pl": {"ul.": "ulica", "godz.": "godzina", "Godz.": "godzina", "tel.": "telefon", "Tel.": "telefon", "wew.": "wewnętrzny",
           "nr": "numer", "Nr": "numer", "szt.": "sztuk", "pok.": "pokój", "al.": "aleja", "ok.": "około",
           "np.": "na przykład", "itd.": "i tak dalej", "tj.": "to jest", "kom.": "komórkowy", "nr.": "numer"},
    "cs": {"č.": "číslo", "tj.": "to jest", "tzn.": "to znamená", "hod.": "hodin", "tel.": "telefon",
           "Tel.": "telefon", "ul.": "ulice", "např.": "například", "p. a.": "ročně", "atd.": "a tak dále"},
    "sk": {"č.": "číslo", "tj.": "to jest", "tzn.": "to znamená", "hod.": "hodín", "tel.": "telefón",
           "Tel.": "telefón", "ul.": "ulica", "napr.": "napríklad", "atď.": "a tak ďalej"},
    "sl": {"št.": "številka", "tj.": "to je", "npr.": "na primer", "tel.": "telefon", "Tel.": "telefon",
           "ul.": "ulica"},
    "hr": {"br.": "broj", "tj.": "to jest", "npr.": "na primjer", "tel.": "telefon", "Tel.": "telefon",
           "ul.": "ulica"},
    "sr": {"br.": "broj", "tj.": "to jest", "npr.": "na primer", "tel.": "telefon", "Tel.": "telefon",
           "ul.": "ulica", "č.": "časova"},
    "bg": {"т.е.": "тоест", "ул.": "улица", "тел.": "телефон", "напр.": "например", "т.н.": "така нататък"},
    "ro": {"nr.": "numărul", "Nr.": "numărul", "Str.": "strada", "str.": "strada", "tel.": "telefon",
           "Tel.": "telefon", "Bd.": "bulevardul", "bd.": "bulevardul", "ap.": "apartamentul", "etc.": "etcetera"},
    "hu": {"kb.": "körülbelül", "db": "darab", "u.": "utca", "em.": "emelet", "sz.": "számú", "tel.": "telefon",
           "pl.": "például", "ill.": "illetve", "stb.": "és a többi"},
    "el": {"αρ.": "αριθμός", "δηλ.": "δηλαδή", "τηλ.": "τηλέφωνο", "π.χ.": "παραδείγματος χάριν", "οδ.": "οδός"},
    "nl": {"dr.": "dokter", "Dr.": "dokter", "ca.": "circa", "tel.": "telefoon", "Tel.": "telefoon",
           "bijv.": "bijvoorbeeld", "ong.": "ongeveer", "t/m": "tot en met", "nr.": "nummer", "Nr.": "nummer"},
    "sv": {"kl.": "klockan", "Kl.": "klockan", "nr": "nummer", "Nr": "nummer", "ca": "cirka", "ca.": "cirka",
           "t.ex.": "till exempel", "tel.": "telefon", "Tel.": "telefon", "fr.o.m.": "från och med",
           "t.o.m.": "till och med", "inkl.": "inklusive", "milj.": "miljoner"},
    "fi": {"klo": "kello", "Klo": "kello", "n.": "noin", "esim.": "esimerkiksi", "Esim.": "esimerkiksi",
           "yht.": "yhteensä", "puh.": "puhelin", "p.": "puhelin"},
    "da": {"kl.": "klokken", "Kl.": "klokken", "ca.": "cirka", "nr.": "nummer", "Nr.": "nummer",
           "f.eks.": "for eksempel", "inkl.": "inklusive", "ekskl.": "eksklusive", "pr.": "per", "tlf.": "telefon"},
    "no": {"kl.": "klokken", "Kl.": "klokken", "ca.": "cirka", "nr.": "nummer", "Nr.": "nummer",
           "f.eks.": "for eksempel", "inkl.": "inkludert", "pr.": "per", "tlf.": "telefon"},
    "is": {"kl.": "klukkan", "Kl.": "klukkan", "u.þ.b.": "um það bil", "þ.e.": "það er", "t.d.": "til dæmis",
           "nr.": "númer", "s.": "sími"},
    "lv": {"plkst.": "pulksten", "apm.": "apmēram", "t.i.": "tas ir", "piem.": "piemēram", "Nr.": "numurs",
           "nr.": "numurs", "tel.": "tālrunis"},
    "lt": {"tel.": "telefonas", "t. y.": "tai yra", "pvz.": "pavyzdžiui", "Nr.": "numeris", "nr.": "numeris"},
    "et": {"tel.": "telefon", "nt": "näiteks", "nr": "number", "Nr": "number"},
    "tr": {"Cad.": "Caddesi", "Sok.": "Sokak", "Mah.": "Mahallesi", "Dr.": "Doktor", "vb.": "ve benzeri"},
    # "dr." is Indonesian's title of a physician ("dr. Sari"; "Dr." the same, and how Whisper writes "dokter")
    "id": {"Jl.": "Jalan", "No.": "Nomor", "Kec.": "Kecamatan", "Kab.": "Kabupaten", "dr.": "dokter",
           "Dr.": "dokter", "drg.": "dokter gigi", "Bpk.": "Bapak", "Sdr.": "Saudara", "Yth.": "yang terhormat",
           "tgl.": "tanggal", "Tgl.": "tanggal", "telp.": "telepon", "Telp.": "telepon", "dll.": "dan lain-lain",
           "dsb.": "dan sebagainya"},
    "ms": {"Jln.": "Jalan", "No.": "Nombor", "Tkt.": "Tingkat", "Dr.": "Doktor", "En.": "Encik", "Pn.": "Puan",
           "tel.": "telefon", "Tel.": "telefon", "dll.": "dan lain-lain"},
    "vi": {"Q.": "Quận", "TP.HCM": "Thành phố Hồ Chí Minh", "TP.": "Thành phố"},
    # the Christian era, which espeak-ng read as a bare vowel ("ई.") or as letters ("इ.स.", "খ্রি.")
    "hi": {"ई.": "ईस्वी", "ई.पू.": "ईसा पूर्व"},
    "mr": {"इ.स.": "इसवी सन", "इ.स.पू.": "इसवी सन पूर्व"},
    "bn": {"খ্রি.": "খ্রিস্টাব্দ", "খ্রিঃ": "খ্রিস্টাব্দ"},
    "th": {"ถ.": "ถนน", "กทม.": "กรุงเทพมหานคร", "พ.ศ.": "พุทธศักราช", "ค.ศ.": "คริสต์ศักราช"},
    "uk": {"вул.": "вулиця", "буд.": "будинок", "кв.": "квартира", "тел.": "телефон", "т.зв.": "так званий"},
    "ru": {"д.": "дом", "ул.": "улица", "кв.": "квартира", "тел.": "телефон", "каб.": "кабинет", "т.е.": "то есть",
           "т.д.": "так далее"},
}  # fmt: skip


# Short forms that are one only before a name ("D. João VI": "Dom"; "D." alone is an initial or 500).
_BEFORE_A_NAME = {"pt": frozenset({"D."})}


def _abbreviation_pattern(language: str) -> str:
    table = _ABBREVIATIONS.get(language)
    if not table:
        return ""
    # "3 db-ot": a Hungarian ending joins the word; Thai writes the next word right after the dot ("ถ.สุขุมวิท")
    after = r"(?!\w)" if language == "hu" else "" if language == "th" else r"(?![\w-])"
    alt = "|".join(
        rf"(?<=\d ){re.escape(a)}{after}"
        if a in _AFTER_A_NUMBER.get(language, ())
        else rf"{re.escape(a)}(?=\s[A-ZÀ-Ý][a-zà-ÿ])"
        if a in _BEFORE_A_NAME.get(language, ())
        # (a number may touch it: "Q.1")
        else rf"{re.escape(a)}(?=\s?\d)"
        if a in _BEFORE_A_NUMBER
        else re.escape(a) + after
        for a in sorted(table, key=len, reverse=True)
    )
    return rf"(?P<abbr>(?<![\w.-])(?:{alt}))|"


# Short forms that are one only before a number ("n. 4589", "ca 2 veckor"; "ca" is also a word's part).
_BEFORE_A_NUMBER = frozenset(
    {
        "n.",
        "n°",  # "n° 4821"; a degree sign after a lone n is nothing else
        "N°",
        "ca",
        "ca.",
        "nr",
        "Nr",
        "ok.",
        "č.",
        "br.",
        "št.",
        "nr.",
        "Nr.",
        "αρ.",
        "p.",
        "s.",
        "д.",
        "No.",
        "Q.",
    }
)
# Short forms that are one only after a number ("5 db", "000123 sz. számla", "do 16 č."; "db" alone is no "darab").
_AFTER_A_NUMBER = {
    "hu": frozenset({"db", "sz."}),
    "sr": frozenset({"č."}),
    "hi": frozenset({"ई.", "ई.पू."}),  # "ई. मेल" is no era
    "bn": frozenset({"খ্রি.", "খ্রিঃ"}),
}


def _characters(code: str, language: str) -> str:
    """A code's letters spelled and its digits one by one. In a Latin-script language a run of letters is dotted
    (the frontend says their names) and a lone letter bare: "Z." was a full stop inside the code. Elsewhere
    espeak-ng reads Latin letters in English, and a dotted run as an English word ("A.B." -> "ab"): the letters
    stand apart, "A" as `LETTER_A` (alone it is the article)."""
    latin = _latin_script(language)
    out = []
    for run in re.findall(r"\d+|[A-Z]+", code):
        if run.isdigit():
            out.append(_digits(run, language))
        elif latin and len(run) > 1:
            out.append(".".join(run) + ".")
        else:
            out.append(" ".join(LETTER_A if c == "A" and not latin else c for c in run))
    return " ".join(out)


@cache
def _latin_script(language: str) -> bool:
    """Whether the language is written in Latin letters (its CLDR month names are)."""
    name = get_month_names("wide", locale=_locale(language))[1]
    return all("LATIN" in unicodedata.name(c, "") for c in name if c.isalpha())
