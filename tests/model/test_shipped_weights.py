"""The bundled model: loads, has the promised voices, fits the size budget, speaks."""

import torch

from model_server.model.runtime import DEFAULT_MODEL_DIR, SpeechRuntime


def test_shipped_model_loads_and_speaks():
    size = sum(p.stat().st_size for p in DEFAULT_MODEL_DIR.iterdir())
    assert size <= 40 * 1024 * 1024
    rt = SpeechRuntime.load()
    assert {"en_female_slt", "en_male_kal", "es_female_f3", "de_male_m3", "fr_female_f2"} <= set(rt.voices)
    assert rt.config.lookahead >= 1
    pool = rt.new_pool(1)
    p = rt.new_planner("en_female_slt", "en", 1.0)
    p.feed("Hello world.")
    p.finish()
    audio = []
    while (chunk := p.pop_frames(32)) is not None:
        audio.append(rt.step(pool, [0], chunk.cond.unsqueeze(0))[0])
    audio = torch.cat(audio)
    assert 0.4 < len(audio) / rt.sample_rate < 3.0  # two words and the sentence pauses
    assert torch.isfinite(audio).all() and 0.01 < audio.pow(2).mean().sqrt() < 0.5
