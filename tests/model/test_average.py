"""`python -m model_server.average`: the weighted mean of fine-tunes of one model, and its refusals."""

import json

import pytest
import torch

from model_server import average
from model_server.model import checkpoint
from model_server.model.acoustic import AcousticConfig, AcousticModel
from model_server.model.checkpoint import Checkpoint, ModelLoadError, Voice, VoiceInfo


def _saved(path, seed, n_symbols=10, extra=None, voices=("v0", "v1")):
    torch.manual_seed(seed)
    cfg = AcousticConfig(
        n_symbols=n_symbols, n_speakers=len(voices), d_enc=16, d_model=32, headdim=16, d_state=8, n_layers=2
    )
    voices = [Voice(VoiceInfo(v, v.upper(), "en", "female", "test"), i) for i, v in enumerate(voices)]
    ck = Checkpoint(
        cfg, [f"s{i}" for i in range(n_symbols)], voices, AcousticModel(cfg), extra or {"run": seed}
    )
    checkpoint.save(ck, path)
    return checkpoint.load(path).model.state_dict()


def test_the_mean_of_two_checkpoints_with_equal_and_given_weights(tmp_path):
    a = _saved(tmp_path / "a", 1)
    b = _saved(tmp_path / "b", 2)
    assert average.main([str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "m")]) == 0
    mean = checkpoint.load(tmp_path / "m")
    for k, t in mean.model.state_dict().items():
        torch.testing.assert_close(t, (a[k] + b[k]) / 2)
    # the weights are normalized: 3,1 is 0.75 / 0.25
    average.main([str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "w"), "--weights", "3,1"])
    weighted = checkpoint.load(tmp_path / "w")
    for k, t in weighted.model.state_dict().items():
        torch.testing.assert_close(t, 0.75 * a[k] + 0.25 * b[k])
    # provenance: each input's directory, weight, weights hash and its own training metadata
    record = json.loads((tmp_path / "w" / "config.json").read_text())["extra"]["averaged"]
    assert [(r["model_dir"], r["weight"], r["extra"]) for r in record] == [
        (str(tmp_path / "a"), 0.75, {"run": 1}),
        (str(tmp_path / "b"), 0.25, {"run": 2}),
    ]
    assert all(len(r["sha256"]) == 64 for r in record)


def test_checkpoints_of_different_models_are_refused_naming_what_differs(tmp_path):
    _saved(tmp_path / "a", 1)
    _saved(tmp_path / "b", 2, n_symbols=11)
    with pytest.raises(ModelLoadError, match=r"differs from .*a in its model"):
        average.average([tmp_path / "a", tmp_path / "b"], tmp_path / "m")
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--weights", "1"], "gives 1 weights for 2"),
        (["--weights", "1,x"], "numbers separated by commas"),
        (["--weights", "1,-1"], "non-negative"),
        (["--weights", "0,0"], "positive sum"),
    ],
)
def test_bad_weights_are_a_usage_error(tmp_path, capsys, args, message):
    _saved(tmp_path / "a", 1)
    _saved(tmp_path / "b", 2)
    with pytest.raises(SystemExit) as exit_:
        average.main([str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "m"), *args])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_one_directory_or_a_missing_one_is_a_usage_error(tmp_path, capsys):
    _saved(tmp_path / "a", 1)
    with pytest.raises(SystemExit):
        average.main([str(tmp_path / "a"), "--out", str(tmp_path / "m")])
    assert "at least two" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        average.main([str(tmp_path / "a"), str(tmp_path / "nope"), "--out", str(tmp_path / "m")])
    assert "does not exist" in capsys.readouterr().err


def test_a_fine_tune_that_added_a_voice_averages_with_its_parent(tmp_path):
    """The parent gets the added voice's speaker row as fine-tuning starts it (the mean of its rows); every
    other tensor is the plain mean, and the record names the voice the parent was given."""
    parent = _saved(tmp_path / "parent", 1)
    child = _saved(tmp_path / "child", 2, voices=("v0", "v1", "v2"))
    average.average([tmp_path / "parent", tmp_path / "child"], tmp_path / "m")
    mean = checkpoint.load(tmp_path / "m")
    assert [(v.info.id, v.speaker) for v in mean.voices] == [("v0", 0), ("v1", 1), ("v2", 2)]
    emb = "encoder.speaker_emb.weight"
    start = torch.cat([parent[emb], parent[emb].mean(0, keepdim=True)])
    for k, t in mean.model.state_dict().items():
        torch.testing.assert_close(t, ((start if k == emb else parent[k]) + child[k]) / 2)
    record = json.loads((tmp_path / "m" / "config.json").read_text())["extra"]["averaged"]
    assert [r.get("added_voices") for r in record] == [["v2"], None]
    # either order: the added voice comes from whichever input has it
    average.average([tmp_path / "child", tmp_path / "parent"], tmp_path / "m2")
    torch.testing.assert_close(
        checkpoint.load(tmp_path / "m2").model.state_dict()[emb], mean.model.state_dict()[emb]
    )


def test_voices_that_are_not_an_extension_are_refused(tmp_path):
    _saved(tmp_path / "a", 1, voices=("v0", "v1"))
    _saved(tmp_path / "b", 2, voices=("v0", "v9", "v2"))  # v1's row holds another voice: not a fine-tune of a
    with pytest.raises(ModelLoadError, match="in its voices"):
        average.average([tmp_path / "a", tmp_path / "b"], tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_the_evaluation_report_says_an_averaged_model_is_a_mean_and_of_what(tmp_path):
    from model_server.evaluate import training_summary

    run = {"init": "base", "trained_minutes": 15.0, "step": 2722}
    _saved(tmp_path / "a", 1, extra={"init": "base", "trained_minutes": 12.0, "step": 100})
    _saved(tmp_path / "b", 2, extra=run)
    average.main([str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "m"), "--weights", "1,3"])
    line = training_summary(checkpoint.load(tmp_path / "m").extra)
    assert line.startswith(", the weighted mean of 2 fine-tunes")
    assert f"0.25 x `{tmp_path / 'a'}`" in line and "12.0 min, step 100" in line
    assert f"0.75 x `{tmp_path / 'b'}`" in line and "15.0 min, step 2722" in line
    # a fine-tune's own run, and weights with no training record, read as before
    assert training_summary(run) == ", last fine-tune: 15.0 min of training, step 2722"
    assert training_summary({}) == ""
