"""tools/vocoder_resynth.py: WORLD's own resynthesis, and a catalog voice judged in its own language on its
held-out sentences with the renders and scores cached (the real judges: the evaluation venv, as `make evaluate`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from model_server import evaluate, evaluate_languages, vocoder
from tests.support.gpu_tools import load_tool

resynth = load_tool("vocoder_resynth")


def _vowel(seconds: float = 0.6, f0: float = 120.0) -> np.ndarray:
    """A glottal-pulse-like harmonic series through two formants, 16 kHz."""
    t = np.arange(int(seconds * vocoder.SAMPLE_RATE)) / vocoder.SAMPLE_RATE
    k = np.arange(1, 60)[:, None]
    gain = (
        1.0 / k
        + 2.0 * np.exp(-(((k * f0 - 700.0) / 150.0) ** 2))
        + np.exp(-(((k * f0 - 1200.0) / 200.0) ** 2))
    )
    return (0.05 * (gain * np.sin(2 * np.pi * k * f0 * t)).sum(axis=0)).astype(np.float32)


def _log_spectrum(x: np.ndarray) -> np.ndarray:
    middle = x[len(x) // 4 : 3 * len(x) // 4]
    return np.log(np.abs(np.fft.rfft(middle * np.hanning(len(middle)), 4096)) + 1e-6)


@pytest.mark.parametrize("period_ms", [vocoder.FRAME_PERIOD_MS, 5.0])
def test_world_full_resynthesis_keeps_the_length_and_the_spectrum(period_ms):
    x = _vowel()
    y = resynth.world_full_resynth(x, vocoder.SAMPLE_RATE, period_ms)
    assert abs(len(y) - len(x)) <= vocoder.HOP
    n = min(len(x), len(y))
    # the resynthesis keeps the harmonics' shape: its log spectrum follows the input's far better than noise's
    same = np.corrcoef(_log_spectrum(x[:n]), _log_spectrum(y[:n]))[0, 1]
    noise = np.random.default_rng(0).standard_normal(n).astype(np.float32) * 0.05
    assert same > 0.8 > np.corrcoef(_log_spectrum(x[:n]), _log_spectrum(noise))[0, 1]
    # and resampling from 24 kHz first gives the same audio as 16 kHz input, within the resampler
    import soxr

    y24 = resynth.world_full_resynth(soxr.resample(x, 16000, 24000), 24000, period_ms)
    assert abs(len(y24) - len(y)) <= vocoder.HOP


def test_an_unknown_voice_is_named_before_anything_installs(monkeypatch):
    monkeypatch.setattr(
        evaluate, "ensure_eval_deps", lambda: pytest.fail("installed before checking the voices")
    )
    with pytest.raises(SystemExit, match="unknown voice 'xx_nobody'"):
        resynth.main(["--voices", "es_male_m3,xx_nobody"])


def test_a_catalog_voice_is_judged_in_its_language_and_cached(tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    args = ["--voices", "es_male_m3", "--sentences", "2", "--cache", str(cache), "--judge-threads", "2"]
    assert resynth.main([*args, "--systems", "teacher,world-full"]) == 0
    table = capsys.readouterr().out
    assert "| es_male_m3 | teacher |" in table and "| es_male_m3 | world-full |" in table
    refs = evaluate_languages.heldout("es", 2)
    for system in ("teacher", "world-full"):
        entry = json.loads((cache / "scores" / "es_male_m3" / f"{system}-2.json").read_text())
        assert len(entry["hyps"]) == 2 and all(entry["hyps"])
        # scored as the per-language table scores Spanish: its words, its normalizer
        assert entry["errors"] == evaluate_languages.unit_errors(refs, entry["hyps"], "es").tolist()
        assert [units for _, units in entry["errors"]] == [
            len(evaluate_languages.score_units(r, "es")) for r in refs
        ]
        assert all(1.0 <= m <= 5.0 for m in entry["mos"])

    # a second run adds a system from the cached renders: the teacher is not rendered again
    monkeypatch.setattr(evaluate_languages, "render_teacher", lambda *a: pytest.fail("rendered again"))
    assert resynth.main([*args, "--systems", "teacher,current"]) == 0
    assert "| es_male_m3 | current |" in capsys.readouterr().out
    assert (cache / "scores" / "es_male_m3" / "current-2.json").is_file()
