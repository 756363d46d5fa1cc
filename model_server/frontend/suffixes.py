"""Numbers with an ending written after them: Finnish "3:lle", Hungarian "10-kor", Turkish "3'te",
Swedish "3:e", and Hungarian dates ("május 3-án").

These languages write a case ending or an ordinal mark on the digits, after a colon, hyphen or apostrophe.
Read as written, the number and its ending come apart ("kolme :lle"); said, they are one word, and the
ending often changes the number's stem (Finnish "viisi" -> "viidellä", Hungarian "három" -> "hármat"). So:

* Finnish: the ending names a case, and num2words inflects the number in it ("3:lle" -> "kolmelle",
  "5:llä" -> "viidellä", "3:nnella" -> "kolmannella", the ordinal; "3:s" -> "kolmas").
* Hungarian: the ending is joined to the number's word, with the stems that change before a vowel
  ("10-kor" -> "tízkor", "3-at" -> "hármat"); a day after a month name is an ordinal in the possessive
  ("május 3." -> "május harmadika", "május 3-án" -> "május harmadikán", "május 1-jén" -> "május
  elsején").
* Turkish writes the ending as it is said after the number ("3'te" -> "üçte", "10'da" -> "onda"), so it is
  joined as written; so is any ending the rules above do not know.
* Swedish ":e" and ":a" mark an ordinal ("den 3:e maj" -> "den tredje maj", "1:a" -> "första").
"""

from __future__ import annotations

from num2words import num2words

__all__ = ["SEPARATORS", "hungarian_day", "with_ending"]

# The mark between the digits and the ending, per language.
SEPARATORS = {"fi": ":", "hu": "-", "tr": "'", "sv": ":"}

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


# Hungarian number stems that drop or shorten a vowel before an ending that starts with one.
_HU_VOWEL_STEMS = {"három": "hárm", "hét": "het", "ezer": "ezr"}
_HU_VOWELS = "aáeéiíoóöőuúüű"
_HU_BACK = "aáoóuú"
_HU_FRONT = "eéöőüű"


def _hungarian(n: int, ending: str) -> str:
    words = num2words(n, lang="hu")
    if ending[0] in _HU_VOWELS:
        for word, stem in _HU_VOWEL_STEMS.items():
            if words.endswith(word):
                return words[: -len(word)] + stem + ending
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


def with_ending(n: int, ending: str, language: str) -> str:
    """`n` said with the ending written after it, as one word. An ending this does not know is joined to
    the number's own word ("3:kin" -> "kolmekin")."""
    ending = ending.lower()
    if language == "fi":
        inflected = _finnish(n, ending)
        if inflected is not None:
            return inflected
    if language == "hu":
        return _hungarian(n, ending)
    if language == "sv" and ending in ("e", "a"):
        return num2words(n, lang="sv", to="ordinal")
    return num2words(n, lang=language) + ending
