"""The learned streaming vocoder (model_server/neural_vocoder.py) and its training (model_server/train_vocoder.py).

The network is small and random here: what is tested is what serving and training rely on whatever the weights
(streaming equals one call, exact reconstruction from the teacher's frames, shapes a CUDA graph can hold, files,
bad input), and that training on real teacher data (hibari-tts renders) lowers the loss.
"""

import json
import math

import numpy as np
import pytest
import torch

from model_server import neural_vocoder as nv
from model_server import train_vocoder as tv
from model_server import vocoder
from tests.support.dispatch import OpRecorder, host_syncs

SMALL = nv.NeuralVocoderConfig(channels=32, layers=2, kernel=3, mlp_ratio=2)


def _features(frames: int, seed: int = 0, f0: float = 140.0) -> torch.Tensor:
    """Plausible features: F0 around ``f0``, voiced with a pause, envelope falling with frequency."""
    g = torch.Generator().manual_seed(seed)
    feats = torch.zeros(1, frames, vocoder.FEATURE_DIM)
    feats[..., vocoder.LF0] = math.log(f0) + 0.1 * torch.randn(1, frames, 1, generator=g)
    feats[..., vocoder.VUV] = 1.0
    feats[:, frames // 3 : frames // 3 + 4, vocoder.VUV] = 0.0
    feats[..., vocoder.ENV] = -torch.linspace(2, 12, vocoder.N_ENV) + torch.randn(
        1, frames, vocoder.N_ENV, generator=g
    )
    feats[..., vocoder.AP] = torch.rand(1, frames, vocoder.N_AP, generator=g)
    return feats


def _model(config=SMALL, seed=0) -> nv.NeuralVocoder:
    torch.manual_seed(seed)
    model = nv.NeuralVocoder(config).eval()
    with torch.no_grad():  # a random head whose magnitudes are audible, not near zero
        model.head.bias[: config.bins].fill_(-2.0)
    return model


@pytest.mark.parametrize("chunk", [1, 3, 7, 20])
def test_any_chunking_gives_the_audio_of_one_call(chunk):
    model, feats = _model(), _features(41)
    with torch.no_grad():
        whole, _ = model(feats, model.init_state(1))
        state, parts = model.init_state(1), []
        for s in range(0, feats.shape[1], chunk):
            audio, state = model(feats[:, s : s + chunk], state)
            parts.append(audio)
    assert whole.shape == (1, 41 * model.hop)
    assert whole.abs().max() > 1e-3  # not trivially equal silence
    torch.testing.assert_close(torch.cat(parts, dim=1), whole, rtol=0, atol=1e-5)


def test_streams_in_one_batch_do_not_mix():
    model = _model()
    a, b = _features(30, seed=1), _features(30, seed=2, f0=220.0)
    with torch.no_grad():
        both, _ = model(torch.cat([a, b]), model.init_state(2))
        alone, _ = model(b, model.init_state(1))
    torch.testing.assert_close(both[1:], alone, rtol=0, atol=1e-5)


def test_the_teachers_frames_overlap_add_to_the_teachers_audio():
    """Square-root Hann analysis and synthesis at 50 % overlap: a head that gave the teacher's frames exactly
    would give the teacher's audio (delayed one hop) exactly, so the frame losses aim at the audio itself."""
    model = _model()
    hop, frames = model.hop, 25
    teacher = torch.randn(2, frames * hop - 37, generator=torch.Generator().manual_seed(3))
    delayed = nv.delayed(teacher, frames, hop)
    target = nv.target_frames(delayed, model.window)
    assert target.shape == (2, frames, model.config.bins)
    audio, _ = nv.overlap_add(
        model.grains(torch.log(target.abs()), torch.angle(target)), model.init_state(2)["tail"]
    )
    torch.testing.assert_close(audio, delayed[:, : frames * hop], rtol=0, atol=1e-5)
    torch.testing.assert_close(audio[:, hop:], teacher[:, : (frames - 1) * hop], rtol=0, atol=1e-5)


def test_the_reference_phase_turns_each_bin_at_its_harmonic_of_f0():
    """A steady vowel: bin k follows the harmonic of F0 nearest it, so its reference phase advances by
    h * 2 pi * F0 * hop / rate per frame (the network's relative phase can then stay constant)."""
    model = _model()
    feats = _features(12, f0=150.0)
    feats[..., vocoder.LF0] = math.log(150.0)
    state = model.init_state(1)
    ref, _, _ = model.reference_phase(feats, state["f0_phase"], state["f0"])
    for k, h in ((8, 2), (38, 10)):  # 320 Hz and 1,520 Hz (40 Hz bins): the 2nd and 10th harmonic of 150 Hz
        advance = torch.remainder(ref[0, 2:, k] - ref[0, 1:-1, k], 2 * math.pi)
        expected = (h * 2 * math.pi * 150.0 * model.hop / model.sample_rate) % (2 * math.pi)
        torch.testing.assert_close(advance, torch.full_like(advance, expected), rtol=0, atol=1e-4)


def test_the_frame_losses_are_zero_only_at_the_teachers_frames():
    target = torch.polar(torch.rand(2, 6, 11) + 0.1, torch.rand(2, 6, 11) * 6 - 3)
    exact = tv.spectral_losses(torch.log(target.abs()), torch.angle(target) + 2 * math.pi, target)
    assert all(float(v) < 1e-5 for v in exact.values()), exact  # a phase off by 2 pi is the same phase
    off = tv.spectral_losses(torch.log(target.abs()), torch.angle(target) + 0.5, target)
    assert off["phase"] > 0.4 and off["complex"] > 0.05 and off["log_mag"] < 1e-5
    assert off["group_delay"] < 1e-4 and off["inst_freq"] < 1e-4  # a constant offset keeps the derivatives


def test_fixed_shape_step_has_no_host_sync_and_value_independent_ops():
    """What a CUDA graph needs: the same ops with the same shapes whatever the features, and no read-back."""
    model = _model()
    low, high = _features(8, seed=4, f0=61.0), _features(8, seed=5, f0=900.0)
    high[..., vocoder.ENV] = 30.0  # beyond the input clamp and the magnitude clamp
    traces = []
    for feats in (low, high):
        with torch.inference_mode(), OpRecorder() as rec:
            audio, _ = model(feats, model.init_state(1), fixed_shape=True)
        assert audio.shape == (1, 8 * model.hop) and bool(torch.isfinite(audio).all())
        traces.append(rec.ops)
    assert traces[0] == traces[1]
    assert not host_syncs(traces[0]), host_syncs(traces[0])


def test_state_is_fixed_per_stream():
    model = nv.NeuralVocoder()
    c = model.config
    assert nv.state_bytes(model) == 4 * (c.layers * c.channels * (c.kernel - 1) + c.hop + 1) + 8
    for frames in (1, 200):
        _, state = model(_features(frames), model.init_state(1))
        assert {k: tuple(t.shape) for k, t in state.items()} == {
            k: tuple(t.shape) for k, t in model.init_state(1).items()
        }


def test_bad_input_is_refused_with_a_message_that_names_it():
    model = _model()
    with pytest.raises(ValueError, match=r"features must be \[batch, frames, 57\]"):
        model(torch.zeros(1, 4, 56), model.init_state(1))
    with pytest.raises(ValueError, match="features must be floating point"):
        model(torch.zeros(1, 4, vocoder.FEATURE_DIM, dtype=torch.int64), model.init_state(1))
    with pytest.raises(ValueError, match=r"state\['tail'\] must be"):
        model(_features(4), {**model.init_state(1), "tail": torch.zeros(1, 3)})
    with pytest.raises(ValueError, match="batch must be a positive int"):
        model.init_state(0)
    with pytest.raises(ValueError, match="kernel must be an int >= 2"):
        nv.NeuralVocoderConfig(kernel=1)
    with pytest.raises(ValueError, match="sample_rate must be one of"):
        nv.NeuralVocoderConfig(sample_rate=22050)


def test_save_and_load_give_the_same_audio(tmp_path):
    model = _model()
    model.set_normalization(
        torch.arange(vocoder.FEATURE_DIM, dtype=torch.float32), torch.full((vocoder.FEATURE_DIM,), 2.0)
    )
    model.save(tmp_path, extra={"trained": {"steps": 3}})
    loaded = nv.NeuralVocoder.load(tmp_path)
    feats = _features(12)
    with torch.no_grad():
        torch.testing.assert_close(
            loaded(feats, loaded.init_state(1))[0], model(feats, model.init_state(1))[0]
        )
    assert json.loads((tmp_path / nv.CONFIG_FILE).read_text())["trained"] == {"steps": 3}


def test_loading_names_the_file_that_is_missing_or_does_not_match(tmp_path):
    with pytest.raises(FileNotFoundError, match="no neural vocoder here"):
        nv.NeuralVocoder.load(tmp_path)
    _model().save(tmp_path)
    info = json.loads((tmp_path / nv.CONFIG_FILE).read_text())
    info["config"]["channels"] = 48
    (tmp_path / nv.CONFIG_FILE).write_text(json.dumps(info))
    with pytest.raises(ValueError, match="does not match"):
        nv.NeuralVocoder.load(tmp_path)
    info["config"]["colour"] = "blue"
    (tmp_path / nv.CONFIG_FILE).write_text(json.dumps(info))
    with pytest.raises(ValueError, match=r"unknown neural vocoder config keys \['colour'\]"):
        nv.NeuralVocoder.load(tmp_path)


# --- training on real teacher audio -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def heart_data(tmp_path_factory):
    """Six sentences of the hibari-tts teacher of en_female_heart, rendered and analysed by the data step."""
    pytest.importorskip("hibari")
    out = tmp_path_factory.mktemp("vocdata")
    assert tv.main(["data", "--voices", "en_female_heart", "--sentences", "6", "--shard", "3", "--out", str(out),
                    "--workers", "1"]) == 0  # fmt: skip
    return out


def test_the_data_step_keeps_24_khz_audio_beside_its_features_and_resumes(heart_data, capsys):
    data = tv.VocoderData(heart_data)
    assert len(data.audio) == 6
    for audio, feats in zip(data.audio, data.feats, strict=True):
        assert audio.dtype == np.int16 and np.abs(audio).max() > 1000
        # the analysis frames span the audio: one per 12.5 ms hop, including t = 0
        assert feats.shape == (vocoder.num_frames(round(len(audio) * vocoder.SAMPLE_RATE / nv.OUTPUT_RATE)),
                               vocoder.FEATURE_DIM)  # fmt: skip
    tv.main(["data", "--voices", "en_female_heart", "--sentences", "6", "--shard", "3", "--out", str(heart_data),
             "--workers", "1"])  # fmt: skip
    assert "2 shards already done, 0 to render" in capsys.readouterr().out


def test_a_time_boxed_render_trains_on_the_shards_it_finished_and_resumes(tmp_path, capsys):
    pytest.importorskip("hibari")
    args = ["data", "--voices", "en_female_heart", "--sentences", "4", "--shard", "1", "--out", str(tmp_path),
            "--workers", "1"]  # fmt: skip
    tv.main([*args, "--max-seconds", "0.001"])
    out = capsys.readouterr().out
    assert "time box of 0.001 s reached" in out and "not started" in out
    data = tv.VocoderData(tmp_path)
    assert 1 <= len(data.audio) < 4
    assert f"{len(data.audio)} of 4 shards rendered" in capsys.readouterr().out
    tv.main(args)
    assert (
        f"{len(data.audio)} shards already done, {4 - len(data.audio)} to render" in capsys.readouterr().out
    )
    assert len(tv.VocoderData(tmp_path).audio) == 4


SHIPPED_MODEL = "model_server/weights/default"


def test_features_from_a_model_are_its_spectra_in_line_with_the_teachers_audio_and_pitch(
    heart_data, tmp_path
):
    """``--features-from``: the same teacher audio, beside the model's envelope and aperiodicity at the
    teacher's timing (one frame per analysis frame, in line with the audio: nearest the teacher's envelope with
    no shift) and the teacher's own F0 and voicing, which the audio's harmonics follow."""
    assert tv.main(["data", "--voices", "en_female_heart", "--sentences", "6", "--shard", "3", "--out",
                    str(tmp_path), "--workers", "1", "--features-from", SHIPPED_MODEL]) == 0  # fmt: skip
    teacher, model = tv.VocoderData(heart_data), tv.VocoderData(tmp_path)
    manifest = json.loads((tmp_path / tv.MANIFEST).read_text())
    assert manifest["features"]["source"].startswith("model envelope and aperiodicity")
    assert len(model.audio) >= 5  # an utterance whose alignment `make data` would drop is dropped here too
    pairs = {a.tobytes(): f for a, f in zip(teacher.audio, teacher.feats, strict=True)}
    for audio, feats in zip(model.audio, model.feats, strict=True):
        analysed = pairs[audio.tobytes()]  # the teacher's audio is the same
        assert feats.shape == analysed.shape
        for pitch in (vocoder.LF0, vocoder.VUV):
            np.testing.assert_array_equal(feats[:, pitch], analysed[:, pitch])
        spectra = feats[:, vocoder.ENV.start :]
        assert not np.allclose(
            spectra, analysed[:, vocoder.ENV.start :], atol=1e-3
        )  # the model's, not the analysis
        env = analysed[:, vocoder.ENV]
        distance = {k: np.abs(np.roll(feats[:, vocoder.ENV], k, axis=0) - env).mean() for k in (-2, 0, 2)}
        assert distance[0] < 0.8 * min(distance[-2], distance[2]), distance


def test_features_from_refuses_a_folder_of_other_features_and_a_folder_that_is_not_a_model(
    heart_data, tmp_path
):
    args = ["data", "--voices", "en_female_heart", "--sentences", "6", "--shard", "3", "--workers", "1"]
    with pytest.raises(SystemExit, match=r"holds features from \{'source': 'teacher analysis'\}"):
        tv.main([*args, "--out", str(heart_data), "--features-from", SHIPPED_MODEL])
    with pytest.raises(SystemExit, match=r"--features-from .*: no model.safetensors there"):
        tv.main([*args, "--out", str(tmp_path / "out"), "--features-from", str(tmp_path)])


def test_the_data_step_refuses_unknown_voices(tmp_path):
    with pytest.raises(ValueError, match=r"unknown voice id\(s\) \['xx_nobody'\]"):
        tv.main(["data", "--voices", "xx_nobody", "--out", str(tmp_path)])


def test_a_training_window_starts_with_the_f0_phase_a_stream_would_carry_in(heart_data):
    """The reference phase in training is serving's: a window from frame s starts with the F0 phase that
    streaming the utterance's first s frames leaves in the state."""
    data = tv.VocoderData(heart_data)
    model = _model()
    feats = data.feats[0]
    for start in (1, 17, len(feats) - 3):
        with torch.no_grad():
            _, state = model(torch.from_numpy(feats[:start])[None], model.init_state(1))
        phase, f0 = tv.f0_phase_before(feats, start, model.hop, model.sample_rate)
        assert phase == pytest.approx(float(state["f0_phase"][0]), abs=1e-4)  # rad, after hundreds of frames
        assert f0 == pytest.approx(float(state["f0"][0]), rel=1e-6)


@torch.enable_grad()  # the suite may have turned grad off in this thread (an in-process engine)
def test_training_lowers_the_loss_on_teacher_audio(heart_data):
    """Fifty steps on one fixed batch of real teacher windows: the total and the magnitude loss both fall."""
    torch.manual_seed(0)
    data = tv.VocoderData(heart_data)
    model = nv.NeuralVocoder(SMALL)
    model.set_normalization(*tv.feature_statistics(data, list(range(len(data.audio)))))
    feats, audio, start = tv.sample_batch(
        data, list(range(len(data.audio))), 4, 24, model.hop, np.random.default_rng(0)
    )
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    first = None
    for _ in range(50):
        total, parts, _, _ = tv.reconstruction_losses(model, feats, audio, 4, start)
        first = first or {k: float(v.detach()) for k, v in {**parts, "total": total}.items()}
        opt.zero_grad()
        total.backward()
        opt.step()
    with torch.no_grad():
        total, parts, _, _ = tv.reconstruction_losses(model, feats, audio, 4, start)
    assert float(total) < 0.7 * first["total"], (float(total), first)
    assert float(parts["log_mag"]) < 0.8 * first["log_mag"]


def test_the_training_command_writes_a_vocoder_that_loads_and_resumes(heart_data, tmp_path, capsys):
    args = ["train", "--data", str(heart_data), "--out", str(tmp_path), "--steps", "3", "--batch", "2", "--crop", "8",
            "--warm", "2", "--channels", "16", "--layers", "1", "--validation", "1", "--val-batches", "1"]  # fmt: skip
    assert tv.main(args) == 0
    info = json.loads((tmp_path / nv.CONFIG_FILE).read_text())
    assert info["trained"]["steps"] == 3 and info["config"]["channels"] == 16
    model = nv.NeuralVocoder.load(tmp_path)
    assert not torch.equal(model.feature_std, torch.ones(vocoder.FEATURE_DIM))  # the data's statistics
    assert tv.main([*args[:-8], "--steps", "5", "--validation", "1", "--val-batches", "1", "--resume"]) == 0
    assert json.loads((tmp_path / nv.CONFIG_FILE).read_text())["trained"]["steps"] == 5
    assert "from step 3" in capsys.readouterr().out


def test_a_gan_step_runs_and_reports_its_losses(heart_data, tmp_path, capsys):
    args = ["train", "--data", str(heart_data), "--out", str(tmp_path), "--steps", "2", "--batch", "2", "--crop", "12",
            "--warm", "2", "--channels", "16", "--layers", "1", "--validation", "1", "--val-batches", "1", "--gan",
            "--log-seconds", "0"]  # fmt: skip
    assert tv.main(args) == 0
    out = capsys.readouterr().out
    assert "adversarial" in out and "feature_matching" in out
    assert json.loads((tmp_path / nv.CONFIG_FILE).read_text())["trained"]["gan"] is True


def test_the_training_command_refuses_a_folder_without_data(tmp_path):
    with pytest.raises(SystemExit, match="no vocoder data here"):
        tv.main(["train", "--data", str(tmp_path), "--out", str(tmp_path / "out"), "--steps", "1"])


def test_neural_vocoder_speed_benchmark():
    """Prints one stream's real-time factor on one thread in 32-frame chunks (the default network)."""
    model = nv.NeuralVocoder().eval()
    feats = _features(320)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        import time

        with torch.inference_mode():
            model(feats[:, :32], model.init_state(1))
            state, t0 = model.init_state(1), time.process_time()
            for s in range(0, feats.shape[1], 32):
                _, state = model(feats[:, s : s + 32], state, fixed_shape=True)
        rtf = (time.process_time() - t0) / (feats.shape[1] * vocoder.HOP / vocoder.SAMPLE_RATE)
        print(
            f"neural vocoder {nv.parameter_count(model):,} parameters: RTF {rtf:.4f} ({1 / rtf:.0f}x real time)"
        )
    finally:
        torch.set_num_threads(threads)
