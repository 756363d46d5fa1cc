"""Amounts: currencies, percentages, units and rates, heights, ratings and blood pressure."""

from __future__ import annotations

import re

from .. import agreement
from .words import (
    _MAX_CARDINAL_DIGITS,
    _SCALES,
    _WORDS,
    _alt,
    _counting,
    _number_pair,
    _number_words,
    _plural_is_one,
    cardinal,
    ends_sentence,
    year,
)

# What a rate is per, written after a slash ("$20/hr", "3,50 €/Monat"): the written word -> the spoken one.
_PER: dict[str, dict[str, str]] = {
    "en": {
        **{
            w: w
            for w in "month week day year hour night person minute user seat room head unit bottle guest "
            "ticket session item visit lesson class ride device license box therm call text message".split()
        },
        **{"mo": "month", "wk": "week", "yr": "year", "hr": "hour", "h": "hour", "min": "minute"},
        **{"pp": "person", "gb": "gigabyte", "kwh": "kilowatt hour", "kg": "kilogram", "lb": "pound"},
    },
    "es": {
        **{w: w for w in "mes semana día año hora noche persona minuto habitación".split()},
        **{"h": "hora", "min": "minuto", "kg": "kilo", "kwh": "kilovatio hora"},
    },
    "de": {
        **{w.lower(): w for w in "Monat Woche Tag Jahr Stunde Nacht Person Minute Kopf Zimmer".split()},
        **{
            "std": "Stunde",
            "h": "Stunde",
            "min": "Minute",
            "kg": "Kilo",
            "kwh": "Kilowattstunde",
            "pers": "Person",
        },
    },
    "fr": {
        **{w: w for w in "mois semaine jour an heure nuit personne minute chambre".split()},
        **{"h": "heure", "min": "minute", "pers": "personne", "kg": "kilo", "kwh": "kilowattheure"},
    },
}


# symbol -> (singular, plural, subunit singular, subunit plural); None subunit: no minor unit spoken.
_CURRENCIES: dict[str, dict[str, tuple[str, str, str | None, str | None]]] = {
    "en": {
        # dollars named by their country before the sign ("US$20", "C$49.99", "AU$120")
        "US$": ("U.S. dollar", "U.S. dollars", "cent", "cents"),
        "C$": ("Canadian dollar", "Canadian dollars", "cent", "cents"),
        "CA$": ("Canadian dollar", "Canadian dollars", "cent", "cents"),
        "A$": ("Australian dollar", "Australian dollars", "cent", "cents"),
        "AU$": ("Australian dollar", "Australian dollars", "cent", "cents"),
        "NZ$": ("New Zealand dollar", "New Zealand dollars", "cent", "cents"),
        "$": ("dollar", "dollars", "cent", "cents"),
        "€": ("euro", "euros", "cent", "cents"),
        "£": ("pound", "pounds", "penny", "pence"),
        "¥": ("yen", "yen", None, None),
        "¢": ("cent", "cents", None, None),
    },
    "es": {
        "$": ("dólar", "dólares", "centavo", "centavos"),
        "€": ("euro", "euros", "céntimo", "céntimos"),
        "£": ("libra", "libras", "penique", "peniques"),
        "¥": ("yen", "yenes", None, None),
    },
    "de": {
        "$": ("Dollar", "Dollar", "Cent", "Cent"),
        "€": ("Euro", "Euro", "Cent", "Cent"),
        "£": ("Pfund", "Pfund", "Penny", "Pence"),
        "¥": ("Yen", "Yen", None, None),
    },
    "fr": {
        "$": ("dollar", "dollars", "cent", "cents"),
        "€": ("euro", "euros", "centime", "centimes"),
        "£": ("livre", "livres", "penny", "pence"),
        "¥": ("yen", "yens", None, None),
    },
}


# ISO codes written for a currency ("12,50 EUR", "USD 20"): said as the currency's name.
_ISO_CURRENCY_CODES = {"EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥"}


def _currency_names(sym: str, lang: str) -> tuple[str, str, str | None, str | None]:
    """(one, many, one of the hundredth, many of it) for a written symbol or ISO code."""
    return _CURRENCIES[lang][_ISO_CURRENCY_CODES.get(sym, sym)]


# unit -> (singular, plural) per language; only unambiguous unit spellings after a number.
_UNITS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {
        "km/h": ("kilometer per hour", "kilometers per hour"),
        "m2": ("square meter", "square meters"),
        "km2": ("square kilometer", "square kilometers"),
        "cm2": ("square centimeter", "square centimeters"),
        "ft2": ("square foot", "square feet"),
        "mi2": ("square mile", "square miles"),
        "m3": ("cubic meter", "cubic meters"),
        "cm3": ("cubic centimeter", "cubic centimeters"),
        # clinical units, as a patient's results are read out
        "ng": ("nanogram", "nanograms"),
        "pg": ("picogram", "picograms"),
        "mmHg": ("millimeter of mercury", "millimeters of mercury"),
        "bpm": ("beat per minute", "beats per minute"),
        "kbps": ("kilobit per second", "kilobits per second"),
        "secs": ("second", "seconds"),
        "dL": ("deciliter", "deciliters"),
        "mg/dL": ("milligram per deciliter", "milligrams per deciliter"),
        "mg/dl": ("milligram per deciliter", "milligrams per deciliter"),
        "mmol/L": ("millimole per liter", "millimoles per liter"),
        "mmol/l": ("millimole per liter", "millimoles per liter"),
        "mcg": ("microgram", "micrograms"),
        "µg": ("microgram", "micrograms"),
        "mph": ("mile per hour", "miles per hour"),
        "km": ("kilometer", "kilometers"),
        "cm": ("centimeter", "centimeters"),
        "mm": ("millimeter", "millimeters"),
        "m": ("meter", "meters"),
        "kg": ("kilogram", "kilograms"),
        "mg": ("milligram", "milligrams"),
        "g": ("gram", "grams"),
        "lb": ("pound", "pounds"),
        "lbs": ("pound", "pounds"),
        "ml": ("milliliter", "milliliters"),
        "l": ("liter", "liters"),
        "mi": ("mile", "miles"),
        "ft": ("foot", "feet"),
        "°C": ("degree Celsius", "degrees Celsius"),
        "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
        "°": ("degree", "degrees"),
        "kHz": ("kilohertz", "kilohertz"),
        "Hz": ("hertz", "hertz"),
        "GB": ("gigabyte", "gigabytes"),
        "MB": ("megabyte", "megabytes"),
        "KB": ("kilobyte", "kilobytes"),
        "TB": ("terabyte", "terabytes"),
        "ms": ("millisecond", "milliseconds"),
        "min": ("minute", "minutes"),
        "mins": ("minute", "minutes"),
        "h": ("hour", "hours"),
        "hr": ("hour", "hours"),
        "hrs": ("hour", "hours"),
        "sec": ("second", "seconds"),
        "oz": ("ounce", "ounces"),
        "gal": ("gallon", "gallons"),
        "yd": ("yard", "yards"),
        "mL": ("milliliter", "milliliters"),
        "L": ("liter", "liters"),
        "kW": ("kilowatt", "kilowatts"),
        "kWh": ("kilowatt hour", "kilowatt hours"),
        "MWh": ("megawatt hour", "megawatt hours"),
        "GWh": ("gigawatt hour", "gigawatt hours"),
        "mAh": ("milliamp hour", "milliamp hours"),
        "V": ("volt", "volts"),
        "MHz": ("megahertz", "megahertz"),
        "GHz": ("gigahertz", "gigahertz"),
        "Mbps": ("megabit per second", "megabits per second"),
        "Mb/s": ("megabit per second", "megabits per second"),
        "Mbit/s": ("megabit per second", "megabits per second"),
        "Gbps": ("gigabit per second", "gigabits per second"),
        "Gb/s": ("gigabit per second", "gigabits per second"),
        "Gbit/s": ("gigabit per second", "gigabits per second"),
        "pts": ("point", "points"),
        "hp": ("horsepower", "horsepower"),
        "in.": ("inch", "inches"),  # with its period only: "in" is a word ("3 in a row")
        # with their period, which is no full stop inside a sentence ("a 16 oz. ribeye" had one)
        "oz.": ("ounce", "ounces"),
        "lb.": ("pound", "pounds"),
        "lbs.": ("pound", "pounds"),
        "ft.": ("foot", "feet"),
        "yd.": ("yard", "yards"),
        "gal.": ("gallon", "gallons"),
        "sq ft": ("square foot", "square feet"),
        "sq. ft.": ("square foot", "square feet"),
        "sqft": ("square foot", "square feet"),
        "psi": ("P.S.I.", "P.S.I."),
        "yr": ("year", "years"),
        "yrs": ("year", "years"),
        "mos": ("month", "months"),
        "wk": ("week", "weeks"),
        "wks": ("week", "weeks"),
        # kitchen and pharmacy measures, said to a patient
        "tsp": ("teaspoon", "teaspoons"),
        "tbsp": ("tablespoon", "tablespoons"),
        "fl oz": ("fluid ounce", "fluid ounces"),
        "mEq/L": ("milliequivalent per liter", "milliequivalents per liter"),
        "IU": ("international unit", "international units"),
    },
    "es": {
        "km/h": ("kilómetro por hora", "kilómetros por hora"),
        "m2": ("metro cuadrado", "metros cuadrados"),
        "km2": ("kilómetro cuadrado", "kilómetros cuadrados"),
        "cm2": ("centímetro cuadrado", "centímetros cuadrados"),
        "m3": ("metro cúbico", "metros cúbicos"),
        "kWh": ("kilovatio hora", "kilovatios hora"),
        "GB": ("gigabyte", "gigabytes"),
        "MB": ("megabyte", "megabytes"),
        "TB": ("terabyte", "terabytes"),
        "Mbps": ("megabit por segundo", "megabits por segundo"),
        "Mb/s": ("megabit por segundo", "megabits por segundo"),
        "Gbps": ("gigabit por segundo", "gigabits por segundo"),
        "Gb/s": ("gigabit por segundo", "gigabits por segundo"),
        "mmHg": ("milímetro de mercurio", "milímetros de mercurio"),
        "mg/dL": ("miligramo por decilitro", "miligramos por decilitro"),
        "mg/dl": ("miligramo por decilitro", "miligramos por decilitro"),
        "g/dL": ("gramo por decilitro", "gramos por decilitro"),
        "g/dl": ("gramo por decilitro", "gramos por decilitro"),
        "mmol/L": ("milimol por litro", "milimoles por litro"),
        "mmol/l": ("milimol por litro", "milimoles por litro"),
        "km": ("kilómetro", "kilómetros"),
        "cm": ("centímetro", "centímetros"),
        "mm": ("milímetro", "milímetros"),
        "m": ("metro", "metros"),
        "kg": ("kilo", "kilos"),
        "g": ("gramo", "gramos"),
        "mg": ("miligramo", "miligramos"),
        "ml": ("mililitro", "mililitros"),
        "mL": ("mililitro", "mililitros"),
        "l": ("litro", "litros"),
        "°C": ("grado", "grados"),
        "°": ("grado", "grados"),
        "h": ("hora", "horas"),
        "min": ("minuto", "minutos"),
    },
    "de": {
        "km/h": ("Kilometer pro Stunde", "Kilometer pro Stunde"),
        "m2": ("Quadratmeter", "Quadratmeter"),
        "km2": ("Quadratkilometer", "Quadratkilometer"),
        "cm2": ("Quadratzentimeter", "Quadratzentimeter"),
        "m3": ("Kubikmeter", "Kubikmeter"),
        "qm": ("Quadratmeter", "Quadratmeter"),
        "kWh": ("Kilowattstunde", "Kilowattstunden"),
        "GB": ("Gigabyte", "Gigabyte"),
        "MB": ("Megabyte", "Megabyte"),
        "TB": ("Terabyte", "Terabyte"),
        "Mbit/s": ("Megabit pro Sekunde", "Megabit pro Sekunde"),
        "Gbit/s": ("Gigabit pro Sekunde", "Gigabit pro Sekunde"),
        "Mbps": ("Megabit pro Sekunde", "Megabit pro Sekunde"),
        "Gbps": ("Gigabit pro Sekunde", "Gigabit pro Sekunde"),
        "Mb/s": ("Megabit pro Sekunde", "Megabit pro Sekunde"),
        "Gb/s": ("Gigabit pro Sekunde", "Gigabit pro Sekunde"),
        "mmHg": ("Millimeter Quecksilbersäule", "Millimeter Quecksilbersäule"),
        "mg/dL": ("Milligramm pro Deziliter", "Milligramm pro Deziliter"),
        "mg/dl": ("Milligramm pro Deziliter", "Milligramm pro Deziliter"),
        "mmol/L": ("Millimol pro Liter", "Millimol pro Liter"),
        "mmol/l": ("Millimol pro Liter", "Millimol pro Liter"),
        "km": ("Kilometer", "Kilometer"),
        "cm": ("Zentimeter", "Zentimeter"),
        "mm": ("Millimeter", "Millimeter"),
        "m": ("Meter", "Meter"),
        "kg": ("Kilogramm", "Kilogramm"),
        "g": ("Gramm", "Gramm"),
        "mg": ("Milligramm", "Milligramm"),
        "ml": ("Milliliter", "Milliliter"),
        "mL": ("Milliliter", "Milliliter"),
        "l": ("Liter", "Liter"),
        "°C": ("Grad Celsius", "Grad Celsius"),
        "°": ("Grad", "Grad"),
        "h": ("Stunde", "Stunden"),
        "min": ("Minute", "Minuten"),
        "Min.": ("Minute", "Minuten"),
        "Std.": ("Stunde", "Stunden"),
        "Std": ("Stunde", "Stunden"),
    },
    "fr": {
        "km/h": ("kilomètre heure", "kilomètres heure"),
        "m2": ("mètre carré", "mètres carrés"),
        "km2": ("kilomètre carré", "kilomètres carrés"),
        "cm2": ("centimètre carré", "centimètres carrés"),
        "m3": ("mètre cube", "mètres cubes"),
        "kWh": ("kilowattheure", "kilowattheures"),
        "Go": ("gigaoctet", "gigaoctets"),
        "Mo": ("mégaoctet", "mégaoctets"),
        "To": ("téraoctet", "téraoctets"),
        "GB": ("gigaoctet", "gigaoctets"),
        "Mbit/s": ("mégabit par seconde", "mégabits par seconde"),
        "Gbit/s": ("gigabit par seconde", "gigabits par seconde"),
        "Mb/s": ("mégabit par seconde", "mégabits par seconde"),
        "Gb/s": ("gigabit par seconde", "gigabits par seconde"),
        "Mbps": ("mégabit par seconde", "mégabits par seconde"),
        "Gbps": ("gigabit par seconde", "gigabits par seconde"),
        "mmHg": ("millimètre de mercure", "millimètres de mercure"),
        "mg/dL": ("milligramme par décilitre", "milligrammes par décilitre"),
        "mg/dl": ("milligramme par décilitre", "milligrammes par décilitre"),
        "mmol/L": ("millimole par litre", "millimoles par litre"),
        "mmol/l": ("millimole par litre", "millimoles par litre"),
        "km": ("kilomètre", "kilomètres"),
        "cm": ("centimètre", "centimètres"),
        "mm": ("millimètre", "millimètres"),
        "m": ("mètre", "mètres"),
        "kg": ("kilo", "kilos"),
        "g": ("gramme", "grammes"),
        "mg": ("milligramme", "milligrammes"),
        "ml": ("millilitre", "millilitres"),
        "mL": ("millilitre", "millilitres"),
        "l": ("litre", "litres"),
        "°C": ("degré", "degrés"),
        "°": ("degré", "degrés"),
        "h": ("heure", "heures"),
        "min": ("minute", "minutes"),
    },
}


def _currency(m: re.Match, lang: str) -> str:
    if m.group("neg") or m.group("neg2"):
        return f"{_WORDS[lang]['minus']} {_currency_amount(m, lang)}"
    said = _currency_amount(m, lang)
    if lang == "en" and not m.group("scale") and _attributive(m):
        # "a $5 fee": "a five dollar fee", and "a $2.50 fee" "a two dollar and fifty cent fee": compound
        # adjectives ("pence" keeps its form: "penny" is no adjective)
        one, many, sub_one, sub_many = _currency_names(m.group("sym") or m.group("sym2"), lang)
        said = re.sub(rf"\b{many}\b", one, said, count=1)
        if sub_many and sub_many == f"{sub_one}s":
            said = re.sub(rf"\b{sub_many}$", sub_one, said)
        elif sub_many:  # "a £2.50 fee": "a two pound fifty fee"
            said = re.sub(rf" {_WORDS[lang]['and']} (.+) {sub_many}$", r" \1", said)
    return said


def _pence(m: re.Match, lang: str) -> str:
    """ "99p" -> "ninety nine pence", "1p" -> "one penny"."""
    n = int(m.group(1))
    return f"{cardinal(n, lang)} {'penny' if n == 1 else 'pence'}"


def _attributive(m: re.Match) -> bool:
    """An English amount between a determiner and the noun it qualifies ("a $50 gift card", "the $50 credit",
    "your 2L bottle"). After "the" and the possessives the next word may also be a verb or a pronoun ("the $50
    you paid", "the $50 will be refunded"), so those are left out."""
    before = agreement.previous_words(m.string, m.start(), 1)
    after = agreement.next_word(m.string, m.end())
    if not before or not after[:1].islower() or after in _NOT_MEASURED:
        return False
    determiner = before[-1].lower()
    return determiner in ("a", "an") or (determiner in _DEFINITE and after not in _NOT_A_NOUN)


_DEFINITE = frozenset("the your our my their his her this that each every".split())
_NOT_A_NOUN = frozenset(
    "you we they he she it i that which who will would can could should must may might has have had be been "
    "being back off up out over here there now today already still just then plus minus more less per each "
    "was were is are do does did gets got goes went comes came".split()
)


def _currency_amount(m: re.Match, lang: str) -> str:
    sym = m.group("sym") or m.group("sym2")
    amount = _local_amount(m.group("amt") or m.group("amt2"), lang)
    return _money(sym, amount, (m.groupdict().get("scale") or "").lower(), m, lang)


def _local_amount(amount: str, lang: str) -> str:
    """An amount beside its currency, written in the language's own convention. Beside a currency, the other
    convention is unambiguous: "€1.250,00" in English text and "$45.99" in Spanish (the Americas write
    the decimal point) have cents, and "$.99" is "$0.99"."""
    if lang == "en":
        if re.fullmatch(r"\d{1,3}(?:\.\d{3})+,\d\d", amount):
            return amount.replace(".", ",")[:-3] + "." + amount[-2:]
        return "0" + amount if amount.startswith(".") else amount
    if re.fullmatch(r"\d+\.\d\d?", amount):  # ("1.5 kg" too, beside a unit)
        return amount.replace(".", ",")
    return amount


def _currency_word(m: re.Match, lang: str) -> str:
    """An amount with cents before the currency's name, as it is written in running text: "29,99 euros al mes"
    -> "veintinueve euros con noventa y nueve céntimos", "12.50 dollars" -> "twelve dollars and fifty cents"
    (they were decimals: "veintinueve coma nueve nueve euros")."""
    return _money(_CURRENCY_BY_NAME[lang][m.group("name").lower()], m.group("amt"), "", m, lang)


# A currency's name (singular or plural, any case) -> its symbol, per language.
_CURRENCY_BY_NAME = {
    lang: {name.lower(): sym for sym, names in table.items() if sym != "¢" for name in names[:2]}
    for lang, table in _CURRENCIES.items()
}


def _money(sym: str, amount: str, scale: str, m: re.Match, lang: str) -> str:
    one, many, sub_one, sub_many = _currency_names(sym, lang)
    dec_sep = "." if lang == "en" else ","
    group_sep = "," if lang == "en" else "."
    if scale:
        return f"{_number_words(amount, lang)} {cardinal(_SCALES[scale], lang).split()[-1]} {many}"
    if dec_sep in amount:
        whole_s, cents_s = amount.rsplit(dec_sep, 1)
        if len(cents_s) != 2:  # "$80,9" or "$1.5": not cents, read as a decimal amount
            return f"{_number_words(amount, lang)} {many}"
    else:
        whole_s, cents_s = amount, ""
    # CLDR groups thousands with a (narrow) no-break space in fr, sv, pl, ...: "12 500,50 €"
    whole_digits = re.sub(r"[\s\u00a0\u202f]", "", whole_s.replace(group_sep, ""))
    if len(whole_digits) > _MAX_CARDINAL_DIGITS:
        return f"{_number_words(amount, lang)} {many}"  # no amount: its digits
    whole = int(whole_digits or "0")
    cents = int(cents_s or "0")
    parts = []
    if whole or not cents:
        name = one if whole == 1 else many
        parts.append(f"{_counting(cardinal(whole, lang), str(whole), lang, name.split()[0], m)} {name}")
    if cents and sub_one:
        name = sub_one if cents == 1 else sub_many
        if not whole and (lang, many) == ("en", "euros"):
            name = f"euro {name}"  # "€0.92": "ninety two euro cents" (a cent alone is heard as a dollar's)
        parts.append(f"{_counting(cardinal(cents, lang), str(cents), lang, name.split()[0], m)} {name}")
    elif cents:
        parts = [f"{_number_words(amount, lang)} {many}"]
    return f" {_WORDS[lang]['and']} ".join(parts)


def _currency_sign(m: re.Match, lang: str) -> str:
    """A currency's sign left alone, after a scale word or none: "2 millions €" -> "deux millions d'euros",
    "Preise in €" -> "Preise in Euro" (the sign was dropped, and the amount's currency with it)."""
    before = agreement.previous_words(m.string, m.start(), n=1)
    return f" {agreement.after_millions(_currency_names(m.group(0), lang)[1], lang, before)} "


# Currency names after a number make it an amount, whatever the cue before it.
_CURRENCY_WORDS = {
    lang: frozenset(w.lower() for names in table.values() for w in names[:2]) | {"pesos", "peso", "franken"}
    for lang, table in _CURRENCIES.items()
}


def _percent(m: re.Match, lang: str) -> str:
    return f"{_number_words(m.group(1), lang)} {_WORDS[lang]['percent']}"


def _unit(m: re.Match, lang: str) -> str:
    num, unit = _without_trailing_zeros(_local_amount(m.group("num"), lang), lang), m.group("unit")
    one, many = _UNITS[lang][unit]
    name = one if _plural_is_one(num) else many
    if lang == "en" and _attributive(m):
        name = one  # "a 2L soda": "a two liter soda", a compound adjective
    if m.group("per_unit"):  # "10 mg/kg": "ten milligrams per kilogram"
        name += f" {_WORDS[lang]['per']} {_UNITS[lang][m.group('per_unit')][0]}"
    elif m.group("rate"):  # "3,000 mg/day": "three thousand milligrams per day"
        name += f" {_WORDS[lang]['per']} {_PER[lang][m.group('rate').lower()]}"
    elif unit.endswith(".") and ends_sentence(m, lang):
        name += "."  # "1,5 Std." at the end: the abbreviation's dot is also the full stop
    return f"{_counting(_number_words(num, lang), num, lang, name.split()[0], m)} {name}"


def _without_trailing_zeros(num: str, lang: str) -> str:
    """A measure's decimals without their trailing zeros: "1,20 m" is "eins Komma zwei Meter" (it was "eins Komma
    zwei null"), "2.0 kg" "two kilograms"."""
    dec = "." if lang == "en" else ","
    if dec not in num:
        return num
    whole, frac = num.rsplit(dec, 1)
    frac = frac.rstrip("0")
    return f"{whole}{dec}{frac}" if frac else whole


def _per(m: re.Match, lang: str) -> str:
    """ "/month" -> "per month", "/user/month" -> "per user per month", "/hr. plus" -> "per hour plus"."""
    per = _WORDS[lang]["per"]
    return " ".join(f"{per} {_PER[lang][w.strip().rstrip('.').lower()]}" for w in m.group(0).split("/")[1:])


# A mark "out of" a scale, per language (English has `_rating`), and the words that say a "/10" or "/100" is one.
GRADE_WORDS = {"es": "sobre", "fr": "sur", "it": "su", "pt": "em", "ca": "sobre"}
_GRADE_CUE = re.compile(
    r"\b(?:nota|notas|note|notes|moyenne|calificación|puntuación|puntaje|voto|voti|punteggio|valutazione|"
    r"classificação|qualificació|examen|exam|esame|exame|score|obtenu|obtenido|sacado|preso|tirado)\b",
    re.IGNORECASE,
)


def grade(a: str, b: str, before: str, lang: str, number_words) -> str | None:
    """ "14,5/20" -> "quatorze virgule cinq sur vingt", "28/30" -> "ventotto su trenta": a mark out of 20, 30
    or 110 always (no date has a month past 12), out of 10 or 100 after a grade's word; None otherwise."""
    if int(b) in (10, 100) and not _GRADE_CUE.search(before):
        return None
    if int(a.split(",")[0]) > int(b):
        return None
    return f"{number_words(a, lang)} {GRADE_WORDS[lang]} {number_words(b, lang)}"


def _grade(m: re.Match, lang: str) -> str | None:
    before = m.string[max(0, m.start() - 40) : m.start()]
    return grade(m.group("a"), m.group("b"), before, lang, _number_words)


_RATING_BEFORE = frozenset("rated rating ratings score scored scores review reviews graded grade".split())


_RATING_AFTER = frozenset("stars star points rating review".split())


def _rating(m: re.Match, lang: str) -> str | None:
    """A score out of 5, 10 or 100 after "rated", "score"... or before "stars": "Rated 4.5/5 stars" -> "four point
    five out of five stars" (it was "four point five five stars"), "Your score is 98/100" -> "ninety eight out
    of one hundred". Elsewhere "4/5" is a fraction or a date."""
    before = agreement.previous_words(m.string, m.start(), 3)
    after = agreement.next_word(m.string, m.end()).lower()
    if not (set(w.lower() for w in before) & _RATING_BEFORE or after in _RATING_AFTER):
        return None
    score, scale = m.group(1), int(m.group(2))
    if float(score) > scale:
        return None
    return f"{_number_words(score, lang)} out of {cardinal(scale, lang)}"


# Words after a length that it does not qualify ("6 feet long", "65 inches and ..."): the plural stays.
_NOT_MEASURED = frozenset(
    "and or but long wide tall high deep thick of in on at to with by from for is was are were apart away "
    "across across taller shorter longer wider".split()
)


_BP_CUE = {
    "en": re.compile(r"\b(?:blood\s+pressure|bp|b\.p\.)\b[^.]{0,20}$", re.IGNORECASE),
    # (the short forms in capitals only: French "ta" is "your")
    "es": re.compile(r"(?:\b(?i:tensi[oó]n|presi[oó]n\s+arterial)|\bTA)\b[^.,]{0,20}$"),
    "de": re.compile(r"(?:\b(?i:Blutdruck\w*)|\bRR)\b[^.,]{0,20}$"),
    "fr": re.compile(r"(?:\b(?i:tension|pression\s+art[ée]rielle)|\bTA)\b[^.,]{0,20}$"),
}
# Between the two pressures: "one twenty over eighty", "hundertzwanzig zu achtzig"; Spanish and French say
# them one after the other ("doce ocho", "douze huit").
_BP_LINK = {"en": " over ", "es": " ", "de": " zu ", "fr": " "}


def _blood_pressure(m: re.Match, lang: str) -> str | None:
    """ "Your blood pressure was 120/80" -> "one twenty over eighty" (it was "one hundred and twenty eighty"), and
    "120/80 mmHg" without the cue (the unit is not said, as a nurse reads it). In es/de/fr after their cue:
    "Su tensión es de 12/8" -> "doce ocho" (it was "doce de agosto")."""
    if not m.group("mmhg") and not _BP_CUE[lang].search(m.string[max(0, m.start() - 40) : m.start()]):
        return None
    high, low = int(m.group(1)), int(m.group(2))
    if not (low < high and (lang == "en" or m.group("mmhg") or high >= 5)):
        return None

    def said(n: int) -> str:
        if lang != "en" or n < 100:
            return cardinal(n, lang)
        return f"{cardinal(n // 100, lang)} {_number_pair(n % 100, lang)}"

    return f"{said(high)}{_BP_LINK[lang]}{said(low)}"


def _feet_inches(m: re.Match, lang: str) -> str | None:
    """Feet and inches written with their marks: 6'2" -> "six foot two", 6' -> "six feet", 65" -> "sixty five
    inches" (the marks were dropped or read as quotes). A lower-case noun after it makes it an adjective:
    a 65" TV -> "a sixty five inch TV"."""
    after = agreement.next_word(m.string, m.end())
    attributive = (after[:1].islower() and after not in _NOT_MEASURED) or (len(after) > 1 and after.isupper())
    if m.group("only"):
        n = m.group("only")
        return f"{_number_words(n, lang)} {'inch' if attributive or n == '1' else 'inches'}"
    feet, inches = int(m.group("ft")), m.group("inch")
    if inches:
        return f"{cardinal(feet, lang)} foot {cardinal(int(inches), lang)}"
    return f"{cardinal(feet, lang)} {'foot' if attributive or feet == 1 else 'feet'}"


def _currency_alt(lang: str) -> str:
    """The currency symbols, and the ISO codes as whole words ("EUR" but not the "EUR" of "EURO")."""
    return (
        _alt(_CURRENCIES[lang])
        + "|"
        + "|".join(rf"(?<![A-Za-z]){c}(?![A-Za-z])" for c in _ISO_CURRENCY_CODES)
    )


# How often, written "3x" ("3x täglich", "2x/day"): the language's word for so many times, and for once.
_TIMES_WORD = {"en": "times", "es": "veces", "de": "mal", "fr": "fois"}
_ONCE = {"en": "once", "es": "una vez", "de": "einmal", "fr": "une fois"}


def _q_hours(m: re.Match, lang: str) -> str:
    """ "q8h" -> "every eight hours", "q4-6h" -> "every four to six hours", "q1h" -> "every hour"."""
    first, last = int(m.group("q1")), m.group("q2")
    if last:
        return f"every {cardinal(first, lang)} to {cardinal(int(last), lang)} hours"
    return "every hour" if first == 1 else f"every {cardinal(first, lang)} hours"


def _dimensions(m: re.Match, lang: str) -> str:
    """ "32x34" -> "thirty two by thirty four", "12 x 12 x 8" -> "twelve by twelve by eight", "30 x 40 cm" ->
    "... centimeters"; four digits in pairs, as a screen's are said ("1920x1080" -> "nineteen twenty by ten
    eighty")."""
    numbers = re.findall(r"\d+", m.group(0))
    said = " by ".join(year(int(n), lang) if len(n) == 4 else cardinal(int(n), lang) for n in numbers)
    if m.group("unit"):
        one, many = _UNITS[lang][m.group("unit")]
        said += f" {one if numbers[-1] == '1' else many}"
    return said


def _times(m: re.Match, lang: str) -> str:
    """ "3x täglich" -> "dreimal täglich", "2x/day" -> "twice a day", "3x al día" -> "tres veces al día",
    "2 x par jour" -> "deux fois par jour"."""
    if not m.group("n").isdigit():  # "1.5x faster": "one point five times faster"
        words = _number_words(_local_amount(m.group("n"), lang), lang)
        return f"{words} {_TIMES_WORD[lang]}"
    n = int(m.group("n"))
    after = re.match(r"\s+([a-z]+)", m.string[m.end() :])
    if (
        lang == "en"
        and not m.group("per")
        and after
        and after.group(1).endswith("s")
        and after.group(1) != "as"
    ):
        return f"{cardinal(n, lang)} X"  # a multiplier before a plural noun: "2x points" -> "two X points"
    if n == 1:
        said = _ONCE[lang]
    elif lang == "en" and n == 2:
        said = "twice"
    else:  # "dreimal" is one word
        said = cardinal(n, lang) + ("mal" if lang == "de" else f" {_TIMES_WORD[lang]}")
    if not m.group("per"):
        return said
    unit = {**_PER["en"], "d": "day"}[m.group("per").lower()]  # (only English writes "2x/day")
    return f"{said} {'an' if unit == 'hour' else 'a'} {unit}"


# Words before a temperature written "72F" / "22C" (without them "row 12F" is a seat, "12C" a code).
_TEMPERATURE_CUE = re.compile(
    r"\b(?:temperatures?|temp|highs?|lows?|fever|forecast|weather|outside|heat|warm|cold|cool|below|above|"
    r"around|reach(?:es|ed)?|hit|feels\s+like|thermostat|set\s+to|between|be|is|was|of)\W*$",
    re.IGNORECASE,
)


_PLACE_CUE = re.compile(
    r"\b(?:seats?|rows?|gates?|rooms?|apartment|apt|suite|unit|floor|section|aisle)\b", re.I
)


def _temperature(m: re.Match, lang: str) -> str | None:
    """ "It will be 72F tomorrow" -> "seventy two degrees Fahrenheit", after a word that a temperature follows."""
    before = m.string[max(0, m.start() - 30) : m.start()]
    if not _TEMPERATURE_CUE.search(before) or _PLACE_CUE.search(before):
        return None
    n = int(m.group("deg"))
    scale = "Fahrenheit" if m.group("scale") == "F" else "Celsius"
    words = cardinal(abs(n), lang)
    return f"{'minus ' if n < 0 else ''}{words} {'degree' if abs(n) == 1 else 'degrees'} {scale}"
