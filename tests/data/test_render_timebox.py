"""`python -m model_server.data --max-render-seconds`: at the time box the workers stop, the dataset is
assembled from the batches finished so far, and a rerun without it renders the rest (tools/gpu_train.py
relies on this to end in time on a device whose cores are slower than planned)."""

import json

import pytest

from model_server.data import __main__ as cli
from model_server.data import build, frontend_bridge
from model_server.data.dataset import load_dataset
from model_server.data.voices import VOICES

VOICE = VOICES["en_female_heart"]
SCALE = 41 * VOICE.seconds_per_sentence / (VOICE.hours * 3600)  # 41 sentences: batches of 40 and of 1


def _cli(out, *extra) -> dict:
    assert (
        cli.main(
            ["--out", str(out), "--voices", VOICE.id, "--hours-scale", repr(SCALE), "--no-progress", *extra]
        )
        == 0
    )
    return json.loads((out / "dataset" / "summary.json").read_text())


def test_time_box_keeps_finished_batches_and_a_rerun_completes(tmp_path):
    batches = build.plan([VOICE], tmp_path, SCALE, 0, frontend_bridge.normalize)
    assert [len(b.texts) for b in batches] == [40, 1]
    build.run_batch(batches[1])  # finished before the time box: kept
    # the worker pool is stopped at the deadline, long before its first batch of 40 is done
    summary = _cli(tmp_path, "--workers", "2", "--max-render-seconds", "0.001")
    assert summary["batches_timed_out"] == 1 and summary["batches_skipped"] == 1
    assert summary["voices"][VOICE.id]["utterances"] == 1
    assert len(load_dataset(tmp_path / "dataset")[VOICE.id].utterances) == 1
    assert not batches[0].is_done()
    summary = _cli(tmp_path, "--workers", "1")
    assert summary["batches_timed_out"] == 0 and summary["voices"][VOICE.id]["utterances"] >= 40


def test_time_box_must_not_be_negative(tmp_path):
    with pytest.raises(SystemExit, match="--max-render-seconds"):
        cli.main(["--out", str(tmp_path), "--voices", VOICE.id, "--max-render-seconds", "-1"])
