"""A text without a decimal digit skips the normalizer rules that need one (`rules.requires_digit`): the
same segments, found faster. Checked against the full rule table on digit-free texts of every kind the
rules handle."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from model_server.bench.texts import TextMix
from model_server.frontend.normalize import scan
from model_server.frontend.normalize.rules import _rules, _scan_rules, requires_digit

HELDOUT = Path(__file__).resolve().parents[2] / "model_server" / "data" / "heldout"


@pytest.mark.parametrize(
    ("pattern", "needs"),
    [
        (r"\d+", True),
        (r"[0-9]{3}-[0-9]{4}", True),
        (r"(?:\$|€)\s?\d", True),
        (r"\d*", False),  # may match nothing
        (r"(?:\d|one)", False),  # a branch without a digit
        (r"(?:\d|[٠-٩])x", True),  # Arabic-Indic digits are decimal digits too
        (r"[\d,]+", False),  # a comma alone matches
        (r"(?=\d)\w+", True),  # a lookahead that must see a digit: the text has one
        (r"(?<=\d)st\b", True),
        (r"(?!\d)\w+", False),  # a negative one does not
        (r"x{2}(?:\d{1,3})", True),
        (r"Dr\.|St\.", False),
        (r"(?i)(\d)(?:am|pm)", True),
        (r"(?P<n>\d)(?P=n)?", True),
        (r".", False),
    ],
)
def test_which_patterns_need_a_digit(pattern, needs):
    assert requires_digit(re.compile(pattern)) is needs


def digit_free_texts() -> list[str]:
    """Held-out sentences of every language, the bench's text mix, and what the digit-free rules read:
    abbreviations, initialisms, addresses, roman numerals, symbols, keys, currency signs, ranges of days."""
    texts = [
        "Dr. Smith lives on Elm St. near the N.W. corner, Apt. B; ETA is noon, not midnight.",
        "Mon–Fri, 9 to 5 is spelled out: nine to five. Louis XIV and Carlos III met Karl V.",
        "Press # to repeat, * to go back; prices in $ and € and £ apply ± a little.",
        "### Next steps\n* First item\n+ Second item",
        "The FBI, the U.S.A. and NASA said A and B, then a. b. c. in a list.",
        "Use --verbose or -v, see /usr/local/bin and Settings > Privacy > Location.",
        "½ a cup, ¼ of it, a km² plot; 5 o'clock is not here: five o'clock.",
        "He said “hello”… she said «bonjour» — and then nothing at all!",
        "Grade B-minus, C+ and A-; the weekend, weekdays and the work week.",
    ]
    for path in sorted(HELDOUT.glob("*.txt")):
        texts += [line.strip() for line in path.read_text().splitlines() if line.strip()]
    mix = TextMix(0)
    texts += [mix.next().text for _ in range(200)]
    return [t for t in texts if not re.search(r"\d", t)]


@pytest.mark.parametrize("language", scan.LANGUAGES)
def test_digit_free_texts_get_the_segments_of_the_full_rule_table(language, monkeypatch):
    texts = digit_free_texts()
    assert len(texts) > 150
    assert len(_scan_rules(language, False)) < len(_rules(language)) / 2  # most rules read numbers
    fast = [scan.normalize_segments(t, language) for t in texts]
    monkeypatch.setattr(scan, "_DIGIT", re.compile(""))  # every text "has a digit": every rule is tried
    full = [scan.normalize_segments(t, language) for t in texts]
    assert fast == full
