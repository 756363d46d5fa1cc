"""The scan: one left-to-right pass over the text that applies the rule table, and the public entry points."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .ranges import _weekday_dash
from .rules import _master, _scan_rules

LANGUAGES = ("en", "es", "de", "fr")


class NormalizationError(ValueError):
    """The input cannot be normalized (wrong type, unsupported language)."""


@dataclass(frozen=True, slots=True)
class Segment:
    """A piece of the input: `original` as written, `spoken` as words; `rule` names the rule or "text"."""

    original: str
    spoken: str
    rule: str


# Characters kept as punctuation (the frontend turns them into punctuation/pause symbols).
_PUNCT_KEEP = set(".,;:!?'\"()-")


_PRE_NFKC = str.maketrans(
    {
        **{
            c: " "
            for c in "\u00b9\u00b2\u00b3\u2070\u2074\u2075\u2076\u2077\u2078\u2079"
            "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089"
        },
        # trademark and copyright signs are not said (NFKC made "Acme™" "AcmeTM")
        **dict.fromkeys("\u2122\u00ae\u00a9\u2120", ""),
    }
)


# A unit squared or cubed ("45 m²", "3 m³") keeps its power as a digit, which the unit rule reads ("square
# meters"); any other superscript (a footnote's) is dropped.
_SQUARE_OR_CUBE = re.compile(r"(?<=\d)(\s?(?:(?:k|c|m)?m|ft|yd|mi))([²³])(?!\w)")
_VULGAR = re.compile("([\u00bd\u00bc\u00be])")


# A dash joining the ends of a range ("10–20", "9am–5pm", "Mon–Fri") is a range's hyphen, not a pause.
_DIGIT_DASH = re.compile(
    r"(?:(?<=\d)|(?<=\d[aApP][mM])|(?<=\d\s[aApP][mM]))\s?[\u2013\u2012]\s?(?=\d)"  # "10 – 20", "9am – 5pm"
    r"|(?:(?<=[aApP]\.[mM]\.)|(?<=\d[hH]))[\u2013\u2012](?=\d)"  # "9 a.m.–5 p.m.", "9h–17h"
    r"|(?:(?<=\b[nN]oon)|(?<=[mM]idnight))\s?[\u2013\u2012]\s?(?=\d)"  # "noon–1pm"
    r"|(?<=\d[aApP])\s?[\u2013\u2012]\s?(?=\d{1,2}(?::\d\d)?[aApP]\b)"  # "7a–3p"
    r"|(?<=\d)\s?[\u2013\u2012]\s?(?=[$€£¥]\d)"  # "$70,000–$90,000": a range of amounts
    r"|(?<=\d)\s?[\u2013\u2012]\s?(?=[A-Z][a-z]{2,8}\.?\s\d)"  # "Mar. 20–Apr. 7": a range of dates
)


_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2013": ", ",
        "\u2014": ", ",
        "\u2026": "...",
        "\u00a0": " ",
        "\u202f": " ",
        "\u2009": " ",
        "\u00bf": " ",
        "\u00a1": " ",
    }
)


# ASCII fast path of `_speakable`: everything but letters, digits, space and kept punctuation -> space.
_ASCII_DROP = str.maketrans(
    {c: " " for c in map(chr, range(128)) if not (c.isalnum() or c == " " or c in _PUNCT_KEEP)}
)


def _speakable(text: str) -> str:
    """Keep letters of Latin script, digits, whitespace and kept punctuation; skip the rest."""
    if text.isascii():
        return text.translate(_ASCII_DROP)
    out = []
    for ch in text:
        if ch.isspace():
            out.append(" ")
        elif ch in _PUNCT_KEEP or ch.isdecimal():
            out.append(ch)
        elif ch.isalpha():
            out.append(ch if "LATIN" in unicodedata.name(ch, "") else " ")
        elif unicodedata.category(ch) in ("Pd", "Pc"):
            out.append(" ")
        else:
            out.append(" ")
    return "".join(out)


_DIGIT = re.compile(r"\d")


def normalize_segments(text: str, language: str = "en") -> list[Segment]:
    """Split `text` into segments with their spoken form (see module docstring)."""
    if not isinstance(text, str):
        raise NormalizationError(f"text must be str, got {type(text).__name__}")
    if language not in LANGUAGES:
        # The other catalog languages: CLDR/num2words rules in normalize_intl (the one place they join).
        from .. import languages, normalize_intl

        if isinstance(language, str) and language in languages.CATALOG:
            return normalize_intl.normalize_segments(text, language)
        raise NormalizationError(
            f"language {language!r} is not supported; choose one of {sorted(languages.CATALOG)}"
        )
    # Superscripts would become plain digits under NFKC ("km²" -> "km2"): drop them first. NFKC then folds
    # full-width digits and letters, ligatures and the like into what the rules expect.
    if not text.isascii():
        text = _SQUARE_OR_CUBE.sub(lambda m: f"{m.group(1)}{'2' if m.group(2) == '²' else '3'}", text)
        parts = _VULGAR.split(text.translate(_PRE_NFKC))
        # "½" stays a symbol (NFKC would make it "1⁄2"); everything else is folded.
        text = "".join(p if k % 2 else unicodedata.normalize("NFKC", p) for k, p in enumerate(parts))
        text = _DIGIT_DASH.sub("-", text)  # "10–20" is a range, not a pause
        text = _weekday_dash(language).sub(r"\1-", text).translate(_TRANSLATE)  # "Mon–Fri" too
    digits = _DIGIT.search(text) is not None  # a text without one skips the rules that read numbers
    rules = _scan_rules(language, digits)
    master = _master(language, digits)
    segments: list[Segment] = []
    pos = 0
    while pos < len(text):
        m = master.search(text, pos)
        if m is None:
            break
        spoken = None
        rule_name = ""
        for r in rules:
            # Re-run the winning region with each rule in order; a handler may decline (None).
            rm = r.pattern.match(text, m.start())
            if rm is None or rm.end() == rm.start():
                continue
            spoken = r.handler(rm, language)
            if spoken is not None:
                rule_name = r.name
                m_end = rm.end()
                # a short form's period that also ends the text ("per lb.", "1/3 oz."): the stop stays
                if (
                    text[m_end - 1] == "."
                    and not text[m_end:].strip()
                    and not spoken.rstrip().endswith((".", "!", "?"))
                ):
                    spoken += "."
                break
        if spoken is None:
            # Every rule declined (e.g. "13/45" is no date): keep one character as plain text, or the
            # whole word when it starts with a letter ("STOP" is no initialism: it stays one word).
            end = m.start() + 1
            if text[m.start()].isalpha():
                end = re.compile(r"[^\W\d_]*").match(text, end).end()
            _add_text(segments, text[pos:end])
            pos = end
            continue
        _add_text(segments, text[pos : m.start()])
        segments.append(Segment(text[m.start() : m_end], " ".join(spoken.split()), rule_name))
        pos = m_end
    _add_text(segments, text[pos:])
    return segments


def _add_text(segments: list[Segment], chunk: str) -> None:
    if not chunk:
        return
    spoken = " ".join(_speakable(chunk).split())
    if spoken or chunk.strip():
        segments.append(Segment(chunk, spoken, "text"))


def normalize(text: str, language: str = "en") -> str:
    """Spoken form of `text`: numbers, dates, currency, abbreviations... as words; unspeakable skipped."""
    joined = " ".join(s.spoken for s in normalize_segments(text, language) if s.spoken)
    joined = _SPACE_BEFORE_PUNCT.sub(r"\1", joined)
    # "the F.B.I." at the end of a sentence: its last dot is also the full stop, as in writing.
    return _INITIALISM_STOP.sub(r"\1", joined)


_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?])(?=\s|$)")


_INITIALISM_STOP = re.compile(r"(\b(?:[A-Za-z]\.){2,})\.(?!\.)")
