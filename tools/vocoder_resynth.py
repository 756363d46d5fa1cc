"""Vocoder A/B on teacher audio: what each synthesizer loses resynthesizing the teacher from its own features.

    nice -n 10 .venv/bin/python tools/vocoder_resynth.py --sentences 20 --systems teacher,current

For each voice (the English ones by default; any catalog voice with --voices, judged in its own language on
its own held-out sentences, WER or CER as the per-language table scores it) it renders the first N held-out
sentences with the voice's teacher once, extracts the features with the data pipeline's analysis
(`vocoder.analyze`), resynthesizes them with each system, and judges every clip with `make evaluate`'s judges
(Whisper-base, DistillMOS; same functions, same bootstrap). Renders, features and per-system scores are cached
in --cache, so adding a system only costs its own synthesis and judging. Systems:

* ``teacher``: the teacher's audio itself (the ceiling);
* ``current``: `vocoder.HarmonicNoiseSynth` as this checkout has it, at its native rate;
* ``current@24000``: the same synthesizer at 24 kHz output (the judges hear it resampled to 16 kHz);
* ``current:postfilter=0.4:ap_exponent=1``: the same synthesizer with other settings (any of
  ``postfilter``, ``postfilter_order``, ``ap_exponent``; combinable with ``@24000``);
* ``rev:<git revision>``: `model_server/vocoder.py` of that revision (e.g. ``rev:main``), its default synth;
* ``neural:<folder>``: the learned vocoder saved in that folder (`python -m model_server.train_vocoder`),
  at its own rate (24 kHz);
* ``world``: WORLD's own synthesizer (pyworld) fed the same 48-bin envelope and 7-band aperiodicity,
  expanded back to its 513 bins: what the feature interface allows a classic vocoder.
* ``world-full`` / ``world-full@<ms>``: WORLD's own analysis of the teacher (Harvest F0, CheapTrick's 513-bin
  envelope, D4C's aperiodicity) and its synthesizer, at the features' 12.5 ms frames or the period given: what
  source-filter resynthesis keeps with nothing reduced to the feature interface.

It prints a Markdown table (mean and 95% CI per system) and the synthesis speed of each torch system
(one stream, one thread, 32-frame chunks).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from model_server import evaluate, evaluate_languages, vocoder  # noqa: E402
from model_server.data.voices import ALL_VOICES  # noqa: E402
from model_server.frontend.languages import CATALOG  # noqa: E402

CHUNK = 32  # frames per call in the speed measurement (the server's steady chunk size)
NOT_TORCH = ("teacher", "world", "world-full")  # systems with no torch synthesizer to time


def language_of(voice: str) -> str:
    if voice not in ALL_VOICES:
        raise SystemExit(f"unknown voice {voice!r}; known: {', '.join(sorted(ALL_VOICES))}")
    return ALL_VOICES[voice].language


def metric_of(voice: str) -> str:
    return CATALOG[language_of(voice)].metric.upper()


def heldout_sentences(voice: str, limit: int) -> list[str]:
    """The first `limit` held-out sentences of the voice's language (English: `make evaluate`'s 40)."""
    return evaluate_languages.heldout(language_of(voice), limit)


def render_teacher(voice: str, sentences: list[str]) -> list[tuple[np.ndarray, int]]:
    """(float audio, sample rate) per sentence: the English teachers as `make evaluate` renders them, the
    others as the per-language evaluation does (its normalized text, 16 kHz)."""
    language = language_of(voice)
    if language == "en":
        renders, rate = evaluate.render_teacher(voice, sentences)
        failed = [(i, r.error) for i, r in enumerate(renders) if r.audio is None]
        audio = [None if r.audio is None else r.audio.astype(np.float32) / 32768.0 for r in renders]
    else:
        rate = evaluate_languages.TEACHER_RATE
        audio = evaluate_languages.render_teacher(ALL_VOICES[voice].teacher, language, sentences)
        failed = [(i, "see above") for i, a in enumerate(audio) if a is None]
    if failed:
        raise SystemExit(f"the {voice} teacher failed on sentence(s) {failed}")
    return [(a, rate) for a in audio]


def teacher_features(voice: str, sentences: list[str], cache: Path) -> list[dict]:
    """Teacher renders and their analysis (the data pipeline's), cached as one .npz per sentence."""
    folder = cache / voice
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{i:02d}.npz" for i in range(len(sentences))]
    todo = [i for i, p in enumerate(paths) if not p.is_file()]
    if todo:
        for i, (audio, rate) in zip(todo, render_teacher(voice, [sentences[i] for i in todo]), strict=True):
            np.savez(paths[i], audio=audio, rate=rate, feats=vocoder.analyze(audio, rate))
    return [dict(np.load(p)) for p in paths]


def _module_at(rev: str):
    """model_server/vocoder.py of a git revision, imported as its own module."""
    src = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:model_server/vocoder.py"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    path = Path(f"/tmp/vocoder_rev_{rev.replace('/', '_')}.py")
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"vocoder_rev_{abs(hash(rev))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def torch_system(name: str):
    """(synth module instance, output rate) for a torch system name."""
    if name.startswith("rev:"):
        module = _module_at(name[4:])
        return module.HarmonicNoiseSynth(), module.SAMPLE_RATE
    if name.startswith("neural:"):
        from model_server import neural_vocoder

        model = neural_vocoder.NeuralVocoder.load(Path(name[len("neural:") :]))
        return model, model.sample_rate
    base, _, rate = name.partition("@")
    base, *options = base.split(":")
    if base != "current":
        raise SystemExit(f"unknown system {name!r}")
    kwargs = {"sample_rate": int(rate)} if rate else {}
    for option in options:  # "current:postfilter=0.4:ap_exponent=1": the synthesizer's own settings
        key, _, value = option.partition("=")
        if key not in ("postfilter", "postfilter_order", "ap_exponent") or not value:
            raise SystemExit(f"system {name!r}: options are postfilter=, postfilter_order=, ap_exponent=")
        kwargs[key] = int(value) if key == "postfilter_order" else float(value)
    synth = vocoder.HarmonicNoiseSynth(**kwargs)
    return synth, getattr(synth, "sample_rate", vocoder.SAMPLE_RATE)


def synthesize_torch(synth, feats: np.ndarray) -> np.ndarray:
    with torch.inference_mode():
        audio, _ = synth(torch.from_numpy(feats).unsqueeze(0), synth.init_state(1))
    return audio[0].numpy()


def world_resynth(feats: np.ndarray) -> np.ndarray:
    """WORLD's synthesizer from the feature interface: envelope and aperiodicity interpolated back to bins."""
    pw = vocoder._pw()
    bins = np.linspace(0.0, vocoder.NYQUIST, vocoder.WORLD_FFT // 2 + 1)
    mel = vocoder._hz_to_mel(bins)
    env_mel = vocoder._hz_to_mel(vocoder.ENV_CENTERS_HZ)
    sp = np.exp(np.stack([np.interp(mel, env_mel, row) for row in feats[:, vocoder.ENV].astype(np.float64)]))
    ap_pow = np.stack([np.interp(bins, vocoder.AP_CENTERS_HZ, row) for row in feats[:, vocoder.AP]])
    ap = np.sqrt(np.clip(ap_pow, 0.0, 1.0)).astype(np.float64)
    f0 = np.where(feats[:, vocoder.VUV.start] > 0.5, np.exp(feats[:, vocoder.LF0.start]), 0.0).astype(
        np.float64
    )
    return pw.synthesize(f0, np.ascontiguousarray(sp), np.ascontiguousarray(ap), vocoder.SAMPLE_RATE,
                         vocoder.FRAME_PERIOD_MS).astype(np.float32)  # fmt: skip


def world_full_resynth(
    audio: np.ndarray, rate: int, period_ms: float = vocoder.FRAME_PERIOD_MS
) -> np.ndarray:
    """WORLD analysis and synthesis at full resolution, 16 kHz (Harvest F0: DIO lost a few more points on the
    Indonesian teacher, docs/model.md "Where the vocoder loses the words")."""
    pw = vocoder._pw()
    x = audio.astype(np.float64)
    if rate != vocoder.SAMPLE_RATE:
        import soxr

        x = soxr.resample(x, rate, vocoder.SAMPLE_RATE, quality="HQ")
    fs = vocoder.SAMPLE_RATE
    f0, t = pw.harvest(x, fs, f0_floor=vocoder.F0_FLOOR, f0_ceil=vocoder.F0_CEIL, frame_period=period_ms)
    f0 = pw.stonemask(x, f0, t, fs)
    sp = pw.cheaptrick(x, f0, t, fs, f0_floor=vocoder.F0_FLOOR, fft_size=vocoder.WORLD_FFT)
    ap = pw.d4c(x, f0, t, fs, fft_size=vocoder.WORLD_FFT)
    return pw.synthesize(f0, sp, ap, fs, period_ms).astype(np.float32)


def clips_of(system: str, data: list[dict]) -> list[tuple[np.ndarray, int]]:
    """(audio, rate) per sentence of `system` resynthesizing the cached teacher renders and features."""
    if system == "teacher":
        return [(d["audio"], int(d["rate"])) for d in data]
    if system == "world":
        return [(world_resynth(d["feats"]), vocoder.SAMPLE_RATE) for d in data]
    name, _, period = system.partition("@")
    if name == "world-full":
        period_ms = float(period or vocoder.FRAME_PERIOD_MS)
        return [
            (world_full_resynth(d["audio"], int(d["rate"]), period_ms), vocoder.SAMPLE_RATE) for d in data
        ]
    synth, rate = torch_system(system)
    return [(synthesize_torch(synth, d["feats"]), rate) for d in data]


def speed(synth, rate: int, feats_list: list[np.ndarray]) -> float:
    """Real-time factor of one stream on one thread, 32-frame chunks (CPU s / audio s, so a busy host
    inflates it less than wall time would)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        compute = audio_s = 0.0
        with torch.inference_mode():
            for feats in feats_list:
                x = torch.from_numpy(feats).unsqueeze(0)
                state = synth.init_state(1)
                t0 = time.process_time()
                n = 0
                for s in range(0, x.shape[1], CHUNK):
                    out, state = synth(x[:, s : s + CHUNK], state)
                    n += out.shape[1]
                compute += time.process_time() - t0
                audio_s += n / rate
        return compute / audio_s
    finally:
        torch.set_num_threads(threads)


def score_key(system: str) -> str:
    """The cache name of a system's scores; a neural vocoder's names its weights, so retraining scores anew."""
    key = system.replace("/", "_")
    if system.startswith("neural:"):
        from model_server import neural_vocoder

        weights = Path(system[len("neural:") :]) / neural_vocoder.WEIGHTS_FILE
        key += "-" + hashlib.sha256(weights.read_bytes()).hexdigest()[:12]
    return key


def judge(clips: list[tuple[np.ndarray, int]], sentences: list[str], language: str, asr, mos) -> dict:
    hyps = [asr(a, language, rate) for a, rate in clips]
    errors = evaluate_languages.unit_errors(sentences, hyps, language)
    scores = np.array([mos(a, rate) for a, rate in clips])
    return {"errors": errors.tolist(), "mos": scores.tolist(), "hyps": hyps}


def summarize(entry: dict) -> dict:
    errors, scores = np.asarray(entry["errors"]), np.asarray(entry["mos"])
    return {
        "wer": evaluate.wer_of(errors),
        "wer_ci": evaluate.bootstrap_ci(errors, evaluate.wer_of),
        "mos": float(scores.mean()),
        "mos_ci": evaluate.bootstrap_ci(scores[:, None], lambda x: float(x.mean())),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--voices", default=",".join(evaluate.TEACHERS), help="any catalog voice ids")
    ap.add_argument("--sentences", type=int, default=20, help="first N held-out sentences per voice (0: all)")
    ap.add_argument("--systems", default="teacher,current")
    ap.add_argument("--cache", type=Path, default=ROOT / "runs" / "vocoder-resynth")
    ap.add_argument("--rescore", action="store_true", help="judge again even if scores are cached")
    ap.add_argument("--judge-threads", type=int, default=1)
    args = ap.parse_args(argv)

    voices = [v for v in args.voices.split(",") if v]
    for voice in voices:
        language_of(voice)  # an unknown voice fails here, before the judges install
    systems = [s for s in args.systems.split(",") if s]
    evaluate.ensure_eval_deps()
    judges = None
    table, speeds, counts = {}, {}, {}
    for voice in voices:
        sentences = heldout_sentences(voice, args.sentences)
        counts[voice] = len(sentences)
        data = teacher_features(voice, sentences, args.cache / "teacher")
        for system in systems:
            score_path = args.cache / "scores" / voice / f"{score_key(system)}-{len(sentences)}.json"
            if system.partition("@")[0] not in NOT_TORCH and system not in speeds:
                speeds[system] = speed(*torch_system(system), [d["feats"] for d in data[:5]])
            if score_path.is_file() and not args.rescore:
                entry = json.loads(score_path.read_text())
            else:  # synthesized only to be judged: cached scores cost no synthesis (WORLD's Harvest is slow)
                if judges is None:
                    judges = (evaluate.WhisperJudge(threads=args.judge_threads), evaluate.MosJudge())
                entry = judge(clips_of(system, data), sentences, language_of(voice), *judges)
                score_path.parent.mkdir(parents=True, exist_ok=True)
                score_path.write_text(json.dumps(entry))
            table[(voice, system)] = summarize(entry)
            s = table[(voice, system)]
            print(
                f"{voice} {system}: {metric_of(voice)} {s['wer']:.1f}, DistillMOS {s['mos']:.2f}", flush=True
            )

    per_voice = ", ".join(f"{v} {n}" for v, n in counts.items())
    print(f"\nheld-out sentences per voice: {per_voice}; 95% bootstrap CIs over sentences\n")
    print("| voice | system | Whisper WER (CER where the language has no spaces) % | DistillMOS |")
    print("|---|---|---|---|")
    for (voice, system), s in table.items():
        print(
            f"| {voice} | {system} | {s['wer']:.1f} [{s['wer_ci'][0]:.1f}, {s['wer_ci'][1]:.1f}] "
            f"| {s['mos']:.2f} [{s['mos_ci'][0]:.2f}, {s['mos_ci'][1]:.2f}] |"
        )
    if speeds:
        print("\n| system | real-time factor, one stream, one thread | x real time |")
        print("|---|---|---|")
        for system, rtf in speeds.items():
            print(f"| {system} | {rtf:.4f} | {1 / rtf:.0f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
