"""Configuration from the environment: defaults, and bad values refused with the variable named."""

from __future__ import annotations

import pytest

from model_server.config import BUNDLED_MODEL_DIR, ENV_MAX_CHUNK_FRAMES, ConfigError, ServerConfig
from model_server.contract import (
    ENV_API_KEYS,
    ENV_API_KEYS_FILE,
    ENV_DRAIN_TIMEOUT_S,
    ENV_MAX_STREAMS,
    ENV_MODEL_DIR,
)


def test_defaults_use_bundled_model_and_bounded_drain():
    cfg = ServerConfig.from_env({})
    assert cfg.model_dir == BUNDLED_MODEL_DIR
    assert cfg.api_keys == frozenset()
    assert 0 < cfg.drain_timeout_s < 30  # below SageMaker's 30 s stop grace
    assert (
        cfg.max_chunk_frames is None
    )  # by device: larger chunks on a GPU, where a chunk's fixed work dominates
    assert cfg.first_chunk_frames <= cfg.chunk_frames_on("cpu") < cfg.chunk_frames_on("cuda:0")
    assert cfg.request_read_timeout_s < cfg.keep_alive_s  # a request is read in less than an idle wait


def test_values_are_read():
    cfg = ServerConfig.from_env(
        {ENV_MODEL_DIR: "/opt/ml/model", ENV_MAX_STREAMS: "12", ENV_DRAIN_TIMEOUT_S: "5"}
    )
    assert (str(cfg.model_dir), cfg.max_streams, cfg.drain_timeout_s) == ("/opt/ml/model", 12, 5.0)


@pytest.mark.parametrize(
    ("env", "name"),
    [
        ({ENV_MAX_STREAMS: "many"}, ENV_MAX_STREAMS),
        ({ENV_MAX_STREAMS: "0"}, ENV_MAX_STREAMS),
        ({ENV_DRAIN_TIMEOUT_S: "-1"}, ENV_DRAIN_TIMEOUT_S),
        ({"STATESPEAK_DEVICE": "tpu"}, "STATESPEAK_DEVICE"),
        ({"STATESPEAK_WARMUP": "maybe"}, "STATESPEAK_WARMUP"),
        (
            {"STATESPEAK_FIRST_CHUNK_FRAMES": "64", "STATESPEAK_MAX_CHUNK_FRAMES": "8"},
            "STATESPEAK_MAX_CHUNK_FRAMES",
        ),
        ({"STATESPEAK_RESAMPLE_QUALITY": "best"}, "STATESPEAK_RESAMPLE_QUALITY"),
        ({ENV_API_KEYS_FILE: "/nonexistent/keys"}, ENV_API_KEYS_FILE),
        ({"STATESPEAK_REQUEST_READ_TIMEOUT_S": "0"}, "STATESPEAK_REQUEST_READ_TIMEOUT_S"),
        ({"STATESPEAK_VOCODER": "wavenet"}, "STATESPEAK_VOCODER"),
    ],
)
def test_bad_values_name_the_variable(env, name):
    with pytest.raises(ConfigError, match=name):
        ServerConfig.from_env(env)


def test_api_keys_from_env_and_secret_file(tmp_path):
    secret = tmp_path / "keys"
    secret.write_text("# rotated 2026-11\nfile-key-1\n\nfile-key-2\n")
    cfg = ServerConfig.from_env({ENV_API_KEYS: " env-key , ", ENV_API_KEYS_FILE: str(secret)})
    assert cfg.api_keys == {"env-key", "file-key-1", "file-key-2"}


def test_empty_secret_file_is_refused_rather_than_disabling_auth(tmp_path):
    secret = tmp_path / "keys"
    secret.write_text("\n# nothing\n")
    with pytest.raises(ConfigError, match="holds no key"):
        ServerConfig.from_env({ENV_API_KEYS_FILE: str(secret)})


def test_openai_voice_table_is_explicit_and_configurable():
    from model_server.api.requests import openai_voice_table
    from model_server.config import DEFAULT_OPENAI_VOICES, ENV_OPENAI_VOICES

    bundled = {"en_female_slt": "en", "en_male_kal": "en", "de_male_m3": "de"}
    # the default table names fixed voices: another voice in the model changes nothing
    assert openai_voice_table(bundled, None) == DEFAULT_OPENAI_VOICES
    assert openai_voice_table({**bundled, "aa_new": "en"}, None) == DEFAULT_OPENAI_VOICES
    assert openai_voice_table({"en_female_slt": "en"}, None) == {
        name: vid for name, vid in DEFAULT_OPENAI_VOICES.items() if vid == "en_female_slt"
    }
    cfg = ServerConfig.from_env({ENV_OPENAI_VOICES: "alloy = de_male_m3, nova=en_male_kal"})
    assert openai_voice_table(bundled, cfg.openai_voices) == {"alloy": "de_male_m3", "nova": "en_male_kal"}
    with pytest.raises(ValueError, match=ENV_OPENAI_VOICES):  # a configured name must reach a voice
        openai_voice_table(bundled, {"alloy": "en_typo"})


@pytest.mark.parametrize("raw", ["alloy", "alloy=", "=en_female_slt", "alloy=a,alloy=b"])
def test_bad_openai_voice_table_names_the_variable(raw):
    with pytest.raises(ConfigError, match="STATESPEAK_OPENAI_VOICES"):
        ServerConfig.from_env({"STATESPEAK_OPENAI_VOICES": raw})


def test_the_largest_chunk_is_the_setting_on_every_device_and_else_the_device_default():
    assert [ServerConfig.from_env({}).chunk_frames_on(d) for d in ("cpu", "cuda", "cuda:1")] == [32, 64, 64]
    cfg = ServerConfig.from_env({ENV_MAX_CHUNK_FRAMES: "16"})
    assert [cfg.chunk_frames_on(d) for d in ("cpu", "cuda")] == [16, 16]
    assert ServerConfig.from_env({"STATESPEAK_FIRST_CHUNK_FRAMES": "128"}).chunk_frames_on("cuda") == 128
    with pytest.raises(ConfigError, match="STATESPEAK_MAX_CHUNK_FRAMES=2 is below"):
        ServerConfig.from_env({ENV_MAX_CHUNK_FRAMES: "2"})
