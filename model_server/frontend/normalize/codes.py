"""Phone numbers, phone keys and identifiers (ZIP codes, order and card numbers, confirmation codes,
flights and rooms): what is read digit by digit or in groups rather than as an amount."""

from __future__ import annotations

import itertools
import re

from .. import agreement
from .abbreviations import _SYMBOLS, _WORD_ACRONYMS
from .amounts import _CURRENCY_WORDS
from .words import _WORDS, _spell_letters, cardinal, digits, pairs

# The telephone keys "#" and "*" as voice menus name them.
_KEYS = {
    "en": {"#": "pound", "*": "star"},
    "es": {"#": "almohadilla", "*": "asterisco"},
    "de": {"#": "Raute", "*": "Stern"},
    "fr": {"#": "dièse", "*": "étoile"},
}


# Words before a phone key ("Press #", "then *", "the # key" also counts by what follows).
_KEY_CUE = {
    "en": r"press|dial|call|hit|push|tap|enter|then|or|and|followed\s+by|the",
    "es": r"pulse|marque|presione|oprima|teclee|la\s+tecla|luego|o|y",
    "de": r"drücken\s+sie|wählen\s+sie|tippen\s+sie|taste|dann|oder|und|die",
    "fr": r"appuyez\s+sur|sur|tapez|composez|touche|puis|ou|et|la",
}


def _key(m: re.Match, lang: str) -> str | None:
    """A phone key, after a word that presses or names one, or before "key": "Press # to repeat" -> "pound",
    "Dial *67" -> "star six seven". A "*" elsewhere (a footnote, a product) is not said."""
    before = m.string[max(0, m.start() - 20) : m.start()]
    after = m.string[m.end() : m.end() + 12]
    cued = re.search(rf"\b(?:{_KEY_CUE[lang]})\s*$", before, re.IGNORECASE) or re.match(
        r"\s+(?:key|button|Taste|tecla|touche)\b", after, re.IGNORECASE
    )
    if not cued:
        return None  # "order #12", "# 1": the symbol's own reading ("number"); a lone "*" is not said
    code = m.group("code")
    return f" {_KEYS[lang][m.group('key')]}" + (f" {digits(code, lang)} " if code else " ")


# Area codes people say as a number ("one eight hundred"), not digit by digit.
_HUNDRED_AREA_CODES = {"800", "900"}


# Where a phone number written in pairs is said in pairs, each as a number (the French and Spanish
# custom; English and German say the digits).
_PAIRS_AS_NUMBERS = frozenset({"es", "fr"})


# Phone numbers written as one run of digits, where their shape sets them apart from amounts (written with
# groups, or round) and identifiers: North American numbers (ten digits, the area code from 2 to 9, "1" before
# them) and Spanish ones (nine digits, mobiles from 6 and 7, land lines from 8 and 9).
_UNGROUPED_PHONE = {"en": r"1?[2-9]\d{9}(?<!000)", "es": r"[6-9]\d{8}(?<!000)"}


# Words after which a Spanish "612 345 678" is a phone number, not an amount grouped by spaces.
_PHONE_CUE_ES = re.compile(
    r"\b(?:al|llame|llámenos|llámanos|llama|teléfono|tel|tlf|móvil|celular|número|whatsapp|marque|contacto)"
    r"\b\W*$",
    re.IGNORECASE,
)


def pair_as_number(group: str, n_groups: int) -> bool:
    """Whether a group of a phone number is said as a number: a pair without a leading zero, in a number
    written in three groups or more ("01 23 45" -> "zéro un, vingt-trois, quarante-cinq")."""
    return len(group) == 2 and group[0] != "0" and n_groups > 2


def _phone(m: re.Match, lang: str) -> str | None:
    """A phone number, card number or other grouped digits: digit by digit, one pause per group.

    "555-0142" -> "five five five, zero one four two"; "+1 (555) 123-4567" -> "plus one, five five five,
    one two three, four five six seven"; "1-800-..." -> "one, eight hundred, ..."; an extension
    ("ext. 12", "x12", "extension 12") -> ", extension one two". Zero is "zero" (not "oh") throughout.
    """
    text = m.group(0)
    ext = m.groupdict().get("ext")
    if ext:
        text = text[: m.start("extword") - m.start()]
    # (a group with a leading zero starts no amount: "0 800 123 456" is a French toll-free number)
    if lang != "en" and re.fullmatch(r"[1-9]\d{0,2}(?:[ .\u202f]\d{3})+", text):
        cued = _PHONE_CUE_ES.search(m.string[max(0, m.start() - 30) : m.start()])
        if not (lang == "es" and cued and re.fullmatch(r"[6-9]\d\d \d{3} \d{3}", text)):
            return None  # "1 000 000" / "1.000.000": a grouped number ("llame al 612 345 678" is a phone)
    # "+44 (0)20 ...": the trunk zero in brackets is dialled only from inside the country, and not said
    groups = re.findall(r"\d+", re.sub(r"\(0\)", "", text) if text.startswith("+") else text)
    if m.groupdict().get("ungrouped"):  # "5551234567" -> 555, 123, 4567; "612345678" -> 612, 345, 678
        groups = (
            [text[:-10], text[-10:-7], text[-7:-4], text[-4:]] if lang == "en" else re.findall(r"\d{3}", text)
        )
        groups = [g for g in groups if g]
    said = []
    for i, g in enumerate(groups):
        # "1-800-555-0199", and "800-555-0199" without its 1: "eight hundred"
        area_code = i == 1 and groups[0] == "1" or i == 0 and [len(x) for x in groups] == [3, 3, 4]
        if lang == "en" and g in _HUNDRED_AREA_CODES and len(groups) >= 3 and area_code:
            said.append(_hundred_code(g, lang))
        elif lang in _PAIRS_AS_NUMBERS and pair_as_number(g, len(groups)):
            said.append(cardinal(int(g), lang))
        elif (
            lang == "fr"
            and len(g) == 3
            and g[0] != "0"
            and groups[0][0] == "0"
            and len("".join(groups)) == 10
        ):
            # a French number in threes, "0 800 123 456": "zéro, huit cents, cent vingt-trois, quatre cent
            # cinquante-six" (a foreign one, "+1 555 123 4567", keeps its digits)
            said.append(cardinal(int(g), lang))
        else:
            said.append(digits(g, lang))
    spoken = _with_plus(text, ", ".join(said), lang)
    if ext:
        spoken += f", extension {digits(ext, lang)}"
    return spoken


def _vanity(m: re.Match, lang: str) -> str | None:
    """A toll-free number with letters, read as it is advertised: "1-800-FLOWERS" -> "one, eight hundred,
    flowers", "1-800-GOT-JUNK" -> "one, eight hundred, got junk". The digit groups are read as `_phone` reads
    them (800 is "eight hundred"); letters with a vowel are a word, letters without are spelled ("CVS" ->
    "C.V.S."), digits among letters are digits ("KARS4KIDS" -> "kars four kids"). After an identifier's cue
    ("code 800-ABC1") it is a code."""
    if _CODE_CUE.search(m.string[max(0, m.start() - 40) : m.start()]):
        return None
    said = []
    # runs of digit groups are read one group at a time; a run of groups with letters is one phrase ("got junk")
    for numeric, run in itertools.groupby(re.split(r"[-. ()]+", m.group(0).lstrip("+(")), str.isdigit):
        if numeric:
            said += [_hundred_code(g, lang) if g in _HUNDRED_AREA_CODES else digits(g, lang) for g in run]
        else:
            parts = [p for g in run for p in re.findall(r"\d+|[A-Z]+", g)]
            said.append(" ".join(digits(p, lang) if p.isdigit() else _letters_as_said(p) for p in parts))
    return _with_plus(m.group(0), ", ".join(said), lang)


def _letters_as_said(letters: str) -> str:
    """Capital letters of a vanity number: a word when they hold a vowel ("FLOWERS" -> "flowers"), spelled
    when they do not ("CVS" -> "C.V.S.")."""
    return letters.lower() if re.search(r"[AEIOUY]", letters) else _spell_letters(letters)


def _hundred_code(group: str, lang: str) -> str:
    """A toll-free area code as it is said: "800" -> "eight hundred"."""
    return f"{cardinal(int(group[0]), lang)} {_WORDS[lang]['hundred']}"


def _with_plus(written: str, spoken: str, lang: str) -> str:
    """`spoken` with the word for "+" in front when the number was written with it ("+1 ..." -> "plus one")."""
    return f"{_SYMBOLS[lang]['+']} {spoken}" if written.startswith("+") else spoken


# Words after which a run of digits (or letters and digits) is an identifier read character by character:
# "ZIP 90210", "order #A1B2-339", "confirmation code X7Q9", "card ending in 4242", "PIN 0042".
_CODE_CUE = re.compile(
    r"(?:\b(?:zip|postal|order|confirmation|reference|ref|account|acct|ticket|tracking|invoice|booking|"
    r"reservation|policy|member|membership|case|claim|card|pin|id|serial|code|extension|ext|"
    r"routing|voucher|coupon|promo|passcode|pass\s+code|password|otp|verification|prescription|rx|"
    r"imei|imsi|iccid|meid|puk|ein|tin|vin|npi|"
    r"last\s+(?:four|4)(?:\s+digits)?|text\s+[A-Z]+\s+to|text\s+(?:us\s+)?(?:at|to)|"
    # "ends in 6789" after what has a number ("the card ending in", "card ending 4242"); "the offer ends in
    # 2025" is a year
    r"(?:card|account|acct|number|no\.|ssn|phone|mobile|checking|savings|visa|mastercard|amex)\b[^.]{0,25}?"
    r"\b(?:ends?|ending)(?:\s+(?:in|with))?)\b\.?"
    r"(?:\s+(?:number|no\.|num|code|id|#|is|was))*\s*(?:#|:|\bis\b)?\s*"
    r"|#\s*)$",
    re.IGNORECASE,
)


# The same for Spanish, German and French: "Ihre Bestellnummer ist 12345678", "código postal 28001", "votre
# numéro de commande est le 12345". After the cue: "de/du" and a noun ("número de pedido"), a verb ("ist",
# "es", "est") and an article ("le"), a colon or "#".
_CODE_CUE_EU = {
    "es": re.compile(
        # ("n°": no word boundary after "°")
        r"(?:\bn\.?°|\b(?:n[uú]mero|n\.?[ºo]|c[oó]digo(?:\s+postal|\s+de\s+verificaci[oó]n|\s+de\s+un\s+solo\s+uso)?|"
        r"cp|pin|pedido|referencia|ref|reserva|localizador|ticket|expediente|id|seguimiento|dni|nif|"
        r"terminad[ao]\s+en|acaba\s+en|termina\s+en)\b\.?)"
        r"(?:\s+(?:de(?:l)?\s+(?:pedido|cliente|referencia|reserva|cuenta|factura|tel[eé]fono|seguimiento|"
        r"expediente|serie|socio|p[oó]liza|confirmaci[oó]n|contrato)|es|era|el|:|#))*\s*[:#]?\s*$",
        re.IGNORECASE,
    ),
    "de": re.compile(
        r"\b(?:[^\W\d]*nummer|[^\W\d]*nr|plz|postleitzahl|pin|[^\W\d]*code|kennung|id|ticket|referenz|bestellung|"
        r"buchung|vorgang|aktenzeichen|iban|endung|endet\s+auf|endend\s+auf)\b\.?"
        r"(?:\s+(?:ist|lautet|war|:|#))*\s*[:#]?\s*$",
        re.IGNORECASE,
    ),
    "fr": re.compile(
        # ("n°": no word boundary after "°")
        r"(?:\bn°|\b(?:num[eé]ro|no|code(?:\s+postal|\s+de\s+v[eé]rification|\s+[aà]\s+usage\s+unique)?|cp|"
        r"pin|commande|r[eé]f[eé]rence|r[eé]f|r[eé]servation|dossier|ticket|suivi|id|identifiant|"
        r"se\s+terminant\s+par|terminant\s+par|finissant\s+par)\b\.?)"
        r"(?:\s+(?:d[eu]\s+(?:commande|client|r[eé]f[eé]rence|r[eé]servation|dossier|facture|t[eé]l[eé]phone|"
        r"suivi|s[eé]rie|compte|confirmation|contrat)|est|était|le|la|:|#))*\s*[:#]?\s*$",
        re.IGNORECASE,
    ),
}


# Cues that name an identifier outright in es/de/fr: a number of any length after them is one. "Nummer",
# "número" and "numéro" are not: "Zimmernummer 12", "Nr. 12", "número 3" are said as numbers.
_STRONG_CUE_EU = re.compile(
    r"#|:|\b(?:c[oó]digo|[^\W\d]*code|pin|plz|postleitzahl|cp|id|en|auf|par|endung)\b", re.IGNORECASE
)


def _eu_code(m: re.Match, lang: str) -> str | None:
    """Spanish, German and French codes of letters and digits, said character by character: "ABC123" -> "A B C
    uno dos tres", an IBAN "DE89 3704 ..." -> "D E acht neun, drei sieben null vier, ..." (the digits were
    cardinals: "ABC ciento veintitrés", "DE neunundachtzigtausend ..."). One or two capitals with one or two
    digits are a name with its number ("G20" -> "G veinte", "A7"); lower-case words ("mp3") are left alone."""
    token = m.group(0)
    if any(c.islower() for c in token) and not any(c.isupper() for c in token):
        return None  # "mp3", "h2o": a word, as written
    if re.fullmatch(r"[A-Z]{1,2}\d{1,2}", token):  # a name with a number: "G20", "A7", "B52"
        letters, number = re.match(r"([A-Z]+)(\d+)", token).groups()
        return f"{' '.join(letters)} {cardinal(int(number), lang)}"
    if re.fullmatch(r"\d{1,3}[A-Z]", token):  # a seat or a room: "23A" -> "veintitrés A"
        return f"{cardinal(int(token[:-1]), lang)} {token[-1]}"
    groups = token.split()
    said = []
    for group in groups:
        parts = []
        for run in re.findall(r"\d+|[A-Za-z]+", group):
            parts.append(digits(run, lang) if run.isdigit() else " ".join(run.upper()))
        said.append(" ".join(parts))
    return ", ".join(said)


def _identifier(m: re.Match, lang: str) -> str | None:
    """Spanish, German and French digits after an identifier's cue (`_CODE_CUE_EU`), digit by digit: "Die
    PLZ ist 10115" -> "eins null eins eins fünf", "Su pedido 12345" -> "uno dos tres cuatro cinco". As in
    English, a number of fewer than four digits after a bare noun cue is a count ("Bestellung 3 Pizzen")."""
    before = m.string[max(0, m.start() - 40) : m.start()]
    cue = _CODE_CUE_EU[lang].search(before)
    if cue is None or (len(m.group(0)) < 4 and not _STRONG_CUE_EU.search(cue.group(0))):
        return None
    if agreement.next_word(m.string, m.end()).lower() in _CURRENCY_WORDS[lang]:
        return None  # "Die Bestellung ist 1500 Euro": an amount
    return digits(m.group(0), lang)


# A cue that names an identifier outright: then even a short number after it is read digit by digit.
_STRONG_CUE = re.compile(
    r"#|:|\b(?:number|no|num|code|id|is|was|in|with|to|extension|ext|pin|zip|postal|four|4|digits)\b", re.I
)


# Letters and a number joined by a hyphen are a name and a number, not a code: "COVID-19", "F-16".
_NAME_NUMBER = re.compile(r"[A-Za-z]+-\d{1,4}")
# Names with a number that stay so even after a code's cue ("code is ICD-10 E11.9").
_NAMES_WITH_NUMBERS = frozenset({"ICD", "COVID", "ISO"})


# A promo code's cue, and a code's letters that read as a word (a vowel, no run of three consonants inside).
def _spaced_code(m: re.Match, lang: str) -> str | None:
    """ "Your OTP is 739 204" -> "seven three nine, two zero four" (the second group was "two hundred and four");
    "Ihre Steuer-ID lautet 12 345 678 901" -> "eins zwei, drei vier fünf, ..." (it was twelve billion)."""
    cue = _CODE_CUE if lang == "en" else _CODE_CUE_EU[lang]
    if not cue.search(m.string[max(0, m.start() - 40) : m.start()]):
        return None
    return ", ".join(digits(g, lang) for g in m.group(0).split())


_SEAT_CUE = re.compile(
    r"\b(?:gate|seat|terminal|row|platform|pier|bay|dock|concourse|track)(?:\s+(?:is|was|will\s+be|number))?\s*$"
    r"|\b(?:you(?:'re|\s+are)\s+in|sitting\s+in)\s*$",
    re.IGNORECASE,
)


_PROMO_CUE = re.compile(r"\b(?:promo|coupon|voucher|discount|(?:use|enter|apply)\s+(?:the\s+)?code)\b", re.I)


_WORDLIKE = re.compile(r"(?=.*[AEIOUY])[B-DF-HJ-NP-TV-Z]{0,3}(?:[AEIOUY]+[B-DF-HJ-NP-TV-Z]{0,2})+")


def _code(m: re.Match, lang: str) -> str | None:
    """Identifiers: a token of letters and digits ("A1B2-339", "X7Q9", "3D"), or digits after a cue word
    (`_CODE_CUE`), read character by character: digits one by one, letters by name, "-" as a pause.

    Digits alone with no cue decline (they are numbers, years...); so do "COVID-19"-like name-numbers.
    """
    token = m.group(0)
    has_letters = any(c.isalpha() for c in token)
    before = m.string[max(0, m.start() - 40) : m.start()]
    cue = _CODE_CUE.search(before)
    cued = cue is not None or (
        # a US state code before a ZIP code: "Springfield, IL 62704"
        re.search(r"\b[A-Z]{2},?\s+$", before) is not None
        and re.fullmatch(r"\d{5}(?:-\d{4})?", token) is not None
    )
    if cue is not None and not has_letters and len(token) < 4 and not _STRONG_CUE.search(cue.group(0)):
        cued = False  # "order 12 pizzas" counts; "order number 12", "order #12" and "order 12345" do not
    if (
        cued
        and not has_letters
        and len(token) <= 2
        and re.search(r"(?:#|\b(?:number|no|num)\.?)\s*$", before, re.I)
    ):
        cued = False  # one or two digits after "#" or "number" are said as a number: "order #47" -> "forty seven"
    if not cued and not has_letters:
        return None
    # a name and its number ("COVID-19"); the well-known ones even after a code's cue ("code is ICD-10 E11.9")
    if _NAME_NUMBER.fullmatch(token) and (not cued or token.split("-")[0].upper() in _NAMES_WITH_NUMBERS):
        name, number = token.split("-")
        # three digits in pairs, as models and forms are named: "F-150" -> "F one fifty", "DS-160"
        said = pairs(number, lang) if len(number) == 3 else cardinal(int(number), lang)
        return f"{_name_word(name)} {said}"
    parts = token.split("-")
    if (
        not cued
        and any(len(p) > 1 and p.isalpha() and p.islower() for p in parts)
        and all(p.isdigit() or (p.isalpha() and p.islower()) for p in parts)
    ):
        # words joined to a number: "best-of-5" -> "best of five", "pick-3" (it was "B.E.S.T., O.F., five")
        return " ".join(cardinal(int(p), lang) if p.isdigit() else p for p in parts)
    seat = re.fullmatch(r"([A-Z])(\d{1,3})|(\d{1,3})([A-Z])", token)
    # "Gate B22" -> "B twenty two", "seat 14C" -> "fourteen C"; without a code's cue a capital and one or two
    # digits are a name and its number too: "vitamin B12", "Galaxy S24", "from C12 to C18"
    name_and_number = seat is not None and not cued and len(seat.group(2) or seat.group(3)) <= 2
    if seat and (_SEAT_CUE.search(before) or name_and_number):
        letter, number = (seat.group(1), seat.group(2)) if seat.group(1) else (seat.group(4), seat.group(3))
        said, letter = cardinal(int(number), lang), _spell_letters(letter)
        return f"{letter} {said}" if seat.group(1) else f"{said} {letter}"
    promo = re.fullmatch(r"([A-Z]{4,})(\d{1,3})", token)
    promo_cue = _PROMO_CUE.search(m.string[max(0, m.start() - 40) : m.start()])
    if promo and promo_cue and _WORDLIKE.fullmatch(promo.group(1)):
        # a promo code is a word and a number, as it is advertised: "SAVE20" -> "save twenty"
        return f"{promo.group(1).lower()} {cardinal(int(promo.group(2)), lang)}"
    groups = []
    for group in token.split("-"):
        words: list[str] = []
        for run in re.findall(r"\d+|[A-Za-z]+", group):
            if run.isdigit():
                words.append(digits(run, lang))
            else:
                words.append(_spell_letters(run))
        groups.append(" ".join(words))
    return ", ".join(g for g in groups if g)


def _name_word(word: str) -> str:
    """The name in a name-number such as "COVID-19" or "F-16": a word acronym as a word, capitals spelled."""
    if word in _WORD_ACRONYMS:
        return word.capitalize()
    return _spell_letters(word) if word.isupper() else word


def _n11(m: re.Match, lang: str) -> str:
    """Three-digit service numbers (911, 411, 311...) are said digit by digit: "nine one one"."""
    return digits(m.group(0), lang)


def _hex(m: re.Match, lang: str) -> str:
    """ "0x80070005" -> "zero X eight zero zero seven zero zero zero five": a hexadecimal code's characters."""
    return " ".join(cardinal(int(c), lang) if c.isdigit() else c.upper() for c in m.group(0))


def _icd(m: re.Match, lang: str) -> str:
    """ "J06.9" -> "J zero six point nine", "E11.65" -> "E eleven point six five": a diagnosis code's letter,
    its category as a number (digit by digit when it starts with a zero) and the digits after the point."""
    letter, category, detail = m.group(0)[0], m.group(0)[1:3], m.group(0)[4:]
    said = digits(category, lang) if category[0] == "0" else cardinal(int(category), lang)
    return f"{letter} {said} point {digits(detail, lang)}"


def _masked_digits(m: re.Match, lang: str) -> str:
    """ "Card ending in ****4821" -> "four eight two one": the last digits of a masked number, one by one (they
    were "four thousand eight hundred and twenty one"); the mask itself is not said."""
    return digits(m.group("last") or m.group("last4"), lang)


def _leading_zero(m: re.Match, lang: str) -> str:
    """A digit string that starts with 0 is an identifier, never a quantity: "0987" -> "zero nine eight
    seven" (a cardinal would drop the zero)."""
    return digits(m.group(0), lang)


# "exp." and "expiry" name a card's date; "expires" and "valid thru" only after "card" ("the offer expires 12/25",
# "valid through 12/31" are days)
_PHONE_CUE_EN = re.compile(
    r"\b(?:number|phone|call|dial|tel|text|fax|line|reach\s+(?:us|me)\s+at|at)\b\.?(?:\s+is)?\s*:?\s*$", re.I
)


def _phone_spaced(m: re.Match, lang: str) -> str | None:
    """ "The number is 555 1234": seven digits in a group of three and one of four, after a phone's cue, are a
    local number (they were "five hundred and fifty five twelve thirty four")."""
    if not _PHONE_CUE_EN.search(m.string[max(0, m.start() - 30) : m.start()]):
        return None
    return ", ".join(digits(g, lang) for g in m.group(0).split())


_FLIGHT_ROOM_CUE = re.compile(
    r"(?:\b(?:flight|room|rm|box|port|rtx|gtx|boeing|highway|hwy|route|rte|interstate|section)\.?|§)\s+"
    r"(?:[A-Z]{2}\s?|[A-Z]\d\s?)?(?:#\s?|number\s+)?$",
    re.I,
)
# An HTTP status: "a 404 error", "error 503", "HTTP 500" (the common ones: "450 error reports" is a count).
_HTTP_STATUSES = frozenset("400 401 403 404 405 408 409 410 413 415 422 429 500 501 502 503 504".split())
_STATUS_AFTER = re.compile(r"\s+(?:error|page|status|response)\b(?!s)", re.I)
_STATUS_BEFORE = re.compile(r"\b(?:error|status|http)\s*(?:code\s*)?$", re.I)


def _flight_room(m: re.Match, lang: str) -> str | None:
    """A flight's or a room's number is said in pairs, whatever follows it: "flight UA 1234 departs" ->
    "twelve thirty four" (it was "one thousand two hundred and thirty four" before a word), "room 1412" ->
    "fourteen twelve", "room 405" -> "four oh five", "P.O. Box 4521" -> "forty five twenty one"; so are a port,
    a model ("port 8080", "RTX 4090", "Boeing 737") and an HTTP status ("a 404 error" -> "four oh four")."""
    status = m.group(0) in _HTTP_STATUSES and (
        _STATUS_AFTER.match(m.string, m.end())
        or _STATUS_BEFORE.search(m.string[max(0, m.start() - 20) : m.start()])
    )
    if not status and not _FLIGHT_ROOM_CUE.search(m.string[max(0, m.start() - 30) : m.start()]):
        return None
    return pairs(m.group(0), lang)
