"""The per-stream planner: sentence splitting, streaming feed, word timestamps, bounded memory."""

import pytest
import torch

from model_server.model.planner import ENCODE_WINDOW, MAX_WINDOW_PHONES, encode_windows
from model_server.model.runtime import SpeechRuntime
from model_server.model.text import (
    MAX_RUN_CHARS,
    MAX_SENTENCE_CHARS,
    MAX_SENTENCE_WORDS,
    split_sentences,
    written_words,
)

SMALL = dict(d_enc=32, d_model=48, headdim=16, d_state=8, n_layers=2, chunk_size=8)


@pytest.fixture(scope="module")
def rt():
    rt = SpeechRuntime.init_random(seed=2, **SMALL)
    # Random weights predict ~0 frames per phone; a fixed bias gives every phone ~4 frames, like a model.
    with torch.no_grad():
        rt.encoder.dur_out.weight.zero_()
        rt.encoder.dur_out.bias.fill_(1.6)
    return rt


def test_split_sentences():
    assert split_sentences("Hello there. How are", final=False) == (["Hello there."], "How are")
    assert split_sentences("It costs 3.5 dollars! Dr. Smith agrees? yes", final=False) == (
        ["It costs 3.5 dollars!", "Dr. Smith agrees?"],
        "yes",
    )
    assert split_sentences("No end yet", final=True) == (["No end yet"], "")
    assert split_sentences("Ends here.", final=False) == (
        [],
        "Ends here.",
    )  # no whitespace after: may continue
    long = " ".join(f"w{i}" for i in range(100)) + "."
    pieces, _ = split_sentences(long + " ", final=False)
    assert len(pieces) == 3 and all(len(p.split()) <= MAX_SENTENCE_WORDS for p in pieces)


@pytest.mark.parametrize(
    ("text", "sentences", "rest"),
    [
        ("你好。你好！你好？还有", ["你好。", "你好！", "你好？"], "还有"),  # CJK full stops need no space
        ("はい！いいえ？そうです。", ["はい！", "いいえ？", "そうです。"], ""),
        ("「はい。」と言った。", ["「はい。」", "と言った。"], ""),
        ("كيف حالك؟ أنا بخير.", ["كيف حالك؟"], "أنا بخير."),  # Arabic question mark, Devanagari danda
        ("नमस्ते। आप कैसे हैं? ठीक", ["नमस्ते।", "आप कैसे हैं?"], "ठीक"),
    ],
)
def test_sentences_end_at_the_marks_of_other_scripts(text, sentences, rest):
    # they ended only at . ! ? before a space: Chinese and Japanese text was one sentence, cut every 600
    # characters wherever that fell (inside a number: "12345元" was said as two amounts)
    assert split_sentences(text, final=False) == (sentences, rest)


def test_a_run_without_spaces_is_cut_at_a_clause_mark_or_outside_a_number():
    clause = "价格" * 30 + "，" + "价格" * 30 + "好" * 30 + "。"
    first, second = split_sentences(clause, final=True)[0]
    assert first.endswith("，") and len(first) <= MAX_RUN_CHARS
    amount = "价格" * 48 + "是12345元" + "好" * 30 + "。"
    pieces = split_sentences(amount, final=True)[0]
    assert all(len(p) <= MAX_RUN_CHARS for p in pieces) and "".join(pieces) == amount
    assert any("12345元" in p for p in pieces)  # the amount is not cut
    # an unfinished run is spoken in pieces as it streams in, its tail kept while it may grow
    sentences, rest = split_sentences("好" * 250, final=False)
    assert [len(s) for s in sentences] == [MAX_RUN_CHARS, MAX_RUN_CHARS] and rest == "好" * 50


@pytest.mark.parametrize("final", ["", " ", "\n\t ", "\u00a0", "...", "?!", "-"])
@pytest.mark.parametrize("before", ["", "Hello there. ", "Hello there"])
def test_stream_is_done_after_finish_whatever_the_last_piece(rt, before, final):
    # Agent frameworks close a context with a lone " " (LiveKit's Cartesia plugin): after finish() no
    # text may stay pending, or the stream never reports done.
    assert split_sentences(before + final, final=True)[1] == ""
    planner = rt.new_planner("en_female_slt", "en", 1.0)
    planner.feed(before)
    planner.feed(final)
    planner.finish()
    frames, _ = _drain(planner)
    assert planner.done
    assert (frames > 0) == bool(before)


@pytest.mark.parametrize(
    ("sentence", "words", "written"),
    [
        ("Hello, world!", ["Hello", "world"], ["Hello,", "world!"]),
        ('"Well - I paid $12.50 (yes), ok...', ["Well", "I", "paid", "$12.50", "yes", "ok"],
         ['"Well -', "I", "paid", "$12.50", "(yes),", "ok..."]),
        # two words in one token are one timestamp: joined with spaces, the words give the text back
        ("hello,world. U.S. rocks", ["hello", "world", "U.S.", "rocks"], ["hello,world.", None, "U.S.", "rocks"]),
        ("at 9am-5pm, Mon-Fri.", ["at", "9am", "5pm", "Mon", "Fri"], ["at", "9am-5pm,", None, "Mon-Fri.", None]),
        ("Open 10-20 May, 9h", ["Open", "10", "20", "9h"], ["Open", "10-20 May,", None, "9h"]),
        ("... and so", ["and", "so"], ["... and", "so"]),
        ("no words here", [], []),
    ],
)  # fmt: skip
def test_written_words_keep_the_clients_punctuation(sentence, words, written):
    assert written_words(sentence, words) == written


def _drain(planner, n=16):
    frames, words = 0, []
    while True:
        chunk = planner.pop_frames(n)
        if chunk is None:
            return frames, words
        assert chunk.cond.shape[0] <= n
        frames += chunk.cond.shape[0]
        words += chunk.words


def test_streaming_feed_equals_one_shot(rt):
    text = "The quick brown fox jumps over the lazy dog. It was 3.5 meters away, or so they say!"
    one = rt.new_planner("en_female_slt", "en", 1.0)
    one.feed(text)
    one.finish()
    f1, w1 = _drain(one, 64)
    pieces = rt.new_planner("en_female_slt", "en", 1.0)
    for i in range(0, len(text), 7):
        pieces.feed(text[i : i + 7])
    pieces.finish()
    f2, w2 = _drain(pieces, 5)
    assert f1 == f2 > 0 and w1 == w2
    # Word text is the client's, punctuation attached (as the agent frameworks align it): joined with
    # spaces, the words give the text back.
    assert " ".join(w.text for w in w1) == text
    assert one.done and pieces.done


def test_word_timestamps_are_monotonic_and_within_audio(rt):
    p = rt.new_planner("en_female_slt", "en", 1.0)
    p.feed("One two three. Four five six.")
    p.finish()
    frames, words = _drain(p, 8)
    hop_s = rt.hop / rt.sample_rate
    starts = [w.start_s for w in words]
    assert starts == sorted(starts)
    assert all(w.start_s < w.end_s <= frames * hop_s + 1e-9 for w in words)


def test_speed_scales_frames(rt):
    counts = {}
    for speed in (0.5, 1.0, 2.0):
        p = rt.new_planner("en_female_slt", "en", speed)
        p.feed("A sentence long enough to measure the speaking rate of the planner.")
        p.finish()
        counts[speed] = _drain(p, 64)[0]
    assert counts[0.5] == pytest.approx(2 * counts[1.0], rel=0.05)
    assert counts[2.0] == pytest.approx(counts[1.0] / 2, rel=0.05)


def test_no_frames_until_sentence_complete_or_flushed(rt):
    p = rt.new_planner("en_female_slt", "en", 1.0)
    p.feed("Waiting for the end of this sentence")
    assert p.pending_frames == 0 and p.pop_frames(8) is None and not p.done
    p.flush()
    assert p.pending_frames > 0
    _drain(p)
    assert not p.done  # flushed but not finished: more text may come
    p.feed("More. ")
    assert p.pending_frames > 0
    p.finish()
    _drain(p)
    assert p.done
    with pytest.raises(RuntimeError):
        p.feed("late")


def test_bad_arguments(rt):
    p = rt.new_planner("en_female_slt", None, 1.0)
    assert p.language == "en"
    with pytest.raises(TypeError):
        p.feed(b"bytes")
    with pytest.raises(ValueError):
        p.pop_frames(0)


def _peak_state(rt, text):
    """Largest planner window (phones, buffered frames) and pool bytes while speaking `text`."""
    pool = rt.new_pool(1)
    p = rt.new_planner("en_female_slt", "en", 1.0)
    p.feed(text)
    p.finish()
    while True:
        chunk = p.pop_frames(128)
        if chunk is None:
            break
        rt.step(pool, [0], chunk.cond.unsqueeze(0))
    return p.peak_phones, p.peak_frames, pool.bytes_per_stream


def test_long_text_costs_the_same_state_as_short(rt):
    short = "Five words are here now."
    long = " ".join(["This sentence has exactly ten words in it, you see."] * 50)  # 500 words
    s_ph, s_fr, s_bytes = _peak_state(rt, short)
    l_ph, l_fr, l_bytes = _peak_state(rt, long)
    assert l_bytes == s_bytes  # the decoder + vocoder state is fixed size
    # The planner holds one sentence of phones and at most one encode window of frames, however long the text.
    per_sentence_phones = len(
        [
            i
            for _, ids in rt.phonemize("This sentence has exactly ten words in it, you see.", "en")
            for i in ids
        ]
    )
    assert 0 < l_ph <= per_sentence_phones and s_ph > 0
    bound_frames = 128 + 2 * (ENCODE_WINDOW + 20) * 8
    assert s_fr <= bound_frames and l_fr <= bound_frames


def test_a_giant_token_is_spoken_in_bounded_windows(rt):
    """A client's token of hundreds of digits is one written word of thousands of phones: it is encoded a
    bounded window at a time (it was one window: every stream's tick stalled), and its timestamp spans them."""
    token = "9" * MAX_RUN_CHARS  # the longest run spoken as one sentence
    p = rt.new_planner("en_female_slt", "en", 1.0)
    p.feed(f"Code {token} ends.")
    p.finish()
    windows, words = [], []
    while True:
        request = p.next_window(10_000)
        if request is None:
            chunk = p.pop_frames(10_000)
            if chunk is None:
                break
            words += chunk.words
            continue
        windows.append(request.count)
        p.take_window(encode_windows(rt.model.encoder, [request])[0])
    assert sum(windows) > 4 * MAX_WINDOW_PHONES  # the token's phones, in several windows
    assert max(windows) <= MAX_WINDOW_PHONES
    assert [w.text for w in words] == ["Code", token, "ends."]
    code, giant, end = words
    assert code.end_s <= giant.start_s < giant.end_s <= end.start_s  # one span across the windows, in order
    assert giant.end_s - giant.start_s > 4 * (end.end_s - end.start_s)


def test_unfinished_text_past_the_bounds_is_spoken_in_pieces():
    """A WebSocket context may stream text with no sentence end: what is unfinished stays bounded (it was
    phonemized whole, one giant sentence, when the context closed), and no word is cut while it may grow."""
    sentences, rest = split_sentences("x" * 1500, final=False)
    assert [len(s) for s in sentences] == [MAX_RUN_CHARS] * 14 and len(rest) == MAX_RUN_CHARS
    sentences, rest = split_sentences("xx " * 400, final=False)
    assert [len(s.split()) for s in sentences] == [MAX_SENTENCE_WORDS] * 9 and len(
        rest.split()
    ) == MAX_SENTENCE_WORDS
    sentences, rest = split_sentences("word " * 45 + "unfini", final=False)
    assert len(sentences) == 1 and len(sentences[0].split()) == MAX_SENTENCE_WORDS
    assert rest == "word " * 5 + "unfini"  # the word still arriving stays whole
    sentences, rest = split_sentences("a " * 100, final=False)
    assert rest.endswith(" ")  # the next piece starts a new word
    assert all(len(s) <= MAX_SENTENCE_CHARS for s in split_sentences("y" * 5000, final=True)[0])


def test_frontend_failure_is_deferred_to_pop_frames(rt):
    class Failing(SpeechRuntime):
        def phonemize(self, sentence, language):
            raise ValueError("cannot phonemize this")

    bad = Failing(rt.ckpt)
    p = bad.new_planner("en_female_slt", "en", 1.0)
    p.feed("Anything at all. ")
    assert p.pending_frames == 1  # no exception from the property the scheduler polls
    with pytest.raises(ValueError, match="cannot phonemize this"):
        p.pop_frames(8)


def test_windowed_encoding_equals_whole_sentence_encoding(rt):
    """The planner encodes ENCODE_WINDOW phones at a time with the receptive field around them; the result
    must equal encoding the whole sentence at once, as in training."""
    from model_server.model.acoustic import durations_from_log, frame_conditioning

    sentence = "Sixty three phones or more make several encode windows in this rather long sentence here."
    ids = [i for _, sym in rt.phonemize(sentence, "en") for i in sym]
    assert len(ids) > 3 * ENCODE_WINDOW
    with torch.inference_mode():
        enc, log_dur = rt.encoder(torch.tensor([ids]), torch.tensor([0]))
    dur, _ = durations_from_log(log_dur[0], 1.0)
    expected = frame_conditioning(enc[0], dur)
    p = rt.new_planner("en_female_slt", "en", 1.0)
    p.feed(sentence)
    p.finish()
    got = []
    while (chunk := p.pop_frames(16)) is not None:
        got.append(chunk.cond)
    torch.testing.assert_close(torch.cat(got), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("text", ["\n" * 601, " " * 700, "word " * 45 + " " * 700])
def test_whitespace_past_the_bounds_is_no_sentence(text):
    """A run of an LLM's newlines past 600 characters made the cut return no piece, and the IndexError became a
    500 that leaked the stream's slot."""
    sentences, rest = split_sentences(text, final=False)
    assert all(s.strip() for s in sentences) and rest.strip() == "" or rest.endswith(" ")
    assert len(rest) <= MAX_SENTENCE_CHARS
