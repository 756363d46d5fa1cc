"""LJSpeech import: DTW durations against Festival renders whose true phone durations are known."""

import json
import shutil

import numpy as np
import pytest
import soxr

from model_server import vocoder
from model_server.data import __main__ as cli
from model_server.data import festival, frontend_bridge
from model_server.data.build import teacher_frames
from model_server.data.dataset import load_dataset
from model_server.data.ljspeech import LJSpeechError, read_metadata
from model_server.data.voices import VOICES

needs_festival = pytest.mark.skipif(shutil.which("festival") is None, reason="festival not installed")

TEXTS = [
    "The weather in the mountains changed quickly that afternoon.",
    "Please bring three green apples and a loaf of bread.",
    "My brother visited Chicago for the first time last summer.",
]


@pytest.fixture(scope="module")
def lj_folder(tmp_path_factory):
    """A tiny LJSpeech folder of Festival SLT renders at 22.05 kHz, plus the true durations."""
    folder = tmp_path_factory.mktemp("lj")
    (folder / "wavs").mkdir()
    renders = festival.render_batch("us_slt_hts", [frontend_bridge.normalize(t, "en") for t in TEXTS])
    truth = {}
    lines = []
    for i, (text, r) in enumerate(zip(TEXTS, renders, strict=True)):
        uid = f"LJ001-{i:04d}"
        audio = soxr.resample(r.audio.astype(np.float32) / 32768.0, 16000, 22050)
        festival.write_wav_int16(folder / "wavs" / f"{uid}.wav", np.round(audio * 32767).astype(np.int16), 22050)
        n = vocoder.num_frames(len(r.audio))
        res = frontend_bridge.align(VOICES["en_female_slt"], text, [p for p, _ in r.segments],
                                    teacher_frames(r.segments, n), n)
        assert res.error is None
        truth[uid] = res
        lines.append(f"{uid}|{text.upper()}|{text}")
    (folder / "metadata.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder, truth


@needs_festival
def test_import_gives_durations_close_to_the_true_ones(lj_folder, tmp_path):
    folder, truth = lj_folder
    assert cli.main(["ljspeech", str(folder), "--voice-id", "en_me", "--language", "en", "--gender", "female",
                     "--out", str(tmp_path), "--no-progress"]) == 0
    ds = load_dataset(tmp_path / "dataset")
    vd = ds["en_me"]
    assert vd.info["gender"] == "female" and vd.info["language"] == "en"
    assert len(vd.utterances) == len(TEXTS)
    errors = []
    for u in vd.utterances:
        t = truth[u.id]
        assert u.symbols == t.symbols
        assert sum(u.durations) == u.n_frames == len(vd.frames(u))
        assert abs(u.n_frames - sum(t.durations)) <= 1  # 16k -> 22.05k -> 16k resampling
        errors.extend(np.abs(np.cumsum(u.durations) - np.cumsum(t.durations))[:-1])
    # espeak-ng and Festival are different voices, so DTW is not exact; 50 ms mean boundary error
    # (4 frames) is far below a phone (~7 frames) and catches a broken mapping (errors of 10+ frames).
    assert np.mean(errors) < 4.0, np.mean(errors)


def _folder(tmp_path, metadata: str | None, wavs=("a",)):
    (tmp_path / "wavs").mkdir()
    for w in wavs:
        festival.write_wav_int16(tmp_path / "wavs" / f"{w}.wav", np.zeros(1600, np.int16), 16000)
    if metadata is not None:
        (tmp_path / "metadata.csv").write_text(metadata, encoding="utf-8")
    return tmp_path


def test_missing_metadata_is_named(tmp_path):
    with pytest.raises(LJSpeechError, match=r"metadata.csv: missing"):
        read_metadata(_folder(tmp_path, None))


def test_missing_wav_is_named_with_the_line(tmp_path):
    with pytest.raises(LJSpeechError, match=r"wavs/b.wav: missing \(referenced by .*metadata.csv:2\)"):
        read_metadata(_folder(tmp_path, "a|Hello.|Hello.\nb|Bye.|Bye.\n"))


def test_empty_text_is_named_with_the_line(tmp_path):
    with pytest.raises(LJSpeechError, match=r"metadata.csv:2: empty text for id 'a'"):
        read_metadata(_folder(tmp_path, "\na| | \n"))


def test_duplicate_id_and_bad_line(tmp_path):
    folder = _folder(tmp_path, "a|Hi.\na|Again.\n")
    with pytest.raises(LJSpeechError, match=r"metadata.csv:2: id 'a' already used on line 1"):
        read_metadata(folder)
    (folder / "metadata.csv").write_text("just text\n")
    with pytest.raises(LJSpeechError, match=r"metadata.csv:1: expected"):
        read_metadata(folder)


def test_cli_reports_bad_folder_without_traceback(tmp_path):
    with pytest.raises(SystemExit, match=r"error: .*metadata.csv: missing"):
        cli.main(["ljspeech", str(_folder(tmp_path, None)), "--voice-id", "v", "--language", "en",
                  "--gender", "male", "--out", str(tmp_path / "o")])


def test_voices_json_keeps_other_voices(lj_folder, tmp_path):
    ds_dir = tmp_path / "dataset"
    ds_dir.mkdir()
    (ds_dir / "voices.json").write_text(json.dumps([{"id": "zz"}]))
    folder, _ = lj_folder
    cli.main(["ljspeech", str(folder), "--voice-id", "en_me", "--language", "en", "--gender", "female",
              "--out", str(tmp_path), "--no-progress"])
    ids = [v["id"] for v in json.loads((ds_dir / "voices.json").read_text())]
    assert ids == ["en_me", "zz"]


def test_metadata_from_excel_with_a_bom_reads_and_latin1_is_named(tmp_path):
    folder = _folder(tmp_path, None)
    (folder / "metadata.csv").write_text("a|Hello.\n", encoding="utf-8-sig")  # the id carried U+FEFF
    assert [e.id for e in read_metadata(folder)] == ["a"]
    (folder / "metadata.csv").write_bytes("a|Caf\u00e9.\n".encode("latin-1"))  # a raw traceback before
    with pytest.raises(LJSpeechError, match=r"metadata.csv: not UTF-8 \(byte 5\)"):
        read_metadata(folder)


def test_a_shipped_voice_id_is_refused_unless_replace(tmp_path):
    """Importing under en_female_slt overwrote its training data, and a fine-tune retrained the shipped
    voice on the recordings, with no word."""
    folder = _folder(tmp_path, None)
    args = ["ljspeech", str(folder), "--language", "en", "--gender", "female", "--out", str(tmp_path / "o")]
    with pytest.raises(SystemExit, match=r"'en_female_slt' is a shipped or generated voice.*--replace"):
        cli.main([*args, "--voice-id", "en_female_slt"])
    with pytest.raises(SystemExit, match=r"metadata.csv: missing"):  # past the id check: the folder is next
        cli.main([*args, "--voice-id", "en_female_slt", "--replace"])


@needs_festival
def test_the_import_names_what_it_dropped_and_what_it_may_misread(lj_folder, tmp_path, capsys):
    src, _ = lj_folder
    folder = tmp_path / "lj"
    shutil.copytree(src, folder)
    festival.write_wav_int16(folder / "wavs" / "SIL.wav", np.zeros(16000, np.int16), 16000)  # a muted take
    shutil.copy(folder / "wavs" / "LJ001-0000.wav", folder / "wavs" / "EXTRA.wav")  # on no metadata line
    shutil.copy(folder / "wavs" / "LJ001-0001.wav", folder / "wavs" / "NUM.wav")
    with open(folder / "metadata.csv", "a", encoding="utf-8") as f:
        f.write("SIL|Hello there.\nNUM|Please bring 3 green apples and a loaf of bread.\n")
    assert cli.main(["ljspeech", str(folder), "--voice-id", "en_me", "--language", "en", "--gender", "female",
                     "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "dropped SIL (metadata.csv:4): silent" in out  # it was imported as speech over silence
    assert "NUM (line 5)" in out and "digits or symbols" in out
    assert "EXTRA.wav" in out
    ids = {u.id for u in load_dataset(tmp_path / "dataset")["en_me"].utterances}
    assert "SIL" not in ids and "LJ001-0000" in ids
