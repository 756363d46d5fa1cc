"""One streaming speech client for both routes: the self-managed service and the SageMaker endpoint.

    client = SpeechClient("http://internal-alb.example:80")       # ECS route, POST /tts/bytes
    client = SpeechClient("http://alb", transport="websocket")      # ECS route, WS /tts/websocket
    client = SpeechClient("sagemaker://statespeak-endpoint")        # managed route, InvokeEndpointWithResponseStream
    with client.stream("Hello there.", voice="en_female_slt") as stream:
        for chunk in stream:                                        # audio bytes, as they arrive
            play(chunk)
    print(stream.time_to_first_chunk)

The same request fields travel on every route (the Cartesia /tts/bytes body), so switching between the
routes is a change of the target string and nothing else. Dependency-light on purpose: httpx, websockets
and boto3 are imported only by the route that needs them, so the benchmark, the tests and users who
only call one route do not pay for the others.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

SAGEMAKER_SCHEME = "sagemaker://"
TTS_BYTES_PATH = "/tts/bytes"
TTS_WEBSOCKET_PATH = "/tts/websocket"
# Sent so a real Cartesia-compatible server picks its current API shape; ours ignores unknown values.
CARTESIA_VERSION = "2025-04-16"
DEFAULT_MODEL_ID = "statespeak"
DEFAULT_OUTPUT_FORMAT = {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}
TRANSPORTS = ("bytes", "websocket")
ENV_TARGET = "STATESPEAK_TARGET"  # read by SpeechClient.from_env()
ENV_CLIENT_API_KEY = "STATESPEAK_API_KEY"  # the key a client sends (the bench reads the same variable)

# SageMaker endpoint names: 1-63 characters, alphanumerics separated by single or repeated hyphens.
_ENDPOINT_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")


class SpeechClientError(Exception):
    """A request the target refused or could not complete.

    `status` is the HTTP status of the route (for SageMaker, the container's original status when the
    runtime reports one), `retry_after` the server's back-off hint on admission refusals, in seconds.
    """

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True)
class SpeechRequest:
    """The request fields shared by every route (the Cartesia /tts/bytes body)."""

    transcript: str
    voice: str | dict[str, Any]
    output_format: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_OUTPUT_FORMAT))
    language: str = "en"
    speed: float = 1.0
    model_id: str = DEFAULT_MODEL_ID

    def __post_init__(self) -> None:
        if not isinstance(self.transcript, str) or not self.transcript.strip():
            raise ValueError("transcript must be a non-empty string")
        if not isinstance(self.voice, str | dict) or not self.voice:
            raise ValueError(
                "voice must be a voice id or a Cartesia voice object such as {'mode': 'id', 'id': ...}"
            )
        if not isinstance(self.output_format, dict):
            raise ValueError("output_format must be a dict with container, encoding and sample_rate")
        if (
            isinstance(self.speed, bool)
            or not isinstance(self.speed, int | float)
            or not 0 < self.speed < float("inf")
        ):
            raise ValueError(f"speed must be a positive number, got {self.speed!r}")

    def body(self) -> dict[str, Any]:
        voice = {"mode": "id", "id": self.voice} if isinstance(self.voice, str) else dict(self.voice)
        return {
            "model_id": self.model_id,
            "transcript": self.transcript,
            "voice": voice,
            "output_format": dict(self.output_format),
            "language": self.language,
            "speed": self.speed,
        }

    @property
    def is_wav(self) -> bool:
        return self.output_format.get("container") == "wav"

    @property
    def accept(self) -> str:
        return "audio/wav" if self.is_wav else "application/octet-stream"


class _AudioClock:
    """Times one stream: time to the first chunk that carries audio samples, and totals.

    A WAV stream starts with its RIFF header, which the server can send before any sample exists, so
    the clock skips bytes up to the end of the `data` chunk header before it counts audio.
    """

    def __init__(self, wav: bool):
        self.started = time.perf_counter()
        self.time_to_first_chunk: float | None = None
        self.elapsed: float | None = None
        self.bytes_received = 0
        self.chunks = 0
        self._in_wav_header = wav
        self._head = b""

    def see(self, chunk: bytes) -> None:
        self.bytes_received += len(chunk)
        self.chunks += 1
        audio = len(chunk)
        if self._in_wav_header:  # samples start after the `data` chunk id and its 4-byte size
            self._head += chunk
            at = self._head.find(b"data")
            if at < 0 or len(self._head) < at + 8:
                return
            audio = len(self._head) - (at + 8)
            self._in_wav_header = False
            self._head = b""
        if audio > 0 and self.time_to_first_chunk is None:
            self.time_to_first_chunk = time.perf_counter() - self.started

    def finish(self) -> None:
        if self.elapsed is None:
            self.elapsed = time.perf_counter() - self.started


class SpeechStream:
    """Audio chunks of one request, yielded as they arrive; also a context manager.

    `time_to_first_chunk` (seconds from sending the request to the first audio bytes), `elapsed`,
    `bytes_received` and `chunks` are filled in while the stream is consumed.
    """

    def __init__(self, chunks: Iterator[bytes], clock: _AudioClock, closer: Callable[[], None]):
        self._chunks = chunks
        self._clock = clock
        self._closer = closer
        self._closed = False

    @property
    def time_to_first_chunk(self) -> float | None:
        return self._clock.time_to_first_chunk

    @property
    def elapsed(self) -> float | None:
        return self._clock.elapsed

    @property
    def bytes_received(self) -> int:
        return self._clock.bytes_received

    @property
    def chunks(self) -> int:
        return self._clock.chunks

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self._chunks:
                if chunk:
                    self._clock.see(chunk)
                    yield chunk
            self._clock.finish()
        finally:
            self.close()

    def read(self) -> bytes:
        """Consume the whole stream and return the audio."""
        return b"".join(self)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._closer()

    def __enter__(self) -> SpeechStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncSpeechStream:
    """The asyncio twin of SpeechStream: `async for chunk in stream`, same timing attributes."""

    def __init__(self, chunks: AsyncIterator[bytes], clock: _AudioClock, closer: Callable[[], Any]):
        self._chunks = chunks
        self._clock = clock
        self._closer = closer
        self._closed = False

    time_to_first_chunk = SpeechStream.time_to_first_chunk
    elapsed = SpeechStream.elapsed
    bytes_received = SpeechStream.bytes_received
    chunks = SpeechStream.chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._chunks:
                if chunk:
                    self._clock.see(chunk)
                    yield chunk
            self._clock.finish()
        finally:
            await self.aclose()

    async def read(self) -> bytes:
        return b"".join([chunk async for chunk in self])

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            result = self._closer()
            if asyncio.iscoroutine(result):
                await result

    async def __aenter__(self) -> AsyncSpeechStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _error_text(body: dict[str, Any]) -> str:
    """The readable part of a server error: Cartesia `{message, field}`, OpenAI `{error: {...}}`, FastAPI
    `{detail}`; the field at fault first when the server names one."""
    inner = body.get("error")
    if isinstance(inner, dict):
        body = inner
    message = body.get("message") or (inner if isinstance(inner, str) else None) or body.get("detail") or body
    field = body.get("field") or body.get("param")
    return f"{field}: {message}" if field else str(message)


def _error_from_http(status: int, body: bytes, headers: Any, target: str) -> SpeechClientError:
    """Turn the server's JSON error (`{"error": ...}` or `{"detail": ...}`) into one readable message."""
    detail: Any = body.decode("utf-8", "replace").strip()
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        detail = _error_text(parsed)
    retry = headers.get("retry-after") if headers is not None else None
    try:
        retry_after = float(retry) if retry is not None else None
    except ValueError:
        retry_after = None
    return SpeechClientError(f"{target} answered {status}: {detail}", status=status, retry_after=retry_after)


class SpeechClient:
    """Streams speech from `target`: an http(s) base URL (the load balancer) or `sagemaker://<endpoint>`.

    Parameters:
        target: `http(s)://host[:port]` for the self-managed service, `sagemaker://<endpoint-name>` for
            the managed endpoint.
        transport: HTTP targets only: "bytes" (POST /tts/bytes, chunked) or "websocket" (/tts/websocket).
        api_key: HTTP targets only, sent as `Authorization: Bearer` (SageMaker authenticates with IAM).
        region, endpoint_url: SageMaker only; endpoint_url points boto3 at another runtime endpoint
            (a VPC interface endpoint's DNS name, or a local stand-in in tests).
        timeout: seconds to wait for the connection and between two chunks.
        boto_session: SageMaker only; a boto3 Session to take credentials and region from.
    """

    def __init__(
        self,
        target: str,
        *,
        transport: str = "bytes",
        api_key: str | None = None,
        region: str | None = None,
        endpoint_url: str | None = None,
        timeout: float = 60.0,
        boto_session: Any = None,
    ):
        if transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {TRANSPORTS}, got {transport!r}")
        self.target = target
        self.transport = transport
        self.timeout = timeout
        self._api_key = api_key
        self._http: Any = None
        self._sm: Any = None
        self._lock = threading.Lock()
        if target.startswith(SAGEMAKER_SCHEME):
            self.kind = "sagemaker"
            self.endpoint_name = target[len(SAGEMAKER_SCHEME) :].strip("/")
            if not _ENDPOINT_NAME.match(self.endpoint_name):
                raise ValueError(
                    f"{target!r}: a SageMaker endpoint name is 1-63 letters, digits and hyphens, "
                    "starting and ending with a letter or digit"
                )
            if transport != "bytes":
                raise ValueError("SageMaker targets stream over InvokeEndpointWithResponseStream only")
            self._region = region
            self._endpoint_url = endpoint_url
            self._boto_session = boto_session
        else:
            parts = urlsplit(target)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError(
                    f"target {target!r} is neither an http(s):// base URL nor {SAGEMAKER_SCHEME}<endpoint-name>"
                )
            if region or endpoint_url or boto_session:
                raise ValueError("region, endpoint_url and boto_session apply to sagemaker:// targets only")
            self.kind = "http"
            self.base_url = target.rstrip("/")

    @classmethod
    def from_env(cls, **kwargs: Any) -> SpeechClient:
        """A client for `$STATESPEAK_TARGET` (with `$STATESPEAK_API_KEY` for HTTP targets, and `$AWS_REGION`, else
        boto3's own region settings, for sagemaker:// targets).

        Lets an application switch routes with a configuration change and a restart, no code change.
        """
        target = os.environ.get(ENV_TARGET, "").strip()
        if not target:
            raise ValueError(
                f"${ENV_TARGET} is not set: an http(s):// base URL or {SAGEMAKER_SCHEME}<endpoint-name>"
            )
        if not target.startswith(SAGEMAKER_SCHEME) and "api_key" not in kwargs:
            kwargs["api_key"] = os.environ.get(ENV_CLIENT_API_KEY) or None
        if target.startswith(SAGEMAKER_SCHEME) and "region" not in kwargs and "boto_session" not in kwargs:
            # boto3 reads only AWS_DEFAULT_REGION; AWS_REGION is what the other SDKs, Lambda and ECS set
            kwargs["region"] = os.environ.get("AWS_REGION") or None
        return cls(target, **kwargs)

    # -- public API ---------------------------------------------------------------------------------

    def stream(
        self,
        transcript: str,
        *,
        voice: str | dict[str, Any],
        output_format: dict[str, Any] | None = None,
        language: str = "en",
        speed: float = 1.0,
        model_id: str = DEFAULT_MODEL_ID,
    ) -> SpeechStream:
        """Start one synthesis; returns a SpeechStream that yields audio bytes as they arrive.

        The request is sent before this returns, so a refusal (4xx/5xx) raises SpeechClientError here.
        """
        request = SpeechRequest(
            transcript, voice, dict(output_format or DEFAULT_OUTPUT_FORMAT), language, speed, model_id
        )
        self._prepare()  # client construction (boto3 import, connection pool) is not time to first chunk
        clock = _AudioClock(request.is_wav)
        if self.kind == "sagemaker":
            chunks, closer = self._sagemaker_open(request)
        elif self.transport == "websocket":
            chunks, closer = self._websocket_open(request)
        else:
            chunks, closer = self._bytes_open(request)
        return SpeechStream(chunks, clock, closer)

    def synthesize(self, transcript: str, **fields: Any) -> tuple[bytes, SpeechStream]:
        """Convenience: the whole audio and the finished stream (for its timings)."""
        stream = self.stream(transcript, **fields)
        return stream.read(), stream

    async def astream(
        self,
        transcript: str,
        *,
        voice: str | dict[str, Any],
        output_format: dict[str, Any] | None = None,
        language: str = "en",
        speed: float = 1.0,
        model_id: str = DEFAULT_MODEL_ID,
    ) -> AsyncSpeechStream:
        """asyncio variant of stream(). HTTP routes are natively async; the SageMaker route runs the
        blocking boto3 reads in worker threads, one chunk at a time, so chunks still arrive in order."""
        request = SpeechRequest(
            transcript, voice, dict(output_format or DEFAULT_OUTPUT_FORMAT), language, speed, model_id
        )
        if self.kind == "sagemaker":
            await asyncio.to_thread(self._prepare)
        clock = _AudioClock(request.is_wav)
        if self.kind == "sagemaker":
            chunks, closer = await asyncio.to_thread(self._sagemaker_open, request)
            return AsyncSpeechStream(_threaded(chunks), clock, closer)
        if self.transport == "websocket":
            achunks, acloser = await self._websocket_aopen(request)
        else:
            achunks, acloser = await self._bytes_aopen(request)
        return AsyncSpeechStream(achunks, clock, acloser)

    def _prepare(self) -> None:
        if self.kind == "sagemaker":
            self._sagemaker_client()
        elif self.transport == "bytes" and self._http is None:
            import httpx

            with self._lock:  # several threads may make the first call at once
                if self._http is None:  # one pooled client per SpeechClient: keep-alive across requests
                    self._http = httpx.Client(base_url=self.base_url, timeout=self._httpx_timeout())

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None
        if self._sm is not None:
            self._sm.close()
            self._sm = None

    def __enter__(self) -> SpeechClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- HTTP /tts/bytes ----------------------------------------------------------------------------

    def _headers(self, request: SpeechRequest) -> dict[str, str]:
        headers = {"Cartesia-Version": CARTESIA_VERSION, "Accept": request.accept}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _httpx_timeout(self) -> Any:
        import httpx

        return httpx.Timeout(self.timeout, connect=min(self.timeout, 10.0))

    def _bytes_open(self, request: SpeechRequest) -> tuple[Iterator[bytes], Callable[[], None]]:
        import httpx

        self._prepare()
        http_request = self._http.build_request(
            "POST", TTS_BYTES_PATH, json=request.body(), headers=self._headers(request)
        )
        try:
            response = self._http.send(http_request, stream=True)
        except httpx.HTTPError as exc:
            raise SpeechClientError(f"{self.base_url}{TTS_BYTES_PATH}: {exc!r}") from exc
        if response.status_code != 200:
            body = response.read()
            response.close()
            raise _error_from_http(
                response.status_code, body, response.headers, self.base_url + TTS_BYTES_PATH
            )

        def chunks() -> Iterator[bytes]:
            try:
                yield from response.iter_raw()
            except httpx.HTTPError as exc:
                raise SpeechClientError(f"{self.base_url}{TTS_BYTES_PATH}: stream broke: {exc!r}") from exc

        return chunks(), response.close

    async def _bytes_aopen(self, request: SpeechRequest) -> tuple[AsyncIterator[bytes], Callable[[], Any]]:
        import httpx

        # A client per stream: an AsyncClient is bound to the event loop it was first used on.
        client = httpx.AsyncClient(base_url=self.base_url, timeout=self._httpx_timeout())
        try:
            http_request = client.build_request(
                "POST", TTS_BYTES_PATH, json=request.body(), headers=self._headers(request)
            )
            response = await client.send(http_request, stream=True)
        except httpx.HTTPError as exc:
            await client.aclose()
            raise SpeechClientError(f"{self.base_url}{TTS_BYTES_PATH}: {exc!r}") from exc
        if response.status_code != 200:
            body = await response.aread()
            await response.aclose()
            await client.aclose()
            raise _error_from_http(
                response.status_code, body, response.headers, self.base_url + TTS_BYTES_PATH
            )

        async def chunks() -> AsyncIterator[bytes]:
            try:
                async for chunk in response.aiter_raw():
                    yield chunk
            except httpx.HTTPError as exc:
                raise SpeechClientError(f"{self.base_url}{TTS_BYTES_PATH}: stream broke: {exc!r}") from exc

        async def closer() -> None:
            await response.aclose()
            await client.aclose()

        return chunks(), closer

    # -- HTTP /tts/websocket ------------------------------------------------------------------------

    def _websocket_url(self) -> str:
        url = "ws" + self.base_url[len("http") :] + TTS_WEBSOCKET_PATH
        # The key travels in a header, never in the URL: URLs land in access logs, and internet-facing
        # entries refuse `?api_key=`.
        return f"{url}?{urlencode({'cartesia_version': CARTESIA_VERSION})}"

    def _websocket_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def _websocket_message(self, request: SpeechRequest, context_id: str) -> str:
        if request.is_wav:
            raise ValueError("the WebSocket route streams raw audio only: use output_format container 'raw'")
        return json.dumps({**request.body(), "context_id": context_id, "continue": False})

    def _websocket_chunk(self, raw: str | bytes, context_id: str) -> bytes | None:
        """Audio bytes of one server message, None once the context is done; raises on `error`."""
        try:
            message = json.loads(raw)
        except ValueError as exc:
            raise SpeechClientError(
                f"{self.base_url}{TTS_WEBSOCKET_PATH}: not a JSON message: {raw[:80]!r}"
            ) from exc
        if not isinstance(message, dict):
            raise SpeechClientError(f"{self.base_url}{TTS_WEBSOCKET_PATH}: unexpected message {raw[:80]!r}")
        if message.get("context_id", context_id) != context_id:
            return b""
        kind = message.get("type")
        if kind == "chunk":
            return base64.b64decode(message.get("data") or "")
        if kind == "error":
            status = message.get("status_code")
            raise SpeechClientError(
                f"{self.base_url}{TTS_WEBSOCKET_PATH}: {_error_text(message)}",
                status=status if isinstance(status, int) else None,
            )
        if kind == "done" or message.get("done") is True:
            return None
        return b""  # timestamps, flush_done: not audio

    def _websocket_open(self, request: SpeechRequest) -> tuple[Iterator[bytes], Callable[[], None]]:
        from websockets.exceptions import InvalidStatus, WebSocketException
        from websockets.sync.client import connect

        context_id = uuid.uuid4().hex
        message = self._websocket_message(request, context_id)
        try:
            # Entered by hand: the connection outlives this call (the stream closes it), so no `with`.
            ws = connect(
                self._websocket_url(),
                additional_headers=self._websocket_headers(),
                open_timeout=self.timeout,
                close_timeout=min(self.timeout, 1.0),
                max_size=None,
            ).__enter__()
            ws.send(message)
        except InvalidStatus as exc:
            r = exc.response
            raise _error_from_http(
                r.status_code, r.body or b"", r.headers, self.base_url + TTS_WEBSOCKET_PATH
            ) from exc
        except (OSError, WebSocketException) as exc:
            raise SpeechClientError(f"{self.base_url}{TTS_WEBSOCKET_PATH}: {exc!r}") from exc

        def chunks() -> Iterator[bytes]:
            try:
                while True:
                    audio = self._websocket_chunk(ws.recv(timeout=self.timeout), context_id)
                    if audio is None:
                        return
                    yield audio
            except (TimeoutError, WebSocketException) as exc:
                raise SpeechClientError(
                    f"{self.base_url}{TTS_WEBSOCKET_PATH}: stream broke: {exc!r}"
                ) from exc

        return chunks(), ws.close

    async def _websocket_aopen(
        self, request: SpeechRequest
    ) -> tuple[AsyncIterator[bytes], Callable[[], Any]]:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus, WebSocketException

        context_id = uuid.uuid4().hex
        message = self._websocket_message(request, context_id)
        try:
            ws = await connect(
                self._websocket_url(),
                additional_headers=self._websocket_headers(),
                open_timeout=self.timeout,
                close_timeout=min(self.timeout, 1.0),
                max_size=None,
            )
            await ws.send(message)
        except InvalidStatus as exc:
            r = exc.response
            raise _error_from_http(
                r.status_code, r.body or b"", r.headers, self.base_url + TTS_WEBSOCKET_PATH
            ) from exc
        except (OSError, WebSocketException) as exc:
            raise SpeechClientError(f"{self.base_url}{TTS_WEBSOCKET_PATH}: {exc!r}") from exc

        async def chunks() -> AsyncIterator[bytes]:
            try:
                while True:
                    raw = await asyncio.wait_for(ws.recv(), self.timeout)
                    audio = self._websocket_chunk(raw, context_id)
                    if audio is None:
                        return
                    yield audio
            except (TimeoutError, WebSocketException) as exc:
                raise SpeechClientError(
                    f"{self.base_url}{TTS_WEBSOCKET_PATH}: stream broke: {exc!r}"
                ) from exc

        return chunks(), ws.close

    # -- SageMaker ----------------------------------------------------------------------------------

    def _sagemaker_client(self) -> Any:
        with self._lock:  # the benchmark opens streams from many threads at once
            if self._sm is None:
                self._sm = self._new_sagemaker_client()
        return self._sm

    def _new_sagemaker_client(self) -> Any:
        import boto3
        from botocore.config import Config

        session = self._boto_session or boto3.session.Session()
        config = Config(
            # One attempt: a refusal must reach the caller (and the benchmark) as it does on the ALB.
            retries={"total_max_attempts": 1},
            connect_timeout=min(self.timeout, 10.0),
            read_timeout=self.timeout,
            max_pool_connections=64,
        )
        from botocore.exceptions import BotoCoreError

        try:
            return session.client(
                "sagemaker-runtime", region_name=self._region, endpoint_url=self._endpoint_url, config=config
            )
        except BotoCoreError as exc:  # NoRegionError, InvalidRegionError: a setup fault, said as one
            raise SpeechClientError(
                f"{SAGEMAKER_SCHEME}{self.endpoint_name}: {exc} (set AWS_REGION or pass region=)"
            ) from exc

    def _sagemaker_open(self, request: SpeechRequest) -> tuple[Iterator[bytes], Callable[[], None]]:
        from botocore.exceptions import BotoCoreError, ClientError, EventStreamError
        from urllib3.exceptions import HTTPError as TransportError  # ProtocolError, ReadTimeoutError

        where = f"{SAGEMAKER_SCHEME}{self.endpoint_name}"
        try:
            response = self._sagemaker_client().invoke_endpoint_with_response_stream(
                EndpointName=self.endpoint_name,
                Body=json.dumps(request.body()).encode(),
                ContentType="application/json",
                Accept=request.accept,
            )
        except ClientError as exc:
            raise _error_from_sagemaker(exc, where) from exc
        except BotoCoreError as exc:
            raise SpeechClientError(f"{where}: {exc}") from exc
        events = response["Body"]

        def chunks() -> Iterator[bytes]:
            try:
                for event in events:
                    part = event.get("PayloadPart")
                    if part is not None:
                        yield part.get("Bytes", b"")
            except EventStreamError as exc:  # ModelStreamError / InternalStreamFailure mid-stream
                raise _error_from_sagemaker(exc, where) from exc
            except (BotoCoreError, TransportError, OSError) as exc:
                raise SpeechClientError(f"{where}: stream broke: {exc!r}") from exc

        return chunks(), events.close


def _error_from_sagemaker(exc: Any, where: str) -> SpeechClientError:
    """ModelError carries the container's own status and message: surface those, not SageMaker's 424."""
    error = exc.response.get("Error", {})
    original = exc.response.get("OriginalStatusCode")
    status = (
        int(original)
        if original is not None
        else exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    )
    message = exc.response.get("OriginalMessage") or error.get("Message") or str(exc)
    try:
        parsed = json.loads(message)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):  # the container's own JSON error, passed through by the runtime
        message = _error_text(parsed)
    return SpeechClientError(f"{where}: {error.get('Code', 'error')}: {message}", status=status)


async def _threaded(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    """Drive a blocking iterator from asyncio, one `next` per worker-thread hop."""
    done = object()
    while True:
        chunk = await asyncio.to_thread(next, chunks, done)
        if chunk is done:
            return
        yield chunk
