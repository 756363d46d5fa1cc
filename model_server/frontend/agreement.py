"""Number agreement: the spoken form of a number that depends on the words around it.

num2words spells a number on its own ("uno", "eins", "один"). Before a noun, most languages inflect it:
Spanish "un euro" / "una noche", German "ein Euro" / "eine Stunde", French "une heure", Portuguese "duas
noites", Russian "одна минута" / "две ручки", Czech "do jednoho týdne". The normalizers call these
functions with the word after the number (and the text before it where case matters). Ordinals, which
take the case of their phrase, are in `ordinals`.

Genders come from the noun's ending with a list of common exceptions per language (`_FEMININE_*`), not
from a lexicon: the rules are right for the nouns voice agents count (hours, nights, minutes, euros,
items, people) and for most others; a noun they get wrong keeps the masculine form, the one num2words
gives. Grammatical case is only taken where the text marks it: a German article, preposition or verb
before a count, a Russian or other Slavic preposition before it. What is not covered is listed in
docs/model.md ("Text normalization").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from num2words import num2words

from .script import LETTER

__all__ = [
    "RUSSIAN_DATIVE_PREPOSITIONS",
    "after_genitive_preposition",
    "after_millions",
    "count_form",
    "counted_noun",
    "next_word",
    "noun_gender",
    "previous_words",
    "range_end",
    "singular",
]


# A word keeps its combining marks (`script`): cut at every vowel sign, no cue before a number in Devanagari,
# Bengali or Thai was ever seen.
_WORD = re.compile(rf"{LETTER}+(?:-{LETTER}+)*")

# --- noun gender ------------------------------------------------------------------------------------

# Feminine nouns whose ending says otherwise, and masculine ones whose ending says feminine; singular
# and plural forms both listed where they differ in more than a final -s.
_FEMININE_ES = frozenset(
    (
        "noche tarde mano clase calle gente llave parte muerte fuente leche carne imagen red sal piel "
        "flor miel mujer vez veces luz luces paz voz voces cruz nariz ley leyes razón orden unidad nave "
        "suerte base frase sede fe torre nube hambre sangre serie especie superficie moto foto radio"
    ).split()
)
_MASCULINE_ES = frozenset(
    (
        "día mapa problema sistema programa tema idioma clima planeta sofá cometa dilema esquema poema "
        "teorema diploma telegrama pijama panda"
    ).split()
)
_FEMININE_ENDINGS_ES = ("a", "ción", "sión", "dad", "tad", "tud", "umbre", "ie")

_FEMININE_IT = frozenset(
    (
        "notte parte classe chiave gente mente carne nave luce voce pace sede madre moglie fine fame sete "
        "neve torre morte fonte arte frase base crisi analisi tesi ipotesi foto moto radio mano auto "
        "serie specie superficie legge gru tribù virtù città università età volontà"
    ).split()
)
_MASCULINE_IT = frozenset(
    (
        "problema sistema programma tema clima pigiama papà poema panorama diploma dramma pianeta poeta "
        "collega cinema"
    ).split()
)
_FEMININE_ENDINGS_IT = ("a", "zione", "sione", "tà", "tù", "trice", "ie")

_FEMININE_PT = frozenset(
    (
        "noite tarde vez mulher mãe parte classe gente cor flor dor luz paz voz ordem imagem viagem "
        "mensagem garagem margem nuvem chave rede sede fome morte fonte arte frase base lei foto moto "
        "tribo pele febre neve torre série espécie superfície mão irmã manhã"
    ).split()
)
_MASCULINE_PT = frozenset(
    (
        "dia mapa problema sistema programa tema clima planeta idioma telefonema cinema poema diploma "
        "esquema sofá guarda quilograma grama miligrama quilowatt quilowatts quilowatt-hora quilowatts-hora"
    ).split()
)
_FEMININE_ENDINGS_PT = ("a", "ção", "são", "dade", "tude", "agem", "ã", "ie")

# livre: the pound sterling ("une livre"), which a voice agent counts more often than books
_FEMININE_CA = frozenset(
    (
        "mà nit flor llum pau veu gent part classe font carn mort sang set fam neu imatge llet tarda "
        "vegada clau xarxa ràdio foto moto sèrie espècie superfície lliçó raó"
    ).split()
)
_MASCULINE_CA = frozenset(
    (
        "dia mapa problema sistema programa tema clima idioma planeta poema esquema quilòmetre quilòmetres "
        "metre metres centímetre centímetres mil·límetre mil·límetres litre litres mil·lilitre mil·lilitres "
        "gigabyte gigabytes megabyte megabytes quilowatt quilowatts missatge viatge equipatge formatge garatge "
        "peatge cotxe home pare metge nombre"
    ).split()
)
_FEMININE_ENDINGS_CA = ("a", "ció", "sió", "tat", "tud", "ie")

_FEMININE_FR = frozenset(
    (
        "gélule pilule ampoule capsule goutte pastille cuillère cuillerée pommade crème dose séance ordonnance "
        "heure minute seconde semaine nuit fois personne place chambre commande facture étape page ligne "
        "année journée soirée matinée carte lettre adresse table voiture maison fille femme mère sœur "
        "porte salle ville rue boîte pièce part fin main mer eau clé clef dent forêt souris voix croix "
        "paix loi foi peau faim soif gare plage image bouteille tasse entreprise banque livraison "
        "réservation question option réponse demande offre valise photo radio moto auto étoile idée envie "
        "vie partie sortie entrée fenêtre langue chose couleur fleur valeur erreur tâche note tranche "
        "reprise date classe taille marque pomme unité livre une livre"
    ).split()
)
_MASCULINE_FR = frozenset(
    (
        "été comité musée lycée trophée pâté côté thé café bébé arrêté siège groupe nombre membre monde "
        "compte problème système programme thème modèle mètre kilomètre centimètre millimètre litre degré "
        "kilo gramme euro dollar article billet colis jour an mois chiffre verre magazine service numéro "
        "magasin message voyage fromage garage étage âge visage stage bagage passage centime rendez-vous "
        "incendie génie parapluie sandwich"
    ).split()
)
_FEMININE_ENDINGS_FR = (
    "tion",
    "sion",
    "té",
    "ure",
    "ette",
    "ence",
    "ance",
    "ée",
    "ie",
    "ise",
    "ade",
    "ude",
    "elle",
    "esse",
    "ière",
    "euse",
    "rice",
    "ine",
)

_FEMININE_DE = frozenset(
    (
        "nacht stadt hand zeit frau tür uhr nummer mail e-mail antwort art welt bank post fahrt nachricht "
        "mutter tochter schwester kraft wand maus milch angst gans wurst kunst luft brust haut burg flut "
        "not wahl zahl tat saat spur schicht sicht pflicht fracht schlacht macht form norm firma pizza "
        "kamera villa tour couch box app sms cd dvd person"
    ).split()
)
_MASCULINE_DE = frozenset(
    (
        "junge name käse gedanke glaube wille friede funke buchstabe same affe löwe hase riese bote kollege "
        "experte zeuge franzose kunde euro cent dollar kilometer meter zentimeter millimeter liter grad tag "
        "monat termin tisch platz preis betrag auftrag vertrag anruf brief schlüssel wagen zug flug bus "
        "moment"
    ).split()
)
_NEUTER_DE = frozenset(
    (
        "ende auge gebäude interesse erbe gebirge getränk gemüse gelände prozent kilogramm gramm jahr mal "
        "stück paket zimmer ticket konto auto team büro hotel haus kind buch bett problem angebot formular "
        "produkt gerät handy telefon passwort dokument datum kilo pfund glas byte kilobyte megabyte gigabyte "
        "terabyte bit kilobit megabit gigabit"
    ).split()
)
_FEMININE_ENDINGS_DE = (
    "ung",
    "heit",
    "keit",
    "schaft",
    "ion",
    "tät",
    "ei",
    "ik",
    "ur",
    "enz",
    "anz",
    "ie",
    "erin",
    "e",
    "age",
)


# French nouns in -s or -x that are the same in the singular ("un mois", "une fois").
_INVARIANT_FR = frozenset("mois fois pas bras temps cours poids prix repas choix corps fils nez voix".split())


def _singular_fr(word: str) -> str:
    if word in _INVARIANT_FR:
        return word
    if word.endswith(("aux",)) and len(word) > 4:
        return word[:-3] + "al"
    return word[:-1] if word.endswith(("s", "x")) and len(word) > 3 else word


# Spanish plurals in -es whose singular ends in a consonant ("meses" -> "mes", "hospitales" -> "hospital");
# other plurals drop their -s ("horas", "clases", "calles").
_ES_PLURAL_ENDINGS = (("ones", "ón"), ("ces", "z"), ("eses", "es"), ("ales", "al"), ("eres", "er"),
                      ("ores", "or"), ("dades", "dad"), ("ares", "ar"))  # fmt: skip


def singular(word: str, language: str) -> str:
    """The singular of a plural noun, for Spanish and French (what "1½ horas" says: "una hora y media");
    the word itself in other languages or when it is no plural."""
    if language == "fr":
        return _singular_fr(word)
    if language != "es" or not word.endswith("s") or len(word) < 4:
        return word
    for plural, one in _ES_PLURAL_ENDINGS:
        if word.endswith(plural):
            return word[: -len(plural)] + one
    return word[:-1]


def noun_gender(word: str, language: str) -> str | None:
    """ "f" or "m" (German also "n") for a noun, by its ending and the exception lists; None when the
    language has no gender rules here or the word is no noun-like word."""
    if not word or not _WORD.fullmatch(word):
        return None
    w = word.lower()
    if language == "de":
        if not word[0].isupper():  # German nouns are capitalised: a lower-case word is no counted noun
            return None
        if w in _FEMININE_DE:
            return "f"
        if w in _MASCULINE_DE:
            return "m"
        if w in _NEUTER_DE or w.endswith(("chen", "lein", "ment", "um", "nis", "tum")):
            return "n"
        return "f" if w.endswith(_FEMININE_ENDINGS_DE) else "m"
    if language == "fr":
        s = _singular_fr(w)
        if w in _FEMININE_FR or s in _FEMININE_FR:
            return "f"
        if w in _MASCULINE_FR or s in _MASCULINE_FR:
            return "m"
        return "f" if s.endswith(_FEMININE_ENDINGS_FR) else "m"
    tables = {
        "es": (_FEMININE_ES, _MASCULINE_ES, _FEMININE_ENDINGS_ES),
        "it": (_FEMININE_IT, _MASCULINE_IT, _FEMININE_ENDINGS_IT),
        "pt": (_FEMININE_PT, _MASCULINE_PT, _FEMININE_ENDINGS_PT),
        "ca": (_FEMININE_CA, _MASCULINE_CA, _FEMININE_ENDINGS_CA),
    }
    if language not in tables:
        return None
    fem, masc, endings = tables[language]
    # Spanish and Portuguese count plurals too ("veintiuna noches", "duas noites"): try the singular.
    # Italian numbers agree only in 1, before a singular.
    forms = [w]
    if language == "ca" and w.endswith("es"):
        forms += [w[:-2] + "a", w[:-1]]  # "hores" / "persones" -> "hora" / "persona"; "classes" -> "classe"
    elif language == "ca" and w.endswith("s"):
        forms.append(w[:-1])  # "nits" -> "nit", "dies" is listed as "dia" through the -es rule
    if language in ("es", "pt") and w.endswith("s"):
        forms += [w[:-2], w[:-1]] if w.endswith("es") else [w[:-1]]
        if language == "pt" and w.endswith("ns"):
            forms.append(w[:-2] + "m")  # "mensagens" -> "mensagem", "viagens" -> "viagem"
        if language == "es" and w.endswith("ones"):
            forms.append(w[:-4] + "ón")  # "habitaciones" -> "habitación": the plural drops the accent
        if language == "pt" and w.endswith(("ões", "ães")):
            forms.append(w[:-3] + "ão")
    for form in forms:
        if form in fem:
            return "f"
        if form in masc:
            return "m"
    return "f" if any(form.endswith(endings) for form in forms[1:] or forms) else "m"


_NEXT_WORD = re.compile(rf"[ \u00a0\u202f]*({_WORD.pattern})")
_CONTEXT = 60  # characters before a number that its case can depend on (bounded: texts hold many numbers)


def next_word(text: str, pos: int) -> str:
    """The word starting after the spaces at `pos` ("" when punctuation or the end comes first)."""
    m = _NEXT_WORD.match(text, pos)
    return m.group(1) if m else ""


# A count and a second count joined by these share the noun after the second ("1 oder 2 Nächte", "1 o 2
# noches", "1 à 3 jours"), in the languages whose gender rules read a plural noun.
_RANGE_WORDS = {
    "de": frozenset("oder bis und".split()),
    "es": frozenset("o u a y".split()),
    "pt": frozenset("ou a e".split()),
    "ca": frozenset("o a i".split()),
    "fr": frozenset("ou à et".split()),
    "pl": frozenset("do lub albo".split()),
    "cs": frozenset("do nebo až".split()),
    "sk": frozenset("do alebo až".split()),
    "sr": frozenset("do ili".split()),
    "hr": frozenset("do ili".split()),
}
_RANGE_NUMBER = re.compile(r"[ \u00a0\u202f]*\d+(?=[ \u00a0\u202f]+[^\W\d_])")


def range_end(text: str, pos: int, language: str) -> int | None:
    """Where the second count of a range starting after `pos` ends ("1 oder 2 Nächte"), or None."""
    m = _NEXT_WORD.match(text, pos)
    if m is None or m.group(1).lower() not in _RANGE_WORDS.get(language, ()):
        return None
    second = _RANGE_NUMBER.match(text, m.end())
    return second.end() if second else None


# German words after a number that are no adjective of a noun after them: "Drücken Sie 1 für Rechnungen" says
# "eins" (the key), not "ein" counting "Rechnungen".
_DE_NOT_ADJECTIVES = frozenset(
    "für mit von zu zum zur an auf aus bei nach um oder und in im am bis pro je ab über unter vor durch gegen "
    "ohne wenn falls sowie".split()
)


def counted_noun(text: str, pos: int, language: str) -> str:
    """The word a number at `pos` counts: the next word, or in German, Polish, Czech and Slovak the noun
    after one adjective ("1 neue Nachricht" -> "Nachricht", "2 nowe wiadomości" -> "wiadomości"); Romance adjectives mostly follow the noun, Russian ones agree.
    The first count of a range counts the noun after the second ("1 o 2 noches" -> "noches")."""
    end = range_end(text, pos, language)
    if end is not None:
        return counted_noun(text, end, language)
    m = _NEXT_WORD.match(text, pos)
    if m is None:
        return ""
    if language == "de" and m.group(1)[:1].islower() and m.group(1) not in _DE_NOT_ADJECTIVES:
        after = next_word(text, m.end())
        if after[:1].isupper():
            return after
    if m.group(1) in _THOUSAND_WORDS.get(language, ()):  # "200 mil solicitudes": the noun after "mil"
        return next_word(text, m.end()) or m.group(1)
    if m.group(1).lower().endswith(_ADJECTIVE_ENDINGS.get(language, ())):
        return next_word(text, m.end()) or m.group(1)
    return m.group(1)


# Polish, Czech and Slovak adjectives before the noun they agree with, by endings no common noun has: after 2
# their plural reads the same for every gender ("2 nowe wiadomości", "2 nové správy"), so the count reads the
# noun after one of them. Endings nouns share are left out: -ie ("linie"), Slovak -á ("eurá"), Czech -í.
_ADJECTIVE_ENDINGS = {
    "pl": ("owe", "ne", "kie", "gie", "łe", "ych", "ymi", "ich", "imi"),
    "cs": ("é", "ý", "á", "ých", "ými"),
    "sk": ("é", "ý", "ých", "ými"),
}


# The word for a thousand written after a number, which counts the noun after it ("doscientas mil personas").
_THOUSAND_WORDS = {"es": ("mil",), "pt": ("mil",), "ca": ("mil",), "it": ("mila",)}


_WORD_OR_NUMBER = re.compile(_WORD.pattern + r"|\d+")


def previous_words(text: str, pos: int, n: int = 5, numbers: bool = False) -> list[str]:
    """Up to `n` words right before `pos`, lower-cased, nearest last; a clause mark in between stops it.
    With `numbers`, a number written in digits is one word, "#"."""
    before = re.split(r"[.,;:!?()\"]", text[max(0, pos - _CONTEXT) : pos])[-1]
    if numbers:
        return ["#" if w[0].isdigit() else w.lower() for w in _WORD_OR_NUMBER.findall(before)[-n:]]
    return [w.lower() for w in _WORD.findall(before)[-n:]]


# --- cardinals before a noun --------------------------------------------------------------------------

# Words after a number that are no counted noun: the number keeps num2words' form ("uno de los", "un sur
# cinq", "eins bis drei").
_NOT_NOUNS = {
    "ca": frozenset("de del a al i o en per amb sense que entre més menys fins és són no".split()),
    "es": frozenset(
        "de del a al y e o u en por para con sin que entre más menos hasta desde sobre como es son era fue".split()
    ),
    "it": frozenset("di del della a al e ed o in per con su da che tra fra più meno è sono non".split()),
    "pt": frozenset(
        "de do da a ao e ou em no na por para com sem que entre mais menos até é são não".split()
    ),
    "fr": frozenset(
        "de du des à au et ou en par pour avec sans que sur entre plus moins jusqu est sont ne pas".split()
    ),
    "ru": frozenset("и или в на с со до по из от за что как это не а".split()),
    "uk": frozenset("і й та в у на з зі із до по від за або чи що як це не а".split()),
    "pl": frozenset("i a w we na z ze do od po za o lub albo czy że jak to nie jest są".split()),
    "cs": frozenset("a i v ve na z ze do od po za o k ke s se u pro při nebo až je jsou ne".split()),
    "sk": frozenset("a i v vo na z zo do od po za o k ku s so u pre pri alebo až je sú nie".split()),
    "sl": frozenset("in ali v na z s iz do od po za o k h pri je so ne".split()),
    "sr": frozenset("i a ili u na sa s iz do od po za o k ka pri je su ne".split()),
    "sv": frozenset("och eller av till i på med för om som är var än".split()),
    "da": frozenset("og eller af til i på med for om som er var end".split()),
    "no": frozenset("og eller av til i på med for om som er var enn".split()),
    "ro": frozenset("și sau de la din în pe cu pentru că este sunt din".split()),
    # and Hungarian's common verbs: "kettő van" (there are two), but "két alma"
    "hu": frozenset(
        (
            "és vagy meg a az is de hogy mint plusz mínusz van volt lesz nincs kell maradt lett nem sem se már "
            "még pedig csak sőt után előtt óta közül között körül szerint helyett felett alatt miatt nélkül jó"
        ).split()
    ),
}

# Swedish, Danish and Norwegian say "one" in its noun's gender: "en" for the common gender, which most nouns
# have, "ett"/"et" for these frequent neuters and nouns with a neuter suffix ("meddelande", "bageri").
_NORDIC_ONE = {"sv": ("en", "ett"), "da": ("en", "et"), "no": ("en", "et")}
_NORDIC_NEUTER = {
    "sv": frozenset(
        (
            "år hus rum kort konto nummer paket ärende samtal barn lösenord jobb mejl mail sms fel svar pris bord "
            "land språk ord namn brev dygn kvartal kilo kilogram gram ögonblick tillfälle avtal abonnemang köp "
            "problem system program företag hotell ställe steg alternativ besök möte val exemplar par flyg tåg "
            "kvitto belopp lån bud nej ja ögonblick"
        ).split()
    ),
    "da": frozenset(
        (
            "år hus værelse kort nummer barn sted kontor minut sekund kilo kilogram gram øjeblik tilbud problem "
            "system program firma hotel land sprog ord navn brev døgn kvarter stykke job svar spørgsmål "
            "abonnement køb møde valg bord fly tog billede produkt beløb lån opkald password kodeord"
        ).split()
    ),
    "no": frozenset(
        (
            "år hus rom kort nummer barn sted kontor minutt sekund kilo kilogram gram øyeblikk tilbud problem "
            "system program firma hotell land språk ord navn brev døgn kvarter stykke svar spørsmål abonnement "
            "kjøp møte valg bord fly tog bilde produkt beløp lån passord anrop"
        ).split()
    ),
}
_NORDIC_NEUTER_ENDINGS = {"sv": ("ande", "ende", "eri", "um"), "da": ("eri", "ment"), "no": ("eri", "ment")}

# Romanian: "o oră" / "un litru"; "două ore", "două kilograme" (feminine and neuter plurals in -e, -uri),
# "doi litri", "doi ani" (masculine plurals in -i, but for these feminine ones)
_RO_FEMININE_ONE = frozenset("zi noapte carte floare cafea stea".split())
_RO_FEMININE_PLURAL_I = frozenset("luni nopți săptămâni cărți mâini țări ori".split())


def _nordic_count(words: str, noun: str, language: str) -> str:
    common, neuter = _NORDIC_ONE[language]
    if words not in (common, neuter):  # only "one" itself has a gender ("tjugoett" is said either way)
        return words
    low = noun.lower()
    is_neuter = low in _NORDIC_NEUTER[language] or low.endswith(_NORDIC_NEUTER_ENDINGS[language])
    return neuter if is_neuter else common


# Latvian and Lithuanian numbers from one to nine agree with their noun ("piecas minūtes", "penkios minutės",
# "penkias minutes", "penkis eurus"; it was "pieci minūtes"): the noun's ending gives its gender and, in
# Lithuanian, the accusative. In a compound only the last word changes.
_BALTIC_FORMS = {
    ("lv", "feminine"): {"viens": "viena", "divi": "divas", "četri": "četras", "pieci": "piecas", "seši": "sešas",
                         "septiņi": "septiņas", "astoņi": "astoņas", "deviņi": "deviņas"},
    ("lt", "feminine"): {"vienas": "viena", "du": "dvi", "keturi": "keturios", "penki": "penkios",
                         "šeši": "šešios", "septyni": "septynios", "aštuoni": "aštuonios", "devyni": "devynios"},
    ("lt", "feminine_accusative"): {"vienas": "vieną", "du": "dvi", "trys": "tris", "keturi": "keturias",
                                    "penki": "penkias", "šeši": "šešias", "septyni": "septynias",
                                    "aštuoni": "aštuonias", "devyni": "devynias"},
    ("lt", "accusative"): {"vienas": "vieną", "trys": "tris", "keturi": "keturis", "penki": "penkis",
                           "šeši": "šešis", "septyni": "septynis", "aštuoni": "aštuonis", "devyni": "devynis"},
}  # fmt: skip
# The noun's endings that ask for each form (the longest first), and short forms of feminine nouns.
# A feminine noun's endings: the plural's after most numbers, the singular's after one ("viena diena"; after two,
# a word in "-a" is a genitive before the noun: "divu darba dienu").
_BALTIC_FEMININE_ENDINGS = {"lv": (("as", "es"), ("a", "e")), "lt": (("ės", "os"), ("a", "ė"))}
_BALTIC_ONE = {"lv": "viens", "lt": "vienas"}
_LT_ACCUSATIVE_ENDINGS = ((("as", "es", "ą", "ę"), "feminine_accusative"), (("us", "ius", "į"), "accusative"))
_BALTIC_FEMININE_SHORT = {"lv": frozenset({"min", "st", "sek"}), "lt": frozenset({"min", "val", "sek", "d"})}


def _baltic_form(noun: str, last_word: str, language: str) -> str | None:
    low = noun.lower()
    if low in _BALTIC_FEMININE_SHORT[language]:
        return "feminine"
    one = last_word == _BALTIC_ONE[language]
    if language == "lt":  # "minutes" and "eurus" are accusatives; "minutės" nominative
        for endings, form in _LT_ACCUSATIVE_ENDINGS:
            if (
                low.endswith(endings)
                and not low.endswith(("ės", "os"))
                and (one or not low.endswith(("ą", "ę")))
            ):
                return form
    plural, singular = _BALTIC_FEMININE_ENDINGS[language]
    return "feminine" if low.endswith(singular if one else plural) else None


def _baltic_count(words: str, noun: str, language: str) -> str:
    *head, last = words.split()
    form = _baltic_form(noun, last, language)
    if form is None:
        return words
    return " ".join([*head, _BALTIC_FORMS[(language, form)].get(last, last)])


def _romanian_count(words: str, n: int, noun: str) -> str:
    low = noun.lower()
    if n == 1 and words == "unu":
        return "o" if low.endswith(("ă", "a")) or low in _RO_FEMININE_ONE else "un"
    if n % 100 in (2, 12) or (n % 10 == 2 and n % 100 > 20):
        if low.endswith(("e", "uri", "ări")) or low in _RO_FEMININE_PLURAL_I:
            words = re.sub(r"doi(sprezece)?$", r"două\1", words)
    return words


def romanian_de(words: str, n: int) -> str:
    """A Romanian count from twenty on is joined to its noun by "de" ("douăzeci de lei", "o sută de kilometri");
    added where the noun is known to follow (a currency's name; CLDR's unit patterns have their own), not before
    any next word: a verb ("anul 2024 a fost") or a month ("25 decembrie") takes none."""
    return f"{words} de" if n % 100 >= 20 or (n >= 100 and n % 100 == 0) else words


# Romance languages join a round million to what it counts with "de" ("deux millions d'euros", "dos millones
# de euros", "due milioni di euro"); the words for a million and a billion, and that joining word.
_MILLIONS = frozenset(
    "millón millones millon billón billones million millions milliard milliards milione milioni miliardo miliardi "
    "milhão milhões bilhão bilhões milió milions miliard miliards milion milioane miliarde".split()
)
_PARTITIVE = {"es": "de", "fr": "de", "it": "di", "pt": "de", "ca": "de", "ro": "de"}


def after_millions(noun: str, language: str, before: list[str]) -> str:
    """`noun` as said right after the word before it: "d'euros" after "millions", "di euro" after "milioni";
    unchanged elsewhere."""
    word = _PARTITIVE.get(language)
    if word is None or not before or before[-1] not in _MILLIONS:
        return noun
    if language in ("fr", "ca") and noun[:1].lower() in "aeiouhéèêàâîôû":
        return f"d'{noun}"
    return f"{word} {noun}"


_IT_UNO = re.compile(r"^(?:s[bcdfghlmnpqrstvz]|z|gn|ps|pn|x|y)", re.I)


def count_form(
    words: str, n: int, noun: str, language: str, before: list[str] | None = None, ranged: bool = False
) -> str:
    """`words` (num2words' spelling of `n`) as it is said before `noun`, counting it; `ranged`: `n` is the
    first count of a range ("1 bis 2 Tage"), where German says an uninflected "ein" and Spanish
    "uno o dos días"."""
    if noun.lower() in _NOT_NOUNS.get(language, ()):
        noun = ""
    if language == "ru":
        return _russian_count(n, noun, before or [], words)
    if language in _SLAVIC:
        return _slavic_count(n, noun, language, words, before or [], ranged) if noun else words
    if not noun:
        return words
    if before and before[-1] in _LABEL_NOUNS.get(language, ()):
        return words  # "O quarto 312 fica aqui": the number names the room; it counts nothing after it
    if language == "hu":  # a count before its noun says two short: "két alma", "tizenkét óra"
        return re.sub(r"kettő$", "két", words)
    if language in _NORDIC_ONE:
        return _nordic_count(words, noun, language)
    if language == "ro":
        return _romanian_count(words, n, noun)
    if language in ("lv", "lt"):
        return _baltic_count(words, noun, language)
    gender = noun_gender(noun, language)
    if gender is None:
        return words
    if language == "de":
        if n == 1 and (ranged or noun.lower() == "uhr"):
            return "ein"  # "ein bis zwei Tage"; "ein Uhr", the time of day, not a clock
        return _GERMAN_ONE[(_german_case(before or []), gender)] if n == 1 else words
    if language == "es":
        if gender == "f":
            words = re.sub(r"uno$", "una", words)
            return re.sub(r"ientos\b", "ientas", words)  # "doscientas personas"
        if ranged:
            return words  # "uno o dos días": "un" only right before its noun
        return re.sub(r"uno$", "ún" if words.endswith("veintiuno") else "un", words)
    if language == "it":
        if ranged and n == 1:  # "1-2 ore": not next to its noun, neither elided nor short
            return "una" if gender == "f" else words
        if n % 100 == 1 and n != 11 and words.endswith("uno"):
            if n != 1:
                return words[:-1]  # "ventun giorni", "ventun notti": the plural takes the short form
            if gender == "f":  # "un'ora" sounds as "un ora": the elision is only written
                return "un" if noun[:1].lower() in "aeiouàèéìòù" else "una"
            return "uno" if _IT_UNO.match(noun) else "un"
        return words
    if language == "pt":
        if gender != "f":
            return words
        words = re.sub(r"\bum$", "uma", words)
        words = re.sub(r"\bdois$", "duas", words)
        return re.sub(r"entos\b", "entas", words)  # "duzentas", "trezentas"
    if language == "ca":
        if gender != "f":
            return words
        words = re.sub(r"\bun$", "una", words)  # "vint-i-una places"
        words = re.sub(r"\bdos(?=$|-cent)", "dues", words)  # "dues hores", "dues-centes persones"
        return re.sub(r"cents\b", "centes", words)
    if language == "fr":
        if gender == "f" and re.search(r"\bun$", words) and n % 100 != 11:
            return words[:-2] + "une"
        return words
    return words


# Nouns a number after them names ("quarto 312", "vuelo 1234", "camera 21"): the word after that number is no
# counted noun ("O quarto 312 fica aqui" is not "trezentas e doze").
_LABEL_NOUNS = {
    "es": frozenset(
        "habitación vuelo puerta sala número línea página capítulo asiento mesa planta piso lote artículo "
        "autobús tren andén terminal aula".split()
    ),
    "pt": frozenset(
        "quarto voo porta sala número linha página capítulo lugar mesa andar piso lote processo artigo "
        "autocarro ônibus comboio cais terminal balcão apartamento".split()
    ),
    "it": frozenset(
        "camera volo porta sala numero linea pagina capitolo posto tavolo piano binario articolo autobus "
        "treno stanza aula".split()
    ),
    "fr": frozenset(
        "chambre vol porte salle numéro ligne page chapitre siège table étage quai bus train".split()
    ),
    "ca": frozenset("habitació vol porta sala número línia pàgina capítol seient taula planta pis".split()),
}


# German "ein" takes the case of its phrase: a preposition or a verb that takes an object before it (an
# adverb such as "noch" in between is skipped). Anything else is read as the subject, in the nominative.
_DE_DATIVE = frozenset(
    "mit nach bei seit von vom zu zum zur aus in im vor an auf innerhalb binnen ab".split()
)
_DE_ACCUSATIVE = frozenset(
    (
        "für durch gegen ohne um habe hast hat haben habt brauche brauchst braucht brauchen gibt möchte "
        "möchtest möchten bestelle bestellen buche buchen reserviere reservieren kaufe kaufen nehme nehmen "
        "nimmt bekomme bekommen bekommt erhalte erhalten erhält suche suchen sucht sende senden schicke "
        "schicken benötige benötigen vereinbaren dauert dauern kostet kosten warte warten bleibe bleiben "
        "beträgt betragen zahle zahlen zahlt bezahle bezahlen bezahlt überweise überweisen überweist "
        # a modal before its object, the verb at the end ("Sie dürfen 1 Koffer aufgeben"), and a subject pronoun
        # right before the count ("Bitte wählen Sie 1 Tarif aus", "können Sie 1 Termin buchen")
        "darf darfst dürfen dürft kann kannst können könnt muss musst müssen müsst soll sollst sollen sollt will "
        "willst wollen wollt sie du ihr wir ich man"
    ).split()
)
_DE_SKIPPED = frozenset(
    "noch nur genau etwa ca circa ungefähr mindestens höchstens bereits schon mal".split()
)
_GERMAN_ONE = {
    ("nominative", "m"): "ein", ("nominative", "n"): "ein", ("nominative", "f"): "eine",
    ("accusative", "m"): "einen", ("accusative", "n"): "ein", ("accusative", "f"): "eine",
    ("dative", "m"): "einem", ("dative", "n"): "einem", ("dative", "f"): "einer",
}  # fmt: skip


_DE_CONJUNCTIONS = frozenset("und oder sowie bzw".split())
_DE_ARTICLE_CASE = {
    "einem": "dative",
    "einer": "dative",
    "einen": "accusative",
    "dem": "dative",
    "den": "accusative",
}


def _german_case(before: list[str]) -> str:
    words = [w for w in before if w not in _DE_SKIPPED]
    prev = words[-1] if words else ""
    if prev in _DE_CONJUNCTIONS:
        return _german_conjunct_case(words[:-1])
    return "dative" if prev in _DE_DATIVE else "accusative" if prev in _DE_ACCUSATIVE else "nominative"


def _german_conjunct_case(first: list[str]) -> str:
    """The case a second conjunct takes from the first one ("mit einem Kind und 1 Hund", "es gibt 1 Tisch
    und 1 Stuhl"): the first conjunct's article, or the case of what comes before its count ("#"); the
    article or count stands before its noun, or before one adjective and its noun. Anything else (a bare
    noun: "in Berlin und 1 Freund") leaves the nominative."""
    for at in (len(first) - 2, len(first) - 3):
        if at < 0:
            break
        if first[at] in _DE_ARTICLE_CASE:
            return _DE_ARTICLE_CASE[first[at]]
        if first[at] == "#":
            return _german_case(first[:at])
    return "nominative"


# Russian: a preposition before a count sets its case; the noun's ending, in the form the count gives it,
# says the gender of 1 and 2 ("одна минута", "одну минуту", "две минуты", "два часа", "одно место").
_RU_GENITIVE = frozenset(
    "до от из без для около после кроме более менее свыше течение вместо среди у".split()
)
RUSSIAN_DATIVE_PREPOSITIONS = {"к", "по"}
_RU_FEMININE_SOFT = frozenset(
    (
        "ночь дверь вещь часть площадь мышь очередь тетрадь лошадь помощь смерть соль боль цель роль "
        "жизнь новость стоимость скорость возможность область запись карусель модель кровать"
    ).split()
)


def _russian_gender(noun: str, form: str) -> str:
    """ "f", "n" or "m" from the ending the noun has in `form`: "nom" (after 1), "gen_sg" (after 2-4 and
    a genitive 1), "dat_sg"."""
    w = noun.lower()
    if form == "gen_sg":
        return "f" if w.endswith(("ы", "и")) else "m"  # минуты, ночи / часа, рубля, места (m and n agree)
    if form == "dat_sg":
        return "f" if w.endswith(("е", "и")) else "m"  # встрече, ночи / дню, месту
    if w in _RU_FEMININE_SOFT or w.endswith("ость"):
        return "f"
    if w.endswith(("а", "я", "у", "ю", "ая", "ую")):
        return "f"  # минута, неделя; the accusative минуту, неделю
    if w.endswith(("о", "е", "ё", "ое")):
        return "n"
    return "m"


def _russian_count(n: int, noun: str, before: list[str], words: str) -> str:
    prev = before[-1] if before else ""
    case = (
        "genitive"
        if prev in _RU_GENITIVE
        else "dative"
        if prev in RUSSIAN_DATIVE_PREPOSITIONS
        else "nominative"
    )
    last = n % 10 if n % 100 not in (11, 12) else 0
    if case == "nominative":
        if last == 1 and noun:
            gender = _russian_gender(noun, "nom")
            accusative = gender == "f" and noun.lower().endswith(("у", "ю"))
            if gender == "m":
                return words
            return _ru_cardinal(n, "accusative" if accusative else "nominative", gender)
        if last == 2 and noun and _russian_gender(noun, "gen_sg") == "f":
            return _ru_cardinal(n, "nominative", "f")
        return words
    gender = "m"
    if last == 1 and noun:
        gender = _russian_gender(noun, "gen_sg" if case == "genitive" else "dat_sg")
    return _ru_cardinal(n, case, gender)


def _ru_cardinal(n: int, case: str, gender: str) -> str:
    return " ".join(num2words(n, lang="ru", case=case, gender=gender).replace(",", "").split())


# West and South Slavic languages and Ukrainian: 1 and 2 take the noun's gender ("jedna godzina", "dvě
# hodiny", "одна хвилина", "одне замовлення", "en dan" / "eno uro", "dve minute"), and 1 before a feminine noun
# in the accusative takes the accusative ("przez jedną godzinę", "za jednu hodinu", "за одну годину"). After 2
# the noun is plural (Slovenian: dual; Serbian: paucal), whose endings tell the genders apart in Slovenian
# ("dve uri" / "dva dneva") and Serbian ("dve minute" / "dva dana") but not in Polish ("godziny" is feminine,
# "pokoje" masculine), Czech, Slovak or Ukrainian: there only listed feminine plurals and sure endings take the
# feminine 2. Cases other than these, and masculine-personal forms ("dwóch", "dvaja"), are not covered.
@dataclass(frozen=True)
class _SlavicCounts:
    one: dict[str, str]  # the form of 1 for "m", "f", "n" and "fa" (a feminine noun in the accusative)
    two: tuple[str, str]  # 2 before a masculine / a feminine (Czech, Slovak, Slovenian: also neuter) plural
    # Whether the 1 of 21, 31... and the 2 of 22, 32... inflect too (as separate words, and where the grammar
    # says so: "dwadzieścia dwie", but "dwadzieścia jeden osób").
    one_in_compounds: bool
    two_in_compounds: bool
    masculine: frozenset[str] = frozenset()  # singulars whose ending says otherwise
    feminine: frozenset[str] = frozenset()
    neuter: frozenset[str] = frozenset()
    feminine_sure: tuple[str, ...] = ()  # endings checked before the neuter ones (-ść, -ost, -ість)
    neuter_endings: tuple[str, ...] = ("o", "e")
    feminine_endings: tuple[str, ...] = ("a",)
    accusative_endings: tuple[str, ...] = ()
    feminine_plurals: frozenset[str] = frozenset()  # plurals after 2 that take the feminine form
    feminine_plural_endings: tuple[str, ...] = ()
    masculine_plurals: frozenset[str] = frozenset()  # plurals with a feminine ending that are masculine
    # Prepositions that put the count in the genitive ("do 1 roku", "během 1 týdne", "протягом 1 дня").
    # There 1 takes the gender of the noun's genitive ending ("do jednego roku", "od jednej godziny"),
    # which a masculine -a/-u would confuse with a feminine nominative, and 2 has one genitive for every
    # gender ("do dwóch dni"). A noun with neither ending keeps num2words' form.
    genitive_prepositions: frozenset[str] = frozenset()
    genitive_one: tuple[str, str] = ("", "")  # 1 before a masculine or neuter / a feminine genitive
    genitive_masculine_endings: tuple[str, ...] = ()
    genitive_feminine_endings: tuple[str, ...] = ()
    genitive_masculine: frozenset[str] = frozenset()  # masculine genitives with a feminine ending
    genitive_two: str = ""  # none: 2 takes the gender of its plural as elsewhere ("do dve nedelje")
    # The first count of a range counts the genitive plural after the second ("od 1-5 osób"), whose endings say
    # nothing of the genitive singular's: feminine genitive plurals listed and by ending, the rest masculine or
    # neuter, which share their genitive of 1 ("od jednej do pięciu osób", "od jednego do trzech dni").
    genitive_plural_feminine: frozenset[str] = frozenset()
    genitive_plural_feminine_endings: tuple[str, ...] = ()
    # Some of the genitive prepositions also take the instrumental ("z 1 miastem", "з 1 людиною", "z 2
    # osobami"): a noun with an instrumental ending keeps the count's form.
    instrumental_endings: tuple[str, ...] = ()
    # Masculine animate nouns in the accusative, which ends in -a ("mam 1 kota", "mám 1 syna"), and the
    # form of 1 before them.
    animate_accusatives: frozenset[str] = frozenset()
    animate_one: str = ""
    # Each word of a cardinal from 2 up in the genitive, where the language declines them all ("do 5 dni" ->
    # "do pięciu dni", "do 100 km" -> "do stu kilometrów"); the 1 of "dwadzieścia jeden" does not decline.
    genitive_words: dict[str, str] = field(default_factory=dict)
    # The same in the instrumental, for such a preposition before an instrumental noun ("z 5 osobami" -> "z
    # pięcioma osobami"), with 1 and the feminine 2 apart: (masculine or neuter, feminine) forms.
    instrumental_words: dict[str, str] = field(default_factory=dict)
    instrumental_one: tuple[str, str] = ("", "")
    instrumental_two: tuple[str, str] = ("", "")

    def gender(self, noun: str) -> str:
        w = noun.lower()
        if w in self.animate_accusatives:
            return "ma"
        if w in self.masculine:
            return "m"
        if w in self.feminine or w.endswith(self.feminine_sure):
            return "f"
        if w in self.neuter or w.endswith(self.neuter_endings):
            return "n"
        if w.endswith(self.feminine_endings):
            return "f"
        return "fa" if self.accusative_endings and w.endswith(self.accusative_endings) else "m"

    def genitive(self, n: int, noun: str, words: str, plural: bool = False) -> str:
        """The count after a preposition that takes the genitive: 1 and 2 by the noun, every word where the
        language has `genitive_words`; before an instrumental noun the instrumental, where it has those.
        `plural`: the noun is a genitive plural counted by a range's second count."""
        w = noun.lower()
        if w.endswith(self.instrumental_endings):
            return self.instrumental(n, w, words) if self.instrumental_words else words
        if plural and n == 1 and self.genitive_one[0]:
            feminine = w in self.genitive_plural_feminine or w.endswith(self.genitive_plural_feminine_endings)
            return self.genitive_one[feminine]
        if n == 1 and self.genitive_one[0]:
            # `neuter` holds nominatives: this catches the indeclinable ones ("do 1 menu", "od 1 moře").
            if w in self.genitive_masculine or w in self.neuter:
                return self.genitive_one[0]
            if w.endswith(self.genitive_feminine_endings):
                return self.genitive_one[1]
            if w.endswith(self.genitive_masculine_endings):
                return self.genitive_one[0]
        if n == 2 and self.genitive_two:
            return self.genitive_two
        if self.genitive_words and n > 2:
            return " ".join(self.genitive_words.get(w, w) for w in words.split())
        if n == 2:
            return self.two[self.feminine_plural(noun)]
        return words

    def instrumental(self, n: int, noun: str, words: str) -> str:
        """The count before an instrumental noun: 1 by the noun's ending ("jedną osobą", "jednym klientem"),
        2 by its plural's gender ("dwiema osobami", "dwoma klientami"), the rest word by word."""
        if n == 1:
            return self.instrumental_one[noun.endswith("ą")]
        # the plural's nominative from its instrumental: "osobami" -> "osoby", "godzinami" -> "godziny"
        stem = noun.removesuffix("ami").removesuffix("mi")
        feminine = any(self.feminine_plural(stem + end) for end in ("y", "i", "e"))
        two = self.instrumental_two[feminine]
        return " ".join(
            two if w in ("dwa", "dwie") else self.instrumental_words.get(w, w) for w in words.split()
        )

    def feminine_plural(self, noun: str) -> bool:
        w = noun.lower()
        if w in self.masculine_plurals:
            return False
        return w in self.feminine_plurals or w.endswith(self.feminine_plural_endings)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _word_table(words: str, forms: str) -> dict[str, str]:
    """{word: its form}, from two space-separated lists of the same length ("_" in a form: a space)."""
    return {w: f.replace("_", " ") for w, f in zip(words.split(), forms.split(), strict=True)}


def _slovak_genitives() -> dict[str, str]:
    """Slovak's genitive cardinals ("do 10 dní" -> "do desiatich dní"), with the tens-and-units words num2words
    writes as one ("dvadsaťpäť" -> "dvadsiatich piatich"); hundreds and thousands keep their form."""
    table = _word_table(
        "dva dve tri štyri päť šesť sedem osem deväť desať jedenásť dvanásť trinásť štrnásť pätnásť šestnásť "
        "sedemnásť osemnásť devätnásť dvadsať tridsať štyridsať päťdesiat šesťdesiat sedemdesiat osemdesiat "
        "deväťdesiat",
        "dvoch dvoch troch štyroch piatich šiestich siedmich ôsmich deviatich desiatich jedenástich dvanástich "
        "trinástich štrnástich pätnástich šestnástich sedemnástich osemnástich devätnástich dvadsiatich "
        "tridsiatich štyridsiatich päťdesiatich šesťdesiatich sedemdesiatich osemdesiatich deväťdesiatich",
    )
    for tens in range(20, 100, 10):
        for unit in range(2, 10):
            table[num2words(tens + unit, lang="sk")] = (
                f"{table[num2words(tens, lang='sk')]} {table[num2words(unit, lang='sk')]}"
            )
    return table


_SLAVIC = {
    "pl": _SlavicCounts(
        one={"m": "jeden", "f": "jedna", "fa": "jedną", "n": "jedno"},
        two=("dwa", "dwie"),
        one_in_compounds=False,
        two_in_compounds=True,
        masculine=_words("mężczyzna kolega tata poeta artysta turysta kierowca sędzia"),
        feminine=_words(
            "noc rzecz twarz sól krew wieś mysz podróż pomoc moc odpowiedź łódź dłoń sieć pamięć śmierć"
        ),
        neuter=_words("imię zwierzę ramię plemię euro"),
        feminine_sure=("ść",),
        neuter_endings=("o", "e", "um"),
        accusative_endings=("ę",),
        feminine_plurals=_words(
            "godziny minuty sekundy osoby doby noce sztuki rzeczy strony karty paczki przesyłki butelki kawy "
            "herbaty pizze wizyty kobiety córki siostry dziewczyny matki zmiany tabletki złotówki korony linie "
            "trasy ulice płyty książki porcje raty faktury wersje kategorie firmy lekcje sesje opcje stacje "
            "rezerwacje walizki torby szklanki filiżanki kawałki"
        ),
        feminine_plural_endings=("ości", "ści", "cje", "sje", "zje"),
        genitive_prepositions=_words(
            "do od z ze bez dla około u podczas według zamiast wśród obok koło ciągu powyżej poniżej"
        ),
        genitive_one=("jednego", "jednej"),
        genitive_plural_feminine=_words(
            "osób godzin minut sekund dób nocy sztuk rzeczy stron kart paczek przesyłek butelek kaw wizyt kobiet "
            "zmian tabletek złotówek koron linii tras ulic płyt książek porcji rat faktur wersji kategorii firm "
            "lekcji sesji opcji stacji rezerwacji walizek toreb dawek kapsułek usług opłat wiadomości"
        ),
        genitive_plural_feminine_endings=("ości", "cji", "sji", "zji"),
        genitive_masculine_endings=("a", "u", "ego"),  # "ego": an adjective's, "od 1 złotego"
        genitive_feminine_endings=("y", "i"),
        genitive_two="dwóch",
        genitive_words=_word_table(
            "dwa dwie trzy cztery pięć sześć siedem osiem dziewięć dziesięć jedenaście dwanaście trzynaście "
            "czternaście piętnaście szesnaście siedemnaście osiemnaście dziewiętnaście dwadzieścia trzydzieści "
            "czterdzieści pięćdziesiąt sześćdziesiąt siedemdziesiąt osiemdziesiąt dziewięćdziesiąt sto dwieście "
            "trzysta czterysta pięćset sześćset siedemset osiemset dziewięćset tysiąc tysiące milion miliony",
            "dwóch dwóch trzech czterech pięciu sześciu siedmiu ośmiu dziewięciu dziesięciu jedenastu dwunastu "
            "trzynastu czternastu piętnastu szesnastu siedemnastu osiemnastu dziewiętnastu dwudziestu "
            "trzydziestu czterdziestu pięćdziesięciu sześćdziesięciu siedemdziesięciu osiemdziesięciu "
            "dziewięćdziesięciu stu dwustu trzystu czterystu pięciuset sześciuset siedmiuset ośmiuset "
            "dziewięciuset tysiąca tysięcy miliona milionów",
        ),
        instrumental_endings=("ą", "em", "ami", "mi"),
        instrumental_one=("jednym", "jedną"),
        instrumental_two=("dwoma", "dwiema"),
        instrumental_words=_word_table(
            "trzy cztery pięć sześć siedem osiem dziewięć dziesięć jedenaście dwanaście trzynaście czternaście "
            "piętnaście szesnaście siedemnaście osiemnaście dziewiętnaście dwadzieścia trzydzieści czterdzieści "
            "pięćdziesiąt sześćdziesiąt siedemdziesiąt osiemdziesiąt dziewięćdziesiąt sto dwieście trzysta "
            "czterysta pięćset sześćset siedemset osiemset dziewięćset tysiąc tysiące tysięcy",
            "trzema czterema pięcioma sześcioma siedmioma ośmioma dziewięcioma dziesięcioma jedenastoma "
            "dwunastoma trzynastoma czternastoma piętnastoma szesnastoma siedemnastoma osiemnastoma "
            "dziewiętnastoma dwudziestoma trzydziestoma czterdziestoma pięćdziesięcioma sześćdziesięcioma "
            "siedemdziesięcioma osiemdziesięcioma dziewięćdziesięcioma stu dwustoma trzystoma czterystoma "
            "pięciuset sześciuset siedmiuset ośmiuset dziewięciuset tysiącem tysiącami tysiącami",
        ),
        animate_accusatives=_words(
            "klienta kota psa syna brata pracownika lekarza konsultanta pasażera gościa ojca męża przyjaciela "
            "kolegę pacjenta technika kuriera"
        ),
        animate_one="jednego",
    ),
    "cs": _SlavicCounts(
        one={"m": "jeden", "f": "jedna", "fa": "jednu", "n": "jedno"},
        two=("dva", "dvě"),
        one_in_compounds=False,
        two_in_compounds=True,
        masculine=_words("táta kolega hrdina předseda turista soudce správce průvodce"),
        feminine=_words(
            "noc věc píseň kost řeč moc pomoc zeď loď tvář postel sůl myš láhev mrkev čtvrť paměť smrt síť krev "
            "odpověď obec paní"
        ),
        neuter=_words("moře pole slunce srdce letiště hřiště vejce kuře dítě menu taxi"),
        feminine_sure=("ost",),
        neuter_endings=("o", "í", "um"),
        feminine_endings=("a", "e", "ě"),
        accusative_endings=("u", "i"),  # hodinu, ulici: the accusative of -a and -e
        feminine_plurals=_words(
            "hodiny minuty sekundy koruny osoby noci věci ženy dcery sestry karty zprávy kávy pizzy cesty ceny "
            "stránky lekce ulice tašky láhve položky objednávky zastávky vstupenky jízdenky vteřiny děti"
        ),
        feminine_plural_endings=("osti", "a"),  # the neuter plural: auta, eura, místa
        genitive_prepositions=_words("do od z ze bez u během kromě podle místo okolo kolem vedle"),
        genitive_one=("jednoho", "jedné"),
        genitive_plural_feminine=_words(
            "hodin minut sekund vteřin korun osob nocí věcí žen karet zpráv cest cen stránek lekcí ulic tašek "
            "položek objednávek zastávek vstupenek jízdenek splátek"
        ),
        genitive_plural_feminine_endings=("ostí",),
        genitive_masculine_endings=("a", "u", "í"),
        genitive_feminine_endings=("y", "i", "e", "ě"),
        genitive_masculine=_words(
            "dne týdne měsíce pokoje muže stroje čaje lékaře otce konce tisíce kraje počítače klíče nože "
            "dítěte kuřete zvířete"
        ),
        genitive_two="dvou",
        genitive_words=_word_table(
            "dva dvě tři čtyři pět šest sedm osm devět deset jedenáct dvanáct třináct čtrnáct patnáct šestnáct "
            "sedmnáct osmnáct devatenáct dvacet třicet čtyřicet padesát šedesát sedmdesát osmdesát devadesát sto "
            "dvěstě třista čtyřista pětset šestset sedmset osmset devětset tisíc tisíce",
            "dvou dvou tří čtyř pěti šesti sedmi osmi devíti deseti jedenácti dvanácti třinácti čtrnácti patnácti "
            "šestnácti sedmnácti osmnácti devatenácti dvaceti třiceti čtyřiceti padesáti šedesáti sedmdesáti "
            "osmdesáti devadesáti sta dvou_set tří_set čtyř_set pěti_set šesti_set sedmi_set osmi_set devíti_set "
            "tisíc tisíc",
        ),
        animate_accusatives=_words(
            "syna bratra klienta psa kocoura pracovníka lékaře technika kurýra pacienta zákazníka otce muže "
            "přítele kamaráda"
        ),
        animate_one="jednoho",
    ),
    "sk": _SlavicCounts(
        one={"m": "jeden", "f": "jedna", "fa": "jednu", "n": "jedno"},
        two=("dva", "dve"),
        one_in_compounds=False,
        two_in_compounds=False,  # num2words writes 21 and 22 as one word: "dvadsaťjeden"
        masculine=_words("hrdina kolega turista sudca"),
        feminine=_words("noc vec reč pieseň kosť pomoc moc soľ myš tvár posteľ obec jeseň"),
        feminine_sure=("osť",),
        neuter_endings=("o", "e", "ie", "um"),
        accusative_endings=("u",),
        feminine_plurals=_words(
            "hodiny minúty sekundy koruny osoby noci veci ženy dcéry sestry karty správy kávy cesty ceny "
            "stránky ulice tašky fľaše položky objednávky zastávky vstupenky"
        ),
        feminine_plural_endings=("osti", "á", "a", "ia"),  # the neuter plural: autá, eurá, miesta, čísla
        genitive_prepositions=_words("do od z zo bez u počas okrem podľa namiesto okolo vedľa"),
        genitive_one=("jedného", "jednej"),
        genitive_plural_feminine=_words(
            "hodín minút sekúnd korún osôb nocí vecí žien kariet správ ciest cien stránok ulíc tašiek položiek "
            "objednávok zastávok vstupeniek splátok"
        ),
        genitive_plural_feminine_endings=("ostí",),
        genitive_masculine_endings=("a", "u"),
        genitive_feminine_endings=("y", "e", "i"),
        genitive_two="dvoch",
        genitive_words=_slovak_genitives(),
        animate_accusatives=_words(
            "syna brata klienta psa pracovníka lekára technika kuriéra pacienta zákazníka otca muža priateľa"
        ),
        animate_one="jedného",
    ),
    "sl": _SlavicCounts(
        one={"m": "en", "f": "ena", "fa": "eno", "n": "eno"},
        two=("dva", "dve"),
        one_in_compounds=False,
        two_in_compounds=False,  # "enaindvajset", "dvaindvajset": one word
        masculine=_words("evro euro avto radio kino studio foto"),
        feminine=_words("noč stvar pomoč moč misel pesem ljubezen bolezen smrt kri sol perut"),
        masculine_plurals=_words("dni"),  # "dva dni" beside the dual "dva dneva"
        accusative_endings=("o",),
        feminine_plural_endings=("i",),  # the dual: dve uri, dve minuti, dve mesti / dva dneva, dva evra
        genitive_prepositions=_words("do od iz z s brez zaradi blizu okoli"),
        genitive_one=("enega", "ene"),
        genitive_masculine_endings=("a",),
        genitive_feminine_endings=("e", "i"),
        genitive_two="dveh",
        instrumental_endings=("o", "om", "em", "ami"),
        animate_accusatives=_words(
            "brata sina klienta psa delavca zdravnika tehnika pacienta očeta moža prijatelja"
        ),
        animate_one="enega",
    ),
    "sr": _SlavicCounts(
        one={"m": "jedan", "f": "jedna", "fa": "jednu", "n": "jedno"},
        two=("dva", "dve"),
        one_in_compounds=True,
        two_in_compounds=True,
        masculine=_words("evro euro auto radio kilo metro studio tata kolega sudija"),
        masculine_plurals=_words("kolege sudije tate"),
        feminine=_words("noć stvar reč ljubav so krv glad"),
        accusative_endings=("u",),
        feminine_plurals=_words("noći stvari reči"),
        feminine_plural_endings=("e",),  # the paucal: dve minute, dve osobe / dva dana, dva mesta
        genitive_prepositions=_words("do od iz sa s bez kod posle pre tokom umesto oko pored"),
        genitive_one=("jednog", "jedne"),
        # after a range's second count: a feminine paucal ("od 1-2 minute") or genitive plural ("od 1-5 minuta")
        genitive_plural_feminine=_words(
            "minuta sekundi godina nedelja nedjelja sedmica osoba noći stvari stranica poruka kuna ura"
        ),
        genitive_plural_feminine_endings=("e",),
        genitive_masculine_endings=("a",),
        genitive_feminine_endings=("e", "i"),
        instrumental_endings=("om", "em", "ama"),
        animate_accusatives=_words(
            "brata sina klijenta psa radnika lekara tehničara pacijenta kupca oca muža prijatelja"
        ),
        animate_one="jednog",
    ),
    "uk": _SlavicCounts(
        one={"m": "один", "f": "одна", "fa": "одну", "n": "одне"},
        two=("два", "дві"),
        one_in_compounds=True,
        two_in_compounds=True,
        masculine=_words("тато батько дядько"),
        feminine=_words("ніч річ сіль мить любов осінь тінь подорож мідь піч"),
        feminine_sure=("ість",),
        neuter_endings=("о", "е", "ння", "ття", "сся", "лля", "ззя", "ччя", "жжя"),
        feminine_endings=("а", "я"),
        accusative_endings=("у", "ю"),
        feminine_plurals=_words(
            "години хвилини секунди гривні особи ночі речі картки посилки сторінки пляшки копійки заявки жінки "
            "доньки сестри зустрічі відповіді кави піци машини кімнати квартири послуги знижки ціни поїздки"
        ),
        feminine_plural_endings=("ості",),
        genitive_prepositions=_words("до від з із без для біля після протягом замість серед крім"),
        genitive_one=("одного", "однієї"),
        genitive_masculine_endings=("а", "я", "у", "ю"),
        genitive_feminine_endings=("и", "і", "ї"),
        genitive_two="двох",
        instrumental_endings=("ою", "ею", "єю", "ом", "ем", "єм", "ами", "ями", "ми"),
        animate_accusatives=_words(
            "сина брата клієнта кота пса працівника лікаря техніка пацієнта батька чоловіка друга"
        ),
        animate_one="одного",
    ),
}
# Croatian counts as Serbian does, in its ijekavian forms ("dvije minute", "poslije jednog tjedna"), with its
# own words for the listed nouns.
_SLAVIC["hr"] = replace(
    _SLAVIC["sr"],
    two=("dva", "dvije"),
    masculine=_words("euro auto radio kilo metro studio tata kolega sudac"),
    masculine_plurals=_words("kolege tate"),
    feminine=_words("noć stvar riječ ljubav sol krv glad"),
    feminine_plurals=_words("noći stvari riječi"),
    genitive_prepositions=_words("do od iz sa s bez kod poslije prije tijekom umjesto oko pored"),
    animate_accusatives=_words(
        "brata sina klijenta psa radnika liječnika tehničara pacijenta kupca oca muža prijatelja"
    ),
)


def declines_every_word(language: str) -> bool:
    """Whether every word of a count declines after a genitive preposition (`_SlavicCounts.genitive_words`):
    then an amount of money declines too, count and currency (`amounts._currency`)."""
    return language in _SLAVIC and bool(_SLAVIC[language].genitive_words)


def after_genitive_preposition(before: list[str], language: str) -> bool:
    """Whether the words before a count end in a preposition that puts it in the genitive (Slavic)."""
    return language in _SLAVIC and bool(before) and before[-1] in _SLAVIC[language].genitive_prepositions


def genitive_count(before: list[str], language: str) -> bool:
    """Whether a count after these words and its noun are in the genitive (Slavic and Russian: "do 2 km",
    "до 2 км")."""
    if language == "ru":
        return bool(before) and before[-1] in _RU_GENITIVE
    return after_genitive_preposition(before, language)


def _slavic_count(
    n: int, noun: str, language: str, words: str, before: list[str], ranged: bool = False
) -> str:
    rules = _SLAVIC[language]
    if not words.strip():
        return words
    if before and before[-1] in rules.genitive_prepositions:
        return rules.genitive(n, noun, words, plural=ranged)
    if (
        len(before) > 1
        and before[-1] in _RANGE_WORDS.get(language, ())
        and before[-2] in rules.genitive_prepositions
    ):
        return rules.genitive(n, noun, words)  # a range's second count: "dla 1 lub 2 osób" -> "dwóch"
    if ranged and n == 1 and words in rules.one.values():  # "1-2 osoby": the plural's gender
        return rules.one["f"] if rules.feminine_plural(noun) else words
    *head, tail = words.split()
    last, tens = n % 10, n % 100
    if last == 1 and tail in rules.one.values() and (n == 1 or rules.one_in_compounds and tens != 11):
        gender = rules.gender(noun)
        return " ".join([*head, rules.animate_one if gender == "ma" else rules.one[gender]])
    if last == 2 and tail in rules.two and (n == 2 or rules.two_in_compounds and tens != 12):
        return " ".join([*head, rules.two[rules.feminine_plural(noun)]])
    return words
