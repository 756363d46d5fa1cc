"""Word sentences (data/text_words.py): the languages' everyday words, mixed into the training text."""

import re

import pytest

from model_server.data import text as T
from model_server.data import text_words as W
from model_server.frontend.languages import CATALOG


def test_languages_with_a_word_list():
    assert all(
        W.has_vocabulary(code) for code in ("id", "fr", "ru", "de", "ur", "ms", "hr", "sr", "no", "es")
    )
    # segmented languages would run their words together; Irish has no list; unknown codes are not languages
    assert not any(W.has_vocabulary(code) for code in ("ja", "zh", "th", "ga", "xx"))
    with pytest.raises(ValueError, match="'ja'"):
        W.vocabulary("ja")


@pytest.mark.parametrize("language", ["id", "fr", "ru", "hr"])
def test_vocabulary_is_words_in_letters_most_frequent_first(language):
    words = W.vocabulary(language)
    assert len(words) == W.VOCABULARY
    assert len(set(words)) == len(words)
    assert all(re.fullmatch(r"[^\W\d_]+", w) for w in words)
    common = {"id": "yang", "fr": "est", "ru": "что", "hr": "je"}[language]
    assert common in words[:20]


def test_split_elisions_are_not_words():
    fr = W.vocabulary("fr")
    assert not {"l", "d", "c", "j", "n", "s"} & set(fr)  # from l'homme, d'accord, c'est...
    assert "à" in fr and "y" in fr  # one-letter words that are words
    assert {"в", "и"} <= set(W.vocabulary("ru"))


def test_sentences_are_deterministic_distinct_and_shaped():
    a = W.word_sentences("id", 200, seed=7)
    assert a == W.word_sentences("id", 200, seed=7)
    assert a != W.word_sentences("id", 200, seed=8)
    assert len({T.canonical(s) for s in a}) == 200
    vocab = set(W.vocabulary("id"))
    for s in a:
        assert s[0].isupper() and s[-1] in ".?"
        words = [w.rstrip(",") for w in s[:-1].split()]
        assert W.MIN_WORDS <= len(words) <= W.MAX_WORDS
        assert {words[0].lower()} | set(words[1:]) <= vocab
    assert any(s.endswith("?") for s in a) and any("," in s for s in a)


def test_heldout_content_words_are_never_drawn_but_common_words_are():
    heldout = T.read_sentences(T.HELDOUT_DIR / "id.txt")
    heldout_words = {w.lower() for s in heldout for w in re.findall(r"[^\W\d_]+", s)}
    common = set(W.vocabulary("id")[: W.COMMON])
    drawn = {
        w.rstrip(",.?").lower()
        for s in W.word_sentences("id", 2000, 0, heldout=tuple(heldout))
        for w in s.split()
    }
    assert drawn & heldout_words <= common
    assert drawn & heldout_words & common  # "yang", "anda", ...: what any text has
    # without the held-out sentences the same content words are drawn
    assert (heldout_words - common) & {
        w.rstrip(",.?").lower() for s in W.word_sentences("id", 2000, 0) for w in s.split()
    }


def test_excluded_sentences_are_not_returned():
    first = W.word_sentences("ms", 50, seed=1)
    again = W.word_sentences("ms", 50, seed=1, exclude={T.canonical(s) for s in first[:10]})
    assert not {T.canonical(s) for s in first[:10]} & {T.canonical(s) for s in again}


@pytest.mark.parametrize("language", ["id", "fr", "es"])
def test_training_text_mixes_words_with_the_grammar_or_cldr_text(language):
    plain = T.generate_sentences(language, 100, seed="0/v", word_share=0.0)
    mixed = T.generate_sentences(language, 100, seed="0/v", word_share=0.5)
    assert len(mixed) == 100 and len({T.canonical(s) for s in mixed}) == 100
    assert plain == T.generate_sentences(language, 100, seed="0/v")  # the default keeps the old text
    words = set(
        W.word_sentences(
            language, 50, "0/v", heldout=tuple(T.read_sentences(T.HELDOUT_DIR / f"{language}.txt"))
        )
    )
    assert len(words & set(mixed)) == 50
    assert set(mixed) - words <= set(plain)  # the rest is the first half of the old text
    assert any(s in words for s in mixed[:25]) and any(s not in words for s in mixed[:25])  # interleaved
    heldout = {T.canonical(s) for s in T.read_sentences(T.HELDOUT_DIR / f"{language}.txt")}
    assert not heldout & {T.canonical(s) for s in mixed}


def test_english_and_languages_without_a_list_keep_their_text():
    assert T.generate_sentences("en", 40, seed=2, word_share=1.0) == T.generate_sentences("en", 40, seed=2)
    assert T.generate_sentences("ja", 20, seed=2, word_share=0.5) == T.generate_sentences("ja", 20, seed=2)


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_a_share_outside_zero_to_one_is_refused(share):
    with pytest.raises(ValueError, match="word_share"):
        T.generate_sentences("id", 10, word_share=share)


def test_every_catalog_language_with_a_list_draws_sentences():
    for code in CATALOG:
        if W.has_vocabulary(code):
            assert len(W.word_sentences(code, 5, seed=0)) == 5, code


def test_the_data_plan_gives_word_sentences_to_teachers_reading_espeak_phonemes(tmp_path):
    from model_server.data import build
    from model_server.data.voices import ALL_VOICES

    def texts(voice: str, share: float) -> list[str]:
        batches = build.plan([ALL_VOICES[voice]], tmp_path, 0.05, 0, lambda t, _lang: t, word_share=share)
        return [t for b in batches for t in b.texts]

    for voice in ("id_male_kumo", "fr_female_f2"):  # Kokoro reading IPA, espeak-ng
        mixed, plain = texts(voice, 0.5), texts(voice, 0.0)
        assert len(mixed) == len(plain) and 0.3 < len(set(mixed) - set(plain)) / len(mixed) < 0.7, voice
    for voice in ("fi_female_lj", "en_female_heart"):  # Festival's own lexicon; English
        assert texts(voice, 0.5) == texts(voice, 0.0), voice


@pytest.mark.parametrize("share", ["-0.5", "2"])
def test_the_data_cli_refuses_a_share_outside_zero_to_one(share, tmp_path):
    from model_server.data import __main__ as cli

    with pytest.raises(SystemExit, match="--word-share must be within"):
        cli.main(["--out", str(tmp_path), "--voices", "id_male_kumo", "--word-share", share])
    assert not (tmp_path / "cache").exists()  # refused before anything renders


def test_without_word_sentences_wordfreq_is_not_needed(monkeypatch):
    import sys

    W.vocabulary.cache_clear()
    monkeypatch.setitem(sys.modules, "wordfreq", None)  # as on a host without it: importing raises
    assert len(T.generate_sentences("id", 5, seed=1)) == 5
    with pytest.raises(ImportError):
        T.generate_sentences("id", 5, seed=1, word_share=0.5)
