"""The model's fixed symbol inventory and the mapping from espeak-ng phonemes to symbols.

The order of `SYMBOLS` defines the embedding ids, and it is saved into the model config
(`inventory_config()`), so it is a frozen literal here, never computed at import time:
changing it means bumping `SYMBOLS_VERSION`, and `check_inventory_config()` refuses a model trained
with another inventory.

* Specials: pad, unknown (the documented fallback), word boundary, pause / sentence end, and
  punctuation classes (comma, period, question, exclamation).
* English: ARPAbet-style phones without stress (Festival's radio phoneset minus `pau`), reached from
  espeak-ng en-us mnemonics through `ENGLISH_MAP` (one mnemonic may give 0, 1 or 2 phones, e.g.
  "A@" -> aa r, because Festival, the English teacher, spells r-coloured vowels that way).
* es/de/fr: every sound phoneme of the language's espeak-ng phoneme table, prefixed ("es:a"), frozen
  from the `phontab` of espeakng-loader 0.2.4 (espeak-ng 1.52); tests/frontend checks the literal
  against the data so an upgrade that changes the tables is caught.
* Version 2 appends, for every other language of the catalog (`languages.CATALOG`, in its order), every
  sound phoneme of its espeak-ng table and, for tonal tables (zh, vi, th), its tone phonemes, prefixed with
  the catalog code ("it:a", "zh:55"); frozen in `phonemes_v2.json`. Version 1 is a prefix of version 2,
  so ids of the en/es/de/fr symbols are unchanged and a version-1 model (the shipped one) loads as it is:
  the runtime maps symbols through the model's own saved list, and a symbol the model lacks becomes
  `UNK`. A model speaks only the languages it has voices for, so a v1 model never meets v2 symbols.
  espeak-ng prints a tone glued to its vowel ("i55"): the mapper splits it into vowel + tone symbol.
  espeak-ng's synthesis events carry no tones, so in espeak-taught data a tone symbol lasts 0 frames
  (like <wb>): it marks the vowel before it through the encoder's context (`TONE_SYMBOLS`).

Unknown mnemonics (a new espeak-ng, a language switch to a language we do not ship) fall back by
dropping trailing modifier characters ("l/3" -> "l/" -> "l"), and if nothing matches, to `UNK`; each
such fallback is counted in `UNKNOWN_COUNTS` and logged once per mnemonic.

The length mark ":" ("a:", "t:": a long vowel, a geminate consonant) is the exception where a table has no
long phoneme for it. Length is phonemic in many of these languages (Italian "fato"/"fatto", Japanese
おばさん/おばあさん, Finnish "tuli"/"tuuli"), so the mapper writes the phone twice, as espeak-ng itself writes
Finnish geminates ("tulli" -> l l). Models trained before this rule saw the mark dropped; their config says
so (`LENGTH_MARKS_KEY`, absent = "drop") and the frontend keeps their rule (`LengthMarks`).
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from pathlib import Path
from typing import Literal, get_args

from .languages import CATALOG, UnsupportedLanguageError, espeak_switch_code

__all__ = [
    "ARPABET",
    "ARPABET_CLASS",
    "ENGLISH_MAP",
    "ESPEAK_PHONEMES",
    "LANGUAGE_VOICES",
    "PAD",
    "PAUSE",
    "PUNCTUATION",
    "EXTRA_PHONEMES",
    "SYMBOLS",
    "SYMBOLS_V1",
    "SYMBOLS_VERSION",
    "SYMBOL_TO_ID",
    "TONE_SYMBOLS",
    "UNK",
    "UNKNOWN_COUNTS",
    "WORD_BOUNDARY",
    "LENGTH_MARKS",
    "LENGTH_MARKS_KEY",
    "LENGTH_MARKS_LEGACY",
    "InventoryMismatchError",
    "LengthMarks",
    "SymbolMapper",
    "UnsupportedLanguageError",
    "broad_class",
    "check_inventory_config",
    "inventory_config",
    "is_pause",
    "length_marks_of",
    "symbols_to_ids",
]

log = logging.getLogger(__name__)

SYMBOLS_VERSION = 2

PAD = "<pad>"
UNK = "<unk>"
WORD_BOUNDARY = "<wb>"
PAUSE = "<pause>"
# Punctuation classes; other clause punctuation is folded into the nearest class by the frontend.
PUNCTUATION = {",": "<,>", ".": "<.>", "?": "<?>", "!": "<!>"}
SPECIALS = (PAD, UNK, WORD_BOUNDARY, PAUSE, "<,>", "<.>", "<?>", "<!>")

ARPABET = (
    "aa",
    "ae",
    "ah",
    "ao",
    "aw",
    "ax",
    "ay",
    "b",
    "ch",
    "d",
    "dh",
    "eh",
    "er",
    "ey",
    "f",
    "g",
    "hh",
    "ih",
    "iy",
    "jh",
    "k",
    "l",
    "m",
    "n",
    "ng",
    "ow",
    "oy",
    "p",
    "r",
    "s",
    "sh",
    "t",
    "th",
    "uh",
    "uw",
    "v",
    "w",
    "y",
    "z",
    "zh",
)
_VOWELS = {"aa", "ae", "ah", "ao", "aw", "ax", "ay", "eh", "er", "ey", "ih", "iy", "ow", "oy", "uh", "uw"}
ARPABET_CLASS = {
    **{p: "vowel" for p in _VOWELS},
    **{p: "liquid" for p in ("l", "r", "w", "y")},
    **{p: "stop" for p in ("b", "d", "g", "k", "p", "t", "ch", "jh")},
    **{p: "fric" for p in ("dh", "f", "hh", "s", "sh", "th", "v", "z", "zh")},
    **{p: "nasal" for p in ("m", "n", "ng")},
}

# Language code -> espeak-ng voice, for every catalog language.
LANGUAGE_VOICES = {code: lang.espeak for code, lang in CATALOG.items()}

# Every sound phoneme of the en-us table (en-us + en + base1) -> ARPAbet phones. Entries for phonemes of
# base1 that English words never produce (they appear for foreign words and spelled symbols) map to the
# nearest English phone so that nothing espeak-ng can emit is unknown.
ENGLISH_MAP: dict[str, tuple[str, ...]] = {
    # vowels (en-us values)
    "a": ("ae",),
    "a2": ("ae",),
    "aa": ("ae",),
    "a#": ("ax",),
    "a#2": ("ax",),
    "A:": ("aa",),
    "A#": ("aa",),
    "A~": ("aa",),
    "A@": ("aa", "r"),
    "0": ("aa",),
    "0#": ("aa",),
    "02": ("aa",),
    "V": ("ah",),
    "VR": ("er",),
    "@": ("ax",),
    "@#": ("ax",),
    "@-": ("ax",),
    "@2": ("ax",),
    "@5": ("ax",),
    "@L": ("ax", "l"),
    "3": ("er",),
    "3:": ("er",),
    "E": ("eh",),
    "E#": ("eh",),
    "E2": ("eh",),
    "e@": ("eh", "r"),
    "e": ("ey",),
    "e:": ("ey",),
    "eI": ("ey",),
    "e#": ("ih",),
    "I": ("ih",),
    "I#": ("ih",),
    "I2": ("ih",),
    "I2#": ("ih",),
    "IR": ("ih", "r"),
    "i": ("iy",),
    "i:": ("iy",),
    "i@": ("iy", "ax"),
    "i@3": ("ih", "r"),
    "O": ("ao",),
    "O:": ("ao",),
    "O2": ("ao",),
    "O~": ("ao",),
    "O@": ("ao", "r"),
    "o@": ("ao", "r"),
    "OI": ("oy",),
    "o": ("ow",),
    "o:": ("ow",),
    "oU": ("ow",),
    "oU#": ("ow",),
    "U": ("uh",),
    "U@": ("uh", "r"),
    "u": ("uw",),
    "u:": ("uw",),
    "aI": ("ay",),
    "aI@": ("ay", "ax"),
    "aI3": ("ay", "er"),
    "aU": ("aw",),
    "aU@": ("aw", "er"),
    # syllabic consonants: Festival spells them schwa + consonant ("button" b ah t ax n)
    "l-": ("ax", "l"),
    "m-": ("ax", "m"),
    "n-": ("ax", "n"),
    "N-": ("ax", "ng"),
    # consonants
    "b": ("b",),
    "d": ("d",),
    "d#": ("d",),
    "d[": ("d",),
    "g": ("g",),
    "k": ("k",),
    "p": ("p",),
    "t": ("t",),
    "t#": ("t",),
    "t2": ("t",),
    "t[": ("t",),
    "*": ("t",),  # en-us flap ("better"); Festival's lexicon writes t or d, both stops
    "?": ("t",),  # glottal stop for t before syllabic n ("button")
    "tS": ("ch",),
    "tS;": ("ch",),
    "dZ": ("jh",),
    "dZ;": ("jh",),
    "f": ("f",),
    "v": ("v",),
    "v#": ("v",),
    "T": ("th",),
    "D": ("dh",),
    "s": ("s",),
    "s.": ("s",),
    "s;": ("s",),
    "z": ("z",),
    "z#": ("z",),
    "z.": ("z",),
    "z/2": ("z",),
    "z;": ("z",),
    "S": ("sh",),
    "S;": ("sh",),
    "Z": ("zh",),
    "Z;": ("zh",),
    "h": ("hh",),
    "m": ("m",),
    "n": ("n",),
    "n.": ("n",),
    "N": ("ng",),
    "l": ("l",),
    "l#": ("l",),
    "l.": ("l",),
    "l/": ("l",),
    "l/2": ("l",),
    "l/3": ("l",),
    "L": ("l",),
    "L/": ("l",),
    "l^": ("l", "y"),
    "r": ("r",),
    "r-": ("r",),
    "r.": ("r",),
    "r/": ("r",),
    'r"': ("r",),
    "R": ("r",),
    "R2": ("r",),
    "R3": ("r",),
    "**": ("r",),
    "w": ("w",),
    "w#": ("w",),
    "j": ("y",),
    # foreign sounds from base1, nearest English phones
    "n^": ("n", "y"),
    "J^": ("n", "y"),
    "J": ("g",),
    "c": ("k",),
    "q": ("k",),
    "x": ("hh",),
    "X": ("hh",),
    "C": ("hh",),
    "B": ("v",),
    "Q": ("g",),
    'Q"': ("g",),
    "Q^": ("g",),
    ";": (),  # palatalization mark, no sound of its own
    "#X1": (),  # placeholder used by espeak for spelled-out symbols
}

# Sound phonemes of each shipped non-English language: {mnemonic: espeak phoneme type}.
ESPEAK_PHONEMES: dict[str, dict[str, str]] = {
    "es": {
        "#X1": "fric",
        "*": "vstop",
        "**": "liquid",
        ";": "liquid",
        "?": "stop",
        "@": "vowel",
        "@-": "vowel",
        "B": "vfric",
        "C": "fric",
        "D": "vfric",
        "E": "vowel",
        "EI": "vowel",
        "J": "vstop",
        "J^": "vfric",
        "L": "liquid",
        "L/": "liquid",
        "N": "nasal",
        "N-": "vowel",
        "O": "vowel",
        "Q": "vfric",
        'Q"': "vfric",
        "Q^": "vfric",
        "R": "liquid",
        "R2": "liquid",
        "R3": "liquid",
        "S": "fric",
        "S;": "fric",
        "T": "fric",
        "U": "vowel",
        "X": "fric",
        "Y": "vowel",
        "Z": "vfric",
        "Z;": "vfric",
        "a": "vowel",
        "a/": "vowel",
        "aI": "vowel",
        "aU": "vowel",
        "b": "vstop",
        "c": "stop",
        "d": "vstop",
        "dZ": "vstop",
        "dZ;": "vstop",
        "d[": "vstop",
        "e": "vowel",
        "e/": "vowel",
        "eI": "vowel",
        "eU": "vowel",
        "f": "fric",
        "g": "vstop",
        "h": "fric",
        "i": "vowel",
        "iU": "vowel",
        "j": "liquid",
        "k": "stop",
        "l": "liquid",
        "l#": "fric",
        "l-": "vowel",
        "l.": "liquid",
        "l/": "liquid",
        "l/2": "liquid",
        "l/3": "liquid",
        "l^": "liquid",
        "m": "nasal",
        "m-": "vowel",
        "n": "nasal",
        "n-": "vowel",
        "n.": "nasal",
        "n^": "nasal",
        "o": "vowel",
        "o/": "vowel",
        "oI": "vowel",
        "p": "stop",
        "q": "stop",
        "r": "vstop",
        'r"': "vfric",
        "r-": "vowel",
        "r.": "liquid",
        "r/": "liquid",
        "s": "fric",
        "s.": "fric",
        "s;": "fric",
        "t": "stop",
        "tS": "stop",
        "tS;": "stop",
        "t[": "stop",
        "ts": "stop",
        "u": "vowel",
        "uI": "vowel",
        "v": "vfric",
        "v#": "vfric",
        "w": "liquid",
        "w2": "liquid",
        "x": "fric",
        "y": "vowel",
        "z": "vfric",
        "z.": "vfric",
        "z;": "vfric",
    },
    "de": {
        "#X1": "fric",
        "*": "vstop",
        "**": "liquid",
        "3": "vowel",
        ";": "liquid",
        "?": "stop",
        "@": "vowel",
        "@-": "vowel",
        "A": "vowel",
        "A:": "vowel",
        "A~": "vowel",
        "B": "vfric",
        "C": "fric",
        "D": "vfric",
        "E": "vowel",
        "E2": "vowel",
        "E:": "vowel",
        "EI": "vowel",
        "I": "vowel",
        "I:": "vowel",
        "J": "vstop",
        "J^": "vfric",
        "L": "liquid",
        "L/": "liquid",
        "N": "nasal",
        "N-": "vowel",
        "O": "vowel",
        "OY": "vowel",
        "O~": "vowel",
        "Q": "vfric",
        'Q"': "vfric",
        "Q^": "vfric",
        "R": "liquid",
        "R2": "liquid",
        "R3": "liquid",
        "S": "fric",
        "S;": "fric",
        "T": "fric",
        "U": "vowel",
        "UR": "vowel",
        "W": "vowel",
        "W~": "vowel",
        "X": "fric",
        "Y:": "vowel",
        "Z": "vfric",
        "Z;": "vfric",
        "a": "vowel",
        "aI": "vowel",
        "aU": "vowel",
        "b": "vstop",
        "c": "stop",
        "d": "vstop",
        "dZ": "vstop",
        "dZ;": "vstop",
        "d[": "vstop",
        "e": "vowel",
        "e:": "vowel",
        "f": "fric",
        "g": "vstop",
        "g#": "fric",
        "h": "fric",
        "i": "vowel",
        "i2": "vowel",
        "i:": "vowel",
        "iR": "vowel",
        "j": "liquid",
        "k": "stop",
        "l": "liquid",
        "l#": "fric",
        "l-": "vowel",
        "l.": "liquid",
        "l/": "liquid",
        "l/2": "liquid",
        "l/3": "liquid",
        "l2": "liquid",
        "l^": "liquid",
        "m": "nasal",
        "m-": "vowel",
        "n": "nasal",
        "n-": "vowel",
        "n.": "nasal",
        "n^": "nasal",
        "o": "vowel",
        "o:": "vowel",
        "oU": "vowel",
        "p": "stop",
        "pF": "stop",
        "q": "stop",
        "r": "liquid",
        'r"': "vfric",
        "r-": "vowel",
        "r.": "liquid",
        "r/": "liquid",
        "s": "fric",
        "s.": "fric",
        "s;": "fric",
        "t": "stop",
        "tS": "stop",
        "tS;": "stop",
        "t[": "stop",
        "ts": "stop",
        "u": "vowel",
        "u:": "vowel",
        "v": "vfric",
        "v#": "vfric",
        "w": "liquid",
        "x": "fric",
        "y": "vowel",
        "y:": "vowel",
        "z": "vfric",
        "z.": "vfric",
        "z;": "vfric",
    },
    "fr": {
        "#X1": "fric",
        "*": "vstop",
        "**": "liquid",
        ";": "liquid",
        "?": "stop",
        "@": "vowel",
        "@-": "vowel",
        "A~": "vowel",
        "B": "vfric",
        "C": "fric",
        "D": "vfric",
        "E": "vowel",
        "E-": "vowel",
        "E~": "vowel",
        "I": "vowel",
        "I2": "vowel",
        "J": "vstop",
        "J^": "vfric",
        "L": "liquid",
        "L/": "liquid",
        "N": "nasal",
        "N-": "vowel",
        "O": "vowel",
        "O~": "vowel",
        "Q": "vfric",
        'Q"': "vfric",
        "Q^": "vfric",
        "R": "liquid",
        "R2": "liquid",
        "R3": "liquid",
        "S": "fric",
        "S;": "fric",
        "T": "fric",
        "V": "vowel",
        "W": "vowel",
        "W2": "vowel",
        "W~": "vowel",
        "X": "fric",
        "Y": "vowel",
        "Z": "vfric",
        "Z;": "vfric",
        "a": "vowel",
        "a#": "vowel",
        "a-": "vowel",
        "b": "vstop",
        "c": "stop",
        "d": "vstop",
        "dZ": "vstop",
        "dZ;": "vstop",
        "d[": "vstop",
        "e": "vowel",
        "e-": "vowel",
        "f": "fric",
        "g": "vstop",
        "h": "fric",
        "i": "vowel",
        "j": "liquid",
        "j.": "liquid",
        "j/": "vowel",
        "k": "stop",
        "l": "liquid",
        "l#": "fric",
        "l-": "vowel",
        "l.": "liquid",
        "l/": "liquid",
        "l/2": "liquid",
        "l/3": "liquid",
        "l^": "liquid",
        "m": "nasal",
        "m-": "vowel",
        "n": "nasal",
        "n-": "vowel",
        "n.": "nasal",
        "n2": "nasal",
        "n^": "nasal",
        "o": "vowel",
        "oU": "vowel",
        "p": "stop",
        "p2": "stop",
        "q": "stop",
        "r": "vfric",
        'r"': "vfric",
        "r-": "vowel",
        "r.": "liquid",
        "r/": "vfric",
        "r/2": "liquid",
        "r2": "vfric",
        "s": "fric",
        "s.": "fric",
        "s;": "fric",
        "t": "stop",
        "t2": "stop",
        "t3": "stop",
        "tS": "stop",
        "tS;": "stop",
        "t[": "stop",
        "u": "vowel",
        "u:": "vowel",
        "v": "vfric",
        "v#": "vfric",
        "w": "vowel",
        "w/": "liquid",
        "x": "fric",
        "y": "vowel",
        "y-": "vowel",
        "z": "vfric",
        "z.": "vfric",
        "z2": "vfric",
        "z3": "vfric",
        "z;": "vfric",
    },
}

_ESPEAK_CLASS = {
    "tone": "vowel",  # a tone lives on its vowel: the aligner may trade them
    "vowel": "vowel",
    "liquid": "liquid",
    "stop": "stop",
    "vstop": "stop",
    "fric": "fric",
    "vfric": "fric",
    "nasal": "nasal",
}

# Version 2 additions: {language: {mnemonic: espeak phoneme type or "tone"}}, frozen data in catalog order.
EXTRA_PHONEMES: dict[str, dict[str, str]] = json.loads(
    (Path(__file__).with_name("phonemes_v2.json")).read_text(encoding="utf-8")
)["languages"]
_INVENTORIES: dict[str, dict[str, str]] = {**ESPEAK_PHONEMES, **EXTRA_PHONEMES}
_TONES: dict[str, frozenset[str]] = {
    lang: frozenset(m for m, t in inv.items() if t == "tone") for lang, inv in EXTRA_PHONEMES.items()
}

SYMBOLS_V1: tuple[str, ...] = (
    SPECIALS + ARPABET + tuple(f"{lang}:{m}" for lang in ("es", "de", "fr") for m in ESPEAK_PHONEMES[lang])
)
SYMBOLS: tuple[str, ...] = SYMBOLS_V1 + tuple(
    f"{lang}:{m}" for lang, inv in EXTRA_PHONEMES.items() for m in inv
)
SYMBOL_TO_ID: dict[str, int] = {s: i for i, s in enumerate(SYMBOLS)}
TONE_SYMBOLS: frozenset[str] = frozenset(f"{lang}:{m}" for lang, tones in _TONES.items() for m in tones)

# Broad phonetic class of every phone symbol (used by the aligner); specials have none.
_SYMBOL_CLASS: dict[str, str] = {
    **ARPABET_CLASS,
    **{f"{lang}:{m}": _ESPEAK_CLASS[t] for lang, inv in _INVENTORIES.items() for m, t in inv.items()},
}

UNKNOWN_COUNTS: Counter[str] = Counter()
# Trailing characters espeak-ng uses for variants of a base phoneme ("l/3", "t#", "d[", "r.").
_MODIFIERS = '#-./;["^:0123456789~'
_LENGTH_MARK = ":"  # espeak-ng's length modifier: a long vowel or a geminate consonant

# What the mapper does with a length mark the table has no long phoneme for: "double" writes the phone
# twice (the rule models are trained with now), "drop" loses it (models trained before 2026-12-02).
LengthMarks = Literal["double", "drop"]
LENGTH_MARKS: LengthMarks = "double"
LENGTH_MARKS_LEGACY: LengthMarks = "drop"  # a model config or dataset entry that does not say
LENGTH_MARKS_KEY = "length_marks"  # the field in a model's config.json "frontend" object and in voices.json


def _checked_rule(rule, what: str) -> LengthMarks:
    """`rule` if it is a LengthMarks value, else ValueError naming `what`."""
    if rule not in get_args(LengthMarks):
        raise ValueError(f"{what} must be one of {list(get_args(LengthMarks))}, got {rule!r}")
    return rule


def length_marks_of(record: dict, where: str) -> LengthMarks:
    """The length-mark rule `record` (a config "frontend" object, a voices.json entry) was made with;
    ValueError naming `where` for a value that is not a rule."""
    return _checked_rule(record.get(LENGTH_MARKS_KEY, LENGTH_MARKS_LEGACY), f"{where}: {LENGTH_MARKS_KEY!r}")


class InventoryMismatchError(ValueError):
    """A model config was saved with a different symbol inventory."""


def broad_class(symbol: str) -> str | None:
    """Broad class ("vowel", "liquid", "stop", "fric", "nasal") of a phone symbol; None for specials."""
    return _SYMBOL_CLASS.get(symbol)


def symbols_to_ids(symbols: list[str]) -> list[int]:
    """Ids of `symbols`; raises KeyError-free ValueError naming the first symbol not in the inventory."""
    try:
        return [SYMBOL_TO_ID[s] for s in symbols]
    except KeyError as exc:
        raise ValueError(f"symbol {exc.args[0]!r} is not in inventory version {SYMBOLS_VERSION}") from None


def inventory_config() -> dict:
    """The inventory as saved into a model's config.json."""
    return {"version": SYMBOLS_VERSION, "symbols": list(SYMBOLS)}


def check_inventory_config(config: dict) -> None:
    """Raise InventoryMismatchError unless `config` (from `inventory_config()`) matches this inventory.

    An older version is accepted when its symbols are exactly the start of this inventory (version 1 is
    the first 367 symbols of version 2): every id it knows still means the same symbol.
    """
    if not isinstance(config, dict) or "symbols" not in config:
        raise InventoryMismatchError("model config has no symbol inventory ('symbols' list)")
    version, symbols = config.get("version"), list(config["symbols"])
    prefix = {1: SYMBOLS_V1, SYMBOLS_VERSION: SYMBOLS}.get(version) if isinstance(version, int) else None
    if prefix is None or symbols != list(prefix):
        raise InventoryMismatchError(
            f"model was trained with symbol inventory version {config.get('version')!r} "
            f"({len(config['symbols'])} symbols); this frontend has version {SYMBOLS_VERSION} "
            f"({len(SYMBOLS)} symbols)"
        )


def _known_run(name: str, inventory: dict[str, str]) -> tuple[str, str] | None:
    """`name` as two phonemes of `inventory` ("es" -> ("e", "s")), the first as long as it can be; None if it
    is not two joined phonemes (anything else unknown stays unknown)."""
    for cut in range(len(name) - 1, 0, -1):
        if name[:cut] in inventory and name[cut:] in inventory:
            return name[:cut], name[cut:]
    return None


def _note_unknown(key: str, result: str) -> None:
    if UNKNOWN_COUNTS[key] == 0:
        log.warning("frontend: unknown espeak phoneme %s mapped to %s", key, result)
    UNKNOWN_COUNTS[key] += 1


def is_pause(name: str, lang: str) -> bool:
    """espeak-ng pause mnemonics start with "_" ("_", "_:", "_!"); Japanese's "_j" (a glide) is a sound."""
    return name.startswith("_") and name not in _INVENTORIES.get(lang, {})


def _split_tone(lang: str, name: str) -> tuple[str, ...] | None:
    """("zh:i", "zh:55") for "i55" in a tonal language whose table has vowel "i" and tone "55"."""
    tones = _TONES.get(lang)
    if not tones or not name[-1:].isdigit():
        return None
    for cut in range(1, len(name)):
        base, tone = name[:cut], name[cut:]
        if tone in tones and base in _INVENTORIES[lang]:
            return (f"{lang}:{base}", f"{lang}:{tone}")
    return None


class SymbolMapper:
    """Maps espeak-ng phoneme names of one language to symbols.

    Language switches inside the espeak output ("(en)" ... "(fr)") are followed: English stretches
    map through `ENGLISH_MAP`, stretches in another shipped language through its own prefix.
    Pauses ("_", "_:", "_!", ...) inside words carry no phone and are dropped; the frontend places
    pause symbols from punctuation instead.
    """

    def __init__(self, language: str, length_marks: LengthMarks = LENGTH_MARKS) -> None:
        if language not in LANGUAGE_VOICES:
            raise UnsupportedLanguageError(
                f"language {language!r} is not supported; choose one of {sorted(LANGUAGE_VOICES)}"
            )
        self.language = language
        self.length_marks = _checked_rule(length_marks, "length_marks")
        self._cache: dict[tuple[str, str], tuple[str, ...]] = {}

    def _lookup(self, lang: str, name: str) -> tuple[str, ...]:
        cached = self._cache.get((lang, name))
        if cached is not None:
            return cached
        candidate = name
        result: tuple[str, ...] | None = None
        while candidate:
            if lang == "en" and candidate in ENGLISH_MAP:
                result = ENGLISH_MAP[candidate]
                break
            if lang != "en" and candidate in _INVENTORIES.get(lang, {}):
                result = (f"{lang}:{candidate}",)
                break
            tone = _split_tone(lang, candidate)
            if tone is not None:
                result = tone
                break
            if candidate[-1] not in _MODIFIERS:
                break
            candidate = candidate[:-1]
        if result is None and lang not in LANGUAGE_VOICES and self.language != lang:
            # A switch to a language we do not ship: try the phoneme in the utterance's own language.
            result = self._lookup(self.language, name)
            if result != (UNK,):
                _note_unknown(f"({lang}){name}", " ".join(result))
        elif result is None:
            # espeak-ng sometimes leaves out the separator between two phonemes where it joins words (Korean
            # "네 시" gave "n es i"): a name that is two known phonemes is those two; anything else is <unk>
            run = _known_run(name, _INVENTORIES.get(lang, {})) if lang != "en" else None
            result = tuple(f"{lang}:{p}" for p in run) if run else (UNK,)
            _note_unknown(f"({lang}){name}", " ".join(result))
        elif self.length_marks == "double" and _LENGTH_MARK in name[len(candidate) :]:
            result = (*result, result[-1])  # a long phone the table lacks: its short phone twice
        elif candidate != name:
            _note_unknown(f"({lang}){name}", " ".join(result))
        self._cache[(lang, name)] = result
        return result

    def map_phonemes(self, names: list[str], lang: str | None = None) -> tuple[list[str], str]:
        """Symbols for espeak phoneme `names`; returns (symbols, language in effect at the end).

        `lang` is the language in effect at the start (default: this mapper's language); pass the
        returned one to the next call when a switch can span words.
        """
        current = lang or self.language
        out: list[str] = []
        for name in names:
            if name.startswith("(") and name.endswith(")"):
                code = espeak_switch_code(name[1:-1])
                current = code or self.language
                continue
            if is_pause(name, current):
                continue
            syms = self._lookup(current, name)
            if syms and syms[0] == "r" and out and out[-1] == "r":
                syms = syms[1:]  # linking "r-" after "o@" (ao r) would say r twice
            out.extend(syms)
        return out, current
