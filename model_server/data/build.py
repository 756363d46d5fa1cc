"""`make data`: plan batches, render teachers + analyze features in worker processes, align, write.

Two stages, both resumable:

1. Render (worker processes, the slow part): per batch of sentences, the teacher renders the audio
   (Festival, espeak-ng or hibari-tts), `vocoder.analyze` computes the frame features, and each teacher
   phone gets a duration in frames. The batch is saved atomically to ``<out>/cache/<voice>/batch_NNNNN.npz`` together
   with a key of everything it was made from, so a rerun skips finished batches and redoes stale ones.
2. Assemble (main process, fast): the frontend turns each sentence into symbols, the teacher phone
   durations are mapped onto them (`frontend.align.align_durations`), utterances whose alignment is poor
   are dropped and counted, and the dataset is written in the format `dataset.load_dataset` reads.

Everything is deterministic: the sentence list comes from a seeded generator, batches are fixed by the
plan, and results are written in plan order whatever order the workers finish in.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from model_server import vocoder
from model_server.data import text as textgen
from model_server.data.dataset import write_voice
from model_server.data.voices import VoiceSpec

BATCH_SIZE = 40
FRAME_RATE = vocoder.SAMPLE_RATE / vocoder.HOP  # 80 frames per second
CACHE_VERSION = 1


def teacher_frames(segments: list[tuple[str, float]], n_frames: int) -> list[int]:
    """Frames per teacher segment from segment end times (seconds); the result sums to `n_frames`.

    Frame k describes time k * HOP / SR, so a segment owns the frames between its rounded start and end
    boundaries. Boundaries are rounded half-up (deterministic, unlike banker's rounding), clipped to
    [0, n_frames] and kept monotone; the last segment ends at n_frames, absorbing the final partial hop.
    """
    if not segments:
        raise ValueError("no teacher segments")
    if n_frames <= 0:
        raise ValueError(f"n_frames must be positive, got {n_frames}")
    bounds = []
    prev = 0
    for _, end in segments[:-1]:
        b = min(n_frames, max(prev, math.floor(end * FRAME_RATE + 0.5)))
        bounds.append(b)
        prev = b
    bounds.append(n_frames)
    out = [bounds[0]] + [b - a for a, b in zip(bounds, bounds[1:], strict=False)]
    assert sum(out) == n_frames
    return out


@dataclass
class Batch:
    voice: VoiceSpec
    index: int
    texts: list[str]
    teacher_texts: list[str]
    path: Path

    @property
    def key(self) -> str:
        h = hashlib.sha256()
        h.update(json.dumps([CACHE_VERSION, self.voice.teacher, teacher_phone_table(self.voice), self.texts,
                             self.teacher_texts, vocoder.FEATURE_DIM, vocoder.HOP,
                             *teacher_readings(self.voice, self.teacher_texts)], ensure_ascii=False).encode())
        return h.hexdigest()

    def is_done(self) -> bool:
        if not self.path.exists():
            return False
        try:
            with np.load(self.path) as z:
                return str(z["key"]) == self.key
        except (OSError, KeyError, ValueError):
            return False  # unreadable or partial file from an older run: redo it


def sentence_count(voice: VoiceSpec, hours_scale: float) -> int:
    return max(1, round(voice.hours * hours_scale * 3600.0 / voice.seconds_per_sentence))


# Teachers whose data gets word sentences: those reading espeak-ng's phonemes (Kokoro reads its IPA), whose
# readings align with the frontend's whatever the words. Festival's voices read by their own lexicons and
# letter-to-sound rules: its Finnish voice failed alignment on 5 of 10 sentences when half were word sentences,
# where its CLDR text keeps at least 6 in 10 (tests/data/test_languages_data.py).
WORD_TEACHERS = ("kokoro", "espeak")


def plan(voices: list[VoiceSpec], out: Path, hours_scale: float, seed: int,
         normalize: Callable[[str, str], str], batch_size: int = BATCH_SIZE,
         word_share: float = 0.0) -> list[Batch]:
    """Fixed list of batches: sentences per voice (seeded by seed and voice id) cut into batches;
    `word_share` of them everyday-word sentences (`text.generate_sentences`) where the teacher reads
    espeak-ng's phonemes (`WORD_TEACHERS`)."""
    batches = []
    for v in voices:
        share = word_share if v.teacher_kind in WORD_TEACHERS else 0.0
        texts = textgen.generate_sentences(v.language, sentence_count(v, hours_scale), seed=f"{seed}/{v.id}",
                                           word_share=share)
        teacher = [normalize(t, v.language) for t in texts]
        for i in range(0, len(texts), batch_size):
            idx = i // batch_size
            batches.append(Batch(v, idx, texts[i:i + batch_size], teacher[i:i + batch_size],
                                 out / "cache" / v.id / f"batch_{idx:05d}.npz"))
    return batches


def _render(voice: VoiceSpec, texts: list[str]):
    if voice.teacher_kind == "festival":
        from model_server.data import festival

        return festival.render_batch(voice.teacher_voice, texts)
    if voice.teacher_kind == "kokoro":
        from model_server.data import kokoro

        return kokoro.render_batch(voice.teacher_voice, texts, voice.language)
    if voice.teacher_kind == "espeak":
        from model_server.data import espeak

        return espeak.render_batch(voice.teacher_voice, texts)
    if voice.teacher_kind == "hibari":
        from model_server.data import hibari_teacher

        return hibari_teacher.render_batch(voice.teacher_voice, texts)
    raise ValueError(f"voice {voice.id}: unknown teacher {voice.teacher!r}")


def teacher_phone_table(voice: VoiceSpec) -> list:
    """The table that maps the teacher's own phones to the inventory, as JSON-able data, for the cache keys:
    a cached utterance keeps the phones mapped when it was rendered, so a changed table must miss the cache.
    (espeak-ng and Kokoro renders keep espeak-ng's own mnemonics, mapped to symbols when the dataset is
    assembled, so a mapping change such as the length-mark rule reuses them; a change to what espeak-ng itself
    says bumps CACHE_VERSION. Kokoro's key names how its phonemes are timed, so renders timed another way miss.)"""
    if voice.teacher_kind == "hibari":
        from model_server.data import hibari_teacher as h
        from model_server.data import phone_times

        return [sorted(h.MISAKI_TO_ARPABET.items()), sorted(h.STRESS_MARKS), sorted(h.AFTER_MARKS), h.TEACHER_PAUSE,
                phone_times.RULES]
    if voice.teacher_kind == "festival":
        from model_server.data import festival

        return sorted(festival.FESTIVAL_PHONES.get(voice.language, {}).items())
    if voice.teacher_kind == "kokoro":
        from model_server.data import kokoro

        return kokoro.timing_key(voice.language)
    return []


def teacher_reading(teacher: str, language: str, text: str) -> str | None:
    """What `teacher` ("<kind>:<voice>") is given to read for `text` beyond the text itself, where our code
    decides it: Kokoro's IPA (`kokoro.reading`). None for teachers that read the text (Kokoro in Japanese too).
    Part of `make data`'s cache keys and of the evaluation's teacher-transcript keys: a changed reading misses."""
    if teacher.split(":", 1)[0] != "kokoro":
        return None
    from model_server.data import kokoro

    return kokoro.reading(text, language)


def teacher_readings(voice: VoiceSpec, teacher_texts: list[str]) -> list:
    """`teacher_reading` of each text as one key item; empty where the teacher reads the text itself, so those
    keys are what they were before readings were keyed."""
    readings = [teacher_reading(voice.teacher, voice.language, t) for t in teacher_texts]
    return [readings] if any(r is not None for r in readings) else []


def utterance_key(voice: VoiceSpec, teacher_text: str) -> str:
    """Everything one cached utterance depends on: reused across batches' reruns when unchanged."""
    h = hashlib.sha256()
    h.update(json.dumps([CACHE_VERSION, voice.teacher, teacher_phone_table(voice), teacher_text,
                         vocoder.FEATURE_DIM, vocoder.HOP, *teacher_readings(voice, [teacher_text])],
                        ensure_ascii=False).encode())
    return h.hexdigest()


@dataclass
class _Entry:
    features: np.ndarray
    phones: list[str]
    frames: list[int]
    error: str


def _read_entries(path: Path) -> dict[str, _Entry]:
    """Utterances of a previous version of a batch file, by utterance key ({} if none or unreadable)."""
    try:
        with np.load(path) as z:
            keys, feats, n_frames = z["utt_keys"], z["features"], z["n_frames"]
            phones, counts, frames, errors = z["phones"], z["phone_counts"], z["frames"], z["errors"]
    except (OSError, KeyError, ValueError):
        return {}
    out = {}
    fpos = ppos = 0
    for k, n, c, e in zip(keys, n_frames, counts, errors, strict=True):
        n, c = int(n), int(c)
        out[str(k)] = _Entry(feats[fpos:fpos + n], [str(p) for p in phones[ppos:ppos + c]],
                             [int(x) for x in frames[ppos:ppos + c]], str(e))
        fpos += n
        ppos += c
    return out


def run_batch(batch: Batch) -> dict:
    """Worker: render, analyze and save one batch. Returns counts for the progress bar.

    Utterances already in an older version of the batch file (same teacher and teacher text) are
    reused, so a change to a few normalized sentences re-renders only those sentences.
    """
    t0 = time.perf_counter()
    keys = [utterance_key(batch.voice, t) for t in batch.teacher_texts]
    old = _read_entries(batch.path) if batch.path.exists() else {}
    need = [i for i, k in enumerate(keys) if k not in old]
    renders = _render(batch.voice, [batch.teacher_texts[i] for i in need]) if need else []
    fresh: dict[int, _Entry] = {}
    for i, r in zip(need, renders, strict=True):
        if r.audio is None:
            fresh[i] = _Entry(np.zeros((0, vocoder.FEATURE_DIM), np.float32), [], [], r.error or "render failed")
            continue
        f = vocoder.analyze(r.audio.astype(np.float32) / 32768.0, vocoder.SAMPLE_RATE)
        fresh[i] = _Entry(f, [name for name, _ in r.segments], teacher_frames(r.segments, len(f)), "")
    entries = [fresh[i] if i in fresh else old[k] for i, k in enumerate(keys)]
    features = np.concatenate([e.features for e in entries]).astype(np.float32)
    batch.path.parent.mkdir(parents=True, exist_ok=True)
    tmp = batch.path.with_name(batch.path.name + f".tmp{os.getpid()}.npz")
    np.savez(tmp, key=np.array(batch.key), utt_keys=np.array(keys, dtype=str), features=features,
             n_frames=np.array([len(e.features) for e in entries], np.int64),
             phones=np.array([p for e in entries for p in e.phones], dtype=str),
             phone_counts=np.array([len(e.phones) for e in entries], np.int64),
             frames=np.array([x for e in entries for x in e.frames], np.int64),
             errors=np.array([e.error for e in entries], dtype=str))
    os.replace(tmp, batch.path)  # atomic: a killed run never leaves a batch that looks finished
    return {"voice": batch.voice.id, "frames": int(len(features)), "failed": sum(1 for e in entries if e.error),
            "rendered": len(need), "seconds": time.perf_counter() - t0}


def _run_batch_safe(batch: Batch) -> dict:
    try:
        return run_batch(batch)
    except Exception as exc:  # report which batch failed instead of a bare traceback from the pool
        raise RuntimeError(f"voice {batch.voice.id} batch {batch.index}: {type(exc).__name__}: {exc}") from exc


def render_all(batches: list[Batch], workers: int, progress: bool = True, max_seconds: float = 0.0) -> dict:
    """Run every unfinished batch on `workers` processes; returns timing and skip counts.

    With `max_seconds` > 0 the render is time-boxed: at that time the workers are stopped (a batch in
    progress is lost, finished ones stay in the cache) and `stats["timed_out"]` counts the unfinished ones.
    """
    # Round-robin over voices (batch 0 of every voice, then batch 1...): an interrupted run leaves every
    # voice with data rather than the first voices complete and the last ones empty.
    order = {id(b): (b.index, k) for k, b in enumerate(batches)}
    todo = sorted((b for b in batches if not b.is_done()), key=lambda b: order[id(b)])
    stats = {"batches": len(batches), "skipped": len(batches) - len(todo), "rendered": len(todo),
             "render_failed": 0, "render_s": 0.0, "timed_out": 0}
    if not todo:
        return stats
    from tqdm import tqdm

    t0 = time.perf_counter()
    deadline = t0 + max_seconds if max_seconds > 0 else math.inf
    bar = tqdm(total=len(todo), desc="render+analyze", unit="batch", disable=not progress)
    frames = done = 0
    if workers <= 1:
        results = map(_run_batch_safe, todo)
        pool = None
    else:
        # spawn: workers start clean (no copied espeak/torch state from the parent)
        pool = multiprocessing.get_context("spawn").Pool(workers)
        results = pool.imap_unordered(_run_batch_safe, todo)
    try:
        while done < len(todo):
            if pool is None:
                if time.perf_counter() >= deadline:  # checked between batches: one in progress finishes
                    break
                res = next(results)
            else:
                try:
                    res = results.next(timeout=max(0.0, deadline - time.perf_counter()) if max_seconds > 0
                                       else None)
                except multiprocessing.TimeoutError:
                    pool.terminate()  # the batches in flight are lost (their files are written atomically)
                    break
            done += 1
            frames += res["frames"]
            stats["render_failed"] += res["failed"]
            bar.update(1)
            bar.set_postfix(audio_h=f"{frames / FRAME_RATE / 3600:.2f}", voice=res["voice"])
    finally:
        bar.close()
        if pool is not None:
            pool.close()
            pool.join()
    stats["timed_out"] = len(todo) - done
    stats["rendered"] = done
    stats["render_s"] = time.perf_counter() - t0
    return stats


@dataclass
class AlignResult:
    symbols: list[str] = field(default_factory=list)
    durations: list[int] = field(default_factory=list)
    error: str | None = None


def assemble(batches: list[Batch], voices: list[VoiceSpec], out: Path,
             align: Callable[[VoiceSpec, str, list[str], list[int], int], AlignResult]) -> dict:
    """Align every rendered utterance and write the dataset; returns per-voice statistics."""
    per_voice: dict[str, dict] = {}
    dataset_dir = out / "dataset"
    for v in voices:
        utts, feats = [], []
        st = {"utterances": 0, "frames": 0, "dropped_alignment": 0, "dropped_render": 0, "drop_reasons": {}}
        offset = 0
        for b in (b for b in batches if b.voice.id == v.id):
            with np.load(b.path) as z:
                if str(z["key"]) != b.key:
                    raise RuntimeError(f"{b.path} is stale: rerun the render stage")
                features, n_frames = z["features"], z["n_frames"]
                phones, counts, frames, errors = z["phones"], z["phone_counts"], z["frames"], z["errors"]
            fpos = ppos = 0
            for i, text in enumerate(b.texts):
                if errors[i]:
                    st["dropped_render"] += 1
                    continue
                n, c = int(n_frames[i]), int(counts[i])
                tp = [str(p) for p in phones[ppos:ppos + c]]
                tf = [int(x) for x in frames[ppos:ppos + c]]
                f = features[fpos:fpos + n]
                fpos += n
                ppos += c
                res = align(v, text, tp, tf, n)
                if res.error is not None:
                    st["dropped_alignment"] += 1
                    reason = res.error.split(":", 1)[0]
                    st["drop_reasons"][reason] = st["drop_reasons"].get(reason, 0) + 1
                    continue
                if sum(res.durations) != n or len(res.durations) != len(res.symbols):
                    raise RuntimeError(f"{v.id} {text!r}: aligner returned {len(res.durations)} durations "
                                       f"summing to {sum(res.durations)} for {len(res.symbols)} symbols and "
                                       f"{n} frames")
                utts.append({"id": f"{v.id}_{b.index:05d}_{i:03d}", "text": text, "language": v.language,
                             "voice": v.id, "symbols": res.symbols, "durations": res.durations,
                             "n_frames": n, "frame_offset": offset})
                feats.append(f)
                offset += n
        write_voice(dataset_dir, v, utts, feats)
        st["utterances"], st["frames"] = len(utts), offset
        st["hours"] = offset / FRAME_RATE / 3600.0
        per_voice[v.id] = st
    return per_voice
