"""One shared real server (subprocess on 127.0.0.1) for the server test modules, on random weights."""

from __future__ import annotations

import numpy as np
import pytest

from ._server import ServerProcess, make_model_dir

# Limits set low so the limit tests stay small; the documented defaults are larger.
SHARED_ENV = {
    "MAX_STREAMS": "6",
    "STATESPEAK_MAX_TRANSCRIPT_CHARS": "400",
    "STATESPEAK_MAX_BODY_BYTES": "4096",
    "STATESPEAK_EMF_INTERVAL_S": "0.5",
    "STATESPEAK_OPENAI_VOICES": "alloy=en_female_a,echo=en_male_b",  # the random model's voices
    "STATESPEAK_WORKERS": "2",  # the multi-process server: admission, metrics and drain across workers
    "STATESPEAK_REQUEST_READ_TIMEOUT_S": "2",  # a slow client is cut in the test's time
    "STATESPEAK_CONTEXT_IDLE_TIMEOUT_S": "4",  # an abandoned WebSocket context ends in the test's time
}
MAX_STREAMS = int(SHARED_ENV["MAX_STREAMS"])
HOP, MODEL_RATE = 200, 16000


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory):
    return make_model_dir(tmp_path_factory.mktemp("model"))


@pytest.fixture(scope="session")
def server(model_dir, tmp_path_factory):
    with ServerProcess(model_dir, tmp_path_factory.mktemp("server"), **SHARED_ENV) as proc:
        yield proc


def decode_pcm(data: bytes, encoding: str) -> np.ndarray:
    """Client-side decoding of the raw encodings to float, independent of the server's encoder."""
    if encoding == "pcm_f32le":
        return np.frombuffer(data, "<f4").astype(np.float64)
    if encoding == "pcm_s16le":
        return np.frombuffer(data, "<i2") / 32768.0
    table = _g711_table(encoding)
    return table[np.frombuffer(data, np.uint8)]


def _g711_table(encoding: str) -> np.ndarray:
    # ITU-T G.711 expansion, written out from the standard (not the server's code).
    out = np.zeros(256)
    for b in range(256):
        if encoding == "pcm_mulaw":
            u = ~b & 0xFF
            t = (((u & 0x0F) << 3) + 0x84) << ((u & 0x70) >> 4)
            out[b] = ((0x84 - t) if u & 0x80 else (t - 0x84)) / 32768.0
        else:
            a = b ^ 0x55
            t = (a & 0x0F) << 4
            seg = (a & 0x70) >> 4
            t = t + 8 if seg == 0 else (t + 0x108) << (seg - 1)
            out[b] = (t if a & 0x80 else -t) / 32768.0
    return out


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if len(x) else 0.0
