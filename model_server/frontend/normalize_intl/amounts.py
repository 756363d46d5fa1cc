"""Numbers, amounts with a currency, percentages and units in the catalog languages: num2words for the
words, CLDR (Babel) for currency and unit names and the locale's separators."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache, lru_cache

from babel import Locale
from babel.numbers import format_decimal, get_currency_name, get_decimal_symbol, get_group_symbol
from babel.units import UnknownUnitError, format_compound_unit, format_unit
from num2words import CONVERTER_CLASSES, num2words
from num2words.base import Num2Word_Base

from .. import agreement
from ..languages import get
from ..normalize.words import UNGROUPED_ID
from . import cjk

_MAX_DIGITS = 15


_CURRENCY_SYMBOLS = {
    "R$": "BRL",
    "kr.": "SEK",  # its dot is the abbreviation's: "149 kr. om måneden" had a full stop inside the sentence
    "kr": "SEK",  # Danish, Norwegian and Icelandic crowns: `_SYMBOL_OVERRIDES`
    "TL": "TRY",
    "руб.": "RUB",
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
    "лв.": "BGN",
    "lei": "RON",
    "Rs.": "INR",
    "Rp": "IDR",
    "RM": "MYR",
    "đ": "VND",
    "Rs": "INR",
    "₨": "INR",
    "रु.": "INR",
    "лв": "BGN",
    "Kč": "CZK",
    "Ft": "HUF",
    "Eur": "EUR",  # as Lithuanian prices are written
    "грн.": "UAH",
    'ש"ח': "ILS",  # the shekel's short form, with a quotation mark or gershayim
    "ש״ח": "ILS",
    "грн": "UAH",
    "din.": "RSD",
}


# "¥" is the yuan in Chinese text.
_SYMBOL_OVERRIDES = {
    "zh": {"¥": "CNY"},
    "da": {"kr": "DKK", "kr.": "DKK"},
    "no": {"kr": "NOK", "kr.": "NOK"},
    "is": {"kr": "ISK", "kr.": "ISK"},
}


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
    "MYR",
    "RSD",
)


@cache
def _locale(code: str) -> Locale:
    return Locale.parse(get(code).babel)


# Danish cardinals: num2words' are wrong past a hundred ("ettusinde og tohundrede og niogfyrre" for 1249, "en
# millioner", "firehundrede og otteoghalvtredstusindtohundrede og tretten"). "og" comes only before the last
# tens and units: "et tusind to hundrede og niogfyrre", "to tusind og fireogtyve".
_DA_UNITS = "nul et to tre fire fem seks syv otte ni ti elleve tolv tretten fjorten femten seksten sytten atten nitten".split()
_DA_TENS = {
    2: "tyve",
    3: "tredive",
    4: "fyrre",
    5: "halvtreds",
    6: "tres",
    7: "halvfjerds",
    8: "firs",
    9: "halvfems",
}
_DA_SCALES = (
    (10**9, "en milliard", "milliarder"),
    (10**6, "en million", "millioner"),
    (1000, "et tusind", "tusind"),
)


def _danish_below_1000(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    tens, unit = divmod(rest, 10)
    below_100 = _DA_UNITS[rest] if rest < 20 else _DA_TENS[tens]
    if rest >= 20 and unit:
        below_100 = f"{'en' if unit == 1 else _DA_UNITS[unit]}og{_DA_TENS[tens]}"  # "enogtyve"
    said = f"{'et' if hundreds == 1 else _DA_UNITS[hundreds]} hundrede" if hundreds else ""
    return f"{said} og {below_100}" if said and rest else said or below_100


def danish_cardinal(n: int) -> str:
    if n < 1000:
        return _danish_below_1000(n)
    parts = []
    for value, one, many in _DA_SCALES:
        count, n = divmod(n, value)
        if count:
            parts.append(one if count == 1 else f"{danish_cardinal(count)} {many}")
    if n:
        parts.append(("og " if n < 100 else "") + _danish_below_1000(n))
    return " ".join(parts)


# Croatian, which num2words lacks, is Serbian's words in Croatian's forms: ijekavian "dvije", "dvjesto", and
# "tisuća", "milijun", "milijarda" for Serbian's "hiljada", "milion" and num2words' "bilion" (10**9).
_SERBIAN_TO_CROATIAN = {
    "dve": "dvije", "dvesta": "dvjesto", "trista": "tristo", "četristo": "četiristo", "hiljada": "tisuća",
    "hiljade": "tisuće", "hiljadu": "tisuću", "milion": "milijun", "miliona": "milijuna", "bilion": "milijarda",
    "biliona": "milijarde",
}  # fmt: skip


def croatian_cardinal(n: int) -> str:
    """ "2000" -> "dvije tisuće", "1000" -> "tisuću" (not "jedna tisuća"), "250" -> "dvjesto pedeset"."""
    words = " ".join(_SERBIAN_TO_CROATIAN.get(w, w) for w in num2words(n, lang="sr").split())
    words = re.sub(r"(?<!\S)jedan milijarda\b", "jedna milijarda", words)
    return re.sub(r"(?<!\S)jedna tisuća\b", "tisuću", words) if abs(n) % 10**6 // 1000 == 1 else words


@lru_cache(maxsize=4096)
def spell_number(n: int, language: str) -> str:
    """`n` in words where num2words has the language (or Croatian), else as digits for espeak-ng to read."""
    lang = get(language)
    if len(str(abs(n))) > _MAX_DIGITS:  # past any quantity: digit by digit (espeak-ng, given the digits, read
        return ("-" if n < 0 else "") + _digits(str(abs(n)), language)  # a few and dropped the rest)
    if language == "zh":
        return cjk.chinese_number(n)
    if language == "ja":
        return cjk.japanese_number(n)
    if language == "hr":
        return croatian_cardinal(n)
    if lang.num2words is None:
        return str(n)
    if language == "da" and n >= 0:
        return danish_cardinal(n)
    try:
        words = " ".join(num2words(n, lang=lang.num2words).replace(",", " ").split())
    except OverflowError:  # num2words' Telugu and Kannada stop at 10**10: the digits, for espeak-ng to read
        return str(n)
    if (
        language == "it"
    ):  # num2words writes "ventitré" but "centoventitre", "milletre": the stress is on the -tré
        words = re.sub(r"(?<=\w)tre\b", "tré", words)
    if language == "vi":  # num2words writes "hai nghìn lẻ hai mươi bốn" for 2024: a thousand's empty hundreds
        words = re.sub(
            r"\b(nghìn|triệu|tỷ) lẻ (?=mười|\S+ mươi)", r"\1 không trăm ", words
        )  # are "không trăm"
        words = re.sub(r"\b(nghìn|triệu|tỷ) lẻ\b", r"\1 không trăm lẻ", words)
    return words


# The word for a minus sign where num2words has none (or none that is a word: Arabic's "(-)").
_MINUS = {"it": "meno", "id": "minus", "vi": "âm", "zh": "负", "ja": "マイナス", "el": "μείον", "bg": "минус",
          "hr": "minus", "et": "miinus", "ar": "سالب", "fa": "منفی", "ur": "منفی"}  # fmt: skip


@cache
def minus_word(language: str) -> str | None:
    """How the language says the minus of "-20 €" and "-5 °C" (espeak-ng reads a lone "-" as a pause, and the
    sign was lost); None where we do not know it."""
    if language in _MINUS:
        return _MINUS[language]
    lang = get(language).num2words
    word = (getattr(CONVERTER_CLASSES[lang], "negword", None) or "").strip() if lang else ""
    return word if word.isalpha() else None


def _spell_digits_in(text: str, language: str) -> str:
    cjk_spoken = cjk.spell_digits_in(text, language)
    if cjk_spoken is not None:
        return cjk_spoken
    return re.sub(r"\d+", lambda m: spell_number(int(m.group(0)), language), text)


# Group separators written beside CLDR's: Portugal's CLDR groups thousands with a space, but "1.284,37 €" (Brazil's
# way) is as common there, and the dot was read as a full stop ("um. duzentos ...").
_GROUP_ALSO = {"pt": ".", "pl": "."}  # (Polish shops and invoices write "1.299,00 zł" too)


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
    # (the decimals in ASCII digits: "3٫۵" is written with Persian digits, and cn2an takes only ASCII)
    return int(whole[: _MAX_DIGITS + 1] or "0"), "".join(str(int(c)) if c.isdigit() else c for c in frac)


# The word for the decimal point where espeak-ng says none (Thai and Korean: "3.75" was "three seven five") or a
# wrong one (Hebrew "sik").
_POINT_WORD = {"th": "จุด", "ko": "점", "he": "נקודה"}


def _digits(group: str, language: str) -> str:
    if language == "zh":  # 1 is 幺 in a number read digit by digit
        return " ".join(cjk.chinese_code(d) for d in group)
    return " ".join(spell_number(int(d), language) for d in group)


def _number(text: str, language: str, m: re.Match | None = None) -> str:
    if m is not None and UNGROUPED_ID.fullmatch(text):  # alone, an identifier ("IMEI 356938035643809")
        return _digits(text, language)
    if sum(c.isdigit() for c in text) > _MAX_DIGITS:  # as spell_number: digit by digit, whatever the grouping
        return _digits(re.sub(r"\D", "", text), language)  # ("123 456 789 012 345 678" was one digit string)
    whole, frac = _parse_amount(text, language)
    if not frac:
        words = spell_number(whole, language)
        if m is None or not words[:1].isalpha():
            return words
        noun = agreement.counted_noun(m.string, m.end(), language)
        ranged = agreement.range_end(m.string, m.end(), language) is not None  # "od 1 do 5 dni"
        return agreement.count_form(
            words, whole, noun, language, agreement.previous_words(m.string, m.start()), ranged
        )
    if language in ("zh", "ja"):
        return cjk.decimal(f"{whole}.{frac}", language)
    if (
        language in _POINT_WORD
    ):  # the digits after the point one by one, as num2words says them ("14.30" keeps its 0)
        decimals = " ".join(spell_number(int(d), language) for d in frac)
        return f"{spell_number(whole, language)} {_POINT_WORD[language]} {decimals}"
    return _decimal(whole, frac, language)


# The decimal separator's word where num2words has no reading of decimals, or a wrong one (Italian drops the
# decimals, Vietnamese "hai phẩy năm mươi" for 2,5, Turkish joins the words, Arabic writes a comma).
_DECIMAL_WORD = {
    "it": "virgola", "tr": "virgül", "vi": "phẩy", "ar": "فاصلة", "fa": "ممیز", "cy": "pwynt", "hr": "zarez",
    "bg": "цяло и", "el": "κόμμα", "et": "koma", "ga": "pointe", "mt": "punt", "hi": "दशमलव", "ur": "اعشاریہ",
    "mr": "दशांश", "ta": "புள்ளி", "gu": "દશાંશ", "ml": "ദശാംശം", "pa": "ਦਸ਼ਮਲਵ", "ms": "perpuluhan",
    "sw": "nukta", "ka": "მთელი", "eu": "koma", "af": "komma", "ca": "coma",
}  # fmt: skip


def _decimal(whole: int, frac: str, language: str) -> str:
    """A decimal in words: "2,5" -> "kaksi pilkku viisi", "tre virgola venticinque". Left in digits, the
    frontend's tokenizer cut it at its comma and espeak-ng said "two, five" in every language that writes one."""
    word = _DECIMAL_WORD.get(language)
    if word is None and get(language).num2words:
        return " ".join(num2words(Decimal(f"{whole}.{frac}"), lang=get(language).num2words).split())
    # (a language without num2words: digits and the word, which espeak-ng reads in the language)
    said = (
        _digits(frac, language)
        if frac.startswith("0") or len(frac) > 2
        else spell_number(int(frac), language)
    )
    return f"{spell_number(whole, language)} {word or get_decimal_symbol(_locale(language))} {said}"


# Where the name said differs from CLDR's written one (one, many): a price in China is so many 元, not 人民币;
# a Bulgarian one so many лева, not "български лева".
_SPOKEN_CURRENCY_NAMES = {
    ("zh", "CNY"): ("元", "元"),
    ("bg", "BGN"): ("лев", "лева"),
    ("id", "IDR"): ("rupiah", "rupiah"),
    ("ms", "MYR"): ("ringgit", "ringgit"),
    ("vi", "VND"): ("đồng", "đồng"),
    ("hi", "INR"): ("रुपया", "रुपये"),
    ("mr", "INR"): ("रुपया", "रुपये"),
    ("ro", "RON"): ("leu", "lei"),
}
# A currency's minor unit (one, many) where num2words has none for the language.
_MINOR_UNITS = {("el", "EUR"): ("λεπτό", "λεπτά"), ("bg", "BGN"): ("стотинка", "стотинки"),
                ("bg", "EUR"): ("цент", "цента"), ("hu", "EUR"): ("cent", "cent"), ("hu", "HUF"): ("fillér", "fillér")}  # fmt: skip


# The country's own currency, whose CLDR name carries the country's adjective ("złotych polskich", "российских
# рублей", "svenska kronor"), said without it at home ("złotych", "рублей", "kronor"): the noun's place in the name.
_HOME_CURRENCY = {"pl": ("PLN", 0), "cs": ("CZK", -1), "ru": ("RUB", -1), "uk": ("UAH", -1), "sv": ("SEK", -1),
                  "da": ("DKK", -1), "no": ("NOK", -1), "hu": ("HUF", -1), "sr": ("RSD", -1)}  # fmt: skip


def currency_name(code: str, count: int, language: str) -> str:
    """The currency's name for `count`, as it is said ("rupiah", "đồng", "лева", "złotych") or else CLDR's."""
    spoken = _SPOKEN_CURRENCY_NAMES.get((language, code))
    if spoken:
        return spoken[count != 1]
    name = get_currency_name(code, count=count, locale=_locale(language))
    home, noun = _HOME_CURRENCY.get(language, ("", 0))
    return name.split()[noun] if code == home and " " in name else name


# The word between a price's whole units and its cents, where the language says one.
_CENTS_LINK = {"it": "e", "pt": "e", "ca": "i"}
# Languages that name the minor unit after the cents of a price ("сто рублей пятьдесят копеек", "sto złotych
# pięćdziesiąt groszy"; it was "... пятьдесят").
_CENTS_NAMED = frozenset({"pl", "cs", "ru", "uk"})


def _currency(code: str, amount: str, language: str, before: list[str]) -> str:
    whole, frac = _parse_amount(amount, language)
    if language == "zh" and code == "CNY" and len(frac) == 2 and int(frac):
        return _yuan(whole, frac)
    # Where every word of a count declines (Polish), so does the amount after a genitive preposition, count and
    # currency: "do 250 zł" -> "do dwustu pięćdziesięciu złotych" (it was "do dwieście pięćdziesiąt"); CLDR's
    # genitive is its form for 5, or for 1.5 where the amount is 1 ("od jednego złotego")
    genitive = agreement.after_genitive_preposition(before, language)
    declined = genitive and agreement.declines_every_word(language)
    name = currency_name(code, (1.5 if whole == 1 else 5) if declined else whole, language)
    noun = (
        name.split()[-1] if language in ("ru", "uk", "cs") else name.split()[0]
    )  # "российских рубля", "české koruny", "dólares americanos"
    cents = int(frac) if len(frac) == 2 else 0
    minor = _minor_unit(code, cents, language) if whole == 0 and cents else None
    if minor:  # "0,50 €" -> "cinquanta centesimi" (it was "zero euro cinquanta")
        said = spell_number(cents, language)
        if said[:1].isalpha():  # "un centesimo", "одна копейка"
            said = agreement.count_form(said, cents, minor.split()[-1], language, before)
        return f"{said} {minor}"
    spoken = spell_number(whole, language)
    if genitive and not declined:
        before = []  # CLDR's currency name is a nominative ("bez 1 Kč"): the count agrees with that
    if spoken[:1].isalpha():
        spoken = agreement.count_form(spoken, whole, noun, language, before)
    if language == "ro":
        spoken = agreement.romanian_de(spoken, whole)
    words = f"{spoken} {name}"
    if frac and len(frac) == 2 and int(frac):
        link = _CENTS_LINK.get(language, "")  # "ventiquattro euro e novanta"
        said = spell_number(cents, language)
        minor = _minor_unit(code, cents, language) if language in _CENTS_NAMED else None
        if minor and said[:1].isalpha():
            if declined:  # "do dwóch złotych pięćdziesięciu groszy"
                minor = _minor_unit(code, 5, language) or minor
            cents_before = before if declined else []
            said = f"{agreement.count_form(said, cents, minor.split()[-1], language, cents_before)} {minor}"
        words += f" {link + ' ' if link else ''}{said}"
    elif frac and len(frac) != 2:
        words = f"{_number(amount, language)} {name}"
    return words


def _yuan(whole: int, frac: str) -> str:
    """ "¥1,299.50" -> "一千二百九十九元五角": a yuan's tenths and hundredths are 角 and 分 ("元五十" was the
    cents' number), a 零 between a yuan and a lone 分."""
    jiao, fen = int(frac[0]), int(frac[1])
    said = f"{cjk.chinese_number(whole)}元" if whole else ""
    if jiao:
        said += f"{cjk.chinese_number(jiao)}角"
    elif whole:
        said += "零"
    return said + (f"{cjk.chinese_number(fen)}分" if fen else "")


def _minor_unit(code: str, n: int, language: str) -> str | None:
    """The name of `n` of a currency's minor unit (centesimi, groszy, öre), in the plural form for `n`, from
    num2words' currency forms; None where it has none for the language and currency."""
    if (language, code) in _MINOR_UNITS:
        return _MINOR_UNITS[language, code][n != 1]
    lang = get(language).num2words
    converter = CONVERTER_CLASSES.get(lang) if lang else None
    forms = getattr(converter, "CURRENCY_FORMS", {}).get(code)
    # num2words' base class has no plural rule: a language that keeps it has no minor-unit names here
    if not forms or type(converter).pluralize is Num2Word_Base.pluralize:
        return None
    try:
        name = converter.pluralize(n, forms[1])
    except IndexError:  # forms listing fewer plurals than the language's rule asks for
        return None
    return name if isinstance(name, str) else None  # (Icelandic's returns the forms' tuple)


_PERCENT_WORD = {"vi": "phần trăm", "ko": "퍼센트", "mt": "fil-mija", "ml": "ശതമാനം", "ar": "بالمائة", "fa": "درصد",
                 "ur": "فیصد"}  # fmt: skip


def _percent(amount: str, language: str) -> str:
    whole, frac = _parse_amount(amount, language)
    spoken = _number(amount, language)
    if language == "zh":  # "50%" -> 百分之五十: the hundred comes first
        return f"百分之{spoken}"
    if language == "sw":  # "asilimia hamsini"
        return f"asilimia {spoken}"
    if language in _PERCENT_WORD:  # CLDR (Babel 2.17) has no long name for percent in these
        return f"{spoken} {_PERCENT_WORD[language]}"
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
    "km2": "area-square-kilometer",  # (NFKC writes "m²" so)
    "m2": "area-square-meter",
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
    "m3": "volume-cubic-meter",  # (NFKC writes "m³" so)
    # line speeds: a unit per second, CLDR's compound ("cento megabit al secondo")
    "Mbps": "digital-megabit/duration-second",
    "Gbps": "digital-gigabit/duration-second",
    "Mbit/s": "digital-megabit/duration-second",
    "Gbit/s": "digital-gigabit/duration-second",
    "Mb/s": "digital-megabit/duration-second",
    "Gb/s": "digital-gigabit/duration-second",
    # Hebrew, with its gershayim or a quotation mark
    'ק"מ': "length-kilometer",
    'ק"ג': "mass-kilogram",
    "ק״מ": "length-kilometer",
    "ק״ג": "mass-kilogram",
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
    "хв": "duration-minute",  # Ukrainian
    "ГБ": "digital-gigabyte",
    "МБ": "digital-megabyte",
    "ТБ": "digital-terabyte",
    # Hindi and Thai short forms
    "किमी": "length-kilometer",
    "किग्रा": "mass-kilogram",
    "सेमी": "length-centimeter",
    "मिमी": "length-millimeter",
    "กม.": "length-kilometer",
    "กก.": "mass-kilogram",
}


# What a compound unit is divided by ("98 mg/dl", "5 mg/kg"): CLDR's name for it, as the denominator.
PER_UNITS = {"dl": "volume-deciliter", "dL": "volume-deciliter", "l": "volume-liter", "L": "volume-liter",
             "ml": "volume-milliliter", "mL": "volume-milliliter", "kg": "mass-kilogram", "h": "duration-hour",
             "min": "duration-minute", "km": "length-kilometer", "m": "length-meter"}  # fmt: skip


def compound_unit(amount: str, symbol: str, per: str, language: str) -> str | None:
    """ "98 mg/dl" -> "novantotto milligrammi al decilitro", "5 mg/kg" -> "cinque miligramas por quilograma"
    (CLDR's compound pattern); None where CLDR writes no words for it (a "/" or a unit id left)."""
    whole, frac = _parse_amount(amount, language)
    value = float(f"{whole}.{frac}") if frac else whole
    loc = _locale(language)
    try:
        written = format_compound_unit(
            value, UNITS[symbol], denominator_unit=PER_UNITS[per], length="long", locale=loc
        )
        shown = format_decimal(value, locale=loc)
    except (UnknownUnitError, ArithmeticError, KeyError):
        return None
    if "/" in written or "-" in written.replace(shown, "") or shown not in written:
        return None
    return written.replace(shown, f" {_number(amount, language)} ", 1)


# Unit names where CLDR (Babel 2.17) has none for the language (it wrote "12 length-kilometer").
_UNIT_NAMES = {
    "fa": {"km": "کیلومتر", "m": "متر", "cm": "سانتی‌متر", "mm": "میلی‌متر", "kg": "کیلوگرم", "g": "گرم",
           "mg": "میلی‌گرم", "l": "لیتر", "ml": "میلی‌لیتر", "h": "ساعت", "min": "دقیقه", "GB": "گیگابایت",
           "MB": "مگابایت", "km/h": "کیلومتر بر ساعت"},
    "ur": {"km": "کلومیٹر", "m": "میٹر", "cm": "سینٹی میٹر", "mm": "ملی میٹر", "g": "گرام", "mg": "ملی گرام",
           "l": "لیٹر", "ml": "ملی لیٹر", "h": "گھنٹے", "min": "منٹ", "GB": "گیگا بائٹ", "MB": "میگا بائٹ",
           "km/h": "کلومیٹر فی گھنٹہ"},
}  # fmt: skip


def _compound_or_unit(form: float, unit: str, per: str, loc: Locale) -> str:
    """CLDR's long name of `form` of `unit`, or of `unit` per `per` ("megabit al secondo"); some locales write
    the compound with a slash ("megabit/s"): then the language's base locale's."""
    if not per:
        return format_unit(form, unit, length="long", locale=loc)
    written = format_compound_unit(form, unit, denominator_unit=per, length="long", locale=loc)
    if "/" in written:
        written = format_compound_unit(form, unit, denominator_unit=per, length="long", locale=loc.language)
    return written.replace("/", " ")


def _unit(amount: str, symbol: str, language: str, before: list[str]) -> str:
    """ "5 km" -> "cinque chilometri"; where CLDR has no long name for the language, the number and the
    symbol as written. After a genitive preposition (Slavic, Russian) the name is a genitive, which CLDR
    writes as the form for 5 (plural: "do dwóch kilometrów") or for 1.5 (singular: "до одного километра")."""
    whole, frac = _parse_amount(amount, language)
    spoken = _number(amount, language)
    if language == "zh" and symbol in cjk.CHINESE_UNITS:
        return f"{spoken}{cjk.CHINESE_UNITS[symbol]}"
    if symbol in _UNIT_NAMES.get(language, {}):
        return f"{spoken} {_UNIT_NAMES[language][symbol]}"
    if language == "ja" and symbol in cjk.JAPANESE_UNIT_COUNTERS and not frac:
        return cjk.counted(whole, cjk.JAPANESE_UNIT_COUNTERS[symbol])
    loc = _locale(language)
    unit, _, per = UNITS[symbol].partition("/")
    try:
        value = float(f"{whole}.{frac}") if frac else whole
        form = value
        if not frac and agreement.genitive_count(before, language):
            form = 1.5 if whole % 10 == 1 and whole % 100 != 11 else 5
        written = _compound_or_unit(form, unit, per, loc)
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
