"""HTTP API against the real server: Cartesia bytes/SSE, OpenAI speech, SageMaker, probes, bad input."""

from __future__ import annotations

import base64
import json
import socket
import struct
import time

import httpx
import openai
import pytest
from cartesia import Cartesia

from model_server.api.errors import ApiError
from model_server.api.requests import parse_json
from model_server.audio import ENCODINGS, SAMPLE_RATES
from model_server.contract import (
    METRIC_ACTIVE_STREAMS,
    METRIC_REAL_TIME_FACTOR,
    METRIC_TIME_TO_FIRST_AUDIO,
)
from model_server.metrics import prom_name

from .conftest import HOP, MODEL_RATE, decode_pcm, rms

TEXT = "Hello there. How are you?"
VOICE = "en_female_a"


def body(**over) -> dict:
    b = {
        "model_id": "statespeak",
        "transcript": TEXT,
        "voice": {"mode": "id", "id": VOICE},
        "output_format": {"container": "raw", "encoding": "pcm_f32le", "sample_rate": 16000},
        "language": "en",
    }
    b.update(over)
    return b


def sse_events(text: str) -> list[dict]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]


@pytest.fixture(scope="module")
def reference_frames(server) -> int:
    """Frames the model makes for TEXT, as the server reports them in the SSE done message."""
    r = httpx.post(server.base_url + "/tts/sse", json=body(), timeout=30)
    done = sse_events(r.text)[-1]
    assert done["type"] == "done"
    audio = b"".join(base64.b64decode(e["data"]) for e in sse_events(r.text) if e["type"] == "chunk")
    frames = round(done["metrics"]["audio_s"] * MODEL_RATE / HOP)
    assert len(audio) // 4 == frames * HOP  # 16 kHz f32: samples == frames * hop exactly
    return frames


def test_probes_and_voices(server):
    for path in ("/health", "/ready", "/ping"):
        assert httpx.get(server.base_url + path).status_code == 200
    voices = httpx.get(server.base_url + "/voices").json()["voices"]
    assert {v["id"] for v in voices} == {"en_female_a", "en_male_b"}
    assert set(voices[0]) == {"id", "name", "language", "gender", "description", "teacher", "supported"}
    assert not any(v["supported"] for v in voices)  # no measurement beside these weights


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("rate", SAMPLE_RATES)
def test_bytes_every_encoding_and_rate(server, reference_frames, encoding, rate):
    fmt = {"container": "raw", "encoding": encoding, "sample_rate": rate}
    r = httpx.post(server.base_url + "/tts/bytes", json=body(output_format=fmt), timeout=30)
    assert r.status_code == 200, r.text
    audio = decode_pcm(r.content, encoding)
    expected = reference_frames * HOP * rate / MODEL_RATE
    assert abs(len(audio) - expected) <= 1
    assert rms(audio) > 1e-3  # not silence


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_wav_container_header_and_length(server, reference_frames, encoding):
    fmt = {"container": "wav", "encoding": encoding, "sample_rate": 24000}
    r = httpx.post(server.base_url + "/tts/bytes", json=body(output_format=fmt), timeout=30)
    assert r.status_code == 200 and r.headers["content-type"] == "audio/wav"
    data = r.content
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    fmt_len = struct.unpack("<I", data[16:20])[0]
    tag, channels, rate = struct.unpack("<HHI", data[20:28])
    assert (tag, channels, rate) == (
        {"pcm_f32le": 3, "pcm_s16le": 1, "pcm_mulaw": 7, "pcm_alaw": 6}[encoding],
        1,
        24000,
    )
    pcm = data[20 + fmt_len + 8 :]
    assert abs(len(decode_pcm(pcm, encoding)) - reference_frames * HOP * 24000 / MODEL_RATE) <= 1


def test_sse_stream_shape_timestamps_and_server_ttfb(server, reference_frames):
    r = httpx.post(server.base_url + "/tts/sse", json=body(add_timestamps=True, context_id="c-1"), timeout=30)
    assert r.headers["content-type"].startswith("text/event-stream")
    events = sse_events(r.text)
    chunks = [e for e in events if e["type"] == "chunk"]
    assert chunks and all(
        e["status_code"] == 200 and e["done"] is False and e["context_id"] == "c-1" for e in chunks
    )
    assert all(isinstance(e["step_time"], float) for e in chunks)
    stamps = [e["word_timestamps"] for e in events if e["type"] == "timestamps"]
    words = [w for s in stamps for w in s["words"]]
    assert [w.strip(".,?").lower() for w in words] == ["hello", "there", "how", "are", "you"]
    starts = [t for s in stamps for t in s["start"]]
    ends = [t for s in stamps for t in s["end"]]
    assert starts == sorted(starts) and all(e >= s for s, e in zip(starts, ends, strict=True))
    assert ends[-1] <= reference_frames * HOP / MODEL_RATE + 1e-6
    done = events[-1]
    assert done["type"] == "done" and done["done"] is True and done["context_id"] == "c-1"
    assert done["metrics"]["ttfb_ms"] > 0 and done["metrics"]["rtf"] > 0


def test_cartesia_sdk_bytes_and_sse(server, reference_frames):
    client = Cartesia(api_key="unused", base_url=server.base_url)
    fmt = {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 22050}
    resp = client.tts.generate(model_id="sonic-3", transcript=TEXT, voice={"mode": "id", "id": VOICE},
                               output_format=fmt, language="en")  # fmt: skip
    pcm = resp.read()
    assert abs(len(pcm) // 2 - reference_frames * HOP * 22050 / MODEL_RATE) <= 1
    stream = client.tts.generate_sse(model_id="sonic-3", transcript=TEXT, voice={"mode": "id", "id": VOICE},
                                     output_format=fmt)  # fmt: skip
    events = list(stream)
    audio = b"".join(e.audio for e in events if e.type == "chunk")
    assert events[-1].type == "done" and audio == pcm  # same text, same voice: the model is deterministic


def test_openai_sdk_streaming_speech(server, reference_frames):
    client = openai.OpenAI(api_key="unused", base_url=server.base_url + "/v1")
    with client.audio.speech.with_streaming_response.create(
        model="tts-1", voice=VOICE, input=TEXT, response_format="pcm"
    ) as response:
        pcm = b"".join(response.iter_bytes(1024))
    # OpenAI's pcm: 16-bit little-endian at 24 kHz
    assert abs(len(pcm) // 2 - reference_frames * HOP * 24000 / MODEL_RATE) <= 1
    assert rms(decode_pcm(pcm, "pcm_s16le")) > 1e-3
    wav = client.audio.speech.create(model="tts-1", voice="alloy", input=TEXT, response_format="wav").read()
    assert wav[:4] == b"RIFF"


def test_openai_sse_stream_format(server, reference_frames):
    payload = {
        "model": "tts-1",
        "voice": VOICE,
        "input": TEXT,
        "response_format": "pcm",
        "stream_format": "sse",
    }
    r = httpx.post(server.base_url + "/v1/audio/speech", json=payload, timeout=30)
    events = sse_events(r.text)
    audio = b"".join(base64.b64decode(e["audio"]) for e in events if e["type"] == "speech.audio.delta")
    assert abs(len(audio) // 2 - reference_frames * HOP * 24000 / MODEL_RATE) <= 1
    # no token counts: this server has no tokenizer, and frames are not tokens
    assert events[-1]["type"] == "speech.audio.done" and "usage" not in events[-1]


@pytest.mark.parametrize("fmt", ["mp3", "opus", "aac", "flac"])
def test_openai_compressed_formats_refused_with_alternatives(server, fmt):
    client = openai.OpenAI(api_key="unused", base_url=server.base_url + "/v1", max_retries=0)
    with pytest.raises(openai.BadRequestError) as info:
        client.audio.speech.create(model="tts-1", voice=VOICE, input=TEXT, response_format=fmt)
    message = info.value.body["message"]
    assert fmt in message and "wav" in message and "pcm" in message
    assert info.value.body["param"] == "response_format"


def test_sagemaker_ping_and_chunked_invocations(server, reference_frames):
    assert httpx.get(server.base_url + "/ping").status_code == 200
    fmt = {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}
    with httpx.stream(
        "POST", server.base_url + "/invocations", json=body(output_format=fmt), timeout=30
    ) as r:
        assert r.status_code == 200
        assert r.headers.get("transfer-encoding") == "chunked"
        parts = list(r.iter_raw())
    assert len(b"".join(parts)) == reference_frames * HOP * 2


def test_unknown_cartesia_version_is_ignored(server):
    headers = {"Cartesia-Version": "2099-01-01"}
    r = httpx.post(server.base_url + "/tts/bytes", json=body(transcript="Hi."), headers=headers, timeout=30)
    assert r.status_code == 200 and len(r.content) > 0


def test_speed_changes_duration(server, reference_frames):
    r = httpx.post(server.base_url + "/tts/bytes", json=body(speed=2.0), timeout=30)
    fast = len(r.content) // 4 / HOP
    assert fast < 0.75 * reference_frames


def test_prometheus_metrics_use_contract_names(server, reference_frames):
    text = httpx.get(server.base_url + "/metrics").text
    for metric in (prom_name(METRIC_ACTIVE_STREAMS), prom_name(METRIC_TIME_TO_FIRST_AUDIO) + "_ms_count",
                   prom_name(METRIC_REAL_TIME_FACTOR) + "_count"):  # fmt: skip
        assert metric in text
    assert server.metric(prom_name(METRIC_TIME_TO_FIRST_AUDIO) + "_ms_count") >= 1


# Bad input: a 4xx naming the field, and the server stays ready --------------------------------------
LONG = "word " * 100  # 500 chars, over the 400-char limit the shared server runs with

BAD_CARTESIA = [
    (b"{not json", "body", 400),
    (b'{"transcript": "caf\xe9"}', "body", 400),  # latin-1 byte: not UTF-8
    (b"[1, 2]", "body", 400),
    (json.dumps({k: v for k, v in body().items() if k != "transcript"}).encode(), "transcript", 400),
    (json.dumps(body(transcript="   ")).encode(), "transcript", 400),
    (json.dumps(body(transcript=" ... ")).encode(), "transcript", 400),  # nothing speakable
    (json.dumps(body(transcript="$ 🙂")).encode(), "transcript", 400),
    (json.dumps(body(transcript=LONG)).encode(), "transcript", 400),
    (json.dumps(body(transcript=7)).encode(), "transcript", 400),
    (json.dumps(body(voice={"mode": "id", "id": "nobody"})).encode(), "voice.id", 400),
    (json.dumps(body(voice={"mode": "embedding", "embedding": [0.1]})).encode(), "voice.mode", 400),
    (json.dumps(body(language="xx")).encode(), "language", 400),
    (json.dumps(body(output_format={"container": "raw", "encoding": "pcm_u8", "sample_rate": 16000})).encode(),
     "output_format.encoding", 400),
    (json.dumps(body(output_format={"container": "mp3", "encoding": "pcm_s16le", "sample_rate": 16000})).encode(),
     "output_format.container", 400),
    (json.dumps(body(output_format={"container": "raw", "encoding": "pcm_s16le", "sample_rate": 11025})).encode(),
     "output_format.sample_rate", 400),
    (json.dumps(body(speed=3.0)).encode(), "speed", 400),
    (json.dumps(body(speed="ludicrous")).encode(), "speed", 400),
    (json.dumps(body(generation_config={"speed": 0.1})).encode(), "generation_config.speed", 400),
    (json.dumps(body(transcript="x" * 5000)).encode(), "body", 413),  # over the 4 KiB body limit
    (b'{"a": ' + b"[" * 1500 + b"]" * 1500 + b"}", "body", 400),  # deeper than the JSON parser recurses (a 500)
    (json.dumps(body(language=None, locale="xx")).encode(), "language", 400),  # a null language hid the locale
    # an integer past a float's range made math.isfinite raise: a plain-text 500
    (b'{"transcript": "Hi.", "voice": {"mode": "id", "id": "en_female_a"}, "speed": 1' + b"0" * 400 + b"}",
     "speed", 400),
    (json.dumps(body(generation_config={"volume": 10**400})).encode(), "generation_config.volume", 400),
    # letters the English normalizer drops: 200 with no audio before
    (json.dumps(body(transcript="你好世界")).encode(), "transcript", 400),
    (json.dumps(body(transcript="مرحبا بالعالم")).encode(), "transcript", 400),
]  # fmt: skip


def test_text_in_a_script_the_language_does_not_read_is_refused_saying_how_to_speak_it(server):
    """ "你好" to an English voice has words: the 400 said "nothing to speak", which sent clients looking for a
    bug in their text rather than at the language."""
    r = httpx.post(server.base_url + "/tts/bytes", json=body(transcript="你好，世界。"), timeout=30)
    assert r.status_code == 400 and r.json()["field"] == "transcript"
    message = r.json()["message"]
    assert "language 'en'" in message and "Latin" in message and "nothing to speak" not in message
    assert "set language" in message
    # the OpenAI request has no language field: its clients can only choose a voice
    r = httpx.post(
        server.base_url + "/v1/audio/speech",
        json={"model": "tts-1", "voice": "alloy", "input": "你好"},
        timeout=30,
    )
    assert r.status_code == 400 and r.json()["error"]["param"] == "input"
    message = r.json()["error"]["message"]
    assert "choose a voice of the text's language" in message and "set language" not in message


@pytest.mark.parametrize("path", ["/tts/bytes", "/tts/sse", "/invocations"])
@pytest.mark.parametrize(("raw", "field", "status"), BAD_CARTESIA)
def test_bad_cartesia_requests_name_the_field(server, path, raw, field, status):
    r = httpx.post(
        server.base_url + path, content=raw, headers={"content-type": "application/json"}, timeout=30
    )
    assert r.status_code == status, r.text
    err = r.json()
    assert err["field"] == field and err["message"] and err["status_code"] == status


def test_an_integer_too_long_to_convert_is_a_400_naming_the_body():
    """Python refuses to convert integers of more than 4,300 digits (a ValueError, which became a 500)."""
    with pytest.raises(ApiError) as info:
        parse_json(b'{"transcript": "Hi.", "speed": 1' + b"0" * 5000 + b"}")
    assert info.value.status == 400 and info.value.field == "body" and "digits" in str(info.value)


def test_a_client_that_leaves_mid_body_logs_no_server_error(server):
    """A disconnect while the body is on its way is the client's doing: nothing to answer, no traceback."""
    before = server.stderr()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"POST /tts/bytes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"transcript\": ")  # fmt: skip
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and httpx.get(server.base_url + "/ready").status_code != 200:
        time.sleep(0.1)
    time.sleep(0.5)  # the server notices the closed socket on its next read
    new = server.stderr()[len(before) :]
    assert "Traceback" not in new and "ClientDisconnect" not in new, new[-2000:]


def test_a_client_too_slow_to_send_its_request_is_cut_without_disturbing_a_stream(server, reference_frames):
    """A request head that stops arriving (slowloris) is closed at the read deadline (2 s here, 30 s by
    default), logged, and a stream served meanwhile gets all its audio."""
    before = server.stderr()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as slow:
        slow.sendall(b"POST /tts/bytes HTTP/1.1\r\nHost: x\r\nContent-Type: appl")
        r = httpx.post(server.base_url + "/tts/sse", json=body(), timeout=30)
        assert sse_events(r.text)[-1]["type"] == "done"
        frames = round(sse_events(r.text)[-1]["metrics"]["audio_s"] * MODEL_RATE / HOP)
        assert frames == reference_frames
        assert slow.recv(1024) == b""  # closed by the server, not by the 10 s socket timeout
    new = server.stderr()[len(before) :]
    assert "request not read within the deadline" in new and "Traceback" not in new, new[-2000:]


def test_bad_input_leaves_server_ready_and_slots_free(server):
    httpx.post(server.base_url + "/tts/bytes", content=b"{oops", timeout=30)
    assert httpx.get(server.base_url + "/ready").status_code == 200
    assert server.wait_metric(prom_name(METRIC_ACTIVE_STREAMS), 0) == 0
    r = httpx.post(server.base_url + "/tts/bytes", json=body(transcript="Still fine."), timeout=30)
    assert r.status_code == 200 and len(r.content) > 0


BAD_OPENAI = [
    ({"model": "tts-1", "voice": VOICE}, "input"),
    ({"model": "tts-1", "voice": VOICE, "input": ""}, "input"),
    ({"model": "tts-1", "voice": VOICE, "input": "?!"}, "input"),
    ({"model": "tts-1", "voice": "nobody", "input": "Hi."}, "voice"),
    ({"model": "tts-1", "voice": VOICE, "input": "Hi.", "speed": 4.0}, "speed"),
    ({"model": "tts-1", "voice": VOICE, "input": "Hi.", "response_format": "ogg"}, "response_format"),
    ({"model": "tts-1", "voice": VOICE, "input": "Hi.", "stream_format": "chunks"}, "stream_format"),
    (
        {"model": "tts-1", "voice": VOICE, "input": "Hi.", "response_format": ["wav"]},
        "response_format",
    ),  # a 500
    ({"model": "tts-1", "voice": VOICE, "input": "Hi.", "response_format": {"a": 1}}, "response_format"),
    ({"model": "tts-1", "voice": VOICE, "input": "Hi.", "speed": 10**400}, "speed"),  # a 500
    ({"model": "tts-1", "voice": VOICE, "input": "สวัสดี"}, "input"),  # no audio
]


def test_null_output_format_fields_are_the_defaults_as_a_null_output_format_is(server):
    default = httpx.post(server.base_url + "/tts/bytes", json=body(output_format=None), timeout=30)
    nulls = {"container": None, "encoding": None, "sample_rate": None}
    r = httpx.post(server.base_url + "/tts/bytes", json=body(output_format=nulls), timeout=30)
    assert default.status_code == r.status_code == 200
    assert r.headers["content-type"] == default.headers["content-type"] and len(r.content) == len(
        default.content
    )
    partial = {"container": "raw", "encoding": None, "sample_rate": 8000}  # only what was given changes
    r = httpx.post(server.base_url + "/tts/bytes", json=body(output_format=partial), timeout=30)
    assert r.status_code == 200 and 0 < len(r.content) < len(default.content)


def test_unknown_routes_and_wrong_methods_answer_in_the_error_json_of_their_api(server):
    # OpenAI clients read error.message, Cartesia's read message: the router's own refusals speak the same way
    r = httpx.get(server.base_url + "/v1/audio/speech", timeout=30)
    assert r.status_code == 405 and "POST" in r.headers["allow"]
    assert r.json()["error"]["message"] == "GET is not allowed on /v1/audio/speech; use POST"
    assert r.json()["error"]["code"] == "method_not_allowed"
    r = httpx.post(server.base_url + "/v1/audio/speak", json={}, timeout=30)
    assert r.status_code == 404 and r.json()["error"]["message"] == "no route /v1/audio/speak on this server"
    r = httpx.get(server.base_url + "/tts/bytes", timeout=30)
    assert r.status_code == 405
    assert r.json()["message"] == "GET is not allowed on /tts/bytes; use POST"
    assert r.json()["title"] == "Method not allowed" and r.json()["error_code"] == "method_not_allowed"
    r = httpx.post(server.base_url + "/tts/byte", json={}, timeout=30)
    assert r.status_code == 404 and r.json()["error_code"] == "not_found"


@pytest.mark.parametrize(("payload", "field"), BAD_OPENAI)
def test_bad_openai_requests_name_the_param(server, payload, field):
    r = httpx.post(server.base_url + "/v1/audio/speech", json=payload, timeout=30)
    assert r.status_code == 400
    assert r.json()["error"]["param"] == field


def test_openai_voice_names_come_from_the_explicit_table(server):
    # alloy and echo are mapped by STATESPEAK_OPENAI_VOICES; the named voice speaks, like its id does
    def pcm(voice):
        payload = {"model": "tts-1", "voice": voice, "input": "Hi.", "response_format": "pcm"}
        return httpx.post(server.base_url + "/v1/audio/speech", json=payload, timeout=30).content

    assert pcm("alloy") == pcm("en_female_a") and pcm("echo") == pcm("en_male_b")
    listed = httpx.get(server.base_url + "/voices", timeout=10).json()["openai_voices"]
    assert listed == {"alloy": "en_female_a", "echo": "en_male_b"}
    r = httpx.post(server.base_url + "/v1/audio/speech", json={"voice": "nova", "input": "Hi."}, timeout=30)
    err = r.json()["error"]
    assert r.status_code == 400 and err["param"] == "voice"
    assert "en_female_a, en_male_b" in err["message"] and "alloy, echo" in err["message"]
