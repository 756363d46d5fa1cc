"""Numbers with an ending written after them: Finnish "3:lle", Hungarian "10-kor", Turkish "3'te",
Swedish "3:e", and Hungarian dates ("május 3-án").

These languages write a case ending or an ordinal mark on the digits, after a colon, hyphen or apostrophe.
Read as written, the number and its ending come apart ("kolme :lle"); said, they are one word, and the
ending often changes the number's stem (Finnish "viisi" -> "viidellä", Hungarian "három" -> "hármat"). So:

* Finnish: the ending names a case, and num2words inflects the number in it ("3:lle" -> "kolmelle",
  "5:llä" -> "viidellä", "3:nnella" -> "kolmannella", the ordinal; "3:s" -> "kolmas").
* Hungarian: the ending is joined to the number's word, with the stems that change before a linking vowel
  ("10-kor" -> "tízkor", "3-at" -> "hármat", but "3-ig" -> "háromig") and "két" before a suffix that makes
  a word ("2-szer" -> "kétszer"); "-ik"/"-edik" make an ordinal ("3-ik" -> "harmadik"); a day, after a month
  name or with a date's ending, is an ordinal in the possessive ("május 3." -> "május harmadika", "május
  3-án" -> "május harmadikán", "1-jén" -> "elsején").
* Turkish writes the ending as it is said after the number ("3'te" -> "üçte", "10'da" -> "onda"), so it is
  joined as written; so is any ending the rules above do not know.
* Swedish ":e", ":a", ":dra"... mark an ordinal ("den 3:e maj" -> "den tredje maj", "1:a" -> "första").
* Russian and Ukrainian write the last letters of the word said after a hyphen ("на 3-м этаже", "до 2-х",
  "5-летний"): `slavic_endings`.
* Lithuanian writes an ordinal's ending after a hyphen ("2-ą aukštą" -> "antrą", "kovo 5-oji" -> "penktoji",
  "2024-aisiais" -> "... ketvirtaisiais"): the ordinal's stem and the ending as written (`baltic`).
* Bengali writes a case ending after a hyphen ("১৯৭১-এ" -> "উনিশশো একাত্তরে", "৯০-এর" -> "নব্বইয়ের"): the
  ending's vowel joins the number's last word as a vowel sign, after a "য়" where that word ends in a vowel.
"""

from __future__ import annotations

from num2words import num2words

from . import slavic_endings
from .baltic import lithuanian_with_ending
from .ordinals import num2words_ordinal

__all__ = ["SEPARATORS", "bengali_attach", "hungarian_attach", "hungarian_day", "with_ending"]

# The mark between the digits and the ending, per language.
SEPARATORS = {"fi": ":", "hu": "-", "tr": "'", "sv": ":", "ru": "-", "uk": "-", "lt": "-", "bn": "-"}

# A Bengali ending's first vowel as the sign it becomes on the word before it ("-এ" -> "ে").
_BN_VOWEL_SIGNS = {"এ": "ে", "ও": "ো", "আ": "া", "ই": "ি", "উ": "ু"}
_BN_VOWELS = frozenset("অআইঈউঊএঐওঔ") | frozenset("ািীুূৃেৈোৌ")

# Finnish endings and the case they mark, longest first within each table; the ordinal ones hold the
# ordinal stem's "nn"/"nt"/"tt" ("kolmannella", "kolmanteen", "kolmatta").
_FI_ORDINAL_ENDINGS = (
    ("nnessa", "inessive"), ("nnessä", "inessive"), ("nnesta", "elative"), ("nnestä", "elative"),
    ("nnella", "adessive"), ("nnellä", "adessive"), ("nnelta", "ablative"), ("nneltä", "ablative"),
    ("nnelle", "allative"), ("nneksi", "translative"), ("nteen", "illative"), ("ntena", "essive"),
    ("ntenä", "essive"), ("nnen", "genitive"), ("tta", "partitive"), ("ttä", "partitive"),
    ("s", "nominative"),
)  # fmt: skip
_FI_ENDINGS = (
    ("ssa", "inessive"), ("ssä", "inessive"), ("sta", "elative"), ("stä", "elative"),
    ("lla", "adessive"), ("llä", "adessive"), ("lta", "ablative"), ("ltä", "ablative"),
    ("lle", "allative"), ("ksi", "translative"), ("na", "essive"), ("nä", "essive"),
    ("ta", "partitive"), ("tä", "partitive"), ("a", "partitive"), ("ä", "partitive"),
)  # fmt: skip
_FI_ILLATIVE = ("seen", "hin", "han", "hen", "aan", "ään", "een", "iin", "oon", "uun", "yyn")


def _finnish(n: int, ending: str) -> str | None:
    for written, case in _FI_ORDINAL_ENDINGS:
        if ending == written:
            return num2words(n, lang="fi", to="ordinal", case=case)
    if ending.endswith(_FI_ILLATIVE):
        return num2words(n, lang="fi", case="illative")
    for written, case in _FI_ENDINGS:
        if ending == written:
            return num2words(n, lang="fi", case=case)
    if ending == "n":
        return num2words(n, lang="fi", case="genitive")
    return None


# Hungarian: endings that start with a linking vowel change some stems ("hármat", "hetet", "ezret", "tizet",
# "hárman"); the case endings that start with a vowel of their own do not ("háromig", "hétért", "háromon").
_HU_LINKING = ("at", "et", "ot", "öt", "an", "en", "as", "es", "os", "ös", "ak", "ek", "ok", "ök")
_HU_LINKING_STEMS = {"három": "hárm", "hét": "het", "ezer": "ezr", "tíz": "tiz", "kettő": "kett"}
# "kettő" is "két" before a suffix that makes a word ("kétszer", "kétféle", "kétszobás").
_HU_KET = ("szer", "szor", "féle", "szeres", "szobás", "napos", "órás", "éves", "fős", "személyes", "ágyas")
_HU_ORDINAL = ("ik", "dik", "adik", "edik", "odik", "ödik")
# Endings of a date's day ("3-án", "1-jén", "5-étől", "10-éig", "3-a", "3-i"): the day is an ordinal.
_HU_DAY = frozenset("a e je ja án én jén ától étől jétől áig éig jéig ára ére jére ai ei jei i".split())
_HU_BACK = "aáoóuú"
_HU_FRONT = "eéöőüű"


def _hungarian(n: int, ending: str) -> str:
    if ending in _HU_ORDINAL:
        return num2words(n, lang="hu", to="ordinal")
    if ending in _HU_DAY and 1 <= n <= 31:
        return hungarian_day(n, ending)
    return hungarian_attach(num2words(n, lang="hu"), ending)


def hungarian_attach(words: str, ending: str) -> str:
    """`words` (a number's, or a time's, amount's or unit's) with a Hungarian ending joined to the last one, which
    the writer already chose to agree with it: "tíz harminc" + "kor" -> "tíz harminckor", "hét" + "et" ->
    "hetet", "magyar forint" + "ért" -> "magyar forintért"."""
    if words.endswith("kettő") and ending.startswith(_HU_KET):
        return words[:-5] + "két" + ending
    if ending.startswith(_HU_LINKING):
        for word, stem in _HU_LINKING_STEMS.items():
            if words.endswith(word):
                return words[: -len(word)] + stem + ending
    if words.endswith("gy") and ending.startswith("gy"):  # egy + gyel -> eggyel
        return words[:-2] + "ggy" + ending[2:]
    return words + ending


def _hungarian_back(word: str) -> bool:
    """Whether the last vowel that is not i/í is a back vowel: its endings then take a/á."""
    for ch in reversed(word):
        if ch in _HU_BACK:
            return True
        if ch in _HU_FRONT:
            return False
    return False


def hungarian_day(day: int, ending: str = "") -> str:
    """The day after a month name: "harmadika" (május 3.), "harmadikán" (3-án), "elsején" (1-jén),
    "harmadikáig" (3-ig), "harmadikai" (3-i)."""
    if day == 1:
        base = "elseje"
    elif day == 2:
        base = "másodika"
    else:
        ordinal = num2words(day, lang="hu", to="ordinal")
        base = ordinal + ("a" if _hungarian_back(ordinal) else "e")
    if ending in ("", "a", "e", "je", "ja"):
        return base
    if ending in ("i", "ji", "jei", "ai", "ei"):
        return base + "i"
    core = ending.removeprefix("j")
    core = core[1:] if core[:1] in ("á", "é") else core
    return base[:-1] + ("á" if base.endswith("a") else "é") + core


# Swedish ordinal marks: 3:e, 1:a, 1:sta, 2:dra, 4:de, 20:nde, 5:te.
_SV_ORDINAL = frozenset("e a sta dra de nde te onde".split())


def with_ending(n: int, ending: str, language: str, before: list[str] = (), after: str = "") -> str:
    """`n` said with the ending written after it, as one word. An ending this does not know is joined to
    the number's own word ("3:kin" -> "kolmekin"). `before` (the lower-cased words before the number) and
    `after` (the next word) decide a Russian or Ukrainian form."""
    ending = ending.lower()
    if language in slavic_endings.LANGUAGES:
        return slavic_endings.with_ending(n, ending, language, list(before), after)
    if language == "fi":
        inflected = _finnish(n, ending)
        if inflected is not None:
            return inflected
    if language == "hu":
        return _hungarian(n, ending)
    if language == "lt":
        return lithuanian_with_ending(n, ending)
    if language == "sv" and ending in _SV_ORDINAL:
        return num2words_ordinal(n, "sv")
    return num2words(n, lang=language) + ending


def bengali_attach(words: str, ending: str) -> str:
    """`words` with a Bengali case ending joined to the last word: "একাত্তর" + "এ" -> "একাত্তরে", "নব্বই" + "এর"
    -> "নব্বইয়ের"; an ending that starts with a consonant ("তে") is joined as written."""
    sign = _BN_VOWEL_SIGNS.get(ending[:1])
    if sign is None:
        return words + ending
    glide = "য়" if words[-1:] in _BN_VOWELS else ""
    return f"{words}{glide}{sign}{ending[1:]}"
