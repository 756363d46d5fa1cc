"""English tokens of technical and administrative text, said the way people say them (a fifth review of agent
text found each read wrongly):

* command-line flags and paths: "--force" -> "dash dash force", "the -v flag" -> "the dash v flag",
  "/var/log/syslog" -> "slash var slash log slash syslog" (the slashes were dropped, the dashes unheard);
* Wi-Fi standards and release codes: "802.11ac" -> "eight oh two dot eleven A.C.", "24H2" -> "twenty four H two";
* tax forms, in pairs as they are named: "1099-K" -> "ten ninety nine K", "Form 4868" -> "forty eight sixty
  eight", "1040-SR" -> "ten forty S.R.";
* models: "A380" -> "A three eighty", "737 MAX" -> "seven thirty seven max";
* tire sizes and oil grades: "225/45R17" -> "two twenty five forty five R seventeen", "5W-30" -> "five W
  thirty";
* ratios and race times: "a 25:1 ratio" -> "twenty five to one", "2:58:41" -> "two hours fifty eight minutes
  and forty one seconds";
* a letter grade's minus ("an A-" -> "an Eigh minus"; its plus was already said), a menu path's ">" ("Settings
  > Cellular" -> "Settings, then Cellular"), a team's number ("49ers" -> "forty niners") and rates over a
  period written in letters ("YoY" -> "year over year").
"""

from __future__ import annotations

import re

from .words import _number_words, _spell_letters, cardinal, ordinal, pairs

__all__ = ["RULES"]


def _flag(m: re.Match, lang: str) -> str:
    dashes = "dash dash" if m.group("dd") else "dash"
    word = m.group("flag")
    said = (
        _spell_letters(word) if len(word) <= 2 else word.replace("-", " dash ").replace("_", " underscore ")
    )
    return f"{dashes} {said}"


def _path(m: re.Match, lang: str) -> str:
    parts = m.group(0).split("/")
    home = "tilde " if parts[0] == "~" else ""
    return home + " ".join(f"slash {p}" if p else "slash" for p in parts[1:]).strip()


def _wifi(m: re.Match, lang: str) -> str:
    letters = f" {_spell_letters(m.group('std'))}" if m.group("std") else ""
    return f"eight oh two dot {cardinal(int(m.group('sub')), lang)}{letters}"


def _release(m: re.Match, lang: str) -> str:
    return f"{cardinal(int(m.group(1)), lang)} H {cardinal(int(m.group(2)), lang)}"


# The forms said by number (IRS; "W-2" and "I-9" are a letter and a number and read so already).
_FORMS = r"1040|1041|1042|1065|1095|1098|1099|1120|1116|2441|4868|5500|8812|8863|8889|8962|940|941|944|990"


def _tax_form(m: re.Match, lang: str) -> str:
    g = m.groupdict()
    suffix, plural = g["suffix"], g["plural"] or g["plural3"]
    said = pairs(g["form"] or g["form2"] or g["form3"], lang) + (
        f" {_spell_letters(suffix)}" if suffix else ""
    )
    return said + ("s" if plural else "")


def _airbus(m: re.Match, lang: str) -> str:
    return f"{_spell_letters('A')} {pairs(m.group(1), lang)}"


def _boeing(m: re.Match, lang: str) -> str:
    variant = f" dash {cardinal(int(m.group('variant')), lang)}" if m.group("variant") else ""
    return pairs(m.group("type"), lang) + variant + (" max" if m.group("max") else "")


def _team(m: re.Match, lang: str) -> str:
    words = cardinal(int(m.group(1)), lang)
    return (words[:-1] if words.endswith("e") else words) + "ers"  # "forty niners", "seventy sixers"


def _tire(m: re.Match, lang: str) -> str:
    prefix = f"{_spell_letters(m.group('kind'))} " if m.group("kind") else ""
    width, aspect, rim = m.group("width"), int(m.group("aspect")), int(m.group("rim"))
    return f"{prefix}{pairs(width, lang)} {cardinal(aspect, lang)} {m.group('r')} {cardinal(rim, lang)}"


def _oil(m: re.Match, lang: str) -> str:
    return f"{cardinal(int(m.group(1)), lang)} W {cardinal(int(m.group(2)), lang)}"


def _ratio(m: re.Match, lang: str) -> str | None:
    a, b = m.group("a"), m.group("b")
    if len(b) == 2 and int(a) <= 24:
        return None  # a clock time ("3:15")
    before = m.string[max(0, m.start() - 30) : m.start()].split()
    if before and before[-1][:1].isupper() and before[-1].lower() not in ("a", "the", "an", "ratio"):
        return None  # a chapter and verse ("Psalm 23:1")
    return f"{cardinal(int(a), lang)} to {cardinal(int(b), lang)}"


def _span(n: int, unit: str, lang: str) -> str:
    return f"{cardinal(n, lang)} {unit}{'' if n == 1 else 's'}"


def _race_time(m: re.Match, lang: str) -> str:
    h, mi, s = (int(g) for g in m.groups())
    parts = [_span(n, unit, lang) for n, unit in ((h, "hour"), (mi, "minute"), (s, "second")) if n]
    if not parts:
        return cardinal(0, lang)
    return parts[0] if len(parts) == 1 else " ".join(parts[:-1]) + " and " + parts[-1]


# Words after which a capital and "-" are a grade ("an A-", "got a B-"): elsewhere the dash is a pause or a code's.
_GRADE_BEFORE = frozenset(
    "a an got get gets earned earn earns received receive grade grades of with and or".split()
)


def _grade_minus(m: re.Match, lang: str) -> str | None:
    before = m.string[max(0, m.start() - 20) : m.start()].split()
    if not before or before[-1].lower().strip(",") not in _GRADE_BEFORE:
        return None
    return f"{_spell_letters(m.group(1))} minus"


# Words before a batting average, which is said in pairs: "batting .312" -> "three twelve".
_AVERAGE_WORDS = r"(?:batting|hitting|hitter|average|avg|slugging|on-base|OBP|OPS|fielding)"
_AVERAGE_CUE = re.compile(rf"\b{_AVERAGE_WORDS}\b(?:\s+\w+){{0,2}}\W*$", re.I)
_AVERAGE_AFTER = re.compile(rf"\s+{_AVERAGE_WORDS}\b", re.I)


def _bare_decimal(m: re.Match, lang: str) -> str:
    """A decimal written without its zero: ".5" -> "point five", ".75" -> "point seven five" (the dot was a
    sentence's end and the rest a cardinal: "batting. three hundred and twelve")."""
    places = m.group(1)
    if len(places) == 3 and (
        _AVERAGE_CUE.search(m.string[max(0, m.start() - 40) : m.start()])
        or _AVERAGE_AFTER.match(m.string, m.end())
    ):
        return pairs(places, lang)
    return "point " + " ".join(cardinal(int(d), lang) for d in places)


# Words before "5a-6a" that make it apartments or rooms, not hours.
_UNIT_BEFORE = frozenset(
    "apt apts apartment apartments unit units suite suites room rooms no # lot lots".split()
)


def _shift_hours(m: re.Match, lang: str) -> str:
    """A span of hours written short, as rosters and opening hours do: "7a-3p" -> "seven a.m. to three p.m."
    (espeak-ng read the "a" as the letter and the "p" as pence). Only a span: "Apt 5a" is no time."""
    from .scan import normalize  # here, not at the top: the scan imports the rules, which import this

    before = m.string[max(0, m.start() - 12) : m.start()].split()
    if before and before[-1].lower().rstrip(".") in _UNIT_BEFORE:
        return None  # "Apt 5a-6a", "Rooms 2a-4a"
    g = m.groupdict()
    ends = [f"{g[f'h{i}']}{':' + g[f'm{i}'] if g[f'm{i}'] else ''}{g[f'a{i}'].lower()}m" for i in (1, 2)]
    return normalize(f"{ends[0]}-{ends[1]}", lang)


def _scientific(m: re.Match, lang: str) -> str:
    """A number in scientific notation: "6.02e23" -> "six point zero two times ten to the twenty third",
    "3e-5" -> "three times ten to the minus fifth" (it was "e twenty three", or the sign a pause)."""
    sign = "minus " if (m.group("sign") or m.group("signed")) in ("-", "\u2212") else ""
    mantissa = _number_words(m.group("mantissa") or m.group("whole"), lang)
    return f"{mantissa} times ten to the {sign}{ordinal(int(m.group('exp')), lang)}"


_HALF_OF = {"tsp": "teaspoon", "tbsp": "tablespoon", "lb": "pound", "oz": "ounce", "hr": "hour"}
# Written forms said as words: rates over a period, and names whose letters and digits are a word.
_SAID_AS = {
    "YoY": "year over year", "MoM": "month over month", "QoQ": "quarter over quarter", "eSIM": "e sim",
    "RAV4": "rav four",
}  # fmt: skip


# (name, pattern, handler): tried before the general rules (`rules._rules`, English only).
RULES = (
    ("cli_flag", r"(?<![\w-])(?P<dd>--)(?P<flag>[a-zA-Z][\w-]*)(?<!-)", _flag),
    (
        "cli_flag",
        r"(?<![\w-])(?P<dd>)-(?P<flag>[a-zA-Z]{1,2})(?=\s+(?:flag|option|switch|parameter|argument)s?\b)",
        _flag,
    ),
    ("path", r"(?<![\w.~/:@-])~?(?:/[\w.-]+){2,}/?(?![\w/])", _path),
    ("wifi", r"\b802\.(?P<sub>\d{1,2})(?P<std>[a-z]{1,2})?\b", _wifi),
    ("release", r"\b([12]\d)H([12])\b", _release),
    (
        "tax_form",
        rf"(?:(?<=\bForm )|(?<=\bForms )|(?<=\bform )|(?<=\bforms ))(?P<form>\d{{3,4}})(?![\w-])"
        rf"|(?<![\w.,-])(?P<form2>{_FORMS})-(?P<suffix>[A-Z]{{1,4}})(?P<plural>s)?(?![\w-])"
        rf"|(?<![\w.,-])(?P<form3>{_FORMS})(?P<plural3>s)(?![\w-])",
        _tax_form,
    ),
    ("airbus", r"\bA(3[1-8]\d)(?=neo\b|\b)", _airbus),
    (
        "boeing",
        r"(?<![\w.,-])(?P<type>7[0-8]7)(?=(?:-\d{1,3})?\s?(?:MAX|Dreamliner|jets?|aircraft|planes?|airliners?)\b"
        r"|-\d{1,3}\b)(?:-(?P<variant>\d{1,3})\b)?(?:\s(?P<max>MAX)\b)?",
        _boeing,
    ),
    (
        "tire",
        r"(?<![\w/.])(?P<kind>P|LT)?(?P<width>\d{3})/(?P<aspect>\d{2})(?P<r>Z?R)(?P<rim>\d{2})(?![\w/])",
        _tire,
    ),
    ("oil", r"(?<![\w.-])(\d{1,2})W-(\d{2})(?![\w-])", _oil),
    (
        "race_time",
        r"(?<![\w:.,])(\d{1,2}):([0-5]\d):([0-5]\d)(?![\d:]|[.,]\d|\s?[aApP]\.?[mM]\b)",
        _race_time,
    ),
    ("ratio", r"(?<![\w:.,])(?P<a>\d{1,3}):(?P<b>\d{1,2})(?![\d:]|[.,]\d)", _ratio),
    ("grade_minus", r"(?<![\w-])([A-DF])-(?=[\s,.;!?)]|$)", _grade_minus),
    ("menu_path", r"(?<=[A-Za-z]) > (?=[A-Z])", lambda m, lg: ", then "),
    ("team", r"(?<![\w.])(\d{2})ers\b", _team),
    (
        "shift_hours",
        r"(?<![\w.:,])(?P<h1>1[0-2]|0?[1-9])(?::(?P<m1>[0-5]\d))?(?P<a1>[aApP])\s?[-–]\s?"
        r"(?P<h2>1[0-2]|0?[1-9])(?::(?P<m2>[0-5]\d))?(?P<a2>[aApP])(?!\w|\.\w)",
        _shift_hours,
    ),
    # a decimal mantissa or a signed power makes it notation ("2e10" alone may be a code)
    (
        "scientific",
        r"(?<![\w.,])(?:(?P<mantissa>\d+\.\d+)[eE](?P<sign>[-+\u2212]?)|(?P<whole>\d{1,3})[eE](?P<signed>[-+\u2212]))"
        r"(?P<exp>\d{1,3})(?!\w|[.,]\d)",
        _scientific,
    ),
    ("bare_decimal", r"(?<![\w.,/\\$€£¥)-])\.(\d{1,6})(?!\w|[.,]\d)", _bare_decimal),
    ("said_as", rf"\b(?:{'|'.join(_SAID_AS)})\b", lambda m, lg: _SAID_AS[m.group(0)]),
    # half of one measure: "½ cup" -> "half a cup" ("½ price" is "half price": the symbol's word)
    (
        "half_a",
        r"(?<![\d\w])½\s*(?:(?P<short>tsp|tbsp|lb|oz|hr)\.?|(?=(?:cup|teaspoon|tablespoon|pound|mile|hour|inch|ounce|"
        r"liter|litre|gallon|dozen|day|year|page|tablet|pill)\b))",
        lambda m, lg: "half a " + _HALF_OF.get(m.group("short"), ""),
    ),
    ("by_marks", r"(?<=\d['\"’”]) ?[x×] ?(?=\d)", lambda m, lg: " by "),  # "5' x 8'": the x between two sizes
    (
        "plus_minus",
        r"\+/-|\+-(?=\s?\d)",
        lambda m, lg: " plus or minus ",
    ),  # "+/- 5%" was "plus - five percent"
)
