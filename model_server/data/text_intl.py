"""Training and held-out text for the catalog languages beyond en/es/de/fr, from CLDR (the Babel package).

Training text has no hand-written words: every word comes from the Unicode CLDR data that Babel ships
(Unicode license), written by native speakers for software localization. A "sentence" is two to four CLDR
phrases joined by the language's own list pattern ("a, b i c") and ended with a full stop:

* number phrases with the language's plural forms: relative times ("za 5 dni", "3 時間前"), units
  ("12 kilometrów"), amounts of money ("12,50 €"), percentages, long dates, clock times, ISO dates;
* names: countries and territories, languages, currencies, months, weekdays.

So the text has the language's real words, spelling and number grammar, and the digits, dates and
currencies the normalizer must read; it is not natural prose (no verbs beyond CLDR's few), which is the
honest limit of a packaged source. Japanese kanji reach the teacher as katakana (the normalizer's Janome
reading, `normalize_intl`), as they reach the model.

Held-out sentences (`heldout_sentences`) are natural everyday voice-agent speech instead, so that a speech
recognizer can judge them: `data/heldout/<code>.txt`, 12 sentences per language (3 with a number in
digits) written for this project (its license) and not reviewed by native speakers. `generate_sentences`
never produces one of them (compared with `text.canonical`), nor (through `text.generate_sentences`) one of a
language's confirmation sentences (`confirm_sentences`).
"""

from __future__ import annotations

import datetime
import random
from functools import cache

from babel import Locale
from babel.dates import format_date, format_time, format_timedelta
from babel.lists import format_list
from babel.numbers import format_decimal, format_percent
from babel.units import UnknownUnitError, format_unit

from model_server.data.text import CONFIRM_DIR, HELDOUT_DIR, canonical, read_sentences
from model_server.frontend.languages import CATALOG

__all__ = ["confirm_languages", "confirm_sentences", "generate_sentences", "heldout_sentences"]

_UNITS = ("length-kilometer", "length-meter", "mass-kilogram", "volume-liter", "duration-minute",
          "duration-hour", "duration-day", "temperature-celsius", "digital-gigabyte", "speed-kilometer-per-hour")  # fmt: skip
_TIME_UNITS = ("second", "minute", "hour", "day", "week", "month", "year")
_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800, "month": 2629800,
            "year": 31557600}  # fmt: skip
_CURRENCY_SIGNS = ("€", "$", "£", "¥", "₹")


@cache
def _locale(language: str) -> Locale:
    if language not in CATALOG:
        raise ValueError(f"unsupported language {language!r}; expected one of {sorted(CATALOG)}")
    return Locale.parse(CATALOG[language].babel)


@cache
def _names(language: str) -> tuple[str, ...]:
    loc = _locale(language)
    names = [n for k, n in loc.territories.items() if k.isalpha()]  # "FR", not "150" (regions)
    names += list(loc.languages.values()) + list(loc.currencies.values())
    names += list(loc.months["format"]["wide"].values()) + list(loc.days["format"]["wide"].values())
    return tuple(sorted({n for n in names if _usable(n, language)}))


def _usable(phrase: str, language: str) -> bool:
    return bool(phrase) and "(" not in phrase and len(phrase) <= 40


def _number_phrase(rng: random.Random, language: str) -> str:
    loc = _locale(language)
    n = rng.choice((1, 2, 3, 5, 7, 12, 15, 21, 42, 99, 150, 365, 1000, 2024, 12500))
    kind = rng.randrange(8)
    if kind == 0:
        unit = rng.choice(_TIME_UNITS)
        seconds = n * _SECONDS[unit] * rng.choice((1, -1))
        return format_timedelta(datetime.timedelta(seconds=seconds), granularity=unit, threshold=10**9,
                                add_direction=True, locale=loc)  # fmt: skip
    if kind == 1:
        unit = rng.choice(_UNITS)
        try:
            text = format_unit(n, unit, length="long", locale=loc)
        except UnknownUnitError:
            text = unit
        # Babel falls back to the unit's id where the locale lacks the pattern: not a phrase.
        return format_decimal(n, locale=loc) if unit.split("-", 1)[1] in text else text
    if kind == 2:
        amount = n + rng.choice((0, 0, 0.5, 0.99, 0.25))
        text = format_decimal(amount, format="#,##0.00" if amount % 1 else "#,##0", locale=loc)
        sign = rng.choice(_CURRENCY_SIGNS)
        return f"{text} {sign}" if rng.random() < 0.5 else f"{sign}{text}"
    if kind == 3:
        return format_percent(rng.choice((5, 12, 42, 99, 150)) / 100, locale=loc)
    day = datetime.date(rng.randrange(1990, 2031), rng.randrange(1, 13), rng.randrange(1, 29))
    if kind == 4:
        return format_date(day, format=rng.choice(("long", "full")), locale=loc)
    if kind == 5:
        return format_time(datetime.time(rng.randrange(24), rng.choice((0, 15, 30, 45))), format="short",
                           locale=loc)  # fmt: skip
    if kind == 6:
        return day.isoformat()
    return format_decimal(n, locale=loc)


def _sentence(rng: random.Random, language: str) -> str:
    names = _names(language)
    parts: list[str] = []
    for _ in range(rng.randrange(2, 5)):
        if not parts or rng.random() < 0.5:
            for _try in range(10):
                phrase = _number_phrase(rng, language)
                if _usable(phrase, language):
                    parts.append(phrase)
                    break
        else:
            parts.append(rng.choice(names))
    if not parts:
        parts.append(rng.choice(names))
    text = format_list(parts, locale=_locale(language))
    return " ".join(text.split()) + ("。" if language in ("zh", "ja") else ".")


def _generate(language: str, count: int, seed: str, banned: set[str]) -> list[str]:
    rng = random.Random(f"statespeak-cldr/{language}/{seed}")
    out: list[str] = []
    seen = set(banned)
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > count * 50 + 1000:
            raise RuntimeError(f"could not generate {count} distinct {language} sentences (got {len(out)})")
        s = _sentence(rng, language)
        key = canonical(s)
        if key in seen:
            continue
        seen.add(key)
        out.append(s)
    return out


@cache
def heldout_sentences(language: str) -> tuple[str, ...]:
    """Evaluation sentences for `language` (`HELDOUT_DIR/<code>.txt`), never in the training text.

    FileNotFoundError naming the language and the file where a catalog language has none."""
    _locale(language)  # ValueError naming an unknown language
    path = HELDOUT_DIR / f"{language}.txt"
    if not path.is_file():
        raise FileNotFoundError(f"no held-out sentences for language {language!r}: {path} is missing")
    return tuple(read_sentences(path))


def confirm_sentences(language: str) -> tuple[str, ...]:
    """The confirmation block of `language` (`CONFIRM_DIR/<code>.txt`): 12 more everyday sentences, never
    training text, judged once after a round has picked its weights on the held-out sentences, to measure how
    optimistic that pick reads them. FileNotFoundError naming the language where it has none."""
    _locale(language)  # ValueError naming an unknown language
    path = CONFIRM_DIR / f"{language}.txt"
    if not path.is_file():
        raise FileNotFoundError(
            f"no confirmation sentences for language {language!r}: {path} is missing; languages with them: "
            f"{','.join(confirm_languages())}"
        )
    return tuple(read_sentences(path))


def confirm_languages() -> list[str]:
    """The catalog languages with a confirmation block, in catalog order."""
    return [code for code in CATALOG if (CONFIRM_DIR / f"{code}.txt").is_file()]


def generate_sentences(
    language: str, count: int, seed: int = 0, exclude: set[str] | None = None
) -> list[str]:
    """`count` distinct training sentences for `language`, deterministic for a given seed."""
    banned = {canonical(s) for s in heldout_sentences(language)} | set(exclude or ())
    return _generate(language, count, str(seed), banned)
