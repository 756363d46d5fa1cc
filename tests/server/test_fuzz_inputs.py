"""Property-based fuzz (hypothesis) of the real server's input handling: malformed and edge-case requests to
every speech endpoint (Cartesia /tts/bytes, /tts/sse, /invocations, OpenAI /v1/audio/speech) and WebSocket
messages (/tts/websocket: a context's first message and its continuations), against the shared
multi-process server on 127.0.0.1.

Properties: never a 5xx; a 4xx is the endpoint's JSON error, naming the field at fault (one the example
changed, or the body) and saying what is wrong, without echoing the input back; a 200 streams whole audio
(the stream ends cleanly, and the client got every sample the server counted); a bad WebSocket message gets
its error on its connection, which goes on serving. Meanwhile a bystander speaks the same text over and
over, on one WebSocket connection and over HTTP: every time it must get all its audio, the audio it gets
alone, and the server logs no error. Examples are derandomized: CI runs the same ones every time.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import inspect
import json
import operator
import re
import threading
import time
from dataclasses import dataclass

import httpx
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosedError

from model_server.api import requests as parsers
from model_server.api.websocket import Connection
from model_server.audio import CONTAINERS, ENCODINGS, SAMPLE_RATES
from model_server.contract import METRIC_ACTIVE_STREAMS
from model_server.frontend.languages import CATALOG
from model_server.metrics import prom_name

from ._server import VOICES as MODEL_VOICES
from .conftest import SHARED_ENV, decode_pcm

MAX_CHARS = int(SHARED_ENV["STATESPEAK_MAX_TRANSCRIPT_CHARS"])
MAX_BYTES = int(SHARED_ENV["STATESPEAK_MAX_BODY_BYTES"])
VOICES = tuple(v[0] for v in MODEL_VOICES)  # the random test model's voice ids
OPENAI_NAMES = tuple(pair.split("=")[0] for pair in SHARED_ENV["STATESPEAK_OPENAI_VOICES"].split(","))
WIDTH = {"pcm_f32le": 4, "pcm_s16le": 2, "pcm_mulaw": 1, "pcm_alaw": 1}
FUZZ = settings(
    deadline=None,  # a request that synthesizes a long text takes a second or two on CPU
    derandomize=True,  # the same examples in every CI run
    database=None,  # no example database: a failure is found again by running the same examples
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Values -----------------------------------------------------------------------------------------------------
# Any JSON value: NaN and +-Infinity are literals Python's parser takes (json.dumps writes them), and integers
# go past a float's range.
TEXT = st.text(st.characters(exclude_categories=[]), max_size=16)  # surrogates too (st.text leaves them out)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([10**400, -(10**400), 2**63, 2**64 + 1, -1, 0, 1]),
    st.floats(),
    TEXT,
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


@dataclass(frozen=True)
class Raw:
    """A JSON fragment put into a body as it is (nesting deeper than json.dumps would write)."""

    text: str


def nested(depth: int, kind: str) -> Raw:
    if kind == "list":
        return Raw("[" * depth + "]" * depth)
    return Raw('{"a":' * depth + "1" + "}" * depth)


# Deep, and past the depth Python's JSON parser recurses to (1,000 less the stack below it). Depths between
# are left out: whether they parse depends on the stack of the process that parses (the server's, this one's).
NESTED = st.builds(nested, st.integers(1, 600) | st.integers(1000, 1100), st.sampled_from(["list", "dict"]))
ANY = JSON | NESTED
# a value of each JSON type, for any field
TYPES = st.sampled_from([None, True, False, 0, -1, 1.5, 10**400, float("nan"), float("-inf"), "", "x", [], [1],
                         ["Hi."], {}, {"a": 1}, {"id": "en_female_a"}])  # fmt: skip


def either(*parts):
    """One of `parts`, each as likely (st.one_of weighs a part by how many branches it has itself)."""
    return st.integers(0, len(parts) - 1).flatmap(lambda i: parts[i])


ODD = ["Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Me", "So", "Sk", "Zs", "Zl", "Zp"]  # controls, surrogates, marks
EDGE_TEXTS = [
    "", " ", "\n\t ", "...", "?!", "$", "%", "-", "😀", "Hi 😀👍🏽!", "👨‍👩‍👧", "\x00", "Hi.\x00there.",
    "\x07\x1b[31mred\x1b[0m", "\u200b\u200d\u2060", "\u202eHello\u202c", "\ufeffHi.", "\ud800", "Hi \udfff there",
    "a\u0301\u0301", "\u0301\u0301", "你好", "مرحبا", "Mr. Smith.", "3.5", "9am-5pm,", "U.S.A.", "1" * 40,
    "x" * MAX_CHARS, "x" * (MAX_CHARS + 1), "Hi." + " " * 300, "Hi.\r\n\r\nThere.",
]  # fmt: skip
TRANSCRIPTS = st.one_of(
    st.sampled_from(EDGE_TEXTS),
    st.text(max_size=40),
    st.text(st.characters(categories=ODD), min_size=1, max_size=12),
    st.builds("Hello {} there.".format, st.text(st.characters(categories=ODD), max_size=8)),
    # one very long token: a word, a number, a run of symbols
    st.builds(operator.mul, st.characters(categories=["L", "N", "P", "S"]), st.integers(20, 160)),
)
LANGUAGES = st.sampled_from(sorted(CATALOG)) | st.sampled_from(
    ["xx", "EN", "en-US", "en_US", "", " en", "e" * 100]
)
VOICE_IDS = st.sampled_from([*VOICES, *OPENAI_NAMES, "nobody", "", "EN_FEMALE_A", "en_female_a "])
VOICE_MODES = st.sampled_from(["id", "embedding", "ID", ""])
VOICE_OBJECTS = st.fixed_dictionaries({}, optional={"mode": VOICE_MODES | JSON, "id": VOICE_IDS | JSON})
NUMBERS = (
    st.floats() | st.integers() | st.sampled_from([0.5, 2.0, 0.49999, 2.00001, -0.0, 1e308, 10**400, "1.0"])
)
FLAGS = st.sampled_from([True, False, None, "false", "true", 0, 1, "no"])
CONTAINER = st.sampled_from([*CONTAINERS, "mp3", "RAW", ""])
ENCODING = st.sampled_from([*ENCODINGS, "pcm_u8", "PCM_S16LE", "mp3", ""])
RATE = st.sampled_from(
    [*SAMPLE_RATES, *(float(r) for r in SAMPLE_RATES), 11025, 0, -16000, 10**30, "16000", True]
)
NEAR = {  # plausible values, right and wrong, per field
    "model_id": st.sampled_from(["", "sonic-3", "statespeak"]),
    "model": st.sampled_from(["", "tts-1", "gpt-4o-mini-tts"]),
    "transcript": TRANSCRIPTS,
    "input": TRANSCRIPTS,
    "voice": VOICE_IDS | VOICE_OBJECTS,
    "voice.mode": VOICE_MODES,
    "voice.id": VOICE_IDS,
    "language": LANGUAGES,
    "locale": LANGUAGES,
    "speed": st.sampled_from([*parsers.NAMED_SPEEDS, "Fast", "normal ", ""]) | NUMBERS,
    "generation_config": st.fixed_dictionaries(
        {}, optional={"speed": NUMBERS, "volume": NUMBERS, "emotion": JSON}
    ),
    "generation_config.speed": NUMBERS,
    "generation_config.volume": NUMBERS,
    "context_id": st.sampled_from(["", "c" * 256, "c" * 257, "ctx"]) | st.text(max_size=12),
    "max_buffer_delay_ms": st.sampled_from([0, 1, 5000, 5001, -1, 1.5, 10**400, True, "100"]),
    "output_format": st.fixed_dictionaries(
        {}, optional={"container": CONTAINER, "encoding": ENCODING, "sample_rate": RATE}
    ),  # fmt: skip
    "output_format.container": CONTAINER,
    "output_format.encoding": ENCODING,
    "output_format.sample_rate": RATE,
    "add_timestamps": FLAGS,
    "continue": FLAGS,
    "flush": FLAGS,
    "cancel": FLAGS,
    "response_format": st.sampled_from(["wav", "pcm", "mp3", "opus", "aac", "flac", "WAV", "ogg", ""]),
    "stream_format": st.sampled_from(["audio", "sse", "SSE", "chunks", ""]),
    "instructions": st.text(max_size=30),
}

# The fields each request parser reads, and a valid request to change them in -------------------------------
CARTESIA_FIELDS = ("model_id", "transcript", "voice", "voice.mode", "voice.id", "language", "locale", "speed",
                   "generation_config", "generation_config.speed", "generation_config.volume", "context_id",
                   "max_buffer_delay_ms", "output_format", "output_format.container", "output_format.encoding",
                   "output_format.sample_rate", "add_timestamps")  # fmt: skip
WS_FIELDS = (*CARTESIA_FIELDS, "continue", "flush", "cancel")
OPENAI_FIELDS = ("model", "input", "voice", "voice.mode", "voice.id", "response_format", "stream_format", "speed",
                 "instructions")  # fmt: skip
CONTINUATION_FIELDS = ("transcript", "language", "continue", "flush", "cancel")
CARTESIA = {
    "model_id": "statespeak",
    "transcript": "Hi there.",
    "voice": {"mode": "id", "id": VOICES[0]},
    "language": "en",
    "speed": "normal",
    "generation_config": {"speed": 1.0, "volume": 1.0},
    "context_id": "fuzz",
    "max_buffer_delay_ms": 100,
    "output_format": {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000},
    "add_timestamps": False,
}
WS_OPEN = {**CARTESIA, "continue": False, "flush": False, "cancel": False}
OPENAI = {"model": "tts-1", "input": "Hi there.", "voice": "alloy", "response_format": "pcm",
          "stream_format": "audio", "speed": 1.0, "instructions": ""}  # fmt: skip
CONTINUATION = {
    "transcript": "And more.",
    "language": "en",
    "continue": True,
    "flush": False,
    "cancel": False,
}
PARSERS = {  # what reads each request's fields (calls aside)
    CARTESIA_FIELDS: (parsers.parse_cartesia, parsers._voice_id, parsers.parse_output_format),
    WS_FIELDS: (Connection.handle, Connection.open_context, Connection.apply),
    OPENAI_FIELDS: (parsers.parse_openai, parsers._voice_id),
}


def test_the_fuzz_changes_every_field_the_parsers_read():
    """The field tables above come from the parsers: a field a parser starts reading must be fuzzed too."""
    for fields, readers in PARSERS.items():
        source = "".join(inspect.getsource(f) for f in readers)
        read = set(re.findall(r'\.get\("(\w+)"', source)) | set(re.findall(r'\w\["(\w+)"\]', source))
        segments = {s for f in fields for s in f.split(".")}
        assert read and read <= segments, f"fields read but not fuzzed: {sorted(read - segments)}"
        assert all(f in NEAR for f in fields)


@st.composite
def changed(draw, base: dict, fields: tuple[str, ...]) -> tuple[dict, list[str]]:
    """`base` with one to three of its fields removed or replaced (a parent before its children), and maybe
    unknown fields added; returns the body and the fields changed."""
    body = copy.deepcopy(base)
    chosen = sorted(draw(st.lists(st.sampled_from(fields), min_size=1, max_size=3, unique=True)))
    for path in chosen:
        *parents, key = path.split(".")
        node = body
        for name in parents:
            node = node.get(name) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            continue  # its parent was replaced by something else
        if draw(st.integers(0, 4)) == 0:
            node.pop(key, None)
        else:
            node[key] = draw(either(NEAR[path], TYPES, JSON, NESTED))
    known = {s for f in fields for s in f.split(".")}
    body.update(draw(st.dictionaries(st.text(min_size=1, max_size=12).filter(lambda k: k not in known), ANY,
                                     max_size=2)))  # fmt: skip
    return body, chosen


def dumps(body, escape: bool = True) -> bytes:
    """JSON with NaN/Infinity literals, Raw fragments put in as they are, and text escaped to ASCII (or, with
    `escape` false, as UTF-8, a surrogate as the three bytes it would be: no valid UTF-8)."""
    raws: list[Raw] = []

    def mark(v):
        if isinstance(v, Raw):
            raws.append(v)
            return f"\x00raw{len(raws) - 1}\x00"
        if isinstance(v, dict):
            return {k: mark(x) for k, x in v.items()}
        if isinstance(v, list):
            return [mark(x) for x in v]
        return v

    text = json.dumps(mark(body), ensure_ascii=escape)
    for i, raw in enumerate(raws):
        text = text.replace(json.dumps(f"\x00raw{i}\x00", ensure_ascii=escape), raw.text)
    return text.encode("utf-8", "surrogatepass")


def allowed_fields(chosen: list[str]) -> set[str]:
    """The top-level fields an error may name for these changes."""
    tops = {c.split(".")[0] for c in chosen}
    if "locale" in tops:
        tops.add("language")  # "locale" is the older name of "language", and errors say "language"
    if "cancel" in tops:
        tops.add("context_id")  # a cancel names the context it cannot cancel
    return tops


def says_what(message: str, field: str) -> bool:
    """Whether the message names the field (its last part, or that part's first word: "context")."""
    last = field.split(".")[-1]
    return last in message or last.split("_")[0] in message


def parsed_object(raw: bytes):
    """The body as a JSON object parsed here, or None where the server must refuse it whole: too large, not
    UTF-8, not JSON, nested too deeply, or no JSON object."""
    if len(raw) > MAX_BYTES:
        return None
    try:
        text = raw.decode("utf-8")
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    # deeper than the server's parser recurses (its recursion limit, 1,000; hypothesis raises this process's)
    return value if isinstance(value, dict) and json_depth(text) < 1000 else None


def json_depth(text: str) -> int:
    """How deep arrays and objects nest in a JSON text."""
    depth = deepest = 0
    for token in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]', text):
        t = token.group()
        if t in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif t in "]}":
            depth -= 1
    return deepest


def expected_fields(raw: bytes, chosen: list[str]) -> set[str]:
    """The fields a refusal of `raw` may name: the body as a whole where it is no JSON object (or too large),
    else those changed."""
    if parsed_object(raw) is None:
        return {"body"}
    return allowed_fields(chosen)


def check_error(err: dict, status: int, allowed: set[str] | None) -> None:
    """Cartesia's error shape (errors.ApiError.cartesia_body)."""
    assert err["type"] == "error" and err["done"] in (True, False) and err["status_code"] == status, err
    assert 400 <= status < 500, err
    assert isinstance(err["error_code"], str) and isinstance(err["title"], str) and err["request_id"], err
    check_message(err["message"], err["field"], allowed)


def check_message(message, field, allowed: set[str] | None) -> None:
    assert isinstance(message, str) and isinstance(field, str) and field, (message, field)
    assert says_what(message, field), (message, field)
    assert len(message) <= 600, message  # errors must not echo a whole body back
    if allowed is not None:
        assert field.split(".")[0] in allowed, (field, allowed, message)


# HTTP -------------------------------------------------------------------------------------------------------
def post(server, path: str, raw: bytes, content_type: str | None = "application/json"):
    headers = {} if content_type is None else {"content-type": content_type}
    # read whole: a stream the server aborts (a failure after the 200) raises here, as a truncated body
    with httpx.stream("POST", server.base_url + path, content=raw, headers=headers, timeout=60) as r:
        return r, r.read()


def output_format(body: dict) -> tuple[str, str, int]:
    fmt = body.get("output_format") or {}
    return fmt.get("container", "raw"), fmt.get("encoding", "pcm_s16le"), int(fmt.get("sample_rate", 24000))


def pcm_of(data: bytes, container: str, encoding: str, rate: int) -> bytes:
    """The samples' bytes of a raw stream or of a streaming WAV (its header checked)."""
    if container == "wav":
        assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", data[:44]
        assert int.from_bytes(data[24:28], "little") == rate
        data = data[data.index(b"data") + 8 :]
    assert len(data) % WIDTH[encoding] == 0, len(data)
    return data


def sse_events(data: bytes) -> list[dict]:
    return [json.loads(line[5:]) for line in data.decode().splitlines() if line.startswith("data:")]


def check_whole(pcm: bytes, encoding: str, rate: int, audio_s: float) -> None:
    """Audio, every sample of it: what arrived is what the server's done message counted."""
    samples = len(pcm) // WIDTH[encoding]
    assert samples > 0, "a 200 with no audio"
    assert abs(samples / rate - audio_s) <= 1e-4, (samples, rate, audio_s)


def check_http(r: httpx.Response, data: bytes, path: str, body, allowed: set[str] | None) -> None:
    assert r.status_code < 500, (r.status_code, data[:500])
    openai = path.startswith("/v1/")
    if r.status_code != 200:
        assert r.headers["content-type"] == "application/json", (r.status_code, data[:500])
        err = json.loads(data)
        if openai:  # OpenAI's shape (errors.ApiError.openai_body), read by the openai SDK
            e = err["error"]
            assert e["type"] == "invalid_request_error" and isinstance(e["code"], str), err
            check_message(e["message"], e["param"], allowed)
        else:
            check_error(err, r.status_code, allowed)
        return
    if openai:
        container = "wav" if body.get("response_format", "wav") == "wav" else "raw"
        encoding, rate, sse = "pcm_s16le", 24000, body.get("stream_format", "audio") == "sse"
    else:
        (container, encoding, rate), sse = output_format(body), path == "/tts/sse"
    if not sse:
        assert len(pcm_of(data, container, encoding, rate)) > 0, "a 200 with no audio"
        return
    events = sse_events(data)
    assert events and events[-1]["type"] in ("done", "speech.audio.done"), events[-1:]
    assert not [e for e in events if e["type"] == "error"], events
    key = "audio" if openai else "data"
    audio = b"".join(base64.b64decode(e[key]) for e in events if key in e)
    check_whole(pcm_of(audio, container, encoding, rate), encoding, rate, events[-1]["metrics"]["audio_s"])


@settings(FUZZ, max_examples=160)
@given(
    case=changed(CARTESIA, CARTESIA_FIELDS), path=st.sampled_from(["/tts/bytes", "/tts/sse", "/invocations"])
)
def test_cartesia_http_fuzz(server, bystander, case, path):
    body, chosen = case
    raw = dumps(body)
    r, data = post(server, path, raw)
    event(f"HTTP {r.status_code}")  # --hypothesis-show-statistics: how many were spoken
    check_http(r, data, path, body, expected_fields(raw, chosen))


@settings(FUZZ, max_examples=120)
@given(case=changed(OPENAI, OPENAI_FIELDS))
def test_openai_http_fuzz(server, bystander, case):
    body, chosen = case
    raw = dumps(body)
    r, data = post(server, "/v1/audio/speech", raw)
    event(f"HTTP {r.status_code}")
    check_http(r, data, "/v1/audio/speech", body, expected_fields(raw, chosen))


GOOD = dumps(CARTESIA)
ODD_BODIES = [
    b"", b" ", b"{", b"}", b"{}", b"[]", b"null", b"NaN", b"-Infinity", b"1e999", b'"Hi."', b"{'transcript': 'Hi.'}",
    b'{"transcript": "caf\xe9"}', b"\xef\xbb\xbf" + GOOD, GOOD.decode().encode("utf-16"), GOOD + b"garbage",
    GOOD + b"\x00", b'{"transcript": "Hi.", "transcript": 7}', b'{"transcript": "Hi.\\u0000"}',
    b'{"transcript": "\\ud800\\udc00\\ud800"}', b'{"\\ud800": 1, "transcript": "Hi."}', b"\xc0\xaf", b"\xed\xa0\x80",
]  # fmt: skip
RAW_BODIES = st.one_of(
    st.binary(max_size=80),
    st.sampled_from(ODD_BODIES),
    st.builds(lambda n: GOOD[:n], st.integers(0, len(GOOD))),  # cut short
    st.builds(lambda n, b: GOOD[:n] + bytes([b]) + GOOD[n:], st.integers(0, len(GOOD)), st.integers(0, 255)),
    st.builds(lambda raw: dumps(raw).replace(b" ", b""), NESTED),
    # text unescaped, surrogates included: bytes that are no UTF-8 (surrogates encoded CESU-style)
    changed(CARTESIA, CARTESIA_FIELDS).map(lambda c: dumps(c[0], escape=False)),
)


@settings(FUZZ, max_examples=100)
@given(
    raw=RAW_BODIES,
    path=st.sampled_from(["/tts/bytes", "/tts/sse", "/invocations", "/v1/audio/speech"]),
    content_type=st.sampled_from(
        ["application/json", "text/plain", "application/x-www-form-urlencoded", None]
    ),
)
def test_http_bodies_that_are_not_json_objects(server, bystander, raw, path, content_type):
    r, data = post(server, path, raw, content_type)
    event(f"HTTP {r.status_code}")
    body = parsed_object(raw)
    if body is None:  # not JSON, not UTF-8, not an object, too large: a 4xx naming the body
        check_http(r, data, path, {}, {"body"})
        assert r.status_code == (413 if len(raw) > MAX_BYTES else 400), (r.status_code, data[:300])
    else:
        check_http(r, data, path, body, None)


# WebSocket --------------------------------------------------------------------------------------------------
async def recv(ws, timeout: float = 30.0) -> dict:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


F32 = {"output_format": {"container": "raw", "encoding": "pcm_f32le", "sample_rate": 16000}}


def good_message(cid: str, text: str = "Fine.", **over) -> str:
    """A valid first message of a context (f32 at 16 kHz: no resampling, no rounding), its input closed."""
    msg = {
        "context_id": cid,
        "transcript": text,
        "voice": {"mode": "id", "id": VOICES[0]},
        **F32,
        "continue": False,
    }
    return json.dumps({**msg, **over})


def check_context(msgs: list[dict], opened_with: dict) -> None:
    """One context's messages: they end with exactly one terminal message; a `done` follows whole audio (in
    the output format of the message that opened the context)."""
    terminal = [m for m in msgs if m["type"] in ("done", "error") and m.get("done")]
    assert len(terminal) == 1 and msgs[-1] is terminal[0], msgs
    assert all(m.get("status_code", 200) < 500 for m in msgs), msgs
    if msgs[-1]["type"] == "done" and not msgs[-1].get("cancelled"):
        container, encoding, rate = output_format(opened_with)
        audio = b"".join(base64.b64decode(m["data"]) for m in msgs if m["type"] == "chunk")
        if audio or msgs[-1]["metrics"]["audio_s"]:
            check_whole(
                pcm_of(audio, container, encoding, rate), encoding, rate, msgs[-1]["metrics"]["audio_s"]
            )


async def until_done(ws, cids: set[str], seen: dict[str, list[dict]]) -> None:
    """Read until each of `cids` sent its terminal message; every message is kept in `seen` by context."""
    while not all(any(m.get("done") for m in seen.get(c, ())) for c in cids):
        msg = await recv(ws)
        assert msg.get("status_code", 200) < 500, msg
        seen.setdefault(msg.get("context_id"), []).append(msg)


async def until_barrier(ws, barrier: str, seen: dict[str, list[dict]]) -> list[dict]:
    """Send a message the server refuses at once (a cancel of an unknown context) and read up to its refusal:
    the server answers a connection's messages in order, so the errors before it are the earlier messages'."""
    await ws.send(json.dumps({"context_id": barrier, "cancel": True}))
    errors = []
    while True:
        msg = await recv(ws)
        assert msg.get("status_code", 200) < 500, msg
        if msg.get("context_id") == barrier:
            assert msg["type"] == "error" and msg["field"] == "context_id", msg
            return errors
        seen.setdefault(msg.get("context_id"), []).append(msg)
        if msg["type"] == "error":
            errors.append(msg)


def closes(body: dict) -> bool:
    """Whether a message taken for an open context ends its input (continue=false or absent, or cancel)."""
    return body.get("cancel") is True or body.get("continue") is not True


def still_open(steps: list[tuple[dict, list[str]]], answers: list[list[dict]]) -> bool:
    """Whether the context's input is still open after these messages and their refusals."""
    return not any(not refused and closes(body) for (body, _), refused in zip(steps, answers, strict=False))


WS_FRAMES = st.one_of(  # (the frame's bytes, sent as a binary frame, the fields changed)
    changed(WS_OPEN, WS_FIELDS).map(lambda c: (dumps(c[0]), False, c[1])),
    st.tuples(RAW_BODIES, st.booleans(), st.none()),
)


FRAME_LIMIT = 4 * MAX_BYTES  # a larger frame is closed by the protocol layer (1009), docs/server.md says


async def close_code(ws) -> int | None:
    """Read until the server closes the connection; its close code."""
    try:
        while True:
            await recv(ws)
    except ConnectionClosedError as exc:
        return exc.rcvd.code if exc.rcvd is not None else None


def ws_frame(payload: bytes, binary: bool) -> bytes | str:
    """A text frame where the bytes are UTF-8 and `binary` is not asked for, else a binary frame."""
    if not binary:
        try:
            return payload.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return payload


@settings(FUZZ, max_examples=120)
@given(frame=WS_FRAMES)
def test_websocket_first_message_fuzz(server, bystander, frame):
    """A context's first message: refused with one error for its context (or for the whole message where it
    is no JSON object), or spoken; either way the connection goes on, and a context it opened ends."""
    payload, binary, chosen = frame
    frame = ws_frame(payload, binary)
    msg = None if isinstance(frame, bytes) else parsed_object(payload)
    cid = msg.get("context_id") if msg is not None else None
    cid = cid if isinstance(cid, str) and 0 < len(cid) <= 256 else None

    if len(payload) > FRAME_LIMIT:  # no JSON error for a frame this large: the connection is closed (1009)

        async def too_large():
            async with connect(server.ws_url + "/tts/websocket", max_size=None) as ws:
                await ws.send(frame)
                return await close_code(ws)

        assert asyncio.run(too_large()) == 1009
        event("WebSocket closed (1009)")
        return

    async def main():
        async with connect(server.ws_url + "/tts/websocket", max_size=None) as ws:
            seen: dict[str, list[dict]] = {}
            await ws.send(frame)
            refused = await until_barrier(ws, "barrier", seen)
            if (
                cid is not None
                and not refused
                and msg.get("continue") is True
                and msg.get("cancel") is not True
            ):
                await ws.send(
                    json.dumps({"context_id": cid, "transcript": "", "continue": False})
                )  # close it
            await ws.send(good_message("good", "Still fine."))  # the connection goes on serving
            await until_done(ws, {"good"} | ({cid} if cid is not None else set()), seen)
            return refused, seen

    refused, seen = asyncio.run(main())
    event("WebSocket message refused" if refused else "WebSocket message taken")
    assert len(refused) <= 1, refused
    if msg is None:  # binary, too large, not JSON, no object: refused whole, naming the message
        assert len(refused) == 1 and seen.get(None) == refused, seen
        check_error(refused[0], 413 if len(payload) > MAX_BYTES and not isinstance(frame, bytes) else 400,
                    {"message"})  # fmt: skip
        assert refused[0]["done"] is True and refused[0].get("context_id") is None, refused
    else:
        sent = msg.get("context_id")
        for err in refused:
            assert err["done"] is True and err.get("context_id") == (
                sent if isinstance(sent, str) else None
            ), err
            check_error(err, err["status_code"], None if chosen is None else allowed_fields(chosen))
        if isinstance(sent, str):  # nothing for any other context
            assert set(seen) <= {sent, "good", None}, seen.keys()
    if cid is not None:
        check_context(seen[cid], msg)
    check_context(seen["good"], F32)
    assert seen["good"][-1]["type"] == "done" and seen["good"][-1]["metrics"]["audio_s"] > 0


@settings(FUZZ, max_examples=100)
@given(steps=st.lists(changed(CONTINUATION, CONTINUATION_FIELDS), min_size=1, max_size=3))
def test_websocket_continuation_fuzz(server, bystander, steps):
    """Messages for an open context: a bad one is refused without ending the context (`done: false`), one
    after its input closed is refused naming the context; the context ends with one terminal message, after
    whole audio, and the connection goes on."""
    raws = []
    for body, _ in steps:
        body["context_id"] = "ctx"
        raws.append(dumps(body))
    assume(all(len(raw) <= FRAME_LIMIT for raw in raws))  # a larger frame closes the connection (1009)

    async def main():
        async with connect(server.ws_url + "/tts/websocket", max_size=None) as ws:
            seen: dict[str, list[dict]] = {}
            await ws.send(good_message("ctx", "Hello there. ", **{"continue": True}))
            answers = []
            for i, raw in enumerate(raws):
                await ws.send(raw.decode())
                answers.append(await until_barrier(ws, f"barrier-{i}", seen))
            if still_open(steps, answers):
                await ws.send(json.dumps({"context_id": "ctx", "transcript": "", "continue": False}))
            await ws.send(good_message("good-sync"))  # the connection goes on
            await until_done(ws, {"ctx", "good-sync"}, seen)
            return answers, seen

    answers, seen = asyncio.run(main())
    for n, ((body, chosen), raw, refused) in enumerate(zip(steps, raws, answers, strict=True)):
        open_ = still_open(steps[:n], answers[:n])
        event("continuation refused" if refused else "continuation taken")
        assert len(refused) <= 1, refused
        for err in refused:
            if (
                parsed_object(raw) is None
            ):  # nested too deeply or too large: refused whole, naming the message
                assert err.get("context_id") is None and err["done"] is True, err
                check_error(err, 413 if len(raw) > MAX_BYTES else 400, {"message"})
            elif open_:  # refused, and the context goes on
                assert err["context_id"] == "ctx" and err["done"] is False, err
                check_error(err, err["status_code"], allowed_fields(chosen))
            else:  # its input closed (or it ended): refused, naming the context or a field of the message
                assert err["context_id"] == "ctx", err
                check_error(err, err["status_code"], allowed_fields(chosen) | {"context_id"})
        if not open_ and not refused:  # after its input closed, only a cancel is taken (and changes nothing)
            assert body.get("cancel") is True, (body, answers)
    refusals = [err for refused in answers for err in refused]
    check_context([m for m in seen["ctx"] if not any(m is r for r in refusals)], F32)
    check_context(seen["good-sync"], F32)


# The bystander, and the server after the fuzz ---------------------------------------------------------------
BYSTANDER_TEXT = ("Hello there. ", "How are you today? ", "See you soon.")


class Bystander:
    """Healthy streams over and over while the fuzz runs, in a thread: a context in three messages on one
    WebSocket connection that stays open, and the whole text over HTTP SSE. Each must get the audio it
    got alone before the fuzz began: every sample, the same samples (batching with other streams moves
    them by float rounding only)."""

    def __init__(self, server) -> None:
        self.server = server
        self.stop = threading.Event()
        self.runs = 0
        self.failures: list[str] = []
        self.stderr_at = len(server.stderr())
        self.ws_ref = self.http_ref = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._loop()), daemon=True)

    async def _ws_once(self, ws, cid: str) -> np.ndarray:
        for i, piece in enumerate(BYSTANDER_TEXT):
            more = i < len(BYSTANDER_TEXT) - 1
            await ws.send(good_message(cid, piece, **{"continue": more, "max_buffer_delay_ms": 5000}))
        msgs = []
        while not (msgs and msgs[-1].get("done")):
            msgs.append(await recv(ws))
            assert msgs[-1].get("context_id") == cid, msgs[-1]
        assert msgs[-1]["type"] == "done", msgs[-1]
        check_context(msgs, F32)
        return decode_pcm(
            b"".join(base64.b64decode(m["data"]) for m in msgs if m["type"] == "chunk"), "pcm_f32le"
        )

    def _http_once(self) -> np.ndarray:
        body = {**CARTESIA, "transcript": "".join(BYSTANDER_TEXT), **F32}
        r, data = post(self.server, "/tts/sse", json.dumps(body).encode())
        assert r.status_code == 200, data[:500]
        check_http(r, data, "/tts/sse", body, None)
        return decode_pcm(
            b"".join(base64.b64decode(e["data"]) for e in sse_events(data) if "data" in e), "pcm_f32le"
        )

    @staticmethod
    def _same(got: np.ndarray, ref: np.ndarray) -> str | None:
        n = min(len(got), len(ref))
        worst = float(np.abs(got[:n] - ref[:n]).max()) if n else 0.0
        if len(got) != len(ref) or not n or worst > 1e-3:
            return f"{len(got)} samples, {len(ref)} alone; largest difference {worst}"
        return None

    async def _loop(self) -> None:
        try:
            # no keepalive pings: their payload comes from the `random` module, which hypothesis watches
            async with connect(self.server.ws_url + "/tts/websocket", ping_interval=None) as ws:
                self.ws_ref, self.http_ref = await self._ws_once(ws, "by-0"), self._http_once()
                self.started.set()
                while not self.stop.is_set():
                    self.runs += 1
                    for what, got, ref in (
                        ("websocket", await self._ws_once(ws, f"by-{self.runs}"), self.ws_ref),
                        ("http", await asyncio.to_thread(self._http_once), self.http_ref),
                    ):
                        if (diff := self._same(got, ref)) is not None:
                            self.failures.append(f"run {self.runs} {what}: {diff}")
                    await asyncio.sleep(0.2)  # a steady stream, not a saturated engine
        except BaseException as exc:  # reported by the last test
            self.failures.append(f"run {self.runs}: {type(exc).__name__}: {exc}")
        finally:
            self.started.set()

    def wait_runs(self, runs: int, timeout: float = 60.0) -> None:
        """Until it spoke `runs` times with the fuzz (when this module's fuzz tests were left out)."""
        deadline = time.monotonic() + timeout
        while self.runs < runs and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.1)

    def start(self) -> Bystander:
        self.started = threading.Event()
        self.thread.start()
        assert self.started.wait(60) and not self.failures, self.failures
        return self

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(60)


@pytest.fixture(scope="module")
def bystander(server):
    by = Bystander(server).start()
    yield by
    by.finish()


def test_after_the_fuzz_the_bystander_got_all_its_audio_and_the_server_is_healthy(server, bystander):
    bystander.wait_runs(3)
    bystander.finish()
    assert not bystander.failures, bystander.failures
    assert bystander.runs >= 3, bystander.runs
    assert server.proc.poll() is None
    for path in ("/health", "/ready"):
        assert httpx.get(server.base_url + path, timeout=10).status_code == 200
    assert server.wait_metric(prom_name(METRIC_ACTIVE_STREAMS), 0) == 0  # no slot held by a refused request

    async def fresh():  # a new connection, right after
        async with connect(server.ws_url + "/tts/websocket") as ws:
            await ws.send(good_message("after", "All good."))
            seen: dict[str, list[dict]] = {}
            await until_done(ws, {"after"}, seen)
            return seen["after"]

    after = asyncio.run(fresh())
    check_context(after, F32)
    assert after[-1]["type"] == "done" and after[-1]["metrics"]["audio_s"] > 0
    logged = server.stderr()[bystander.stderr_at :].splitlines()
    errors = [line for line in logged if '"level": "ERROR"' in line or '"level": "CRITICAL"' in line]
    assert not errors and "Traceback" not in "\n".join(logged), errors[:3]
