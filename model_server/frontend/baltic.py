"""Ordinals of the Baltic states' languages, Latvian, Lithuanian and Estonian, in the case and gender a date or a
noun gives them. num2words 0.5.14 has
cardinals in both languages but no ordinals, and their dates are ordinals throughout: "2024. gada 5. martā" is
"divi tūkstoši divdesmit ceturtā gada piektajā martā", "2024 m. kovo 5 d." is "du tūkstančiai dvidešimt
ketvirtųjų metų kovo penktą dieną" (espeak-ng read cardinals, the dots as full stops, and "m." as metres).

As in Slavic ordinals, only the last word of a compound changes ("divdesmit ceturtais"), and a round hundred or
thousand joins its count ("divtūkstošais", "dutūkstantieji")."""

from __future__ import annotations

from num2words import num2words

__all__ = [
    "LATVIAN_CASES",
    "LITHUANIAN_FORMS",
    "latvian_ordinal",
    "lithuanian_ordinal",
    "lithuanian_with_ending",
]

# The ordinal stem of a cardinal's last word.
_LV_STEMS = {
    "viens": "pirm", "divi": "otr", "trīs": "treš", "četri": "ceturt", "pieci": "piekt", "seši": "sest",
    "septiņi": "septīt", "astoņi": "astot", "deviņi": "devīt", "simts": "simt", "tūkstotis": "tūkstoš",
}  # fmt: skip
# A count joined to a round hundred or thousand: "divi simti" -> "divsimt-", "divi tūkstoši" -> "divtūkstoš-".
_LV_JOINED = {"divi": "div", "trīs": "trīs", "četri": "četr", "pieci": "piec", "seši": "seš", "septiņi": "septiņ",
              "astoņi": "astoņ", "deviņi": "deviņ"}  # fmt: skip
# Definite endings (masculine, feminine) by case: "piektais marts", "piektā gada", "piektajā martā".
LATVIAN_CASES = {
    "nominative": ("ais", "ā"),
    "genitive": ("ā", "ās"),
    "dative": ("ajam", "ajai"),
    "accusative": ("o", "o"),
    "locative": ("ajā", "ajā"),
}

# A count joined to a round hundred: "du šimtai" -> "dušimt-" ("dušimtasis").
_LT_JOINED = {"du": "du", "trys": "tri", "keturi": "keturi", "penki": "penki", "šeši": "šeši", "septyni": "septyni",
              "aštuoni": "aštuoni", "devyni": "devyni"}  # fmt: skip
_LT_STEMS = {
    "vienas": "pirm", "du": "antr", "trys": "treči", "keturi": "ketvirt", "penki": "penkt", "šeši": "šešt",
    "septyni": "septint", "aštuoni": "aštunt", "devyni": "devint", "šimtas": "šimt", "tūkstantis": "tūkstant",
}  # fmt: skip
# Endings after the stem: "penktasis", "penktųjų metų", "penktaisiais metais", "penktieji metai", "penktuosius
# metus", "penktoji diena", "penktosios dienos", "penktą dieną".
LITHUANIAN_FORMS = {
    "nominative": "asis",
    "genitive_plural": "ųjų",
    "locative_plural": "aisiais",
    "nominative_plural": "ieji",
    "accusative_plural": "uosius",
    "feminine": "oji",
    "feminine_genitive": "osios",
    "feminine_accusative": "ą",
    "locative": "ame",
    "feminine_locative": "oje",
}


def latvian_ordinal(n: int, case: str = "nominative", feminine: bool = False) -> str:
    """ "divdesmit ceturtais" (24), "divtūkstošā" (2000, genitive), "tūkstoš deviņsimtajā" (1900, locative)."""
    words = num2words(n, lang="lv").split()
    last = words.pop()
    if last in ("simti", "tūkstoši") and words and words[-1] in _LV_JOINED:
        stem = _LV_JOINED[words.pop()] + ("simt" if last == "simti" else "tūkstoš")
    else:
        stem = _LV_STEMS.get(last, last)  # the tens and teens ("desmit", "divdesmit") are their own stem
    head = ["tūkstoš" if w == "tūkstotis" else w for w in words]  # "tūkstoš deviņsimtais": the spoken form
    return " ".join([*head, stem + LATVIAN_CASES[case][feminine]])


def lithuanian_ordinal(n: int, form: str = "nominative") -> str:
    """ "dvidešimt ketvirtųjų" (24, genitive plural), "dutūkstantieji" (2000), "trečią" (3, feminine
    accusative)."""
    words = num2words(n, lang="lt").split()
    if (
        words[0] == "vienas" and len(words) > 1
    ):  # "tūkstantis devyni šimtai": a hundred or thousand has no "one"
        words.pop(0)
    last = words.pop()
    if last == "tūkstančiai" and words == ["du"]:
        stem = "dutūkstant"
        words = []
    elif last == "šimtai" and words and words[-1] in _LT_JOINED:
        stem = _LT_JOINED[words.pop()] + "šimt"
    else:
        stem = _LT_STEMS.get(last, last[:-1] + "t" if last.endswith("lika") else last)  # "vienuolikt"
    ending = LITHUANIAN_FORMS[form]
    if stem == "treči" and ending == "ieji":
        stem = "tret"  # "tretieji"
    return " ".join([*words, stem + ending])


def lithuanian_with_ending(n: int, ending: str) -> str:
    """An ordinal written with its ending after a hyphen: "2-ą" -> "antrą", "5-oji" -> "penktoji", "3-ioje" ->
    "trečioje", "2000-ieji" -> "dutūkstantieji". "-ių" is the one cardinal ending ("5-ių" -> "penkių")."""
    if ending == "ių":
        return num2words(n, lang="lt")[:-1] + "ių"  # "penki" -> "penkių"
    words = lithuanian_ordinal(n, "nominative")
    stem = words[: -len(LITHUANIAN_FORMS["nominative"])]
    if stem.endswith("treči") and ending.startswith("ie"):
        return stem[:-2] + "t" + ending  # "tretieji"
    if stem.endswith("i") and ending.startswith("i"):
        stem = stem[:-1]  # "3-ioje": the ending repeats the stem's "i"
    return stem + ending


# Estonian days, 1-31 (num2words has no Estonian): the ordinal's nominative ("viies märts") and genitive, which
# every other case builds on with the noun's own ending ("viiendal märtsil", "viiendast märtsist"); a noun in the
# terminative, essive, abessive or comitative takes the bare genitive ("viienda märtsini").
_ET_NOMINATIVE = "esimene teine kolmas neljas viies kuues seitsmes kaheksas üheksas kümnes".split()
_ET_GENITIVE = (
    "esimese teise kolmanda neljanda viienda kuuenda seitsmenda kaheksanda üheksanda kümnenda".split()
)
_ET_COUNT = (
    "ühe kahe kolme nelja viie kuue seitsme kaheksa üheksa".split()
)  # "ühe-teistkümnes", "kahe-kümnes"
_ET_GENITIVE_ONLY = ("ni", "na", "ta", "ga")
# The months: nominative and genitive ("märts", "märtsi"); a case ending follows the genitive ("märtsil").
ESTONIAN_MONTHS = tuple(
    zip(
        "jaanuar veebruar märts aprill mai juuni juuli august september oktoober november detsember".split(),
        "jaanuari veebruari märtsi aprilli mai juuni juuli augusti septembri oktoobri novembri detsembri".split(),
        strict=True,
    )
)


def _estonian_ordinal(n: int, genitive: bool) -> str:
    ones = _ET_GENITIVE if genitive else _ET_NOMINATIVE
    if n <= 10:
        return ones[n - 1]
    if n < 20:
        return _ET_COUNT[n - 11] + ("teistkümnenda" if genitive else "teistkümnes")
    tens, unit = divmod(n, 10)
    if not unit:
        return _ET_COUNT[tens - 1] + ("kümnenda" if genitive else "kümnes")
    return f"{_ET_COUNT[tens - 1]}kümne {ones[unit - 1]}"


def estonian_day(day: int, month: str) -> str:
    """The day before `month` as written ("5." before "märtsil" -> "viiendal", before "märts" -> "viies")."""
    low = month.lower()
    for nominative, genitive in ESTONIAN_MONTHS:
        if low == nominative and nominative != genitive:
            return _estonian_ordinal(day, genitive=False)
        if low.startswith(genitive):
            ending = low[len(genitive) :]
            if not ending and nominative == genitive:  # "5. mai": the nominative
                return _estonian_ordinal(day, genitive=False)
            said = _estonian_ordinal(day, genitive=True)
            return said if ending in ("", *_ET_GENITIVE_ONLY) else said + ending
    raise ValueError(f"{month!r} is no Estonian month")
