"""The training dataset format, its writer and its reader (`load_dataset`).

Layout under a dataset directory::

    voices.json                      list of {"id", "name", "language", "gender", "description", "teacher",
                                     "length_marks"} (the frontend's rule the symbols were made with;
                                     absent in datasets written before it existed: "drop")
    <voice_id>/utterances.jsonl      one JSON object per line: id, text, language, voice,
                                     symbols (list[str]), durations (list[int], frames),
                                     n_frames, frame_offset
    <voice_id>/features.npy          float32 [total_frames, FEATURE_DIM]: every utterance's frames
                                     concatenated; rows frame_offset .. frame_offset + n_frames

Invariants the reader checks: len(symbols) == len(durations), sum(durations) == n_frames, utterances
tile features.npy exactly in order.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from model_server.frontend.symbols import LENGTH_MARKS, LENGTH_MARKS_KEY, LengthMarks


class DatasetError(ValueError):
    """The dataset on disk is missing a file or breaks an invariant (the message names file and line)."""


@dataclass
class Utterance:
    id: str
    text: str
    language: str
    voice: str
    symbols: list[str]
    durations: list[int]
    n_frames: int
    frame_offset: int


@dataclass
class VoiceData:
    info: dict
    utterances: list[Utterance]
    features: np.ndarray  # float32 [total_frames, FEATURE_DIM], memory-mapped

    def frames(self, utt: Utterance) -> np.ndarray:
        return self.features[utt.frame_offset:utt.frame_offset + utt.n_frames]


def _atomic_write_text(path: Path, content: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(content, encoding="utf-8")
    os.replace(tmp, path)


def write_voice(dataset_dir: Path, voice, utterances: list[dict], features: list[np.ndarray],
                length_marks: LengthMarks = LENGTH_MARKS) -> None:
    """Write one voice's files and merge its entry into voices.json (other voices' entries are kept).
    `length_marks`: the frontend rule the utterances' symbols were made with (training copies it)."""
    vdir = Path(dataset_dir) / voice.id
    vdir.mkdir(parents=True, exist_ok=True)
    dim = features[0].shape[1] if features else 0
    arr = np.concatenate(features).astype(np.float32) if features else np.zeros((0, dim), np.float32)
    tmp = vdir / "features.npy.tmp.npy"
    np.save(tmp, arr)
    os.replace(tmp, vdir / "features.npy")
    _atomic_write_text(vdir / "utterances.jsonl",
                       "".join(json.dumps(u, ensure_ascii=False) + "\n" for u in utterances))
    _update_voices_json(Path(dataset_dir), [{**voice.metadata(), LENGTH_MARKS_KEY: length_marks}])


def _update_voices_json(dataset_dir: Path, entries: list[dict]) -> None:
    """Put `entries` into the dataset's voices.json, replacing those of the same ids and keeping the others."""
    vpath = dataset_dir / "voices.json"
    ids = {e["id"] for e in entries}
    kept = json.loads(vpath.read_text(encoding="utf-8")) if vpath.exists() else []
    merged = sorted([e for e in kept if e["id"] not in ids] + entries, key=lambda e: e["id"])
    _atomic_write_text(vpath, json.dumps(merged, indent=2, ensure_ascii=False) + "\n")


_UTT_FIELDS = ("id", "text", "language", "voice", "symbols", "durations", "n_frames", "frame_offset")


def load_voice(dataset_dir: Path, info: dict, mmap: bool = True) -> VoiceData:
    vdir = Path(dataset_dir) / info["id"]
    upath, fpath = vdir / "utterances.jsonl", vdir / "features.npy"
    for p in (upath, fpath):
        if not p.exists():
            raise DatasetError(f"{p}: missing (voice {info['id']} is listed in voices.json)")
    feats = np.load(fpath, mmap_mode="r" if mmap else None)
    if feats.ndim != 2 or feats.dtype != np.float32:
        raise DatasetError(f"{fpath}: expected float32 [frames, dim], got {feats.dtype} {feats.shape}")
    utts = []
    expected_offset = 0
    with upath.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{upath}:{lineno}"
            try:
                d = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{where}: invalid JSON ({exc})") from None
            missing = [k for k in _UTT_FIELDS if k not in d]
            if missing:
                raise DatasetError(f"{where}: missing field(s) {missing}")
            u = Utterance(**{k: d[k] for k in _UTT_FIELDS})
            if len(u.symbols) != len(u.durations):
                raise DatasetError(f"{where}: {len(u.symbols)} symbols but {len(u.durations)} durations")
            if sum(u.durations) != u.n_frames or any(x < 0 for x in u.durations):
                raise DatasetError(f"{where}: durations sum to {sum(u.durations)}, n_frames is {u.n_frames}")
            if u.frame_offset != expected_offset:
                raise DatasetError(f"{where}: frame_offset {u.frame_offset}, expected {expected_offset}")
            expected_offset += u.n_frames
            utts.append(u)
    if expected_offset != len(feats):
        raise DatasetError(f"{fpath}: has {len(feats)} frames, utterances.jsonl covers {expected_offset}")
    return VoiceData(info, utts, feats)


def read_voice_infos(dataset_dir: str | Path) -> list[dict]:
    """A dataset directory's `voices.json` entries, without reading any voice's data."""
    vpath = Path(dataset_dir) / "voices.json"
    if not vpath.exists():
        raise DatasetError(f"{vpath}: missing (run `make data` or `python -m model_server.data`)")
    try:
        return json.loads(vpath.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{vpath}: invalid JSON ({exc})") from None


def load_dataset(dataset_dir: str | Path, voices: list[str] | None = None, mmap: bool = True
                 ) -> dict[str, VoiceData]:
    """Read a dataset directory: {voice_id: VoiceData}. Raises DatasetError on any inconsistency."""
    dataset_dir = Path(dataset_dir)
    vpath = dataset_dir / "voices.json"
    infos = read_voice_infos(dataset_dir)
    out = {}
    for info in infos:
        if voices and info["id"] not in voices:
            continue
        out[info["id"]] = load_voice(dataset_dir, info, mmap=mmap)
    if voices:
        missing = sorted(set(voices) - set(out))
        if missing:
            raise DatasetError(f"{vpath}: voice(s) {missing} not in the dataset")
    return out


def merge_datasets(inputs: list[str | Path], out: str | Path,
                   voices: list[str] | None = None) -> dict[str, dict]:
    """Combine dataset directories into `out`: voices side by side, and a voice present in several inputs
    gets all of their utterances (in input order), e.g. the same voice rendered with two `--seed`s.
    `voices`, when given, keeps only those voices (each must be in some input): how one voice of a render
    is left out, say one rendered before a frontend fix, by merging the others into a dataset of their own.

    Every (kept) voice is read with the reader's checks first; a voice's `voices.json` entries must agree between
    inputs (its teacher and `length_marks` decide what the features and symbols mean). An utterance id
    already taken gets the input's position as a suffix (`<id>~2`). Features are copied through a
    memory-mapped file, so a voice larger than memory merges too. Voices already in `out` and in no input
    are kept. Returns {voice: {"utterances", "frames", "inputs"}}."""
    paths = [Path(p) for p in inputs]
    out = Path(out)
    if not paths:
        raise DatasetError("merge: no input datasets")
    for p in paths:
        if p.resolve() == out.resolve():
            raise DatasetError(f"merge: the output {out} is also an input; write to a new directory")
    if len({p.resolve() for p in paths}) != len(paths):
        raise DatasetError("merge: an input is given twice")
    if voices is not None and not voices:
        raise DatasetError("merge: an empty list of voices to keep")
    listed = [(p, read_voice_infos(p)) for p in paths]
    if voices is not None:
        found = {info["id"] for _, infos in listed for info in infos}
        missing = sorted(set(voices) - found)
        if missing:
            raise DatasetError(f"merge: voice(s) {missing} in no input (the inputs hold {sorted(found)})")
    # only the kept voices are read: a left-out voice costs no I/O and is not checked
    loaded = [(p, {i["id"]: load_voice(p, i) for i in infos if voices is None or i["id"] in voices})
              for p, infos in listed]
    infos: dict[str, dict] = {}
    for p, data in loaded:
        for vid, vd in data.items():
            info = {**vd.info}
            info.setdefault(LENGTH_MARKS_KEY, "drop")  # the reader's rule for datasets older than the key
            if vid in infos and infos[vid] != info:
                fields_ = sorted(k for k in set(info) | set(infos[vid]) if info.get(k) != infos[vid].get(k))
                raise DatasetError(f"merge: voice {vid} differs between inputs in voices.json ({', '.join(fields_)}) "
                                   f"at {p}")
            infos.setdefault(vid, info)
    stats = {}
    out.mkdir(parents=True, exist_ok=True)
    for vid in sorted(infos):
        parts = [(k, data[vid]) for k, (_, data) in enumerate(loaded, 1) if vid in data]
        dims = {vd.features.shape[1] for _, vd in parts}
        if len(dims) != 1:
            raise DatasetError(f"merge: voice {vid} has features of different widths {sorted(dims)}")
        total = sum(len(vd.features) for _, vd in parts)
        vdir = out / vid
        vdir.mkdir(parents=True, exist_ok=True)
        tmp = vdir / "features.npy.tmp.npy"
        feats = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float32, shape=(total, dims.pop()))
        lines, seen, offset = [], set(), 0
        for k, vd in parts:
            for u in vd.utterances:
                uid = u.id if u.id not in seen else f"{u.id}~{k}"
                if uid in seen:
                    raise DatasetError(f"merge: voice {vid}: utterance id {u.id} repeats within input {k}")
                seen.add(uid)
                row = {**asdict(u), "id": uid, "frame_offset": offset}
                lines.append(json.dumps(row, ensure_ascii=False) + "\n")
                feats[offset:offset + u.n_frames] = vd.frames(u)
                offset += u.n_frames
        feats.flush()
        del feats
        os.replace(tmp, vdir / "features.npy")
        _atomic_write_text(vdir / "utterances.jsonl", "".join(lines))
        stats[vid] = {"utterances": len(lines), "frames": total, "inputs": [k for k, _ in parts]}
    _update_voices_json(out, list(infos.values()))
    return stats
