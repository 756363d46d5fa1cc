"""Symbol inventory: frozen, deterministic, and covering everything espeak-ng emits."""

import json

import pytest

from model_server.frontend import espeak as E
from model_server.frontend import symbols as S

VARIED_ENGLISH = """
The archaeologist's thorough, rhythmic questioning bewildered the jury. Which witch switched the
Swiss wristwatches? Beige azure leisure; the genre of measure and treasure. Judge Church's choir sang
joyfully in the foyer. Wolves howled while owls hooted outside our house. Would you pour more water
on the tour's poor flowers, or are there fewer here? Hurry, worry, furry, curry; the bird heard the
word first. Little bottles, sudden buttons, rhythm and prism. Naïve café owners in Tucson visited
Worcester, Leicester and Massachusetts. Fire, hire, tire, hour, our, flour. Sing a song of sixpence, a
pocket full of rye; four and twenty blackbirds baked in a pie. Xylophones, quizzes, zebras and
yachts. Through tough thoroughfares thought though. Aisle, isle, I'll, mile. Onomatopoeia, idea,
Korea, museum, Pompeii. The pneumatic psychologist mnemonically knew the gnome's knack. Bach, loch,
Genghis Khan, Van Gogh, Dvořák, Tchaikovsky. Oh! Ah? Hmm... Ugh. Nationalization, internationally,
antidisestablishmentarianism. Her year-end cheer was sheer. Bath, path, laugh, aunt, can't. Tomato,
potato, data, either, neither, route. Wednesday February library probably.
"""


def test_inventory_is_frozen_and_deterministic():
    assert S.SYMBOLS[:8] == ("<pad>", "<unk>", "<wb>", "<pause>", "<,>", "<.>", "<?>", "<!>")
    assert len(S.SYMBOLS) == len(set(S.SYMBOLS))
    assert S.SYMBOLS[0] == S.PAD  # id 0 is padding
    assert list(S.ARPABET) == sorted(S.ARPABET)
    assert all(S.SYMBOL_TO_ID[s] == i for i, s in enumerate(S.SYMBOLS))
    # The config round-trips through JSON and is accepted back.
    cfg = json.loads(json.dumps(S.inventory_config()))
    S.check_inventory_config(cfg)


@pytest.mark.parametrize(
    "cfg",
    [
        {},
        {"version": 1},
        {"version": 99, "symbols": list(S.SYMBOLS)},
        {"version": S.SYMBOLS_VERSION, "symbols": list(S.SYMBOLS)[:-1]},
        "not a dict",
    ],
)
def test_inventory_mismatch_is_refused(cfg):
    with pytest.raises(S.InventoryMismatchError):
        S.check_inventory_config(cfg)


@pytest.mark.parametrize("lang", ["es", "de", "fr"])
def test_frozen_inventories_match_espeak_data(lang):
    # A different espeak-ng data version would change what the model sees: catch it here.
    assert S.ESPEAK_PHONEMES[lang] == E.phoneme_table_inventory(lang)


def test_english_map_covers_whole_en_us_table():
    table = E.phoneme_table_inventory("en-us")
    assert set(table) == set(S.ENGLISH_MAP)
    for name, phones in S.ENGLISH_MAP.items():
        assert all(p in S.ARPABET for p in phones), name


def test_varied_english_text_maps_without_fallback():
    S.UNKNOWN_COUNTS.clear()
    mapper = S.SymbolMapper("en")
    words = E.phonemize(VARIED_ENGLISH, "en-us")
    assert len(words) > 150
    seen = set()
    lang = None
    for w in words:
        syms, lang = mapper.map_phonemes(w, lang)
        assert syms or all(n.startswith("_") or n in (";", "#X1") for n in w), w
        seen.update(syms)
    assert not S.UNKNOWN_COUNTS, dict(S.UNKNOWN_COUNTS)
    assert S.UNK not in seen
    # Most of the ARPAbet set is exercised by this text.
    assert len(seen) >= 37, sorted(set(S.ARPABET) - seen)


def test_examples_from_the_brief():
    m = S.SymbolMapper("en")
    for name, phones in {
        "@": ["ax"],
        "3:": ["er"],
        "oU": ["ow"],
        "aI": ["ay"],
        "I2": ["ih"],
        "tS": ["ch"],
        "dZ": ["jh"],
        "T": ["th"],
        "D": ["dh"],
        "A@": ["aa", "r"],
    }.items():
        assert m.map_phonemes([name])[0] == phones


@pytest.mark.parametrize("lang", ["es", "de", "fr"])
def test_other_languages_are_prefixed(lang):
    m = S.SymbolMapper(lang)
    syms, _ = m.map_phonemes(["a", "m"])
    assert syms == [f"{lang}:a", f"{lang}:m"]
    assert all(s in S.SYMBOL_TO_ID for s in syms)


def test_unknown_mnemonics_fall_back_and_are_counted():
    S.UNKNOWN_COUNTS.clear()
    m = S.SymbolMapper("fr")
    # Variant suffix stripped to the base phoneme; junk goes to <unk>; neither raises.
    assert m.map_phonemes(["k#9"])[0] == ["fr:k"]
    assert m.map_phonemes(["QQQ"])[0] == [S.UNK]
    assert S.UNKNOWN_COUNTS["(fr)k#9"] == 1 and S.UNKNOWN_COUNTS["(fr)QQQ"] == 1
    m.map_phonemes(["QQQ"])
    assert S.UNKNOWN_COUNTS["(fr)QQQ"] == 1  # cached after the first time; logged once


def test_language_switch_inside_french_uses_english_phones():
    m = S.SymbolMapper("fr")
    syms, lang = m.map_phonemes(["(en)", "w", "i:", "k", "E", "n", "d", "(fr)", "_!"])
    assert syms == ["w", "iy", "k", "eh", "n", "d"] and lang == "fr"
    # A switch to another catalog language uses its symbols; one outside the catalog (Latin) falls back
    # to the utterance's own language.
    syms, _ = m.map_phonemes(["(it)", "a", "(fr)"])
    assert syms == ["it:a"]
    syms, _ = m.map_phonemes(["(la)", "a", "(fr)"])
    assert syms == ["fr:a"]


def test_pauses_are_dropped_and_ids_checked():
    m = S.SymbolMapper("de")
    assert m.map_phonemes(["_|", "I", "C", "_:"])[0] == ["de:I", "de:C"]
    assert S.symbols_to_ids(["<pad>", "aa"]) == [0, S.SYMBOL_TO_ID["aa"]]
    with pytest.raises(ValueError, match="not in inventory"):
        S.symbols_to_ids(["aa", "qq"])


@pytest.mark.parametrize("lang", ["xx", "en-us", ""])
def test_unsupported_language(lang):
    with pytest.raises(S.UnsupportedLanguageError):
        S.SymbolMapper(lang)


def test_broad_classes():
    assert S.broad_class("aa") == "vowel" and S.broad_class("es:a") == "vowel"
    assert S.broad_class("p") == "stop" and S.broad_class("de:ts") == "stop"
    assert S.broad_class(S.WORD_BOUNDARY) is None


def test_a_run_of_known_phonemes_espeak_left_unseparated_is_those_phonemes():
    # espeak-ng joins "네 시" (an hour before a count, common in agent text) into "n es i": "es" is no Korean
    # phoneme, and the model got <unk> where "e s" was said
    from model_server.frontend import Frontend, units_to_symbols

    symbols = units_to_symbols(Frontend("ko").text_to_units("4시 3개 있어요."))
    assert "<unk>" not in symbols
    assert symbols[1:5] == ["ko:n", "ko:e", "ko:s", "<wb>"]
    mapper = S.SymbolMapper("ko")
    assert mapper.map_phonemes(["es"])[0] == ["ko:e", "ko:s"]
    assert mapper.map_phonemes(["eY"])[0] == ["<unk>"]  # not a run of known phonemes: still unknown
