"""Roman numerals in Spanish, Portuguese, Italian, French and German text, said as their speakers say them.

espeak-ng read them as letters or with a word of its own: "Carlos III" was "Carlos i i i", "Louis XIV" "Louis
quatorze romain", "Karl V." "Karl fau", "Francisco I" the letter "i" (a seventh review of agent text). A numeral
is read only where its context says it is one:

* after a monarch's or a pope's name (a capitalised word, in German a known regnal name or a title; a
  one-letter numeral only after a known regnal name or a title): Spanish and Portuguese say an ordinal up to ten and a cardinal beyond ("Carlos tercero",
  "Luis catorce", "Dom João sexto"), Italian always an ordinal ("Luigi quattordicesimo"), French a cardinal but
  "premier" ("Louis quatorze", "François premier"), German "der" and a capitalised ordinal ("Karl der
  Fünfte", "von Karl dem Fünften"); queens take the feminine ("Isabel segunda", "Elisabeth die Zweite");
* a century: Spanish and Portuguese say a cardinal ("siglo veintiuno"), Italian and French an ordinal
  ("ventunesimo secolo", "vingt et unième siècle", written "XXIe siècle");
* after a word that numbers (chapter, volume, part, phase, type, act...): a cardinal ("capítulo cuatro").

English has its own reading in `normalize.abbreviations` ("Henry the eighth", "World War two").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from num2words import num2words

__all__ = ["LANGUAGES", "PATTERN", "read", "spoken", "value"]

LANGUAGES = frozenset({"es", "pt", "it", "fr", "de"})
# Up to 399; French writes an ordinal's ending after it ("XXIe", "Ier", "Ire"), German an ordinal's dot ("Karl V.
# und"), which `spoken` keeps only where it also ends the sentence.
PATTERN = r"(?<![\w.'’-])(?P<roman>[IVXLC]{1,7})(?P<roman_end>er|re|e|ème)?(?P<roman_dot>\.)?(?![\w'’-])"
_NUMERAL = re.compile(r"C{0,3}(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}

_CENTURY_BEFORE = {
    "es": "siglos?",
    "pt": "séculos?",
    "it": "secol[oi]",
    "fr": "siècles?",
    "de": "Jahrhunderts?",
}
_CENTURY_AFTER = {"it": "secol[oi]", "fr": "siècles?"}
_NUMBERING = {
    "es": "capítulo|tomo|parte|fase|tipo|nivel|acto|volumen|libro|título|anexo|grado|temporada|edición|clase",
    "pt": "capítulo|tomo|parte|fase|tipo|nível|ato|volume|livro|título|anexo|grau|temporada|edição|classe",
    "it": "capitolo|tomo|parte|fase|tipo|livello|atto|volume|libro|titolo|allegato|grado|stagione|edizione|classe",
    "fr": "chapitre|tome|partie|phase|type|niveau|acte|volume|livre|titre|annexe|degré|saison|édition|classe",
    "de": "Kapitel|Band|Teil|Phase|Typ|Stufe|Akt|Buch|Titel|Anhang|Grad|Staffel|Ausgabe|Klasse",
}
_TITLES = {
    "es": "rey|reina|papa|emperador|emperatriz|príncipe|princesa|infante|infanta|don|doña",
    "pt": "rei|rainha|papa|imperador|imperatriz|príncipe|princesa|infante|infanta|dom|dona|D\\.",
    "it": "re|regina|papa|imperatore|imperatrice|principe|principessa",
    "fr": "roi|reine|pape|empereur|impératrice|prince|princesse",
    "de": "König|Königin|Papst|Kaiser|Kaiserin|Prinz|Prinzessin|Herzog|Zar",
}
# Regnal names after which even a one-letter numeral is one ("Carlos V", "Francisco I"); queens' are feminine.
_NAMES = {
    "es": "Carlos Felipe Fernando Alfonso Juan Enrique Pedro Luis Francisco Pío Benedicto Gregorio León Pablo "
          "Jaime Sancho Ramiro",
    "pt": "João Pedro Manuel José Afonso Sebastião Carlos Luís Francisco Bento Pio Leão Paulo Fernando",
    "it": "Carlo Luigi Vittorio Umberto Francesco Giovanni Pio Leone Benedetto Paolo Gregorio Federico Enrico "
          "Ferdinando Filippo",
    "fr": "Louis François Henri Charles Philippe Napoléon Jean Pie Léon Benoît Grégoire Paul Frédéric",
    "de": "Karl Ludwig Friedrich Wilhelm Heinrich Otto Franz Leo Pius Benedikt Johannes Paul Gregor Maximilian "
          "Joseph Ferdinand",
}  # fmt: skip
_QUEENS = {
    "es": "Isabel Juana María Victoria Cristina Leonor",
    "pt": "Maria Isabel Leonor Beatriz",
    "it": "Elisabetta Maria Vittoria Giovanna",
    "fr": "Élisabeth Elisabeth Marie Victoria",
    "de": "Elisabeth Maria Victoria Katharina",
}
_GERMAN_DATIVE = frozenset("von vom unter mit bei nach zu zum seit aus".split())


_NAME_BEFORE = re.compile(r"(?:^|\s)(?:(\S+)\s+)?([A-ZÀ-Ý][\w'-]+)\s+$")


@dataclass(frozen=True)
class _Cues:
    numbering: re.Pattern
    century_before: re.Pattern
    century_after: re.Pattern | None
    title: re.Pattern
    names: frozenset[str]
    queens: frozenset[str]


@cache
def _cues(language: str) -> _Cues:
    """The language's cue words, compiled once."""
    return _Cues(
        re.compile(rf"\b(?:{_NUMBERING[language]})\s+$", re.I),
        re.compile(rf"\b(?:{_CENTURY_BEFORE[language]})\s+$", re.I),
        re.compile(rf"\s+(?:{_CENTURY_AFTER[language]})\b", re.I) if language in _CENTURY_AFTER else None,
        re.compile(_TITLES[language], re.I),
        frozenset(_NAMES[language].split()),
        frozenset(_QUEENS[language].split()),
    )


def value(word: str) -> int | None:
    """The numeral's value, or None for letters that are no well-formed numeral ("IIV", "VV")."""
    if not word or not _NUMERAL.fullmatch(word):
        return None
    values = [_VALUES[c] for c in word]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def _ordinal(n: int, language: str, feminine: bool) -> str:
    words = num2words(n, lang=language, to="ordinal")
    if feminine and language in ("es", "pt", "it"):
        words = " ".join(w[:-1] + "a" if w[-1] == "o" else w for w in words.split())
    return words


def _regnal(n: int, language: str, feminine: bool, before_name: str) -> str:
    if language in ("es", "pt"):
        return _ordinal(n, language, feminine) if n <= 10 else num2words(n, lang=language)
    if language == "it":
        return _ordinal(n, language, feminine)
    if language == "fr":
        return ("première" if feminine else "premier") if n == 1 else num2words(n, lang="fr")
    # German: "Karl der Fünfte", "unter Karl dem Fünften", "Elisabeth die Zweite"
    ordinal = num2words(n, lang="de", to="ordinal").capitalize()
    if before_name.lower() in _GERMAN_DATIVE:
        return f"{'der' if feminine else 'dem'} {ordinal}n"
    return f"{'die' if feminine else 'der'} {ordinal}"


def spoken(numeral: str, ending: str, language: str, before: str, after: str) -> str | None:
    """`numeral` ("XIV") with its written `ending` ("e", "er", or ""), between the text `before` and `after` it,
    in words; None where nothing says it is a number (a letter, an initialism: "Plan B", "CV")."""
    n = value(numeral)
    if n is None or numeral in ("C", "L") or language not in LANGUAGES:
        return None
    if ending:  # French only: "XXIe siècle", "François Ier"
        if language != "fr":
            return None
        return (
            ("première" if ending == "re" else "premier") if n == 1 else num2words(n, lang="fr", to="ordinal")
        )
    cues = _cues(language)
    if cues.numbering.search(before):
        return num2words(n, lang=language)
    if cues.century_before.search(before):
        return _ordinal(n, language, False) if language in ("it", "fr", "de") else num2words(n, lang=language)
    if cues.century_after and cues.century_after.match(after):
        return _ordinal(n, language, False)
    name = _NAME_BEFORE.search(before)
    if name:
        first, word = name.group(1) or "", name.group(2)
        queen = word in cues.queens
        known = queen or word in cues.names or cues.title.fullmatch(first)
        if known or (len(numeral) > 1 and language != "de"):
            return _regnal(n, language, queen, first)
        if len(numeral) > 1:  # German capitalises every noun: "Pflegegrad III" is a grade, "drei"
            return num2words(n, lang="de")
    return None


def read(m: re.Match, language: str, ends_sentence: bool) -> str | None:
    """`PATTERN`'s match in words; its dot is kept where it ends the sentence (a German ordinal's dot inside
    one, "Karl V. und", is no stop)."""
    said = spoken(
        m.group("roman"),
        m.group("roman_end") or "",
        language,
        m.string[max(0, m.start() - 40) : m.start()],
        m.string[m.end() : m.end() + 20],
    )
    if said and m.group("roman_dot") and (language != "de" or ends_sentence):
        said += "."
    return said
