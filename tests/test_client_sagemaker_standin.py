"""SpeechClient's SageMaker route through unmodified boto3 against the local runtime stand-in.

The container behind the stand-in here is a small streaming ASGI app, so the runtime's error framing
(ModelError, ValidationError, a ModelStreamError event mid-stream) can be driven on purpose; the
end-to-end run against the real model server lives in test_client_e2e.py.
"""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route
from support.sagemaker_runtime_standin import create_app, serve_in_thread

from model_server.client import SpeechClient, SpeechClientError

ENDPOINT = "statespeak-test"
CHUNKS = [b"\x01\x02" * 50, b"\x03\x04" * 70, b"\x05\x06" * 30]

# Set by the test once its first chunk arrived; the container holds its second chunk until then, so
# a client (or stand-in) that buffers the whole response deadlocks instead of passing.
first_chunk_seen = threading.Event()


async def invocations(request: Request):
    body = json.loads(await request.body())
    assert "authorization" not in request.headers  # the runtime strips it, as SageMaker does
    transcript = body["transcript"]
    if transcript == "refuse":
        return JSONResponse({"error": "voice: unknown voice id 'nobody'"}, status_code=400)

    async def gen():
        yield CHUNKS[0]
        if transcript == "gated":
            for _ in range(500):
                if first_chunk_seen.is_set():
                    break
                await asyncio.sleep(0.01)
            else:
                return  # never released: the test sees a short stream and fails
        if transcript == "break":
            raise RuntimeError("container crashed mid-stream")
        if transcript == "stall":
            await asyncio.sleep(10)  # past the client's read timeout
        for chunk in CHUNKS[1:]:
            yield chunk

    return StreamingResponse(gen(), media_type="application/octet-stream")


@pytest.fixture(scope="module")
def standin():
    upstream = Starlette(routes=[Route("/invocations", invocations, methods=["POST"])])
    with (
        serve_in_thread(upstream) as upstream_url,
        serve_in_thread(create_app(upstream_url, ENDPOINT)) as url,
    ):
        yield url


@pytest.fixture
def aws_env(monkeypatch):
    # Dummy credentials: the stand-in does not check signatures, boto3 only needs something to sign with.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_PROFILE", raising=False)


def client_for(url: str, endpoint: str = ENDPOINT) -> SpeechClient:
    return SpeechClient(f"sagemaker://{endpoint}", region="us-east-1", endpoint_url=url, timeout=20)


def test_chunks_arrive_as_payload_parts_in_order(standin, aws_env):
    stream = client_for(standin).stream("hello", voice="v1")
    chunks = list(stream)
    assert b"".join(chunks) == b"".join(CHUNKS)
    assert stream.chunks == len(chunks) >= 1
    assert stream.bytes_received == sum(map(len, CHUNKS))
    assert stream.time_to_first_chunk is not None and stream.elapsed >= stream.time_to_first_chunk


def test_stream_is_incremental_not_buffered(standin, aws_env):
    first_chunk_seen.clear()
    stream = client_for(standin).stream("gated", voice="v1")
    received = []
    for chunk in stream:
        received.append(chunk)
        first_chunk_seen.set()
    assert b"".join(received) == b"".join(CHUNKS)


def test_container_refusal_surfaces_original_status_and_message(standin, aws_env):
    with pytest.raises(SpeechClientError) as info:
        client_for(standin).stream("refuse", voice="nobody")
    assert info.value.status == 400
    assert "unknown voice id" in str(info.value) and "ModelError" in str(info.value)


def test_break_mid_stream_raises_model_stream_error(standin, aws_env):
    stream = client_for(standin).stream("break", voice="v1")
    with pytest.raises(SpeechClientError, match="ModelStreamError"):
        list(stream)


def test_a_stream_that_stalls_mid_way_is_a_client_error_not_a_transport_exception(standin, aws_env):
    """botocore's event stream reads urllib3 directly: a read timeout or a dropped connection mid-stream
    escaped as urllib3's ReadTimeoutError / ProtocolError, where the ALB routes raise SpeechClientError."""
    client = SpeechClient(f"sagemaker://{ENDPOINT}", region="us-east-1", endpoint_url=standin, timeout=1)
    stream = client.stream("stall", voice="v1")
    with pytest.raises(SpeechClientError, match="stream broke"):
        list(stream)
    client.close()
    assert client._sm is None  # close() also closes the runtime client's connections


def test_a_missing_region_is_a_client_error_naming_the_fix(monkeypatch, aws_env):
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    with pytest.raises(SpeechClientError, match="AWS_REGION"):
        SpeechClient(f"sagemaker://{ENDPOINT}").stream("hello", voice="v1")


def test_unknown_endpoint_is_a_validation_error(standin, aws_env):
    with pytest.raises(SpeechClientError, match="ValidationError.*not found") as info:
        client_for(standin, "no-such-endpoint").stream("hello", voice="v1")
    assert info.value.status == 400


def test_async_stream_through_worker_threads(standin, aws_env):
    async def run():
        stream = await client_for(standin).astream("hello", voice="v1")
        return await stream.read(), stream.time_to_first_chunk

    audio, ttfc = asyncio.run(run())
    assert audio == b"".join(CHUNKS) and ttfc is not None


@pytest.mark.parametrize(
    "target, kwargs, message",
    [
        ("sagemaker://bad_name!", {}, "endpoint name"),
        ("sagemaker://ok", {"transport": "websocket"}, "InvokeEndpointWithResponseStream"),
        ("ftp://host", {}, "neither an http"),
        ("http://host", {"region": "us-east-1"}, "sagemaker:// targets only"),
        ("http://host", {"transport": "grpc"}, "transport must be"),
    ],
)
def test_bad_targets_are_refused_with_a_reason(target, kwargs, message):
    with pytest.raises(ValueError, match=message):
        SpeechClient(target, **kwargs)


def test_request_fields_are_validated_before_sending():
    client = SpeechClient("http://127.0.0.1:9")  # nothing listens: validation must fail first
    with pytest.raises(ValueError, match="transcript"):
        client.stream("  ", voice="v1")
    with pytest.raises(ValueError, match="speed"):
        client.stream("hi", voice="v1", speed=0)
    for bad in (float("nan"), float("inf"), True):  # NaN went out as invalid JSON, True as speed 1
        with pytest.raises(ValueError, match="speed"):
            client.stream("hi", voice="v1", speed=bad)


def test_from_env_switches_route_by_configuration(monkeypatch, standin, aws_env):
    monkeypatch.setenv("STATESPEAK_TARGET", f"sagemaker://{ENDPOINT}")
    client = SpeechClient.from_env(region="us-east-1", endpoint_url=standin)
    assert client.kind == "sagemaker" and client.endpoint_name == ENDPOINT
    assert client.stream("hello", voice="v1").read() == b"".join(CHUNKS)
    monkeypatch.setenv("STATESPEAK_TARGET", "http://alb.internal:80")
    monkeypatch.setenv("STATESPEAK_API_KEY", "k1")
    assert SpeechClient.from_env().kind == "http"
    monkeypatch.delenv("STATESPEAK_TARGET")
    with pytest.raises(ValueError, match="STATESPEAK_TARGET is not set"):
        SpeechClient.from_env()


def test_from_env_takes_the_region_from_aws_region(monkeypatch, standin, aws_env):
    """boto3 reads only AWS_DEFAULT_REGION, while Lambda, ECS and the other AWS SDKs set AWS_REGION: a host
    with AWS_REGION alone got NoRegionError, though the docs said to set it."""
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")  # no profile region either
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("STATESPEAK_TARGET", f"sagemaker://{ENDPOINT}")
    client = SpeechClient.from_env(endpoint_url=standin)
    assert client.stream("hello", voice="v1").read() == b"".join(CHUNKS)
