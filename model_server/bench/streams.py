"""One synthesis stream per call, over each protocol the server speaks; returns what arrived and when.

Every driver records the same thing, a `RawStream`: the arrival time of each audio chunk (seconds since
the request was sent, on the client's monotonic clock) and its audio length, the server's own time to
first audio when the protocol carries it, and how the stream ended. Nothing here interprets timings;
`playback.simulate_playback` and the runner do.

Where the client clock starts:
- WebSocket: when the first transcript message is handed to the socket. The connection is opened
  first and not counted, as a voice agent keeps its socket open across turns.
- HTTP (/tts/bytes, /tts/sse): when the request is handed to the connection pool. A fresh TCP
  connection is part of the measured time, as it is for a client that does not reuse connections.
- SageMaker: when the switching client is asked for the stream (it signs and sends the request).
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets
from websockets.exceptions import InvalidStatus

from .texts import TextItem, split_for_continuation

BYTES_PER_SAMPLE = 2  # the bench always asks for pcm_s16le: cheap to encode, exact to count


class StreamStatus:
    OK = "ok"
    REJECTED = "rejected"  # admission control said no (HTTP 503 / WS error with status 503)
    ERROR = "error"
    CUT = "cut"  # still running when the level's time budget ran out: not counted as a failure


@dataclass
class RawStream:
    kind: str
    chars: int
    status: str = StreamStatus.OK
    error: str | None = None
    arrivals: list[tuple[float, float]] = field(default_factory=list)  # (s since send, audio s)
    server_ttfa_ms: float | None = None
    wall_s: float = 0.0


@dataclass(frozen=True)
class StreamOptions:
    voice: str
    sample_rate: int = 16000
    model_id: str = "statespeak"
    language: str = "en"
    api_key: str | None = None
    continuations: bool = False  # WebSocket only: send the transcript in pieces with continue=true
    words_per_piece: int = 4
    piece_interval_s: float = 0.05  # pause between pieces, about an LLM's token rate in words
    timeout_s: float = 60.0  # one stream's bound, whatever the protocol

    def headers(self) -> dict[str, str]:
        # identity: a compressing proxy (or server) gave /tts/bytes gzip bytes, counted as audio (48x too little)
        headers = {"Accept-Encoding": "identity"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def request_body(self, transcript: str) -> dict[str, Any]:
        """The Cartesia /tts/bytes body (also the /invocations and WebSocket request)."""
        return {
            "model_id": self.model_id,
            "transcript": transcript,
            "voice": {"mode": "id", "id": self.voice},
            "output_format": {"container": "raw", "encoding": "pcm_s16le", "sample_rate": self.sample_rate},
            "language": self.language,
        }


# Keys a server may use for its own time to first audio in the final message (the bundled server sends
# {"type": "done", "metrics": {"ttfb_ms": ...}}: request received -> first audio encoded).
SERVER_TTFA_KEYS = ("ttfb_ms", "ttfa_ms", "time_to_first_audio_ms")


def server_ttfa_from(message: dict[str, Any]) -> float | None:
    """The server-reported time to first audio (ms) in a done/final message, if it carries one."""
    for key in SERVER_TTFA_KEYS:
        value = message.get(key)
        if isinstance(value, int | float):
            return float(value)
    metrics = message.get("metrics")
    if isinstance(metrics, dict):
        return server_ttfa_from(metrics)
    return None


def _audio_seconds(nbytes: int, sample_rate: int) -> float:
    return nbytes / (BYTES_PER_SAMPLE * sample_rate)


def _handle_message(msg: dict[str, Any], raw: RawStream, t0: float, sample_rate: int) -> bool:
    """Apply one Cartesia server message (WS or SSE) to `raw`; True when the stream is finished."""
    kind = msg.get("type")
    if kind == "chunk":
        data = msg.get("data") or ""
        # validate: junk raises (an error stream), never a wrong length of audio
        nbytes = len(base64.b64decode(data, validate=True)) if data else 0
        if nbytes:
            raw.arrivals.append((time.perf_counter() - t0, _audio_seconds(nbytes, sample_rate)))
        if msg.get("done") is True:  # some servers mark the last chunk done instead of a done message
            raw.server_ttfa_ms = server_ttfa_from(msg)
            return True
        return False
    if kind == "done":
        raw.server_ttfa_ms = server_ttfa_from(msg)
        return True
    if kind == "error":
        text = str(msg.get("message") or msg.get("error") or msg)
        code = msg.get("error_code") or ""
        # Admission refusal: a 503 before any audio. A 503 after audio (the server cut a running stream)
        # is a failure of that stream, not a rejection.
        rejected = msg.get("status_code") == 503 and not raw.arrivals
        raw.status = StreamStatus.REJECTED if rejected else StreamStatus.ERROR
        raw.error = f"{code}: {text}"[:300] if code else text[:300]
        return True
    return False  # timestamps, flush_done and unknown messages carry no audio


async def ws_stream(base_url: str, item: TextItem, opts: StreamOptions) -> RawStream:
    """One stream over WS /tts/websocket, one connection per stream."""
    raw = RawStream(item.kind, len(item.text))
    ws_url = base_url.replace("https://", "wss://").replace("http://", "ws://").rstrip("/") + "/tts/websocket"
    context_id = uuid.uuid4().hex
    t0 = time.perf_counter()
    try:
        async with asyncio.timeout(opts.timeout_s):
            async with websockets.connect(
                ws_url, additional_headers=opts.headers(), max_size=None, open_timeout=opts.timeout_s
            ) as ws:
                pieces = split_for_continuation(item.text, opts.words_per_piece) if opts.continuations else []

                async def send_all() -> None:
                    if not opts.continuations:
                        await ws.send(json.dumps({**opts.request_body(item.text), "context_id": context_id}))
                        return
                    for i, piece in enumerate(pieces):
                        if i:
                            await asyncio.sleep(opts.piece_interval_s)
                        body = {**opts.request_body(piece), "context_id": context_id, "continue": True}
                        await ws.send(json.dumps(body))
                    # An empty transcript with continue=false closes the context (Cartesia's convention).
                    await ws.send(
                        json.dumps({**opts.request_body(""), "context_id": context_id, "continue": False})
                    )

                t0 = time.perf_counter()
                sender = asyncio.create_task(send_all())
                try:
                    async for frame in ws:
                        msg = json.loads(frame)
                        if msg.get("context_id") not in (None, context_id):
                            continue
                        if _handle_message(msg, raw, t0, opts.sample_rate):
                            break
                    else:
                        if raw.status == StreamStatus.OK:
                            raw.status, raw.error = StreamStatus.ERROR, "connection closed before done"
                finally:
                    sender.cancel()
                    try:
                        await sender
                    except (asyncio.CancelledError, websockets.ConnectionClosed):
                        pass
    except InvalidStatus as exc:
        code = exc.response.status_code
        raw.status = StreamStatus.REJECTED if code == 503 else StreamStatus.ERROR
        raw.error = f"websocket upgrade refused: HTTP {code}"
    except TimeoutError:
        raw.status, raw.error = StreamStatus.ERROR, f"no done within {opts.timeout_s:.0f}s"
    except (OSError, websockets.WebSocketException, json.JSONDecodeError) as exc:
        raw.status, raw.error = StreamStatus.ERROR, f"{type(exc).__name__}: {exc}"[:300]
    raw.wall_s = time.perf_counter() - t0
    return raw


async def http_stream(
    client: httpx.AsyncClient, base_url: str, item: TextItem, opts: StreamOptions, sse: bool = False
) -> RawStream:
    """One stream over POST /tts/bytes (raw PCM body) or /tts/sse (JSON events with base64 audio)."""
    raw = RawStream(item.kind, len(item.text))
    path = "/tts/sse" if sse else "/tts/bytes"
    t0 = time.perf_counter()
    try:
        async with asyncio.timeout(opts.timeout_s):
            async with client.stream(
                "POST", base_url.rstrip("/") + path, json=opts.request_body(item.text), headers=opts.headers()
            ) as resp:
                if resp.status_code != 200:
                    body = (await resp.aread()).decode("utf-8", "replace")
                    rejected = resp.status_code == 503
                    raw.status = StreamStatus.REJECTED if rejected else StreamStatus.ERROR
                    raw.error = f"HTTP {resp.status_code}: {body[:200]}"
                elif sse:
                    finished = False
                    async for line in resp.aiter_lines():
                        if line.startswith("data:"):
                            msg = json.loads(line[5:].strip())
                            if _handle_message(msg, raw, t0, opts.sample_rate):
                                finished = True
                                break
                    if not finished and raw.status == StreamStatus.OK:
                        raw.status, raw.error = StreamStatus.ERROR, "event stream ended before done"
                else:
                    async for data in resp.aiter_raw():  # identity encoding asked for: raw bytes are audio
                        if data:
                            raw.arrivals.append(
                                (time.perf_counter() - t0, _audio_seconds(len(data), opts.sample_rate))
                            )
    except TimeoutError:
        raw.status, raw.error = StreamStatus.ERROR, f"not finished within {opts.timeout_s:.0f}s"
    except (httpx.HTTPError, json.JSONDecodeError) as exc:
        raw.status, raw.error = StreamStatus.ERROR, f"{type(exc).__name__}: {exc}"[:300]
    raw.wall_s = time.perf_counter() - t0
    return raw
