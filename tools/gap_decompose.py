"""Where a voice loses its words between teacher and model: durations, or which vocoder features.

    .venv/bin/python tools/gap_decompose.py --voices id_male_kumo,ru_male_kumo [--model DIR] [--sentences N]
        [--systems vocoded,model,...] [--data DATASET_DIR] [--judge-threads 2]

For each sentence the voice's teacher is rendered, analysed and aligned as `make data` does (`data/build.py`:
its features and each phone's frames), and the model speaks the same phones twice: with the teacher's
durations, so its features line up frame by frame with the teacher's, and with its own. Then feature groups are
swapped between the two aligned tracks, every track goes through the voice's vocoder (with its post-filter),
and Whisper-base judges it in the voice's language, scored as the per-language evaluation scores it:

* ``vocoded``: the teacher's own features (the evaluation's "vocoder" column): what the model aims at;
* ``model``: the model with the teacher's durations; ``model-own-durations``: with its predicted ones;
* ``model+teacher-env``, ``model+teacher-f0``, ``model+teacher-ap``: the model with the teacher's spectral
  envelope, its F0 and voicing, or its aperiodicity put back (teacher's durations);
* ``teacher+model-env``, ``teacher+model-f0``: the teacher with the model's envelope, or F0 and voicing.

A group whose teacher version brings ``model`` back to ``vocoded`` (or whose model version takes ``vocoded``
down to ``model``) is where the words go. ``--data`` judges sentences of a dataset (every Nth utterance)
instead of the held-out ones: text drawn as the training text is. Scores are cached per voice, model and
system in --cache (runs/gap-decompose), keyed by the model's weights.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from model_server import evaluate, evaluate_languages, vocoder  # noqa: E402
from model_server.data import build, frontend_bridge  # noqa: E402
from model_server.data.dataset import Utterance, VoiceData, load_dataset  # noqa: E402
from model_server.data.voices import ALL_VOICES  # noqa: E402
from model_server.model.acoustic import durations_from_log, frame_conditioning  # noqa: E402
from model_server.model.measured import weights_digest  # noqa: E402
from model_server.model.runtime import DEFAULT_MODEL_DIR, SpeechRuntime  # noqa: E402

F0 = slice(0, vocoder.VUV.start)
GROUPS = {"env": [vocoder.ENV], "f0": [F0, vocoder.VUV], "ap": [vocoder.AP]}
SYSTEMS = (
    "vocoded", "model", "model-own-durations", "model+teacher-env", "model+teacher-f0", "model+teacher-ap",
    "teacher+model-env", "teacher+model-f0",
)  # fmt: skip


@dataclass
class Tracks:
    """One utterance's features: the teacher's, the model's on the teacher's durations, and on its own."""

    teacher: np.ndarray
    model: np.ndarray
    model_own: np.ndarray


def swapped(base: np.ndarray, donor: np.ndarray, group: str) -> np.ndarray:
    """`base` with `donor`'s feature group (``env``, ``f0`` with voicing, or ``ap``); same frame count."""
    if base.shape != donor.shape:
        raise ValueError(f"tracks must be aligned, got {base.shape} and {donor.shape}")
    out = base.copy()
    for cols in GROUPS[group]:
        out[:, cols] = donor[:, cols]
    return out


def features_of(system: str, t: Tracks) -> np.ndarray:
    if system == "vocoded":
        return t.teacher
    if system == "model":
        return t.model
    if system == "model-own-durations":
        return t.model_own
    base, _, group = system.partition("+")
    donor_name, _, group = group.partition("-")
    if group not in GROUPS or {base, donor_name} != {"model", "teacher"}:
        raise ValueError(f"unknown system {system!r}; known: {', '.join(SYSTEMS)}")
    return swapped(
        t.model if base == "model" else t.teacher, t.teacher if base == "model" else t.model, group
    )


def teacher_utterances(
    voice: str, sentences: list[str], cache: Path
) -> tuple[list[Utterance | None], VoiceData]:
    """The teacher's aligned utterances for `sentences` (None where alignment dropped one) and their data,
    rendered once into `cache`."""
    spec = ALL_VOICES[voice]
    teacher_texts = [frontend_bridge.normalize(s, spec.language) for s in sentences]
    batch = build.Batch(spec, 0, sentences, teacher_texts, cache / "cache" / voice / "batch_00000.npz")
    if not batch.is_done():
        build.run_batch(batch)
    build.assemble([batch], [spec], cache, frontend_bridge.align)
    data = load_dataset(cache / "dataset", [voice])[voice]
    by_text = {u.text: u for u in data.utterances}
    return [by_text.get(s) for s in sentences], data


def model_tracks(rt: SpeechRuntime, voice: str, utt: Utterance, teacher: np.ndarray) -> Tracks:
    speaker = next(v.speaker for v in rt.ckpt.voices if v.info.id == voice)
    index = {s: i for i, s in enumerate(rt.ckpt.symbols)}
    with torch.inference_mode():
        enc, log_dur = rt.model.encoder(
            torch.tensor([[index[s] for s in utt.symbols]]), torch.tensor([speaker])
        )

        def decode(durations: torch.Tensor) -> np.ndarray:
            out, _ = rt.model.decoder(frame_conditioning(enc[0], durations)[None])
            return rt.model.denormalize(out)[0].numpy()

        own, _ = durations_from_log(log_dur[0], 1.0)
        return Tracks(teacher, decode(torch.tensor(utt.durations)), decode(own))


def vocoder_for(rt: SpeechRuntime, voice: str) -> Callable[[np.ndarray], np.ndarray]:
    settings = rt.catalog.vocoder_settings([voice])

    def speak(feats: np.ndarray) -> np.ndarray:
        state = rt.synth.init_state(1)
        state.update({k: v for k, v in settings.items() if k in state})
        with torch.inference_mode():
            audio, _ = rt.synth(torch.from_numpy(np.ascontiguousarray(feats, np.float32))[None], state)
        return audio[0].numpy()

    return speak


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--voices", required=True, help="comma-separated catalog voice ids")
    ap.add_argument(
        "--model", type=Path, default=DEFAULT_MODEL_DIR, help="model directory (default: the shipped weights)"
    )
    ap.add_argument("--sentences", type=int, default=0, help="first N sentences per voice (0: all)")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--data", type=Path, default=None,
                    help="a dataset directory: judge 24 of its utterances instead of the held-out sentences")  # fmt: skip
    ap.add_argument("--cache", type=Path, default=ROOT / "runs" / "gap-decompose")
    ap.add_argument("--judge-threads", type=int, default=1)
    args = ap.parse_args(argv)

    voices = [v for v in args.voices.split(",") if v]
    unknown = [v for v in voices if v not in ALL_VOICES]
    systems = [s for s in args.systems.split(",") if s]
    bad = [s for s in systems if s not in SYSTEMS]
    if unknown or bad:
        raise SystemExit(f"unknown voice(s) {unknown} or system(s) {bad}; systems: {', '.join(SYSTEMS)}")
    rt = SpeechRuntime.load(args.model)
    weights = weights_digest(args.model)[:12]
    evaluate.ensure_eval_deps()
    asr = None
    rows = []
    for voice in voices:
        if voice not in rt.voices:
            raise SystemExit(f"the model has no voice {voice!r}")
        language = ALL_VOICES[voice].language
        source = "heldout"
        if args.data is not None:
            data = load_dataset(args.data, [voice])[voice]
            step = max(1, len(data.utterances) // 24)
            utts = data.utterances[::step][: args.sentences or 24]
            sentences = [u.text for u in utts]
            source = f"data-{args.data.resolve().parent.name}"
        else:
            sentences = evaluate_languages.heldout(language, args.sentences)
            found, data = teacher_utterances(voice, sentences, args.cache / voice)
            kept = [i for i, u in enumerate(found) if u is not None]
            sentences, utts = [sentences[i] for i in kept], [found[i] for i in kept]
        frames = [np.asarray(data.frames(u)) for u in utts]
        tracks = [model_tracks(rt, voice, u, f.astype(np.float32)) for u, f in zip(utts, frames, strict=True)]
        speak = vocoder_for(rt, voice)
        for system in systems:
            path = args.cache / "scores" / voice / f"{weights}-{source}-{len(sentences)}-{system}.json"
            if path.is_file():
                entry = json.loads(path.read_text())
            else:
                asr = asr or evaluate.WhisperJudge(threads=args.judge_threads)
                hyps = [asr(speak(features_of(system, t)), language, vocoder.SAMPLE_RATE) for t in tracks]
                entry = {
                    "errors": evaluate_languages.unit_errors(sentences, hyps, language).tolist(),
                    "hyps": hyps,
                }
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(entry, ensure_ascii=False))
            errors = np.asarray(entry["errors"])
            wer, ci = evaluate.wer_of(errors), evaluate.bootstrap_ci(errors, evaluate.wer_of)
            rows.append((voice, system, len(sentences), wer, ci))
            print(f"{voice} {system}: {wer:.1f} [{ci[0]:.1f}, {ci[1]:.1f}]", flush=True)
    print(f"\nmodel {args.model} (weights {weights}), {source} sentences; 95% bootstrap CIs\n")
    print("| voice | system | n | WER (CER where the language has no spaces) % |")
    print("|---|---|---|---|")
    for voice, system, n, wer, ci in rows:
        print(f"| {voice} | {system} | {n} | {wer:.1f} [{ci[0]:.1f}, {ci[1]:.1f}] |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
