"""`make evaluate` / `python -m model_server.evaluate`: intelligibility, speed and memory of a model.

For each English voice it synthesizes model_server/data/heldout_en.txt (sentences never used as
training text) through the same path the server uses (planner -> SpeechRuntime.step), renders the same
sentences with the Festival teacher voice, transcribes everything with pocketsphinx (the en-us model
its wheel ships) and writes docs/evaluation.md:

* WER per voice: model, teacher, and the teacher's own features through our vocoder (analysis/synthesis,
  which separates what the vocoder costs from what the acoustic model costs);
* real-time factor of one stream on this CPU (compute seconds / audio seconds, planner included), and the
  time of one batched step of 8 streams x 10 frames;
* memory per stream: the fixed state slot, and the planner's window for a 5-word and a 500-word text.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import sys
import time
from pathlib import Path

import numpy as np
import torch

from model_server import vocoder
from model_server.model.runtime import DEFAULT_MODEL_DIR, SpeechRuntime

HELDOUT = Path(__file__).resolve().parent / "data" / "heldout_en.txt"
TEACHERS = {"en_female_slt": "us_slt_hts", "en_male_kal": "kal_diphone"}
CHUNK_FRAMES = 32  # frames per step for the single-stream measurement (the server's steady chunk size)


def read_sentences(path: Path) -> list[str]:
    lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("#")]


def normalize_words(text: str) -> list[str]:
    return re.sub(r"[^a-z0-9' ]+", " ", text.lower().replace("-", " ")).split()


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h))
        prev = cur
    return prev[-1]


def wer(refs: list[str], hyps: list[str]) -> float:
    errors = sum(
        edit_distance(normalize_words(r), normalize_words(h)) for r, h in zip(refs, hyps, strict=True)
    )
    return 100.0 * errors / max(1, sum(len(normalize_words(r)) for r in refs))


class Transcriber:
    def __init__(self):
        from pocketsphinx import Decoder

        self.decoder = Decoder(samprate=vocoder.SAMPLE_RATE, logfn="/dev/null")

    def __call__(self, audio: np.ndarray) -> str:
        audio = np.asarray(audio)
        if audio.dtype == np.int16:  # Festival's output
            pcm16 = audio
        else:
            pcm16 = (np.clip(audio.astype(np.float32), -1.0, 1.0) * 32767.0).astype(np.int16)
        self.decoder.start_utt()
        self.decoder.process_raw(pcm16.tobytes(), full_utt=True)
        self.decoder.end_utt()
        hyp = self.decoder.hyp()
        return hyp.hypstr if hyp is not None else ""


def synthesize(
    rt: SpeechRuntime, voice: str, text: str, chunk: int = CHUNK_FRAMES
) -> tuple[np.ndarray, float]:
    """One stream through the serving path. Returns (audio float32, compute seconds)."""
    pool = rt.new_pool(1)
    t0 = time.perf_counter()
    rt.reset_slots(pool, [0])
    planner = rt.new_planner(voice, None, 1.0)
    planner.feed(text)
    planner.finish()
    parts = []
    while True:
        frames = planner.pop_frames(chunk)
        if frames is None:
            break
        parts.append(rt.step(pool, [0], frames.cond.unsqueeze(0))[0])
    elapsed = time.perf_counter() - t0
    audio = torch.cat(parts).numpy() if parts else np.zeros(0, np.float32)
    return audio, elapsed


def write_wav(path: Path, audio: np.ndarray) -> None:
    import wave

    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = (np.clip(audio, -1.0, 1.0) * 32767.0).astype(np.int16) if audio.dtype != np.int16 else audio
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(vocoder.SAMPLE_RATE)
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m model_server.evaluate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL_DIR)
    ap.add_argument("--voices", default=",".join(TEACHERS), help="English voices to evaluate")
    ap.add_argument("--sentences", type=Path, default=HELDOUT)
    ap.add_argument("--limit", type=int, default=0, help="only the first N sentences (0: all)")
    ap.add_argument("--wav-dir", type=Path, default=Path("data/eval"), help="where the audio is kept")
    ap.add_argument("--report", type=Path, default=Path("docs/evaluation.md"))
    ap.add_argument("--threads", type=int, default=1, help="torch threads (one stream on one core: 1)")
    ap.add_argument("--no-teacher", action="store_true", help="skip Festival (model WER only)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    voices = [v for v in args.voices.split(",") if v]
    unknown = [v for v in voices if v not in TEACHERS]
    if unknown:
        raise SystemExit(f"--voices: no Festival teacher known for {unknown}; choose from {sorted(TEACHERS)}")
    sentences = read_sentences(args.sentences)
    if args.limit:
        sentences = sentences[: args.limit]
    rt = SpeechRuntime.load(args.model)
    missing = [v for v in voices if v not in rt.voices]
    if missing:
        raise SystemExit(f"model {args.model} lacks voice(s) {missing}")
    asr = Transcriber()
    results = {}
    rtf_compute = rtf_audio = 0.0
    for voice in voices:
        hyps, vc_hyps, t_hyps = [], [], []
        if voice == voices[0]:
            synthesize(rt, voice, sentences[0])  # warm-up: first-call allocations are not steady state
        for i, text in enumerate(sentences):
            audio, secs = synthesize(rt, voice, text)
            rtf_compute += secs
            rtf_audio += len(audio) / vocoder.SAMPLE_RATE
            write_wav(args.wav_dir / voice / f"model_{i:02d}.wav", audio)
            hyps.append(asr(audio))
        entry = {
            "model_wer": wer(sentences, hyps),
            "examples": list(zip(sentences[:3], hyps[:3], strict=True)),
        }
        if not args.no_teacher:
            from model_server.data import festival

            renders = festival.render_batch(TEACHERS[voice], sentences)
            synth = vocoder.HarmonicNoiseSynth()
            for i, r in enumerate(renders):
                if r.audio is None:
                    raise SystemExit(f"Festival failed on sentence {i}: {r.error}")
                t_hyps.append(asr(r.audio))
                # analysis/synthesis: the teacher's features through our vocoder
                feats = torch.from_numpy(
                    vocoder.analyze(r.audio.astype(np.float32) / 32768.0, festival.SAMPLE_RATE)
                )
                with torch.inference_mode():
                    vc, _ = synth(feats.unsqueeze(0), synth.init_state(1))
                vc = vc[0].numpy()
                write_wav(args.wav_dir / voice / f"teacher_{i:02d}.wav", r.audio)
                write_wav(args.wav_dir / voice / f"vocoded_{i:02d}.wav", vc)
                vc_hyps.append(asr(vc))
            entry["teacher_wer"] = wer(sentences, t_hyps)
            entry["vocoded_wer"] = wer(sentences, vc_hyps)
        results[voice] = entry
        print(
            f"{voice}: " + ", ".join(f"{k} {v:.1f}" for k, v in entry.items() if k.endswith("wer")),
            flush=True,
        )

    rtf = rtf_compute / max(rtf_audio, 1e-9)
    step8 = batch_step_ms(rt)
    mem = memory_check(rt, voices[0])
    report = render_report(args, rt, sentences, results, rtf, rtf_audio, step8, mem)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(report, encoding="utf-8")
    print(
        json.dumps(
            {
                "rtf": round(rtf, 4),
                "speedup_x": round(1 / max(rtf, 1e-9), 1),
                "step8x10_ms": round(step8, 2),
                "memory": mem,
                **{
                    v: {k: round(x, 2) for k, x in e.items() if k.endswith("wer")} for v, e in results.items()
                },
            },
            indent=1,
        )
    )
    print(f"wrote {args.report}")
    return 0


def render_report(args, rt, sentences, results, rtf, audio_s, step8, mem) -> str:
    n_words = sum(len(normalize_words(s)) for s in sentences)
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
        f"- Model: `{model_path}` ({rt.model.num_parameters():,} parameters"
        + (
            f", {extra.get('trained_minutes')} min of training, step {extra.get('step')}"
            if "step" in extra
            else ""
        )
        + ")",
        f"- Text: `{args.sentences.name}`, {len(sentences)} sentences, {n_words} words, never used as training text",
        "- ASR: pocketsphinx 5 with the en-us acoustic model and language model its wheel ships; WER = word "
        "edits / reference words after lower-casing and stripping punctuation",
        f"- Machine: {platform.machine()}, torch threads = {args.threads}, on a host shared with other jobs "
        "(timings are upper bounds)",
        "",
        "## Intelligibility (WER, %)",
        "",
        "| voice | model | teacher (Festival) | teacher features through our vocoder | model - teacher |",
        "| --- | --- | --- | --- | --- |",
    ]
    for voice, e in results.items():
        t = e.get("teacher_wer")
        vc = e.get("vocoded_wer")
        gap = f"{e['model_wer'] - t:+.1f}" if t is not None else "n/a"
        lines.append(
            f"| {voice} | {e['model_wer']:.1f} | {'n/a' if t is None else f'{t:.1f}'} | "
            f"{'n/a' if vc is None else f'{vc:.1f}'} | {gap} |"
        )
    lines += [
        "",
        "Target: English female WER <= teacher + 10 points (stretch + 5).",
        "",
        "First transcripts (reference -> model):",
        "",
    ]
    for voice, e in results.items():
        for ref, hyp in e["examples"]:
            lines.append(f'- {voice}: "{ref}" -> "{hyp}"')
    lines += [
        "",
        "## Speed",
        "",
        f"- One stream, serving path (planner + `SpeechRuntime.step` in chunks of {CHUNK_FRAMES} frames, decoder "
        f"and vocoder): real-time factor **{rtf:.3f}** (compute s / audio s over {audio_s:.0f} s of audio), "
        f"i.e. **{1 / max(rtf, 1e-9):.1f}x** faster than real time. Target: >= 10x.",
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
