"""ctypes binding to the libespeak-ng shipped by the `espeakng-loader` wheel.

Two entry points, used both when generating training data and when serving:

* `phonemize(text, voice)` -> words of espeak-ng ASCII phoneme mnemonics (stress stripped),
  via `espeak_TextToPhonemes`, one clause per call.
* `synthesize_with_phonemes(text, voice, rate)` -> (int16 audio, sample rate, events), via
  synchronous synthesis with phoneme events, so the teacher audio comes with exact phoneme starts.

Stress marks (`'` primary, `,` secondary) are stripped from the phoneme names in both paths and
reported separately (`phonemize_detailed`, `PhonemeEvent.stress`), so the two sequences use the same
names. Systematic difference between the two: synthesis emits pause phonemes (`_`, `_:`, ...) at clause
boundaries that `espeak_TextToPhonemes` does not print; `is_pause()` identifies them and
`speech_phonemes()` drops them, after which the sequences match (see tests/frontend/test_espeak.py).

espeak-ng keeps global state (current voice, parameters, output buffers), so every call into the
library holds one process-wide lock and the library is initialized once per process (and again in a
forked child, which must not reuse a lock that the parent may have held at fork time).
"""

from __future__ import annotations

import ctypes
import os
import re
import threading
from dataclasses import dataclass

import espeakng_loader
import numpy as np

__all__ = [
    "EspeakError",
    "EspeakVoiceError",
    "Phone",
    "PhonemeEvent",
    "WordEvent",
    "is_pause",
    "PHONEME_TYPES",
    "phone_durations",
    "phoneme_table_inventory",
    "phonemize",
    "phonemize_detailed",
    "phonemize_ipa",
    "phonemize_with_ipa",
    "sample_rate",
    "speech_phonemes",
    "synthesize_with_phonemes",
]


class EspeakError(ValueError):
    """espeak-ng could not be loaded or refused a request."""


class EspeakVoiceError(EspeakError):
    """The requested espeak-ng voice does not exist in the bundled data."""


# --- constants from speak_lib.h -------------------------------------------------------------------
_AUDIO_OUTPUT_SYNCHRONOUS = 2
_INITIALIZE_PHONEME_EVENTS = 0x0001
_INITIALIZE_DONT_EXIT = 0x8000
_CHARS_UTF8 = 1
_POS_CHARACTER = 1
_EVENT_LIST_TERMINATED = 0
_EVENT_WORD = 1
_EVENT_PHONEME = 7
_PARAM_RATE = 1
_DEFAULT_RATE = 175  # words per minute; espeak-ng's own default
# Separator between phoneme names in espeak_TextToPhonemes output (bits 8-23 of phonememode).
# U+2016 never occurs in mnemonics, unlike '|' and '_' which do (German "_|", pauses "_:").
_SEP = "\u2016"
_PHONEME_MODE = ord(_SEP) << 8
_IPA_MODE = 0x02  # phonememode bit 1: IPA in UTF-8, no separator (what IPA-reading neural voices take)
_STRESS_CHARS = {"'": 2, ",": 1}
# Modifier phonemes that IPA output writes into the phoneme before them ("n" ";" -> "nʲ" in Russian, "k" "_j"
# -> "kʲ" in Japanese, Romanian's word-final non-syllabic "I^" -> "ʲ": "z;" "I^" -> "zʲˌʲ", Latvian's ">" after a
# vowel read alone, "e-pastu": "'e" ">" -> "ˈeː"), so an IPA word can have fewer separated pieces than the word has
# mnemonics.
IPA_MERGED_MODIFIERS = frozenset({";", "_j", "I^", ">"})


class _EventId(ctypes.Union):
    _fields_ = [("number", ctypes.c_int), ("name", ctypes.c_char_p), ("string", ctypes.c_char * 8)]


class _Event(ctypes.Structure):
    # espeak_EVENT; `sample` is the absolute output sample index of the event.
    _fields_ = [
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", _EventId),
    ]


_SynthCallback = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event)
)


@dataclass(frozen=True, slots=True)
class Phone:
    """One phoneme from `phonemize_detailed`: mnemonic without stress, stress 0/1 (secondary)/2 (primary)."""

    name: str
    stress: int


@dataclass(frozen=True, slots=True)
class PhonemeEvent:
    """A phoneme starting at output sample `sample` (mnemonic without stress marks)."""

    name: str
    stress: int
    sample: int


@dataclass(frozen=True, slots=True)
class WordEvent:
    """A word starting at output sample `sample`; `start`/`length` index the input text in characters."""

    start: int
    length: int
    sample: int


def _split_stress(raw: str) -> tuple[str, int]:
    stress = 0
    i = 0
    while i < len(raw) and raw[i] in _STRESS_CHARS:
        stress = max(stress, _STRESS_CHARS[raw[i]])
        i += 1
    return raw[i:], stress


def is_pause(name: str) -> bool:
    """True for espeak-ng pause phonemes (`_`, `_:`, `_!`, ...): inserted by synthesis at clause ends.

    German's glottal-stop-like `_!` and `_|` also appear inside words in TextToPhonemes output; they are
    pauses all the same, which is why `speech_phonemes` drops them from both sequences when comparing.
    """
    return name.startswith("_")


class _Espeak:
    """The loaded library plus the state of the synthesis in progress (guarded by `lock`)."""

    def __init__(self) -> None:
        try:
            lib = ctypes.CDLL(espeakng_loader.get_library_path())
            data_path = espeakng_loader.get_data_path()
        except (OSError, RuntimeError) as exc:
            raise EspeakError(f"cannot load libespeak-ng from espeakng-loader: {exc}") from exc
        lib.espeak_Initialize.restype = ctypes.c_int
        lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        lib.espeak_SetVoiceByName.restype = ctypes.c_int
        lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        lib.espeak_TextToPhonemes.restype = ctypes.c_char_p
        lib.espeak_TextToPhonemes.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_int]
        lib.espeak_SetSynthCallback.restype = None
        lib.espeak_SetSynthCallback.argtypes = [_SynthCallback]
        lib.espeak_SetParameter.restype = ctypes.c_int
        lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.espeak_Synth.restype = ctypes.c_int
        lib.espeak_Synth.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_uint,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_void_p,
            ctypes.c_void_p,
        ]
        rate = lib.espeak_Initialize(
            _AUDIO_OUTPUT_SYNCHRONOUS,
            0,
            data_path.encode(),
            _INITIALIZE_PHONEME_EVENTS | _INITIALIZE_DONT_EXIT,
        )
        if rate <= 0:
            raise EspeakError(f"espeak_Initialize failed (returned {rate}) with data path {data_path}")
        self.lib = lib
        self.sample_rate = rate
        self.voice: str | None = None
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self._chunks: list[bytes] = []
        self._events: list[PhonemeEvent | WordEvent] = []
        # Keep a reference to the ctypes callback: if it were collected, espeak would call freed memory.
        self._callback = _SynthCallback(self._on_synth)
        lib.espeak_SetSynthCallback(self._callback)

    def _on_synth(self, wav, numsamples, events) -> int:
        if wav and numsamples > 0:
            self._chunks.append(ctypes.string_at(wav, numsamples * 2))
        i = 0
        while events[i].type != _EVENT_LIST_TERMINATED:
            ev = events[i]
            if ev.type == _EVENT_PHONEME:
                name, stress = _split_stress(ev.id.string.decode("utf-8", "replace"))
                self._events.append(PhonemeEvent(name, stress, ev.sample))
            elif ev.type == _EVENT_WORD:
                # text_position is 1-based, in characters of the UTF-8 input.
                self._events.append(WordEvent(ev.text_position - 1, ev.length, ev.sample))
            i += 1
        return 0  # 0 = continue synthesis

    def set_voice(self, voice: str) -> None:
        if voice == self.voice:
            return
        if not voice or not voice.isascii():
            raise EspeakVoiceError(f"invalid espeak-ng voice name {voice!r}")
        status = self.lib.espeak_SetVoiceByName(voice.encode())
        if status != 0:
            self.voice = None
            raise EspeakVoiceError(f"espeak-ng has no voice {voice!r} (status {status})")
        self.voice = voice
        # A voice change queues a command (with a malloc'd copy of the voice) for the wave generator,
        # consumed only by synthesis. Phonemize-only use (the server) would pile them up: the queue
        # wraps and leaks the copies, and the next synthesis floods its event list with stale
        # sample-rate events, dropping the first phoneme events. Synthesizing "" drains it (~20 us).
        self._chunks, self._events = [], []
        empty = ctypes.create_string_buffer(b"")
        self.lib.espeak_Synth(empty, 1, 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None)
        self._chunks, self._events = [], []

    def _clauses(self, text: str, mode: int) -> list[str]:
        """espeak_TextToPhonemes output for `text`, one decoded string per clause, in phoneme mode `mode`."""
        buf = ctypes.create_string_buffer(text.encode("utf-8"))
        ptr = ctypes.c_void_p(ctypes.addressof(buf))
        clauses: list[str] = []
        # espeak_TextToPhonemes translates one clause per call and advances `ptr` (NULL at the end).
        while ptr.value:
            before = ptr.value
            out = self.lib.espeak_TextToPhonemes(ctypes.byref(ptr), _CHARS_UTF8, mode)
            if out:
                clauses.append(out.decode("utf-8", "replace"))
            if ptr.value == before:  # defensive: never loop forever on a clause espeak cannot consume
                break
        # espeak-ng keeps a word it read out of spaced punctuation at the end ("2022 ..": "dot", Croatian
        # "točka") and returns it at the start of the next call, whatever that call's text or voice: each
        # call would read the one before's tail. An empty call drops it (synthesis never says it either).
        empty = ctypes.create_string_buffer(b"")
        self.lib.espeak_TextToPhonemes(ctypes.byref(ctypes.c_void_p(ctypes.addressof(empty))), _CHARS_UTF8, 0)
        return clauses

    def text_to_phonemes(self, text: str) -> list[list[Phone]]:
        words: list[list[Phone]] = []
        for clause in self._clauses(text, _PHONEME_MODE):
            for word in clause.split(" "):
                phones = [Phone(*_split_stress(p)) for p in word.split(_SEP) if p]
                phones = [p for p in phones if p.name]
                if phones:
                    words.append(phones)
        return words

    def text_to_ipa(self, text: str) -> list[str]:
        """One IPA string per clause; espeak-ng drops the clause punctuation."""
        return [c.strip() for c in self._clauses(text, _IPA_MODE) if c.strip()]

    def text_to_phonemes_with_ipa(self, text: str) -> list[list[list[tuple[Phone, str]]]]:
        clauses = []
        for names, ipa in zip(self._clauses(text, _PHONEME_MODE), self._clauses(text, _IPA_MODE | _PHONEME_MODE),
                              strict=True):  # fmt: skip
            name_words, ipa_words = names.strip().split(" "), ipa.strip().split(" ")
            if len(name_words) != len(ipa_words):
                raise EspeakError(f"espeak-ng gave {len(name_words)} words of phonemes but {len(ipa_words)} of IPA "
                                  f"for {text!r}")  # fmt: skip
            pairs = zip(name_words, ipa_words, strict=True)
            clauses.append([w for w in (_pair_ipa(n.split(_SEP), i.split(_SEP)) for n, i in pairs) if w])
        return clauses

    def synthesize(self, text: str, rate: int) -> tuple[np.ndarray, list[PhonemeEvent | WordEvent]]:
        self._chunks = []
        self._events = []
        status = self.lib.espeak_SetParameter(_PARAM_RATE, rate, 0)
        if status != 0:
            raise EspeakError(f"espeak_SetParameter(rate={rate}) failed with status {status}")
        data = text.encode("utf-8")
        buf = ctypes.create_string_buffer(data)
        status = self.lib.espeak_Synth(buf, len(data) + 1, 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None)
        if status != 0:
            raise EspeakError(f"espeak_Synth failed with status {status}")
        audio = np.frombuffer(b"".join(self._chunks), dtype=np.int16).copy()
        events = self._events
        self._chunks, self._events = [], []
        return audio, events


def _pair_ipa(names: list[str], ipa: list[str]) -> list[tuple[Phone, str]]:
    """One word's mnemonics paired with their IPA pieces (both as espeak-ng separates them); a merged
    modifier gets "" (its sound is in the piece before it), and IPA of a stress-only item goes to the next."""
    names = [n for n in names if n]
    if len(ipa) > len(names):  # empty pieces where the mnemonics had empty items
        ipa = [i for i in ipa if i]
    if len(names) != len(ipa):
        kept = [n for n in names if _split_stress(n)[0] not in IPA_MERGED_MODIFIERS]
        if len(kept) != len(ipa):
            raise EspeakError(f"espeak-ng phonemes {names} and IPA {ipa} do not pair one to one")
        pieces = iter(ipa)
        ipa = ["" if _split_stress(n)[0] in IPA_MERGED_MODIFIERS else next(pieces) for n in names]
    out: list[tuple[Phone, str]] = []
    carry = ""
    for raw, piece in zip(names, ipa, strict=True):
        phone = Phone(*_split_stress(raw))
        if not phone.name:
            carry += piece
            continue
        out.append((phone, carry + piece))
        carry = ""
    if carry and out:
        out[-1] = (out[-1][0], out[-1][1] + carry)
    return out


_engine: _Espeak | None = None
_engine_guard = threading.Lock()


def _get() -> _Espeak:
    global _engine, _engine_guard
    eng = _engine
    if eng is not None and eng.pid == os.getpid():
        return eng
    if eng is not None:
        # Forked child: the library state was copied, but locks may be held by parent threads.
        _engine_guard = threading.Lock()
        eng.lock = threading.Lock()
        eng.pid = os.getpid()
        return eng
    with _engine_guard:
        if _engine is None:
            _engine = _Espeak()
        return _engine


# espeak-ng overflows a stack buffer (the process aborts: "stack smashing detected") on letters with dots:
# one run of about 195 or more ("A.B.C...."), or some 60 groups of lower-case ones in a clause ("a.b.c.d.
# a.b.c.d. ..."), in every language tried (en, de, ru, fr) and script. Such letters are read one by one
# anyway: they go to espeak-ng in capitals (the same phonemes: "p.m." and "P.M." read alike) and in groups of
# at most DOTTED_LETTERS_MAX letters.
DOTTED_LETTERS_MAX = 16
_DOTTED_LETTERS = re.compile(r"(?:[^\W\d_]\.){2,}")


def _spell_dotted(m: re.Match) -> str:
    letters = m.group(0).split(".")[:-1]
    groups = range(0, len(letters), DOTTED_LETTERS_MAX)
    return " ".join("".join(f"{c.upper()}." for c in letters[g : g + DOTTED_LETTERS_MAX]) for g in groups)


def _clean(text: str) -> str:
    if not isinstance(text, str):
        raise EspeakError(f"text must be str, got {type(text).__name__}")
    # NUL would terminate the C string early; control characters carry nothing to speak.
    text = "".join(ch if ch.isprintable() else " " for ch in text).strip()
    return _DOTTED_LETTERS.sub(_spell_dotted, text)


def sample_rate() -> int:
    """Output sample rate of espeak-ng synthesis (22050 Hz for the bundled data)."""
    return _get().sample_rate


def phonemize_detailed(text: str, voice: str) -> list[list[Phone]]:
    """Words of `Phone(name, stress)` for `text` spoken with espeak-ng voice `voice` (e.g. "en-us")."""
    text = _clean(text)
    eng = _get()
    with eng.lock:
        eng.set_voice(voice)
        if not text:
            return []
        return eng.text_to_phonemes(text)


def phonemize(text: str, voice: str) -> list[list[str]]:
    """Words of espeak-ng phoneme mnemonics (ASCII, stress marks stripped) for `text`."""
    return [[p.name for p in word] for word in phonemize_detailed(text, voice)]


def phonemize_ipa(text: str, voice: str) -> list[str]:
    """IPA of `text` spoken with espeak-ng voice `voice`, one string per clause (words separated by spaces)."""
    text = _clean(text)
    eng = _get()
    with eng.lock:
        eng.set_voice(voice)
        return eng.text_to_ipa(text) if text else []


def phonemize_with_ipa(text: str, voice: str) -> list[list[list[tuple[Phone, str]]]]:
    """Clauses of words of (`Phone`, its IPA) for `text`: the phonemes of `phonemize_detailed` and, for each, the
    IPA `phonemize_ipa` writes for it (stress marks included), so that a voice reading the IPA can be timed per
    phoneme. Raises EspeakError where the two outputs do not pair (not seen in es, it, pt, id, de, fr, ru, ja)."""
    text = _clean(text)
    eng = _get()
    with eng.lock:
        eng.set_voice(voice)
        return eng.text_to_phonemes_with_ipa(text) if text else []


def synthesize_with_phonemes(
    text: str, voice: str, rate: int | None = None
) -> tuple[np.ndarray, int, list[PhonemeEvent | WordEvent]]:
    """Synthesize `text`; return (int16 mono audio, sample rate, events in time order).

    `rate` is espeak-ng's speaking rate in words per minute (80..450; default 175). Events are
    `PhonemeEvent`s (including pause phonemes, see `is_pause`) and `WordEvent`s.
    """
    if rate is None:
        rate = _DEFAULT_RATE
    if isinstance(rate, bool) or not isinstance(rate, int) or not 80 <= rate <= 450:
        raise EspeakError(f"rate must be an int in 80..450 words per minute, got {rate!r}")
    text = _clean(text)
    eng = _get()
    with eng.lock:
        eng.set_voice(voice)
        if not text:
            return np.zeros(0, dtype=np.int16), eng.sample_rate, []
        audio, events = eng.synthesize(text, rate)
        return audio, eng.sample_rate, events


def speech_phonemes(events: list[PhonemeEvent | WordEvent]) -> list[str]:
    """Phoneme names from synthesis events without pauses: comparable to flattened `phonemize` output."""
    return [e.name for e in events if isinstance(e, PhonemeEvent) and not is_pause(e.name)]


def phone_durations(events: list[PhonemeEvent | WordEvent], total_samples: int) -> list[tuple[str, int]]:
    """(name, duration in samples) per phoneme event, pauses included; durations sum to `total_samples`.

    A phoneme lasts from its event to the next phoneme event; audio before the first event (a few
    ms of onset) is given to the first phoneme so nothing is lost.
    """
    phones = [e for e in events if isinstance(e, PhonemeEvent)]
    if not phones:
        return []
    if total_samples < phones[-1].sample:
        raise EspeakError(
            f"total_samples {total_samples} is before the last phoneme event at {phones[-1].sample}"
        )
    starts = [0] + [p.sample for p in phones[1:]] + [total_samples]
    if any(b < a for a, b in zip(starts, starts[1:], strict=False)):
        raise EspeakError("phoneme events are not in time order")
    return [(p.name, starts[i + 1] - starts[i]) for i, p in enumerate(phones)]


# espeak-ng phoneme types (phoneme.h) that denote sounds; 0 pause, 1 stress and 9+ virtual are not sounds.
PHONEME_TYPES = {2: "vowel", 3: "liquid", 4: "stop", 5: "vstop", 6: "fric", 7: "vfric", 8: "nasal"}


def phoneme_table_inventory(table: str, tones: bool = False) -> dict[str, str]:
    """{mnemonic: type name} of every sound phoneme in espeak-ng phoneme table `table` (e.g. "en-us").

    Read from the `phontab` data file: a table lists only the phonemes it defines and names the table it
    includes, so the inventory is the union along the include chain (later tables override by code).
    This is everything espeak-ng can emit for a voice that uses the table (apart from pauses).
    With `tones`, the table's tone phonemes instead ({"55": "tone", ...}; empty for non-tonal tables):
    espeak-ng prints them glued to the vowel they fall on ("i55").
    """
    import struct

    path = os.path.join(espeakng_loader.get_data_path(), "phontab")
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise EspeakError(f"cannot read espeak-ng phoneme tables at {path}: {exc}") from exc
    tables: list[tuple[str, int, list[tuple[int, str, int]]]] = []
    pos = 4
    for _ in range(data[0]):
        n_phonemes, includes = data[pos], data[pos + 1]
        name = data[pos + 4 : pos + 36].split(b"\0")[0].decode("ascii")
        pos += 36
        entries = []
        for _ in range(n_phonemes):
            # PHONEME_TAB: mnemonic (4 chars, first in the low byte), flags, program, code, type, ...
            mnemonic, _flags, _program, code, ph_type = struct.unpack_from("<IIHBB", data, pos)
            pos += 16
            entries.append((code, mnemonic.to_bytes(4, "little").rstrip(b"\0").decode("latin-1"), ph_type))
        tables.append((name, includes, entries))
    names = [t[0] for t in tables]
    if table not in names:
        raise EspeakError(f"espeak-ng has no phoneme table {table!r}")
    by_code: dict[int, tuple[str, int]] = {}

    def collect(ix: int) -> None:
        if tables[ix][1] > 0:
            collect(tables[ix][1] - 1)
        for code, mnemonic, ph_type in tables[ix][2]:
            by_code[code] = (mnemonic, ph_type)

    collect(names.index(table))
    if tones:
        # Tones are "stress"-type phonemes (type 1) named by their pitch contour digits ("55", "214").
        return {m: "tone" for m, t in sorted(by_code.values()) if t == 1 and m.isdigit()}
    return {m: PHONEME_TYPES[t] for m, t in sorted(by_code.values()) if t in PHONEME_TYPES}
