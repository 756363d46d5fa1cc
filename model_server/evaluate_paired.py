"""Two models, one judge: `python -m model_server.evaluate --model CANDIDATE --against BASELINE`.

The release check for a fine-tune. Every voice both models have (by default the voices the baseline supports,
English always among them) speaks its language's held-out sentences (`evaluate_languages.heldout`) through the
serving path in each model. Whisper-base scores both transcripts the way the per-language evaluation does
(WER, or CER where the language does not separate words), DistillMOS rates both clips, and each difference
(candidate - baseline) gets a paired bootstrap interval over sentences: the same sentence in both models is
one row, so what the sentences have in common cancels. Differences of a tenth of a MOS point, which two
separate intervals cannot tell apart, become decidable this way.

A voice is *worse* when an interval lies wholly on the losing side (more errors, or lower DistillMOS),
*better* when one lies wholly on the winning side and none on the losing side, otherwise *no change*. The
table and every number go to `comparison.md` and `comparison.json` beside the candidate's weights;
``--fail-on-worse`` exits 1 when any voice is worse, for a script that gates a release on it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from model_server import evaluate as ev
from model_server import evaluate_languages as el
from model_server.frontend.languages import CATALOG
from model_server.model import measured

__all__ = ["WORSE", "BETTER", "SAME", "compare_voice", "default_voices", "run", "verdict"]

WORSE, BETTER, SAME = "worse", "better", "no change"
REPORT_NAME = "comparison"  # comparison.md and comparison.json, beside the candidate's weights


def default_voices(baseline_rt, baseline_dir: Path) -> list[str]:
    """The voices a release must not lose: the baseline's supported voices (its evaluation.json, measured on
    its weights), and its English voices whether measured or not."""
    support = measured.voice_support(baseline_dir, baseline_rt.voices)
    if not any(support.values()):
        print(f"{baseline_dir} has no voice measured as supported on its weights (evaluation.json): comparing "
              "its English voices (--voices names others)", flush=True)  # fmt: skip
    return [v for v, info in baseline_rt.voices.items() if support[v] or info.language == "en"]


def verdict(error_diff_ci: tuple[float, float], mos_diff_ci: tuple[float, float] | None) -> str:
    """WORSE if more errors or lower MOS is certain at the interval's level, BETTER if fewer errors or higher
    MOS is and neither loss is, else SAME. Intervals are (low, high) of candidate - baseline."""
    worse = error_diff_ci[0] > 0 or (mos_diff_ci is not None and mos_diff_ci[1] < 0)
    better = error_diff_ci[1] < 0 or (mos_diff_ci is not None and mos_diff_ci[0] > 0)
    return WORSE if worse else BETTER if better else SAME


def _judged(rt, voice: str, sentences: list[str], language: str, asr, mos) -> tuple[np.ndarray, list[float]]:
    """One model reading `sentences` as `voice`: per-sentence (edits, units) rows and DistillMOS scores."""
    hyps, scores = [], []
    for s in sentences:
        audio, _ = ev.synthesize(rt, voice, s)
        hyps.append(asr(ev.to_judge_rate(audio, rt.sample_rate), language))
        if mos is not None:
            scores.append(mos(audio, rt.sample_rate))
    return el.unit_errors(sentences, hyps, language), scores


def compare_voice(candidate, baseline, voice: str, sentences: list[str], asr, mos=None) -> dict:
    """Both runtimes reading `sentences` as `voice`, judged alike; the paired differences with intervals."""
    language = baseline.voices[voice].language
    c_err, c_mos = _judged(candidate, voice, sentences, language, asr, mos)
    b_err, b_mos = _judged(baseline, voice, sentences, language, asr, mos)
    entry = {
        "language": language,
        "metric": CATALOG[language].metric,
        "sentences": len(sentences),
        "candidate_score": round(ev.wer_of(c_err), 2),
        "baseline_score": round(ev.wer_of(b_err), 2),
        "score_diff": round(ev.wer_of(c_err) - ev.wer_of(b_err), 2),
        "score_diff_ci": [round(x, 2) for x in ev.paired_rate_diff_ci(c_err, b_err)],
    }
    mos_ci = None
    if mos is not None:
        diffs = np.asarray(c_mos) - np.asarray(b_mos)
        mos_ci = ev.bootstrap_ci(diffs[:, None], lambda x: float(x.mean()))
        entry.update(
            candidate_mos=round(float(np.mean(c_mos)), 3),
            baseline_mos=round(float(np.mean(b_mos)), 3),
            mos_diff=round(float(diffs.mean()), 3),
            mos_diff_ci=[round(x, 3) for x in mos_ci],
        )
    entry["verdict"] = verdict(tuple(entry["score_diff_ci"]), mos_ci)
    return entry


def render_report(candidate: Path, baseline: Path, results: dict, skipped: dict) -> str:
    lines = [
        "# Paired comparison",
        "",
        f"Candidate `{candidate}` against baseline `{baseline}` (`python -m model_server.evaluate --model "
        f"{candidate} --against {baseline}`). Per voice, its language's held-out sentences through the serving "
        "path in both models; error rate (WER, CER where the language does not separate words) by "
        f"{el.JUDGE}, and {el.MOS_JUDGE}. Differences are candidate - baseline with a 95 % paired bootstrap "
        "interval over sentences.",
        "",
        "| voice | metric | sentences | baseline | candidate | difference [95 % CI] | DistillMOS baseline / "
        "candidate | difference [95 % CI] | verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for voice, e in results.items():
        mos = ("-", "-")
        if "mos_diff" in e:
            lo, hi = e["mos_diff_ci"]
            mos = (
                f"{e['baseline_mos']:.2f} / {e['candidate_mos']:.2f}",
                f"{e['mos_diff']:+.3f} [{lo:+.3f}, {hi:+.3f}]",
            )
        lo, hi = e["score_diff_ci"]
        lines.append(
            f"| `{voice}` | {e['metric'].upper()} | {e['sentences']} | {e['baseline_score']:.1f} | "
            f"{e['candidate_score']:.1f} | {e['score_diff']:+.1f} [{lo:+.1f}, {hi:+.1f}] | {mos[0]} | {mos[1]} | "
            f"{'**' + e['verdict'] + '**' if e['verdict'] == WORSE else e['verdict']} |"
        )
    for voice, why in skipped.items():
        lines.append(f"| `{voice}` | | | | | | | | not compared: {why} |")
    worse = [v for v, e in results.items() if e["verdict"] == WORSE]
    lines += ["", f"Worse: {', '.join(f'`{v}`' for v in worse) if worse else 'none'}.", ""]
    return "\n".join(lines)


def run(args) -> int:
    """The `--against` run of `python -m model_server.evaluate` (arguments parsed there)."""
    import torch

    from model_server.model.runtime import SpeechRuntime

    torch.set_num_threads(args.threads)
    candidate = SpeechRuntime.load(args.model, vocoder_choice=args.vocoder)
    baseline = SpeechRuntime.load(args.against, vocoder_choice=args.vocoder)
    wanted = (
        [v for v in args.voices.split(",") if v] if args.voices else default_voices(baseline, args.against)
    )
    ev.ensure_eval_deps()
    asr = ev.WhisperJudge(threads=args.judge_threads)
    mos = None if args.no_mos else ev.MosJudge()
    judged = el.judge_languages(asr)
    results, skipped = {}, {}
    for voice in wanted:
        missing = [
            name for name, rt in (("candidate", candidate), ("baseline", baseline)) if voice not in rt.voices
        ]
        if missing:
            skipped[voice] = f"not in the {' and '.join(missing)}"
        elif baseline.voices[voice].language not in judged:
            skipped[voice] = "no judge (Whisper lacks the language)"
        else:
            sentences = el.heldout(baseline.voices[voice].language, args.limit)
            results[voice] = compare_voice(candidate, baseline, voice, sentences, asr, mos)
            e = results[voice]
            print(f"{voice}: {e['metric']} {e['baseline_score']:.1f} -> {e['candidate_score']:.1f} "
                  f"{e['score_diff_ci']}" + (f", DistillMOS {e['mos_diff']:+.3f} {e['mos_diff_ci']}" if mos else "")
                  + f": {e['verdict']}", flush=True)  # fmt: skip
    for voice, why in skipped.items():
        print(f"{voice}: not compared ({why})", flush=True)
    report = args.report or Path(args.model) / f"{REPORT_NAME}.md"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(render_report(Path(args.model), Path(args.against), results, skipped), encoding="utf-8")
    doc = {"candidate": str(args.model), "baseline": str(args.against), "judge": el.JUDGE,
           "voices": results, "not_compared": skipped}  # fmt: skip
    report.with_suffix(".json").write_text(
        json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    worse = [v for v, e in results.items() if e["verdict"] == WORSE]
    print(f"wrote {report}; worse: {', '.join(worse) or 'none'}")
    return 1 if worse and args.fail_on_worse else 0
