"""tools/postfilter_sweep.py: the settings it parses, the pick rule, and writing a pick into a model directory
(the judged sweep itself needs the evaluation venv; docs/model.md has its numbers)."""

from __future__ import annotations

import json

import pytest

from model_server.model import checkpoint
from model_server.model.checkpoint import ModelLoadError, Postfilter, VoiceInfo
from model_server.model.runtime import SpeechRuntime
from tests.support.gpu_tools import load_tool

sweep = load_tool("postfilter_sweep")


def test_settings_parse_with_the_default_first_and_bad_ones_named():
    assert sweep.parse_settings("0.5/24,0.8/48,0.5/24") == [
        sweep.DEFAULT,
        Postfilter(0.5, 24),
        Postfilter(0.8, 48),
    ]
    assert sweep.parse_settings("0.5/48/0.3") == [sweep.DEFAULT, Postfilter(0.5, 48, 0.3)]
    assert (
        sweep.label(Postfilter(0.5, 48, 0.3)) == "0.5/48/0.3" and sweep.label(Postfilter(0.5, 48)) == "0.5/48"
    )
    assert sweep.parse_settings("0.5/48/0.3/3") == [sweep.DEFAULT, Postfilter(0.5, 48, 0.3, 3.0)]
    assert sweep.label(Postfilter(0.5, 48, 1.0, 3.0)) == "0.5/48/1/3"
    for bad in ("0.5", "x/12", "0.5/99", "3/12", "0.5/48/9", "0.5/48/0.3/20", "0.5/48/0.3/1/2"):
        with pytest.raises(SystemExit, match=f"--settings: '{bad}'"):
            sweep.parse_settings(bad)


def test_the_pick_is_the_best_mos_within_the_wer_allowance():
    scores = {
        sweep.DEFAULT: {"wer": 5.0, "mos": 2.4},
        Postfilter(0.5, 24): {"wer": 5.4, "mos": 2.9},
        Postfilter(0.8, 48): {"wer": 7.9, "mos": 3.1},  # best MOS, but vowels turn into their neighbours
    }
    assert sweep.pick(scores, 0.5) == Postfilter(0.5, 24)
    assert sweep.pick(scores, 3.0) == Postfilter(0.8, 48)
    assert sweep.pick(scores, 0.0) == sweep.DEFAULT
    scores[Postfilter(0.7, 24)] = {"wer": 5.2, "mos": 2.885}  # a tie on DistillMOS: the lower WER wins
    assert sweep.pick(scores, 0.5) == Postfilter(0.7, 24)


def test_with_postfilter_changes_only_that_voice():
    voices = [VoiceInfo("a", "A", "en", "female", "t"), VoiceInfo("b", "B", "en", "male", "t")]
    ckpt = SpeechRuntime.init_random(voices, d_enc=16, d_model=32, headdim=16, d_state=8, n_layers=1).ckpt
    tuned = sweep.with_postfilter(ckpt, "b", Postfilter(0.7, 24))
    assert [v.info.postfilter for v in tuned.voices] == [None, Postfilter(0.7, 24)]
    assert [v.info.postfilter for v in ckpt.voices] == [None, None]


def test_set_postfilters_writes_config_only_and_validates(tmp_path):
    voices = [VoiceInfo("a", "A", "en", "female", "t"), VoiceInfo("b", "B", "en", "male", "t")]
    ckpt = SpeechRuntime.init_random(voices, d_enc=16, d_model=32, headdim=16, d_state=8, n_layers=1).ckpt
    checkpoint.save(ckpt, tmp_path)
    weights = (tmp_path / checkpoint.WEIGHTS_FILE).read_bytes()
    checkpoint.set_postfilters(tmp_path, {"a": Postfilter(0.5, 24)})
    assert checkpoint.load(tmp_path).voices[0].info.postfilter == Postfilter(0.5, 24)
    edited = json.loads((tmp_path / "config.json").read_text())["voices"][0]
    saved_dir = tmp_path / "saved"  # what `save` writes for the same voice: same keys, same order
    checkpoint.save(sweep.with_postfilter(ckpt, "a", Postfilter(0.5, 24)), saved_dir)
    assert list(edited.items()) == list(
        json.loads((saved_dir / "config.json").read_text())["voices"][0].items()
    )
    assert (tmp_path / checkpoint.WEIGHTS_FILE).read_bytes() == weights
    checkpoint.set_postfilters(tmp_path, {"a": None})
    assert "postfilter" not in json.loads((tmp_path / "config.json").read_text())["voices"][0]
    with pytest.raises(ModelLoadError, match=r"no voice\(s\) \['zz'\]"):
        checkpoint.set_postfilters(tmp_path, {"zz": Postfilter(0.5, 24)})
    with pytest.raises(ValueError, match="order must be"):
        checkpoint.set_postfilters(tmp_path, {"b": Postfilter(0.5, 100)})
    assert checkpoint.load(tmp_path).voices[1].info.postfilter is None  # a refused setting wrote nothing


def _scores(mos, errors):
    rows = [list(r) for r in errors]
    return {
        "mos_each": list(mos),
        "mos": sum(mos) / len(mos),
        "errors": rows,
        "wer": 10.0 * sum(r[0] for r in rows),
    }


def test_the_pooled_pick_is_the_largest_sure_gain_whose_wer_did_not_rise_in_most_voices():
    voicing, strong, noisy = (
        Postfilter(0.2, 12, 1.0, 3.0),
        Postfilter(0.5, 24, 1.0, 3.0),
        Postfilter(0.2, 12, 0.5),
    )
    base = [2.0, 2.5, 3.0, 2.2]
    ok = [[1, 10]] * 4  # one error in ten words per sentence
    voices = {}
    extra = [[2, 10]] + ok[1:]  # a word more in the first sentence
    for i in range(12):  # the voicing setting: a word more in half the voices, a word less in the other half
        voices[f"v{i}"] = {
            sweep.DEFAULT: _scores(base, extra if i % 2 == 0 else ok),
            voicing: _scores([m + 0.05 + 0.01 * j for j, m in enumerate(base)], ok if i % 2 == 0 else extra),
            strong: _scores([m + 0.2 for m in base], extra),  # larger; a word more in six voices, none less
            noisy: _scores([m + (0.3 if j % 2 else -0.3) for j, m in enumerate(base)], ok),  # no sure gain
        }
    gains = sweep.pooled_gains(voices)
    assert gains[strong][1] > 0 and gains[voicing][1] > 0 and gains[noisy][1] < 0 < gains[noisy][2]
    assert sweep.pooled_wer(voices, sweep.DEFAULT) == pytest.approx(11.25)
    assert sweep.wer_sign_p(voices, voicing, 0.5) == pytest.approx(2510 / 4096)  # 6 rose, 6 fell
    assert sweep.wer_sign_p(voices, strong, 0.5) == pytest.approx(1 / 64)  # 6 rose, none fell
    assert sweep.pooled_pick(voices, 0.5) == voicing
    assert sweep.pooled_pick(voices, 20.0) == strong  # no voice moves by more than 20 points
    for by in voices.values():
        del by[voicing]
    assert sweep.pooled_pick(voices, 0.5) == sweep.DEFAULT
