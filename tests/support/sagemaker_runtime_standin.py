"""A local stand-in for the SageMaker runtime's InvokeEndpointWithResponseStream, for tests.

It answers `POST /endpoints/{name}/invocations-response-stream` the way the managed runtime does in
front of a streaming container: it forwards the body to the container's `POST /invocations` with only
the headers SageMaker passes on (Content-Type, Accept), and re-frames each chunk of the container's
chunked response as an AWS event stream message (`application/vnd.amazon.eventstream`: a `PayloadPart`
event whose payload is the chunk's bytes). Refusals come back as the runtime reports them: a 424
`ModelError` carrying the container's status and message, a 400 `ValidationError` for an unknown
endpoint, and a `ModelStreamError` exception event when the container breaks off mid-stream.

Because the framing is the wire format (prelude, headers, CRC32s, as botocore/eventstream.py parses
it), boto3 runs unmodified against it: `client("sagemaker-runtime", endpoint_url=<stand-in>)` with
dummy credentials. Signatures are not checked.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from binascii import crc32
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from model_server.contract import INVOCATIONS_PATH

EVENTSTREAM_CONTENT_TYPE = "application/vnd.amazon.eventstream"
ACCOUNT = "000000000000"
_STRING = 7  # event stream header value type: utf-8 string with a 2-byte length


def encode_headers(headers: dict[str, str]) -> bytes:
    out = bytearray()
    for name, value in headers.items():
        name_bytes, value_bytes = name.encode(), value.encode()
        out += struct.pack("!B", len(name_bytes)) + name_bytes
        out += struct.pack("!BH", _STRING, len(value_bytes)) + value_bytes
    return bytes(out)


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One event stream message: [total len][headers len][prelude crc][headers][payload][message crc]."""
    header_bytes = encode_headers(headers)
    total = 12 + len(header_bytes) + len(payload) + 4
    prelude = struct.pack("!II", total, len(header_bytes))
    prelude += struct.pack("!I", crc32(prelude) & 0xFFFFFFFF)
    message = prelude + header_bytes + payload
    return message + struct.pack("!I", crc32(message) & 0xFFFFFFFF)


def payload_part(chunk: bytes) -> bytes:
    return encode_message(
        {":event-type": "PayloadPart", ":content-type": "application/octet-stream", ":message-type": "event"},
        chunk,
    )


def model_stream_error(message: str, code: str = "ModelStreamError") -> bytes:
    return encode_message(
        {
            ":exception-type": "ModelStreamError",
            ":content-type": "application/json",
            ":message-type": "exception",
        },
        json.dumps({"Message": message, "ErrorCode": code}).encode(),
    )


def _aws_error(status: int, code: str, body: dict) -> JSONResponse:
    # rest-json errors: botocore reads the code from x-amzn-ErrorType (text before the first colon).
    return JSONResponse(
        body, status_code=status, headers={"x-amzn-ErrorType": f"{code}:http://internal.amazon.com/"}
    )


def create_app(upstream: str, endpoint_name: str, *, variant: str = "AllTraffic") -> Starlette:
    """The stand-in runtime for one endpoint whose container listens at `upstream` (a base URL)."""
    upstream = upstream.rstrip("/")
    # One pooled client for the app's life: building an httpx client loads the CA bundle (tens of ms),
    # which would otherwise show up in every measured time to first chunk.
    clients: list[httpx.AsyncClient] = []

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        clients.append(httpx.AsyncClient(timeout=httpx.Timeout(120.0, connect=5.0)))
        try:
            yield
        finally:
            await clients.pop().aclose()

    log_stream = f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/aws/sagemaker/Endpoints/{endpoint_name}"

    async def invoke_stream(request: Request) -> Response:
        name = request.path_params["name"]
        if name != endpoint_name:
            return _aws_error(
                400, "ValidationError", {"message": f"Endpoint {name} of account {ACCOUNT} not found."}
            )
        body = await request.body()
        # SageMaker strips every other header before the container sees the request.
        forwarded = {"Content-Type": request.headers.get("content-type", "application/octet-stream")}
        if "x-amzn-sagemaker-accept" in request.headers:
            forwarded["Accept"] = request.headers["x-amzn-sagemaker-accept"]
        client = clients[0]
        try:
            upstream_response = await client.send(
                client.build_request("POST", upstream + INVOCATIONS_PATH, content=body, headers=forwarded),
                stream=True,
            )
        except httpx.HTTPError as exc:
            return _aws_error(500, "InternalFailure", {"message": f"container unreachable: {exc!r}"})
        if upstream_response.status_code != 200:
            text = (await upstream_response.aread()).decode("utf-8", "replace")
            await upstream_response.aclose()
            status = upstream_response.status_code
            kind = "client" if status < 500 else "server"
            return _aws_error(
                424,
                "ModelError",
                {
                    "ErrorCode": f"{kind.upper()}_ERROR_FROM_MODEL",
                    "LogStreamArn": log_stream,
                    "Message": f'Received {kind} error ({status}) from primary with message "{text}".',
                    "OriginalMessage": text,
                    "OriginalStatusCode": status,
                },
            )

        async def events() -> AsyncIterator[bytes]:
            try:
                async for chunk in upstream_response.aiter_raw():
                    if chunk:
                        yield payload_part(chunk)
            except httpx.HTTPError as exc:
                yield model_stream_error(f"Model stream broke off: {exc!r}")
            finally:
                await upstream_response.aclose()

        return StreamingResponse(
            events(),
            media_type=EVENTSTREAM_CONTENT_TYPE,
            headers={
                "X-Amzn-SageMaker-Content-Type": upstream_response.headers.get(
                    "content-type", "application/octet-stream"
                ),
                "x-Amzn-Invoked-Production-Variant": variant,
            },
        )

    return Starlette(
        routes=[Route("/endpoints/{name}/invocations-response-stream", invoke_stream, methods=["POST"])],
        lifespan=lifespan,
    )


@contextmanager
def serve_in_thread(app, *, host: str = "127.0.0.1", startup_timeout: float = 10.0) -> Iterator[str]:
    """Run an ASGI app on a free port in a daemon thread; yields its base URL, stops it on exit."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"ASGI server on {host}:{port} did not start within {startup_timeout} s")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def main() -> None:
    """Serve the stand-in in the foreground, for trying the SageMaker route against a local server."""
    import argparse

    parser = argparse.ArgumentParser(description="Local stand-in for the SageMaker runtime's streaming API")
    parser.add_argument(
        "--upstream", required=True, help="base URL of the container, e.g. http://127.0.0.1:8080"
    )
    parser.add_argument("--endpoint", default="statespeak-tts", help="endpoint name to answer for")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    args = parser.parse_args()
    uvicorn.run(create_app(args.upstream, args.endpoint), host=args.host, port=args.port, log_level="info")


if __name__ == "__main__":
    main()
