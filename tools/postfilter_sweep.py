"""Tune each voice's vocoder post-filter on the model's own output, and optionally write the pick into the model.

    nice -n 10 .venv/bin/python tools/postfilter_sweep.py --voices en_female_heart \
        --settings 0.2/12,0.5/24,0.8/48,0.5/48/0.3,0.5/48/0.3/3 [--write]

A voice's post-filter (`VoiceInfo.postfilter`, a cepstral lifter on the predicted envelope: strength/order,
`vocoder.lifter_gains`) deepens the formant valleys that the model's regression fills in. How much a voice
takes depends on how blurred its predicted envelopes are: too much turns vowels into their neighbours. A
third number is the voice's factor on its predicted aperiodicity (`Postfilter.aperiodicity`, default 1): a
model's regression over-predicts the noise in voiced frames; a fourth its exponent on the voicing odds
(`Postfilter.voicing`, default 1): regression also leaves the voicing undecided at transitions. So
each setting is measured the way `make evaluate` measures the model (the serving path, one stream, the
voice's language's held-out sentences, Whisper-base WER, or CER where the language does not separate words,
as `make evaluate LANGUAGES=...` scores it, and DistillMOS), and the pick is the setting with the best DistillMOS
whose WER is at most --max-wer-rise points above the vocoder default's. --write puts the picks into the
model directory's config.json (`checkpoint.set_postfilters`; the weights are untouched). Scores are cached
per voice and setting in --cache, keyed by the model's weights, so a rerun only judges new settings.

--pooled picks one setting for all the voices listed, for voices whose 12 held-out sentences cannot separate
settings alone (a 12-sentence DistillMOS mean is +-0.2, and one word is a WER point): the setting whose
DistillMOS gain over the default, paired sentence by sentence across all the voices, is the largest of those
whose 95 % bootstrap interval is above zero and whose WER did not rise (by more than --max-wer-rise points) in
more voices than it fell, beyond chance (`pooled_pick`).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from model_server import evaluate, evaluate_languages, vocoder  # noqa: E402
from model_server.model import checkpoint  # noqa: E402
from model_server.model.checkpoint import DEFAULT_POSTFILTER as DEFAULT  # noqa: E402
from model_server.model.checkpoint import Postfilter  # noqa: E402
from model_server.model.runtime import DEFAULT_MODEL_DIR, SpeechRuntime  # noqa: E402


def parse_settings(text: str) -> list[Postfilter]:
    """Parse "0.2/12,0.5/24/0.3/3" into [Postfilter(0.2, 12), Postfilter(0.5, 24, 0.3, 3)] (strength/order,
    then optionally the aperiodicity factor and the voicing exponent; the default always included first)."""
    out = [DEFAULT]
    for item in filter(None, text.split(",")):
        parts = item.split("/")
        try:  # a missing "/order" fails int(""); Postfilter refuses values out of range
            if len(parts) not in (2, 3, 4):
                raise ValueError("two to four numbers")
            extra = [float(p) for p in parts[2:]]
            setting = Postfilter(float(parts[0]), int(parts[1]), *extra)
        except ValueError as e:
            raise SystemExit(
                f"--settings: {item!r} is not strength/order[/aperiodicity[/voicing]] ({e})"
            ) from e
        if setting not in out:
            out.append(setting)
    return out


def label(setting: Postfilter) -> str:
    """ "0.5/48", "0.5/48/0.3" with an aperiodicity factor, "0.5/48/0.3/3" with a voicing exponent too (the
    --settings syntax)."""
    base = f"{setting.strength:g}/{setting.order}"
    if setting.voicing != 1.0:
        return f"{base}/{setting.aperiodicity:g}/{setting.voicing:g}"
    return base if setting.aperiodicity == 1.0 else f"{base}/{setting.aperiodicity:g}"


# DistillMOS differences this small are ties (the 95 % interval of a 40-sentence mean is about +-0.1); the lower
# WER breaks them
MOS_TIE = 0.02


def pick(scores: dict[Postfilter, dict], max_wer_rise: float) -> Postfilter:
    """The best-DistillMOS setting whose WER is within max_wer_rise points of the default's (a tie goes to the
    lower WER, then to the milder setting)."""
    ceiling = scores[DEFAULT]["wer"] + max_wer_rise
    allowed = [s for s, r in scores.items() if r["wer"] <= ceiling]
    best = max(scores[s]["mos"] for s in allowed)
    tied = [s for s in allowed if scores[s]["mos"] >= best - MOS_TIE]
    return min(tied, key=lambda s: (scores[s]["wer"], *mildness(s)))


def mildness(setting: Postfilter) -> tuple:
    return (setting.strength, setting.order, -setting.aperiodicity, setting.voicing)


def pooled_wer(scores: dict[str, dict[Postfilter, dict]], setting: Postfilter) -> float:
    """WER (or CER) in % of `setting` over every voice's sentences: all their edits over all their words."""
    rows = np.concatenate([np.asarray(by[setting]["errors"]).reshape(-1, 2) for by in scores.values()])
    return evaluate.wer_of(rows)


def pooled_gains(scores: dict[str, dict[Postfilter, dict]]) -> dict[Postfilter, tuple[float, float, float]]:
    """Per setting other than the default: the mean DistillMOS gain over the default, paired sentence by
    sentence over every voice, and its 95 % bootstrap interval (voice -> setting -> scores with "mos_each")."""
    out = {}
    settings = {s for by_setting in scores.values() for s in by_setting} - {DEFAULT}
    for setting in sorted(settings, key=mildness):
        gains = np.concatenate(
            [np.subtract(by[setting]["mos_each"], by[DEFAULT]["mos_each"]) for by in scores.values()]
        )
        lo, hi = evaluate.bootstrap_ci(gains[:, None], lambda rows: float(rows.mean()))
        out[setting] = (float(gains.mean()), lo, hi)
    return out


def wer_moves(
    scores: dict[str, dict[Postfilter, dict]], setting: Postfilter, margin: float
) -> tuple[int, int]:
    """How many voices' WER rose, and how many fell, by more than `margin` points under `setting`."""
    deltas = [by[setting]["wer"] - by[DEFAULT]["wer"] for by in scores.values()]
    return sum(d > margin for d in deltas), sum(d < -margin for d in deltas)


def wer_sign_p(scores: dict[str, dict[Postfilter, dict]], setting: Postfilter, margin: float) -> float:
    """One-sided sign test over the voices: the chance of at least as many voices whose WER rose by more than
    `margin` points (against those whose WER fell by more) if rises and falls were equally likely."""
    rose, fell = wer_moves(scores, setting, margin)
    n = rose + fell
    return sum(math.comb(n, k) for k in range(rose, n + 1)) / 2**n if n else 1.0


def pooled_pick(scores: dict[str, dict[Postfilter, dict]], max_wer_rise: float) -> Postfilter:
    """One setting for all the voices: of those whose pooled DistillMOS gain (`pooled_gains`) has its interval
    above zero, and whose WER did not rise in more voices than it fell beyond chance (`wer_sign_p` >= 0.05, a
    voice's WER moving by more than max_wer_rise points), the largest gain (a tie within MOS_TIE goes to the
    milder setting); the default if none. Twelve sentences cannot resolve one voice's WER change, and a
    pooled WER is led by the voices the judge hallucinates on (a teacher at 100-180 %), so the guard counts
    voices."""
    sure = {
        s: g
        for s, g in pooled_gains(scores).items()
        if g[1] > 0.0 and wer_sign_p(scores, s, max_wer_rise) >= 0.05
    }
    if not sure:
        return DEFAULT
    best = max(g[0] for g in sure.values())
    return min((s for s, g in sure.items() if g[0] >= best - MOS_TIE), key=mildness)


def with_postfilter(ckpt: checkpoint.Checkpoint, voice: str, setting: Postfilter) -> checkpoint.Checkpoint:
    voices = [
        dataclasses.replace(v, info=dataclasses.replace(v.info, postfilter=setting))
        if v.info.id == voice
        else v
        for v in ckpt.voices
    ]
    return dataclasses.replace(ckpt, voices=voices)


def weights_key(model_dir: Path) -> str:
    return hashlib.sha256((model_dir / checkpoint.WEIGHTS_FILE).read_bytes()).hexdigest()[:12]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL_DIR)
    ap.add_argument("--voices", required=True, help="comma-separated voice ids of the model, or all")
    ap.add_argument("--settings", default="0.5/24,0.8/48", help="strength/order,... (the default is added)")
    ap.add_argument(
        "--sentences", type=int, default=40, help="first N held-out sentences (other languages have 12)"
    )
    ap.add_argument(
        "--max-wer-rise", type=float, default=0.5, help="WER points a pick may add to the default's"
    )
    ap.add_argument(
        "--write", action="store_true", help="write each voice's pick into the model's config.json"
    )
    ap.add_argument("--cache", type=Path, default=ROOT / "runs" / "postfilter-sweep")
    ap.add_argument("--judge-threads", type=int, default=1)
    ap.add_argument(
        "--pooled",
        action="store_true",
        help="one setting for all the voices, chosen on their pooled sentences",
    )
    args = ap.parse_args(argv)

    torch.set_num_threads(1)
    ckpt = checkpoint.load(args.model)
    voices = (
        [v.info.id for v in ckpt.voices] if args.voices == "all" else [v for v in args.voices.split(",") if v]
    )
    unknown = sorted(set(voices) - {v.info.id for v in ckpt.voices})
    if unknown:
        raise SystemExit(f"--voices: the model in {args.model} has no {unknown}")
    settings = parse_settings(args.settings)
    evaluate.ensure_eval_deps()
    judges = None
    key = weights_key(args.model)
    all_scores: dict[str, dict[Postfilter, dict]] = {}
    print(
        "| voice | setting (strength/order[/aperiodicity[/voicing]]) | Whisper WER (CER) % | DistillMOS |\n|---|---|---|---|"
    )
    for voice in voices:
        language = ckpt.voice(voice).info.language
        sentences = evaluate_languages.heldout(language, args.sentences)
        scores: dict[Postfilter, dict] = {}
        for setting in settings:
            path = args.cache / key / voice / f"{label(setting).replace('/', '-')}-{len(sentences)}.json"
            if path.is_file() and "mos_each" in (cached := json.loads(path.read_text())):
                scores[setting] = cached
            else:
                if judges is None:
                    judges = (evaluate.WhisperJudge(threads=args.judge_threads), evaluate.MosJudge())
                asr, mos = judges
                rt = SpeechRuntime(with_postfilter(ckpt, voice, setting), "cpu")
                clips = [evaluate.synthesize(rt, voice, s)[0] for s in sentences]
                hyps = [asr(a, language, vocoder.SAMPLE_RATE) for a in clips]
                errors = (
                    evaluate.word_errors(sentences, hyps, language)  # as `make evaluate` scores English
                    if language == "en"
                    else evaluate_languages.unit_errors(sentences, hyps, language)
                )
                mos_each = [mos(a, vocoder.SAMPLE_RATE) for a in clips]
                scores[setting] = {
                    "wer": evaluate.wer_of(errors),
                    "mos": float(np.mean(mos_each)),
                    "errors": errors.tolist(),
                    "mos_each": [float(m) for m in mos_each],
                }
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(scores[setting]))
            r = scores[setting]
            print(
                f"| {voice} | {label(setting)} | {r['wer']:.1f} | {r['mos']:.2f} |",
                flush=True,
            )
        all_scores[voice] = scores
    if args.pooled:
        print(
            "\n| setting | DistillMOS gain over the default, paired over all sentences [95% CI] | pooled WER % | "
            "voices whose WER rose / fell (sign test) |"
            f"\n|---|---|---|---|\n| {label(DEFAULT)} | - | {pooled_wer(all_scores, DEFAULT):.1f} | - |"
        )
        for setting, (gain, lo, hi) in pooled_gains(all_scores).items():
            rose, fell = wer_moves(all_scores, setting, args.max_wer_rise)
            print(
                f"| {label(setting)} | {gain:+.3f} [{lo:+.3f}, {hi:+.3f}] | {pooled_wer(all_scores, setting):.1f} | "
                f"{rose} / {fell} (p {wer_sign_p(all_scores, setting, args.max_wer_rise):.2f}) |"
            )
        picks = dict.fromkeys(all_scores, pooled_pick(all_scores, args.max_wer_rise))
    else:
        picks = {voice: pick(scores, args.max_wer_rise) for voice, scores in all_scores.items()}
    print()
    for voice, setting in picks.items():
        print(f"{voice}: pick {label(setting)}")
    if args.write:
        path = checkpoint.set_postfilters(
            args.model, {v: (None if s == DEFAULT else s) for v, s in picks.items()}
        )
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
