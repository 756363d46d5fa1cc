"""Frontend: text -> units (words with their original text and symbol ids), per language."""

import threading
import time

import pytest

from model_server.frontend import (
    Frontend,
    UnsupportedLanguageError,
    supported_languages,
    units_to_ids,
    units_to_symbols,
)
from model_server.frontend.symbols import SYMBOLS, UNK


def test_supported_languages():
    from model_server.frontend.languages import CATALOG

    assert supported_languages() == sorted(CATALOG)
    assert {"de", "en", "es", "fr", "zh", "ja", "hi", "ar"} <= set(supported_languages())


@pytest.mark.parametrize("lang", ["xx", "EN", "", None, "en-us"])
def test_unsupported_language_is_a_value_error(lang):
    with pytest.raises(UnsupportedLanguageError) as info:
        Frontend(lang)
    assert isinstance(info.value, ValueError)


def test_units_keep_original_words_and_frame_the_sentence():
    units = Frontend("en").text_to_units("Dr. Smith paid $12.50, on March 5, 1999!")
    words = [u.text for u in units if u.kind == "word"]
    assert words == ["Dr.", "Smith", "paid", "$12.50", "on", "March 5, 1999"]
    assert units[0].symbols == ("<pause>",) and units[-1].symbols == ("<pause>",)
    assert units[-2].symbols == ("<!>",)
    kinds = [u.kind for u in units]
    assert "punct" in kinds and "boundary" in kinds
    money = next(u for u in units if u.text == "$12.50")
    assert money.symbols.count("<wb>") == 4  # twelve dollars and fifty cents
    assert money.symbols[:5] == ("t", "w", "eh", "l", "v")
    for u in units:
        assert len(u.ids) == len(u.symbols) and all(
            SYMBOLS[i] == s for i, s in zip(u.ids, u.symbols, strict=True)
        )


def test_word_units_never_start_or_end_with_specials():
    units = Frontend("en").text_to_units("Call 555-123-4567, or +1 555 123 4567.")
    for u in units:
        if u.kind == "word":
            assert u.symbols[0][0] != "<" and u.symbols[-1][0] != "<", u


def test_espeak_merged_words_still_map_one_unit_per_word():
    # espeak-ng phonemizes "with the" as one word; the frontend must still give each its own unit.
    units = Frontend("en").text_to_units("Go with the flow.")
    words = [(u.text, u.symbols) for u in units if u.kind == "word"]
    assert [w for w, _ in words] == ["Go", "with", "the", "flow"]
    assert words[1][1] == ("w", "ih", "dh") and words[2][1][0] == "dh"


@pytest.mark.parametrize(
    ("lang", "text", "first_word_symbols"),
    [
        ("es", "¿Dónde está el niño?", ("es:d", "es:o", "es:n", "es:d", "es:e")),
        ("de", "Über die Brücke.", ("de:y:", "de:b", "de:3")),
        ("fr", "Les amis.", ("fr:l", "fr:e-", "fr:z2")),  # liaison z on "les"
    ],
)
def test_other_languages(lang, text, first_word_symbols):
    units = Frontend(lang).text_to_units(text)
    first = next(u for u in units if u.kind == "word")
    assert first.symbols == first_word_symbols
    assert UNK not in units_to_symbols(units)


@pytest.mark.parametrize("text", ["", "   ", "!!!", "...?", "😀😀", "你好世界", "\x00\x01", "()\"'"])
def test_nothing_to_speak_gives_no_units(text):
    assert Frontend("en").text_to_units(text) == []


def test_mixed_script_skips_what_it_cannot_read():
    units = Frontend("en").text_to_units("Hello 你好 world 😀!")
    assert [u.text for u in units if u.kind == "word"] == ["Hello", "world"]


def test_sentence_flag_and_ids():
    fe = Frontend("en")
    inner = fe.text_to_units("Good morning", sentence=False)
    assert inner[0].kind == "word" and inner[-1].kind == "word"
    assert units_to_ids(inner) == fe.text_to_ids("Good morning", sentence=False)
    assert fe.text_to_symbols("Good morning")[0] == "<pause>"


def test_language_switch_inside_french_sentence():
    units = Frontend("fr").text_to_units("Le weekend.")
    weekend = next(u for u in units if u.text == "weekend")
    assert weekend.symbols[:2] == ("w", "iy")  # English phones, as espeak-ng switched to English


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Hello world, this is a test. With the greatest ease, 3 cats!"),
        ("es", "¿Dónde está el niño? Tengo 3 perros."),
        ("de", "Am 5. März um 15:30 Uhr, ja."),
        ("fr", "Je travaille chez Microsoft, le weekend."),
    ],
)
def test_espeak_teacher_times_every_symbol(lang, text):
    fe = Frontend(lang)
    t = fe.espeak_teacher(text)
    assert t.units == fe.text_to_units(text)
    assert len(t.durations) == len(units_to_symbols(t.units))
    assert sum(t.durations) == len(t.audio)
    assert t.alignment.exact_rate == 1.0
    phones = [d for s, d in zip(units_to_symbols(t.units), t.durations, strict=True) if not s.startswith("<")]
    assert all(d > 0 for d in phones)


def test_espeak_teacher_nothing_to_speak():
    assert Frontend("en").espeak_teacher("!!!") is None


def test_concurrent_use_is_consistent():
    fe_en, fe_de = Frontend("en"), Frontend("de")
    ref_en = fe_en.text_to_ids("The weather is nice today.")
    ref_de = fe_de.text_to_ids("Das Wetter ist heute schön.")
    ok = []

    def work():
        for _ in range(15):
            ok.append(fe_en.text_to_ids("The weather is nice today.") == ref_en)
            ok.append(fe_de.text_to_ids("Das Wetter ist heute schön.") == ref_de)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ok and all(ok)


def test_speed_benchmark_prints_microseconds_per_word(capsys):
    # A benchmark, not an assertion on time: prints the hot-path cost per word.
    fe = Frontend("en")
    text = "The quick brown fox jumps over the lazy dog while 3 people watch on March 5, 2024 at 3:30 pm."
    n_words = len(text.split())
    fe.text_to_units(text)
    reps = 50
    start = time.perf_counter()
    for _ in range(reps):
        fe.text_to_units(text)
    per_word = (time.perf_counter() - start) / reps / n_words * 1e6
    with capsys.disabled():
        print(f"\nfrontend en: {per_word:.1f} us/word")
    assert per_word > 0


def test_merged_words_are_cut_where_the_words_alone_end():
    fe = Frontend("en")
    units = fe.text_to_units("She did not go on the second floor in the morning.")
    words = {u.text: u.symbols for u in units if u.kind == "word"}
    assert words["did"] == ("d", "ih", "d") and words["not"] == ("n", "aa", "t")
    assert words["on"] == ("ao", "n") and words["the"] == ("dh", "ax")
    assert words["floor"] == ("f", "l", "ao", "r")  # linking r not doubled


def test_regroup_falls_back_to_words_alone_when_nothing_fits():
    from model_server.frontend import _regroup

    alone = [("a", "b"), ("c",), ("d", "e", "f")]
    assert _regroup([["a", "b", "c"], ["d", "e", "f"]], alone) == [["a", "b"], ["c"], ["d", "e", "f"]]
    assert _regroup([["x"] * 30], alone) == [list(x) for x in alone]


def test_sentence_end_inside_an_expansion_is_kept():
    units = Frontend("en").text_to_units("Bring apples, pears, etc. Then go at 3 p.m. Now, ?")
    seq = [(u.kind, u.text, u.symbols[0]) for u in units if u.kind in ("word", "punct")]
    etc = [i for i, x in enumerate(seq) if x[1] == "etc."][0]
    assert seq[etc + 1][2] == "<.>"
    pm = [i for i, x in enumerate(seq) if x[1] == "3 p.m."][0]
    assert seq[pm + 1][2] == "<.>"
    assert seq[-1][2] == "<?>"  # ", ?" keeps the stronger mark
    assert all(a[0] != "punct" or b[0] != "punct" for a, b in zip(seq, seq[1:], strict=False))


def test_every_spoken_form_case_phonemizes():
    # The normalizer's cases (tests/frontend/test_frontend_normalize.py) end to end: every one gives word
    # units, and no symbol falls back to <unk>.
    from tests.frontend.test_frontend_normalize import SPOKEN_FORMS

    fe = Frontend("en")
    for cases in SPOKEN_FORMS.values():
        for text, _ in cases:
            units = fe.text_to_units(text)
            assert any(u.kind == "word" for u in units), text
            assert UNK not in units_to_symbols(units), text


@pytest.mark.parametrize(
    ("text", "spoken_symbols"),
    [
        # "a.m." is the letters "ay em" (not the word "am", which the voices blurred into "and").
        ("Meet at 9:30 am today.", ("ey", "eh", "m")),
        ("It opens at 9am.", ("ey", "eh", "m")),
        # a lone letter A in a code is the letter, not the article "uh"
        ("Your order is A1B2.", ("ey", "w", "ah", "n")),
        ("Ask the FBI.", ("eh", "f", "b", "iy", "ay")),
        ("Call 555-0142.", ("z", "iy", "ax", "r", "ow", "<wb>", "w", "ah", "n")),
    ],
)
def test_spelled_forms_are_said_as_letters(text, spoken_symbols):
    symbols = [
        s
        for s in units_to_symbols(Frontend("en").text_to_units(text))
        if s != "<wb>" or "<wb>" in spoken_symbols
    ]
    n = len(spoken_symbols)
    assert any(tuple(symbols[i : i + n]) == spoken_symbols for i in range(len(symbols))), symbols


def test_a_clause_of_thousands_of_spoken_words_is_phonemized_in_bounded_parts(monkeypatch):
    """One e-mail-like token of 5,000 characters (inside the server's transcript limit) is thousands of spoken
    words with no punctuation: phonemized as one clause, the regrouping (quadratic in its length) held an API
    worker's event loop for 25-45 s. It goes to espeak-ng in parts of MAX_CLAUSE_WORDS words."""
    import model_server.frontend as frontend

    sizes = []
    regroup = frontend._regroup
    monkeypatch.setattr(
        frontend, "_regroup", lambda clause, alone: sizes.append(len(alone)) or regroup(clause, alone)
    )
    calls = []
    phonemize = frontend.espeak.phonemize
    monkeypatch.setattr(
        frontend.espeak, "phonemize", lambda text, voice: calls.append(text) or phonemize(text, voice)
    )
    text = "a" * 2498 + "@" + "b." * 1249 + "com"
    units = frontend.Frontend("en").text_to_units(text)
    assert sum(len(u.symbols) for u in units) > 8000  # "b dot b dot ...": every spoken word is there
    assert max(len(t.split()) for t in calls) <= frontend.MAX_CLAUSE_WORDS
    assert all(n <= frontend.MAX_CLAUSE_WORDS for n in sizes)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("今日は天気が良いので、公園に行きました。", ["今日は天気が良いので", "公園に行きました"]),
        ("東京に3日います。", ["東京に", "3", "日います"]),
    ],
)
def test_japanese_word_units_carry_the_clients_text_not_the_katakana_they_are_spoken_as(text, words):
    # word timestamps carry a unit's text: "コーエンニイキマシタ" is not in the transcript the client sent, and
    # the whole sentence went to the first word (issue: LiveKit finds each word in its text)
    units = Frontend("ja").text_to_units(text)
    assert [u.text for u in units if u.kind == "word"] == words
