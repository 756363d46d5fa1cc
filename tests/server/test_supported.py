"""`supported` in GET /voices comes from the measurement beside the weights (evaluation.json), on a real
server: within 10 points of the teacher -> supported; further behind, unmeasured, or measured on other
weights -> not. Which languages requests may use does not change: every language the model has a voice for."""

from __future__ import annotations

import httpx
import pytest

from model_server.evaluate_languages import merge_results
from model_server.model import checkpoint
from model_server.model.checkpoint import VoiceInfo
from model_server.model.runtime import SpeechRuntime

from ._server import ServerProcess

VOICES = (
    ("en_female_a", "A", "en", "female"),
    ("en_male_b", "B", "en", "male"),
    ("es_female_c", "C", "es", "female"),
)


def measurement(language: str, teacher: float, model: float) -> dict:
    return {"language": language, "teacher": "espeak:x", "metric": "wer", "sentences": 10,
            "teacher_score": teacher, "teacher_ci": [0, 0], "model_score": model, "model_ci": [0, 0]}  # fmt: skip


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    import torch

    rt = SpeechRuntime.init_random(
        voices=[VoiceInfo(*v, "random test voice", "espeak:x") for v in VOICES], seed=1
    )
    with torch.no_grad():
        rt.ckpt.model.encoder.dur_out.bias.fill_(2.0)
    path = checkpoint.save(rt.ckpt, tmp_path_factory.mktemp("measured") / "model")
    merge_results(path, {"en_female_a": measurement("en", 5.0, 14.0), "en_male_b": measurement("en", 5.0, 16.0)},
                  judge="test")  # fmt: skip
    return path


def voices_of(model_dir, workdir) -> dict[str, dict]:
    with ServerProcess(model_dir, workdir) as proc:
        voices = {v["id"]: v for v in httpx.get(proc.base_url + "/voices").json()["voices"]}
        # the measurement does not narrow what requests may ask for: es has a voice, so es is accepted
        body = {"model_id": "statespeak", "transcript": "Hola.", "voice": {"mode": "id", "id": "en_male_b"},
                "language": "es", "output_format": {"container": "raw", "encoding": "pcm_s16le",
                                                    "sample_rate": 16000}}  # fmt: skip
        assert httpx.post(proc.base_url + "/tts/bytes", json=body, timeout=60).status_code == 200
        bad = httpx.post(proc.base_url + "/tts/bytes", json={**body, "language": "it"}, timeout=60)
        assert bad.status_code == 400 and "supported: en, es" in bad.text
        return voices


def test_voices_say_whether_they_are_supported(model_dir, tmp_path):
    voices = voices_of(model_dir, tmp_path)
    assert {v: voices[v]["supported"] for v in voices} == {
        "en_female_a": True,  # 9 points behind its teacher
        "en_male_b": False,  # 11 points behind
        "es_female_c": False,  # never measured
    }


def test_a_measurement_of_other_weights_supports_nothing(model_dir, tmp_path):
    stale = tmp_path / "model"
    stale.mkdir()
    for name in (checkpoint.CONFIG_FILE, "evaluation.json"):
        (stale / name).write_bytes((model_dir / name).read_bytes())
    from safetensors.torch import load_file, save_file

    tensors = load_file(model_dir / checkpoint.WEIGHTS_FILE)
    first = next(iter(tensors))
    tensors[first] = tensors[first] + 1e-3  # other weights, same shapes
    save_file(tensors, stale / checkpoint.WEIGHTS_FILE, metadata={"format": checkpoint.FORMAT})
    voices = voices_of(stale, tmp_path)
    assert not any(v["supported"] for v in voices.values())
