"""Vocoder features: the per-frame layout the acoustic model predicts, WORLD analysis of teacher audio
(training only, pyworld) and the streaming harmonic-plus-noise synthesizer (torch, batched, fixed-size
per-stream state) that turns predicted frames back into 16 kHz audio.

Feature layout (one float32 row per 12.5 ms frame, ``FEATURE_DIM`` = 57):

* ``LF0`` (1): natural log of F0 in Hz. Linearly interpolated (in the log domain) through unvoiced frames
  and held at the ends, so the model regresses a smooth curve instead of jumping to a sentinel value.
  An utterance with no voiced frame gets ``log(DEFAULT_F0)``.
* ``VUV`` (1): voicing flag, 1.0 voiced / 0.0 unvoiced (the synthesizer treats it as a soft weight).
* ``ENV`` (48): natural log of the WORLD spectral envelope (CheapTrick power, FFT size 1024) sampled on
  48 points equally spaced on the mel scale from 0 to 8 kHz, each a triangle-weighted mean of the power.
  48 points leave 2+ FFT bins per triangle at the low end and still resolve formants at 3-4 kHz; more
  bins mostly add regression targets without audible gain for a 16 kHz voice.
* ``AP`` (7): band aperiodicity, the fraction of the band's power that is noise (D4C aperiodicity
  squared, power-weighted over the band), in [0, 1]. Bands ``AP_BAND_EDGES_HZ``: finer below 4 kHz,
  where breathiness and voicing onsets live; 7 bands is what D4C's estimate resolves reliably.

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

SAMPLE_RATE = 16000
HOP = 200
FRAME_PERIOD_MS = 1000.0 * HOP / SAMPLE_RATE  # 12.5 ms

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
_BAND_MASK = np.stack([
    (_FFT_FREQS >= lo) & ((_FFT_FREQS < hi) | (hi >= SAMPLE_RATE / 2))
    for lo, hi in zip(AP_BAND_EDGES_HZ[:-1], AP_BAND_EDGES_HZ[1:], strict=True)
]).astype(np.float64)


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


def analyze(wave: np.ndarray, sr: int) -> np.ndarray:
    """WORLD analysis -> float32 features ``[num_frames(n16), FEATURE_DIM]``.

    ``wave``: mono float samples in [-1, 1] at ``sr`` Hz; resampled to 16 kHz with soxr when needed
    (``n16`` is then soxr's output length). F0 comes from DIO + StoneMask: Harvest is slightly more
    robust but measured ~0.17 s per audio second against ~0.015 for DIO + StoneMask, and the data step
    must stay under ~0.03 s per audio second per core.
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
    f0, _ = pw.dio(x, SAMPLE_RATE, f0_floor=F0_FLOOR, f0_ceil=F0_CEIL, frame_period=FRAME_PERIOD_MS)
    # DIO's own frame count is int(duration / period) + 1, which equals num_frames up to float rounding:
    # force the documented count so durations always sum to it.
    if len(f0) < n_frames:
        f0 = np.concatenate([f0, np.zeros(n_frames - len(f0))])
    f0 = np.ascontiguousarray(f0[:n_frames])
    f0 = pw.stonemask(x, f0, tp, SAMPLE_RATE)
    sp = pw.cheaptrick(x, f0, tp, SAMPLE_RATE, f0_floor=F0_FLOOR, fft_size=WORLD_FFT)
    ap = pw.d4c(x, f0, tp, SAMPLE_RATE, fft_size=WORLD_FFT)

    lf0, voiced = _interp_log_f0(f0)
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
