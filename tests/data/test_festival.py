"""Festival rendering: segment dump parsing, Scheme quoting, real renders with segment times."""

import shutil

import pytest

from model_server.data import festival as F

needs_festival = pytest.mark.skipif(shutil.which("festival") is None, reason="festival not installed")


def test_parse_segments_reads_names_and_end_times():
    segs = F.parse_segments("pau 0.165000\nhh 0.255000\nax 0.285000\n\npau 0.5\nEND\n")
    assert segs == [("pau", 0.165), ("hh", 0.255), ("ax", 0.285), ("pau", 0.5)]


@pytest.mark.parametrize("content,match", [
    ("pau 0.1\nhh 0.2\n", "truncated"),
    ("ERROR\n", "failed to synthesize"),
    ("pau 0.1\nhh\nEND\n", r"x:2: expected 'phone end_time'"),
    ("pau 0.1\nhh abc\nEND\n", r"x:2: bad end time"),
    ("pau 0.3\nhh 0.2\nEND\n", r"x:2: end time 0.2 before previous"),
    ("END\n", "no segments"),
])
def test_parse_segments_rejects_bad_dumps(content, match):
    with pytest.raises(F.FestivalError, match=match):
        F.parse_segments(content, "x")


def test_scheme_string_escapes_quotes_backslashes_and_newlines():
    assert F.scheme_string('He said "hi" \\ bye\nnow') == '"He said \\"hi\\" \\\\ bye now"'


def test_unknown_voice_is_rejected(tmp_path):
    with pytest.raises(F.FestivalError, match="unknown Festival voice"):
        F.build_script("nope", ["hi"], tmp_path)


@needs_festival
@pytest.mark.parametrize("voice", ["kal_diphone", "us_slt_hts"])  # English; Italian: test_languages_data.py
def test_render_batch_gives_16k_audio_and_segments_covering_it(voice):
    texts = ['She said "hello" to the doctor.', "Seven fine days."]
    out = F.render_batch(voice, texts)
    assert [r.text for r in out] == texts
    for r in out:
        assert r.error is None and r.audio is not None
        dur = len(r.audio) / F.SAMPLE_RATE
        assert 0.5 < dur < 6
        names = [n for n, _ in r.segments]
        assert names[0] == "pau" and names[-1] == "pau" and len(names) > 8
        # the last segment ends where the audio ends (within a few ms of padding)
        assert abs(r.segments[-1][1] - dur) < 0.05
    assert "s" in [n for n, _ in out[1].segments] and "f" in [n for n, _ in out[1].segments]
