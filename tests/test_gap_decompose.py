"""tools/gap_decompose.py: the model's features on the teacher's durations, feature groups swapped between the
two aligned tracks, judged in the voice's language with the scores cached (the real judge, as `make evaluate`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from model_server import evaluate, evaluate_languages, vocoder
from model_server.model.runtime import SpeechRuntime
from tests.support.gpu_tools import load_tool

gap = load_tool("gap_decompose")


def _tracks(frames: int = 30) -> object:
    rng = np.random.default_rng(0)
    teacher, model, own = (
        rng.standard_normal((n, vocoder.FEATURE_DIM)).astype(np.float32) for n in (frames, frames, 25)
    )
    return gap.Tracks(teacher, model, own)


@pytest.mark.parametrize(
    ("group", "columns"),
    [
        ("env", range(vocoder.ENV.start, vocoder.ENV.stop)),
        ("f0", [0, vocoder.VUV.start]),
        ("ap", range(vocoder.AP.start, vocoder.AP.stop)),
    ],
)
def test_a_swap_replaces_its_group_and_nothing_else(group, columns):
    t = _tracks()
    out = gap.swapped(t.model, t.teacher, group)
    moved = np.zeros(vocoder.FEATURE_DIM, bool)
    moved[list(columns)] = True
    assert np.array_equal(out[:, moved], t.teacher[:, moved])
    assert np.array_equal(out[:, ~moved], t.model[:, ~moved])
    assert not np.array_equal(t.model, out)  # the input is not modified in place
    with pytest.raises(ValueError, match="aligned"):
        gap.swapped(t.model, t.model_own, group)


def test_systems_pick_their_tracks():
    t = _tracks()
    assert gap.features_of("vocoded", t) is t.teacher
    assert gap.features_of("model", t) is t.model
    assert gap.features_of("model-own-durations", t) is t.model_own
    assert np.array_equal(gap.features_of("model+teacher-env", t), gap.swapped(t.model, t.teacher, "env"))
    assert np.array_equal(gap.features_of("teacher+model-f0", t), gap.swapped(t.teacher, t.model, "f0"))
    for bad in ("teacher+teacher-env", "model+teacher-pitch", "teacher"):
        with pytest.raises(ValueError, match="unknown system"):
            gap.features_of(bad, t)


def test_the_model_on_the_teachers_durations_lines_up_with_the_teacher(tmp_path):
    sentences = evaluate_languages.heldout("es", 2)
    utts, data = gap.teacher_utterances("es_male_m3", sentences, tmp_path)
    assert all(u is not None for u in utts)
    rt = SpeechRuntime.load()
    for u in utts:
        teacher = np.asarray(data.frames(u), np.float32)
        t = gap.model_tracks(rt, "es_male_m3", u, teacher)
        assert t.model.shape == teacher.shape  # frame for frame: what makes the swaps meaningful
        assert abs(len(t.model_own) - len(teacher)) < 0.5 * len(teacher)  # its own timing, near the teacher's
        audio = gap.vocoder_for(rt, "es_male_m3")(t.model)
        assert len(audio) == len(teacher) * vocoder.HOP and np.abs(audio).max() > 0.01


def test_unknown_voices_and_systems_are_named_before_anything_loads(monkeypatch):
    monkeypatch.setattr(evaluate, "ensure_eval_deps", lambda: pytest.fail("installed before checking"))
    with pytest.raises(SystemExit, match="xx_nobody"):
        gap.main(["--voices", "es_male_m3,xx_nobody"])
    with pytest.raises(SystemExit, match="model\\+teacher-pitch"):
        gap.main(["--voices", "es_male_m3", "--systems", "model,model+teacher-pitch"])


def test_a_voice_is_judged_in_its_language_and_cached(tmp_path, monkeypatch, capsys):
    args = ["--voices", "es_male_m3", "--sentences", "2", "--cache", str(tmp_path), "--judge-threads", "2"]
    assert gap.main([*args, "--systems", "vocoded,model+teacher-env"]) == 0
    table = capsys.readouterr().out
    assert "| es_male_m3 | vocoded | 2 |" in table and "| es_male_m3 | model+teacher-env | 2 |" in table
    refs = evaluate_languages.heldout("es", 2)
    scores = sorted((tmp_path / "scores" / "es_male_m3").glob("*-heldout-2-*.json"))
    assert [p.name.rsplit("-2-", 1)[1] for p in scores] == ["model+teacher-env.json", "vocoded.json"]
    for path in scores:
        entry = json.loads(path.read_text())
        assert len(entry["hyps"]) == 2 and all(entry["hyps"])
        assert entry["errors"] == evaluate_languages.unit_errors(refs, entry["hyps"], "es").tolist()

    # cached: a second run judges nothing
    monkeypatch.setattr(evaluate, "WhisperJudge", lambda **_: pytest.fail("judged again"))
    assert gap.main([*args, "--systems", "vocoded"]) == 0
    assert "| es_male_m3 | vocoded | 2 |" in capsys.readouterr().out
