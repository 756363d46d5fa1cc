"""`python -m model_server.evaluate --against`: two models judged alike, sentence by sentence, with the real
judges and the shipped model (and a damaged copy of it, which must come out worse)."""

import json

import pytest
import torch

from model_server import evaluate, evaluate_paired
from model_server.evaluate_paired import BETTER, SAME, WORSE, verdict
from model_server.model import checkpoint
from model_server.model.runtime import DEFAULT_MODEL_DIR, SpeechRuntime


def test_verdict_needs_an_interval_wholly_on_one_side():
    assert verdict((-2.0, 3.0), (-0.1, 0.05)) == SAME
    assert verdict((0.5, 9.0), (-0.1, 0.05)) == WORSE  # more errors for sure
    assert verdict((-2.0, 3.0), (-0.21, -0.03)) == WORSE  # lower DistillMOS for sure (round 31b's heart)
    assert verdict((-9.0, -0.5), None) == BETTER
    assert verdict((-2.0, 3.0), (0.02, 0.3)) == BETTER
    assert verdict((-9.0, -0.5), (-0.3, -0.01)) == WORSE  # fewer errors does not buy back naturalness
    assert verdict((0.0, 0.0), (0.0, 0.0)) == SAME  # the same model: no difference at all


def test_default_voices_are_the_baselines_supported_and_english_ones():
    rt = SpeechRuntime.load(DEFAULT_MODEL_DIR)
    voices = evaluate_paired.default_voices(rt, DEFAULT_MODEL_DIR)
    assert {"en_female_heart", "en_female_slt", "en_male_kal", "es_male_kumo", "hr_male_kumo"} <= set(voices)
    assert "fr_male_kumo" not in voices  # listed in the model, not supported: not what a release must keep
    assert set(voices) <= set(rt.voices)


@pytest.fixture(scope="module")
def damaged_model(tmp_path_factory):
    """The shipped model with noise of half each tensor's spread added to every weight: it still speaks, badly."""
    ck = checkpoint.load(DEFAULT_MODEL_DIR)
    torch.manual_seed(0)
    with torch.no_grad():
        for p in ck.model.parameters():
            if p.numel() > 1:
                p.add_(torch.randn_like(p) * p.std() * 0.5)
    out = tmp_path_factory.mktemp("damaged")
    checkpoint.save(ck, out)
    return out


def test_a_damaged_model_is_worse_and_fails_the_gate(damaged_model, tmp_path):
    evaluate.ensure_eval_deps()
    report = tmp_path / "cmp.md"
    argv = ["--model", str(damaged_model), "--against", str(DEFAULT_MODEL_DIR), "--limit", "2",
            "--voices", "en_female_heart,xx_nobody", "--report", str(report)]  # fmt: skip
    assert evaluate.main(argv) == 0  # without --fail-on-worse a worse voice is reported, not fatal
    doc = json.loads(report.with_suffix(".json").read_text())
    heart = doc["voices"]["en_female_heart"]
    assert heart["verdict"] == WORSE and heart["sentences"] == 2
    assert heart["candidate_score"] > heart["baseline_score"] and heart["score_diff_ci"][0] > 0
    assert heart["candidate_mos"] < heart["baseline_mos"]
    assert doc["not_compared"] == {"xx_nobody": "not in the candidate and baseline"}
    text = report.read_text()
    assert (
        "| `en_female_heart` | WER | 2 |" in text
        and "**worse**" in text
        and "Worse: `en_female_heart`." in text
    )
    assert evaluate.main([*argv, "--no-mos", "--fail-on-worse"]) == 1


def test_a_model_against_itself_differs_by_nothing():
    evaluate.ensure_eval_deps()
    rt = SpeechRuntime.load(DEFAULT_MODEL_DIR)
    sentences = evaluate.read_sentences(evaluate.HELDOUT)[:2]
    entry = evaluate_paired.compare_voice(rt, rt, "en_female_slt", sentences, evaluate.WhisperJudge())
    assert entry["score_diff"] == 0 and entry["score_diff_ci"] == [0, 0] and entry["verdict"] == SAME
    assert "mos_diff" not in entry  # no MOS judge given: intelligibility only


def test_fail_on_worse_needs_a_baseline():
    with pytest.raises(SystemExit):
        evaluate.main(["--fail-on-worse"])
