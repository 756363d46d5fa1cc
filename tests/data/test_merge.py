"""`python -m model_server.data merge`: datasets combined voice by voice, checked like the reader checks."""

import json
from pathlib import Path

import numpy as np
import pytest

from model_server import vocoder
from model_server.data import __main__ as cli
from model_server.data.dataset import DatasetError, load_dataset, merge_datasets, write_voice
from model_server.data.voices import VOICES

SLT, ES = VOICES["en_female_slt"], VOICES["es_female_f3"]


def _write(dataset: Path, voice, n: int, first_value: float, length_marks: str = "double") -> None:
    """`n` utterances of 2..n+1 frames whose features all equal first_value + their index (traceable rows)."""
    utts, feats, offset = [], [], 0
    for i in range(n):
        frames = i + 2
        utts.append({"id": f"{voice.id}_00000_{i:03d}", "text": f"sentence {i}", "language": voice.language,
                     "voice": voice.id, "symbols": ["<pause>", "a"], "durations": [1, frames - 1],
                     "n_frames": frames, "frame_offset": offset})
        feats.append(np.full((frames, vocoder.FEATURE_DIM), first_value + i, np.float32))
        offset += frames
    write_voice(dataset, voice, utts, feats, length_marks=length_marks)


@pytest.fixture
def two(tmp_path):
    a, b = tmp_path / "a" / "dataset", tmp_path / "b" / "dataset"
    _write(a, SLT, 3, 100.0)
    _write(b, SLT, 2, 200.0)
    _write(b, ES, 4, 300.0)
    return a, b


def test_a_voice_in_two_inputs_gets_all_their_utterances_in_order(two, tmp_path):
    a, b = two
    stats = merge_datasets([a, b], tmp_path / "m")
    assert stats == {"en_female_slt": {"utterances": 5, "frames": 2 + 3 + 4 + 2 + 3, "inputs": [1, 2]},
                     "es_female_f3": {"utterances": 4, "frames": 2 + 3 + 4 + 5, "inputs": [2]}}
    ds = load_dataset(tmp_path / "m")  # the reader's invariants hold: offsets tile the features
    slt = ds["en_female_slt"]
    assert [u.id for u in slt.utterances] == [
        "en_female_slt_00000_000", "en_female_slt_00000_001", "en_female_slt_00000_002",
        "en_female_slt_00000_000~2", "en_female_slt_00000_001~2",  # the same ids from a second seed
    ]
    assert [float(slt.frames(u)[0, 0]) for u in slt.utterances] == [100, 101, 102, 200, 201]
    assert [u.text for u in slt.utterances] == ["sentence 0", "sentence 1", "sentence 2", "sentence 0", "sentence 1"]
    assert [float(ds["es_female_f3"].frames(u)[-1, 0]) for u in ds["es_female_f3"].utterances] == [300, 301, 302, 303]
    infos = json.loads((tmp_path / "m" / "voices.json").read_text())
    assert [i["id"] for i in infos] == ["en_female_slt", "es_female_f3"]
    assert infos[0] == {**SLT.metadata(), "length_marks": "double"}


def test_voices_already_in_the_output_and_in_no_input_are_kept(two, tmp_path):
    a, b = two
    out = tmp_path / "m"
    _write(out, ES, 1, 900.0)
    _write(out, VOICES["en_male_kal"], 2, 800.0)
    merge_datasets([a], out)
    ds = load_dataset(out)
    assert sorted(ds) == ["en_female_slt", "en_male_kal", "es_female_f3"]
    assert float(ds["en_male_kal"].features[0, 0]) == 800


def test_inputs_that_disagree_on_a_voice_are_refused_naming_voice_and_field(two, tmp_path):
    a, _ = two
    c = tmp_path / "c"
    _write(c, SLT, 2, 0.0, length_marks="drop")  # symbols made under another frontend rule
    with pytest.raises(DatasetError, match=r"en_female_slt differs between inputs in voices.json \(length_marks\)"):
        merge_datasets([a, c], tmp_path / "m")
    assert not (tmp_path / "m" / "voices.json").exists()  # refused before anything was written


def test_the_output_may_not_be_an_input_or_an_input_given_twice(two):
    a, b = two
    with pytest.raises(DatasetError, match="is also an input"):
        merge_datasets([a, b], b)
    with pytest.raises(DatasetError, match="given twice"):
        merge_datasets([a, a], a.parent / "m")
    with pytest.raises(DatasetError, match="no input"):
        merge_datasets([], a.parent / "m")


def test_cli_takes_output_roots_or_dataset_dirs_and_names_a_broken_input(two, tmp_path, capsys):
    a, b = two
    assert cli.main(["merge", "--out", str(tmp_path / "out"), str(a.parent), str(b)]) == 0
    printed = capsys.readouterr().out
    assert "merged 2 datasets" in printed and "en_female_slt" in printed and "from input(s) 1,2" in printed
    assert sorted(load_dataset(tmp_path / "out" / "dataset")) == ["en_female_slt", "es_female_f3"]

    lines = (b / "es_female_f3" / "utterances.jsonl").read_text().splitlines()
    lines[1] = lines[1].replace('"n_frames": 3', '"n_frames": 4')
    (b / "es_female_f3" / "utterances.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(SystemExit, match=r"error: .*es_female_f3/utterances.jsonl:2: durations sum to 3"):
        cli.main(["merge", "--out", str(tmp_path / "out2"), str(a), str(b)])


def test_voices_keeps_only_the_named_voices_and_names_one_in_no_input(two, tmp_path, capsys):
    a, b = two
    stats = merge_datasets([a, b], tmp_path / "m", voices=["es_female_f3"])
    assert list(stats) == ["es_female_f3"] and stats["es_female_f3"]["inputs"] == [2]
    assert sorted(load_dataset(tmp_path / "m")) == ["es_female_f3"]
    infos = json.loads((tmp_path / "m" / "voices.json").read_text())
    assert [i["id"] for i in infos] == ["es_female_f3"]  # the left-out voice's entry is not carried either

    assert cli.main(["merge", "--out", str(tmp_path / "out"), "--voices", "en_female_slt", str(a), str(b)]) == 0
    ds = load_dataset(tmp_path / "out" / "dataset")
    assert sorted(ds) == ["en_female_slt"] and len(ds["en_female_slt"].utterances) == 5

    with pytest.raises(DatasetError, match=r"voice\(s\) \['en_male_kal'\] in no input"):
        merge_datasets([a, b], tmp_path / "m2", voices=["en_female_slt", "en_male_kal"])
    assert not (tmp_path / "m2").exists()  # refused before anything was written
    with pytest.raises(DatasetError, match="empty list of voices"):
        merge_datasets([a, b], tmp_path / "m2", voices=[])
