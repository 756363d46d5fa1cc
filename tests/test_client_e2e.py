"""SpeechClient against the real model server on every route, with the same request.

The server is `python -m model_server serve` in a subprocess on 127.0.0.1 (random weights, real loading
and inference). The SageMaker route goes through unmodified boto3 to the local runtime stand-in, which
forwards to the server's /invocations and frames its chunks as the AWS event stream. Because decoding
is deterministic for a given request, all routes must return the same bytes: that is what "switching
changes nothing but the target" means.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from server._server import ServerProcess, make_model_dir
from support.sagemaker_runtime_standin import create_app, serve_in_thread

from model_server.client import SpeechClient, SpeechClientError

ENDPOINT = "statespeak-tts"
VOICE = "en_female_a"  # one of the random model's voices (tests/server/_server.py)
TEXT = "Your order ships tomorrow morning. The courier will call before arriving."
PCM16 = {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    model_dir = make_model_dir(tmp_path_factory.mktemp("model"))
    with ServerProcess(model_dir, tmp_path_factory.mktemp("server"), MAX_STREAMS="4") as proc:
        yield proc


@pytest.fixture(scope="module")
def runtime_url(server):
    with serve_in_thread(create_app(server.base_url, ENDPOINT)) as url:
        yield url


@pytest.fixture(autouse=True)
def aws_env(monkeypatch):
    # Dummy credentials: the stand-in does not check signatures; boto3 only needs something to sign with.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_PROFILE", raising=False)


def clients(server, runtime_url) -> dict[str, SpeechClient]:
    return {
        "http": SpeechClient(server.base_url),
        "websocket": SpeechClient(server.base_url, transport="websocket"),
        "sagemaker": SpeechClient(f"sagemaker://{ENDPOINT}", region="us-east-1", endpoint_url=runtime_url),
    }


def test_every_route_returns_the_same_audio_for_the_same_request(server, runtime_url):
    audio = {}
    for route, client in clients(server, runtime_url).items():
        with client.stream(TEXT, voice=VOICE, output_format=PCM16, language="en", speed=1.0) as stream:
            audio[route] = stream.read()
        assert stream.time_to_first_chunk is not None, route
        assert 0 < stream.time_to_first_chunk <= stream.elapsed, route
        assert stream.bytes_received == len(audio[route]), route
    samples = np.frombuffer(audio["http"], "<i2")
    assert len(samples) > 16000  # more than a second of speech for two sentences
    assert np.abs(samples).max() > 0  # not silence
    assert audio["sagemaker"] == audio["http"]
    assert audio["websocket"] == audio["http"]


def test_sagemaker_route_streams_the_servers_chunks(server, runtime_url):
    client = SpeechClient(f"sagemaker://{ENDPOINT}", region="us-east-1", endpoint_url=runtime_url)
    chunks = list(client.stream(TEXT, voice=VOICE, output_format=PCM16))
    # The server sends one HTTP chunk per decoded block; each arrives as its own PayloadPart, in order.
    assert all(len(c) % 2 == 0 for c in chunks)  # whole 16-bit samples per part
    direct = SpeechClient(server.base_url).stream(TEXT, voice=VOICE, output_format=PCM16).read()
    assert b"".join(chunks) == direct


def test_request_fields_reach_the_model_on_the_sagemaker_route(server, runtime_url):
    client = SpeechClient(f"sagemaker://{ENDPOINT}", region="us-east-1", endpoint_url=runtime_url)
    normal = client.stream(TEXT, voice=VOICE, output_format=PCM16).read()
    fast = client.stream(TEXT, voice=VOICE, output_format=PCM16, speed=1.5).read()
    other_voice = client.stream(TEXT, voice="en_male_b", output_format=PCM16).read()
    rate_24k = client.stream(TEXT, voice=VOICE, output_format={**PCM16, "sample_rate": 24000}).read()
    assert len(fast) < len(normal)
    assert other_voice != normal
    assert len(rate_24k) == pytest.approx(len(normal) * 1.5, rel=0.02)


def test_wav_time_to_first_chunk_waits_for_samples(server, runtime_url):
    wav = {**PCM16, "container": "wav"}
    client = SpeechClient(f"sagemaker://{ENDPOINT}", region="us-east-1", endpoint_url=runtime_url)
    stream = client.stream(TEXT, voice=VOICE, output_format=wav)
    data = stream.read()
    assert data[:4] == b"RIFF" and b"data" in data[:100]
    assert stream.time_to_first_chunk is not None


@pytest.mark.parametrize("route", ["http", "websocket", "sagemaker"])
def test_a_refusal_names_the_field_on_every_route(server, runtime_url, route):
    client = clients(server, runtime_url)[route]
    with pytest.raises(SpeechClientError) as info:
        client.stream(TEXT, voice="nobody", output_format=PCM16).read()
    assert info.value.status == 400
    assert "voice" in str(info.value) and "nobody" in str(info.value)


def test_async_streams_on_both_routes_run_concurrently(server, runtime_url):
    http = SpeechClient(server.base_url)
    sagemaker = SpeechClient(f"sagemaker://{ENDPOINT}", region="us-east-1", endpoint_url=runtime_url)

    async def one(client: SpeechClient) -> bytes:
        stream = await client.astream(TEXT, voice=VOICE, output_format=PCM16)
        audio = await stream.read()
        assert stream.time_to_first_chunk is not None
        return audio

    async def both():
        return await asyncio.gather(one(http), one(sagemaker), one(http), one(sagemaker))

    results = asyncio.run(both())
    # Streams decoded in one batch may differ in the last bits from a lone one; their length may not.
    assert len({len(audio) for audio in results}) == 1 and len(results[0]) > 16000
