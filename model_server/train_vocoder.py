"""Teach the learned vocoder (`neural_vocoder.py`) from teacher audio: ``python -m model_server.train_vocoder``.

Two steps, both resumable:

    python -m model_server.train_vocoder data --voices en_female_heart --sentences 1200 --out runs/vocdata
    python -m model_server.train_vocoder train --data runs/vocdata --minutes 30 --out runs/vocoder

``data`` renders each voice's teacher (generated training sentences, never the held-out ones) at 24 kHz:
hibari-tts at its own 24 kHz, other teachers at their rate and resampled. It keeps the audio beside the
features `vocoder.analyze` takes from it, which are the features the acoustic model learns to predict, so the
vocoder learns the map it will serve. Shards of ``--shard`` sentences are written one by one; a rerun skips
the shards already there. ``--features-from MODEL_DIR`` keeps instead the envelope and aperiodicity that model
predicts for each sentence held to the teacher's phone durations (ground-truth-aligned, as in Tacotron 2's
WaveNet), beside the teacher's own F0 and voicing: the model's blurred spectra frame for frame beside the
teacher's audio, so that the vocoder learns to make the teacher's sound from what serving gives it.

``train`` fits the network to the teacher's STFT frames (`neural_vocoder.target_frames`): L1 on the log
magnitude, L1 on the complex spectrum with its magnitude compressed (power 0.3), APNet's anti-wrapping losses on
the phase, its derivative along frequency (group delay) and along time (instantaneous frequency), weighted
by the teacher's compressed magnitude so that silent bins do not teach noise, and a multi-resolution STFT loss
on the overlap-added audio. ``--gan`` adds multi-period and multi-resolution discriminators
(`vocoder_gan.py`) with feature matching: what a GPU run is for. Each step sees random windows of
``--crop`` frames after ``--warm`` frames of context from the same utterance (the loss skips the context, as a
stream would have heard it). ``--resume`` continues from ``--out``'s checkpoint.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from model_server import neural_vocoder as nv
from model_server import vocoder

MANIFEST = "manifest.json"
CHECKPOINT = "checkpoint.pt"
COMPRESS = 0.3  # magnitude compression of the complex loss: the loud harmonics do not drown the rest
STFT_LOSS_RESOLUTIONS = ((512, 128), (1024, 256), (2048, 512))  # (n_fft, hop) at 24 kHz


# --- data -------------------------------------------------------------------------------------------------


def render_teacher_24k(
    voice_id: str, texts: list[str]
) -> list[tuple[np.ndarray | None, list[tuple[str, float]], str | None]]:
    """(float32 audio at 24 kHz or None, the teacher's (phone, end seconds) segments, error or None) per text,
    from the voice's teacher."""
    import soxr

    from model_server.data import build, voices

    (voice,) = voices.resolve_voices([voice_id])
    if voice.teacher_kind == "hibari":
        from model_server.data import hibari_teacher

        out = []
        for text in texts:
            audio, segments, error = hibari_teacher.render_native(voice.teacher_voice, text)
            if audio is not None and hibari_teacher.HIBARI_RATE != nv.OUTPUT_RATE:
                audio = soxr.resample(audio, hibari_teacher.HIBARI_RATE, nv.OUTPUT_RATE, quality="HQ")
            out.append((audio, segments, error))
        return out
    out = []
    for render in build._render(voice, texts):
        if render.audio is None:
            out.append((None, [], render.error or "no audio"))
            continue
        audio = render.audio.astype(np.float32) / 32768.0
        audio = soxr.resample(audio, vocoder.SAMPLE_RATE, nv.OUTPUT_RATE, quality="HQ").astype(np.float32)
        out.append((audio, render.segments, None))
    return out


@functools.cache
def _checkpoint(model_dir: str):
    from model_server.frontend.symbols import LENGTH_MARKS
    from model_server.model import checkpoint

    try:
        ckpt = checkpoint.load(model_dir)
    except checkpoint.ModelLoadError as e:
        raise SystemExit(f"--features-from {model_dir}: {e}") from None
    if ckpt.length_marks != LENGTH_MARKS:  # the data pipeline's frontend makes the symbols with the default
        raise SystemExit(
            f"{model_dir}: the model's symbols use length marks {ckpt.length_marks!r}, "
            f"the data pipeline's frontend {LENGTH_MARKS!r}"
        )
    return ckpt


def predicted_features(ckpt, voice_id: str, symbols: list[str], durations: list[int]) -> np.ndarray:
    """The features the model gives the vocoder for ``symbols`` held to ``durations`` (frames): serving's
    encoder and decoder over the whole sentence (equal to streaming it: both are causal up to the encoder's
    bounded lookahead), the teacher's durations in place of the predicted ones so that frame t lines up with
    the teacher's audio at frame t. float32 [sum(durations), FEATURE_DIM]."""
    from model_server.frontend.symbols import UNK
    from model_server.model.acoustic import frame_conditioning

    index = {s: i for i, s in enumerate(ckpt.symbols)}
    ids = torch.tensor([[index.get(s, index[UNK]) for s in symbols]])
    speaker = torch.tensor([ckpt.voice(voice_id).speaker])
    with torch.inference_mode():
        enc, _ = ckpt.model.encoder(ids, speaker)
        cond = frame_conditioning(enc[0], torch.tensor(durations, dtype=torch.long))
        out, _ = ckpt.model.decoder(cond[None])
        return ckpt.model.denormalize(out)[0].numpy().astype(np.float32)


def _aligned_prediction(
    model_dir: str, voice, text: str, segments, analysed: np.ndarray
) -> tuple[np.ndarray | None, str]:
    """(the model's envelope and aperiodicity for ``text`` at the teacher's timing beside the teacher's own F0
    and voicing, or None; why not). The teacher's phone times become frame counts and the frontend's symbols
    are aligned to them as `make data` aligns them (an utterance it would drop is dropped here too).

    F0 and voicing stay the teacher's (``analysed``): the model's F0 is about 5 % off the teacher's (median, on
    voiced frames), which puts the teacher's harmonics where the input says there are none and turns the
    phase the network must predict into noise. Trained that way (1.8 h of heart, 35 min) the vocoder gave the
    model's voice 2.10 DistillMOS against 2.78 from the teacher's features alone, its instantaneous-frequency
    loss at chance (docs/model.md, "A learned vocoder")."""
    from model_server.data import build, frontend_bridge

    n_frames = len(analysed)
    frames = build.teacher_frames(segments, n_frames)
    aligned = frontend_bridge.align(voice, text, [name for name, _ in segments], frames, n_frames)
    if aligned.error is not None:
        return None, aligned.error
    feats = predicted_features(_checkpoint(model_dir), voice.id, aligned.symbols, aligned.durations)
    for pitch in (vocoder.LF0, vocoder.VUV):
        feats[:, pitch] = analysed[:, pitch]
    return feats, ""


def _render_shard(job: tuple[str, list[str], str, str]) -> tuple[str, int, list[str]]:
    """Render and analyse one shard (``features_from``: a model directory whose predictions replace the
    analysed features, or ""); write it atomically. -> (path, utterances kept, errors)."""
    from model_server.data import frontend_bridge, voices

    voice_id, texts, path, features_from = job
    torch.set_num_threads(1)
    (voice,) = voices.resolve_voices([voice_id])
    # the teacher reads the normalizer's spoken form, as in `make data`, so that it says the frontend's words
    spoken = [frontend_bridge.normalize(t, voice.language) for t in texts]
    audio_parts, feat_parts, kept, errors = [], [], [], []
    for text, (audio, segments, error) in zip(texts, render_teacher_24k(voice_id, spoken), strict=True):
        if audio is None or len(audio) < nv.OUTPUT_RATE // 10:
            errors.append(f"{text!r}: {error or 'shorter than 0.1 s'}")
            continue
        feats = vocoder.analyze(audio.astype(np.float64), nv.OUTPUT_RATE)
        if features_from:
            feats, error = _aligned_prediction(features_from, voice, text, segments, feats)
            if feats is None:
                errors.append(f"{text!r}: {error}")
                continue
        audio_parts.append(np.clip(np.round(audio * 32767.0), -32768, 32767).astype(np.int16))
        feat_parts.append(feats)
        kept.append(text)
    tmp = Path(path + ".tmp.npz")
    np.savez(
        tmp,
        audio=np.concatenate(audio_parts) if audio_parts else np.zeros(0, np.int16),
        audio_lengths=np.asarray([len(a) for a in audio_parts], np.int64),
        feats=np.concatenate(feat_parts) if feat_parts else np.zeros((0, vocoder.FEATURE_DIM), np.float32),
        feat_lengths=np.asarray([len(f) for f in feat_parts], np.int64),
        texts=np.asarray(kept),
    )
    os.replace(tmp, path)
    return path, len(kept), errors


def feature_source(features_from: Path | None) -> dict:
    """What a data folder's features are, for its manifest: analysed from the teacher's audio, or a model's
    predictions (named by its weights' digest, so that a retrained model's data is not mixed in)."""
    if features_from is None:
        return {"source": "teacher analysis"}
    from model_server.model.checkpoint import WEIGHTS_FILE
    from model_server.model.measured import weights_digest

    if not (Path(features_from) / WEIGHTS_FILE).is_file():
        raise SystemExit(f"--features-from {features_from}: no {WEIGHTS_FILE} there (a model directory)")
    return {
        "source": "model envelope and aperiodicity at the teacher's timing, teacher F0",
        "weights_sha256": weights_digest(features_from),
    }


def build_data(
    voice_ids: list[str],
    sentences: int,
    out: Path,
    seed: int,
    shard: int,
    workers: int,
    max_seconds: float = 0.0,
    features_from: Path | None = None,
) -> dict:
    """Render ``sentences`` per voice into ``out`` (resumable); returns the manifest. The manifest lists every
    planned shard and is written first; training reads the shards present. ``max_seconds`` > 0: no shard
    starts after that long (a time box: rerun to render the rest). ``features_from``: keep that model's
    predictions at the teacher's timing instead of the analysed features."""
    from model_server.data import text, voices

    out.mkdir(parents=True, exist_ok=True)
    features = feature_source(features_from)
    if features_from is not None:
        ckpt = _checkpoint(str(features_from))  # fail here, not in a worker, on a bad directory or voice
        missing = sorted(set(voice_ids) - {v.info.id for v in ckpt.voices})
        if missing:
            raise SystemExit(f"--features-from {features_from}: the model has no voice {missing}")
    previous = out / MANIFEST
    if previous.is_file():
        before = json.loads(previous.read_text()).get("features", feature_source(None))
        if before != features:
            raise SystemExit(
                f"{out} holds features from {before}, not {features}: use another --out for these"
            )
    manifest = {"sample_rate": nv.OUTPUT_RATE, "seed": seed, "features": features, "voices": {}}
    jobs = []
    for voice in voices.resolve_voices(voice_ids):
        texts = text.generate_sentences(voice.language, sentences, seed=seed)
        folder = out / voice.id
        folder.mkdir(exist_ok=True)
        paths = []
        for i in range(0, len(texts), shard):
            path = folder / f"shard_{i // shard:05d}.npz"
            paths.append(path.name)
            if not path.is_file():
                jobs.append((voice.id, texts[i : i + shard], str(path), str(features_from or "")))
        manifest["voices"][voice.id] = {"teacher": voice.teacher, "shards": paths}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    done = sum(len(v["shards"]) for v in manifest["voices"].values()) - len(jobs)
    print(f"{done} shards already done, {len(jobs)} to render", flush=True)
    start = time.monotonic()
    queue, running, n = list(jobs), set(), 0
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        while queue or running:
            timed_out = max_seconds > 0 and time.monotonic() - start > max_seconds
            while (
                queue and len(running) < max(1, workers) and not timed_out
            ):  # one shard per worker in flight
                running.add(pool.submit(_render_shard, queue.pop(0)))
            if not running:
                break
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                n += 1
                path, kept, errors = future.result()
                for e in errors[:3]:
                    print(f"  dropped {e}", flush=True)
                print(
                    f"[{n}/{len(jobs)}] {path}: {kept} utterances, {time.monotonic() - start:.0f} s",
                    flush=True,
                )
    if queue:
        print(
            f"time box of {max_seconds:g} s reached: {len(queue)} shards not started (rerun to render them)",
            flush=True,
        )
    return manifest


class VocoderData:
    """All utterances of a data folder in memory: int16 audio at 24 kHz and float32 features."""

    def __init__(self, root: Path, voices: list[str] | None = None):
        root = Path(root)
        try:
            manifest = json.loads((root / MANIFEST).read_text())
        except FileNotFoundError:
            raise SystemExit(
                f"{root / MANIFEST}: no vocoder data here (python -m model_server.train_vocoder data)"
            ) from None
        if manifest.get("sample_rate") != nv.OUTPUT_RATE:
            raise SystemExit(
                f"{root}: data at {manifest.get('sample_rate')} Hz; this vocoder learns {nv.OUTPUT_RATE} Hz"
            )
        wanted = voices or list(manifest["voices"])
        missing = sorted(set(wanted) - set(manifest["voices"]))
        if missing:
            raise SystemExit(f"{root}: no data for {missing}; it has {sorted(manifest['voices'])}")
        self.audio: list[np.ndarray] = []
        self.feats: list[np.ndarray] = []
        planned = [root / v / name for v in wanted for name in manifest["voices"][v]["shards"]]
        present = [path for path in planned if path.is_file()]
        if len(present) < len(planned):  # a time-boxed render: train on what is there, and say so
            print(
                f"{root}: {len(present)} of {len(planned)} shards rendered (rerun the data step to add the rest)",
                flush=True,
            )
        for path in present:
            with np.load(path) as z:
                a_ends, f_ends = np.cumsum(z["audio_lengths"]), np.cumsum(z["feat_lengths"])
                self.audio += np.split(z["audio"], a_ends[:-1]) if len(a_ends) else []
                self.feats += np.split(z["feats"], f_ends[:-1]) if len(f_ends) else []
        if not self.audio:
            raise SystemExit(f"{root}: no utterances (rerun the data step, which resumes)")

    def split(self, validation: int) -> tuple[list[int], list[int]]:
        """(training, validation) utterance indices: every k-th utterance validates, the rest train."""
        n = len(self.audio)
        step = max(2, n // max(1, validation))
        val = list(range(step - 1, n, step))[:validation]
        held = set(val)
        return [i for i in range(n) if i not in held], val

    def hours(self) -> float:
        return sum(len(a) for a in self.audio) / nv.OUTPUT_RATE / 3600


def f0_phase_before(feats: np.ndarray, start: int, hop: int, rate: int) -> tuple[float, float]:
    """(F0 phase, F0) a stream would carry into frame ``start`` of an utterance: the sum of
    `NeuralVocoder.reference_phase`'s trapezoid steps over the frames before it, from a fresh state (F0 0)."""
    if start == 0:
        return 0.0, 0.0
    f0 = np.clip(
        np.exp(feats[:start, vocoder.LF0.start].astype(np.float32)), vocoder.F0_FLOOR, vocoder.F0_MAX
    )
    f0 = f0.astype(np.float64)  # the model's F0 is float32 too: the sums then differ by rounding only
    before = np.concatenate([[0.0], f0[:-1]])
    return float(np.remainder(np.sum(np.pi * hop / rate * (before + f0)), 2 * np.pi)), float(
        np.float32(f0[-1])
    )


def sample_batch(
    data: VocoderData, indices: list[int], batch: int, frames: int, hop: int, rng: np.random.Generator
) -> tuple[torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
    """(features [B, frames, F], delayed teacher audio [B, (frames + 1) * hop], the F0 phase state at each
    window's start) for random windows: the audio that steps over these frames should emit, plus one hop for
    the last frame's grain (`neural_vocoder.delayed`), and the F0 phase a stream from the utterance's start
    would carry in, so that the reference phase is the one serving gives."""
    feats, audio, phases, f0s = [], [], [], []
    for _ in range(batch):
        i = indices[rng.integers(len(indices))]
        f, a = data.feats[i], data.audio[i]
        start = int(rng.integers(max(1, len(f) - frames + 1)))
        window = f[start : start + frames]
        if len(window) < frames:  # a short utterance: pad with its last frame, the audio with silence
            window = np.concatenate([window, np.repeat(window[-1:], frames - len(window), axis=0)])
        first = (start - 1) * hop  # step t emits teacher time [(t - 1) hop, t hop): before 0 is silence
        seg = a[max(0, first) : (start + frames) * hop]
        lead = max(0, -first)
        seg = np.pad(seg, (lead, (frames + 1) * hop - lead - len(seg)))
        phase, f0 = f0_phase_before(f, start, hop, nv.OUTPUT_RATE)
        feats.append(window)
        audio.append(seg.astype(np.float32) / 32768.0)
        phases.append(phase)
        f0s.append(f0)
    start_state = {
        "f0_phase": torch.tensor(phases, dtype=torch.float64),
        "f0": torch.tensor(f0s, dtype=torch.float32),
    }
    return torch.from_numpy(np.stack(feats)), torch.from_numpy(np.stack(audio)), start_state


# --- losses -----------------------------------------------------------------------------------------------


def anti_wrap(x: torch.Tensor) -> torch.Tensor:
    """|x| after wrapping to [-pi, pi]: the distance between two phases (APNet)."""
    return torch.abs(x - 2 * math.pi * torch.round(x / (2 * math.pi)))


def spectral_losses(
    log_mag: torch.Tensor, phase: torch.Tensor, target: torch.Tensor
) -> dict[str, torch.Tensor]:
    """Frame losses of the head's output against the teacher's STFT frames ``target`` (complex, same shape)."""
    t_mag = target.abs()
    t_phase = torch.angle(target)
    floor = math.log(1e-4)
    losses = {"log_mag": F.l1_loss(log_mag.clamp(min=floor), torch.log(t_mag.clamp(min=1e-4)))}
    mag_c = torch.exp(COMPRESS * log_mag)
    pred_c = torch.complex(mag_c * torch.cos(phase), mag_c * torch.sin(phase))
    t_c = t_mag.pow(COMPRESS) * torch.exp(1j * t_phase)
    losses["complex"] = (pred_c - t_c).abs().mean()
    weight = t_mag.pow(COMPRESS)
    weight = weight / weight.mean().clamp_min(1e-8)
    d = phase - t_phase
    losses["phase"] = (weight * anti_wrap(d)).mean()
    losses["group_delay"] = (weight[..., 1:] * anti_wrap(d[..., 1:] - d[..., :-1])).mean()
    losses["inst_freq"] = (weight[:, 1:] * anti_wrap(d[:, 1:] - d[:, :-1])).mean()
    return losses


def stft_loss(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Multi-resolution STFT: spectral convergence and log-magnitude L1, averaged over resolutions."""
    total = pred.new_zeros(())
    for n_fft, hop in STFT_LOSS_RESOLUTIONS:
        window = torch.hann_window(n_fft, device=pred.device)
        p = torch.stft(pred, n_fft, hop, window=window, return_complex=True).abs()
        t = torch.stft(target, n_fft, hop, window=window, return_complex=True).abs()
        convergence = torch.linalg.norm(t - p) / torch.linalg.norm(t).clamp_min(1e-6)
        total = total + convergence + F.l1_loss(torch.log(p.clamp_min(1e-5)), torch.log(t.clamp_min(1e-5)))
    return total / len(STFT_LOSS_RESOLUTIONS)


WEIGHTS = {"log_mag": 1.0, "complex": 1.0, "phase": 0.3, "group_delay": 0.3, "inst_freq": 0.3, "stft": 1.0}


def reconstruction_losses(
    model: nv.NeuralVocoder,
    feats: torch.Tensor,
    audio: torch.Tensor,
    warm: int,
    start_state: dict[str, torch.Tensor] | None = None,
):
    """(weighted total, parts, predicted emitted audio, teacher emitted audio) for one batch; the first
    ``warm`` frames are context only. ``start_state``: the F0 phase and F0 carried into each window."""
    hop = model.hop
    state = {**model.init_state(feats.shape[0], feats.device),
             **{k: v.to(feats.device) for k, v in (start_state or {}).items()}}  # fmt: skip
    log_mag, phase, _ = model.spectra(feats, state)
    pred_audio, _ = nv.overlap_add(model.grains(log_mag, phase), state["tail"])
    target = nv.target_frames(audio, model.window)  # [B, frames, bins]
    parts = spectral_losses(log_mag[:, warm:], phase[:, warm:], target[:, warm:])
    # the first emitted hop after the context still lacks the grain of the frame before it: skip it too
    pred_out, true_out = pred_audio[:, (warm + 1) * hop :], audio[:, (warm + 1) * hop : pred_audio.shape[1]]
    parts["stft"] = stft_loss(pred_out, true_out)
    total = sum(WEIGHTS[k] * v for k, v in parts.items())
    return total, parts, pred_out, true_out


# --- training ---------------------------------------------------------------------------------------------


def learning_rate(args, step: int, start_step: int, elapsed: float) -> float:
    """Linear warm-up, then a cosine from ``--lr`` down to a tenth of it over this run's budget (its steps
    when ``--steps`` is set, else its minutes): a time-budgeted run ends annealed whatever its speed."""
    if args.steps:
        progress = (step - start_step) / max(1, args.steps - start_step)
    else:
        progress = elapsed / (60 * args.minutes)
    anneal = 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
    return args.lr * min(1.0, (step + 1) / args.warmup) * anneal


def feature_statistics(data: VocoderData, indices: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    feats = np.concatenate([data.feats[i] for i in indices])
    return torch.from_numpy(feats.mean(0)), torch.from_numpy(feats.std(0))


def validate(model, data, indices, args, device) -> float:
    rng = np.random.default_rng(12345)
    model.eval()
    with torch.no_grad():
        losses = []
        for _ in range(args.val_batches):
            feats, audio, carried = sample_batch(
                data, indices, args.batch, args.warm + args.crop, model.hop, rng
            )
            total, *_ = reconstruction_losses(model, feats.to(device), audio.to(device), args.warm, carried)
            losses.append(float(total))
    model.train()
    return float(np.mean(losses))


@torch.enable_grad()  # whatever the caller's grad mode (an engine in the same process turns it off)
def train(args) -> Path:
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    data = VocoderData(args.data, args.voices.split(",") if args.voices else None)
    train_idx, val_idx = data.split(args.validation)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_path = out / CHECKPOINT
    if args.resume and ckpt_path.is_file():
        ckpt = torch.load(ckpt_path, map_location="cpu", weights_only=False)
        model = nv.NeuralVocoder(nv.NeuralVocoderConfig.from_dict(ckpt["config"]))
        model.load_state_dict(ckpt["model"])
        step, spent = ckpt["step"], ckpt["seconds"]
    else:
        config = nv.NeuralVocoderConfig(channels=args.channels, layers=args.layers, kernel=args.kernel)
        model = nv.NeuralVocoder(config)
        model.set_normalization(*feature_statistics(data, train_idx))
        ckpt, step, spent = None, 0, 0.0
    model.to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.8, 0.99), weight_decay=0.01)
    gan = None
    if args.gan:
        from model_server import vocoder_gan

        gan = vocoder_gan.Adversary(device, lr=args.lr)
    if ckpt is not None:
        opt.load_state_dict(ckpt["optimizer"])
        if gan is not None and ckpt.get("gan"):
            gan.load_state_dict(ckpt["gan"])
    print(
        f"{len(train_idx)} training / {len(val_idx)} validation utterances ({data.hours():.2f} h), "
        f"{nv.parameter_count(model):,} parameters, device {device}, from step {step}",
        flush=True,
    )
    rng = np.random.default_rng(args.seed + step)
    autocast = (
        torch.autocast("cuda", dtype=torch.bfloat16)
        if device.type == "cuda"
        else torch.autocast("cpu", enabled=False)
    )
    deadline = time.monotonic() + 60 * args.minutes
    start, last_log, start_step = time.monotonic(), time.monotonic(), step
    while time.monotonic() < deadline and (not args.steps or step < args.steps):
        lr = learning_rate(args, step, start_step, time.monotonic() - start)
        for group in opt.param_groups:
            group["lr"] = lr
        feats, audio, carried = sample_batch(
            data, train_idx, args.batch, args.warm + args.crop, model.hop, rng
        )
        feats, audio = feats.to(device), audio.to(device)
        with autocast:
            total, parts, pred_out, true_out = reconstruction_losses(model, feats, audio, args.warm, carried)
            if gan is not None and step >= args.gan_start:
                gan.step_discriminator(pred_out.detach().float(), true_out)
                total = total + gan.generator_loss(pred_out.float(), true_out, parts)
        opt.zero_grad(set_to_none=True)
        total.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        opt.step()
        step += 1
        if time.monotonic() - last_log >= args.log_seconds:
            last_log = time.monotonic()
            shown = " ".join(f"{k} {float(v.detach()):.3f}" for k, v in parts.items())
            print(
                f"step {step} {time.monotonic() - start:.0f} s loss {float(total.detach()):.3f} ({shown})",
                flush=True,
            )
    seconds = spent + time.monotonic() - start
    val = validate(model, data, val_idx, args, device)
    print(f"done: {step} steps, {seconds / 60:.1f} min, validation loss {val:.4f}", flush=True)
    torch.save(
        {
            "config": dataclasses.asdict(model.config),
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "step": step,
            "seconds": seconds,
            "gan": gan.state_dict() if gan is not None else None,
        },
        ckpt_path,
    )
    model.cpu().save(
        out,
        extra={
            "trained": {
                "data": str(args.data),
                "voices": args.voices or "all",
                "steps": step,
                "minutes": round(seconds / 60, 2),
                "validation_loss": round(val, 4),
                "gan": bool(args.gan),
                "device": device.type,
            }
        },
    )
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m model_server.train_vocoder", description=__doc__.split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("data", help="render teacher audio at 24 kHz and its features")
    d.add_argument("--voices", required=True, help="comma-separated voice ids (model_server.data.voices)")
    d.add_argument("--sentences", type=int, default=1200, help="per voice")
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--seed", type=int, default=31, help="text seed (the acoustic data uses others)")
    d.add_argument("--shard", type=int, default=50, help="sentences per shard (the unit of resuming)")
    d.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 1)))
    d.add_argument(
        "--max-seconds", type=float, default=0.0, help="start no shard after this long (0: no limit)"
    )
    d.add_argument(
        "--features-from",
        type=Path,
        default=None,
        metavar="MODEL_DIR",
        help="keep this model's features predicted at the teacher's phone timing, not the analysed ones",
    )
    t = sub.add_parser("train", help="fit the vocoder to the rendered data")
    t.add_argument("--data", type=Path, required=True)
    t.add_argument(
        "--out", type=Path, required=True, help="writes neural_vocoder.json/.pt and checkpoint.pt here"
    )
    t.add_argument("--voices", default="", help="train on these voices only (default: all in --data)")
    t.add_argument("--minutes", type=float, default=30.0)
    t.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: only --minutes)")
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--crop", type=int, default=48, help="frames per window that the loss sees")
    t.add_argument("--warm", type=int, default=24, help="frames of context before each window")
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--warmup", type=int, default=200)
    t.add_argument("--clip", type=float, default=5.0)
    t.add_argument("--channels", type=int, default=nv.NeuralVocoderConfig.channels)
    t.add_argument("--layers", type=int, default=nv.NeuralVocoderConfig.layers)
    t.add_argument("--kernel", type=int, default=nv.NeuralVocoderConfig.kernel)
    t.add_argument("--gan", action="store_true", help="add the discriminators (for a GPU run)")
    t.add_argument("--gan-start", type=int, default=0, help="steps of reconstruction only before the GAN")
    t.add_argument("--validation", type=int, default=24, help="utterances held out")
    t.add_argument("--val-batches", type=int, default=8)
    t.add_argument("--threads", type=int, default=0)
    t.add_argument("--device", default="")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--resume", action="store_true")
    t.add_argument("--log-seconds", type=float, default=30.0)
    args = parser.parse_args(argv)
    if args.command == "data":
        if args.sentences < 1 or args.shard < 1:
            parser.error("--sentences and --shard must be positive")
        build_data(
            [v for v in args.voices.split(",") if v],
            args.sentences,
            args.out,
            args.seed,
            args.shard,
            args.workers,
            args.max_seconds,
            args.features_from,
        )
        return 0
    if args.warm < 0 or args.crop < 2 or args.batch < 1 or args.minutes <= 0:
        parser.error("--crop must be >= 2, --batch >= 1, --warm >= 0 and --minutes > 0")
    train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
