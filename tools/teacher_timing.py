"""How well a teacher's phone times fit its audio: the spread of each phone's frames across a corpus.

    .venv/bin/python tools/teacher_timing.py --voices es_male_kumo,es_male_m3 --sentences 20 --dtw

`make data` trains the model on (phone, frames) pairs, so a teacher whose times sit off its sound teaches
every phone the neighbours' sound. This measures the fit without a reference: it renders generated sentences
with each voice's teacher through the data pipeline (`build._render`, `vocoder.analyze`,
`frontend_bridge.align`), labels every frame with its phone, and reports the mean squared distance of the
frames' cepstra (`dtw.cepstra`) to their phone's mean over the corpus, with every boundary moved by each
of --shifts frames (12.5 ms). Only frames with sound count (`phone_times.loud_frames`): silence has the same
cepstra wherever it is, so silence left inside a phone would look like a good fit. Right times give the least
spread unmoved: espeak-ng's exact synthesis times do (its voices are the control); a minimum elsewhere says
the times are late (negative best shift) or early. `--dtw` adds, for Kokoro voices, the timing `make data`
used before Kokoro's own (espeak-ng's times carried onto Kokoro's audio by DTW); `--lead-frames 0` shows the
neural teachers' durations uncorrected.
Prints a table; `--out` writes it as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from model_server import vocoder  # noqa: E402
from model_server.data import build, dtw, frontend_bridge, kokoro, phone_times  # noqa: E402
from model_server.data import text as textgen  # noqa: E402
from model_server.data.voices import ALL_VOICES  # noqa: E402
from model_server.frontend.languages import CATALOG  # noqa: E402


def frame_labels(symbols: list[str], durations: list[int], shift: int, n: int) -> np.ndarray:
    """The phone of each of `n` frames, every inner boundary moved by `shift` frames (clipped, kept in order)."""
    bounds = np.cumsum(durations)[:-1] + shift
    bounds = np.maximum.accumulate(np.clip(bounds, 0, n))
    edges = np.concatenate([[0], bounds, [n]]).astype(int)
    labels = np.empty(n, object)
    for symbol, a, b in zip(symbols, edges[:-1], edges[1:], strict=True):
        labels[a:b] = symbol
    return labels


def spread(utterances: list[tuple[np.ndarray, np.ndarray, list[str], list[int]]], shift: int) -> float:
    """Mean squared distance of every sounding phone frame's cepstra to that phone's mean (pauses out)."""
    frames_of = defaultdict(list)
    for cepstra, loud, symbols, durations in utterances:
        labels = frame_labels(symbols, durations, shift, len(cepstra))
        for symbol in set(labels) - {None}:
            if not symbol.startswith("<"):
                frames_of[symbol].append(cepstra[(labels == symbol) & loud])
    total = count = 0
    for chunks in frames_of.values():
        x = np.concatenate(chunks)
        if not len(x):  # a phone all of whose frames are silent (a stop's closure, say) has no sound to fit
            continue
        total += float(((x - x.mean(axis=0)) ** 2).sum())
        count += len(x)
    return total / count if count else float("nan")


def timed_utterances(voice_id: str, sentences: int, seed: str, dtw_too: bool) -> tuple[dict, dict]:
    """{timing: [(cepstra, frames with sound, symbols, durations)]} for `sentences` generated sentences, and
    counts."""
    voice = ALL_VOICES[voice_id]
    texts = [frontend_bridge.normalize(t, voice.language)
             for t in textgen.generate_sentences(voice.language, sentences, seed=f"{seed}/{voice_id}")]  # fmt: skip
    out: dict[str, list] = {"teacher": []}
    dropped = {"render": 0, "alignment": 0}
    if dtw_too:
        out["dtw"] = []
    for text, render in zip(texts, build._render(voice, texts), strict=True):
        if render.audio is None:
            dropped["render"] += 1
            continue
        audio = render.audio.astype(np.float32) / 32768.0
        feats = vocoder.analyze(audio, vocoder.SAMPLE_RATE)
        timings = {"teacher": render.segments}
        if dtw_too:
            by_dtw = kokoro.timed_by_dtw(text, CATALOG[voice.language].espeak, audio, render.audio)
            if by_dtw.audio is None:
                dropped["render"] += 1
                continue
            timings["dtw"] = by_dtw.segments
        aligned = {}
        for name, segments in timings.items():
            res = frontend_bridge.align(voice, text, [n for n, _ in segments],
                                        build.teacher_frames(segments, len(feats)), len(feats))  # fmt: skip
            if res.error:
                break
            aligned[name] = res
        if len(aligned) != len(timings):
            dropped["alignment"] += 1
            continue
        cepstra = dtw.cepstra(feats)
        loud = np.zeros(len(feats), bool)
        sound = phone_times.loud_frames(audio, vocoder.SAMPLE_RATE)[: len(feats)]
        loud[: len(sound)] = sound
        for name, res in aligned.items():
            out[name].append((cepstra, loud, res.symbols, res.durations))
    return out, dropped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--voices", required=True, help="comma-separated voice ids (model_server/data/voices.py)")
    ap.add_argument("--sentences", type=int, default=20, help="generated sentences per voice")
    ap.add_argument("--shifts", default="-6,-5,-4,-3,-2,-1,0,1,2", help="boundary moves to try, in frames")
    ap.add_argument("--dtw", action="store_true", help="also the DTW timing, for Kokoro voices")
    lead_help = (
        "time Kokoro and hibari with this lead, not phone_times.LEAD_FRAMES (0: durations as they are)"
    )
    ap.add_argument("--lead-frames", type=int, help=lead_help)
    ap.add_argument("--seed", default="timing")
    ap.add_argument("--out", type=Path, help="write the results as JSON here")
    args = ap.parse_args(argv)
    shifts = [int(s) for s in args.shifts.split(",")]
    if args.lead_frames is not None:
        phone_times.LEAD_FRAMES = args.lead_frames
    unknown = [v for v in args.voices.split(",") if v not in ALL_VOICES]
    if unknown:
        ap.error(f"unknown voices {unknown}; see model_server/data/voices.py")
    results = {}
    print("| voice | timing | utterances | " + " | ".join(f"{s:+d}" for s in shifts) + " | best shift |")
    print("|---|---|---:|" + "---:|" * len(shifts) + "---:|")
    for voice_id in args.voices.split(","):
        t0 = time.perf_counter()
        dtw_too = args.dtw and ALL_VOICES[voice_id].teacher_kind == "kokoro"
        timings, dropped = timed_utterances(voice_id, args.sentences, args.seed, dtw_too)
        for name, utts in timings.items():
            by_shift = {s: spread(utts, s) for s in shifts}
            best = min(by_shift, key=by_shift.get)
            results.setdefault(voice_id, {})[name] = {"utterances": len(utts), "spread": by_shift, "best_shift": best,
                                                      "dropped": dropped}  # fmt: skip
            cells = " | ".join(f"**{v:.2f}**" if s == best else f"{v:.2f}" for s, v in by_shift.items())
            print(f"| {voice_id} | {name} | {len(utts)} | {cells} | {best:+d} |", flush=True)
        results[voice_id]["seconds"] = round(time.perf_counter() - t0, 1)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
