"""`make train` / `python -m model_server.train`: train (or fine-tune) the acoustic model.

    python -m model_server.train --minutes 30 --name default --export model_server/weights/default
    python -m model_server.train --name default --resume --minutes 10          # continue a run
    python -m model_server.train --init model_server/weights/default --voices my_voice --minutes 20 \
        --name my_voice --export runs/my_voice/export                          # fine-tune a new voice

Each step takes a batch of random utterances: the phone encoder sees whole utterances (duration loss on
every phone), the frame decoder a random crop of frames (from a zero state, which also teaches it to
recover from any state). Loss = duration MSE on log(1 + frames) + L1 on normalized vocoder features +
BCE on the voicing flag. Checkpoints (model dir + optimizer state) go to runs/<name>/ every
--checkpoint-minutes and at the end; --resume continues from there.

A fine-tune (--init) whose data holds only some voices keeps every voice of the init model: their speaker
rows and catalog entries are exported unchanged (embeddings get no weight decay), but the shared layers move
towards the voices trained, so judge the others again before shipping such a model. On CUDA the Mamba-2
layers run mamba-ssm's Triton kernels forward and backward, under bf16 autocast (the SSM recurrence and the
losses in float32); the path taken is logged and kept in the model's config (extra.mamba2_path).

--ema DECAY keeps an exponential moving average of the weights (torch's `AveragedModel`, updated after every
step) and saves, validates and exports the average instead of the last step's weights: a short fine-tune at
a high rate leaves its last step wherever the last batches pushed it, and the average smooths that out (the
mean of two runs did the same by hand for round 30). The live weights stay in state.pt for --resume.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import random
import shutil
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from model_server import vocoder
from model_server.model import checkpoint
from model_server.model.acoustic import AcousticConfig, AcousticModel, frame_conditioning
from model_server.model.checkpoint import Checkpoint, Voice, VoiceInfo

log = logging.getLogger("model_server.train")

HELD_OUT_FRACTION = 0.02  # utterances per voice kept for the validation loss
FEATURE_CHANNELS = [i for i in range(vocoder.FEATURE_DIM) if i != vocoder.VUV.start]
# Per-frame L1 alone lets the predicted envelope blur across phone transitions: the teacher's envelope
# smoothed over 5 frames (62 ms) scores as low as the model on DistillMOS, and the envelope is what the
# heart voice loses most on (docs/model.md, "Where the naturalness goes"). An L1 on frame-to-frame changes
# as well, at weight 1, gave a lower per-frame validation loss too (0.369 vs 0.381 after 20 minutes).
DELTA_WEIGHT = 1.0


@dataclass
class Example:
    speaker: int
    symbols: np.ndarray  # int64 [P] model symbol ids
    durations: np.ndarray  # int64 [P] frames
    features: np.ndarray  # float32 [T, F] (a view into the voice's memory-mapped features)


def parse_focus(spec: str) -> dict[str, float]:
    """`--focus "a,b:3"` -> {"a": 1.0, "b": 3.0}; a weight is a positive finite number."""
    weights: dict[str, float] = {}
    for item in (x.strip() for x in spec.split(",")):
        if not item:
            continue
        vid, _, w = item.partition(":")
        try:
            weight = float(w) if w else 1.0
        except ValueError:
            raise ValueError(f"weight {w!r} of {vid!r} is not a number") from None
        if not (math.isfinite(weight) and weight > 0):
            raise ValueError(f"weight of {vid!r} must be > 0, got {w}")
        weights[vid.strip()] = weight
    return weights


class BatchSampler:
    """Batches of distinct training utterances: uniform over all of them, or `share` of each batch from the
    focus speakers (e.g. to spend a run on the voices that are evaluated, without dropping the others).
    The focus part is uniform over the focus speakers' utterances, or with `per_voice` split among the
    speakers in proportion to their weights, so that a voice with little data is not drowned by one with
    much."""

    def __init__(
        self, train: list[Example], focus: dict[int, float], share: float, per_voice: bool, rng: random.Random
    ) -> None:
        self.train, self.share, self.per_voice, self.rng = train, share, per_voice, rng
        self.pools: dict[int, list[Example]] = {s: [] for s in focus}
        self.rest: list[Example] = []
        for e in train:
            (self.pools[e.speaker] if e.speaker in self.pools else self.rest).append(e)
        self.weights = {s: w for s, w in focus.items() if self.pools[s]}
        self.focus_pool = [e for pool in self.pools.values() for e in pool]

    def expected_share(self, speaker: int) -> float:
        """The share of a batch that `speaker` gets on average."""
        n_all = max(1, len(self.train))
        if not self.focus_pool or not self.rest:
            return sum(e.speaker == speaker for e in self.train) / n_all
        if speaker not in self.pools:
            return (1 - self.share) * sum(e.speaker == speaker for e in self.rest) / len(self.rest)
        if self.per_voice:
            return self.share * self.weights.get(speaker, 0.0) / sum(self.weights.values())
        return self.share * len(self.pools[speaker]) / len(self.focus_pool)

    def __call__(self, batch: int) -> list[Example]:
        n = min(batch, len(self.train))
        if not self.focus_pool or not self.rest:
            return self.rng.sample(self.train, n)
        k = min(len(self.focus_pool), sum(self.rng.random() < self.share for _ in range(n)))
        if not self.per_voice:
            focus = self.rng.sample(self.focus_pool, k)
        else:
            speakers = list(self.weights)
            counts = dict.fromkeys(speakers, 0)
            for s in self.rng.choices(speakers, weights=[self.weights[s] for s in speakers], k=k):
                counts[s] += 1
            focus = [
                e
                for s, c in counts.items()
                for e in self.rng.sample(self.pools[s], min(c, len(self.pools[s])))
            ]
        return focus + self.rng.sample(self.rest, min(len(self.rest), n - len(focus)))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m model_server.train", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=Path("data/dataset"), help="dataset dir (make data)")
    p.add_argument("--voices", default="", help="comma-separated voice ids to train on (default: all)")
    p.add_argument(
        "--focus",
        default="",
        help="comma-separated voice ids sampled with --focus-share of each batch (the rest: the others); "
        "with --focus-by voice an id may carry a weight, en_female_heart:3",
    )
    p.add_argument("--focus-share", type=float, default=0.75, help="share of each batch from --focus voices")
    p.add_argument(
        "--focus-by",
        choices=["utterance", "voice"],
        default="utterance",
        help="how the focus share is split: uniform over the focus voices' utterances (a voice with more data "
        "gets more), or per voice in proportion to its weight (default 1), whatever its amount of data",
    )
    p.add_argument("--name", default="default", help="run name: checkpoints go to runs/<name>/")
    p.add_argument("--runs", type=Path, default=Path("runs"), help="runs root")
    p.add_argument(
        "--minutes", type=float, default=30.0, help="wall-clock training budget for this invocation"
    )
    p.add_argument("--max-steps", type=int, default=0, help="stop after this many steps (0: only --minutes)")
    p.add_argument("--resume", action="store_true", help="continue from runs/<name>/ (model + optimizer)")
    p.add_argument(
        "--init",
        type=Path,
        default=None,
        help="start from this model dir (fine-tuning); voices new to it get new speaker rows",
    )
    p.add_argument("--export", type=Path, default=None, help="copy the final model dir here")
    p.add_argument("--device", default="auto", help="auto (CUDA when present), cpu or cuda")
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    p.add_argument("--batch", type=int, default=16, help="utterances per step")
    p.add_argument("--crop", type=int, default=192, help="frames per utterance seen by the decoder")
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument(
        "--delta-weight",
        type=float,
        default=DELTA_WEIGHT,
        help="weight of the L1 loss on the features' frame-to-frame changes (0: per-frame L1 only)",
    )
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument(
        "--ema",
        type=float,
        default=0.0,
        metavar="DECAY",
        help="save and export an exponential moving average of the weights, this decay per step (e.g. 0.998; "
        "0: the last step's weights)",
    )
    p.add_argument(
        "--compile",
        action="store_true",
        help="compile the decoder's training step with torch.compile (the torch scan, on the CPU: 1.3x the "
        "frames per second; the first step waits 10-90 s for the compile, less with inductor's disk cache)",
    )
    p.add_argument("--warmup", type=int, default=200, help="warm-up steps")
    p.add_argument("--checkpoint-minutes", type=float, default=5.0)
    p.add_argument("--log-every", type=int, default=25, help="steps between train.log lines")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-progress", action="store_true", help="no tqdm bar")
    p.add_argument(
        "--model",
        default="{}",
        help="JSON overrides of AcousticConfig for a new model, e.g. '{\"d_model\": 128}'",
    )
    args = p.parse_args(argv)
    for name in ("batch", "crop", "warmup", "log_every"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.minutes < 0 or not math.isfinite(args.minutes):
        p.error("--minutes must be >= 0")
    if not 0.0 < args.focus_share <= 1.0:
        p.error("--focus-share must be in (0, 1]")
    if args.max_steps < 0:
        p.error("--max-steps must be >= 0")
    try:
        args.focus_weights = parse_focus(args.focus)
    except ValueError as e:
        p.error(f"--focus: {e}")
    if args.focus_by == "utterance" and any(w != 1.0 for w in args.focus_weights.values()):
        p.error("--focus: voice weights need --focus-by voice")
    if args.delta_weight < 0 or not math.isfinite(args.delta_weight):
        p.error("--delta-weight must be >= 0")
    if not 0.0 <= args.ema < 1.0:
        p.error("--ema must be in [0, 1) (0: off)")
    if args.lr <= 0 or args.checkpoint_minutes <= 0:
        p.error("--lr and --checkpoint-minutes must be > 0")
    if args.resume and args.init:
        p.error("--resume and --init are exclusive (a resumed run already has its weights)")
    if args.device not in ("auto", "cpu", "cuda"):
        p.error("--device must be auto, cpu or cuda")
    return args


def pick_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: CUDA is not available")
    return torch.device(name)


def mamba2_path_for(device: torch.device) -> str:
    """The Mamba-2 mixer path training takes: "torch" on the CPU; on CUDA mamba-ssm's Triton kernels
    ("triton", differentiable: see model_server/ssm/cuda.py) or "torch" when they do not import."""
    if device.type != "cuda":
        return "torch"
    from model_server.ssm import cuda as cuda_path

    if not cuda_path.available():
        log.warning(
            "CUDA without mamba-ssm's kernels (%s): the torch path is slower", cuda_path.unavailable_reason()
        )
    return cuda_path.kernel_path()


# -- data ------------------------------------------------------------------------------------------------
def load_examples(
    data_dir: Path, voice_ids: list[str] | None, speaker_of: dict[str, int], symbol_index: dict[str, int]
) -> dict[str, list[Example]]:
    from model_server.data.dataset import load_dataset

    data = load_dataset(data_dir, voice_ids or None)
    unk = symbol_index.get("<unk>")
    out: dict[str, list[Example]] = {}
    for vid, vd in data.items():
        unknown: dict[str, int] = {}
        exs = []
        for u in vd.utterances:
            ids = []
            for s in u.symbols:
                i = symbol_index.get(s)
                if i is None:
                    unknown[s] = unknown.get(s, 0) + 1
                    i = unk
                ids.append(i)
            if unk is None and unknown:
                break
            exs.append(
                Example(
                    speaker_of[vid],
                    np.asarray(ids, np.int64),
                    np.asarray(u.durations, np.int64),
                    vd.frames(u),
                )
            )
        n_sym = sum(len(u.symbols) for u in vd.utterances)
        if unknown and (unk is None or sum(unknown.values()) > 0.01 * max(n_sym, 1)):
            raise SystemExit(
                f"voice {vid}: symbols missing from the model's inventory: {sorted(unknown)[:10]} "
                "(dataset and frontend disagree; rebuild the dataset)"
            )
        if unknown:
            log.warning(
                "voice %s: %d rare unknown symbols mapped to <unk>: %s",
                vid,
                sum(unknown.values()),
                sorted(unknown)[:10],
            )
        if not exs:
            raise SystemExit(f"voice {vid}: no utterances in {data_dir}")
        out[vid] = exs
    return out


def feature_stats(
    examples: list[Example], max_frames: int = 400_000, seed: int = 0
) -> tuple[torch.Tensor, ...]:
    rng = random.Random(seed)
    picked, n = [], 0
    for ex in rng.sample(examples, len(examples)):
        picked.append(np.asarray(ex.features))
        n += len(ex.features)
        if n >= max_frames:
            break
    x = torch.from_numpy(np.concatenate(picked)).double()
    return x.mean(0).float(), x.std(0).float()


def make_batch(examples: list[Example], crop: int, rng: random.Random, device: torch.device):
    """Padded phones/durations for the encoder, and per-utterance frame crops for the decoder."""
    b = len(examples)
    p_max = max(len(e.symbols) for e in examples)
    sym = torch.zeros(b, p_max, dtype=torch.long)
    dur = torch.zeros(b, p_max, dtype=torch.long)
    mask = torch.zeros(b, p_max, dtype=torch.bool)
    spk = torch.tensor([e.speaker for e in examples])
    starts, feats = [], torch.zeros(b, crop, vocoder.FEATURE_DIM)
    fmask = torch.zeros(b, crop, dtype=torch.bool)
    for i, e in enumerate(examples):
        n = len(e.symbols)
        sym[i, :n] = torch.from_numpy(e.symbols)
        dur[i, :n] = torch.from_numpy(e.durations)
        mask[i, :n] = True
        t = len(e.features)
        s = rng.randint(0, max(0, t - crop))
        m = min(crop, t - s)
        feats[i, :m] = torch.from_numpy(np.array(e.features[s : s + m]))  # copy out of the mmap
        fmask[i, :m] = True
        starts.append(s)
    return (
        sym.to(device),
        dur.to(device),
        mask.to(device),
        spk.to(device),
        starts,
        feats.to(device),
        fmask.to(device),
    )


def compute_loss(
    model: AcousticModel, batch, crop: int, delta_weight: float = 0.0, decoder=None
) -> dict[str, torch.Tensor]:
    """Duration MSE + per-frame L1 + voicing BCE (+ delta_weight x `delta_l1`; validation leaves it out, so
    validation losses compare across runs whatever their weight). `decoder`: the model's decoder or a
    compiled wrapper of it (`--compile`), which shares its weights."""
    sym, dur, mask, spk, starts, feats, fmask = batch
    enc, log_dur = model.encoder(sym, spk, mask)
    target = torch.log1p(dur.float())
    dur_loss = ((log_dur - target) ** 2 * mask).sum() / mask.sum()
    conds = []
    for i, s in enumerate(starts):
        n = int(mask[i].sum())
        c = frame_conditioning(enc[i, :n], dur[i, :n])[s : s + crop]
        conds.append(F.pad(c, (0, 0, 0, crop - len(c))))
    cond = torch.stack(conds)
    out, _ = (model.decoder if decoder is None else decoder)(cond)
    out = out.float()
    norm = model.normalize(feats)
    pred, ref = out[..., FEATURE_CHANNELS], norm[..., FEATURE_CHANNELS]
    fm = fmask.unsqueeze(-1).float()
    l1 = ((pred - ref).abs() * fm).sum() / (fm.sum() * len(FEATURE_CHANNELS))
    vuv = F.binary_cross_entropy_with_logits(
        out[..., vocoder.VUV.start], feats[..., vocoder.VUV.start], reduction="none"
    )
    bce = (vuv * fmask).sum() / fmask.sum()
    total = dur_loss + l1 + 0.5 * bce
    parts = {"dur": dur_loss, "l1": l1, "vuv": bce}
    if delta_weight:  # see DELTA_WEIGHT
        parts["delta"] = delta_l1(pred, ref, fmask)
        total = total + delta_weight * parts["delta"]
    return {"loss": total, **parts}


def delta_l1(out: torch.Tensor, ref: torch.Tensor, fmask: torch.Tensor) -> torch.Tensor:
    """Mean L1 between the frame-to-frame changes of out and ref [B, T, C], over frame pairs both inside
    fmask [B, T]: zero for any constant offset, so it measures the dynamics the per-frame L1 averages away."""
    pair = (fmask[:, 1:] & fmask[:, :-1]).unsqueeze(-1).to(out.dtype)
    diff = (out[:, 1:] - out[:, :-1]) - (ref[:, 1:] - ref[:, :-1])
    return (diff.abs() * pair).sum() / (pair.sum() * out.shape[-1]).clamp(min=1.0)


# -- model setup -----------------------------------------------------------------------------------------
def dataset_voices(data_dir: Path, ids: list[str] | None) -> tuple[list[VoiceInfo], str]:
    """The dataset's voices (those in `ids`, or all) and the frontend's length-mark rule their symbols were
    made with, from one read of voices.json. The trained model's config records the rule so the server
    phonemizes as the data did. One rule per run: data assembled under two would teach a long phone two ways."""
    from model_server.frontend.symbols import length_marks_of

    path = data_dir / "voices.json"
    if not path.is_file():
        raise SystemExit(f"{path}: missing (run `make data` first)")
    entries = json.loads(path.read_text(encoding="utf-8"))
    if ids:
        unknown = sorted(set(ids) - {e["id"] for e in entries})
        if unknown:
            raise SystemExit(
                f"--voices: {unknown} not in {path}; render their training data first: "
                f"python -m model_server.data --voices {','.join(unknown)} --out {data_dir.parent}"
            )
        entries = [e for e in entries if e["id"] in ids]
    infos = [
        VoiceInfo(
            e["id"],
            e.get("name", e["id"]),
            e["language"],
            e.get("gender", "neutral"),
            e.get("description", ""),
            e.get("teacher", ""),
        )
        for e in entries
    ]
    by_rule: dict[str, list[str]] = {}
    for e in entries:
        try:
            by_rule.setdefault(length_marks_of(e, f"{path} voice {e['id']}"), []).append(e["id"])
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
    if len(by_rule) > 1:
        raise SystemExit(
            f"{path}: voices were assembled under different length-mark rules {by_rule}; "
            "rerun `python -m model_server.data` for them with one frontend (it reuses the rendered audio)"
        )
    return infos, next(iter(by_rule))


def new_checkpoint(infos: list[VoiceInfo], overrides: dict) -> Checkpoint:
    from model_server.frontend.symbols import SYMBOLS

    cfg = AcousticConfig.from_dict({"n_symbols": len(SYMBOLS), "n_speakers": len(infos), **overrides})
    voices = [Voice(v, i) for i, v in enumerate(infos)]
    return Checkpoint(cfg, list(SYMBOLS), voices, AcousticModel(cfg), {})


def extend_voices(ckpt: Checkpoint, infos: list[VoiceInfo]) -> Checkpoint:
    """Fine-tuning: keep the checkpoint's voices, add a speaker-embedding row for each new one
    (initialised to the mean of the existing rows, a neutral starting voice)."""
    known = {v.info.id for v in ckpt.voices}
    new = [v for v in infos if v.id not in known]
    if not new:
        return ckpt
    old_cfg = ckpt.config
    cfg = AcousticConfig.from_dict({**old_cfg.to_dict(), "n_speakers": old_cfg.n_speakers + len(new)})
    model = AcousticModel(cfg)
    state = ckpt.model.state_dict()
    emb = state["encoder.speaker_emb.weight"]
    state["encoder.speaker_emb.weight"] = torch.cat([emb, emb.mean(0, keepdim=True).expand(len(new), -1)])
    model.load_state_dict(state)
    voices = list(ckpt.voices) + [Voice(v, old_cfg.n_speakers + i) for i, v in enumerate(new)]
    log.info(
        "fine-tuning: new voice(s) %s get speaker rows %d..%d",
        [v.id for v in new],
        old_cfg.n_speakers,
        cfg.n_speakers - 1,
    )
    return Checkpoint(cfg, ckpt.symbols, voices, model, dict(ckpt.extra), ckpt.length_marks)


def extend_symbols(ckpt: Checkpoint) -> Checkpoint:
    """Fine-tuning from a model with an older symbol inventory (the shipped model has version 1, the
    en/es/de/fr symbols): grow its symbol table to the current inventory, so new languages can be taught.

    Ids keep their meaning (an older inventory is a prefix of the current one). A new symbol's row starts as
    the row of the same espeak-ng mnemonic in a language the model knows ("it:a" from "es:a"), else as the
    mean row: espeak-ng names similar sounds alike across languages, so that is a better start than noise.
    """
    from model_server.frontend.symbols import SYMBOLS

    old = list(ckpt.symbols)
    if old == list(SYMBOLS):
        return ckpt
    if old != list(SYMBOLS[: len(old)]):
        raise SystemExit(
            "--init: the model's symbol inventory is not a prefix of this frontend's; cannot extend"
        )
    cfg = AcousticConfig.from_dict({**ckpt.config.to_dict(), "n_symbols": len(SYMBOLS)})
    model = AcousticModel(cfg)
    state = ckpt.model.state_dict()
    emb = state["encoder.symbol_emb.weight"]
    index = {s: i for i, s in enumerate(old)}
    by_mnemonic: dict[str, int] = {}
    for i, s in enumerate(old):
        by_mnemonic.setdefault(s.split(":", 1)[-1], i)
    rows = [emb[by_mnemonic[s.split(":", 1)[1]]] if s.split(":", 1)[-1] in by_mnemonic else emb.mean(0)
            for s in SYMBOLS[len(old):]]  # fmt: skip
    state["encoder.symbol_emb.weight"] = torch.cat([emb, torch.stack(rows)])
    model.load_state_dict(state)
    log.info("fine-tuning: symbol table grown from %d to %d symbols", len(index), len(SYMBOLS))
    return Checkpoint(cfg, list(SYMBOLS), list(ckpt.voices), model, dict(ckpt.extra), ckpt.length_marks)


# -- loop ------------------------------------------------------------------------------------------------
def compiled_decoder(model: AcousticModel, mamba2_path: str):
    """The decoder's training forward through torch.compile: its input is always [batch, crop, d], so one
    static graph (and its backward) serves every step. It wraps the same module, so the weights that are
    saved, validated (eagerly, in eval mode: no second graph) and exported are the model's own. Only the
    torch scan: on CUDA mamba-ssm's Triton kernels are fused already."""
    if mamba2_path != "torch":
        raise SystemExit(
            f"--compile: the decoder runs mamba-ssm's kernels here ({mamba2_path}); it is for the torch scan"
        )
    log.info("compiling the decoder's training step (torch.compile; the first step waits for it)")
    return torch.compile(model.decoder, dynamic=False)


def lr_at(step: int, frac: float, args) -> float:
    warm = min(1.0, (step + 1) / args.warmup)
    return args.lr * warm * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * min(1.0, frac))))


def save_run(
    run_dir: Path, ckpt: Checkpoint, opt, step: int, elapsed_s: float, budget_s: float, extra: dict, ema=None
):
    """runs/<name>/last (the model dir: the moving average's weights with --ema) and state.pt (optimizer,
    step, clock; with --ema also the live weights and the average's state, which --resume needs)."""
    ckpt.extra = {**ckpt.extra, **extra, "step": step, "trained_minutes": round(elapsed_s / 60, 2)}
    checkpoint.save(replace(ckpt, model=ema.module) if ema is not None else ckpt, run_dir / "last")
    state = {"optimizer": opt.state_dict(), "step": step, "elapsed_s": elapsed_s, "budget_s": budget_s}
    if ema is not None:
        state.update(live=ckpt.model.state_dict(), ema=ema.state_dict(), ema_decay=ckpt.extra["ema"])
    tmp = run_dir / "state.pt.tmp"
    torch.save(state, tmp)
    os.replace(tmp, run_dir / "state.pt")


def moving_average(model, decay: float, state: dict | None):
    """The --ema average of `model`'s weights (None when decay is 0), restored from a resumed run's state."""
    saved = (state or {}).get("ema_decay", 0.0)
    if state is not None and saved != decay:
        raise SystemExit(f"--resume: the run was trained with --ema {saved:g}; resume it with the same")
    if not decay:
        return None
    from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

    if state is not None:  # runs/<name>/last holds the average; training goes on from the live weights
        model.load_state_dict(state["live"])
    ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(decay), use_buffers=True)
    if state is not None:
        ema.load_state_dict(state["ema"])
    return ema


def setup_logging(run_dir: Path) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%H:%M:%S")
    fh = logging.FileHandler(run_dir / "train.log")
    fh.setFormatter(fmt)
    sh = logging.StreamHandler(sys.stderr)
    sh.setFormatter(fmt)
    log.handlers[:] = [fh, sh]
    log.setLevel(logging.INFO)
    log.propagate = False


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    run_dir = args.runs / args.name
    setup_logging(run_dir)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    voice_ids = [v.strip() for v in args.voices.split(",") if v.strip()]
    infos, length_marks = dataset_voices(args.data, voice_ids)

    state = None
    if args.resume:
        if not (run_dir / "last" / checkpoint.CONFIG_FILE).is_file():
            raise SystemExit(f"--resume: no checkpoint in {run_dir / 'last'}")
        ckpt = checkpoint.load(run_dir / "last")
        state = torch.load(run_dir / "state.pt", map_location="cpu", weights_only=True)
        missing = sorted({v.id for v in infos} - {v.info.id for v in ckpt.voices})
        if missing:
            raise SystemExit(
                f"--resume: voices {missing} are not in the run's model (use --init to add voices)"
            )
        log.info("resuming %s at step %d (%.1f min trained)", run_dir, state["step"], state["elapsed_s"] / 60)
    elif args.init:
        try:
            ckpt = extend_voices(extend_symbols(checkpoint.load(args.init)), infos)
        except checkpoint.ModelLoadError as e:
            raise SystemExit(f"--init: {e}") from None
        ckpt.extra = {k: v for k, v in ckpt.extra.items() if k not in ("step", "trained_minutes")}
        ckpt.extra["init"] = str(args.init)
    else:
        ckpt = new_checkpoint(infos, json.loads(args.model))

    if length_marks != ckpt.length_marks:
        log.info(
            "length marks: the model learned %r, this data has %r: it learns the data's rule",
            ckpt.length_marks,
            length_marks,
        )
        ckpt.length_marks = length_marks
    speaker_of = {v.info.id: v.speaker for v in ckpt.voices}
    symbol_index = {s: i for i, s in enumerate(ckpt.symbols)}
    by_voice = load_examples(args.data, [v.id for v in infos], speaker_of, symbol_index)
    train, val = [], []
    for vid, exs in by_voice.items():
        order = list(range(len(exs)))
        random.Random(vid).shuffle(order)  # stable split per voice, whatever the seed
        n_val = max(1, int(len(exs) * HELD_OUT_FRACTION)) if len(exs) > 20 else 0
        val += [exs[i] for i in order[:n_val]]
        train += [exs[i] for i in order[n_val:]]
    unknown_focus = sorted(set(args.focus_weights) - set(by_voice))
    if unknown_focus:
        raise SystemExit(f"--focus: {unknown_focus} are not among the training voices {sorted(by_voice)}")
    sampler = BatchSampler(
        train,
        {speaker_of[v]: w for v, w in args.focus_weights.items()},
        args.focus_share,
        args.focus_by == "voice",
        rng,
    )
    if args.focus_weights:
        log.info(
            "focus: %s",
            ", ".join(f"{v} {sampler.expected_share(speaker_of[v]):.1%}" for v in args.focus_weights),
        )

    n_frames = sum(len(e.features) for e in train)
    log.info(
        "data: %d voices, %d train / %d val utterances, %.2f h of training audio",
        len(by_voice),
        len(train),
        len(val),
        n_frames * vocoder.HOP / vocoder.SAMPLE_RATE / 3600,
    )

    model = ckpt.model.to(device)
    if state is None and not args.init:
        mean, std = feature_stats(train, seed=args.seed)
        model.set_feature_stats(mean.to(device), std.to(device))
    log.info("model: %d parameters, config %s", model.num_parameters(), ckpt.config.to_dict())

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "emb" not in n]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and "emb" not in n)]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=args.lr,
        betas=(0.9, 0.98),
    )
    ema = moving_average(model, args.ema, state)
    ckpt.extra.pop("ema", None)  # an --init model's own average says nothing about this run
    if ema is not None:
        ckpt.extra["ema"] = args.ema
        log.info("saving the moving average of the weights (decay %g per step)", args.ema)
    step, elapsed_before = 0, 0.0
    if state is not None:
        opt.load_state_dict(state["optimizer"])
        step, elapsed_before = state["step"], state["elapsed_s"]
    total_budget = elapsed_before + args.minutes * 60
    use_amp = device.type == "cuda"
    amp_dtype = torch.bfloat16
    mamba2_path = mamba2_path_for(device)
    log.info("device %s, Mamba-2 path %s%s", device, mamba2_path, ", bf16 autocast" if use_amp else "")
    train_decoder = compiled_decoder(model, mamba2_path) if args.compile else model.decoder

    def validate() -> float | None:
        """Validation loss of the weights that are saved (the moving average with --ema)."""
        if not val:
            return None
        net = ema.module if ema is not None else model
        net.eval()
        vr = random.Random(1)
        losses = []
        with torch.no_grad(), torch.autocast(device.type, dtype=amp_dtype, enabled=use_amp):
            for i in range(0, len(val), args.batch):
                batch = make_batch(val[i : i + args.batch], args.crop, vr, device)
                losses.append(float(compute_loss(net, batch, args.crop)["loss"]))
        net.train()
        return sum(losses) / len(losses)

    from tqdm import tqdm

    bar = tqdm(
        total=round(args.minutes * 60),
        unit="s",
        disable=args.no_progress,
        dynamic_ncols=True,
        desc=f"train {args.name}",
    )
    t_start = time.monotonic()
    last_ckpt = t_start
    frames_seen, t_rate = 0, t_start
    frames_total = 0
    steps_before = step
    sums: dict[str, float] = {}
    model.train()
    while True:
        now = time.monotonic()
        if now - t_start >= args.minutes * 60 or (args.max_steps and step >= args.max_steps):
            break
        elapsed = elapsed_before + (now - t_start)
        lr = lr_at(step, elapsed / max(total_budget, 1e-9), args)
        for g in opt.param_groups:
            g["lr"] = lr
        batch = make_batch(sampler(args.batch), args.crop, rng, device)
        with torch.autocast(device.type, dtype=amp_dtype, enabled=use_amp):
            losses = compute_loss(model, batch, args.crop, args.delta_weight, train_decoder)
        if not torch.isfinite(losses["loss"].detach()):
            raise SystemExit(f"step {step}: loss is not finite ({losses}); lower --lr")
        opt.zero_grad(set_to_none=True)
        losses["loss"].backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if ema is not None:
            ema.update_parameters(model)
        step += 1
        if args.compile and step == steps_before + 1:
            log.info("first step in %.1f s (with the compile)", time.monotonic() - now)
        n_frames = int(batch[6].sum())
        frames_seen += n_frames
        frames_total += n_frames
        for k, v in losses.items():
            sums[k] = sums.get(k, 0.0) + float(v.detach())
        bar.n = min(bar.total, round(time.monotonic() - t_start))
        bar.set_postfix(step=step, loss=f"{float(losses['loss'].detach()):.3f}", refresh=False)
        bar.update(0)
        if step % args.log_every == 0:
            t = time.monotonic()
            log.info(
                "step %d  %.1f min  lr %.2e  %s  %.0f frames/s",
                step,
                (elapsed_before + t - t_start) / 60,
                lr,
                "  ".join(f"{k} {v / args.log_every:.4f}" for k, v in sums.items()),
                frames_seen / max(t - t_rate, 1e-9),
            )
            sums, frames_seen, t_rate = {}, 0, t
        if time.monotonic() - last_ckpt >= args.checkpoint_minutes * 60:
            v = validate()
            log.info(
                "step %d  val loss %s  checkpoint -> %s",
                step,
                f"{v:.4f}" if v is not None else "n/a",
                run_dir / "last",
            )
            save_run(
                run_dir,
                ckpt,
                opt,
                step,
                elapsed_before + time.monotonic() - t_start,
                total_budget,
                {"val_loss": v},
                ema,
            )
            last_ckpt = time.monotonic()
    bar.close()
    train_s = time.monotonic() - t_start
    v = validate()
    total = elapsed_before + time.monotonic() - t_start
    log.info(
        "done: step %d, %.1f min trained, val loss %s",
        step,
        total / 60,
        f"{v:.4f}" if v is not None else "n/a",
    )
    model.eval()
    run_info = {
        "val_loss": v,
        "device": device.type,
        "mamba2_path": mamba2_path,
        "frames_per_s": round(frames_total / max(train_s, 1e-9), 1),  # decoder frames, this invocation
    }
    save_run(run_dir, ckpt, opt, step, total, total_budget, run_info, ema)
    if args.export:
        args.export.mkdir(parents=True, exist_ok=True)
        for name in (checkpoint.CONFIG_FILE, checkpoint.WEIGHTS_FILE):
            shutil.copyfile(run_dir / "last" / name, args.export / name)
        checkpoint.load(args.export)  # the exported copy must load
        log.info("exported %s", args.export)
    return 0


if __name__ == "__main__":
    sys.exit(main())
