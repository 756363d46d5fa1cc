"""CLI: `python -m model_server.data [build options]`, `python -m model_server.data ljspeech DIR ...` or
`python -m model_server.data merge --out OUT IN IN ...`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from model_server.data.text_words import WORD_SHARE
from model_server.data.voices import VOICES, resolve_voices, voices_for_languages
from model_server.frontend.languages import CATALOG


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m model_server.data",
                                description="Render teacher audio, align, extract features, write the dataset.")
    p.add_argument("--out", type=Path, default=Path("data"),
                   help="output root; the dataset goes to OUT/dataset, the resumable cache to OUT/cache")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--voices", default="", help=f"comma-separated voice ids (default: {','.join(VOICES)})")
    which.add_argument("--languages", default="",
                       help="'all' or comma-separated catalog language codes (en,es,it,zh,...): every voice of "
                            "those languages: an espeak-ng voice per language beyond the shipped ones, and the "
                            "better teacher's voice where one is wired in")
    p.add_argument("--hours-scale", type=float, default=1.0,
                   help="multiply every voice's default hours (1.5 h Festival English, 4.5 h heart, 40 min es/de/fr)")
    p.add_argument("--seed", type=int, default=0, help="text generator seed")
    p.add_argument("--word-share", type=float, default=WORD_SHARE,
                   help="fraction of the sentences of each non-English voice taught by Kokoro or espeak-ng drawn from "
                        "the language's everyday words (wordfreq; data/text_words.py) instead of its grammar or CLDR "
                        f"phrases (default "
                        f"{WORD_SHARE:g}; 0: the text of rounds up to 37)")
    p.add_argument("--workers", type=int, default=2, help="render/analysis processes")
    p.add_argument("--max-render-seconds", type=float, default=0.0,
                   help="time box for the render stage (0: none): at that time the workers stop and the "
                        "dataset is assembled from the batches finished so far (the rest stay to be resumed)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _ljspeech_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m model_server.data ljspeech",
                                description="Import LJSpeech-format recordings (metadata.csv + wavs/) as a voice.")
    p.add_argument("dir", type=Path, help="folder with metadata.csv and wavs/")
    p.add_argument("--voice-id", required=True)
    p.add_argument("--language", required=True, choices=sorted(CATALOG))
    p.add_argument("--gender", required=True, choices=["female", "male", "neutral"])
    p.add_argument("--name", default=None, help="display name (default: the voice id)")
    p.add_argument("--description", default="Imported LJSpeech-format recordings.")
    p.add_argument("--out", type=Path, default=Path("data"), help="output root; writes OUT/dataset")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--replace", action="store_true",
                   help="import under the id of a shipped or generated voice, replacing its training data")
    return p


def _merge_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m model_server.data merge",
                                description="Combine datasets into OUT/dataset: voices side by side; a voice in "
                                            "several inputs (say, two --seed runs) gets all their utterances.")
    p.add_argument("inputs", type=Path, nargs="+",
                   help="dataset dirs (with voices.json) or output roots of `python -m model_server.data`")
    p.add_argument("--out", type=Path, required=True, help="output root; writes OUT/dataset")
    p.add_argument("--voices", help="comma-separated voice ids to keep (default: every voice of every input)")
    return p


def main_merge(argv: list[str]) -> int:
    args = _merge_parser().parse_args(argv)
    from model_server.data.dataset import DatasetError, merge_datasets
    from model_server.vocoder import FRAME_PERIOD_MS

    inputs = [p / "dataset" if not (p / "voices.json").exists() and (p / "dataset").is_dir() else p
              for p in args.inputs]
    try:
        keep = [v.strip() for v in args.voices.split(",") if v.strip()] if args.voices is not None else None
        stats = merge_datasets(inputs, args.out / "dataset", voices=keep)
    except DatasetError as exc:
        raise SystemExit(f"error: {exc}") from None
    print(f"merged {len(inputs)} datasets into {args.out / 'dataset'}")
    for vid, st in stats.items():
        print(f"  {vid:16s} {st['utterances']:6d} utts  {st['frames'] * FRAME_PERIOD_MS / 3.6e6:.2f} h  from input(s) "
              + ",".join(map(str, st["inputs"])))
    return 0


def main_build(argv: list[str]) -> int:
    args = _build_parser().parse_args(argv)
    if args.hours_scale <= 0:
        raise SystemExit(f"--hours-scale must be > 0, got {args.hours_scale}")
    if args.workers < 1:
        raise SystemExit(f"--workers must be >= 1, got {args.workers}")
    if not 0.0 <= args.word_share <= 1.0:
        raise SystemExit(f"--word-share must be within [0, 1], got {args.word_share}")
    if args.max_render_seconds < 0:
        raise SystemExit(f"--max-render-seconds must be >= 0, got {args.max_render_seconds}")
    try:
        if args.languages:
            voices = voices_for_languages(args.languages)
        else:
            voices = resolve_voices([v for v in args.voices.split(",") if v.strip()])
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    from model_server.data import build, frontend_bridge

    t0 = time.perf_counter()
    batches = build.plan(voices, args.out, args.hours_scale, args.seed, frontend_bridge.normalize,
                         word_share=args.word_share)
    t_plan = time.perf_counter() - t0
    rstats = build.render_all(batches, args.workers, progress=not args.no_progress,
                              max_seconds=args.max_render_seconds)
    t1 = time.perf_counter()
    if rstats["timed_out"]:
        batches = [b for b in batches if b.is_done()]
        print(f"render time box ({args.max_render_seconds:g} s) reached: {rstats['timed_out']} batches left "
              f"unrendered; assembling the {len(batches)} finished", file=sys.stderr)
    per_voice = build.assemble(batches, voices, args.out, frontend_bridge.align)
    summary = {"out": str(args.out / "dataset"), "plan_s": round(t_plan, 1),
               "render_s": round(rstats["render_s"], 1), "assemble_s": round(time.perf_counter() - t1, 1),
               "batches": rstats["batches"], "batches_skipped": rstats["skipped"],
               "batches_timed_out": rstats["timed_out"],
               "render_failed": rstats["render_failed"], "voices": per_voice}
    (args.out / "dataset").mkdir(parents=True, exist_ok=True)
    (args.out / "dataset" / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(_format_summary(summary))
    return 0


def _format_summary(s: dict) -> str:
    lines = [f"dataset written to {s['out']}  (plan {s['plan_s']} s, render+analyze {s['render_s']} s, "
             f"assemble {s['assemble_s']} s; {s['batches']} batches, {s['batches_skipped']} already done)"]
    for vid, st in s["voices"].items():
        lines.append(f"  {vid:16s} {st['utterances']:6d} utts  {st['hours']:.2f} h  {st['frames']:9d} frames  "
                     f"dropped: {st['dropped_alignment']} alignment, {st['dropped_render']} render"
                     + (f"  {st['drop_reasons']}" if st["drop_reasons"] else ""))
    return "\n".join(lines)


def main_ljspeech(argv: list[str]) -> int:
    args = _ljspeech_parser().parse_args(argv)
    from model_server.data import ljspeech

    try:
        st = ljspeech.import_ljspeech(args.dir, args.voice_id, args.language, args.gender, args.out / "dataset",
                                      name=args.name, description=args.description,
                                      progress=not args.no_progress, replace=args.replace)
    except ljspeech.LJSpeechError as exc:
        raise SystemExit(f"error: {exc}") from None
    print(f"imported {st['utterances']} utterances ({st['hours']:.2f} h, {st['frames']} frames) as voice "
          f"{args.voice_id}; dropped {st['dropped']}")
    report = st["report"]
    for uid, line, reason in report.dropped:
        print(f"  dropped {uid} (metadata.csv:{line}): {reason}")
    if report.read_by_rule:
        print(
            f"  {len(report.read_by_rule)} line(s) have digits or symbols and no spoken-form third column; they are "
            'aligned to the normalizer\'s reading ("48213" as "four eight two one three"), which may not be what '
            "was said: " + ", ".join(f"{uid} (line {line})" for uid, line in report.read_by_rule)
        )
    if report.unreferenced_wavs:
        print(
            f"  {len(report.unreferenced_wavs)} wav(s) in wavs/ no metadata line names, not imported: "
            + ", ".join(report.unreferenced_wavs[:20])
            + (" ..." if len(report.unreferenced_wavs) > 20 else "")
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "ljspeech":
        return main_ljspeech(argv[1:])
    if argv and argv[0] == "merge":
        return main_merge(argv[1:])
    return main_build(argv)


if __name__ == "__main__":
    sys.exit(main())
