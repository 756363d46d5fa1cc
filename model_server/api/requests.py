"""Parsing and validation of synthesis requests (Cartesia and OpenAI shapes) into one `SynthesisRequest`.

Validation happens before a stream slot is taken, so a bad request never costs another client anything.
Unknown fields are ignored (forward compatibility with newer SDKs); known fields are checked strictly.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from model_server.api.errors import ApiError
from model_server.audio import CONTAINERS, ENCODINGS, SAMPLE_RATES, AudioFormat
from model_server.config import DEFAULT_OPENAI_VOICES, ENV_OPENAI_VOICES
from model_server.frontend.normalize import LANGUAGES as NORMALIZER_LANGUAGES

SPEED_MIN, SPEED_MAX = 0.5, 2.0
VOLUME_MIN, VOLUME_MAX = 0.5, 2.0
# Cartesia's named speeds (its `speed` field is "slow" | "normal" | "fast").
NAMED_SPEEDS = {"slowest": 0.6, "slow": 0.8, "normal": 1.0, "fast": 1.25, "fastest": 1.5}
DEFAULT_FORMAT = AudioFormat(container="raw", encoding="pcm_s16le", sample_rate=24000)
# OpenAI's response_format values this server cannot produce (no lossy/compressed encoders bundled).
OPENAI_UNSUPPORTED = ("mp3", "opus", "aac", "flac")
OPENAI_FORMATS = {
    # OpenAI's "pcm" is raw 16-bit little-endian at 24 kHz; wav carries the same samples.
    "pcm": AudioFormat(container="raw", encoding="pcm_s16le", sample_rate=24000),
    "wav": AudioFormat(container="wav", encoding="pcm_s16le", sample_rate=24000),
}
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
_LATIN_OR_DIGIT = re.compile(r"[0-9A-Za-z\u00c0-\u024f\u1e00-\u1eff]")
# The languages whose normalizer keeps Latin letters only (`frontend.normalize`, not `normalize_intl`).
LATIN_ONLY = frozenset(NORMALIZER_LANGUAGES)


@dataclass(frozen=True)
class VoiceCatalog:
    """What the loaded model offers: voice ids -> language, the languages it speaks, and the OpenAI voice
    names (alloy, ...) -> voice ids (an explicit table: `config.DEFAULT_OPENAI_VOICES` or its override)."""

    voices: dict[str, str]  # id -> default language
    languages: frozenset[str]
    openai_voices: dict[str, str] = field(default_factory=dict)

    def openai_alias(self, name: str) -> str | None:
        return self.openai_voices.get(name)


def openai_voice_table(voices: dict[str, str], configured: dict[str, str] | None) -> dict[str, str]:
    """The OpenAI name table for a model's voices. A configured table must name existing voices (a typo
    would otherwise turn into 400s for every client); the default one keeps the names the model has."""
    if configured is None:
        return {name: vid for name, vid in DEFAULT_OPENAI_VOICES.items() if vid in voices}
    missing = {name: vid for name, vid in configured.items() if vid not in voices}
    if missing:
        raise ValueError(
            f"{ENV_OPENAI_VOICES} maps {missing} to voices this model lacks (it has {sorted(voices)})"
        )
    return dict(configured)


def require_speech(
    req: SynthesisRequest, field_name: str = "transcript", language_field: bool = True
) -> None:
    """Refuse a transcript with nothing to say (whitespace, punctuation, symbols alone): such a request
    would answer with no audio at all, which a client cannot tell from a broken stream. `language_field`:
    the request has a `language` field to set (Cartesia's), not only a voice to choose (OpenAI's)."""
    if not speakable(req.transcript, req.language):
        if req.language in LATIN_ONLY and _LETTER_OR_DIGIT.search(req.transcript):
            # it has words, in a script this language's normalizer drops: say which, and how to speak them
            fix = "set language to the text's, or choose a voice" if language_field else "choose a voice"
            raise ApiError(
                400,
                field_name,
                f"{field_name} {_show(req.transcript)} has no Latin letters or digits, the only ones language "
                f"'{req.language}' reads: {fix} of the text's language (GET /voices lists each voice's)",
            )
        raise ApiError(
            400,
            field_name,
            f"{field_name} {_show(req.transcript)} has nothing to speak (no word, number or symbol that is read out)",
        )


def speakable(text: str, language: str) -> bool:
    """Whether `text` gives any speech. Letters and digits do, so the frontend's normalizer only runs for text
    without them (where "%" speaks and "$" or "..." does not), and for text whose letters the language's
    normalizer may drop: English, Spanish, German and French keep Latin letters only, and "你好" sent to an
    English voice answered 200 with no audio."""
    if not text.strip():
        return False
    if _LETTER_OR_DIGIT.search(text) and (language not in LATIN_ONLY or _LATIN_OR_DIGIT.search(text)):
        return True
    from model_server.frontend import has_words  # the text frontend, loaded only for such rare text

    try:
        return has_words(text, language)
    except Exception:  # the frontend refuses the text: the stream reports that as it would anyway
        return True


@dataclass(frozen=True)
class SynthesisRequest:
    transcript: str
    voice: str
    language: str
    speed: float
    volume: float
    format: AudioFormat
    add_timestamps: bool = False
    context_id: str | None = None
    model_id: str = ""
    max_buffer_delay_ms: int | None = None


def _show(value: Any) -> str:
    """A client value quoted in an error message, cut short: errors must not echo a whole body back."""
    text = repr(value)
    return text if len(text) <= 64 else text[:61] + "..."


def parse_json(body: bytes, field: str = "body") -> Any:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(400, field, f"{field} is not valid UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ApiError(
            400, field, f"{field} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise ApiError(400, field, f"{field} is nested too deeply") from None
    except ValueError as exc:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise ApiError(400, field, f"{field} is not valid JSON: {exc}") from None


def _expect_object(value: Any, field: str) -> dict:
    if not isinstance(value, dict):
        raise ApiError(400, field, f"{field} must be a JSON object, got {type(value).__name__}")
    return value


def check_transcript(value: Any, field: str, max_chars: int, allow_empty: bool = False) -> str:
    if value is None:
        if allow_empty:
            return ""
        raise ApiError(400, field, f"{field} is required")
    if not isinstance(value, str):
        raise ApiError(400, field, f"{field} must be a string, got {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise ApiError(400, field, f"{field} must not be empty")
    if len(value) > max_chars:
        raise ApiError(400, field, f"{field} has {len(value)} characters; the limit is {max_chars}")
    return value


def _voice_id(value: Any, catalog: VoiceCatalog, field: str = "voice", openai: bool = False) -> str:
    if isinstance(value, dict):
        mode = value.get("mode", "id")
        if mode != "id":
            raise ApiError(400, f"{field}.mode", f"{field}.mode {_show(mode)} is not supported; use 'id'")
        field, value = f"{field}.id", value.get("id")
    if not isinstance(value, str) or not value:
        raise ApiError(400, field, f"{field} must be a voice id string (see GET /voices)")
    if value in catalog.voices:
        return value
    alias = catalog.openai_alias(value) if openai else None
    if alias is not None:
        return alias
    known = ", ".join(sorted(catalog.voices))
    if openai and catalog.openai_voices:
        known += "; OpenAI names: " + ", ".join(sorted(catalog.openai_voices))
    raise ApiError(400, field, f"unknown {field} {_show(value)}; available: {known}")


def _language(value: Any, voice: str, catalog: VoiceCatalog, field: str = "language") -> str:
    if value is None:
        return catalog.voices[voice]
    return require_language(value, catalog.languages, field)


def require_language(value: Any, supported, field: str = "language") -> str:
    """A Cartesia language code the loaded model speaks; else 400 naming the field, listing the codes."""
    from model_server.frontend.languages import UnsupportedLanguageError, check_language

    try:
        return check_language(value, supported)
    except UnsupportedLanguageError as exc:
        raise ApiError(400, field, str(exc)) from None


def _number(value: Any, field: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ApiError(400, field, f"{field} must be a number in [{lo}, {hi}]")
    # an int past a float's range (JSON allows 400 digits) made math.isfinite raise: a 500, not a 400
    if isinstance(value, int) and not lo <= value <= hi:
        raise ApiError(400, field, f"{field} {_show(value)} is out of range [{lo}, {hi}]")
    if not math.isfinite(value):
        raise ApiError(400, field, f"{field} must be a number in [{lo}, {hi}]")
    if not lo <= value <= hi:
        raise ApiError(400, field, f"{field} {value} is out of range [{lo}, {hi}]")
    return float(value)


def _speed(value: Any, field: str = "speed") -> float:
    if value is None:
        return 1.0
    if isinstance(value, str):
        if value not in NAMED_SPEEDS:
            names = ", ".join(NAMED_SPEEDS)
            raise ApiError(
                400,
                field,
                f"{field} {_show(value)} is not one of {names} or a number in [{SPEED_MIN}, {SPEED_MAX}]",
            )
        return NAMED_SPEEDS[value]
    return _number(value, field, SPEED_MIN, SPEED_MAX)


def _or_default(value: Any, default: Any) -> Any:
    return default if value is None else value


def parse_output_format(value: Any, field: str = "output_format") -> AudioFormat:
    if value is None:
        return DEFAULT_FORMAT
    value = _expect_object(value, field)
    # a null field is left out, as a null output_format is (SDKs send None for what they were not given)
    container = _or_default(value.get("container"), "raw")
    encoding = _or_default(value.get("encoding"), DEFAULT_FORMAT.encoding)
    rate = _or_default(value.get("sample_rate"), DEFAULT_FORMAT.sample_rate)
    if container not in CONTAINERS:
        raise ApiError(
            400,
            f"{field}.container",
            f"container {_show(container)} is not supported; use one of {', '.join(CONTAINERS)}",
        )
    if encoding not in ENCODINGS:
        raise ApiError(
            400,
            f"{field}.encoding",
            f"encoding {_show(encoding)} is not supported; use one of {', '.join(ENCODINGS)}",
        )
    if isinstance(rate, bool) or rate not in SAMPLE_RATES:
        rates = ", ".join(str(r) for r in SAMPLE_RATES)
        raise ApiError(
            400, f"{field}.sample_rate", f"sample_rate {_show(rate)} is not supported; use one of {rates}"
        )
    return AudioFormat(container=container, encoding=encoding, sample_rate=int(rate))


def flag(value: Any, field: str) -> bool:
    """A true/false field; absent (None) is false. Only JSON booleans: "false" is a string, and truthy."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ApiError(400, field, f"{field} must be true or false")
    return value


def parse_cartesia(
    data: Any, catalog: VoiceCatalog, max_chars: int, *, allow_empty: bool = False
) -> SynthesisRequest:
    """A /tts/bytes, /tts/sse, /invocations body or the first WebSocket message of a context."""
    data = _expect_object(data, "body")
    model_id = data.get("model_id", "")
    if not isinstance(model_id, str):
        raise ApiError(400, "model_id", "model_id must be a string")
    transcript = check_transcript(data.get("transcript"), "transcript", max_chars, allow_empty)
    voice = _voice_id(data.get("voice"), catalog)
    # "locale" is the older name; a "language" of null does not hide it
    language = _language(data.get("language") if data.get("language") is not None else data.get("locale"),
                         voice, catalog)  # fmt: skip
    speed = _speed(data.get("speed"))
    volume = 1.0
    gen = data.get("generation_config")
    if gen is not None:
        gen = _expect_object(gen, "generation_config")
        if gen.get("speed") is not None:
            speed = _number(gen["speed"], "generation_config.speed", SPEED_MIN, SPEED_MAX)
        if gen.get("volume") is not None:
            volume = _number(gen["volume"], "generation_config.volume", VOLUME_MIN, VOLUME_MAX)
    context_id = data.get("context_id")
    if context_id is not None and (
        not isinstance(context_id, str) or not context_id or len(context_id) > 256
    ):
        raise ApiError(400, "context_id", "context_id must be a non-empty string of at most 256 characters")
    delay = data.get("max_buffer_delay_ms")
    if delay is not None and (
        isinstance(delay, bool) or not isinstance(delay, int) or not 0 <= delay <= 5000
    ):
        raise ApiError(400, "max_buffer_delay_ms", "max_buffer_delay_ms must be an integer in [0, 5000]")
    return SynthesisRequest(
        transcript=transcript,
        voice=voice,
        language=language,
        speed=speed,
        volume=volume,
        max_buffer_delay_ms=delay,
        format=parse_output_format(data.get("output_format")),
        add_timestamps=flag(data.get("add_timestamps"), "add_timestamps"),
        context_id=context_id,
        model_id=model_id,
    )


def parse_openai(data: Any, catalog: VoiceCatalog, max_chars: int) -> tuple[SynthesisRequest, str]:
    """POST /v1/audio/speech. Returns the request and the stream_format ('audio' or 'sse')."""
    data = _expect_object(data, "body")
    model = data.get("model", "")
    if not isinstance(model, str):
        raise ApiError(400, "model", "model must be a string")
    transcript = check_transcript(data.get("input"), "input", max_chars)
    voice = _voice_id(data.get("voice"), catalog, openai=True)
    fmt_name = data.get("response_format", "wav")  # OpenAI defaults to mp3, which this server lacks
    if not isinstance(fmt_name, str):
        raise ApiError(
            400,
            "response_format",
            f"response_format must be a string ('wav' or 'pcm'), got {_show(fmt_name)}",
        )
    if fmt_name in OPENAI_UNSUPPORTED:
        raise ApiError(
            400,
            "response_format",
            f"response_format {_show(fmt_name)} is not supported by this server (no mp3/opus/aac/flac encoder); "
            "use 'wav' or 'pcm' (16-bit little-endian, 24 kHz)",
            code="unsupported_response_format",
        )
    if fmt_name not in OPENAI_FORMATS:
        raise ApiError(
            400, "response_format", f"response_format {_show(fmt_name)} is not valid; use 'wav' or 'pcm'"
        )
    stream_format = data.get("stream_format", "audio")
    if stream_format not in ("audio", "sse"):
        raise ApiError(
            400, "stream_format", f"stream_format {_show(stream_format)} is not valid; use 'audio' or 'sse'"
        )
    speed = 1.0 if data.get("speed") is None else _number(data["speed"], "speed", SPEED_MIN, SPEED_MAX)
    instructions = data.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise ApiError(400, "instructions", "instructions must be a string")
    request = SynthesisRequest(
        transcript=transcript,
        voice=voice,
        language=catalog.voices[voice],
        speed=speed,
        volume=1.0,
        format=OPENAI_FORMATS[fmt_name],
        model_id=model,
    )
    return request, stream_format
