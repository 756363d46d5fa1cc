"""Ordinals in the form their phrase gives them: German "am dritten Mai", Spanish "primera", Russian
"первого мая" / "в две тысячи двадцатом году", Polish "trzeciego maja" / "o siedemnastej", and the day of a
date written with an ordinal dot ("3. května" -> "třetího května", "3. toukokuuta" -> "kolmas").

num2words gives the nominative (masculine) ordinal; the case comes from the words before it, which the
normalizers pass in (`agreement.previous_words`). Cardinals that agree with their noun are in `agreement`.
"""

from __future__ import annotations

from num2words import num2words

from .agreement import RUSSIAN_DATIVE_PREPOSITIONS

__all__ = [
    "DAY_ORDINAL_LANGUAGES",
    "day_ordinal",
    "german_ordinal",
    "num2words_ordinal",
    "polish_ordinal",
    "ukrainian_ordinal",
    "romance_feminine_ordinal",
    "russian_date",
    "russian_year",
]

# German: after these words an ordinal is dative or accusative ("am dritten Mai", "für den ersten Platz").
_DE_EN_ENDING = {"am", "im", "vom", "zum", "beim", "dem", "den", "des", "einem", "einen", "seit", "ab", "bis"}
_DE_E_ENDING = {"der", "die", "das"}
_DE_PREPOSITIONS = frozenset(
    "an in auf bei mit nach von zu aus vor über unter hinter neben zwischen seit während wegen".split()
)


def german_ordinal(words: str, before: list[str], date: bool = False) -> str:
    """num2words' "dritte" with the ending its phrase takes: "dritten" after "am"/"dem"/"zum" or a
    preposition and its article, "dritte" after "der"/"die"/"das", else "dritter" in a date ("Montag, 3. Mai")
    and "dritte" elsewhere."""
    prev = before[-1] if before else ""
    if prev in _DE_EN_ENDING or (prev in _DE_E_ENDING and len(before) > 1 and before[-2] in _DE_PREPOSITIONS):
        return words + "n"
    if prev in _DE_E_ENDING:
        return words
    return words + "r" if date else words


def romance_feminine_ordinal(words: str, language: str = "es") -> str:
    """ "primero" / "vigésimo cuarto" / "primeiro" -> "primera" / "vigésima cuarta" / "primeira"; Catalan
    "primer" / "segon" / "cinquè" -> "primera" / "segona" / "cinquena"."""
    if language == "ca":
        return " ".join(w[:-1] + "ena" if w.endswith("è") else w + "a" for w in words.split())
    return " ".join(w[:-1] + "a" if w.endswith("o") else w for w in words.split())


# Russian dates and years: ordinals in the case their phrase takes.
_RU_NOMINATIVE_CUES = {"сегодня", "завтра", "вчера", "послезавтра", "позавчера"}
_RU_YEAR_FORMS = {"год": "nominative", "году": "prepositional", "года": "genitive", "годом": "instrumental"}


def _ru_ordinal(n: int, case: str, gender: str) -> str:
    return " ".join(num2words(n, lang="ru", to="ordinal", case=case, gender=gender).replace(",", "").split())


def russian_date(day: int, before: list[str]) -> str:
    """The day of "1 мая": "первое" (nominative, at the start or after "сегодня"), "первому" after "к"/"по",
    else "первого" (genitive: "встреча первого мая", "с первого мая")."""
    prev = before[-1] if before else ""
    if prev in RUSSIAN_DATIVE_PREPOSITIONS:
        case = "dative"
    elif not before or prev in _RU_NOMINATIVE_CUES:
        case = "nominative"
    else:
        case = "genitive"
    return _ru_ordinal(day, case, "n")


def russian_year(n: int, year_word: str, before: list[str]) -> tuple[str, str]:
    """("две тысячи двадцатом", "году") for 2020 before "году"; "г." takes the case of the preposition."""
    w = year_word.lower().rstrip(".")
    if w == "г":
        prev = before[-1] if before else ""
        w = "году" if prev in ("в", "во") else "года"
    case = _RU_YEAR_FORMS.get(w, "genitive")
    return _ru_ordinal(n, case, "m"), w


# Polish: num2words gives the nominative masculine ordinal ("dwa tysiące dwudziesty czwarty"); its
# adjectival words (-y, -i) take the case ending, the cardinal part before them stays.
_PL_ENDINGS = {
    ("genitive", "m"): ("ego", "ego"),  # "trzeciego maja", "dwudziestego czwartego roku"
    ("locative", "m"): ("ym", "m"),  # "w dwa tysiące dwudziestym czwartym roku"
    ("genitive", "f"): ("ej", "ej"),  # "o siedemnastej", "do drugiej" (locative and dative alike)
    ("nominative", "f"): ("a", "a"),  # "jest siedemnasta"
}


def polish_ordinal(n: int, case: str, gender: str) -> str:
    """Polish ordinal of `n` in `case` ("genitive", "locative", "nominative") and `gender` ("m", "f")."""
    y_end, i_end = _PL_ENDINGS[(case, gender)]
    out = []
    for w in num2words(n, lang="pl", to="ordinal").split():
        if w.endswith("y"):
            w = w[:-1] + y_end
        elif w.endswith(("gi", "ki")) and i_end == "a":
            w = w[:-1] + "a"  # "druga", not "drugia"
        elif w.endswith("i"):
            w = w + i_end
        out.append(w)
    return " ".join(out)


# Ukrainian: num2words gives the nominative masculine ordinal ("дві тисячі двадцять четвертий"); its last,
# adjectival word takes the case ending (hard stems -ий, soft -ій: "четвертого", "третього"), the cardinal
# words before it stay.
_UK_ENDINGS = {
    ("genitive", "m"): ("ого", "ього"),  # "третього грудня", "дві тисячі двадцять четвертого року"
    ("locative", "m"): ("ому", "ьому"),  # "у дві тисячі двадцять четвертому році"
    ("nominative", "n"): ("е", "є"),  # "сьогодні третє грудня"
    ("genitive", "f"): ("ої", "ьої"),  # "з дев'ятої до вісімнадцятої" (hours)
    ("locative", "f"): ("ій", "ій"),  # "о десятій", "о третій"
    ("nominative", "f"): ("а", "я"),  # "зараз десята", "третя"
    ("accusative", "f"): ("у", "ю"),  # "на десяту", "на третю"
    ("nominative", "m"): ("ий", "ій"),  # "дві тисячі двадцять четвертий рік"
    ("dative", "m"): ("ому", "ьому"),  # "до 5-му" (`slavic_endings`: a hyphen's ending picks the form)
    ("instrumental", "m"): ("им", "ім"),
    ("instrumental", "f"): ("ою", "ьою"),
    ("nominative", "p"): ("і", "і"),
    ("genitive", "p"): ("их", "іх"),  # "у 90-х": "дев'яностих"
    ("instrumental", "p"): ("ими", "іми"),
}


def ukrainian_ordinal(n: int, case: str, gender: str) -> str:
    """Ukrainian ordinal of `n` in `case` (`_UK_ENDINGS`: "nominative", "genitive", "locative"...) and `gender`
    ("m", "f", "n", or "p" for the plural)."""
    if n <= 0:
        return num2words(n, lang="uk")  # num2words has no ordinal zero: "нуль"
    hard, soft = _UK_ENDINGS[(case, gender)]
    *head, last = num2words(n, lang="uk", to="ordinal").split()
    if last.endswith("ій"):
        last = last[:-2] + soft
    elif last.endswith("ий"):
        last = last[:-2] + hard
    return " ".join([*head, last])


# The day of a date written with an ordinal dot ("3. května", "3. toukokuuta") is an ordinal; Czech, Slovak,
# Slovenian, Serbian and Croatian say it in the genitive ("třetího května", "tretieho mája", "tretjega
# maja", "trećeg maja"). num2words has no Czech, Slovak, Serbian or Croatian ordinals, so the 1st to the
# 19th and the tens are listed; a compound is the tens and the unit ("dvacátý první"). Serbian and Croatian
# ordinals, to 2999, are `south_slavic_ordinal_words`.
_DAY_ORDINALS = {
    "cs": (
        "první druhý třetí čtvrtý pátý šestý sedmý osmý devátý desátý jedenáctý dvanáctý třináctý čtrnáctý "
        "patnáctý šestnáctý sedmnáctý osmnáctý devatenáctý".split(),
        {20: "dvacátý", 30: "třicátý"},
    ),
    "sk": (
        "prvý druhý tretí štvrtý piaty šiesty siedmy ôsmy deviaty desiaty jedenásty dvanásty trinásty štrnásty "
        "pätnásty šestnásty sedemnásty osemnásty devätnásty".split(),
        {20: "dvadsiaty", 30: "tridsiaty"},
    ),
    # Icelandic days in the accusative, as a date is said ("þann þriðja maí"); num2words has no Icelandic ordinals
    "is": (
        "fyrsta annan þriðja fjórða fimmta sjötta sjöunda áttunda níunda tíunda ellefta tólfta þrettánda "
        "fjórtánda fimmtánda sextánda sautjánda átjánda nítjánda".split(),
        {20: "tuttugasta", 30: "þrítugasta"},
    ),
}
_TENS_IN_COMPOUNDS = {"is": {20: "tuttugasta og", 30: "þrítugasta og"}}
# (ending, genitive ending) of the masculine ordinal, tried in order.
_GENITIVE_ORDINAL = {
    "cs": (("ý", "ého"), ("í", "ího")),
    "sk": (("ý", "ého"), ("y", "eho"), ("í", "ieho")),
    "sl": (("i", "ega"),),
    "sr": (("ći", "ćeg"), ("či", "čeg"), ("ji", "jeg"), ("ši", "šeg"), ("ži", "žeg"), ("i", "og")),
}
_GENITIVE_ORDINAL["hr"] = _GENITIVE_ORDINAL["sr"]
DAY_ORDINAL_LANGUAGES = frozenset(("cs", "sk", "sl", "sr", "hr", "fi", "da", "no", "is"))


# An ordinal written with a dot before its noun, "ve 2. patře", "na 2. piętrze", "na 2. katu": the case the
# preposition before it takes (locative or genitive; else nominative), masculine or neuter (floors, rooms, days,
# rounds), feminine where a nominative noun ends in -a ("3. třída"). Endings replace the nominative masculine's
# (hard, soft): Czech "druhý"/"třetí" -> "druhém"/"třetím"; South Slavic soft stems end in ć, č, j, š, ž.
SLAVIC_CASE_BEFORE = {
    "cs": {"locative": frozenset("v ve na o po při".split()),
           "genitive": frozenset("do od z ze u kolem během podle vedle místo".split())},
    "pl": {"locative": frozenset("w we na o po przy".split()),
           "genitive": frozenset("do od z ze u bez dla obok podczas według".split())},
    "sl": {"locative": frozenset("v na o po pri".split()),
           "genitive": frozenset("do od iz z s brez zraven".split())},
    "hr": {"locative": frozenset("u na o po pri".split()),
           "genitive": frozenset("do od iz kod bez oko blizu poslije".split())},
    "sr": {"locative": frozenset("u na o po pri".split()),
           "genitive": frozenset("do od iz kod bez oko blizu posle".split())},
}  # fmt: skip
# (case, gender) -> ((nominative ending, new ending), ...) tried in order; the genitive's are `_GENITIVE_ORDINAL`
_SLAVIC_ENDINGS = {
    "cs": {("locative", "m"): (("ý", "ém"), ("í", "ím")), ("nominative", "f"): (("ý", "á"),)},
    "sl": {("locative", "m"): (("i", "em"),), ("nominative", "f"): (("i", "a"),)},
    "hr": {("locative", "m"): (("ći", "ćem"), ("či", "čem"), ("ji", "jem"), ("ši", "šem"), ("ži", "žem"), ("i", "om")),
           ("nominative", "f"): (("i", "a"),),
           ("nominative", "n"): (("ći", "će"), ("či", "če"), ("ji", "je"), ("ši", "še"), ("ži", "že"), ("i", "o")),
           ("accusative", "f"): (("i", "u"),),
           ("locative", "f"): (("i", "oj"),),
           ("genitive", "m"): _GENITIVE_ORDINAL["hr"],
           ("genitive", "f"): (("i", "e"),)},
}  # fmt: skip
_SLAVIC_ENDINGS["sr"] = _SLAVIC_ENDINGS["hr"]


def _with_endings(words: list[str], endings) -> str:
    """The ordinal's words, each with the first of `endings` ((nominative ending, new ending), ...) it has replaced."""
    out = []
    for w in words:
        for ending, new in endings:
            if w.endswith(ending):
                w = w[: -len(ending)] + new
                break
        out.append(w)
    return " ".join(out)


def slavic_ordinal(n: int, language: str, before: list[str], noun: str) -> str | None:
    """ "ve 2. patře" -> "druhém", "na 2. piętrze" -> "drugim", "3. třída" -> "třetí"; None past the tables
    (Czech ordinals come from `_DAY_ORDINALS`, 1-31, Croatian and Serbian from `south_slavic_ordinal_words`,
    1-2999: num2words has none)."""
    cues = SLAVIC_CASE_BEFORE[language]
    prev = before[-1] if before else ""
    case = next((c for c, words in cues.items() if prev in words), "nominative")
    if language in ("hr", "sr"):
        words = south_slavic_ordinal_words(n, language)
        if words is None:
            return None
        return _with_endings(words, _SLAVIC_ENDINGS[language].get(_south_slavic_form(case, noun), ()))
    gender = "f" if case == "nominative" and noun.endswith("a") else "m"
    if language == "pl":
        return (
            polish_ordinal(n, case, gender)
            if (case, gender) != ("nominative", "m")
            else num2words(n, lang="pl", to="ordinal")
        )
    if language in _DAY_ORDINALS and not 1 <= n <= 31:
        return None
    endings = (
        _GENITIVE_ORDINAL[language]
        if case == "genitive"
        else _SLAVIC_ENDINGS[language].get((case, gender), ())
    )
    return _with_endings(_ordinal_words(n, language), endings)


def _south_slavic_form(case: str, noun: str) -> tuple[str, str]:
    """(case, gender) of a Croatian or Serbian ordinal, from the case its preposition takes and its noun's ending:
    "3. stranica" (f), "2. mjesto" (n), "100. obljetnicu" (accusative f), "na 3. stranici" (locative f), "do 3.
    godine" (genitive f), "na 3. kat" (accusative m, the nominative's form). A noun in -u after "na"/"u" stays
    the masculine locative ("na 3. katu"): the feminine accusative ("na 3. stranicu") ends the same way."""
    if case == "genitive":
        return case, "f" if noun.endswith("e") else "m"
    if noun.endswith("a"):
        return "nominative", "f"
    if noun.endswith(("o", "e")):
        return "nominative", "n"
    if noun.endswith("u"):
        return ("locative", "m") if case == "locative" else ("accusative", "f")
    if noun.endswith("i") and case == "locative":
        return "locative", "f"
    return "nominative", "m"


# num2words misspells these ordinals (num2words 0.5): Norwegian 13th, Swedish 20th, Danish 30th and 31st.
_NUM2WORDS_FIXES = {
    "no": {"trettførste": "trettende"},
    "sv": {"tjugode": "tjugonde"},
    "da": {"divete": "divte"},
}


def num2words_ordinal(n: int, language: str) -> str:
    """num2words' ordinal of `n`, with its known misspellings corrected."""
    words = num2words(n, lang=language, to="ordinal")
    for wrong, right in _NUM2WORDS_FIXES.get(language, {}).items():
        words = words.replace(wrong, right)
    return words


def _ordinal_words(n: int, language: str) -> list[str]:
    if language in _YEAR_THOUSANDS:
        return south_slavic_ordinal_words(n, language)
    if language not in _DAY_ORDINALS:
        return num2words_ordinal(n, language).split()
    units, tens = _DAY_ORDINALS[language]
    if n < 20:
        return [units[n - 1]]
    ten, unit = n - n % 10, n % 10
    if not unit:
        return [tens[ten]]
    return [_TENS_IN_COMPOUNDS.get(language, tens).get(ten, tens[ten]), units[unit - 1]]


# A Serbian or Croatian year in a date is an ordinal in the genitive feminine, agreeing with the "godine" said or
# understood after it ("12. marta 2025." -> "dvanaestog marta dve hiljade dvadeset pete"): the thousands and the
# hundreds cardinal, the last of the number an ordinal ("hiljadu devetsto devedeset devete", "dve hiljade
# pete"); a round hundred or thousand is the ordinal itself ("dvehiljadite"). num2words has no Croatian, and no
# Serbian ordinals. Years 1000-2999.
_YEAR_THOUSANDS = {
    "sr": ("hiljadu", "dve hiljade", "dvehiljad"),
    "hr": ("tisuću", "dvije tisuće", "dvijetisuć"),
}
_SOUTH_SLAVIC_UNITS = (
    "prvi drugi treći četvrti peti šesti sedmi osmi deveti deseti jedanaesti dvanaesti trinaesti četrnaesti "
    "petnaesti šesnaesti sedamnaesti osamnaesti devetnaesti".split()
)
_YEAR_HUNDREDS = {
    "sr": "sto dvesta trista četiristo petsto šeststo sedamsto osamsto devetsto".split(),
    "hr": "sto dvjesto tristo četiristo petsto šesto sedamsto osamsto devetsto".split(),
}
# the tens, cardinal; their ordinal adds "-i", its genitive feminine "-e" ("dvadesete")
_TENS = {20: "dvadeset", 30: "trideset", 40: "četrdeset", 50: "pedeset", 60: "šezdeset", 70: "sedamdeset",
         80: "osamdeset", 90: "devedeset"}  # fmt: skip
YEAR_ORDINAL_LANGUAGES = frozenset(_YEAR_THOUSANDS)


# The endings of a year's last ordinal: the genitive feminine ("do 2025." -> "... dvadeset pete") and the
# locative after "u" or before "godini" ("u 2025. godini" -> "... dvadeset petoj").
YEAR_CASE_ENDINGS = {"genitive": "e", "locative": "oj"}


def south_slavic_ordinal_words(n: int, language: str) -> list[str] | None:
    """The nominative masculine ordinal of 1-2999 in Serbian or Croatian, as words: the thousands and the hundreds
    cardinal, the last of the number an ordinal ("dvije tisuće dvadeset četvrti", "sto peti"); a round hundred or
    thousand is the ordinal itself ("stoti", "dvijetisućiti"). None outside 1-2999."""
    if language not in _YEAR_THOUSANDS or not 1 <= n <= 2999:
        return None
    one, two, round_stem = _YEAR_THOUSANDS[language]
    thousands, hundreds, rest = n // 1000, n // 100 % 10, n % 100
    if thousands and not hundreds and not rest:  # "dvijetisućiti", "hiljaditi"
        return [f"{round_stem if thousands == 2 else one[:-1]}iti"]
    words = [one if thousands == 1 else two] if thousands else []
    if hundreds:
        words.append(_YEAR_HUNDREDS[language][hundreds - 1] + ("" if rest else "ti"))
    if rest:
        ten, unit = rest - rest % 10, rest % 10
        if rest < 20:
            words.append(_SOUTH_SLAVIC_UNITS[rest - 1])
        elif not unit:
            words.append(_TENS[ten] + "i")
        else:
            words += [_TENS[ten], _SOUTH_SLAVIC_UNITS[unit - 1]]
    return words


def year_ordinal(year: int, language: str, case: str = "genitive") -> str | None:
    """ "dve hiljade dvadeset pete" (sr 2025), "tisuću devetsto devedeset devete" (hr 1999), in the locative
    "dve hiljade dvadeset petoj"; None outside 1000-2999 or `YEAR_ORDINAL_LANGUAGES`."""
    words = south_slavic_ordinal_words(year, language) if 1000 <= year else None
    if words is None:
        return None
    return " ".join([*words[:-1], words[-1][:-1] + YEAR_CASE_ENDINGS[case]])


def day_ordinal(day: int, language: str, genitive: bool = True) -> str:
    """The day of a date, 1-31, as it is said before the month: "třetího" (cs, before a month in the
    genitive: "3. května"), "třetí" (`genitive=False`, before a month in the nominative: "3. květen"),
    "kolmas" (fi), "tredje" (da, no); see `DAY_ORDINAL_LANGUAGES`."""
    if not 1 <= day <= 31 or language not in DAY_ORDINAL_LANGUAGES:
        raise ValueError(f"no day ordinal for {day!r} in {language!r}")
    return _with_endings(
        _ordinal_words(day, language), _GENITIVE_ORDINAL.get(language, ()) if genitive else ()
    )
