"""The neural teachers' phone times: the lead and pause corrections, and the measure that found them."""

import json

import numpy as np
import pytest

from model_server.data import hibari_teacher as H
from model_server.data import phone_times as P
from tools import teacher_timing


def _is_pause(name: str) -> bool:
    return name == "_"


def test_lead_moves_every_boundary_earlier_and_keeps_the_total():
    frames = [("_", 10), ("s", 6), ("o", 4), ("_", 8)]
    assert P.lead(frames) == [("_", 10 - P.LEAD_FRAMES), ("s", 6), ("o", 4), ("_", 8 + P.LEAD_FRAMES)]
    assert P.lead([("_", 2), ("a", 3), ("_", 1)]) == [("_", 0), ("a", 3), ("_", 3)]  # no lead left to give
    assert P.lead([("_", 0), ("a", 3)]) == [("_", 0), ("a", 3)]


def test_pause_edges_snap_to_where_the_audio_goes_loud_and_quiet():
    loud = np.array([0] * 8 + [1] * 11 + [0] * 9, bool)  # sound in frames 8..18
    frames = [("_", 10), ("s", 6), ("o", 4), ("_", 8)]
    # the sound starts two frames inside the leading pause; the last phone's last frame is silent
    assert P.snap_pauses(frames, loud, _is_pause) == [("_", 8), ("s", 8), ("o", 3), ("_", 9)]
    # the other way: silence inside the first phone goes to the pause, sound inside the last pause to the phone
    late = np.array([0] * 12 + [1] * 12 + [0] * 4, bool)
    assert P.snap_pauses(frames, late, _is_pause) == [("_", 12), ("s", 4), ("o", 8), ("_", 4)]
    # a phone that is all silence keeps one frame; boundaries between phones never move
    quiet = np.zeros(28, bool)
    assert P.snap_pauses(frames, quiet, _is_pause) == [("_", 15), ("s", 1), ("o", 1), ("_", 11)]
    inner = [("_", 4), ("a", 4), ("_", 4), ("b", 4), ("_", 4)]
    sound = np.array([0] * 4 + [1] * 3 + [0] * 6 + [1] * 5 + [0] * 2, bool)
    assert P.snap_pauses(inner, sound, _is_pause) == [("_", 4), ("a", 3), ("_", 6), ("b", 5), ("_", 2)]
    for case in (loud, late, quiet):
        assert sum(n for _, n in P.snap_pauses(frames, case, _is_pause)) == 28


def test_loud_frames_marks_12_5_ms_frames_above_the_silence_floor():
    rate = 16000
    audio = np.zeros(rate // 2, np.float32)
    audio[2000:4000] = 0.5 * np.sin(np.arange(2000) * 0.3)  # frames 10..19
    audio[6000:6200] = 0.001  # 54 dB below: silence
    loud = P.loud_frames(audio, rate)
    assert len(loud) == 40 and np.flatnonzero(loud).tolist() == list(range(10, 20))
    assert P.loud_frames(np.zeros(100, np.float32), rate).size == 0


def test_hibari_segments_start_with_the_sound_and_end_with_it():
    r = H.render_one("heart", "Your table for four is ready at seven thirty.")
    loud = P.loud_frames(r.audio.astype(np.float32) / 32768.0, 16000)
    ends = [round(e * P.FRAME_RATE) for _, e in r.segments]
    assert [n for n, _ in r.segments][0] == [n for n, _ in r.segments][-1] == "pau"
    sound = np.flatnonzero(loud)
    # the first phone starts with the first sound (a one-frame phone cannot give up its silent frame), and the
    # last one ends with the last sound
    assert 0 <= sound[0] - ends[0] <= 1 and 0 <= ends[-2] - (sound[-1] + 1) <= 1
    assert ends[-1] == len(r.audio) // 200


def test_the_measure_puts_exact_times_at_no_shift_and_the_corrected_teacher_there_too(tmp_path):
    """espeak-ng's synthesis times are exact: the spread of each phone's frames is least unmoved. hibari's
    corrected times must be best unmoved too; uncorrected, they were best 4 frames earlier (LEAD_FRAMES)."""
    out = tmp_path / "timing.json"
    assert teacher_timing.main(["--voices", "es_male_m3,en_female_heart", "--sentences", "8",
                                "--shifts=-4,-2,-1,0,1,2", "--out", str(out)]) == 0  # fmt: skip
    res = json.loads(out.read_text())
    assert res["es_male_m3"]["teacher"]["best_shift"] == 0
    assert res["en_female_heart"]["teacher"]["best_shift"] in (-1, 0, 1)
    spread = res["en_female_heart"]["teacher"]["spread"]
    assert spread["0"] < spread["-4"]
    with pytest.raises(SystemExit):
        teacher_timing.main(["--voices", "xx_nobody"])
