"""The phone encoder batched over streams (one call per tick) gives each stream what encoding it alone does."""

import pytest
import torch

from model_server.model.acoustic import durations_from_log, frame_conditioning
from model_server.model.checkpoint import VoiceInfo
from model_server.model.planner import WindowRequest, encode_windows, phone_bucket
from model_server.model.runtime import SpeechRuntime
from model_server.model.text import SentenceText, split_sentences
from model_server.scheduler import Engine

SMALL = dict(d_enc=32, d_model=48, headdim=16, d_state=8, n_layers=2, chunk_size=8)
VOICES = [
    VoiceInfo("en_female_slt", "SLT", "en", "female", "untrained test voice"),
    VoiceInfo("en_male_kal", "KAL", "en", "male", "untrained test voice"),
]
# (voice, speed, text): different lengths, speeds and voices in one batch
STREAMS = [
    ("en_female_slt", 1.0, "Hello there. How are you today?"),
    (
        "en_male_kal",
        1.7,
        "The quick brown fox jumps over the lazy dog, twice, and then it rests for a while.",
    ),
    ("en_female_slt", 0.6, "Sure."),
    (
        "en_male_kal",
        1.0,
        "Sixty three phones or more make several encode windows in this rather long sentence. Yes.",
    ),
]


@pytest.fixture(scope="module")
def rt():
    rt = SpeechRuntime.init_random(VOICES, seed=4, **SMALL)
    with torch.no_grad():  # random weights predict ~0 frames; a bias near 1.6 gives a few frames per phone
        rt.encoder.dur_out.bias.fill_(1.6)
    return rt


def _sentences(rt, text):
    st = SentenceText(rt.catalog.symbols)
    return [st.sentence(s, "en") for s in split_sentences(text, final=True)[0]]


def _alone(rt, voice, speed, text):
    """What one stream's text becomes encoded by itself, sentence by sentence (as in training), with the
    duration rounding carried through the stream: (frames per phone, conditioning)."""
    speaker = torch.tensor([rt.ckpt.voices[[v.id for v in VOICES].index(voice)].speaker])
    carry, durs, conds = 0.0, [], []
    for ids, _ in _sentences(rt, text):
        with torch.inference_mode():
            enc, log_dur = rt.encoder(torch.tensor([ids]), speaker)
        dur, carry = durations_from_log(log_dur[0], speed, carry)
        durs += dur.tolist()
        conds.append(frame_conditioning(enc[0], dur))
    return durs, torch.cat(conds)


def _planners(rt):
    planners = []
    for voice, speed, text in STREAMS:
        p = rt.new_planner(voice, "en", speed)
        for ids, words in _sentences(rt, text):
            p.feed_sentence(ids, words)
        p.finish()
        planners.append(p)
    return planners


def test_batched_windows_equal_each_window_encoded_alone(rt):
    requests = [
        WindowRequest(list(range(5, 5 + n)), first, count, speaker, speed, carry)
        for n, first, count, speaker, speed, carry in [
            (25, 0, 20, 0, 1.0, 0.0),
            (9, 3, 4, 1, 1.9, 0.4),
            (40, 6, 31, 1, 0.5, -0.3),
        ]
    ]
    together = encode_windows(rt.encoder, requests)
    for request, got in zip(requests, together, strict=True):
        (alone,) = encode_windows(rt.encoder, [request])
        assert got.durations == alone.durations and len(got.durations) == request.count
        assert got.carry == pytest.approx(alone.carry, abs=1e-5)  # float32 encoder, other batch shape
        torch.testing.assert_close(got.cond, alone.cond, rtol=1e-5, atol=1e-5)
    assert phone_bucket(1) == 32 and phone_bucket(33) == 64


def test_batched_planners_equal_per_stream_encoding(rt):
    """Every stream's durations and conditioning from the engine's batched path (all streams' windows in
    one encoder call per round) equal that stream's text encoded alone."""
    planners = _planners(rt)
    assert rt.prepare_batch([(p, 10**6) for p in planners]) == []  # everything, in batched rounds
    for p, (voice, speed, text) in zip(planners, STREAMS, strict=True):
        durs, expected = _alone(rt, voice, speed, text)
        got = []
        while (chunk := p.pop_frames(64)) is not None:
            got.append(chunk.cond)
        got = torch.cat(got)
        assert got.shape[0] == sum(durs) > 0, voice
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
        assert p.done


def test_a_refused_sentence_fails_only_its_stream_in_a_batch(rt):
    good, bad = _planners(rt)[:2]
    bad_ids = _sentences(rt, "Fine words first.")[0]
    bad = rt.new_planner("en_male_kal", "en", 1.0)
    bad.feed_sentence(*bad_ids)
    bad.feed_error("the frontend refused this")
    bad.finish()
    # The refused sentence comes after speakable audio: that audio is made and popped first.
    assert rt.prepare_batch([(good, 10**6), (bad, 10**6)]) == []
    assert bad.pop_frames(10**6) is not None and good.buffered_frames > 0
    failed = rt.prepare_batch([(good, 10**6), (bad, 10**6)])
    assert [(p, str(e)) for p, e in failed] == [(bad, "the frontend refused this")]


def _engine_audio(rt, streams):
    """Run streams through the scheduler (one engine tick at a time) and return each stream's audio."""
    audio: dict = {}
    ended: dict = {}

    def emit(stream, ev):
        if ev.audio is not None:
            audio.setdefault(stream.key, []).append(torch.from_numpy(ev.audio.copy()))
            stream.consumed(len(ev.audio))
        if ev.kind in ("done", "error", "cancelled"):
            ended[stream.key] = ev

    engine = Engine(rt, 8, emit=emit)
    engine.accepting = True
    for key, (voice, speed, text) in enumerate(streams):
        s = engine.open_stream(key, voice, "en", speed)
        for ids, words in _sentences(rt, text):
            s.sentence(ids, words)
        s.finish()
    for _ in range(10_000):
        if len(ended) == len(streams):
            break
        engine.tick()
    assert all(ev.kind == "done" for ev in ended.values()), ended
    return {k: torch.cat(v) for k, v in audio.items()}


def test_a_streams_audio_does_not_depend_on_the_streams_encoded_with_it(rt):
    alone = _engine_audio(rt, STREAMS[:1])[0]
    crowded = _engine_audio(rt, STREAMS)
    assert len(crowded) == len(STREAMS)
    got = crowded[0]
    assert got.shape == alone.shape and alone.abs().max() > 0
    # int16 audio; a batch of several rows may round a float differently by one step at most
    assert (got.int() - alone.int()).abs().max() <= 2
