"""Abbreviations, symbols and initialisms: what a written short form or sign is said as."""

from __future__ import annotations

import re

from .. import roman
from .words import _spell_letters, cardinal, ends_sentence, ordinal

# Abbreviations (matched case-sensitively, with their period). "St." is handled by a rule below.
_ABBREVIATIONS: dict[str, dict[str, str]] = {
    "en": {
        "Dr.": "Doctor",
        "Mr.": "Mister",
        "Mrs.": "Missus",
        "Ms.": "Miz",
        "Prof.": "Professor",
        "Jr.": "Junior",
        "Sr.": "Senior",
        "Gen.": "General",
        "Capt.": "Captain",
        "Lt.": "Lieutenant",
        "Sgt.": "Sergeant",
        "Rev.": "Reverend",
        "Mt.": "Mount",
        "etc.": "et cetera",
        "e.g.": "for example",
        "appt.": "appointment",
        "appt": "appointment",
        "Rx": "R X",
        "qty": "quantity",
        "Qty": "quantity",
        "Qty.": "quantity",
        "i.e.": "that is",
        "vs.": "versus",
        "vs": "versus",
        "approx.": "approximately",
        "Inc.": "Incorporated",
        "Ltd.": "Limited",
        "Co.": "Company",
        "Corp.": "Corporation",
        "Dept.": "Department",
        "Jan.": "January",
        "Feb.": "February",
        "Aug.": "August",
        "Sept.": "September",
        "Oct.": "October",
        "Nov.": "November",
        "Dec.": "December",
        "a.m.": "a.m.",
        "p.m.": "p.m.",
        "Ste.": "Suite",
        "Apt.": "Apartment",
        "ext.": "extension",
        "Ext.": "extension",
        "Mon.": "Monday",
        "Tue.": "Tuesday",
        "Tues.": "Tuesday",
        "Wed.": "Wednesday",
        "Thu.": "Thursday",
        "Thurs.": "Thursday",
        "Fri.": "Friday",
        "Sat.": "Saturday",
        # a seventh review of agent text (2026-12-03): espeak-ng said "inkle", "sek", "fig"
        "incl.": "including",
        "Incl.": "including",
        "Sec.": "Section",
        "pp.": "pages",
        "Vol.": "Volume",
        "Fig.": "Figure",
        "Bldg.": "Building",
        "Rm.": "Room",
        "Mgr.": "Manager",
        "Acct.": "Account",
        "Svc.": "Service",
        "Svcs.": "Services",
        "ref.": "reference",
        "Ref.": "reference",
        "a.k.a.": "also known as",
        "Ph.D.": "P.H.D.",
        "Hwy": "Highway",
    },
    "es": {
        "art.": "artículo",
        "Art.": "artículo",
        "Ctrl": "control",  # keys, as said in "Pulse Ctrl+Alt+Supr"
        "Supr": "suprimir",
        "Sr.": "señor",
        "Sra.": "señora",
        "Srta.": "señorita",
        "Dr.": "doctor",
        "Dra.": "doctora",
        "Ud.": "usted",
        "Uds.": "ustedes",
        "etc.": "etcétera",
        "p. ej.": "por ejemplo",
        "aprox.": "aproximadamente",
        "Avda.": "avenida",
        "Av.": "avenida",
        # an address's floor and door: "3.º B izq." ("n.º" is "n.o" after NFKC)
        "n.o": "número",
        "N.o": "número",
        "n°": "número",
        "N°": "número",
        "izq.": "izquierda",
        "izda.": "izquierda",
        "dcha.": "derecha",
        "núm.": "número",
        "pág.": "página",
        "uds.": "unidades",
        "Pza.": "plaza",
        "D.a": "doña",  # "D.ª" after NFKC
        "incl.": "incluido",
    },
    "de": {
        "Abs.": "Absatz",
        "Art.": "Artikel",
        "Strg": "Steuerung",
        "Entf": "Entfernen",
        "Einfg": "Einfügen",
        "Dr.": "Doktor",
        "Prof.": "Professor",
        "Hr.": "Herr",
        "Fr.": "Frau",
        "z.B.": "zum Beispiel",
        "z. B.": "zum Beispiel",
        "usw.": "und so weiter",
        "bzw.": "beziehungsweise",
        "d.h.": "das heißt",
        "d. h.": "das heißt",
        "ca.": "circa",
        "Nr.": "Nummer",
        "Str.": "Straße",
        "evtl.": "eventuell",
        "u.a.": "unter anderem",
        "inkl.": "inklusive",
        "vgl.": "vergleiche",
        "zzgl.": "zuzüglich",
        "MwSt.": "Mehrwertsteuer",
        "mtl.": "monatlich",
        "mind.": "mindestens",
        "p.a.": "pro Jahr",
        "p. a.": "pro Jahr",
        "ggf.": "gegebenenfalls",
        "zw.": "zwischen",
        "Tsd.": "Tausend",
        "Mio.": "Millionen",  # "1,2 Mio. Euro"; espeak-ng said "Mi-o" and "M R D"
        "Mrd.": "Milliarden",
    },
    "fr": {
        "art.": "article",
        "Art.": "article",
        "Ctrl": "contrôle",
        "Suppr": "suppression",
        "M.": "Monsieur",
        "Mme": "Madame",
        "Mmes": "Mesdames",
        "Mlle": "Mademoiselle",
        "Dr": "docteur",
        "Dr.": "docteur",
        "etc.": "et cetera",
        "p.ex.": "par exemple",
        "p. ex.": "par exemple",
        "env.": "environ",
        "av.": "avenue",
        "bd": "boulevard",
        "bât.": "bâtiment",
        "n°": "numéro",
        "N°": "numéro",
    },
}


# Abbreviations that can also end a sentence: their period is kept when the text ends or a capital follows.
_SENTENCE_FINAL = {
    "en": {
        "etc.",
        "Inc.",
        "Ltd.",
        "Co.",
        "Corp.",
        "Jr.",
        "Sr.",
        "a.m.",
        "p.m.",
        "Dept.",
        "Jan.",
        "Feb.",
        "Aug.",
        "Sept.",
        "Oct.",
        "Nov.",
        "Dec.",
        "Mon.",
        "Tue.",
        "Tues.",
        "Wed.",
        "Thu.",
        "Thurs.",
        "Fri.",
        "Sat.",
    },
    "es": {"etc.", "izq.", "izda.", "dcha.", "uds.", "incl."},
    "de": {"usw.", "ca.", "MwSt.", "mtl.", "p.a.", "p. a.", "inkl.", "Tsd.", "Mio.", "Mrd."},
    "fr": {"etc."},
}


_SYMBOLS: dict[str, dict[str, str]] = {
    "en": {
        "&": "and",
        "±": "plus or minus",
        "§": "section",
        "+": "plus",
        "@": "at",
        "=": "equals",
        "%": "percent",
        "#": "number",
        "°": "degrees",
        "×": "times",
        "÷": "divided by",
        "<": "less than",
        ">": "greater than",
        "~": "about",
        "½": "half",  # "½ price", "½ of the users" (after a number the fraction rule says "and a half")
        "¼": "one quarter",
        "¾": "three quarters",
    },
    "es": {
        "&": "y",
        "±": "más menos",
        "§": "párrafo",
        "+": "más",
        "@": "arroba",
        "=": "igual a",
        "%": "por ciento",
        "#": "número",
        "°": "grados",
        "×": "por",
        "½": "un medio",
        "¼": "un cuarto",
        "¾": "tres cuartos",
    },
    "de": {
        "&": "und",
        "±": "plus minus",
        "§": "Paragraf",
        "+": "plus",
        "@": "at",
        "=": "gleich",
        "%": "Prozent",
        "#": "Nummer",
        "°": "Grad",
        "×": "mal",
        "½": "ein halb",
        "¼": "ein viertel",
        "¾": "drei viertel",
    },
    "fr": {
        "&": "et",
        "±": "plus ou moins",
        "§": "paragraphe",
        "+": "plus",
        "@": "arobase",
        "=": "égale",
        "%": "pour cent",
        "#": "numéro",
        "°": "degrés",
        "×": "fois",
        "½": "un demi",
        "¼": "un quart",
        "¾": "trois quarts",
    },
}


_COMPOUND_ABBR = {"min": "minute", "mins": "minute", "hr": "hour", "hrs": "hour", "sec": "second", "yr": "year",
                  "mo": "month", "wk": "week", "mi": "mile", "km": "kilometer", "lb": "pound", "oz": "ounce",
                  "ft": "foot", "in": "inch", "gal": "gallon", "sq": "square"}  # fmt: skip


def _compound(m: re.Match, lang: str) -> str | None:
    """A number joined to words by hyphens, a compound adjective: "4-digit" -> "four digit", "a 10-year-old"
    -> "a ten year old", "2-for-1" -> "two for one" (they were read as codes, "four, D.I.G.I.T."); German joins
    the number to its word: "4-stellige" -> "vierstellige", "30-minütiges" -> "dreißigminütiges". A part in
    capitals ("1-800-FLOWERS", "3-ABC") is a code's; a German noun follows the number as a word ("3-Zimmer-Wohnung"
    -> "drei Zimmer-Wohnung")."""
    parts = m.group(0).split("-")
    words = [p for p in parts if not p.isdigit()]
    if any(w.isupper() and len(w) > 1 for w in words):
        return None
    # "15-min drive": "minute"; not a word between numbers ("2-in-1" is "two in one", not "two inch one")
    parts = [
        _COMPOUND_ABBR.get(p, p)
        if lang == "en" and not (0 < i < len(parts) - 1 and parts[i + 1].isdigit())
        else p
        for i, p in enumerate(parts)
    ]
    if lang == "de":
        if len(parts) == 2 and parts[1].islower():
            return cardinal(int(parts[0]), lang) + parts[1]
        return f"{cardinal(int(parts[0]), lang)} {'-'.join(parts[1:])}"  # "drei Zimmer-Wohnung"
    return " ".join(cardinal(int(p), lang) if p.isdigit() else p for p in parts)


# All-capital words said as words, not letter by letter; and words often written in capitals for stress.
_WORD_ACRONYMS = {
    "NASA", "NATO", "NASDAQ", "ZIP", "PIN", "SIM", "GIF", "JPEG", "LASER", "RADAR", "SCUBA", "UNESCO", "UNICEF",
    "FEMA", "OPEC", "COVID", "AIDS", "IKEA", "SWAT", "NAFTA", "FIFA", "SARS", "ASCII", "RAM", "ROM", "LAN",
    "WIFI", "DOS", "CAPTCHA", "YAML", "JSON", "OSHA", "HIPAA", "FICO", "COBRA", "GAAP", "ERISA", "NASCAR",
    "SWIFT", "HELOC", "FAFSA", "SNAP", "WIC", "MEDICARE", "MEDICAID",
}  # fmt: skip


_SHOUTED = {
    "NO", "NOT", "STOP", "NOW", "YES", "ALL", "NEW", "FREE", "AND", "OR", "THE", "FOR", "YOU", "WE", "IS", "ARE",
    "DO", "DON'T", "GO", "ME", "MY", "HI", "SO", "TO", "IN", "ON", "AT", "BE", "IF", "UP", "OUT", "NEVER",
    "HELP", "SALE", "CALL", "NOTE", "WARNING", "ONLY", "VERY", "BIG", "HOT", "OFF", "OUR", "HOW", "WHY",
}  # fmt: skip


_SMALL_ROMAN = re.compile(r"X{0,3}(?:IX|IV|V?I{0,3})")


# Words before a roman numeral that is a number ("World War II", "type II diabetes", "Super Bowl LVIII"), and
# titles and names before one that is a monarch's or a pope's ordinal ("King Charles III", "Henry VIII").
_ROMAN_NUMBER_CUE = re.compile(
    r"\b(?:war|type|phase|part|chapter|stage|class|title|level|tier|bowl|act|volume|vol\.|grade|step|"
    r"round|season|book|article|schedule|appendix|episode)\s+$",
    re.IGNORECASE,
)
_REGNAL_CUE = re.compile(
    r"\b(?:King|Queen|Pope|Emperor|Empress|Prince|Princess|Tsar|Czar|Henry|Louis|Elizabeth|Charles|George|"
    r"Edward|Richard|William|James|Mary|Anne|Victoria|Philip|Frederick|Napoleon|Benedict|Pius|Leo|Gregory|"
    r"Innocent|Clement|Boniface|Paul|Francis|Alexander|Nicholas|Peter|Catherine|Ferdinand|Isabella|Juan\s+Carlos|"
    r"Felipe|Carl\s+Gustaf|Harald|Margrethe|Willem-Alexander|Rainier|Albert)(?:\s+[A-Z][a-z]+)?\s+$"
)
# Any roman numeral up to 399 is read after a cue (`roman.value`); `_SMALL_ROMAN` (below 40, without L and C) are
# the ones an initialism leaves alone when no cue reads them ("CV" and "LLC" are still spelled).


def _roman(m: re.Match, lang: str) -> str | None:
    """A roman numeral after a word that numbers ("World War II" -> "two", "Super Bowl LVIII" -> "fifty eight")
    or a monarch's name ("Henry VIII" -> "the eighth"); elsewhere None (an initialism, or a word: "I", "CV")."""
    word = m.group(0)
    n = roman.value(word)
    if n is None or word in ("C", "L"):  # "Grade C", "size L": letters
        return None
    before = m.string[max(0, m.start() - 40) : m.start()]
    if len(word) == 1 and not re.match(r"\s*(?:[.,;:!?)]|$|diabetes\b)", m.string[m.end() :]):
        return (
            None  # "the part I ordered", "mark V as done": a pronoun, a letter ("Part I.", "type I diabetes")
        )
    if 1 < n <= 30 and _REGNAL_CUE.search(before):
        return f"the {ordinal(n, lang)}"
    if n < 100 and _ROMAN_NUMBER_CUE.search(before):  # ("Schedule CC" is a name's letters)
        return cardinal(n, lang)
    # a title's number: "Rocky III" -> "Rocky three" (espeak-ng said "roman three")
    if len(word) > 1 and _SMALL_ROMAN.fullmatch(word) and re.search(r"\b[A-Z][a-z]+\s+$", before):
        return cardinal(n, lang)
    return None


def _initialism(m: re.Match, lang: str) -> str | None:
    """An all-capital word of 2 to 5 letters is spelled letter by letter ("FBI" -> "F.B.I.", "ETA" ->
    "E.T.A."), unless it is an acronym said as a word (`_WORD_ACRONYMS`: "NASA" -> "Nasa"), a roman numeral
    ("World War II"), a word often capitalized for stress (`_SHOUTED`: "STOP"), or the whole text is in
    capitals (shouting, not initialisms)."""
    word = m.group(0)
    if word in _WORD_ACRONYMS:
        return word.capitalize()
    if word == "OK":
        return "okay"
    if word in _SHOUTED or _SMALL_ROMAN.fullmatch(word):
        return None
    letters = [c for c in m.string if c.isalpha()]
    if len(m.string.split()) >= 3 and not any(c.islower() for c in letters):
        return None
    return _spell_letters(word)


def _letters_and(m: re.Match, lang: str) -> str:
    """Capitals joined by "&" without spaces are spelled: "AT&T" -> "A.T. and T" ("AT" alone is a shouted
    word), "R&D" -> "R and D", "Q&A" -> "Q and Eigh". With spaces ("A & B", "WE & YOU") "&" is the symbol's
    "and"."""
    left, right = _spell_letters(m.group(1)), _spell_letters(m.group(2))
    return f"{left} and {right}"


def _list_letter(m: re.Match, lang: str) -> str:
    """A list's letter in brackets, with the pause of a list before the next word: "(a) or (b)" -> "Eigh, or
    B" (`LETTER_A`)."""
    letter, following = _spell_letters(m.group("letter")), m.group("next")
    return f"{letter}, {following}" if following else letter


def _abbrev(m: re.Match, lang: str, table: dict[str, str]) -> str:
    key = m.group(0)
    spoken = table[key]
    # "our Sr. Account Manager": a title before its noun, no suffix after a name, so its period ends nothing
    title = key in ("Sr.", "Jr.") and not re.search(
        r"[A-Z][\w'-]*\s+$", m.string[max(0, m.start() - 30) : m.start()]
    )
    if (
        key in _SENTENCE_FINAL[lang]
        and not title
        and ends_sentence(m, lang)
        and not _NAMED_AFTER.match(m.string, m.end())
    ):
        spoken += "."
    return spoken


# What is named after someone "Jr." ("Martin Luther King Jr. Day", "King Jr. Blvd"): the name goes on.
_NAMED_AFTER = re.compile(
    r"\s+(?:Day|Boulevard|Blvd|Drive|Avenue|Ave|Street|Highway|Parkway|Memorial|Park|Bridge|High|Elementary|"
    r"Middle|School|Center|Centre|Hospital|Library|Airport|Stadium|Plaza|Building)\b"
)
