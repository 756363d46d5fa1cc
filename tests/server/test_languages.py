"""Languages on every API, against a real server with the shipped model (a voice in every catalog language)
and one with an English-only model (a language the frontend knows but the model has no voice for)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from websockets.asyncio.client import connect

from model_server.frontend.languages import CATALOG
from model_server.model.runtime import DEFAULT_MODEL_DIR

from ._server import ServerProcess, make_model_dir
from .test_websocket import audio_of, collect, recv

FMT = {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}
SHIPPED = {
    v["id"]: v["language"] for v in json.loads((DEFAULT_MODEL_DIR / "config.json").read_text())["voices"]
}
SUPPORTED = ", ".join(sorted(set(SHIPPED.values())))


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    with ServerProcess(DEFAULT_MODEL_DIR, tmp_path_factory.mktemp("shipped"), MAX_STREAMS="8") as proc:
        yield proc


@pytest.fixture(scope="module")
def english_only(tmp_path_factory):
    model_dir = make_model_dir(tmp_path_factory.mktemp("en-model"))
    with ServerProcess(model_dir, tmp_path_factory.mktemp("en-server"), MAX_STREAMS="4") as proc:
        yield proc


def body(voice: str, transcript: str, **over) -> dict:
    b = {"model_id": "statespeak", "transcript": transcript, "voice": {"mode": "id", "id": voice},
         "output_format": FMT}  # fmt: skip
    b.update(over)
    return b


def test_voices_say_language_and_teacher(shipped):
    voices = {v["id"]: v for v in httpx.get(shipped.base_url + "/voices").json()["voices"]}
    assert {vid: v["language"] for vid, v in voices.items()} == SHIPPED
    assert set(SHIPPED.values()) == set(CATALOG)  # a voice in every language of the catalog
    assert voices["en_female_slt"]["teacher"] == "festival:us_slt_hts"
    assert voices["es_female_f3"]["teacher"] == "espeak:es+f3"
    assert all(v["teacher"] for v in voices.values())


@pytest.mark.parametrize("path", ["/tts/bytes", "/tts/sse", "/invocations"])
def test_cartesia_codes_accepted_and_unsupported_refused(shipped, english_only, path):
    ok = httpx.post(
        shipped.base_url + path, json=body("es_female_f3", "Tengo 42 años.", language="es"), timeout=60
    )
    assert ok.status_code == 200 and len(ok.content) > 1000
    # German text through the Spanish voice: any language the model speaks goes with any voice.
    ok = httpx.post(
        shipped.base_url + path, json=body("es_female_f3", "Ich bin 42.", language="de"), timeout=60
    )
    assert ok.status_code == 200
    for server, voice, bad, hint, supported in (
        (shipped, "es_female_f3", "xx", "", SUPPORTED),
        (shipped, "es_female_f3", "EN", "", SUPPORTED),
        (english_only, "en_female_a", "it", "frontend knows it", "en"),
    ):
        r = httpx.post(server.base_url + path, json=body(voice, "Ciao.", language=bad), timeout=30)
        assert r.status_code == 400, r.text
        err = r.json()
        assert "language" in json.dumps(err)
        assert f"supported: {supported}" in r.text and hint in r.text


@pytest.mark.parametrize("path", ["/tts/bytes", "/tts/sse", "/invocations"])
@pytest.mark.parametrize(
    ("voice", "text"), [("ar_female_f3", "\u0301\u0301\u0301"), ("ja_female_f3", "\u064e\u064b")]
)
def test_combining_marks_without_a_letter_are_refused_in_every_language(shipped, path, voice, text):
    """Marks alone counted as a word outside English, Spanish, German and French, and the answer was 200 with
    no audio (a WAV header alone on the OpenAI route)."""
    language = voice.split("_")[0]
    r = httpx.post(shipped.base_url + path, json=body(voice, text, language=language), timeout=30)
    assert r.status_code == 400 and r.json()["field"] == "transcript", r.text


def test_websocket_refuses_unsupported_language_and_goes_on(english_only):
    async def main():
        async with connect(english_only.ws_url + "/tts/websocket") as ws:
            await ws.send(json.dumps({**body("en_female_a", "Bonjour.", language="ja"), "context_id": "a"}))
            err = await recv(ws)
            await ws.send(json.dumps({**body("en_female_a", "Hello.", language="en"), "context_id": "b"}))
            msgs = await collect(ws, {"b"}, timeout=60)
        return err, msgs

    err, msgs = asyncio.run(main())
    assert err["type"] == "error" and err["context_id"] == "a" and err["field"] == "language"
    assert "supported: en" in err["message"] and "frontend knows it" in err["message"]
    assert msgs["b"][-1]["type"] == "done" and len(audio_of(msgs["b"])) > 1000


def test_language_switch_within_a_context_at_a_sentence_boundary(shipped):
    """One context: Spanish, then `language: en` on a later message. The English sentence is spoken with
    English phones: the audio is as long as the two sentences said separately in their own languages,
    and unlike the whole text said in Spanish."""
    es, en = "Hola, me llamo Lucía. ", "The total is forty two dollars."

    async def run(messages: list[dict]) -> int:
        async with connect(shipped.ws_url + "/tts/websocket") as ws:
            for m in messages:
                await ws.send(json.dumps(m))
            msgs = await collect(ws, {messages[0]["context_id"]}, timeout=90)
        assert msgs[messages[0]["context_id"]][-1]["type"] == "done", msgs
        return len(audio_of(msgs[messages[0]["context_id"]])) // 2

    def msg(cid, text, cont, **over):
        return {**body("es_female_f3", text, **over), "context_id": cid, "continue": cont}

    async def main():
        switched = await run([msg("s", es, True, language="es"), msg("s", en, False, language="en")])
        spanish = await run([msg("e", es, True, language="es"), msg("e", en, False)])
        alone_es = await run([msg("x", es, False, language="es")])
        alone_en = await run([msg("y", en, False, language="en")])
        bad = None
        async with connect(shipped.ws_url + "/tts/websocket") as ws:
            await ws.send(json.dumps(msg("z", es, True, language="es")))
            await ws.send(json.dumps(msg("z", en, False, language="xx")))
            while bad is None:
                m = await recv(ws, 60)
                if m["type"] == "error":
                    bad = m
        return switched, spanish, alone_es, alone_en, bad

    switched, spanish, alone_es, alone_en, bad = asyncio.run(main())
    hop = 200
    print(f"samples: switched {switched}, all-Spanish {spanish}, es alone {alone_es}, en alone {alone_en}")
    assert abs(switched - (alone_es + alone_en)) <= 2 * hop
    assert abs(switched - spanish) > 4 * hop
    assert bad["field"] == "language" and f"supported: {SUPPORTED}" in bad["message"]


def _italian_model(path, length_marks: str):
    """Random weights with an Italian voice; config.json says which length-mark rule the model learned."""
    import torch

    from model_server.model import checkpoint
    from model_server.model.checkpoint import VoiceInfo
    from model_server.model.runtime import SpeechRuntime

    rt = SpeechRuntime.init_random(voices=[VoiceInfo("it_female_c", "C", "it", "female", "random")], seed=1)
    with torch.no_grad():  # about 6 frames a phone, as make_model_dir
        rt.ckpt.model.encoder.dur_out.bias.fill_(2.0)
    rt.ckpt.length_marks = length_marks
    checkpoint.save(rt.ckpt, path)
    return path


@pytest.mark.parametrize("rule", ["double", "drop"])
def test_the_api_workers_phonemize_with_the_models_length_mark_rule(tmp_path, rule):
    """Italian "fatto" has a geminate (espeak-ng "t:"). A model that learned long phones written twice hears
    one phone more than in "fato"; a model trained when the mark was dropped hears the two alike, as it
    learned. The API worker processes phonemize, so the rule has to reach them from the engine."""
    model = _italian_model(tmp_path / "model", rule)
    (tmp_path / "server").mkdir()
    with ServerProcess(model, tmp_path / "server", MAX_STREAMS="2", STATESPEAK_WORKERS="2") as server:
        lengths = {}
        for word in ("fato", "fatto"):
            r = httpx.post(server.base_url + "/tts/bytes", json=body("it_female_c", word), timeout=60)
            assert r.status_code == 200, r.text
            lengths[word] = len(r.content)
    print(rule, lengths)
    assert (lengths["fatto"] > lengths["fato"]) if rule == "double" else (lengths["fatto"] == lengths["fato"])
