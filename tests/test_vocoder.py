"""Tests for model_server.vocoder: feature layout, WORLD analysis, streaming harmonic-plus-noise synthesis."""

import math
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from model_server import vocoder as v
from tests.support.dispatch import OpRecorder, host_syncs

SR = v.SAMPLE_RATE


def _rms(x):
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64))))


def _voiced_signal(seconds=1.0, seed=0):
    """Harmonic-rich vowel-like signal with a gliding F0 plus a little noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * SR)) / SR
    f0 = 140.0 + 40.0 * np.sin(2 * np.pi * 1.5 * t)
    phase = 2 * np.pi * np.cumsum(f0) / SR
    x = sum((0.3 / k) * np.sin(k * phase) for k in range(1, 30))
    return (x + 0.005 * rng.standard_normal(len(t))).astype(np.float32)


@pytest.fixture(scope="module")
def synth():
    return v.HarmonicNoiseSynth()


def test_layout_slices_cover_feature_dim_without_overlap():
    covered = []
    for sl in (v.LF0, v.VUV, v.ENV, v.AP):
        covered.extend(range(v.FEATURE_DIM)[sl])
    assert sorted(covered) == list(range(v.FEATURE_DIM))
    assert v.ENV.stop - v.ENV.start == v.N_ENV and v.AP.stop - v.AP.start == v.N_AP
    assert 40 <= v.N_ENV <= 60 and 5 <= v.N_AP <= 8
    assert v.SAMPLE_RATE == 16000 and v.HOP == 200


@pytest.mark.parametrize("n", [1, 199, 200, 201, 3999, 4000, 16000, 16123])
def test_frame_count_formula(n):
    x = (0.1 * np.random.default_rng(n).standard_normal(n)).astype(np.float32)
    feats = v.analyze(x, SR)
    assert v.num_frames(n) == n // v.HOP + 1
    assert feats.shape == (n // v.HOP + 1, v.FEATURE_DIM)
    assert feats.dtype == np.float32
    assert np.all(np.isfinite(feats))


def test_num_frames_rejects_negative():
    with pytest.raises(ValueError, match="n_samples"):
        v.num_frames(-1)


@pytest.mark.parametrize("f0", [110.0, 220.0, 330.0])
def test_analysis_of_tone_finds_its_f0(f0):
    t = np.arange(SR) / SR
    feats = v.analyze((0.5 * np.sin(2 * np.pi * f0 * t)).astype(np.float64), SR)
    inner = feats[5:-5]
    assert inner[:, v.VUV].mean() > 0.95
    est = np.exp(np.median(inner[:, v.LF0]))
    assert abs(est - f0) / f0 < 0.02, est
    # A pure tone is periodic: little aperiodicity in the band that holds it.
    band = np.searchsorted(v.AP_BAND_EDGES_HZ, f0) - 1
    assert np.median(inner[:, v.AP][:, band]) < 0.2


def test_noise_is_unvoiced_and_log_f0_is_smooth_through_unvoiced_frames():
    rng = np.random.default_rng(1)
    t = np.arange(SR) / SR
    x = 0.4 * np.sin(2 * np.pi * 200.0 * t)
    x[SR // 3 : 2 * SR // 3] = 0.1 * rng.standard_normal(SR // 3)  # noise in the middle third
    feats = v.analyze(x, SR)
    mid = feats[v.num_frames(SR // 3) + 4 : v.num_frames(2 * SR // 3) - 4]
    assert mid[:, v.VUV].mean() < 0.2
    assert np.all(np.isfinite(feats[:, v.LF0]))
    # Interpolated through the gap: no sentinel jumps, stays near log(200).
    assert np.max(np.abs(np.diff(feats[:, v.LF0].ravel()))) < 0.2
    assert np.all(np.abs(mid[:, v.LF0] - math.log(200.0)) < 0.1)
    # Aperiodicity is a fraction.
    assert feats[:, v.AP].min() >= 0.0 and feats[:, v.AP].max() <= 1.0


def test_analysis_resamples_other_rates():
    t = np.arange(22050) / 22050
    feats = v.analyze((0.5 * np.sin(2 * np.pi * 200.0 * t)).astype(np.float32), 22050)
    assert feats.shape == (v.num_frames(SR), v.FEATURE_DIM)
    assert abs(np.exp(np.median(feats[5:-5, v.LF0])) - 200.0) < 4.0


@pytest.mark.parametrize(
    "wave, sr, match",
    [
        (np.zeros((2, 100), np.float32), SR, "1-D"),
        (np.zeros(0, np.float32), SR, "empty"),
        (np.array([0.0, np.nan] * 200, np.float32), SR, "NaN"),
        (np.zeros(400, np.int16), SR, "dtype"),
        ([0.0] * 400, SR, "numpy array"),
        (np.zeros(400, np.float32), 0, "sample rate"),
        (np.zeros(400, np.float32), 16000.0, "sample rate"),
    ],
)
def test_analyze_rejects_bad_input(wave, sr, match):
    with pytest.raises(ValueError, match=match):
        v.analyze(wave, sr)


def _run_chunks(synth, feats, sizes):
    state = synth.init_state(feats.shape[0])
    out, pos, i = [], 0, 0
    while pos < feats.shape[1]:
        n = sizes[i % len(sizes)]
        audio, state = synth(feats[:, pos : pos + n], state)
        assert audio.shape == (feats.shape[0], min(n, feats.shape[1] - pos) * v.HOP)
        out.append(audio)
        pos += n
        i += 1
    return torch.cat(out, dim=1), state


def test_chunked_synthesis_equals_one_shot(synth):
    feats = torch.from_numpy(np.stack([v.analyze(_voiced_signal(0.6, s), SR) for s in (0, 1)]))
    one, one_state = synth(feats, synth.init_state(2))
    assert one.dtype == torch.float32 and one.shape == (2, feats.shape[1] * v.HOP)
    for sizes in ([1], [3], [7], [20], [1, 3, 7, 20]):
        chunked, state = _run_chunks(synth, feats, sizes)
        assert torch.allclose(chunked, one, atol=2e-5), (sizes, float((chunked - one).abs().max()))
        for key in one_state:
            assert torch.allclose(state[key].double(), one_state[key].double(), atol=1e-6), key


def test_no_clicks_at_chunk_borders(synth):
    # A steady vowel chunked one frame at a time: sample-to-sample steps at borders look like the rest.
    feats = torch.from_numpy(v.analyze(_voiced_signal(0.5), SR))[None]
    feats[..., v.AP] = 0.0  # harmonic part only, so steps are not hidden in noise
    audio, _ = _run_chunks(synth, feats, [1])
    steps = (audio[0, 1:] - audio[0, :-1]).abs()
    border = steps[v.HOP - 1 :: v.HOP][5:-5]
    assert float(border.max()) <= 1.5 * float(steps[5 * v.HOP : -5 * v.HOP].max())


def test_state_is_batch_first_and_gatherable(synth):
    feats = torch.from_numpy(np.stack([v.analyze(_voiced_signal(0.3, s), SR) for s in range(3)]))
    state = synth.init_state(3)
    for key, val in state.items():
        assert isinstance(val, torch.Tensor) and val.shape[0] == 3, key
    first, state = synth(feats[:, :10], state)
    # Advance only stream 1 through a gathered sub-state, then scatter it back.
    sub = {k: t[[1]] for k, t in state.items()}
    audio_1, sub = synth(feats[[1], 10:], sub)
    full, _ = synth(feats[:, 10:], state)
    assert torch.allclose(audio_1[0], full[1], atol=2e-5)


def test_rms_calibration_within_2_db(synth):
    for sig in (
        _voiced_signal(1.0),
        (0.05 * np.random.default_rng(3).standard_normal(SR)).astype(np.float32),
    ):
        feats = torch.from_numpy(v.analyze(sig, SR))[None]
        audio, _ = synth(feats, synth.init_state(1))
        out = audio[0, v.HOP : v.HOP + len(sig)].numpy()  # output lags the input by one hop
        db = 20 * math.log10(_rms(out) / _rms(sig))
        assert abs(db) < 2.0, db


def test_synthesized_tone_has_the_requested_f0(synth):
    feats = torch.from_numpy(np.tile(v.silence_frame(), (80, 1)))[None]
    feats[..., v.LF0] = math.log(250.0)
    feats[..., v.VUV] = 1.0
    feats[..., v.ENV] = -6.0
    feats[..., v.AP] = 0.0
    audio, _ = synth(feats, synth.init_state(1))
    sig = audio[0, 4000:].numpy()  # 12000 samples: 0.75 s, bins every 1.333 Hz, 250 Hz is bin 187.5
    spec = np.abs(np.fft.rfft(sig * np.hanning(len(sig))))
    hz = np.fft.rfftfreq(len(sig), 1 / SR)

    def level(f):
        return spec[np.abs(hz - f) < 3.0].max()

    # Flat envelope: equal harmonics at multiples of 250 Hz, nothing in between.
    assert level(250.0) > 0.5 * spec.max() and level(500.0) > 0.5 * spec.max()
    assert level(125.0) < 1e-3 * spec.max() and level(375.0) < 1e-3 * spec.max()
    # Nothing above the harmonic fade-out besides noise-free leakage.
    hi = spec[int(7950 * 2 * (len(spec) - 1) / SR) :]
    assert hi.max() < 1e-3 * spec.max()


def test_silence_in_silence_out(synth):
    feats = torch.from_numpy(np.tile(v.silence_frame(), (20, 1)))[None]
    audio, _ = synth(feats, synth.init_state(1))
    assert float(audio.abs().max()) < 1e-3


@pytest.mark.parametrize(
    "feats, match",
    [
        (torch.zeros(1, 5, v.FEATURE_DIM - 1), "shape"),
        (torch.zeros(5, v.FEATURE_DIM), "shape"),
        (torch.zeros(1, 0, v.FEATURE_DIM), "empty"),
        (torch.zeros(1, 5, v.FEATURE_DIM, dtype=torch.float64), "float32"),
        (torch.full((1, 5, v.FEATURE_DIM), float("nan")), "NaN"),
        (np.zeros((1, 5, v.FEATURE_DIM), np.float32), "torch.Tensor"),
    ],
)
def test_synth_rejects_bad_features(synth, feats, match):
    with pytest.raises(ValueError, match=match):
        synth(feats, synth.init_state(1))


def test_synth_rejects_mismatched_state(synth):
    feats = torch.zeros(2, 5, v.FEATURE_DIM)
    with pytest.raises(ValueError, match="state"):
        synth(feats, synth.init_state(3))
    with pytest.raises(ValueError, match="keys"):
        synth(feats, {"prev": torch.zeros(2, v.FEATURE_DIM)})
    with pytest.raises(ValueError, match="batch"):
        synth.init_state(0)


def test_wild_predictions_stay_finite(synth):
    feats = torch.randn(2, 12, v.FEATURE_DIM) * 50.0
    audio, state = synth(feats, synth.init_state(2))
    assert bool(torch.isfinite(audio).all())
    assert all(bool(torch.isfinite(t.double()).all()) for t in state.values())


def test_fixed_shape_synthesis_matches_the_adaptive_one_in_bounded_blocks(monkeypatch):
    """The graph-capturable path (all n_harm harmonics, no host sync) gives the same audio, also when the sine
    block is split into many row blocks."""
    synth = v.HarmonicNoiseSynth()
    gen = torch.Generator().manual_seed(3)
    feats = torch.stack([torch.tensor(v.silence_frame())] * 6).repeat(3, 1, 1)  # [3, 6, F]
    feats[..., v.LF0] = torch.log(torch.tensor([[110.0], [180.0], [240.0]])).unsqueeze(1).expand(3, 6, 1)
    feats[..., v.VUV] = 1.0
    feats[..., v.ENV] += torch.randn(3, 6, v.N_ENV, generator=gen) * 0.5
    adaptive, s1 = synth(feats, synth.init_state(3))
    monkeypatch.setitem(v.SINE_BUDGET, "cpu", v.HOP * synth.n_harm * 4)  # 4 rows per block
    fixed, s2 = synth(feats, synth.init_state(3), fixed_shape=True)
    assert fixed.shape == adaptive.shape
    assert float((fixed - adaptive).abs().max()) < 1e-4 * max(1.0, float(adaptive.abs().max()))
    assert torch.equal(s1["frame_index"], s2["frame_index"])


def test_adaptive_rows_match_the_full_bank_with_pauses_and_mixed_f0():
    """The CPU path makes each row with only the harmonics it can sound and skips rows unvoiced at both
    ends; with pauses, F0 ramps and one stream near F0_FLOOR in the batch the audio equals the full bank's."""
    synth = v.HarmonicNoiseSynth()
    gen = torch.Generator().manual_seed(5)
    feats = torch.from_numpy(np.tile(v.silence_frame(), (4, 12, 1)))
    f0 = torch.tensor([[62.0, 70.0], [110.0, 95.0], [240.0, 300.0], [180.0, 420.0]])
    ramp = torch.linspace(0.0, 1.0, 12)
    feats[..., v.LF0] = torch.log(f0[:, :1] + (f0[:, 1:] - f0[:, :1]) * ramp).unsqueeze(-1)
    vuv = torch.ones(4, 12)
    vuv[0, 4:7] = 0.0  # a pause inside the low voice
    vuv[2, :3] = 0.0  # an unvoiced onset
    vuv[3] = 0.0  # a stream in a pause
    feats[..., v.VUV] = vuv.unsqueeze(-1)
    feats[..., v.ENV] = -6.0 + torch.randn(4, 12, v.N_ENV, generator=gen)
    feats[..., v.AP] = torch.rand(4, 12, v.N_AP, generator=gen) * 0.5
    adaptive, _ = synth(feats, synth.init_state(4))
    full, _ = synth(feats, synth.init_state(4), fixed_shape=True)
    assert float(adaptive[0].abs().max()) > 1e-3  # the low voice sounds (its rows were not skipped)
    assert float((full - adaptive).abs().max()) < 1e-4 * max(1.0, float(full.abs().max()))


@pytest.mark.parametrize("n_harm", [1, 7, 8, 13, 132, 198])
def test_harmonic_bank_equals_the_sum_of_sines_in_float64(n_harm):
    """The blocked phasor sum equals sum_k c_k cos(k phase) - s_k sin(k phase) computed directly in float64,
    for harmonic counts below, at and between blocks, up to the 24 kHz maximum."""
    synth = v.HarmonicNoiseSynth(sample_rate=24000)
    gen = torch.Generator().manual_seed(n_harm)
    phase = torch.rand(3, synth.hop, generator=gen) * 2 * math.pi
    coef_cos, coef_sin = torch.randn(2, 3, 2, n_harm, generator=gen)
    out = synth._harmonic_bank(phase, coef_cos, coef_sin)
    angles = phase.double().unsqueeze(1) * torch.arange(1, n_harm + 1, dtype=torch.float64)[:, None]
    ref = coef_cos.double() @ torch.cos(angles) - coef_sin.double() @ torch.sin(angles)
    assert out.shape == (3, 2, synth.hop)
    scale = float(coef_cos.abs().sum(-1).max() + coef_sin.abs().sum(-1).max())
    assert float((out.double() - ref).abs().max()) < 1e-5 * scale


# --- rates, phase, post-filter, graph capture --------------------------------------------------------------


def _steady_voiced(frames=40, f0=180.0, env=None):
    feats = torch.from_numpy(np.tile(v.silence_frame(), (frames, 1)))[None]
    feats[..., v.LF0] = math.log(f0)
    feats[..., v.VUV] = 1.0
    feats[..., v.ENV] = -6.0 if env is None else torch.as_tensor(env, dtype=torch.float32)
    feats[..., v.AP] = 0.0
    return feats


@pytest.mark.parametrize("rate", v.OUTPUT_RATES)
def test_chunked_synthesis_equals_one_shot_at_every_rate(rate):
    synth = v.HarmonicNoiseSynth(sample_rate=rate, postfilter=0.4)
    hop = synth.hop
    assert hop == rate * v.HOP // v.SAMPLE_RATE  # 12.5 ms at any rate
    feats = torch.from_numpy(np.stack([v.analyze(_voiced_signal(0.5, s), SR) for s in (0, 1)]))
    one, _ = synth(feats, synth.init_state(2))
    assert one.shape == (2, feats.shape[1] * hop)
    state, parts, pos = synth.init_state(2), [], 0
    for n in (1, 3, 7, 20) * 10:
        if pos >= feats.shape[1]:
            break
        audio, state = synth(feats[:, pos : pos + n], state, fixed_shape=True)
        parts.append(audio)
        pos += n
    chunked = torch.cat(parts, dim=1)
    assert float((chunked - one).abs().max()) < 5e-5


def test_24khz_output_carries_harmonics_above_8khz_and_none_past_the_fade():
    synth = v.HarmonicNoiseSynth(sample_rate=24000)
    audio, _ = synth(_steady_voiced(80, 250.0), synth.init_state(1))
    sig = audio[0, 6000:].numpy()
    spec = np.abs(np.fft.rfft(sig * np.hanning(len(sig))))
    hz = np.fft.rfftfreq(len(sig), 1 / 24000)

    def level(f):
        return spec[np.abs(hz - f) < 3.0].max()

    assert level(250.0) > 0.5 * spec.max()
    # Above 7 kHz the envelope continues the 7 kHz level falling 6 dB per octave.
    expected = 10 ** (v.EXTEND_DB_PER_OCTAVE * math.log2(10000.0 / v.EXTEND_FROM_HZ) / 20)
    assert level(10000.0) == pytest.approx(expected * level(6000.0), rel=0.25)
    assert level(375.0) < 1e-3 * spec.max()
    assert spec[hz > synth.fade_hz[1] + 50].max() < 1e-3 * spec.max()


def test_output_rate_is_validated():
    with pytest.raises(ValueError, match="sample_rate"):
        v.HarmonicNoiseSynth(sample_rate=22050)
    with pytest.raises(ValueError, match="phase"):
        v.HarmonicNoiseSynth(phase="random")


def test_harmonic_phases_are_the_minimum_phase_of_the_envelope():
    # One-pole resonance H(w) = 1 / (1 - r e^{-iw}): minimum phase, with phase -atan2(r sin w, 1 - r cos w).
    synth = v.HarmonicNoiseSynth()
    r = 0.6
    w_env = 2 * np.pi * v.ENV_CENTERS_HZ / v.SAMPLE_RATE
    log_power = -np.log(1 + r * r - 2 * r * np.cos(w_env))
    feats = _steady_voiced(2, 200.0, log_power)
    f0, vuv = torch.full((1, 2), 200.0), torch.ones(1, 2)
    amp, theta = synth._harmonic_params(f0, vuv, feats[..., v.ENV], feats[..., v.AP], 38)
    w = 2 * np.pi * 200.0 * np.arange(1, 39) / v.SAMPLE_RATE
    expected = -np.arctan2(r * np.sin(w), 1 - r * np.cos(w))
    below_6k = slice(0, 30)  # above 7 kHz the synth continues the 7 kHz level instead (EXTEND_FROM_HZ)
    assert np.abs(theta[0, 0].numpy() - expected)[below_6k].max() < 0.03
    sine = v.HarmonicNoiseSynth(phase="sine")
    _, theta_sine = sine._harmonic_params(f0, vuv, feats[..., v.ENV], feats[..., v.AP], 38)
    assert np.abs(theta_sine[0, 0].numpy() - expected).max() > 0.5


def test_postfilter_deepens_valleys_and_keeps_the_power():
    env = torch.tensor(-6.0 + 3.0 * np.cos(np.linspace(0, 6 * np.pi, v.N_ENV)), dtype=torch.float32)[None]
    plain = v.HarmonicNoiseSynth(postfilter=0.0)._log_envelope(env)
    pf = v.HarmonicNoiseSynth(postfilter=0.5)
    filtered = pf._log_envelope(env)
    assert float(filtered.max() - filtered.min()) > 1.3 * float(plain.max() - plain.min())
    power = [float(torch.logsumexp(e @ pf.env_to_noise, dim=-1)) for e in (plain, filtered)]
    assert power[0] == pytest.approx(power[1], abs=1e-4)


def test_postfilter_leaves_quefrencies_from_its_order_up_alone():
    n = np.arange(v.N_ENV)
    dct, inverse = v._dct_pair()
    for order in (v.POSTFILTER_ORDER, 24, v.N_ENV):
        lifter = (inverse * v.lifter_gains(0.5, order)) @ dct  # row @ lifter: the post-filter on a row
        for k, gain in ((1, 1.0), (6, 1.5), (order - 1, 1.5), (order, 1.0)):
            if k < v.N_ENV:
                ripple = np.cos(np.pi * k * (n + 0.5) / v.N_ENV)  # one DCT-II basis vector
                assert ripple @ lifter == pytest.approx(gain * ripple, abs=1e-9)


@pytest.mark.parametrize(
    "strength, order",
    [(-0.1, 12), (2.5, 12), (float("nan"), 12), (True, 12), (0.3, 1), (0.3, 49), (0.3, 12.0)],
)
def test_lifter_gains_reject_bad_settings(strength, order):
    with pytest.raises(ValueError, match="post-filter (strength|order)"):
        v.lifter_gains(strength, order)


def test_each_stream_keeps_its_own_postfilter():
    """Per-stream lifter rows: a batch of two streams with different post-filters gives each stream the audio
    of a synthesizer built with its setting, and the setting survives chunking."""
    feats = _steady_voiced(30, 180.0).expand(2, -1, -1).clone()
    feats[:, :, v.ENV] += torch.tensor(np.cos(np.linspace(0, 5 * np.pi, v.N_ENV)), dtype=torch.float32)
    mild, strong = (
        v.HarmonicNoiseSynth(postfilter=0.2),
        v.HarmonicNoiseSynth(postfilter=0.8, postfilter_order=48),
    )
    rows = np.stack([v.lifter_gains(0.2), v.lifter_gains(0.8, 48)])
    state = mild.init_state(2, lifter=rows)
    parts = []
    for s in range(0, 30, 7):
        audio, state = mild(feats[:, s : s + 7], state)
        parts.append(audio)
    mixed = torch.cat(parts, dim=1)
    expected = [synth(feats[i : i + 1], synth.init_state(1))[0][0] for i, synth in enumerate((mild, strong))]
    for i in range(2):
        assert torch.allclose(mixed[i], expected[i], atol=1e-5)
    assert float((expected[0] - expected[1]).abs().max()) > 1e-2  # the settings do differ


def test_each_stream_keeps_its_own_aperiodicity_factor():
    """A per-stream factor on the aperiodicity: the noisy voiced frames of a stream with factor 0 lose their
    noise (a steady harmonic spectrum), a factor of 1 is the features as they are, and a mixed batch gives
    each stream its own audio through any chunking."""
    feats = _steady_voiced(40, 150.0).expand(2, -1, -1).clone()
    feats[:, :, v.AP] = 0.6  # breathy: much of each voiced band is noise
    synth = v.HarmonicNoiseSynth()
    state = synth.init_state(2, ap_scale=torch.tensor([1.0, 0.0]))
    parts = []
    for s in range(0, 40, 9):
        audio, state = synth(feats[:, s : s + 9], state)
        parts.append(audio)
    mixed = torch.cat(parts, dim=1)
    as_is = synth(feats[:1], synth.init_state(1))[0][0]
    clean = feats[:1].clone()
    clean[:, :, v.AP] = 0.0
    no_noise = synth(clean, synth.init_state(1))[0][0]
    torch.testing.assert_close(mixed[0], as_is, atol=1e-5, rtol=0)
    torch.testing.assert_close(mixed[1], no_noise, atol=1e-5, rtol=0)
    assert float((as_is - no_noise).abs().max()) > 1e-2  # the factor does change the audio


def test_each_stream_keeps_its_own_voicing_exponent():
    """A per-stream exponent on the voicing odds: a hesitant voicing probability (0.3) moves to p^k / (p^k +
    (1 - p)^k), a decided one (0 or 1, as analysed teacher audio has) stays, and a mixed batch gives each
    stream its own audio through any chunking."""
    feats = _steady_voiced(40, 150.0).expand(3, -1, -1).clone()
    feats[:2, :, v.VUV] = 0.3
    synth = v.HarmonicNoiseSynth()
    state = synth.init_state(3, voicing=torch.tensor([1.0, 3.0, 3.0]))
    parts = []
    for s in range(0, 40, 11):
        audio, state = synth(feats[:, s : s + 11], state)
        parts.append(audio)
    mixed = torch.cat(parts, dim=1)
    decided = feats[:1].clone()
    decided[:, :, v.VUV] = 0.3**3 / (0.3**3 + 0.7**3)
    alone = [synth(f, synth.init_state(1))[0][0] for f in (feats[:1], decided, feats[2:])]
    for row in range(3):
        torch.testing.assert_close(mixed[row], alone[row], atol=1e-5, rtol=0)
    assert float((alone[0] - alone[1]).abs().max()) > 1e-2  # the exponent does change hesitant voicing


@pytest.mark.parametrize("bad", [0.1, v.VOICING_MAX + 1, float("inf"), [1.0, 1.0, 1.0]])
def test_init_state_rejects_a_bad_voicing_exponent(bad):
    with pytest.raises(ValueError, match="voicing must be an exponent in"):
        v.HarmonicNoiseSynth().init_state(2, voicing=bad)


@pytest.mark.parametrize("bad", [-0.1, v.AP_SCALE_MAX + 0.5, float("nan"), [1.0, 1.0, 1.0]])
def test_init_state_rejects_a_bad_aperiodicity_factor(bad):
    with pytest.raises(ValueError, match="ap_scale must be a factor in"):
        v.HarmonicNoiseSynth().init_state(2, ap_scale=bad)


def test_init_state_rejects_a_bad_lifter():
    synth = v.HarmonicNoiseSynth()
    for bad in (np.ones(v.N_ENV - 1), np.ones((3, v.N_ENV)), np.full(v.N_ENV, np.nan)):
        with pytest.raises(ValueError, match="lifter must be"):
            synth.init_state(2, lifter=bad)


@pytest.mark.parametrize("rate", v.OUTPUT_RATES)
def test_fixed_shape_path_has_no_host_sync_and_value_independent_shapes(rate):
    """What a CUDA graph needs: the same ops with the same shapes whatever the values (F0, voicing, envelope),
    and no op that reads a value back to the host."""
    synth = v.HarmonicNoiseSynth(sample_rate=rate, postfilter=0.4)
    low, high = _steady_voiced(8, 61.0), _steady_voiced(8, 900.0)
    high[..., v.VUV] = 0.0
    high[..., v.ENV] += torch.randn(1, 8, v.N_ENV)
    traces = []
    for feats in (low, high):
        state = synth.init_state(1)
        with torch.inference_mode(), OpRecorder() as rec:
            audio, state = synth(feats, state, fixed_shape=True)
        assert audio.shape == (1, 8 * synth.hop)
        traces.append(rec.ops)
    assert traces[0] == traces[1]
    assert not host_syncs(traces[0]), host_syncs(traces[0])


def test_synthesis_speed_benchmark():
    """Prints one stream's real-time factor on one thread in 32-frame chunks (compute s / audio s)."""
    feats = torch.from_numpy(v.analyze(_voiced_signal(2.0), SR))[None]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for rate in v.OUTPUT_RATES:
            synth = v.HarmonicNoiseSynth(sample_rate=rate)
            for fixed in (False, True):
                with torch.inference_mode():  # warm-up: first-call allocations are not steady state
                    synth(feats[:, :32], synth.init_state(1), fixed_shape=fixed)
                state, t0 = synth.init_state(1), time.process_time()
                with torch.inference_mode():
                    for s in range(0, feats.shape[1], 32):
                        _, state = synth(feats[:, s : s + 32], state, fixed_shape=fixed)
                rtf = (time.process_time() - t0) / (feats.shape[1] * v.HOP / v.SAMPLE_RATE)
                print(f"vocoder {rate} Hz fixed_shape={fixed}: RTF {rtf:.4f} ({1 / rtf:.0f}x real time)")
    finally:
        torch.set_num_threads(threads)


PROBE = Path(__file__).parent / "golden" / "vocoder_probe.npz"
PROBE_TOLERANCE = 1e-4  # float32 rounding across hosts and refactors is ~1e-6; anything audible is far above


def _probe_audio() -> dict[str, np.ndarray]:
    """What the vocoder makes of a fixed input: the analysis of a synthetic vowel, synthesized at 16 kHz with the
    default settings and with every voice setting changed (a sharper lifter, less aperiodicity, a decided
    voicing of frames made hesitant), and at 24 kHz."""
    feats = torch.from_numpy(v.analyze(_voiced_signal(0.3, seed=7), SR))[None]
    hesitant = feats.clone()
    hesitant[..., v.VUV] *= 0.8
    synth = v.HarmonicNoiseSynth()
    state = synth.init_state(2, lifter=torch.tensor(np.stack([v.lifter_gains(), v.lifter_gains(0.5, 48)])),
                             ap_scale=torch.tensor([1.0, 0.3]), voicing=torch.tensor([1.0, 2.0]))  # fmt: skip
    with torch.inference_mode():
        at_16k, _ = synth(torch.cat([feats, hesitant]), state)
        wide = v.HarmonicNoiseSynth(sample_rate=24000)
        at_24k, _ = wide(feats, wide.init_state(1))
    return {"16000": at_16k.numpy(), "24000": at_24k.numpy()}


def test_the_vocoder_version_names_its_output():
    """Scores of the vocoder kept across runs are keyed on VOCODER_VERSION: the same version must mean the same
    audio, so a change to the output fails here until the version is raised and the probe rewritten
    (`python tests/test_vocoder.py --write-probe`)."""
    golden = np.load(PROBE)
    assert int(golden["version"]) == v.VOCODER_VERSION, (
        f"the probe was written for VOCODER_VERSION {int(golden['version'])}: rewrite it "
        "(python tests/test_vocoder.py --write-probe)"
    )
    for rate, audio in _probe_audio().items():
        assert audio.shape == golden[rate].shape and float(np.abs(audio).max()) > 0.05, rate
        worst = float(np.abs(audio - golden[rate]).max())
        assert worst <= PROBE_TOLERANCE, (
            f"the vocoder's {rate} Hz output moved by {worst:.2e} at VOCODER_VERSION {v.VOCODER_VERSION}: "
            "raise the version and rewrite the probe (python tests/test_vocoder.py --write-probe)"
        )


def _write_probe() -> None:
    """Rewrites the probe; refuses when the output moved but VOCODER_VERSION did not."""
    audio = _probe_audio()
    if PROBE.is_file():
        golden = np.load(PROBE)
        moved = any(float(np.abs(audio[r] - golden[r]).max()) > PROBE_TOLERANCE for r in audio)
        if moved and int(golden["version"]) == v.VOCODER_VERSION:
            raise SystemExit(f"the output moved: raise VOCODER_VERSION (now {v.VOCODER_VERSION}) first")
    PROBE.parent.mkdir(exist_ok=True)
    np.savez_compressed(PROBE, version=np.int64(v.VOCODER_VERSION), **audio)
    print(f"wrote {PROBE} for VOCODER_VERSION {v.VOCODER_VERSION}")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--write-probe"]:
        raise SystemExit("usage: python tests/test_vocoder.py --write-probe")
    _write_probe()
