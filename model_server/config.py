"""Server configuration from the environment, validated once at start with errors naming the variable.

Names shared with the CDK stacks (MODEL_DIR, MAX_STREAMS, API keys, drain timeout, deployment) come from
`model_server.contract`; the tuning knobs below only the server reads, so they live here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from model_server.contract import (
    DEFAULT_KIT_NAME,
    ENV_API_KEYS,
    ENV_API_KEYS_FILE,
    ENV_DEPLOYMENT,
    ENV_DEVICE,
    ENV_DRAIN_TIMEOUT_S,
    ENV_ENGINES,
    ENV_KEEP_ALIVE_S,
    ENV_KIT_NAME,
    ENV_MAX_STREAMS,
    ENV_MODEL_DIR,
    ENV_QUERY_API_KEYS,
    ENV_SAGEMAKER_ROUTES,
    MAX_ENGINES,
    MAX_STREAMS_LIMIT,
)

ENV_MAX_TRANSCRIPT_CHARS = "STATESPEAK_MAX_TRANSCRIPT_CHARS"
ENV_MAX_BODY_BYTES = "STATESPEAK_MAX_BODY_BYTES"
ENV_FIRST_CHUNK_FRAMES = "STATESPEAK_FIRST_CHUNK_FRAMES"
ENV_MAX_CHUNK_FRAMES = "STATESPEAK_MAX_CHUNK_FRAMES"
# The largest chunk where STATESPEAK_MAX_CHUNK_FRAMES is unset, by device. On a GPU a chunk's fixed engine
# work (100-200 us) dwarfs its frames' step (0.6 us a stream-frame), so 64 frames (800 ms) doubled an H100's
# closed-loop and staggered capacity against 32 (docs/benchmarks.md, 2026-12-06); on a CPU, where the frames
# dominate, 32 keeps a tick short.
DEFAULT_MAX_CHUNK_FRAMES = {"cpu": 32, "cuda": 64}
ENV_STREAM_BUFFER_S = "STATESPEAK_STREAM_BUFFER_S"
ENV_STALL_TIMEOUT_S = "STATESPEAK_STALL_TIMEOUT_S"
ENV_REQUEST_READ_TIMEOUT_S = (
    "STATESPEAK_REQUEST_READ_TIMEOUT_S"  # first byte to last of a request (api/read_deadline)
)
ENV_CONTEXT_IDLE_TIMEOUT_S = "STATESPEAK_CONTEXT_IDLE_TIMEOUT_S"  # a WebSocket context with no text or audio
ENV_WS_PER_MESSAGE_DEFLATE = "STATESPEAK_WS_PER_MESSAGE_DEFLATE"  # WebSocket compression; off by default
ENV_TORCH_THREADS = "STATESPEAK_TORCH_THREADS"  # torch intra-op threads; 0/unset: see model_server.threads
ENV_TORCH_INTEROP_THREADS = "STATESPEAK_TORCH_INTEROP_THREADS"  # 0/unset: 1 on CPU, 2 on CUDA
ENV_EMF_INTERVAL_S = "STATESPEAK_EMF_INTERVAL_S"
ENV_RETRY_AFTER_S = "STATESPEAK_RETRY_AFTER_S"
ENV_WARMUP = "STATESPEAK_WARMUP"
# auto: the model directory's learned vocoder (neural_vocoder.json) when it has one; harmonic; neural
ENV_VOCODER = "STATESPEAK_VOCODER"
VOCODERS = ("auto", "harmonic", "neural")  # here, not in model.runtime: API workers never import torch
ENV_LOG_LEVEL = "STATESPEAK_LOG_LEVEL"
ENV_MAX_BUFFER_DELAY_MS = "STATESPEAK_MAX_BUFFER_DELAY_MS"
ENV_RESAMPLE_QUALITY = "STATESPEAK_RESAMPLE_QUALITY"  # soxr: QQ, LQ, MQ, HQ, VHQ
ENV_OPENAI_VOICES = "STATESPEAK_OPENAI_VOICES"  # "alloy=en_female_slt,echo=en_male_kal": replaces the table
# Browser origins allowed to call the synthesis routes ("https://app.example,https://b.example", or "*").
# Empty (the default): a request that carries an Origin header (only browsers send one) is refused, so a web
# page a person inside the VPC opens can neither use the WebSocket nor post blind requests to the service.
ENV_ALLOWED_ORIGINS = "STATESPEAK_ALLOWED_ORIGINS"
ENV_WORKERS = "STATESPEAK_WORKERS"  # API worker processes; unset or 0: half the usable CPUs, 1 to 8

# OpenAI's built-in voice names -> the bundled model's voices, by the gender OpenAI's voices are heard as
# (all of them speak English). Written out so adding a voice to a model never changes what a name means.
# Names whose voice a loaded model lacks are left out; set ENV_OPENAI_VOICES for other models.
DEFAULT_OPENAI_VOICES: dict[str, str] = {
    "alloy": "en_female_slt",
    "ash": "en_male_kal",
    "ballad": "en_male_kal",
    "cedar": "en_male_kal",
    "coral": "en_female_slt",
    "echo": "en_male_kal",
    "fable": "en_male_kal",
    "marin": "en_female_slt",
    "nova": "en_female_slt",
    "onyx": "en_male_kal",
    "sage": "en_female_slt",
    "shimmer": "en_female_slt",
    "verse": "en_male_kal",
}

# The shipped model, inside the package, used when MODEL_DIR is unset.
BUNDLED_MODEL_DIR = Path(__file__).resolve().parent / "weights" / "default"


class ConfigError(ValueError):
    """A bad environment value; the message names the variable."""


def check_engines(engines: int, max_streams: int, name: str) -> None:
    """Raise ConfigError naming `name` (the variable or flag) unless 1 <= engines <= min(MAX_ENGINES,
    max_streams): every engine needs a slot of its own."""
    if not 1 <= engines <= MAX_ENGINES:
        raise ConfigError(f"{name}={engines} is out of range [1, {MAX_ENGINES}]")
    if engines > max_streams:
        raise ConfigError(
            f"{name}={engines} is above {ENV_MAX_STREAMS}={max_streams}: every engine needs a slot"
        )


def _int(env: dict[str, str], name: str, default: int, lo: int, hi: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not an integer") from None
    if not lo <= value <= hi:
        raise ConfigError(f"{name}={value} is out of range [{lo}, {hi}]")
    return value


def _float(env: dict[str, str], name: str, default: float, lo: float, hi: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if not lo <= value <= hi:
        raise ConfigError(f"{name}={value} is out of range [{lo}, {hi}]")
    return value


def _bool(env: dict[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean (use 1/0, true/false)")


def load_api_keys(env: dict[str, str]) -> frozenset[str]:
    """Keys from STATESPEAK_API_KEYS (comma-separated) and/or the secret file (one key per line)."""
    raw = env.get(ENV_API_KEYS, "")
    keys = {k.strip() for k in raw.split(",") if k.strip()}
    if raw.strip() and not keys:
        # "," or " , " (a rotation's "$OLD,$NEW" with both unset) silently turned auth off: refuse instead.
        raise ConfigError(f"{ENV_API_KEYS}={raw!r} holds separators but no key (unset it for no auth)")
    path = env.get(ENV_API_KEYS_FILE, "").strip()
    if path:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{ENV_API_KEYS_FILE}={path!r} cannot be read: {exc.strerror}") from None
        keys |= {line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")}
        if not keys:
            # A mounted but empty secret would silently disable auth: refuse instead.
            raise ConfigError(f"{ENV_API_KEYS_FILE}={path!r} holds no key")
    return frozenset(keys)


def load_openai_voices(env: dict[str, str]) -> dict[str, str] | None:
    """The OpenAI voice-name table from ENV_OPENAI_VOICES, or None when unset (the default table)."""
    raw = env.get(ENV_OPENAI_VOICES, "").strip()
    if not raw:
        return None
    table: dict[str, str] = {}
    for item in raw.split(","):
        name, sep, voice = (part.strip() for part in item.partition("="))
        if not sep or not name or not voice:
            raise ConfigError(f"{ENV_OPENAI_VOICES}: {item.strip()!r} is not NAME=VOICE_ID")
        if name in table:
            raise ConfigError(f"{ENV_OPENAI_VOICES}: {name!r} is given twice")
        table[name] = voice
    return table


@dataclass(frozen=True)
class ServerConfig:
    model_dir: Path = BUNDLED_MODEL_DIR
    device: str = "auto"
    max_streams: int = 16
    api_keys: frozenset[str] = field(default_factory=frozenset)
    drain_timeout_s: float = 25.0  # below SageMaker's 30 s and the ECS stopTimeout the stack sets
    deployment: str = "local"
    kit: str = DEFAULT_KIT_NAME  # the kit instance (CDK context `name`): the Kit metric dimension
    # serve /invocations and /ping: keyless (SageMaker authenticates them), so by default only without API keys
    sagemaker_routes: bool = True
    query_api_keys: bool = True  # accept `?api_key=` (off on internet-facing entries: it lands in logs)
    allowed_origins: frozenset[str] = frozenset()  # browser origins the synthesis routes accept ("*": any)
    max_transcript_chars: int = 5000
    max_body_bytes: int = 64 * 1024
    first_chunk_frames: int = 4  # 50 ms of audio: small for time to first audio
    max_chunk_frames: int | None = None  # later chunks grow to this: fewer, larger steps (None: by device)
    stream_buffer_s: float = 5.0  # audio a stream may produce ahead of its client before it is skipped
    stall_timeout_s: float = 30.0  # a client that reads nothing for this long loses its stream
    emf_interval_s: float = 10.0
    retry_after_s: int = 1
    warmup: bool = True
    vocoder: str = "auto"
    # permessage-deflate costs about 2 ms of server CPU per second of audio for a 35% smaller PCM frame:
    # off unless the network, not the CPU, is what runs out.
    ws_per_message_deflate: bool = False
    torch_threads: int = 0  # 0: decided at start (model_server.threads)
    torch_interop_threads: int = 0  # 0: decided at start (model_server.threads)
    log_level: str = "INFO"
    resample_quality: str = "HQ"
    max_buffer_delay_ms: int = (
        500  # WebSocket default: unfinished text is spoken after this long without more
    )
    # OpenAI voice names -> voice ids, set explicitly (every voice must exist) or None for the default table
    openai_voices: dict[str, str] | None = None
    workers: int = 0  # API worker processes (0: the default, half the usable CPUs, 1 to 8)
    # Engine processes, each with its own slot pool and share of max_streams (`engine_slots`): one engine's
    # Python host work bounds a GPU's streams long before the GPU does (docs/architecture.md).
    engines: int = 1
    keep_alive_s: int = 75  # above an ALB's default idle timeout (60 s); the ECS route sets its own + margin
    request_read_timeout_s: float = 30.0  # a request's head and body must arrive within this (slowloris)
    # A WebSocket context that gets no message and sends no audio for this long has its input closed: it
    # speaks what it has and ends with `done`, so an abandoned turn does not hold a stream slot for good.
    context_idle_timeout_s: float = 60.0

    def chunk_frames_on(self, device: str) -> int:
        """The largest chunk in frames on ``device`` ("cpu", "cuda", "cuda:N"): the setting, else the device's
        default (DEFAULT_MAX_CHUNK_FRAMES), never below the first chunk."""
        if self.max_chunk_frames is not None:
            return self.max_chunk_frames
        return max(
            self.first_chunk_frames, DEFAULT_MAX_CHUNK_FRAMES["cuda" if device.startswith("cuda") else "cpu"]
        )

    def engine_slots(self) -> list[int]:
        """Each engine's share of max_streams (the first ones take the remainder): admission is per engine,
        and together they admit exactly max_streams."""
        base, extra = divmod(self.max_streams, self.engines)
        return [base + (1 if k < extra else 0) for k in range(self.engines)]

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> ServerConfig:
        env = dict(os.environ if env is None else env)
        device = env.get(ENV_DEVICE, "auto").strip() or "auto"
        if device not in ("auto", "cpu", "cuda") and not device.startswith("cuda:"):
            raise ConfigError(f"{ENV_DEVICE}={device!r} must be auto, cpu, cuda or cuda:N")
        log_level = env.get(ENV_LOG_LEVEL, "INFO").strip().upper() or "INFO"
        if log_level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise ConfigError(f"{ENV_LOG_LEVEL}={log_level!r} must be DEBUG, INFO, WARNING or ERROR")
        quality = env.get(ENV_RESAMPLE_QUALITY, "HQ").strip().upper() or "HQ"
        if quality not in ("QQ", "LQ", "MQ", "HQ", "VHQ"):
            raise ConfigError(f"{ENV_RESAMPLE_QUALITY}={quality!r} must be QQ, LQ, MQ, HQ or VHQ")
        first = _int(env, ENV_FIRST_CHUNK_FRAMES, 4, 1, 256)
        largest = _int(env, ENV_MAX_CHUNK_FRAMES, 0, 1, 1024) or None
        if largest is not None and largest < first:
            raise ConfigError(f"{ENV_MAX_CHUNK_FRAMES}={largest} is below {ENV_FIRST_CHUNK_FRAMES}={first}")
        vocoder = env.get(ENV_VOCODER, "auto").strip().lower() or "auto"
        if vocoder not in VOCODERS:
            raise ConfigError(f"{ENV_VOCODER}={vocoder!r} must be {', '.join(VOCODERS)}")
        max_streams = _int(env, ENV_MAX_STREAMS, 16, 1, MAX_STREAMS_LIMIT)
        engines = _int(env, ENV_ENGINES, 1, 1, MAX_ENGINES)
        check_engines(engines, max_streams, ENV_ENGINES)
        api_keys = load_api_keys(env)  # once: it may read the mounted secret file
        return cls(
            model_dir=Path(env.get(ENV_MODEL_DIR, "").strip() or BUNDLED_MODEL_DIR),
            device=device,
            max_streams=max_streams,
            api_keys=api_keys,
            drain_timeout_s=_float(env, ENV_DRAIN_TIMEOUT_S, 25.0, 0.0, 3600.0),
            deployment=env.get(ENV_DEPLOYMENT, "local").strip() or "local",
            kit=env.get(ENV_KIT_NAME, "").strip() or DEFAULT_KIT_NAME,
            # with API keys, the keyless SageMaker routes only when asked for: a server given keys (docker run -e
            # STATESPEAK_API_KEYS=...) kept a synthesis route that took none
            sagemaker_routes=_bool(env, ENV_SAGEMAKER_ROUTES, not api_keys),
            query_api_keys=_bool(env, ENV_QUERY_API_KEYS, True),
            allowed_origins=frozenset(
                o.strip().rstrip("/") for o in env.get(ENV_ALLOWED_ORIGINS, "").split(",") if o.strip()
            ),
            max_transcript_chars=_int(env, ENV_MAX_TRANSCRIPT_CHARS, 5000, 1, 1_000_000),
            max_body_bytes=_int(env, ENV_MAX_BODY_BYTES, 64 * 1024, 1024, 64 * 1024 * 1024),
            first_chunk_frames=first,
            max_chunk_frames=largest,
            stream_buffer_s=_float(env, ENV_STREAM_BUFFER_S, 5.0, 0.1, 600.0),
            stall_timeout_s=_float(env, ENV_STALL_TIMEOUT_S, 30.0, 1.0, 3600.0),
            emf_interval_s=_float(env, ENV_EMF_INTERVAL_S, 10.0, 0.1, 3600.0),
            retry_after_s=_int(env, ENV_RETRY_AFTER_S, 1, 1, 3600),
            warmup=_bool(env, ENV_WARMUP, True),
            vocoder=vocoder,
            ws_per_message_deflate=_bool(env, ENV_WS_PER_MESSAGE_DEFLATE, False),
            torch_threads=_int(env, ENV_TORCH_THREADS, 0, 0, 1024),
            torch_interop_threads=_int(env, ENV_TORCH_INTEROP_THREADS, 0, 0, 64),
            log_level=log_level,
            resample_quality=quality,
            max_buffer_delay_ms=_int(env, ENV_MAX_BUFFER_DELAY_MS, 500, 0, 5000),
            openai_voices=load_openai_voices(env),
            workers=_int(env, ENV_WORKERS, 0, 0, 64),
            engines=engines,
            keep_alive_s=_int(env, ENV_KEEP_ALIVE_S, 75, 1, 4100),  # ALB idle timeouts reach 4000 s
            request_read_timeout_s=_float(env, ENV_REQUEST_READ_TIMEOUT_S, 30.0, 0.1, 3600.0),
            context_idle_timeout_s=_float(env, ENV_CONTEXT_IDLE_TIMEOUT_S, 60.0, 1.0, 86400.0),
        )
