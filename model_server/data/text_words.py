"""Training sentences made of a language's everyday words, from the wordfreq frequency lists.

The other training text (`text.py`'s small grammars for es/de/fr, `text_intl.py`'s CLDR phrases for the
rest) carries numbers, dates, currencies and names well, but few of the words people say: the French grammar
knows two dozen nouns, and the CLDR phrases are country names, months and units. A model trained on them
speaks those well and everything else poorly: on Indonesian text drawn like its training text the shipped
model was as intelligible as its teacher's vocoded audio, on the held-out voice-agent sentences 7-12 points
behind it (docs/model.md, "Where the model loses the words").

So part of each language's training text is drawn from its most frequent words (wordfreq's "best" list, the
top `VOCABULARY` words that are written in letters): 4 to 10 words a sentence, about half of them from the
`COMMON` most frequent (the function words that hold speech together), the rest from the whole list, with an
occasional comma, and a full stop or a question mark. The sentences are not grammatical; what the model
learns from them is the language's words, their sounds in order and across word edges, as its teacher reads
them. Of the held-out sentences' words only the `COMMON` ones are drawn (any text has them): the evaluation
hears content words the model was not trained on, as a user's text will have.

wordfreq (Robyn Speer; code Apache-2.0, data CC-BY-SA 4.0, built from Wikipedia, subtitles, news, books and
other sources it credits) is only read while text is generated; no list ships with the model.
"""

from __future__ import annotations

import random
import re
from functools import cache

from model_server.data.text import canonical
from model_server.frontend.languages import CATALOG

__all__ = ["VOCABULARY", "WORD_SHARE", "has_vocabulary", "vocabulary", "word_sentences"]

WORD_SHARE = 0.5  # `python -m model_server.data`'s default share for non-English Kokoro/espeak-ng voices

VOCABULARY = 8000  # most frequent words per language the sentences are drawn from
COMMON = 300  # the most frequent of them, drawn for about half of each sentence's words
COMMON_SHARE = 0.45
MIN_WORDS, MAX_WORDS = 4, 10

# catalog code -> wordfreq's code where they differ (wordfreq lists Croatian, Serbian and Bosnian together,
# in Latin script, as Serbo-Croatian; Norwegian as Bokmål; Tagalog as Filipino)
WORDFREQ_CODES = {"hr": "sh", "sr": "sh", "bs": "sh", "no": "nb", "tl": "fil"}

_LETTERS = re.compile(r"[^\W\d_]+")
_VOWELS = set("aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿāăąēĕėęěīĭįıōŏőœūŭůűų")


def _wordfreq_code(language: str) -> str:
    return WORDFREQ_CODES.get(language, language)


def has_vocabulary(language: str) -> bool:
    """Whether `language` gets word sentences: wordfreq has a list for it and it writes spaces between words
    (Chinese, Japanese and Thai lists are segmented words that the text would run together)."""
    from wordfreq import available_languages

    lang = CATALOG.get(language)
    return lang is not None and lang.spaces and _wordfreq_code(language) in available_languages("best")


def _is_word(token: str) -> bool:
    """Letters only, and not a lone Latin consonant (French "l", "d", "qu" come from split elisions)."""
    if not _LETTERS.fullmatch(token):
        return False
    return len(token) > 1 or not token.isascii() or token in _VOWELS


@cache
def vocabulary(language: str, size: int = VOCABULARY) -> tuple[str, ...]:
    """The `size` most frequent words of `language` written in letters, most frequent first.

    ValueError naming the language where wordfreq has no list for it (`has_vocabulary`)."""
    if not has_vocabulary(language):
        raise ValueError(
            f"no word list for language {language!r} (wordfreq lacks it, or it writes no spaces)"
        )
    from wordfreq import top_n_list

    words = [w for w in top_n_list(_wordfreq_code(language), size * 2, wordlist="best") if _is_word(w)]
    return tuple(words[:size])


def _sentence(rng: random.Random, common: list[str], rest: list[str]) -> str:
    n = rng.randint(MIN_WORDS, MAX_WORDS)
    words = [rng.choice(common) if rng.random() < COMMON_SHARE else rng.choice(rest) for _ in range(n)]
    if n > 6 and rng.random() < 0.5:
        words[rng.randint(2, n - 3)] += ","
    text = " ".join(words)
    return text[0].upper() + text[1:] + ("?" if rng.random() < 0.2 else ".")


def word_sentences(
    language: str,
    count: int,
    seed: int | str = 0,
    exclude: set[str] | None = None,
    heldout: tuple[str, ...] = (),
) -> list[str]:
    """`count` distinct word sentences for `language`, deterministic for a seed. No word of the `heldout`
    sentences is drawn but the `COMMON` ones, and no sentence whose `canonical` form is in `exclude` is
    returned."""
    banned_words = {w.lower() for s in heldout for w in _LETTERS.findall(s)}
    words = vocabulary(language)
    common = list(words[:COMMON])
    rest = [w for w in words[COMMON:] if w.lower() not in banned_words]
    rng = random.Random(f"statespeak-words/{language}/{seed}")
    seen = set(exclude or ())
    out: list[str] = []
    for _attempt in range(count * 50 + 1000):
        if len(out) == count:
            return out
        s = _sentence(rng, common, rest)
        key = canonical(s)
        if key not in seen:
            seen.add(key)
            out.append(s)
    raise RuntimeError(f"could not draw {count} distinct {language} word sentences (got {len(out)})")
