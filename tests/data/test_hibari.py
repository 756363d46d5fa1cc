"""hibari-tts teacher: misaki token mapping, real renders through the data build, offline-only voices."""

import numpy as np
import pytest

from model_server import vocoder
from model_server.data import build, frontend_bridge
from model_server.data import hibari_teacher as H
from model_server.data.dataset import load_dataset
from model_server.data.voices import VOICES
from model_server.frontend import Frontend, units_to_symbols

SENTENCES = ["Your table for four is ready at seven thirty.", "Please hold while I check the order."]


def test_tokens_to_segments_merges_marks_spaces_and_pauses():
    # "həlˈO ðˈɛɹ," between the padding tokens, with hibari's duration units
    tokens = [("", 14), ("h", 2), ("ə", 3), ("l", 2), ("ˈ", 3), ("O", 2), (" ", 2), ("ð", 2), ("ˈ", 3), ("ɛ", 3),
              ("ɹ", 6), (",", 2), ("", 6)]
    segs = H.tokens_to_segments(tokens)
    assert segs == [("pau", 14), ("hh", 2), ("ax", 3), ("l", 2), ("ow", 7), ("dh", 2), ("eh", 6), ("r", 6),
                    ("pau", 8)]
    assert sum(u for _, u in segs) == sum(u for _, u in tokens)


def test_r_coloured_vowel_is_one_phone():
    tokens = [("", 3), ("t", 2), ("ˈ", 1), ("i", 3), ("ʧ", 2), ("ə", 2), ("ɹ", 3), (".", 4), ("", 5)]
    assert H.tokens_to_segments(tokens) == [("pau", 3), ("t", 2), ("iy", 4), ("ch", 2), ("er", 5), ("pau", 9)]


def test_render_gives_exact_phone_timings_at_the_dataset_rate():
    r = H.render_one("heart", SENTENCES[0])
    assert r.error is None and r.audio.dtype == np.int16
    seconds = len(r.audio) / vocoder.SAMPLE_RATE
    # the segments end where the audio ends (one 25 ms duration unit is 600 samples at 24 kHz)
    assert r.segments[-1][1] == pytest.approx(seconds, abs=1.0 / vocoder.SAMPLE_RATE)
    assert 1.5 < seconds < 6.0
    names = [n for n, _ in r.segments]
    assert names[0] == names[-1] == "pau"
    assert {"t", "ey", "b", "l", "f", "ao", "r", "s", "eh", "v", "ax", "n"} <= set(names)
    ends = [e for _, e in r.segments]
    assert ends == sorted(ends)
    again = H.render_one("heart", SENTENCES[0])  # the noise is seeded: a re-render is identical
    assert np.array_equal(r.audio, again.audio)


def test_two_sentences_through_the_data_build(tmp_path):
    voice = VOICES["en_female_heart"]
    assert voice.teacher == "hibari:heart"
    texts = [frontend_bridge.normalize(t, "en") for t in SENTENCES]
    batch = build.Batch(voice, 0, SENTENCES, texts, tmp_path / "cache" / voice.id / "batch_00000.npz")
    stats = build.run_batch(batch)
    assert stats["failed"] == 0 and stats["rendered"] == 2
    per_voice = build.assemble([batch], [voice], tmp_path, frontend_bridge.align)
    assert per_voice[voice.id]["utterances"] == 2  # both aligned well enough to keep
    vd = load_dataset(tmp_path / "dataset")[voice.id]
    frontend = Frontend("en")
    for text, teacher_text, u in zip(SENTENCES, texts, vd.utterances, strict=True):
        audio = H.render_one("heart", teacher_text).audio
        # frames: one per hop of the teacher audio, as the vocoder's analysis counts them
        assert u.n_frames == len(vocoder.analyze(audio.astype(np.float32) / 32768.0, vocoder.SAMPLE_RATE))
        assert abs(u.n_frames - len(audio) / vocoder.HOP) <= 1
        assert u.symbols == units_to_symbols(frontend.text_to_units(text))
        assert sum(u.durations) == u.n_frames
        # alignment: every phone symbol is heard, and the pauses at the ends hold the teacher's silence
        phones = [d for s, d in zip(u.symbols, u.durations, strict=True) if not s.startswith("<")]
        assert min(phones) > 0
        assert sum(phones) > 0.6 * u.n_frames
        assert vd.features[:, vocoder.VUV].mean() > 0.3


def test_unknown_voice_is_a_clear_error():
    with pytest.raises(H.HibariError, match=r"unknown hibari voice 'nope'.*heart"):
        H.render_one("nope", "Hello.")


def test_voice_that_needs_a_download_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("HIBARI_HOME", str(tmp_path))  # an empty cache: emma is not in the wheel
    with pytest.raises(H.HibariError, match=r"'emma' is not in the hibari-tts wheel and would be downloaded"):
        H.voice_model_path("emma")
    assert list(tmp_path.iterdir()) == []


def test_bad_teacher_voice_fails_the_batch_with_its_name(tmp_path):
    voice = build.VoiceSpec("en_test", "T", "en", "female", "x", "hibari:nope", 0.01, 4.0)
    batch = build.Batch(voice, 3, ["Hi."], ["Hi."], tmp_path / "b.npz")
    with pytest.raises(RuntimeError, match=r"voice en_test batch 3: HibariError: unknown hibari voice 'nope'"):
        build._run_batch_safe(batch)


def test_every_phoneme_hibari_writes_for_generated_text_is_mapped():
    from model_server.data import text as textgen

    teacher = H._teacher("heart")
    seen = set()
    for text in textgen.generate_sentences("en", 200, seed="hibari-test"):
        for ps in teacher.phonemes(frontend_bridge.normalize(text, "en")):
            seen.update(ps)
    unmapped = seen - set(H.MISAKI_TO_ARPABET) - H.STRESS_MARKS - H.AFTER_MARKS - set(",.?!;:—…\"()“”")
    assert not unmapped
