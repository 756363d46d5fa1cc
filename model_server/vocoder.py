"""Vocoder features: the per-frame layout the acoustic model predicts, WORLD analysis of teacher audio
(training only, pyworld) and the streaming harmonic-plus-noise synthesizer (torch, batched, fixed-size
per-stream state) that turns predicted frames back into 16 kHz audio.

Feature layout (one float32 row per 12.5 ms frame, ``FEATURE_DIM`` = 57):

* ``LF0`` (1): natural log of F0 in Hz. Linearly interpolated (in the log domain) through unvoiced frames
  and held at the ends, so the model regresses a smooth curve instead of jumping to a sentinel value.
  An utterance with no voiced frame gets ``log(DEFAULT_F0)``.
* ``VUV`` (1): voicing flag, 1.0 voiced / 0.0 unvoiced (the synthesizer treats it as a soft weight).
* ``ENV`` (48): natural log of the spectral envelope power (CheapTrick, FFT size 1024, in voiced frames;
  a 25 ms periodogram in unvoiced ones) on 48 points equally spaced on the mel scale from 0 to 8 kHz,
  each a triangle-weighted mean of the power. 48 points leave 2+ FFT bins per triangle at the low end
  and still resolve formants at 3-4 kHz; WORLD's own synthesizer fed this 48-point envelope and 7-band
  aperiodicity instead of the full 513-bin analysis lost 2 words of 146 in a pocketsphinx check.
* ``AP`` (7): band aperiodicity, the fraction of the band's power that is noise (D4C aperiodicity
  squared, power-weighted over the band), in [0, 1]. Bands ``AP_BAND_EDGES_HZ``: finer below 4 kHz,
  where breathiness and voicing onsets live. Forcing it to 0, halving or doubling it moved resynthesis
  errors by at most 6 words of 371, so finer bands would buy little.

Timing: frame ``k`` describes the input at time ``k * HOP`` samples, so ``n`` samples at 16 kHz give
``num_frames(n) = n // HOP + 1`` frames (phone durations in frames must sum to it). The synthesizer emits
``HOP`` samples per frame and ramps from the previous frame to the current one within those samples, so
its output sample ``j`` corresponds to input sample ``j - HOP`` (one frame, 12.5 ms, of latency).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import math
import os

import numpy as np
import torch

SAMPLE_RATE = 16000
HOP = 200
FRAME_PERIOD_MS = 1000.0 * HOP / SAMPLE_RATE  # 12.5 ms
NYQUIST = SAMPLE_RATE / 2

N_ENV = 48
AP_BAND_EDGES_HZ = (0.0, 500.0, 1000.0, 2000.0, 3000.0, 4000.0, 6000.0, 8000.0)
N_AP = len(AP_BAND_EDGES_HZ) - 1

LF0 = slice(0, 1)
VUV = slice(1, 2)
ENV = slice(2, 2 + N_ENV)
AP = slice(2 + N_ENV, 2 + N_ENV + N_AP)
FEATURE_DIM = 2 + N_ENV + N_AP

DEFAULT_F0 = 120.0
F0_FLOOR = 60.0  # covers low male voices; also bounds the harmonic count (8000 / 60 = 133)
F0_CEIL = 500.0
# DIO decimation. 2 is 6x faster (0.002 vs 0.013 s CPU per audio second) with 99 % identical voicing, but
# its resynthesis WER was 0.8 points worse (noise-level, 3 words of 371); 1 keeps analyze() under budget.
DIO_SPEED = 1
WORLD_FFT = 1024  # CheapTrick needs >= 3 * fs / F0_FLOOR samples: 800 -> next power of two
ENV_FLOOR = 1e-10  # power floor before the log: digital silence stays finite (ln = -23)
# Empirical CheapTrick scale: white noise of variance s2 gives sp = s2 * 1.024 at FFT 1024 and 16 kHz,
# i.e. sp = SP_PER_DENSITY * (one-sided power density per Hz). A harmonic of amplitude A at spacing f0
# has density A^2 / (2 f0); measured on a harmonic comb it matches this constant within 0.3 dB.
SP_PER_DENSITY = SAMPLE_RATE * WORLD_FFT / 2000.0


def num_frames(n_samples: int) -> int:
    """Frames for ``n_samples`` of 16 kHz audio: one per hop boundary, including t = 0."""
    if n_samples < 0:
        raise ValueError(f"n_samples must be >= 0, got {n_samples}")
    return n_samples // HOP + 1


def _hz_to_mel(f):
    return 2595.0 * np.log10(1.0 + np.asarray(f, dtype=np.float64) / 700.0)


def _mel_to_hz(m):
    return 700.0 * (10.0 ** (np.asarray(m, dtype=np.float64) / 2595.0) - 1.0)


MEL_MAX = float(_hz_to_mel(SAMPLE_RATE / 2))
ENV_CENTERS_HZ = _mel_to_hz(np.linspace(0.0, MEL_MAX, N_ENV))
AP_CENTERS_HZ = 0.5 * (np.asarray(AP_BAND_EDGES_HZ[:-1]) + np.asarray(AP_BAND_EDGES_HZ[1:]))


def _load_pyworld():
    """Load pyworld's compiled extension directly.

    pyworld 0.3.5's ``__init__`` imports ``pkg_resources``, which setuptools >= 81 no longer ships; the
    extension itself has no such dependency, so importing it by file path avoids pinning old setuptools.
    """
    spec = importlib.util.find_spec("pyworld")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("pyworld is not installed (training-only dependency: pip install pyworld==0.3.5)")
    folder = list(spec.submodule_search_locations)[0]
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for name in sorted(os.listdir(folder)):
        if name.startswith("pyworld.") and name.endswith(suffixes):
            ext_spec = importlib.util.spec_from_file_location("pyworld.pyworld", os.path.join(folder, name))
            module = importlib.util.module_from_spec(ext_spec)
            ext_spec.loader.exec_module(module)
            return module
    raise ImportError(f"pyworld's compiled extension was not found in {folder}")


_pyworld = None


def _pw():
    global _pyworld
    if _pyworld is None:
        _pyworld = _load_pyworld()
    return _pyworld


def _triangle_weights(n_bins: int) -> np.ndarray:
    """[N_ENV, n_bins] triangles on the mel grid over the linear FFT bins (rows sum to 1)."""
    freqs = np.linspace(0.0, SAMPLE_RATE / 2, n_bins)
    mel = _hz_to_mel(freqs)
    step = MEL_MAX / (N_ENV - 1)
    centers = np.linspace(0.0, MEL_MAX, N_ENV)
    w = np.clip(1.0 - np.abs(mel[None, :] - centers[:, None]) / step, 0.0, None)
    return w / w.sum(axis=1, keepdims=True)


_TRI = _triangle_weights(WORLD_FFT // 2 + 1)
_FFT_FREQS = np.linspace(0.0, SAMPLE_RATE / 2, WORLD_FFT // 2 + 1)
# [N_AP, bins] band membership; the top band includes Nyquist.
_BAND_MASK = np.stack(
    [
        (_FFT_FREQS >= lo) & ((_FFT_FREQS < hi) | (hi >= SAMPLE_RATE / 2))
        for lo, hi in zip(AP_BAND_EDGES_HZ[:-1], AP_BAND_EDGES_HZ[1:], strict=True)
    ]
).astype(np.float64)


def _check_wave(wave, sr) -> np.ndarray:
    if not isinstance(wave, np.ndarray):
        raise ValueError(f"wave must be a numpy array, got {type(wave).__name__}")
    if wave.dtype not in (np.float32, np.float64):
        raise ValueError(f"wave must be float32 or float64 (samples in [-1, 1]), got dtype {wave.dtype}")
    if wave.ndim != 1:
        raise ValueError(f"wave must be mono 1-D [n_samples], got shape {wave.shape}")
    if wave.size == 0:
        raise ValueError("wave is empty")
    if not np.all(np.isfinite(wave)):
        raise ValueError("wave contains NaN or infinite samples")
    if isinstance(sr, bool) or not isinstance(sr, (int, np.integer)) or sr <= 0:
        raise ValueError(f"sr must be a positive integer sample rate, got {sr!r}")
    return wave.astype(np.float64)


def _interp_log_f0(f0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    voiced = f0 > 0
    idx = np.arange(len(f0))
    if not voiced.any():
        return np.full(len(f0), math.log(DEFAULT_F0)), voiced
    lf0 = np.interp(idx, idx[voiced], np.log(f0[voiced]))  # np.interp holds the end values
    return lf0, voiced


_UV_WINDOW = np.hanning(2 * HOP + 1)[:-1]  # periodic Hann, 25 ms, centred on the frame


def _noise_envelope(x: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """Periodogram of the given frames, in CheapTrick's units (power spectrum [len(frames), bins]).

    CheapTrick smooths unvoiced frames with its 500 Hz default-F0 window, which measured 3-5 dB too much
    energy below 1 kHz on fricatives and closures (measured against a 40-band log-mel of the input); a
    25 ms periodogram averaged by the mel triangles halves that error.
    """
    half = len(_UV_WINDOW) // 2
    padded = np.pad(x, (half, half))
    segs = np.stack([padded[i * HOP : i * HOP + len(_UV_WINDOW)] for i in frames]) * _UV_WINDOW
    power = np.abs(np.fft.rfft(segs, n=WORLD_FFT, axis=-1)) ** 2
    # White noise of variance s2 gives E|X|^2 = s2 * sum(w^2); CheapTrick reports 1.024 * s2 for it.
    return power * (SP_PER_DENSITY / (NYQUIST * np.sum(_UV_WINDOW**2)))


def analyze(wave: np.ndarray, sr: int) -> np.ndarray:
    """WORLD analysis -> float32 features ``[num_frames(n16), FEATURE_DIM]``.

    ``wave``: mono float samples in [-1, 1] at ``sr`` Hz; resampled to 16 kHz with soxr when needed
    (``n16`` is then soxr's output length). F0 comes from DIO + StoneMask: Harvest measured ~0.17 s CPU
    per audio second and no better resynthesis WER; the data step must stay under ~0.03 s per audio
    second per core. CPU seconds per audio second on 122 s of Festival speech: DIO 0.013, StoneMask
    0.001, CheapTrick 0.005, D4C 0.008; analyze() in all 0.026.
    """
    x = _check_wave(wave, sr)
    if sr != SAMPLE_RATE:
        import soxr

        x = soxr.resample(x, sr, SAMPLE_RATE, quality="HQ").astype(np.float64)
        if x.size == 0:
            raise ValueError(f"wave is too short to resample from {sr} Hz to {SAMPLE_RATE} Hz")
    pw = _pw()
    n_frames = num_frames(len(x))
    tp = np.arange(n_frames, dtype=np.float64) * (HOP / SAMPLE_RATE)
    f0, _ = pw.dio(
        x, SAMPLE_RATE, f0_floor=F0_FLOOR, f0_ceil=F0_CEIL, frame_period=FRAME_PERIOD_MS, speed=DIO_SPEED
    )
    # DIO's own frame count is int(duration / period) + 1, which equals num_frames up to float rounding:
    # force the documented count so durations always sum to it.
    if len(f0) < n_frames:
        f0 = np.concatenate([f0, np.zeros(n_frames - len(f0))])
    f0 = np.ascontiguousarray(f0[:n_frames])
    f0 = pw.stonemask(x, f0, tp, SAMPLE_RATE)
    sp = pw.cheaptrick(x, f0, tp, SAMPLE_RATE, f0_floor=F0_FLOOR, fft_size=WORLD_FFT)
    ap = pw.d4c(x, f0, tp, SAMPLE_RATE, fft_size=WORLD_FFT)

    lf0, voiced = _interp_log_f0(f0)
    unvoiced = np.flatnonzero(~voiced)
    if unvoiced.size:
        sp[unvoiced] = _noise_envelope(x, unvoiced)
    env = np.log(np.maximum(sp @ _TRI.T, ENV_FLOOR))
    noise_power = (sp * np.clip(ap, 0.0, 1.0) ** 2) @ _BAND_MASK.T
    band_power = sp @ _BAND_MASK.T
    band_ap = np.clip(noise_power / np.maximum(band_power, 1e-30), 0.0, 1.0)

    feats = np.empty((n_frames, FEATURE_DIM), dtype=np.float32)
    feats[:, LF0] = lf0[:, None]
    feats[:, VUV] = voiced[:, None].astype(np.float32)
    feats[:, ENV] = env
    feats[:, AP] = band_ap
    return feats


# ---------------------------------------------------------------------------------------------------------
# Streaming harmonic-plus-noise synthesis
# ---------------------------------------------------------------------------------------------------------

HARMONIC_FADE_HZ = (7600.0, 7900.0)  # harmonics fade out over this range: no aliasing, no on/off clicks
F0_MAX = 1000.0
NOISE_LEN = 2 * HOP  # one noise grain per frame, 50 % overlap
# Harmonics the lowest F0 can need: the fixed-shape synthesis (graph-capturable) always computes these.
MAX_HARMONICS = math.ceil(HARMONIC_FADE_HZ[1] / F0_FLOOR)
# float32 elements of the [rows, HOP, harmonics] sine block made at once. On a CPU a block that stays in
# cache is about 1.6x faster than one big block (64 streams x 32 frames: 82 vs 132 ms, same output); on a
# GPU large blocks mean fewer launches, and the bound only caps the temporaries at large batches.
SINE_BUDGET = {"cpu": 1 << 20, "cuda": 1 << 24}
NOISE_BINS = NOISE_LEN // 2 + 1
NOISE_TABLE_ROWS = 1009  # prime; rows are reused every 12.6 s of audio, far beyond audible repetition
ENV_LOG_MAX = 10.0  # clamp for predicted log envelopes so a wild model output cannot overflow exp()


def _lin_interp_matrix(src_x: np.ndarray, dst_x: np.ndarray) -> np.ndarray:
    """[len(src), len(dst)] matrix M with values_at_dst = values_at_src @ M (piecewise linear, held ends)."""
    m = np.zeros((len(src_x), len(dst_x)))
    for j, x in enumerate(dst_x):
        if x <= src_x[0]:
            m[0, j] = 1.0
        elif x >= src_x[-1]:
            m[-1, j] = 1.0
        else:
            i = int(np.searchsorted(src_x, x, side="right")) - 1
            t = (x - src_x[i]) / (src_x[i + 1] - src_x[i])
            m[i, j], m[i + 1, j] = 1.0 - t, t
    return m


def silence_frame() -> np.ndarray:
    """Feature row of digital silence (what a stream's synthesizer state starts from)."""
    row = np.zeros(FEATURE_DIM, dtype=np.float32)
    row[LF0] = math.log(DEFAULT_F0)
    row[VUV] = 0.0
    row[ENV] = math.log(ENV_FLOOR)
    row[AP] = 1.0
    return row


class HarmonicNoiseSynth(torch.nn.Module):
    """Features -> 16 kHz audio, ``HOP`` samples per frame, batched over streams, streaming.

    Harmonic part: a bank of sinusoids at k * F0 up to ~7.9 kHz; F0 and each harmonic's amplitude ramp
    linearly per sample from the previous frame to the current one, and the phase runs on across calls,
    so any chunking of a sequence gives the same audio. Amplitude: ``sqrt(2 f0 D(f) (1 - ap(f))) * vuv``,
    with ``D`` the power density implied by the WORLD envelope (see ``SP_PER_DENSITY``).
    Noise part: one white-noise grain of 2 * HOP samples per frame, coloured in the FFT domain to density
    ``D(f) * (1 - vuv * (1 - ap(f)))`` (the full envelope when unvoiced), windowed with a sine window and
    overlap-added (squared windows sum to 1, so the noise power stays constant). The grains come from a
    fixed table indexed by the stream's frame counter: noise is deterministic, hence chunking-invariant.

    State (plain tensors, batch first, so a runtime can gather/scatter them by slot): ``prev`` [B, F]
    previous frame, ``phase`` [B] float64 running F0 phase, ``noise_tail`` [B, HOP] overlap-add tail,
    ``frame_index`` [B] int64 frames emitted so far.
    """

    def __init__(self, noise_seed: int = 0):
        super().__init__()
        gen = torch.Generator().manual_seed(noise_seed)
        noise = torch.randn(NOISE_TABLE_ROWS, NOISE_LEN, generator=gen, dtype=torch.float64)
        self.register_buffer("noise_fft", torch.fft.rfft(noise, dim=-1).to(torch.complex64), persistent=False)
        n = np.arange(NOISE_LEN)
        self.register_buffer(
            "window",
            torch.tensor(np.sin(np.pi * (n + 0.5) / NOISE_LEN), dtype=torch.float32),
            persistent=False,
        )
        bins_hz = np.linspace(0.0, NYQUIST, NOISE_BINS)
        env_m = _lin_interp_matrix(_hz_to_mel(ENV_CENTERS_HZ), _hz_to_mel(bins_hz))
        ap_m = _lin_interp_matrix(AP_CENTERS_HZ, bins_hz)
        self.register_buffer("env_to_bins", torch.tensor(env_m, dtype=torch.float32), persistent=False)
        self.register_buffer("ap_to_bins", torch.tensor(ap_m, dtype=torch.float32), persistent=False)
        self.register_buffer("ap_centers", torch.tensor(AP_CENTERS_HZ, dtype=torch.float32), persistent=False)
        alpha = (torch.arange(HOP, dtype=torch.float64) + 1.0) / HOP
        self.register_buffer("alpha64", alpha, persistent=False)
        self.register_buffer("alpha", alpha.to(torch.float32), persistent=False)
        self.register_buffer("silence", torch.tensor(silence_frame()), persistent=False)

    def init_state(self, batch: int, device: torch.device | str | None = None) -> dict[str, torch.Tensor]:
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ValueError(f"batch must be a positive int, got {batch!r}")
        device = torch.device(device) if device is not None else self.silence.device
        return {
            "prev": self.silence.to(device).expand(batch, FEATURE_DIM).clone(),
            "phase": torch.zeros(batch, dtype=torch.float64, device=device),
            "noise_tail": torch.zeros(batch, HOP, dtype=torch.float32, device=device),
            "frame_index": torch.zeros(batch, dtype=torch.int64, device=device),
        }

    def _check(self, feats: torch.Tensor, state: dict[str, torch.Tensor]) -> None:
        if not isinstance(feats, torch.Tensor):
            raise ValueError(f"feats must be a torch.Tensor, got {type(feats).__name__}")
        if feats.dtype != torch.float32:
            raise ValueError(f"feats must be float32, got {feats.dtype}")
        if feats.ndim != 3 or feats.shape[-1] != FEATURE_DIM:
            raise ValueError(
                f"feats must have shape [batch, frames, {FEATURE_DIM}], got {tuple(feats.shape)}"
            )
        if feats.shape[0] == 0 or feats.shape[1] == 0:
            raise ValueError(f"feats is empty: shape {tuple(feats.shape)}")
        if not bool(torch.isfinite(feats).all()):
            raise ValueError("feats contains NaN or infinite values")
        expected = {"prev": (FEATURE_DIM,), "phase": (), "noise_tail": (HOP,), "frame_index": ()}
        if not isinstance(state, dict) or set(state) != set(expected):
            raise ValueError(f"state must be the dict from init_state with keys {sorted(expected)}")
        for key, tail in expected.items():
            if tuple(state[key].shape) != (feats.shape[0], *tail):
                raise ValueError(
                    f"state[{key!r}] has shape {tuple(state[key].shape)}, expected {(feats.shape[0], *tail)}"
                )

    def _harmonic_amplitudes(self, f0, vuv, log_env, ap, n_harm: int) -> torch.Tensor:
        """[B, N, n_harm] sinusoid amplitudes for frames with f0 [B, N] etc."""
        k = torch.arange(1, n_harm + 1, device=f0.device, dtype=f0.dtype)
        freqs = f0.unsqueeze(-1) * k  # [B, N, H]
        # Log envelope at each harmonic: linear interpolation on the uniform mel grid.
        pos = (2595.0 * torch.log10(1.0 + freqs / 700.0) / MEL_MAX * (N_ENV - 1)).clamp(0.0, N_ENV - 1)
        i0 = pos.floor().long().clamp(max=N_ENV - 2)
        t = pos - i0
        e = torch.gather(log_env, -1, i0) * (1.0 - t) + torch.gather(log_env, -1, i0 + 1) * t
        # Aperiodicity: linear in Hz between band centres, held beyond the outer centres.
        c = self.ap_centers
        j = torch.bucketize(freqs, c).clamp(1, N_AP - 1) - 1
        u = ((freqs - c[j]) / (c[j + 1] - c[j])).clamp(0.0, 1.0)
        a = torch.gather(ap, -1, j) * (1.0 - u) + torch.gather(ap, -1, j + 1) * u
        lo, hi = HARMONIC_FADE_HZ
        fade = ((hi - freqs) / (hi - lo)).clamp(0.0, 1.0)
        density = torch.exp(e) / SP_PER_DENSITY
        amp = torch.sqrt(2.0 * f0.unsqueeze(-1) * density * (1.0 - a)) * fade
        return amp * vuv.unsqueeze(-1)

    def forward(
        self, feats: torch.Tensor, state: dict[str, torch.Tensor], *, fixed_shape: bool = False
    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """fixed_shape: no host synchronization and shapes that depend only on the input's: MAX_HARMONICS
        harmonics (those above the fade are zero, so the audio is the same), no validation (the runtime
        made the features). What a CUDA graph can capture; the default is cheaper on a CPU."""
        if not fixed_shape:
            self._check(feats, state)
        b, n_frames, _ = feats.shape
        full = torch.cat([state["prev"].unsqueeze(1).to(feats.dtype), feats], dim=1)  # [B, L+1, F]
        f0 = torch.exp(full[..., LF0].squeeze(-1)).clamp(F0_FLOOR, F0_MAX)
        vuv = full[..., VUV].squeeze(-1).clamp(0.0, 1.0)
        log_env = full[..., ENV].clamp(math.log(ENV_FLOOR), ENV_LOG_MAX)
        ap = full[..., AP].clamp(0.0, 1.0)

        # --- harmonic part -------------------------------------------------------------------------------
        # Only as many harmonics as the lowest F0 in this call needs; the others would be faded to zero.
        if fixed_shape:
            n_harm = MAX_HARMONICS
        else:
            n_harm = max(1, int(math.ceil(HARMONIC_FADE_HZ[1] / float(f0.min()))))
        amp = self._harmonic_amplitudes(f0, vuv, log_env, ap, n_harm)  # [B, L+1, H]
        # Phase in float64 (closed form of the per-sample ramp) so long streams do not drift.
        f0_64 = f0.to(torch.float64)
        f_prev, delta = f0_64[:, :-1], f0_64[:, 1:] - f0_64[:, :-1]  # [B, L]
        step = 2.0 * math.pi / SAMPLE_RATE
        frame_adv = step * (f_prev * HOP + delta * (HOP + 1) / 2.0)
        starts = state["phase"].unsqueeze(1) + torch.cumsum(frame_adv, dim=1) - frame_adv  # [B, L]
        j1 = self.alpha64 * HOP  # j + 1
        within = step * (f_prev.unsqueeze(-1) * j1 + delta.unsqueeze(-1) * j1 * (j1 + 1.0) / (2.0 * HOP))
        phase = torch.remainder(starts.unsqueeze(-1) + within, 2.0 * math.pi).to(torch.float32)  # [B, L, HOP]
        k = torch.arange(1, n_harm + 1, device=feats.device, dtype=torch.float32)
        # The [B * L, HOP, H] sine block is the bulk of the work: made in place, a bounded number of rows
        # at a time (a fixed split for given shapes), so a large batch does not need gigabytes at once.
        rows = b * n_frames
        phase = phase.reshape(rows, HOP, 1)
        ends = torch.stack([amp[:, :-1], amp[:, 1:]], dim=-1).reshape(rows, n_harm, 2)
        budget = SINE_BUDGET.get(feats.device.type, SINE_BUDGET["cuda"])
        per_block = max(1, budget // (HOP * n_harm))
        both = torch.empty(rows, HOP, 2, dtype=torch.float32, device=feats.device)
        for r0 in range(0, rows, per_block):
            r1 = min(rows, r0 + per_block)
            torch.bmm(torch.mul(phase[r0:r1], k).sin_(), ends[r0:r1], out=both[r0:r1])
        both = both.reshape(b, n_frames, HOP, 2)
        harmonic = both[..., 0] * (1.0 - self.alpha) + both[..., 1] * self.alpha  # [B, L, HOP]

        # --- noise part ----------------------------------------------------------------------------------
        cur_env, cur_ap, cur_vuv = log_env[:, 1:], ap[:, 1:], vuv[:, 1:].unsqueeze(-1)
        density = torch.exp(cur_env @ self.env_to_bins) / SP_PER_DENSITY  # [B, L, bins]
        noise_frac = 1.0 - cur_vuv * (1.0 - (cur_ap @ self.ap_to_bins).clamp(0.0, 1.0))
        # Unit-variance white noise has one-sided density 1 / NYQUIST per Hz.
        mag = torch.sqrt(density * noise_frac * NYQUIST)
        rows = torch.remainder(
            state["frame_index"].unsqueeze(1) + torch.arange(n_frames, device=feats.device), NOISE_TABLE_ROWS
        )
        grains = torch.fft.irfft(self.noise_fft[rows] * mag, n=NOISE_LEN, dim=-1) * self.window  # [B, L, 2H]
        blocks = torch.zeros(b, n_frames + 1, HOP, dtype=torch.float32, device=feats.device)
        blocks[:, :-1] += grains[..., :HOP]
        blocks[:, 1:] += grains[..., HOP:]
        blocks[:, 0] += state["noise_tail"]

        audio = (harmonic + blocks[:, :-1]).reshape(b, n_frames * HOP)
        new_state = {
            "prev": feats[:, -1].detach().clone(),
            "phase": torch.remainder(state["phase"] + frame_adv.sum(dim=1), 2.0 * math.pi),
            "noise_tail": blocks[:, -1].clone(),
            "frame_index": state["frame_index"] + n_frames,
        }
        return audio, new_state
