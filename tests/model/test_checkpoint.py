"""Checkpoint save/load round trip and the ModelLoadError messages for broken model dirs."""

import json

import pytest
import torch
from safetensors.torch import load_file, save_file

from model_server.model import checkpoint
from model_server.model.acoustic import AcousticConfig, AcousticModel
from model_server.model.checkpoint import Checkpoint, ModelLoadError, Postfilter, Voice, VoiceInfo


def _ckpt(n_symbols=10, n_speakers=2):
    cfg = AcousticConfig(
        n_symbols=n_symbols, n_speakers=n_speakers, d_enc=16, d_model=32, headdim=16, d_state=8, n_layers=2
    )
    voices = [Voice(VoiceInfo(f"v{i}", f"V{i}", "en", "female", "test"), i) for i in range(n_speakers)]
    return Checkpoint(cfg, [f"s{i}" for i in range(n_symbols)], voices, AcousticModel(cfg), {"note": 1})


def test_round_trip(tmp_path):
    ck = _ckpt()
    checkpoint.save(ck, tmp_path)
    back = checkpoint.load(tmp_path)
    assert back.config == ck.config and back.symbols == ck.symbols and back.extra == {"note": 1}
    assert [v.info for v in back.voices] == [v.info for v in ck.voices]
    for k, v in ck.model.state_dict().items():
        torch.testing.assert_close(back.model.state_dict()[k], v)


def test_a_voice_postfilter_round_trips_and_is_optional(tmp_path):
    ck = _ckpt()
    tuned = Voice(VoiceInfo("v0", "V0", "en", "female", "test", "festival:x", Postfilter(0.8, 48)), 0)
    ck = Checkpoint(ck.config, ck.symbols, [tuned, ck.voices[1]], ck.model, {})
    checkpoint.save(ck, tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())["voices"]
    assert saved[0]["postfilter"] == {"strength": 0.8, "order": 48} and "postfilter" not in saved[1]
    back = checkpoint.load(tmp_path)
    assert back.voices[0].info.postfilter == Postfilter(0.8, 48) and back.voices[1].info.postfilter is None
    # the aperiodicity factor and the voicing exponent are written only when they are not 1, and read back
    for setting, written in (
        (Postfilter(0.5, 48, 0.3), {"aperiodicity": 0.3}),
        (Postfilter(0.5, 48, voicing=3.0), {"voicing": 3.0}),
        (Postfilter(0.5, 48, 0.3, 3.0), {"aperiodicity": 0.3, "voicing": 3.0}),
    ):
        tuned = Voice(VoiceInfo("v0", "V0", "en", "female", "test", "festival:x", setting), 0)
        checkpoint.save(Checkpoint(ck.config, ck.symbols, [tuned, ck.voices[1]], ck.model, {}), tmp_path)
        saved = json.loads((tmp_path / "config.json").read_text())["voices"]
        assert saved[0]["postfilter"] == {"strength": 0.5, "order": 48, **written}
        assert checkpoint.load(tmp_path).voices[0].info.postfilter == setting
    for bad in (
        {"strength": 0.5, "order": 48, "aperiodicity": 5.0},
        {"strength": 0.5, "order": 48, "voicing": 0.0},
        {"strength": 0.5, "order": 48, "noise": 1},
    ):
        _edit_config(tmp_path, lambda c, b=bad: c["voices"][0].update(postfilter=b))
        with pytest.raises(ModelLoadError, match=r"voices\[0\]\.postfilter"):
            checkpoint.load(tmp_path)


def test_the_length_mark_rule_round_trips_and_an_older_config_means_drop(tmp_path):
    ck = _ckpt()
    assert ck.length_marks == "double"  # a model made now learns the frontend's current rule
    checkpoint.save(ck, tmp_path)
    assert json.loads((tmp_path / "config.json").read_text())["frontend"] == {"length_marks": "double"}
    assert checkpoint.load(tmp_path).length_marks == "double"
    _edit_config(tmp_path, lambda c: c.pop("frontend"))  # written before the field existed
    assert checkpoint.load(tmp_path).length_marks == "drop"
    _edit_config(tmp_path, lambda c: c.update(frontend={"length_marks": "keep"}))
    with pytest.raises(ModelLoadError, match="config field 'frontend': 'length_marks' must be one of"):
        checkpoint.load(tmp_path)
    _edit_config(tmp_path, lambda c: c.update(frontend=["drop"]))
    with pytest.raises(ModelLoadError, match="config field 'frontend' must be an object"):
        checkpoint.load(tmp_path)


def test_missing_files(tmp_path):
    with pytest.raises(ModelLoadError, match="does not exist"):
        checkpoint.load(tmp_path / "nope")
    checkpoint.save(_ckpt(), tmp_path)
    (tmp_path / "model.safetensors").unlink()
    with pytest.raises(ModelLoadError, match="missing file .*model.safetensors"):
        checkpoint.load(tmp_path)


def _edit_config(path, fn):
    cfg = json.loads((path / "config.json").read_text())
    fn(cfg)
    (path / "config.json").write_text(json.dumps(cfg))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c.update(hop=256), "'hop' is 256"),
        (lambda c: c.update(sample_rate=22050), "'sample_rate'"),
        (lambda c: c["model"].update(d_model=64), "tensor .* has shape"),
        (lambda c: c["model"].update(bogus=1), "unknown model config field"),
        (lambda c: c["model"].update(n_layers=-1), "'n_layers' must be a positive integer"),
        (lambda c: c["symbols"].pop(), "'symbols' has 9 entries"),
        (lambda c: c["voices"][1].update(speaker=5), "speaker 5, outside"),
        (lambda c: c["voices"][1].update(id="v0"), "duplicate voice id"),
        (lambda c: c["voices"][0].pop("language"), r"voices\[0\].language"),
        (lambda c: c.update(voices=[]), "'voices' is empty"),
        (lambda c: c.update(format="other"), "'format'"),
        (lambda c: c["voices"][1].update(postfilter=0.5), r"voices\[1\].postfilter' must be an object"),
        (lambda c: c["voices"][1].update(postfilter={"strength": 0.5}), r"voices\[1\].postfilter' must be"),
        (
            lambda c: c["voices"][1].update(postfilter={"strength": 3, "order": 12}),
            "strength must be .* got 3",
        ),
        (
            lambda c: c["voices"][1].update(postfilter={"strength": 0.5, "order": 99}),
            "order must be .* got 99",
        ),
    ],
)
def test_bad_config_names_the_field(tmp_path, edit, message):
    checkpoint.save(_ckpt(), tmp_path)
    _edit_config(tmp_path, edit)
    with pytest.raises(ModelLoadError, match=message):
        checkpoint.load(tmp_path)


def test_bad_json(tmp_path):
    checkpoint.save(_ckpt(), tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ModelLoadError, match="not valid JSON"):
        checkpoint.load(tmp_path)


def test_bad_tensors_are_named(tmp_path):
    checkpoint.save(_ckpt(), tmp_path)
    wpath = str(tmp_path / "model.safetensors")
    tensors = load_file(wpath)
    key = "decoder.layers.0.mixer.A_log"
    tensors[key] = torch.zeros(3)
    save_file(tensors, wpath)
    with pytest.raises(ModelLoadError, match=f"'{key}' has shape \\(3,\\), expected \\(4,\\)"):
        checkpoint.load(tmp_path)
    del tensors[key]
    save_file(tensors, wpath)
    with pytest.raises(ModelLoadError, match=f"missing tensor '{key}'"):
        checkpoint.load(tmp_path)
    tensors = load_file(wpath) | {key: torch.full((4,), float("nan"))}
    save_file(tensors, wpath)
    with pytest.raises(ModelLoadError, match="NaN"):
        checkpoint.load(tmp_path)
    (tmp_path / "model.safetensors").write_bytes(b"garbage")
    with pytest.raises(ModelLoadError, match="not a readable safetensors"):
        checkpoint.load(tmp_path)
