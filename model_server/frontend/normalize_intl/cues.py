"""What the words around a number say it is, in the catalog languages: a clock's word before "10.12", a version's
or a product's name before "22.04", a code's name or the short form of "number" before "784512"."""

from __future__ import annotations

import re

from .. import agreement

# The word for version, whose number is no date ("версия", "wersja", "verze", "sürüm", ...): prefixes.
VERSION_WORDS = ("верс", "wers", "verz", "verzi", "sürüm", "versi", "vers", "версі", "vérs", "versio")
# Words before "15.03" that make it a clock time where it could be a day and a month (`dot_day_month`). Not
# Polish "od", "do" (`dates._PL_CLOCK_CUES` has them: there the number is known to be an hour, here "do
# 15.03" is a date).
CLOCK_CUES = {
    "ru": frozenset("в во сейчас около примерно".split()),
    "uk": frozenset("о об зараз близько".split()),
    "pl": frozenset("o godz godzina około jest".split()),
    "cs": frozenset("v ve kolem".split()),
    "sk": frozenset("o okolo".split()),
    "tr": frozenset("saat".split()),
    "fi": frozenset("klo kello".split()),
    "da": frozenset("kl klokken".split()),  # (words compared without their dot)
    "no": frozenset("kl klokken".split()),
    "is": frozenset("kl klukkan".split()),
    "ro": frozenset("ora".split()),  # (not "la": "până la 31.12" is a date)
}

# Words before "2.3." that make it a numbered section, not a date ("kohta 2.3.", "článek 3.5.", "pkt 2.10.").
NUMBERED_BEFORE = {
    "fi": frozenset("kohta kohdassa kohdan luku luvussa pykälä pykälän osa liite taulukko kuva".split()),
    "da": frozenset("afsnit punkt kapitel paragraf bilag tabel figur".split()),
    "no": frozenset("punkt kapittel avsnitt paragraf vedlegg tabell figur".split()),
    "cs": frozenset(
        "bod bodu článek článku kapitola kapitole odstavec oddíl příloha tabulka obrázek".split()
    ),
    "sk": frozenset("bod bodu článok článku kapitola kapitole odsek oddiel príloha tabuľka obrázok".split()),
    "sl": frozenset("točka točki člen člena poglavje razdelek priloga tabela slika".split()),
    "hr": frozenset("točka točki članak članka poglavlje odjeljak prilog tablica slika".split()),
    "sr": frozenset("tačka tački član člana poglavlje odeljak prilog tabela slika".split()),
    "pl": frozenset("punkt punkcie pkt rozdział rozdziale art ust załącznik tabela rysunek".split()),
}


def word_before(m: re.Match) -> str:
    """The text's word right before the match, as written (case and a closing dot kept)."""
    return re.search(r"(\S*)\s*$", m.string[max(0, m.start() - 40) : m.start()])[1]


def after_name(m: re.Match) -> bool:
    """Whether a product's name comes right before the match ("Ubuntu 22.04", "iOS 17.4"): a word with a capital
    inside it, or a capitalised word that does not open the sentence (the months and weekdays of the languages
    that date so are lower-case)."""
    head, word = re.fullmatch(r"(.*?)(\S*)\s*", m.string[max(0, m.start() - 80) : m.start()], re.S).groups()
    head = head.rstrip()
    opens = not head or head[-1] in ".!?:"
    return any(c.isupper() for c in word[1:]) or (word[:1].isupper() and not opens)


# Words after which digits are a code, said one by one (an OTP was "four hundred and eighty two thousand ..."):
# a one-time code's name within five words before it. Not "mã", "kode", "pin" alone: a discount code's amount,
# a phone's battery ("pin 5000 mAh" in Vietnamese).
_CODE_WORDS = frozenset("otp pin-code 인증번호 비밀번호 पिन ओटीपी পিন ওটিপি பின் ஓடிபி పిన్ ఓటీపీ".split())
# The word "number" in Hindi, Marathi and Bengali: a number after it names something ("ऑर्डर नंबर 1987") and
# is not said in hundreds like a year or a price.
NUMBER_NAMES = frozenset("नंबर नम्बर संख्या क्रमांक नं নম্বর নং ক্রমিক".split())
# Words after which a number is an amount or a year, whatever came before ("năm 2025", "50000 đồng").
_NOT_CODE_BEFORE = frozenset("năm tahun year ปี 년 साल বছর".split())


def is_code(m: re.Match, before: list[str], language: str) -> bool:
    """Whether a number of 4-8 digits is an identifier: after a code's name within five words, right after
    the short form of "number" ("č. 784512", "br.", "nr.", "αρ."), or after the name of what has one ("O
    pedido 48213", "Broj narudžbe je 48213": `_IDENTIFIER_CUE`)."""
    after = agreement.next_word(m.string, m.end()).lower()
    if after and after in AMOUNT_WORDS:
        return False
    sign = word_before(m)
    if sign in _NUMBER_SIGNS or (sign in _NUMBER_SIGNS_LONG and len(m.group("num")) >= 5):
        return True
    if continues_code(m, before, language):
        return True
    if _names_identifier(m, language):
        return True
    if before and (
        before[-1].startswith(_ENDS_WITH)
        or (before[-1] in _ENDS_LINKS and any(w.startswith(_ENDS_WITH) for w in before[-3:-1]))
    ):
        return True  # a card's last digits: "che termina con 4821", "оканчивающаяся на 4821", "final 4821"
    code_words = _CODE_WORDS | _CODE_WORDS_BY_LANGUAGE.get(language, frozenset())
    return any(w.lower() in code_words for w in before[-5:]) and not (
        before and before[-1].lower() in _NOT_CODE_BEFORE
    )


def continues_code(m: re.Match, before: list[str], language: str) -> bool:
    """Whether the four digits of `m` are a code's second group, after a first group of four that is a code
    ("Numer zamówienia to 4471 2290": the second group was "dwa tysiące dwieście dziewięćdziesiąt")."""
    if len(m.group("num")) != 4:
        return False
    first = _FIRST_GROUP.search(m.string, max(0, m.start() - 6), m.start())
    return bool(first) and is_code(first, before, language)  # (`before` holds words, no digits: both groups')


# A code's first group of four digits right before the match
_FIRST_GROUP = re.compile(r"(?<![\w.,])(?P<num>\d{4}) $")
# The short forms of "number" before an identifier ("objednávka č. 784512": it was one large cardinal).
_NUMBER_SIGNS = frozenset({"č.", "br.", "nr.", "Nr.", "nr", "Nr", "št.", "αρ."})
# The short forms of "number" that also number small things ("n. 4589" is read as a number), before an identifier
# of five digits or more ("ordine n. 456789"; "n.º" is "n.o" after NFKC; "ordine n. 4589" is said as a number).
_NUMBER_SIGNS_LONG = frozenset({"n.", "N.", "n.o", "N.o", "nº", "n°", "N°", "no.", "No."})
# Words for "ending with" before a card's or an account's last digits (stems), and the prepositions between
# ("kończąca się na 4821"; not "nel"/"em", before which "termina nel 2025" is a year).
_ENDS_WITH = ("termin", "final", "оканчива", "заканчива", "закінчу", "kończ", "eindig", "slutar", "ender",
              "päätty", "konč")  # fmt: skip
_ENDS_LINKS = frozenset("con na на op på par auf s se ile".split())
# A code's name in one language only (the Croatian and Serbian "kod" is also "at": "kod nas").
_CODE_WORDS_BY_LANGUAGE = {
    "pl": frozenset({"kod", "kodu", "kodem"}),
    "cs": frozenset({"kód", "kódu", "kódem"}),
    "sk": frozenset({"kód", "kódu", "kódom"}),
    "sl": frozenset({"koda", "kodo", "kode"}),
    "hu": frozenset({"kód", "kódja", "kódot", "kódod"}),
    "ro": frozenset({"cod", "codul", "codului"}),
    "bg": frozenset({"код", "кода", "кодът"}),
    "el": frozenset({"κωδικός", "κωδικό", "κωδικού"}),
    "ru": frozenset({"код", "кода", "кодом"}),
    "uk": frozenset({"код", "коду", "кодом"}),
}


# Currency and unit words after a number that make it an amount ("Mã OTP giảm 50000 đồng", "Il valore del
# contratto è 50000 dollari").
AMOUNT_WORDS = frozenset(
    "đồng rupiah ringgit mah gb mb rupees रुपये रुपए টাকা ரூபாய் రూపాయలు euro euros eura eur reais real "
    "złotych złote zł dinara dinari kuna kune dollari dollaro dólares dólar dòlars dolarów dolary dolara "
    "dolari dollars sterline libras lliures funtów funti".split()
)


def _identifier_cue(nouns: str, links: str, code: str = "") -> re.Pattern:
    """What names an identifier before its digits: one of `nouns`, or the word for code (`code`) with up to two
    words naming which (the group `which`: "codice cliente", "código do cliente"), then perhaps words of `links`
    ("number", "is", an article) or a colon or "#" (the group `link`, empty when the noun comes right before the
    digits)."""
    link = rf"(?:{links})(?!\w)"  # (not \b: "br." ends in no word character)
    which = rf"|(?:{code})(?P<which>(?:\s+(?!{link})[^\W\d_]+){{0,2}})" if code else ""
    return re.compile(rf"\b(?:{nouns}{which})\b(?P<link>(?:\s*(?:{link}|[:#]))*)\s*$", re.IGNORECASE)


# The nouns of things with a number of their own (an order, a booking, a ticket, a case, a parcel) in the
# supported and near-supported languages, as the es/de/fr rule has them (`normalize.codes._CODE_CUE_EU`): "O
# pedido 48213" was "quarenta e oito mil duzentas e treze", "Porudžbina broj 48213" "četrdeset osam hiljada ...".
# Not invoices, bills or contracts: "Iznos računa je 25000", "il valore del contratto è 50000" are amounts.
_IDENTIFIER_CUE = {
    "it": _identifier_cue(
        "ordine|prenotazione|pratica|ticket|riferimento|spedizione|tessera|cap",
        r"è|il|numero",  # not "n.": "ordine n. 4589" is said as a number (agent text review 7)
        code="codice",
    ),
    "pt": _identifier_cue(
        "pedido|encomenda|reserva|protocolo|bilhete|refer[eê]ncia|processo",
        r"é|o|a|n[uú]mero|n\.o|n°",
        code="c[oó]digo",
    ),
    "ca": _identifier_cue(
        "comanda|reserva|refer[eè]ncia|expedient|tiquet", r"és|el|la|n[uú]mero|n[uú]m\.|n\.o|n°", code="codi"
    ),
    "pl": _identifier_cue(
        r"zamówieni[ea]|rezerwacj[ai]|zgłoszeni[ea]|przesyłk[ai]|(?:numer|nr\.?)\s+klienta",
        r"to|jest|nr\.?|numer",
    ),
    "hr": _identifier_cue("narudžb[ae]|rezervacij[ae]|pošiljk[ae]", r"je|broj|br\.|glasi"),
    "sr": _identifier_cue("porudžbin[ae]|narudžbin[ae]|rezervacij[ae]|pošiljk[ae]", r"je|broj|br\.|glasi"),
}
# Where a noun comes right before the digits, it names them only after a determiner or at a clause's start ("O
# pedido 48213", "la sua prenotazione 48213"); after anything else it may be a verb before a count ("A empresa
# reserva 20000 lugares", "Wysłaliśmy przesyłki 25000 klientom").
_DETERMINERS = {
    "it": frozenset("il lo la l' i gli le un una suo sua vostro vostra tuo tua mio mia nostro nostra del della "
                    "dell' nel nella nell' dal dalla questo questa".split()),
    "pt": frozenset("o a os as um uma seu sua meu minha nosso nossa do da no na este esta esse essa".split()),
    "ca": frozenset("el la l' els les un una seu seva meu meva nostre nostra vostre vostra del de la aquest "
                    "aquesta".split()),
    "pl": frozenset("pana pani państwa twoje twoja twojej nasze nasza wasze wasza numer nr".split()),
    "hr": frozenset("vaša vaše vašu vaš tvoja tvoje tvoju naša naše našu".split()),
}  # fmt: skip
_DETERMINERS["sr"] = _DETERMINERS["hr"]


def _names_identifier(m: re.Match, language: str) -> bool:
    """Whether `_IDENTIFIER_CUE` names the number `m` (see `_DETERMINERS` for a noun right before it)."""
    cue = _IDENTIFIER_CUE.get(language)
    head = m.string[max(0, m.start() - 80) : m.start()]
    named = cue and cue.search(head)
    if not named:
        return False
    if named.group("link"):
        return True
    if named.groupdict().get("which"):
        return False  # "Il codice sconto vale 2000 punti": the words after "code" need a verb or colon after them
    if re.search(r"\b(?:de|del|di|da|do|dal|dos|das|od|iz|z)\s*$", head, re.IGNORECASE):
        return False  # "El codi civil de 1889": "of", before a year or a count
    lead = re.search(r"(\S*)\s*$", head[: named.start()])[1].lower()  # ("dell'" before "ordine" too)
    return not lead or lead[-1] in ".!?:;" or lead in _DETERMINERS[language]
