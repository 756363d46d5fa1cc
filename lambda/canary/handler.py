"""Latency canary: one real synthesis stream a minute against the deployed route, published as metrics.

Runs inside the VPC (the ALB is internal, the SageMaker runtime is reached through an interface
endpoint), speaks one short agent turn, and measures what a caller would see:
- time to first audio: from just before the request is sent (TCP connect included on the ALB route,
  request signing included on the SageMaker route) to the first audio bytes received;
- stalls: the received chunks replayed against a real-time player with a jitter buffer (the same
  model as the load bench, model_server/bench/playback.py: start once `jitter` of audio is buffered,
  a stall when the playhead catches up with received audio, re-prime before resuming);
- success: 1 when the stream completed with audio (stalls are reported on their own), else 0.

Metrics go out as CloudWatch Embedded Metric Format lines on stdout: Lambda ships its logs itself,
so no monitoring VPC endpoint or PutMetricData permission is needed. The metric names come from the
environment, set by statespeak_constructs/canary.py from model_server/contract.py: this asset folder
cannot import the server package, and must not spell the names on its own. With CANARY_KIT and
METRIC_DIMENSION_KIT set, each record carries the kit instance as a second dimension next to the route.

The voice comes from CANARY_VOICE; on the ALB route it may be left unset, and the canary then speaks
with the first English voice GET /voices lists (looked up once per warm container, outside the timed part).

Standard library and boto3 only (both in the Lambda Python runtime): no packaging step.
"""

from __future__ import annotations

import http.client
import json
import os
import ssl
import threading
import time
import traceback
from urllib.parse import urlsplit

BYTES_PER_SAMPLE = 2  # the canary asks for pcm_s16le
DEFAULT_TEXT = "Thanks for calling. Your table for two is booked for seven thirty tonight."
READ_SIZE = 65536

# Cached across warm invocations: the SageMaker client, the voice and the API key (read again after a 401).
_cache: dict[str, object] = {}


def _remaining(cfg: dict) -> float:
    """Seconds left of this run (`run_once` sets the deadline): every connect, read and secret lookup waits at
    most that, so a run ends before the function's own timeout (timeout_s + 15 s) and still publishes its
    failure. A socket timeout per read let a stream that sent a chunk now and then, or a slow secret read,
    outlast the function: the minute had no datapoint and no error."""
    left = cfg.get("deadline", time.perf_counter() + cfg["timeout_s"]) - time.perf_counter()
    if left <= 0:
        raise TimeoutError(f"not finished within {cfg['timeout_s']:.0f}s")
    return left


class CanaryConfigError(Exception):
    """The function's environment is incomplete or contradictory (a deployment bug, not an outage)."""


def _env(name: str, default: str | None = None) -> str:
    value = os.environ.get(name, default)
    if value is None or value == "":
        raise CanaryConfigError(f"environment variable {name} is not set")
    return value


def load_config() -> dict:
    url = os.environ.get("CANARY_TARGET_URL", "")
    endpoint = os.environ.get("CANARY_ENDPOINT_NAME", "")
    if bool(url) == bool(endpoint):
        raise CanaryConfigError(
            "set exactly one of CANARY_TARGET_URL (ALB route) and CANARY_ENDPOINT_NAME (SageMaker)"
        )
    if url and urlsplit(url).scheme not in ("http", "https"):
        raise CanaryConfigError(f"CANARY_TARGET_URL must be an http(s) URL, got {url!r}")
    voice = os.environ.get("CANARY_VOICE") or None
    if endpoint and voice is None:
        # The ALB route can list its voices; /invocations cannot, so the SageMaker route must be told.
        raise CanaryConfigError("CANARY_VOICE must be set for the SageMaker route (it has no /voices)")
    return {
        "url": url.rstrip("/"),
        "endpoint": endpoint,
        "sagemaker_endpoint_url": os.environ.get("CANARY_SAGEMAKER_ENDPOINT_URL") or None,
        "voice": voice,
        "tls_check_hostname": os.environ.get("CANARY_TLS_CHECK_HOSTNAME", "true").lower() != "false",
        "text": os.environ.get("CANARY_TEXT") or DEFAULT_TEXT,
        "sample_rate": int(_env("CANARY_SAMPLE_RATE", "16000")),
        "jitter_s": float(_env("CANARY_JITTER_MS", "100")) / 1000.0,
        "timeout_s": float(_env("CANARY_TIMEOUT_S", "20")),
        "api_key_secret": os.environ.get("CANARY_API_KEY_SECRET_ARN") or None,
        "namespace": _env("METRICS_NAMESPACE"),
        "dim_service": _env("METRIC_DIMENSION_SERVICE"),
        "service": _env("CANARY_SERVICE"),
        # The kit instance: a second dimension, so two copies of the kit in one account keep their canary
        # metrics apart.
        "dim_kit": _env("METRIC_DIMENSION_KIT"),
        "kit": _env("CANARY_KIT"),
        "m_ttfa": _env("METRIC_CANARY_TTFA"),
        "m_stalls": _env("METRIC_CANARY_STALLS"),
        "m_success": _env("METRIC_CANARY_SUCCESS"),
    }


def request_body(cfg: dict) -> bytes:
    return json.dumps(
        {
            "model_id": "statespeak",
            "transcript": cfg["text"],
            "voice": {"mode": "id", "id": cfg["voice"]},
            "output_format": {"container": "raw", "encoding": "pcm_s16le", "sample_rate": cfg["sample_rate"]},
            "language": "en",
        }
    ).encode()


def simulate_playback(arrivals: list[tuple[float, float]], jitter_s: float) -> tuple[int, float]:
    """(stalls, stall seconds) of [(arrival s, audio s), ...] played in real time through a jitter buffer.

    Same model as model_server/bench/playback.py (tests/test_canary.py checks they agree).
    """
    chunks = [(t, d) for t, d in arrivals if d > 0]
    received = pos0 = t_resume = 0.0
    playing = False
    dry_at = None
    stalls, stall_s = 0, 0.0
    for i, (t, d) in enumerate(chunks):
        if playing and pos0 + (t - t_resume) > received:
            dry_at = t_resume + (received - pos0)
            stalls += 1
            playing = False
            pos0 = received
        received += d
        if not playing and (received - pos0 >= jitter_s - 1e-9 or i == len(chunks) - 1):  # float sums
            playing = True
            t_resume = t
            if dry_at is not None:
                stall_s += t - dry_at
                dry_at = None
    return stalls, stall_s


class Unauthorized(RuntimeError):
    """HTTP 401 from the route: the key this warm container read may have been rotated out of the secret."""


def first_key(secret: str) -> str:
    """The first key of a secret holding one or several (comma- or newline-separated, as the server reads)."""
    keys = [k.strip() for k in secret.replace("\n", ",").split(",") if k.strip()]
    if not keys:
        raise CanaryConfigError("the API key secret is empty")
    return keys[0]


def _api_key(cfg: dict) -> str | None:
    arn = cfg["api_key_secret"]
    if not arn:
        return None
    if "api_key" not in _cache:
        import boto3
        from botocore.config import Config

        wait = _remaining(cfg)
        client = boto3.client(  # bounded: boto3's default waits 60 s a try, five tries
            "secretsmanager",
            config=Config(connect_timeout=min(3, wait), read_timeout=wait, retries={"total_max_attempts": 2}),
        )
        secret = client.get_secret_value(SecretId=arn)["SecretString"]
        _cache["api_key"] = first_key(secret)
    return _cache["api_key"]  # type: ignore[return-value]


def _connection(cfg: dict) -> http.client.HTTPConnection:
    parts = urlsplit(cfg["url"])
    if parts.scheme != "https":
        return http.client.HTTPConnection(parts.hostname, parts.port, timeout=_remaining(cfg))
    context = ssl.create_default_context()
    if not cfg["tls_check_hostname"]:
        # The canary calls the ALB by its AWS DNS name, which the listener's certificate (issued for the
        # service's own domain) does not name. The chain is still verified; only the name is not.
        context.check_hostname = False
    return http.client.HTTPSConnection(parts.hostname, parts.port, timeout=_remaining(cfg), context=context)


def _headers(cfg: dict) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "Accept": "application/octet-stream"}
    key = _api_key(cfg)
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def discover_voice(cfg: dict) -> str:
    """ALB route without a configured voice: the first English voice GET /voices lists (cached while warm)."""
    if "voice" not in _cache:
        conn = _connection(cfg)
        try:
            conn.request("GET", urlsplit(cfg["url"]).path + "/voices", headers=_headers(cfg))
            resp = conn.getresponse()
            body = resp.read(1 << 20)
        finally:
            conn.close()
        if resp.status != 200:
            error = Unauthorized if resp.status == 401 else RuntimeError
            raise error(f"GET /voices: HTTP {resp.status}: {body[:300].decode('utf-8', 'replace')}")
        voices = json.loads(body).get("voices") or []
        if not voices:
            raise RuntimeError("GET /voices lists no voices")
        # The canary's sentence is English: an English voice when the model has one.
        _cache["voice"] = next((v["id"] for v in voices if v.get("language") == "en"), voices[0]["id"])
    return _cache["voice"]  # type: ignore[return-value]


def stream_http(cfg: dict) -> tuple[float, list[tuple[float, float]]]:
    """POST /tts/bytes on the ALB route; returns (t0, [(arrival s since t0, audio s), ...])."""
    if cfg["voice"] is None:
        cfg = dict(cfg, voice=discover_voice(cfg))  # before the clock starts: not part of the measurement
    headers = _headers(cfg)
    body = request_body(cfg)
    rate = cfg["sample_rate"]
    path = urlsplit(cfg["url"]).path
    t0 = time.perf_counter()
    conn = _connection(cfg)
    try:
        conn.request("POST", path + "/tts/bytes", body=body, headers=headers)
        resp = conn.getresponse()
        if resp.status != 200:
            detail = resp.read(500).decode("utf-8", "replace")
            raise (Unauthorized if resp.status == 401 else RuntimeError)(f"HTTP {resp.status}: {detail}")
        arrivals = []
        while True:
            conn.sock.settimeout(_remaining(cfg))  # each read waits only what is left of the run
            data = resp.read1(READ_SIZE)  # returns as soon as some bytes arrived: chunk timing
            if not data:
                break
            arrivals.append((time.perf_counter() - t0, len(data) / (BYTES_PER_SAMPLE * rate)))
        return t0, arrivals
    finally:
        conn.close()


def stream_sagemaker(cfg: dict) -> tuple[float, list[tuple[float, float]]]:
    """InvokeEndpointWithResponseStream on the managed route; same return as stream_http."""
    if "sm" not in _cache:
        import boto3
        from botocore.config import Config

        _cache["sm"] = boto3.client(
            "sagemaker-runtime",
            endpoint_url=cfg["sagemaker_endpoint_url"],
            # One attempt: a refused stream must show as a failed canary, not be hidden by a retry.
            config=Config(
                retries={"total_max_attempts": 1}, read_timeout=cfg["timeout_s"], connect_timeout=5
            ),
        )
    rate = cfg["sample_rate"]
    t0 = time.perf_counter()
    resp = _cache["sm"].invoke_endpoint_with_response_stream(  # type: ignore[attr-defined]
        EndpointName=cfg["endpoint"],
        Body=request_body(cfg),
        ContentType="application/json",
        Accept="application/octet-stream",
    )
    arrivals = []
    # An event stream cannot be read with a timeout of its own: at the deadline the body is closed under the
    # read, which ends it (a read_timeout per event let a trickling stream run past the function's timeout).
    closed = threading.Event()

    def close_at_deadline() -> None:
        closed.set()
        resp["Body"].close()

    timer = threading.Timer(_remaining(cfg), close_at_deadline)
    timer.start()
    try:
        for event in resp["Body"]:
            part = event.get("PayloadPart")
            if part and part.get("Bytes"):
                arrivals.append((time.perf_counter() - t0, len(part["Bytes"]) / (BYTES_PER_SAMPLE * rate)))
            _remaining(cfg)
    except Exception:
        if not closed.is_set():  # closed at the deadline: say so (below), not the read error it caused
            raise
    finally:
        timer.cancel()
    if closed.is_set():
        raise TimeoutError(f"stream not finished within {cfg['timeout_s']:.0f}s")
    return t0, arrivals


def emf_record(cfg: dict, result: dict, timestamp_ms: int) -> dict:
    """One Embedded Metric Format document: metrics for this run plus searchable context fields."""
    metrics = [{"Name": cfg["m_success"], "Unit": "Count"}]
    values = {cfg["m_success"]: 1 if result["success"] else 0}
    if result["ttfa_ms"] is not None:
        metrics.append({"Name": cfg["m_ttfa"], "Unit": "Milliseconds"})
        values[cfg["m_ttfa"]] = round(result["ttfa_ms"], 2)
    if result["success"]:
        metrics.append({"Name": cfg["m_stalls"], "Unit": "Count"})
        values[cfg["m_stalls"]] = result["stalls"]
    dimensions = {cfg["dim_service"]: cfg["service"], cfg["dim_kit"]: cfg["kit"]}
    return {
        "_aws": {
            "Timestamp": timestamp_ms,
            "CloudWatchMetrics": [
                {"Namespace": cfg["namespace"], "Dimensions": [list(dimensions)], "Metrics": metrics}
            ],
        },
        **dimensions,
        **values,
        "route": cfg["url"] or f"sagemaker://{cfg['endpoint']}",
        "stall_ms": round(result["stall_ms"], 1),
        "audio_s": round(result["audio_s"], 3),
        "chunks": result["chunks"],
        "error": result["error"],
    }


def run_once(cfg: dict) -> dict:
    """One canary stream; never raises for an outage (that is a measurement), only for bad config."""
    error = None
    arrivals: list[tuple[float, float]] = []
    stream = stream_sagemaker if cfg["endpoint"] else stream_http
    key_from_earlier_run = "api_key" in _cache
    cfg = dict(cfg, deadline=time.perf_counter() + cfg["timeout_s"])
    try:
        try:
            _, arrivals = stream(cfg)
        except Unauthorized:
            # A key rotation leaves only the new key in the secret, and a warm container holds the key it
            # read when it started: read the secret again, once. A 401 with the key just read is a failure.
            if not key_from_earlier_run:
                raise
            _cache.pop("api_key", None)
            _, arrivals = stream(cfg)
        if not arrivals:
            error = "the stream completed without audio"
    except Exception as exc:  # an outage of any kind is the canary's finding, not its crash
        error = f"{type(exc).__name__}: {exc}"[:500]
    stalls, stall_s = simulate_playback(arrivals, cfg["jitter_s"])
    return {
        "success": error is None,
        "ttfa_ms": arrivals[0][0] * 1000.0 if arrivals else None,
        "stalls": stalls,
        "stall_ms": stall_s * 1000.0,
        "audio_s": sum(d for _, d in arrivals),
        "chunks": len(arrivals),
        "error": error,
    }


def handler(event, context):
    cfg = load_config()
    try:
        result = run_once(cfg)
    except Exception:  # a canary bug still reports a failure rather than no data
        result = {
            "success": False,
            "ttfa_ms": None,
            "stalls": 0,
            "stall_ms": 0.0,
            "audio_s": 0.0,
            "chunks": 0,
            "error": traceback.format_exc(limit=3)[-500:],
        }
    print(json.dumps(emf_record(cfg, result, int(time.time() * 1000))), flush=True)
    return result
