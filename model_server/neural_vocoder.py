"""A learned streaming vocoder: the acoustic model's features -> 24 kHz audio (issue 16's waveform stage).

Why: `vocoder.HarmonicNoiseSynth` gives each harmonic a phase by rule (the envelope's minimum phase), and
docs/model.md ("Where the teacher's phase comes from") puts most of what it loses on a neural teacher in
that phase, which no rule on these features recovered. This network learns a magnitude and a phase for
every STFT bin from teacher audio, as Vocos does, but causally, so it streams:

* a causal ConvNeXt over frames: each block's depthwise convolution sees only past frames, so a stream's
  state is the last ``kernel - 1`` inputs of each block;
* a linear head that gives, per frame, a log magnitude and a phase for each of the ``n_fft // 2 + 1`` bins,
  the phase relative to the harmonic of F0 nearest the bin (`NeuralVocoder.reference_phase`): the F0 phase
  runs on in the stream's state, as `HarmonicNoiseSynth`'s oscillator does, so a steady vowel needs a
  constant output where its absolute phase keeps turning, which no network over a finite past could follow;
* an inverse FFT per frame, a square-root Hann window and overlap-add with ``n_fft = 2 * hop``. Frame t's
  grain spans the teacher's time from frame t - 1 to frame t + 1, so the hop that step t emits (from frame
  t - 1 to frame t, the hop `HarmonicNoiseSynth` emits too) is complete once frame t is known: no lookahead.

Square-root Hann analysis and synthesis windows at 50 % overlap multiply to a window whose shifts sum to
one, so a head that reproduced the teacher's STFT frames (`target_frames`) would reproduce the teacher's
audio exactly. That is what training asks of it (`model_server/train_vocoder.py`).

Shapes depend only on the input's shape and nothing reads a value back to the host, so a step can be
captured in a CUDA graph. The state is a dict of batch-first tensors, as `HarmonicNoiseSynth`'s is.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

from model_server import vocoder

OUTPUT_RATE = 24000
LOG_MAG_MAX = 7.0  # clamp before exp(): a frame of full-scale audio peaks near e^6 in this STFT
INITIAL_LOG_MAG = -3.0
INPUT_CLAMP = 10.0
TWO_PI = 2 * math.pi  # normalized features beyond 10 standard deviations are a wild model output, not speech
CONFIG_FILE = "neural_vocoder.json"
WEIGHTS_FILE = "neural_vocoder.safetensors"


@dataclasses.dataclass(frozen=True)
class NeuralVocoderConfig:
    """The network's shape. The defaults keep one stream well above 20x real time on one CPU thread."""

    sample_rate: int = OUTPUT_RATE
    channels: int = 192
    layers: int = 6
    kernel: int = 5  # frames each block's convolution sees: the frame and kernel - 1 before it
    mlp_ratio: int = 3

    def __post_init__(self):
        if self.sample_rate not in vocoder.OUTPUT_RATES:
            raise ValueError(f"sample_rate must be one of {vocoder.OUTPUT_RATES}, got {self.sample_rate!r}")
        for name in ("channels", "layers", "mlp_ratio"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if isinstance(self.kernel, bool) or not isinstance(self.kernel, int) or self.kernel < 2:
            raise ValueError(f"kernel must be an int >= 2, got {self.kernel!r}")

    @property
    def hop(self) -> int:
        return self.sample_rate * vocoder.HOP // vocoder.SAMPLE_RATE

    @property
    def n_fft(self) -> int:
        return 2 * self.hop

    @property
    def bins(self) -> int:
        return self.n_fft // 2 + 1

    @classmethod
    def from_dict(cls, data: dict) -> NeuralVocoderConfig:
        if not isinstance(data, dict):
            raise ValueError(f"a neural vocoder config is a JSON object, got {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown neural vocoder config keys {unknown}; known: {sorted(known)}")
        return cls(**data)


def analysis_window(n_fft: int, device=None) -> torch.Tensor:
    """Square-root periodic Hann: used to analyse the teacher and to synthesize, so their product (a Hann
    window) sums to one over shifts of ``n_fft // 2``."""
    return torch.hann_window(n_fft, periodic=True, device=device).sqrt()


def delayed(audio: torch.Tensor, n_frames: int, hop: int) -> torch.Tensor:
    """Teacher ``audio`` [B, N] delayed by one hop and cut or zero-padded to (n_frames + 1) * hop samples: step
    t emits its first ``t * hop ... (t + 1) * hop`` samples (teacher time from frame t - 1 to frame t), and the
    extra hop is the second half of the last frame's grain."""
    n = (n_frames + 1) * hop
    return F.pad(audio, (hop, max(0, n - hop - audio.shape[-1])))[..., :n]


def target_frames(delayed_audio: torch.Tensor, window: torch.Tensor) -> torch.Tensor:
    """The STFT frames a perfect head would give: complex [B, n_frames, hop + 1] from ``delayed`` audio
    [B, (n_frames + 1) * hop]. Frame t is the windowed span of the teacher from frame t - 1 to frame t + 1."""
    n_fft = window.shape[0]
    return torch.fft.rfft(delayed_audio.unfold(-1, n_fft, n_fft // 2) * window, dim=-1)


def overlap_add(grains: torch.Tensor, tail: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Grains [B, T, 2 * hop] and the last call's tail [B, hop] -> (audio [B, T * hop], new tail): step t
    emits its grain's first half plus the second half of the grain before it."""
    hop = tail.shape[1]
    tails = torch.cat([tail.unsqueeze(1), grains[:, :-1, hop:]], dim=1)  # [B, T, hop]
    return (grains[:, :, :hop] + tails).reshape(grains.shape[0], -1), grains[:, -1, hop:].contiguous()


class CausalConvNeXtBlock(torch.nn.Module):
    """Depthwise causal convolution over frames, LayerNorm, a pointwise MLP, a scaled residual."""

    def __init__(self, channels: int, kernel: int, mlp_ratio: int, layer_scale: float):
        super().__init__()
        self.kernel = kernel
        self.depthwise = torch.nn.Conv1d(channels, channels, kernel, groups=channels)
        self.norm = torch.nn.LayerNorm(channels)
        self.up = torch.nn.Linear(channels, mlp_ratio * channels)
        self.down = torch.nn.Linear(mlp_ratio * channels, channels)
        self.scale = torch.nn.Parameter(torch.full((channels,), layer_scale))

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x [B, C, T], context [B, C, kernel - 1] (the inputs of the frames before) -> (y, new context)."""
        full = torch.cat([context, x], dim=2)
        y = self.norm(self.depthwise(full).transpose(1, 2))
        y = self.down(F.gelu(self.up(y))) * self.scale
        return x + y.transpose(1, 2), full[:, :, full.shape[2] - (self.kernel - 1) :]


class NeuralVocoder(torch.nn.Module):
    """Features [B, T, FEATURE_DIM] -> audio [B, T * hop] at ``config.sample_rate``, batched and streaming.

    State (``init_state``): ``context`` [B, layers, channels, kernel - 1], each block's inputs for the frames
    before, ``tail`` [B, hop], the second half of the last grain, ``f0_phase`` [B] (float64, wrapped) the F0
    phase at the last frame's centre and ``f0`` [B] that frame's F0. Any chunking of a sequence gives the
    same audio as one call (up to float rounding), since every operation is causal and per frame.
    """

    def __init__(self, config: NeuralVocoderConfig | None = None):
        super().__init__()
        self.config = config = config or NeuralVocoderConfig()
        self.sample_rate = config.sample_rate
        self.hop = config.hop
        self.register_buffer("feature_mean", torch.zeros(vocoder.FEATURE_DIM))
        self.register_buffer("feature_std", torch.ones(vocoder.FEATURE_DIM))
        self.register_buffer("window", analysis_window(config.n_fft), persistent=False)
        k = torch.arange(config.bins, dtype=torch.float32)
        self.register_buffer("bin_hz", k * config.sample_rate / config.n_fft, persistent=False)
        self.register_buffer("bin_shift", torch.remainder(math.pi * k, TWO_PI), persistent=False)
        self.inp = torch.nn.Linear(vocoder.FEATURE_DIM, config.channels)
        self.blocks = torch.nn.ModuleList(
            CausalConvNeXtBlock(config.channels, config.kernel, config.mlp_ratio, 1.0 / config.layers)
            for _ in range(config.layers)
        )
        self.norm = torch.nn.LayerNorm(config.channels)
        self.head = torch.nn.Linear(config.channels, 2 * config.bins)
        with torch.no_grad():  # start quiet: speech's STFT bins sit near e^-3, the untrained head's near e^0
            self.head.bias[: config.bins].fill_(INITIAL_LOG_MAG)

    def set_normalization(self, mean: torch.Tensor, std: torch.Tensor) -> None:
        """Per-feature statistics of the training data; the input is standardized with them."""
        mean = torch.as_tensor(mean, dtype=torch.float32).reshape(-1)
        std = torch.as_tensor(std, dtype=torch.float32).reshape(-1)
        if mean.numel() != vocoder.FEATURE_DIM or std.numel() != vocoder.FEATURE_DIM:
            raise ValueError(f"normalization needs {vocoder.FEATURE_DIM} means and standard deviations")
        self.feature_mean.copy_(mean)
        self.feature_std.copy_(std.clamp_min(1e-3))  # a constant feature (VUV, all voiced) stays finite

    def init_state(self, batch: int, device: torch.device | str | None = None) -> dict[str, torch.Tensor]:
        """Silence for ``batch`` streams."""
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ValueError(f"batch must be a positive int, got {batch!r}")
        device = torch.device(device) if device is not None else self.feature_mean.device
        c = self.config
        return {
            "context": torch.zeros(batch, c.layers, c.channels, c.kernel - 1, device=device),
            "tail": torch.zeros(batch, self.hop, device=device),
            "f0_phase": torch.zeros(batch, dtype=torch.float64, device=device),
            "f0": torch.zeros(batch, device=device),
        }

    def _check(self, feats: torch.Tensor, state: dict[str, torch.Tensor]) -> None:
        if not isinstance(feats, torch.Tensor) or feats.dim() != 3 or feats.shape[2] != vocoder.FEATURE_DIM:
            shape = tuple(feats.shape) if isinstance(feats, torch.Tensor) else type(feats).__name__
            raise ValueError(f"features must be [batch, frames, {vocoder.FEATURE_DIM}], got {shape}")
        if not feats.is_floating_point():
            raise ValueError(f"features must be floating point, got {feats.dtype}")
        expected = self.init_state(1, "meta")
        for name, ref in expected.items():
            got = state.get(name) if isinstance(state, dict) else None
            if got is None or tuple(got.shape) != (feats.shape[0], *ref.shape[1:]):
                shape = None if got is None else tuple(got.shape)
                raise ValueError(
                    f"state[{name!r}] must be [{feats.shape[0]}, *{tuple(ref.shape[1:])}], got {shape}"
                )

    def reference_phase(
        self, feats: torch.Tensor, f0_phase: torch.Tensor, f0_prev: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(reference phase [B, T, bins], F0 phase at the last frame, its F0): each bin's phase if it carried
        the harmonic of F0 nearest to it, h * Phi_t - pi * k, where Phi_t is the F0 phase at frame t's centre
        (integrated over the frames, trapezoid, carried across calls) and -pi * k the centre of the grain seen
        from its start. The head predicts the phase relative to this: constant for a steady vowel, which a
        network over a finite past can give, where the absolute phase keeps turning."""
        f0 = torch.exp(feats[..., vocoder.LF0].squeeze(-1).float()).clamp(vocoder.F0_FLOOR, vocoder.F0_MAX)
        f0_64 = f0.double()
        before = torch.cat([f0_prev.double().unsqueeze(1), f0_64[:, :-1]], dim=1)
        step = math.pi * self.hop / self.sample_rate  # trapezoid: pi * (f0_{t-1} + f0_t) * hop / rate
        run = torch.remainder(f0_phase.unsqueeze(1) + torch.cumsum(step * (before + f0_64), dim=1), TWO_PI)
        harmonic = torch.round(self.bin_hz / f0.unsqueeze(-1)).double()  # [B, T, bins]
        ref = torch.remainder(harmonic * run.unsqueeze(-1), TWO_PI).float() - self.bin_shift
        return ref, run[:, -1], f0[:, -1]

    def spectra(
        self, feats: torch.Tensor, state: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
        """(log magnitude [B, T, bins], phase [B, T, bins], the new state but its tail) per frame."""
        x = ((feats.float() - self.feature_mean) / self.feature_std).clamp(-INPUT_CLAMP, INPUT_CLAMP)
        x = self.inp(x).transpose(1, 2)  # [B, C, T]
        contexts = []
        for i, block in enumerate(self.blocks):
            x, ctx = block(x, state["context"][:, i])
            contexts.append(ctx)
        out = self.head(self.norm(x.transpose(1, 2)))
        log_mag, relative = out.split(self.config.bins, dim=-1)
        ref, f0_phase, f0 = self.reference_phase(feats, state["f0_phase"], state["f0"])
        new = {"context": torch.stack(contexts, dim=1), "f0_phase": f0_phase, "f0": f0}
        return log_mag.clamp(max=LOG_MAG_MAX), relative + ref, new

    def grains(self, log_mag: torch.Tensor, phase: torch.Tensor) -> torch.Tensor:
        """Per-frame spectra -> windowed grains [B, T, n_fft]."""
        mag = torch.exp(log_mag)
        spec = torch.complex(mag * torch.cos(phase), mag * torch.sin(phase))
        return torch.fft.irfft(spec, n=self.config.n_fft, dim=-1) * self.window

    def forward(
        self, feats: torch.Tensor, state: dict[str, torch.Tensor], *, fixed_shape: bool = False
    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """feats [B, T, FEATURE_DIM] -> (audio [B, T * hop] float32, new state). ``fixed_shape`` skips the
        validation (the runtime made the features), which reads nothing from the device either way."""
        if not fixed_shape:
            self._check(feats, state)
        log_mag, phase, new = self.spectra(feats, state)
        audio, tail = overlap_add(self.grains(log_mag, phase), state["tail"])
        return audio, {**new, "tail": tail}

    # --- files ------------------------------------------------------------------------------------------------

    def save(self, model_dir: Path, extra: dict | None = None) -> None:
        """Write the weights and ``neural_vocoder.json`` (the config and ``extra``, e.g. how it was trained),
        each atomically, the JSON last: a server that finds the JSON finds whole weights."""
        model_dir = Path(model_dir)
        model_dir.mkdir(parents=True, exist_ok=True)
        tmp = model_dir / (WEIGHTS_FILE + ".tmp")
        save_file({k: v.detach().cpu().contiguous() for k, v in self.state_dict().items()}, tmp)
        os.replace(tmp, model_dir / WEIGHTS_FILE)
        info = {"config": dataclasses.asdict(self.config), **(extra or {})}
        tmp = model_dir / (CONFIG_FILE + ".tmp")
        tmp.write_text(json.dumps(info, indent=2) + "\n")
        os.replace(tmp, model_dir / CONFIG_FILE)

    @classmethod
    def load(cls, model_dir: Path, map_location="cpu") -> NeuralVocoder:
        """The vocoder saved in ``model_dir``; a clear error naming the file when it is missing or broken."""
        model_dir = Path(model_dir)
        config_path, weights_path = model_dir / CONFIG_FILE, model_dir / WEIGHTS_FILE
        for path in (config_path, weights_path):
            if not path.is_file():
                raise FileNotFoundError(
                    f"{path}: no neural vocoder here (train one: python -m model_server.train_vocoder)"
                )
        try:
            info = json.loads(config_path.read_text())
            config = NeuralVocoderConfig.from_dict(info.get("config") if isinstance(info, dict) else None)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{config_path}: {exc}") from None
        model = cls(config)
        try:
            weights = load_file(weights_path)
        except Exception as exc:  # safetensors raises its own error type for a damaged file
            raise ValueError(f"{weights_path} is not a safetensors file: {exc}") from None
        try:
            model.load_state_dict(weights)
        except RuntimeError as exc:
            raise ValueError(
                f"{weights_path} does not match {config_path}: {str(exc).splitlines()[0]}"
            ) from None
        return model.to(map_location).eval()


def parameter_count(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def state_bytes(model: NeuralVocoder) -> int:
    """Bytes of one stream's state."""
    return sum(math.prod(t.shape[1:]) * t.element_size() for t in model.init_state(1, "meta").values())
