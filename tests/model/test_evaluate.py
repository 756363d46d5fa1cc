"""evaluate.py's scoring helpers and the serving-path synthesis it measures."""

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
    assert evaluate.normalize_words("Don't stop-now, OK?") == ["don't", "stop", "now", "ok"]


def test_heldout_sentences_are_read_without_comments():
    sentences = evaluate.read_sentences(evaluate.HELDOUT)
    assert len(sentences) >= 40 and not any(s.startswith("#") for s in sentences)


def test_transcriber_on_silence_and_int16():
    asr = evaluate.Transcriber()
    # pocketsphinx may hallucinate a word on digital silence; what matters is that both dtypes decode
    assert len(asr(np.zeros(16000, np.float32)).split()) <= 2
    assert len(asr(np.zeros(8000, np.int16)).split()) <= 2


def test_synthesize_uses_the_serving_path():
    torch.manual_seed(0)
    rt = SpeechRuntime.init_random(seed=3, d_enc=32, d_model=48, headdim=16, d_state=8, n_layers=2)
    with torch.no_grad():
        rt.encoder_cpu.dur_out.bias.fill_(1.6)
    audio, secs = evaluate.synthesize(rt, "en_female_slt", "Hello world.", chunk=7)
    assert audio.dtype == np.float32 and len(audio) % rt.hop == 0 and len(audio) > 0 and secs > 0
    mem = evaluate.memory_check(rt, "en_female_slt")
    assert mem["slot_bytes"] > 0 and mem["long_phones"] <= 60
