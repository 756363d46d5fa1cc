"""Acoustic model: phones -> durations and frame conditioning -> vocoder features.

Two halves, so that streaming splits cleanly between the per-stream planner and the batched step:

* ``PhoneEncoder`` (run by the planner, per stream): symbol + speaker embeddings, a few convolutions whose
  right context is bounded (``lookahead`` phones in all) and a duration head (log(1 + frames)).
  ``frame_conditioning`` repeats each phone's encoding for its duration and appends position-in-phone
  features: one row of ``cond_dim`` floats per output frame.
* ``FrameDecoder`` (run by ``SpeechRuntime.step``, batched): Mamba-2 blocks, causal over frames, with a
  fixed-size state per stream, predicting normalized vocoder features (+ a voicing logit).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

import torch
import torch.nn.functional as F
from torch import nn

from model_server import vocoder
from model_server.ssm.mamba2 import Mamba2

N_POS = 3  # position-in-phone features appended to each frame's conditioning


@dataclass(frozen=True)
class AcousticConfig:
    n_symbols: int
    n_speakers: int
    feature_dim: int = vocoder.FEATURE_DIM
    d_enc: int = 128
    n_conv: int = 3
    conv_left: int = 2  # phones of left context per conv layer
    conv_right: int = 1  # phones of right context per conv layer: lookahead = n_conv * conv_right
    d_model: int = 192
    n_layers: int = 4
    d_state: int = 32
    headdim: int = 48
    chunk_size: int = 64

    @property
    def lookahead(self) -> int:
        """Phones after a phone that its encoding (and duration) depends on."""
        return self.n_conv * self.conv_right

    @property
    def left_context(self) -> int:
        """Phones before a phone that its encoding depends on."""
        return self.n_conv * self.conv_left

    @property
    def cond_dim(self) -> int:
        return self.d_enc + N_POS

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> AcousticConfig:
        """Strict: an unknown or mistyped field is an error rather than silently ignored."""
        if not isinstance(d, dict):
            raise ValueError(f"model config must be an object, got {type(d).__name__}")
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(d) - set(known))
        if unknown:
            raise ValueError(f"unknown model config field(s): {', '.join(unknown)}")
        missing = [n for n in ("n_symbols", "n_speakers") if n not in d]
        if missing:
            raise ValueError(f"model config is missing field(s): {', '.join(missing)}")
        for name, value in d.items():
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or value < (0 if name in ("conv_left", "conv_right") else 1)
            ):
                raise ValueError(
                    f"model config field {name!r} must be a positive integer (>= 0 for conv context), got {value!r}"
                )
        if (2 * d["d_model"] if "d_model" in d else 2 * cls.d_model) % d.get("headdim", cls.headdim):
            raise ValueError("model config: 2 * d_model must be a multiple of headdim")
        return cls(**d)


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class PhoneEncoder(nn.Module):
    def __init__(self, cfg: AcousticConfig):
        super().__init__()
        self.cfg = cfg
        self.symbol_emb = nn.Embedding(cfg.n_symbols, cfg.d_enc)
        self.speaker_emb = nn.Embedding(cfg.n_speakers, cfg.d_enc)
        nn.init.normal_(self.symbol_emb.weight, std=0.3)
        nn.init.normal_(self.speaker_emb.weight, std=0.3)
        k = cfg.conv_left + 1 + cfg.conv_right
        self.convs = nn.ModuleList(nn.Conv1d(cfg.d_enc, cfg.d_enc, k) for _ in range(cfg.n_conv))
        self.norms = nn.ModuleList(nn.LayerNorm(cfg.d_enc) for _ in range(cfg.n_conv))
        self.dur_hidden = nn.Linear(cfg.d_enc, cfg.d_enc)
        self.dur_out = nn.Linear(cfg.d_enc, 1)

    def forward(self, symbols: torch.Tensor, speaker: torch.Tensor, mask: torch.Tensor | None = None):
        """symbols [B, P] long, speaker [B] long, mask [B, P] bool (True = real phone; padding acts like the
        end of the sentence) -> (enc [B, P, d_enc], log_dur [B, P]) with log_dur = log(1 + frames)."""
        cfg = self.cfg
        h = self.symbol_emb(symbols) + self.speaker_emb(speaker)[:, None, :]
        m = None if mask is None else mask.unsqueeze(-1).to(h.dtype)
        if m is not None:
            h = h * m
        for conv, norm in zip(self.convs, self.norms, strict=True):
            y = conv(F.pad(h.transpose(1, 2), (cfg.conv_left, cfg.conv_right))).transpose(1, 2)
            h = norm(h + F.gelu(y))
            if m is not None:
                h = (
                    h * m
                )  # zero beyond the sentence so the next layer's context sees what a sentence edge does
        log_dur = self.dur_out(F.gelu(self.dur_hidden(h))).squeeze(-1)
        return h, log_dur


def position_features(durations: torch.Tensor) -> torch.Tensor:
    """For a 1-D LongTensor of per-phone frame counts: [sum(durations), N_POS] position-in-phone rows."""
    total = int(durations.sum())
    d = durations.to(torch.float32)
    phone = torch.repeat_interleave(torch.arange(len(durations), device=durations.device), durations)
    starts = torch.cumsum(durations, 0) - durations
    k = torch.arange(total, device=durations.device) - starts[phone]
    dur = d[phone]
    frac = (k.to(torch.float32) + 0.5) / dur
    return torch.stack([frac, torch.log(dur) / 3.0, (k == 0).to(torch.float32)], dim=-1)


def frame_conditioning(enc: torch.Tensor, durations: torch.Tensor) -> torch.Tensor:
    """enc [P, d_enc], durations [P] long (frames, >= 0) -> cond [sum(durations), d_enc + N_POS]."""
    if enc.dim() != 2 or durations.dim() != 1 or len(enc) != len(durations):
        raise ValueError(
            f"enc [P, D] and durations [P] must agree, got {tuple(enc.shape)}, {tuple(durations.shape)}"
        )
    if durations.numel() and int(durations.min()) < 0:
        raise ValueError("durations must be >= 0")
    rep = torch.repeat_interleave(enc, durations, dim=0)
    return torch.cat([rep, position_features(durations).to(enc.dtype)], dim=-1)


def durations_from_log(log_dur: torch.Tensor, speed: float, carry: float = 0.0) -> tuple[torch.Tensor, float]:
    """Predicted log(1 + frames) -> integer frames at ``speed``; the rounding remainder is carried from
    phone to phone (and returned) so a long text neither drifts nor loses time to rounding."""
    frames = torch.clamp(torch.expm1(log_dur.float()), min=0.0) / speed
    out = torch.empty(len(frames), dtype=torch.long)
    acc = carry
    for i, f in enumerate(frames.tolist()):
        acc += f
        n = int(math.floor(acc + 0.5))
        out[i] = n
        acc -= n
    return out, acc


class DecoderBlock(nn.Module):
    def __init__(self, cfg: AcousticConfig):
        super().__init__()
        self.norm = RMSNorm(cfg.d_model)
        self.mixer = Mamba2(cfg.d_model, d_state=cfg.d_state, headdim=cfg.headdim, chunk_size=cfg.chunk_size)

    def forward(self, x, conv_state=None, ssm_state=None):
        y, state = self.mixer(self.norm(x), conv_state, ssm_state)
        return x + y, state


class FrameDecoder(nn.Module):
    def __init__(self, cfg: AcousticConfig):
        super().__init__()
        self.cfg = cfg
        self.in_proj = nn.Linear(cfg.cond_dim, cfg.d_model)
        self.layers = nn.ModuleList(DecoderBlock(cfg) for _ in range(cfg.n_layers))
        self.norm_f = RMSNorm(cfg.d_model)
        self.out_proj = nn.Linear(cfg.d_model, cfg.feature_dim)

    def forward(self, cond: torch.Tensor, states: list[tuple[torch.Tensor, torch.Tensor]] | None = None):
        """cond [B, L, cond_dim], states: per layer (conv, ssm) or None (zeros) ->
        (normalized features with a voicing logit [B, L, feature_dim], new states)."""
        x = self.in_proj(cond)
        new_states = []
        for i, layer in enumerate(self.layers):
            conv, ssm = states[i] if states is not None else (None, None)
            x, st = layer(x, conv, ssm)
            new_states.append(st)
        return self.out_proj(self.norm_f(x)), new_states


class AcousticModel(nn.Module):
    """Phone encoder + frame decoder + the feature normalization (buffers saved with the weights)."""

    def __init__(self, cfg: AcousticConfig):
        super().__init__()
        self.cfg = cfg
        self.encoder = PhoneEncoder(cfg)
        self.decoder = FrameDecoder(cfg)
        self.register_buffer("feat_mean", torch.zeros(cfg.feature_dim))
        self.register_buffer("feat_std", torch.ones(cfg.feature_dim))

    def set_feature_stats(self, mean: torch.Tensor, std: torch.Tensor) -> None:
        mean = mean.to(torch.float32).clone()
        std = torch.clamp(std.to(torch.float32).clone(), min=1e-3)
        # The voicing channel is predicted as a logit against a 0/1 target: not normalized.
        mean[vocoder.VUV] = 0.0
        std[vocoder.VUV] = 1.0
        self.feat_mean.copy_(mean)
        self.feat_std.copy_(std)

    def normalize(self, feats: torch.Tensor) -> torch.Tensor:
        return (feats - self.feat_mean) / self.feat_std

    def denormalize(self, out: torch.Tensor) -> torch.Tensor:
        """Decoder output -> vocoder features (voicing as a probability, aperiodicity within [0, 1])."""
        feats = out * self.feat_std + self.feat_mean
        vuv = torch.sigmoid(out[..., vocoder.VUV])
        ap = feats[..., vocoder.AP].clamp(0.0, 1.0)
        return torch.cat(
            [
                feats[..., : vocoder.VUV.start],
                vuv,
                feats[..., vocoder.VUV.stop : vocoder.AP.start],
                ap,
                feats[..., vocoder.AP.stop :],
            ],
            dim=-1,
        )

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())
