"""Festival teacher rendering: many sentences per Festival process, with phone segment times.

Festival takes a noticeable time to start and load a voice, so one Scheme script renders a whole batch:
for each sentence it synthesizes, resamples to 16 kHz inside Festival, saves a RIFF wav and writes every
Segment's name and `end` time (seconds). A sentence Festival fails on is caught with `unwind-protect`
and reported as an error for that sentence only, so one bad sentence never loses the batch.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SAMPLE_RATE = 16000

# voice id -> Festival voice command; all are Debian packages the Makefile installs.
FESTIVAL_VOICES = {
    "us_slt_hts": "voice_cmu_us_slt_arctic_hts",
    "kal_diphone": "voice_kal_diphone",
    "it_lp_diphone": "voice_lp_diphone",  # festvox-italp16k, Italian female (GPL-2+)
    "cs_dita": "voice_czech_dita",  # festvox-czech-dita, Czech female (GPL-2+)
    "ca_ona_hts": "voice_upc_ca_ona_hts",  # festvox-ca-ona-hts, Catalan female (LGPL-2.1)
    "fi_lj_diphone": "voice_suo_fi_lj_diphone",  # festvox-suopuhe-lj, Finnish female (LGPL-2.1)
    "ru_nsh_clunits": "voice_msu_ru_nsh_clunits",  # festvox-ru, Russian male
    "hi_nsk_diphone": "voice_hindi_NSK_diphone",  # festvox-hi-nsk, Hindi male
    "mr_nsk_diphone": "voice_marathi_NSK_diphone",  # festvox-mr-nsk, Marathi male
    "te_nsk_diphone": "voice_telugu_NSK_diphone",  # festvox-te-nsk, Telugu male
}

# Festival reads its script as bytes: the Italian and Finnish lexicons spell accented letters in ISO-8859-1,
# the Czech one in ISO-8859-2; the others read UTF-8.
FESTIVAL_ENCODING = {"it_lp_diphone": "latin-1", "fi_lj_diphone": "latin-1", "cs_dita": "iso-8859-2"}


def _phones(lang: str, same: str, renamed: dict[str, str]) -> dict[str, str]:
    """A phone table: phones spelled as espeak-ng spells them (`same`, space-separated), phones renamed to
    an espeak-ng mnemonic, and Festival's pauses ("#", "##", "pau", "_") as the pause."""
    table = {p: f"{lang}:{p}" for p in same.split()}
    table.update({p: f"{lang}:{m}" for p, m in renamed.items()})
    return {**table, "#": "#", "##": "#", "pau": "#", "_": "#"}


# The Indian NSK voices (festvox-hi-nsk, -mr-nsk, -te-nsk) share one IIIT phone set; the vowels differ by
# language in espeak-ng (Hindi/Marathi: schwa @, long vowels with ":"; Telugu: a, short e/o).
_NSK_CONSONANTS = {"kh": "k#", "gh": "g#", "ch": "c", "j": "J", "T": "t.", "D": "d.", "N": "n.", "th": "t",
                   "dh": "d", "tth": "t#", "ddh": "d#", "td": "t.#", "bh": "b#", "y": "j", "L": "l.", "R": "r.",
                   "sh": "S", "ksh": "k", "zh": "z", "sri": "S"}  # fmt: skip
_NSK_SAME = "k g p b m n r l v s h x f w @"

# Festival phone names of non-English voices -> the language's inventory symbols (English Festival phones
# are the ARPAbet symbols themselves). Each table was checked by aligning the voice's phones with the
# frontend's symbols on generated sentences (the exact-match rates are in docs/model.md). A phone that is
# two espeak-ng symbols (a Finnish geminate, a Russian soft consonant written "C;") maps to the first: the
# aligner gives the other its share of the frames.
FESTIVAL_PHONES: dict[str, dict[str, str]] = {
    # Italian: the `italian` phoneset of festlex-ifd; a stressed vowel ("a1") is the same phone, "J" is the
    # palatal nasal, "L" the palatal lateral, "nf" the labiodental nasal (no espeak-ng Italian phoneme of
    # its own: n).
    "it": {
        **{v: f"it:{v}" for v in ("i", "e", "E", "a", "o", "O", "u")},
        **{f"{v}1": f"it:{v}" for v in ("i", "e", "E", "a", "o", "O", "u")},
        **{c: f"it:{c}" for c in ("j", "w", "p", "t", "k", "b", "d", "g", "f", "s", "S", "v", "z", "Z", "ts",
                                  "tS", "dz", "dZ", "m", "n", "l", "r")},  # fmt: skip
        "J": "it:n^", "ng": "it:N", "nf": "it:n", "L": "it:l^", "#": "#",
    },
    # Czech (czech.scm): "~" marks the hacek, "*" a voiceless or velar variant.
    "cs": _phones("cs", "a a: e e: i i: o o: u u: b d f g h j k l m n p s t v z dz", {
        "c": "ts", "c~": "tS", "ch": "x", "d~": "J", "t~": "c", "n~": "n^", "n*": "N", "r": "R", "r~": "R^",
        "r~*": "R^", "s~": "S", "z~": "Z", "dz~": "dZ"}),  # fmt: skip
    # Catalan (upc_catalan central): stressed vowels end in 1, "ax" is the schwa, "r" the tap (espeak "**").
    "ca": _phones("ca", "a e E i o O u b d f g j k l m n p s t w z S Z", {
        "ax": "@", "a1": "a", "e1": "e", "E1": "E", "i1": "i", "o1": "o", "O1": "O", "u1": "u", "r": "**",
        "rr": "R", "J": "n^", "L": "l^"}),  # fmt: skip
    # Finnish (suopuhe): "@" is ä, "7" is ö, ":" marks a long vowel or a geminate (espeak-ng: two symbols).
    "fi": _phones("fi", "a e i o u y b d f g h j k l m n p r s t v N", {
        "@": "&", "7": "Y", **{f"{v}:": v for v in "aeiouy"}, "@:": "&", "7:": "Y",
        **{f"{c}:": c for c in "bdfghjklmnprstv"}, "N:": "N"}),  # fmt: skip
    # Russian (msu_ru_nsh): doubled letters are stressed vowels or soft consonants; unstressed a/o are
    # espeak-ng's V, "ae"/"ay" its reduced i-like and a-like vowels.
    "ru": _phones("ru", "a e i y u p b t d k g f v s z m n l r j", {
        "aa": "A", "oo": "o", "ee": "e", "ii": "i", "uu": "u", "yy": "y", "ae": "I", "ay": "V", "ur": "u",
        "pp": "p", "bb": "b", "tt": "t;", "dd": "d;", "kk": "k", "gg": "g", "ff": "f", "vv": "v", "ss": "s;",
        "zz": "z;", "mm": "m;", "nn": "n", "ll": "l", "rr": "r", "c": "ts", "ch": "tS;", "sh": "S",
        "sch": "S;", "zh": "Z", "h": "x", "hh": "x"}),  # fmt: skip
    "hi": _phones("hi", _NSK_SAME, {**_NSK_CONSONANTS, "h": "H", "a": "@", "aa": "a:", "ih": "I", "iy": "i:",
                                    "uh": "U", "uw": "u:", "eh": "e:", "ee": "E:", "ay": "E:", "oh": "o:",
                                    "oo": "O:", "aw": "O:"}),  # fmt: skip
    "mr": _phones("mr", _NSK_SAME, {**_NSK_CONSONANTS, "a": "@", "aa": "a:", "ih": "i", "iy": "i:", "uh": "u",
                                    "uw": "u:", "eh": "e:", "ee": "E:", "ay": "aI", "oh": "o:", "oo": "O:",
                                    "aw": "aU"}),  # fmt: skip
    "te": _phones("te", _NSK_SAME, {**_NSK_CONSONANTS, "v": "v#", "a": "a", "aa": "a:", "ih": "i", "iy": "i:",
                                    "uh": "u", "uw": "u:", "eh": "e", "ee": "e:", "ay": "aI", "oh": "o",
                                    "oo": "o:", "aw": "aU"}),  # fmt: skip
}


class FestivalError(RuntimeError):
    """Festival is missing, crashed, or produced output that cannot be read."""


@dataclass
class TeacherRender:
    """One rendered sentence: int16 audio at 16 kHz and (phone, end seconds) per Festival Segment."""

    text: str
    audio: np.ndarray | None
    segments: list[tuple[str, float]]
    error: str | None = None


def scheme_string(text: str) -> str:
    """Quote `text` as a Scheme string literal (backslash and double quote escaped, no newlines)."""
    text = " ".join(text.split())
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_PRELUDE = """
(define (statespeak_render text wavpath segpath)
  (let ((fd (fopen segpath "w")))
    (unwind-protect
      (let ((utt (SynthText text)))
        (utt.wave.resample utt 16000)
        (utt.save.wave utt wavpath 'riff)
        (mapcar (lambda (seg) (format fd "%s %f\\n" (item.name seg) (item.feat seg 'end)))
                (utt.relation.items utt 'Segment))
        (format fd "END\\n"))
      (format fd "ERROR\\n"))
    (fclose fd)))
"""


def build_script(voice: str, texts: list[str], workdir: Path) -> str:
    if voice not in FESTIVAL_VOICES:
        raise FestivalError(f"unknown Festival voice {voice!r}; expected one of {sorted(FESTIVAL_VOICES)}")
    lines = [f"({FESTIVAL_VOICES[voice]})", _PRELUDE]
    for i, text in enumerate(texts):
        lines.append(f'(statespeak_render {scheme_string(text)} "{workdir}/{i}.wav" "{workdir}/{i}.seg")')
    return "\n".join(lines) + "\n"


def parse_segments(content: str, source: str = "<segments>") -> list[tuple[str, float]]:
    """Parse a segment dump: one `name end_seconds` per line, terminated by `END`.

    Raises FestivalError (naming `source` and the line) for an ERROR marker, a truncated dump, a bad
    line, or end times that go backwards.
    """
    segs: list[tuple[str, float]] = []
    finished = False
    for lineno, line in enumerate(content.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if line == "END":
            finished = True
            break
        if line == "ERROR":
            raise FestivalError(f"{source}: Festival failed to synthesize this sentence")
        parts = line.split()
        if len(parts) != 2:
            raise FestivalError(f"{source}:{lineno}: expected 'phone end_time', got {line!r}")
        try:
            end = float(parts[1])
        except ValueError:
            raise FestivalError(f"{source}:{lineno}: bad end time {parts[1]!r}") from None
        if segs and end < segs[-1][1]:
            raise FestivalError(f"{source}:{lineno}: end time {end} before previous {segs[-1][1]}")
        segs.append((parts[0], end))
    if not finished:
        raise FestivalError(f"{source}: segment dump is truncated (no END marker)")
    if not segs:
        raise FestivalError(f"{source}: no segments")
    return segs


def read_wav_int16(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path), "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise FestivalError(f"{path}: expected 16-bit mono wav, got {w.getsampwidth() * 8}-bit "
                                f"{w.getnchannels()}-channel")
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).copy(), w.getframerate()


def write_wav_int16(path: Path, audio: np.ndarray, sr: int) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sr)
        w.writeframes(np.asarray(audio, dtype=np.int16).tobytes())


def render_batch(voice: str, texts: list[str], timeout_s: float = 1800) -> list[TeacherRender]:
    """Render `texts` with one Festival process; per-sentence failures are returned, not raised."""
    exe = shutil.which("festival")
    if exe is None:
        raise FestivalError("festival is not installed (Debian packages: festival festvox-us-slt-hts "
                            "festvox-kallpc16k and the other voices of FESTIVAL_VOICES; `make apt` installs them)")
    with tempfile.TemporaryDirectory(prefix="statespeak-fest-") as tmp:
        work = Path(tmp)
        script = work / "batch.scm"
        encoding = FESTIVAL_ENCODING.get(voice, "utf-8")
        script.write_text(build_script(voice, texts, work), encoding=encoding, errors="replace")
        proc = subprocess.run([exe, "-b", str(script)], capture_output=True, text=True, errors="replace",
                              timeout=timeout_s)
        out: list[TeacherRender] = []
        for i, text in enumerate(texts):
            seg_path, wav_path = work / f"{i}.seg", work / f"{i}.wav"
            if not seg_path.exists():
                # Festival died before reaching this sentence: a process-level failure.
                raise FestivalError(f"festival (voice {voice}) stopped before sentence {i} ({text!r}); "
                                    f"exit {proc.returncode}; stderr: {proc.stderr[-800:]}")
            try:
                segs = parse_segments(seg_path.read_text(encoding=encoding, errors="replace"),
                                      f"sentence {i} ({text!r})")
                audio, sr = read_wav_int16(wav_path)
                if sr != SAMPLE_RATE:
                    raise FestivalError(f"sentence {i}: Festival wrote {sr} Hz, expected {SAMPLE_RATE}")
            except FestivalError as exc:
                out.append(TeacherRender(text, None, [], str(exc)))
                continue
            out.append(TeacherRender(text, audio, segs))
        return out
