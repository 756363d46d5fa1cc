"""A worker's text intake (no torch): sentences phonemized in order with the stream's flush and finish
in their places, the buffer delay, long texts spread over event-loop turns, a refused sentence."""

from __future__ import annotations

import asyncio

from model_server.engine import protocol as p
from model_server.engine.client import EngineClient
from model_server.frontend.symbols import SYMBOLS
from model_server.model.text import SentenceText


def client() -> EngineClient:
    """A client that is never connected: what it would send stays in its queue, in order."""
    c = EngineClient("ipc:///nonexistent", b"test")
    c.text = SentenceText(list(SYMBOLS))
    return c


def ops(c: EngineClient) -> list[tuple]:
    return [item for item in c.links[0].pending if item[0] != p.OPEN]


async def until_finished(c: EngineClient) -> list[tuple]:
    """The ops once the stream's FINISH is out: the intake phonemizes a few milliseconds per event-loop turn,
    so on a busy machine its queue takes more than one turn (the order is what these tests check)."""
    for _ in range(1000):
        if ops(c) and ops(c)[-1][0] == p.FINISH:
            break
        await asyncio.sleep(0)
    return ops(c)


def test_sentences_flush_and_finish_go_out_in_order():
    async def main():
        c = client()
        s = c.open_stream("v", "en", 1.0, None)
        s.feed("Hello there. How are")
        first = ops(c)
        s.feed(" you today? Fine")
        s.flush()
        s.feed("Bye.")
        s.finish()
        return first, await until_finished(c)

    first, sent = asyncio.run(main())
    assert [op[0] for op in first] == [p.SENTENCE]  # the unfinished sentence waits for more text
    kinds = [op[0] for op in sent]
    assert kinds == [p.SENTENCE, p.SENTENCE, p.SENTENCE, p.FLUSH, p.SENTENCE, p.FINISH]
    words = [[w for w, _, _ in op[3]] for op in sent if op[0] == p.SENTENCE]
    assert words[0] == ["Hello", "there."] and words[2] == ["Fine"] and words[3] == ["Bye."]
    for op in sent:
        if op[0] == p.SENTENCE:
            ids, spans = op[2], op[3]
            assert ids and all(0 <= a < b <= len(ids) for _, a, b in spans)


def test_unfinished_text_is_sent_after_the_buffer_delay():
    async def main():
        c = client()
        s = c.open_stream("v", "en", 1.0, 0.05)
        s.feed("An LLM pausing mid")
        before = ops(c)
        await asyncio.sleep(0.2)
        return before, ops(c)

    before, after = asyncio.run(main())
    assert before == []
    assert [op[0] for op in after] == [p.SENTENCE]
    assert [w for w, _, _ in after[0][3]] == ["An", "LLM", "pausing", "mid"]


def test_a_long_text_is_phonemized_over_several_event_loop_turns():
    text = " ".join(f"Sentence number {i} is here." for i in range(150))

    async def main():
        c = client()
        s = c.open_stream("v", "en", 1.0, None)
        s.feed(text)
        s.finish()
        right_away = len(ops(c))
        return right_away, await until_finished(c)

    right_away, sent = asyncio.run(main())
    assert 1 <= right_away < 150  # the first sentence at once; the rest in later turns, shared fairly
    assert [op[0] for op in sent] == [p.SENTENCE] * 150 + [p.FINISH]
    assert [op[3][1][0] for op in sent[:3]] == ["number"] * 3


def test_a_refused_sentence_is_sent_in_its_place_and_the_rest_dropped():
    async def main():
        c = client()
        s = c.open_stream("v", "xx", 1.0, None)  # a language the frontend does not know
        s.feed("Nothing here can be phonemized. Nor this.")
        s.finish()
        return await until_finished(c)

    sent = asyncio.run(main())
    assert [op[0] for op in sent] == [p.TEXT_ERROR, p.FINISH]
    assert "xx" in sent[0][2]


def test_a_language_switch_falls_on_a_sentence_boundary():
    async def main():
        c = client()
        s = c.open_stream("v", "en", 1.0, None)
        s.feed("One sentence. And an unfinished")
        s.set_language("xx")  # the unfinished sentence is closed in English, what follows is in "xx"
        s.feed("Then this.")
        s.finish()
        return await until_finished(c)

    sent = asyncio.run(main())
    assert [op[0] for op in sent] == [p.SENTENCE, p.SENTENCE, p.TEXT_ERROR, p.FINISH]
    assert [w for w, _, _ in sent[1][3]] == ["And", "an", "unfinished"]


def test_warm_up_loads_what_a_language_loads_on_first_use():
    """Japanese text loads janome's dictionary and a Chinese number cn2an on first use: a worker's warm-up
    loads them, not its first such request (111-146 ms on the event loop). In a fresh interpreter, since
    other tests may have loaded them in this one."""
    import subprocess
    import sys

    script = """
from model_server.engine.client import EngineClient
from model_server.engine import protocol as p
from model_server.frontend.normalize_intl import cjk, japanese
from model_server.frontend.symbols import SYMBOLS
from model_server.model.text import SentenceText
c = EngineClient("ipc:///nonexistent", b"test")
c.text = SentenceText(list(SYMBOLS))
assert japanese._janome.cache_info().currsize == cjk._an2cn.cache_info().currsize == 0
c._warm_frontends(p.Catalog([], frozenset({"en", "ja", "zh"}), 24000, list(SYMBOLS), "double"))
print(japanese._janome.cache_info().currsize, cjk._an2cn.cache_info().currsize, c.warm)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "1", "True"]
