"""Import a user's LJSpeech-format recordings (`metadata.csv` + `wavs/`) as a dataset voice.

`metadata.csv` lines are ``id|text|normalized text`` (the third field is optional; when present and
non-empty it is the text used). Each recording needs phone durations, which a recording does not come
with: espeak-ng speaks the same text with exact phoneme timings, DTW aligns espeak's cepstra to the
recording's (`dtw.py`), and the phoneme boundaries are carried through the warping path onto the
recording's frames. The frontend then maps those phone durations onto its symbols exactly as for the
synthetic voices, so an imported voice is indistinguishable in format from a generated one.
"""

from __future__ import annotations

import json
import re
import wave
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import soxr

from model_server import vocoder
from model_server.data import dtw
from model_server.data.build import teacher_frames
from model_server.data.dataset import write_voice
from model_server.data.phone_times import SILENCE_DB  # frames this far below the loudest are silence
from model_server.data.voices import VoiceSpec

# Recording length / espeak length outside this range means the text and the audio do not match
# (wrong transcript, long silences): DTW would still return a path, so such utterances are dropped.
MIN_RATIO, MAX_RATIO = 0.33, 3.0
# A recording whose loudest sample is below this is silence (a muted or failed take): its text would be
# aligned onto nothing, since the edges are found relative to the clip's own peak.
SILENT_PEAK = 10 ** (-50 / 20)  # -50 dBFS
# Written forms the normalizer reads its own way ("48213" as digits, "5th" as "fifth"), which need not be
# what the speaker said: such lines should give the spoken text in the third column.
_READ_BY_RULE = re.compile(r"[0-9$€£%&@#/]")


class LJSpeechError(ValueError):
    """Bad input folder: the message names the file (and line) at fault."""


class SilentRecording(LJSpeechError):
    """A recording with no sound: dropped (named in the report), not fatal."""


@dataclass
class ImportReport:
    """What an import kept and dropped, by utterance id, so a user can find the lines to fix."""

    dropped: list[tuple[str, int, str]] = field(default_factory=list)  # (id, metadata line, reason)
    read_by_rule: list[tuple[str, int]] = field(default_factory=list)  # digits/symbols, no spoken column
    unreferenced_wavs: list[str] = field(default_factory=list)


@dataclass
class Entry:
    id: str
    text: str
    wav: Path
    line: int
    spoken_given: bool = False  # the third column gave the text as spoken


def read_metadata(folder: Path) -> list[Entry]:
    """Parse and validate metadata.csv (every wav must exist) before any expensive work starts."""
    folder = Path(folder)
    meta = folder / "metadata.csv"
    if not folder.is_dir():
        raise LJSpeechError(f"{folder}: not a directory")
    if not meta.exists():
        raise LJSpeechError(f"{meta}: missing (expected LJSpeech format: metadata.csv with id|text|normalized "
                            "lines and a wavs/ folder)")
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    try:
        text_lines = meta.read_text(encoding="utf-8-sig").splitlines()  # -sig: Excel's "CSV UTF-8" has a BOM
    except UnicodeDecodeError as exc:
        raise LJSpeechError(f"{meta}: not UTF-8 (byte {exc.start}); save it as UTF-8") from None
    for lineno, raw in enumerate(text_lines, 1):
        if not raw.strip():
            continue
        fields = raw.split("|")
        where = f"{meta}:{lineno}"
        if len(fields) < 2:
            raise LJSpeechError(f"{where}: expected 'id|text|normalized text', got {raw!r}")
        uid = fields[0].strip()
        text = fields[2].strip() if len(fields) >= 3 and fields[2].strip() else fields[1].strip()
        if not uid:
            raise LJSpeechError(f"{where}: empty id")
        if not text:
            raise LJSpeechError(f"{where}: empty text for id {uid!r}")
        if uid in seen:
            raise LJSpeechError(f"{where}: id {uid!r} already used on line {seen[uid]}")
        seen[uid] = lineno
        wav = folder / "wavs" / f"{uid}.wav"
        if not wav.exists():
            raise LJSpeechError(f"{wav}: missing (referenced by {where})")
        spoken_given = len(fields) >= 3 and bool(fields[2].strip())
        entries.append(Entry(uid, text, wav, lineno, spoken_given))
    if not entries:
        raise LJSpeechError(f"{meta}: no utterances")
    return entries


def read_wav(path: Path) -> np.ndarray:
    """Mono float32 samples at 16 kHz from a PCM wav (8/16/32-bit, any rate, channels averaged)."""
    try:
        with wave.open(str(path), "rb") as w:
            width, ch, sr = w.getsampwidth(), w.getnchannels(), w.getframerate()
            raw = w.readframes(w.getnframes())
    except (wave.Error, EOFError) as exc:
        raise LJSpeechError(f"{path}: not a readable PCM wav ({exc})") from None
    if width == 1:
        x = (np.frombuffer(raw, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width == 2:
        x = np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0
    elif width == 4:
        x = np.frombuffer(raw, "<i4").astype(np.float32) / 2147483648.0
    else:
        raise LJSpeechError(f"{path}: unsupported sample width {width * 8} bits (use 8, 16 or 32-bit PCM)")
    x = x.reshape(-1, ch).mean(axis=1)
    if len(x) == 0:
        raise LJSpeechError(f"{path}: no audio")
    if np.abs(x).max() < SILENT_PEAK:
        raise SilentRecording(f"{path}: silent (peak below -50 dBFS)")
    if sr != vocoder.SAMPLE_RATE:
        x = soxr.resample(x, sr, vocoder.SAMPLE_RATE, quality="HQ").astype(np.float32)
    return x


def speech_bounds(features: np.ndarray) -> tuple[int, int]:
    """[first, last + 1) frames of speech: edge frames quieter than SILENCE_DB below the peak are silence."""
    env = np.asarray(features[:, vocoder.ENV], dtype=np.float64)
    peak = env.max(axis=1)
    energy = peak + np.log(np.exp(env - peak[:, None]).sum(axis=1))  # log of total envelope power
    loud = np.flatnonzero(energy > energy.max() - SILENCE_DB * np.log(10.0) / 10.0)
    return int(loud[0]), int(loud[-1]) + 1


def _clip_durations(durations: list[int], start: int, end: int) -> list[int]:
    """Durations restricted to frames [start, end) (segments outside get 0 frames)."""
    bounds = np.clip(np.concatenate([[0], np.cumsum(durations)]), start, end) - start
    return [int(x) for x in np.diff(bounds)]


def align_recording(text_for_teacher: str, espeak_voice: str, audio16: np.ndarray
                    ) -> tuple[np.ndarray, list[str], list[int], float]:
    """Features of the recording and espeak phone durations mapped onto its frames.

    Leading and trailing silence is cut from both sides before DTW and given to explicit pause segments:
    silence has no spectral shape to match, and left in, DTW lets the first and last phones swallow it.
    Returns (features [n, FEATURE_DIM], phone names, frames per phone summing to n, length ratio of
    the speech parts, recording / espeak).
    """
    from model_server.data import espeak

    feats = vocoder.analyze(audio16, vocoder.SAMPLE_RATE)
    r = espeak.render_one(espeak_voice, text_for_teacher)
    if r.audio is None:
        raise LJSpeechError(r.error or "espeak-ng failed")
    ref = vocoder.analyze(r.audio.astype(np.float32) / 32768.0, vocoder.SAMPLE_RATE)
    ref_frames = teacher_frames(r.segments, len(ref))
    r0, r1 = speech_bounds(ref)
    s0, s1 = speech_bounds(feats)
    inner = _clip_durations(ref_frames, r0, r1)
    path = dtw.dtw_path(dtw.cepstra(ref[r0:r1]), dtw.cepstra(feats[s0:s1]))
    mapped = dtw.map_durations(inner, path, s1 - s0)
    names = ["_"] + [n for n, _ in r.segments] + ["_"]
    frames = [s0] + mapped + [len(feats) - s1]
    return feats, names, frames, (s1 - s0) / (r1 - r0)


def import_ljspeech(folder: Path, voice_id: str, language: str, gender: str, dataset_dir: Path,
                    name: str | None = None, description: str = "Imported LJSpeech-format recordings.",
                    progress: bool = True, replace: bool = False) -> dict:
    """Import every utterance of `folder` as voice `voice_id` into `dataset_dir`; returns statistics.

    `voice_id` may not be a catalog voice or one already in the dataset unless `replace`: the import
    overwrote that voice's data, and a fine-tune then retrained the shipped voice on the recordings."""
    from tqdm import tqdm

    from model_server.data import frontend_bridge
    from model_server.frontend.symbols import LANGUAGE_VOICES

    if not voice_id or not all(c.isalnum() or c in "_-" for c in voice_id):
        raise LJSpeechError(f"voice id {voice_id!r} must be non-empty letters, digits, '_' or '-'")
    if language not in LANGUAGE_VOICES:
        raise LJSpeechError(f"language {language!r} is not supported; choose one of {sorted(LANGUAGE_VOICES)}")
    if not replace:  # a re-import of recordings under their own id replaces them; any other voice is refused
        from model_server.data.voices import ALL_VOICES

        in_dataset = Path(dataset_dir) / "voices.json"
        known = json.loads(in_dataset.read_text(encoding="utf-8")) if in_dataset.exists() else []
        taken = set(ALL_VOICES) | {v["id"] for v in known if not str(v.get("teacher", "")).startswith("ljspeech:")}
        if voice_id in taken:
            raise LJSpeechError(
                f"voice id {voice_id!r} is a shipped or generated voice: importing under it would replace its "
                "training data (and a fine-tune would retrain it on these recordings); choose a new id, or pass "
                "--replace to do exactly that"
            )
    entries = read_metadata(Path(folder))
    espeak_voice = LANGUAGE_VOICES[language]
    spec = VoiceSpec(voice_id, name or voice_id, language, gender, description,
                     f"ljspeech:{espeak_voice}", 0.0, 1.0)
    utts, feats_out = [], []
    dropped: dict[str, int] = {}
    listed = {e.wav.name for e in entries}
    report = ImportReport(
        read_by_rule=[(e.id, e.line) for e in entries if not e.spoken_given and _READ_BY_RULE.search(e.text)],
        unreferenced_wavs=sorted(p.name for p in (Path(folder) / "wavs").glob("*.wav") if p.name not in listed))
    offset = 0

    def drop(e: Entry, reason: str, detail: str = "") -> None:
        dropped[reason] = dropped.get(reason, 0) + 1
        report.dropped.append((e.id, e.line, reason + detail))

    for e in tqdm(entries, desc=f"import {voice_id}", unit="utt", disable=not progress):
        try:
            audio = read_wav(e.wav)
        except SilentRecording:
            drop(e, "silent")
            continue
        teacher_text = frontend_bridge.normalize(e.text, language)
        feats, phones, frames, ratio = align_recording(teacher_text, espeak_voice, audio)
        if not MIN_RATIO <= ratio <= MAX_RATIO:
            drop(e, "length ratio", f" {ratio:.2f} outside {MIN_RATIO}-{MAX_RATIO} (text and audio differ)")
            continue
        res = frontend_bridge.align(spec, e.text, phones, frames, len(feats))
        if res.error is not None:
            drop(e, res.error.split(":", 1)[0])
            continue
        utts.append({"id": e.id, "text": e.text, "language": language, "voice": voice_id,
                     "symbols": res.symbols, "durations": res.durations, "n_frames": len(feats),
                     "frame_offset": offset})
        feats_out.append(feats)
        offset += len(feats)
    if not utts:
        raise LJSpeechError(f"{folder}: every utterance was dropped ({dropped}); check transcripts and audio")
    write_voice(Path(dataset_dir), spec, utts, feats_out)
    return {"utterances": len(utts), "frames": offset, "hours": offset / 80.0 / 3600.0,
            "dropped": sum(dropped.values()), "drop_reasons": dropped, "report": report}
