"""End-to-end `python -m model_server.data` at a tiny scale: format, determinism, resume, sums."""

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from model_server import vocoder
from model_server.data import __main__ as cli
from model_server.data import build
from model_server.data.dataset import DatasetError, load_dataset
from model_server.data.voices import VOICES

pytestmark = pytest.mark.skipif(shutil.which("festival") is None, reason="festival not installed")

VOICE_IDS = ["en_female_slt", "en_male_kal", "es_female_f3", "de_male_m3", "fr_female_f2"]
SCALE = "0.004"  # ~20 s of audio per English voice, ~10 s per other voice


def _run(out: Path, *extra: str) -> None:
    assert cli.main(["--out", str(out), "--hours-scale", SCALE, "--workers", "1", "--no-progress",
                     "--voices", ",".join(VOICE_IDS), *extra]) == 0


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "summary.json"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("gen")
    _run(out)
    return out


def test_dataset_format_and_invariants(built):
    ds = load_dataset(built / "dataset")
    assert sorted(ds) == sorted(VOICE_IDS)
    infos = json.loads((built / "dataset" / "voices.json").read_text())
    assert {tuple(sorted(i)) for i in infos} == {
        ("description", "gender", "id", "language", "length_marks", "name", "teacher")
    }
    assert {i["length_marks"] for i in infos} == {"double"}  # the frontend rule the symbols were made with
    for vid, vd in ds.items():
        assert vd.features.dtype == np.float32 and vd.features.shape[1] == vocoder.FEATURE_DIM
        assert len(vd.utterances) >= 3, vid
        for u in vd.utterances:
            assert u.voice == vid and u.language == VOICES[vid].language
            assert sum(u.durations) == u.n_frames and len(u.symbols) == len(u.durations)
            assert all(d >= 0 for d in u.durations)
            assert np.isfinite(vd.frames(u)).all()
        # the features are those of the teacher audio: plenty of voiced frames
        assert vd.features[:, vocoder.VUV].mean() > 0.3
    summary = json.loads((built / "dataset" / "summary.json").read_text())
    assert set(summary["voices"]) == set(VOICE_IDS)


def _assert_same_dataset(a: Path, b: Path) -> None:
    """Festival voices bit for bit; espeak-ng voices same texts and symbols, audio length within 5 %
    (libespeak-ng's timing varies a little between runs, see model_server/data/espeak.py)."""
    da, db = _digest(a), _digest(b)
    for name in da:
        if name.startswith("en_") or name == "voices.json":
            assert da[name] == db[name], name
    ua, ub = load_dataset(a), load_dataset(b)
    for vid in ua:
        assert [u.id for u in ua[vid].utterances] == [u.id for u in ub[vid].utterances]
        for x, y in zip(ua[vid].utterances, ub[vid].utterances, strict=True):
            assert (x.text, x.symbols) == (y.text, y.symbols)
            assert abs(x.n_frames - y.n_frames) <= max(3, 0.05 * x.n_frames)


def test_same_seed_gives_identical_files_and_rerun_skips_finished_batches(built, tmp_path, capsys):
    other = tmp_path / "again"
    _run(other)
    _assert_same_dataset(other / "dataset", built / "dataset")
    # resume: every batch is in the cache, so nothing is rendered again
    mtimes = {p: p.stat().st_mtime_ns for p in (other / "cache").rglob("*.npz")}
    _run(other)
    summary = json.loads((other / "dataset" / "summary.json").read_text())
    assert summary["batches_skipped"] == summary["batches"] > 0
    assert {p: p.stat().st_mtime_ns for p in (other / "cache").rglob("*.npz")} == mtimes
    # a deleted batch is the only one redone
    victim = sorted((other / "cache").rglob("*.npz"))[0]
    victim.unlink()
    _run(other)
    summary = json.loads((other / "dataset" / "summary.json").read_text())
    assert summary["batches"] - summary["batches_skipped"] == 1 and victim.exists()
    _assert_same_dataset(other / "dataset", built / "dataset")


def test_stale_or_partial_batch_is_redone(tmp_path):
    voices = [VOICES["es_female_f3"]]
    batches = build.plan(voices, tmp_path, 0.002, 0, lambda t, lang: t)
    assert all(not b.is_done() for b in batches)
    batches[0].path.parent.mkdir(parents=True)
    batches[0].path.write_bytes(b"partial")  # e.g. a file truncated by a crash
    assert not batches[0].is_done()
    build.run_batch(batches[0])
    assert batches[0].is_done()
    first = batches[0].teacher_texts[0]
    changed = build.plan(voices, tmp_path, 0.002, 0, lambda t, lang: t.upper() if t == first else t)
    assert not changed[0].is_done()  # different teacher text -> different key
    # only the changed sentence is rendered again; the others are reused from the old batch file
    res = build.run_batch(changed[0])
    assert res["rendered"] == 1 and changed[0].is_done()


def test_reader_names_the_broken_file_and_line(built, tmp_path):
    copy = tmp_path / "ds"
    shutil.copytree(built / "dataset", copy)
    upath = copy / "es_female_f3" / "utterances.jsonl"
    lines = upath.read_text().splitlines()
    bad = json.loads(lines[1])
    bad["durations"][0] += 1
    lines[1] = json.dumps(bad)
    upath.write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetError, match=r"es_female_f3/utterances.jsonl:2: durations sum"):
        load_dataset(copy)
    (copy / "de_male_m3" / "features.npy").unlink()
    with pytest.raises(DatasetError, match="features.npy: missing"):
        load_dataset(copy, voices=["de_male_m3"])
    with pytest.raises(DatasetError, match="voices.json: missing"):
        load_dataset(tmp_path / "nothing")


def test_cli_rejects_unknown_voice_and_bad_scale(tmp_path):
    with pytest.raises(SystemExit, match="unknown voice id"):
        cli.main(["--out", str(tmp_path), "--voices", "xx_nobody"])
    with pytest.raises(SystemExit, match="hours-scale"):
        cli.main(["--out", str(tmp_path), "--hours-scale", "0"])


@pytest.mark.parametrize(
    ("voice_id", "module", "table", "language"),
    [
        ("en_female_heart", "hibari_teacher", "MISAKI_TO_ARPABET", None),
        ("it_female_lp", "festival", "FESTIVAL_PHONES", "it"),
    ],
)
def test_a_changed_teacher_phone_table_misses_the_cache(monkeypatch, voice_id, module, table, language):
    """Cached utterances keep the phones mapped when they were rendered: editing the teacher's phone table
    must change their keys (and the batch's), or a rebuild would reuse stale phones."""
    import importlib

    from model_server.data.voices import ALL_VOICES

    voice = ALL_VOICES[voice_id]
    before = build.utterance_key(voice, "Hello there.")
    mod = importlib.import_module(f"model_server.data.{module}")
    edited = json.loads(json.dumps(getattr(mod, table)))
    (edited[language] if language else edited)["zz"] = "zz"
    monkeypatch.setattr(mod, table, edited)
    assert build.utterance_key(voice, "Hello there.") != before
    espeak_voice = ALL_VOICES["es_female_f3"]
    assert build.teacher_phone_table(espeak_voice) == []  # espeak-ng mnemonics, mapped at assembly


def test_a_changed_kokoro_reading_misses_the_cache_of_exactly_the_sentences_it_changes(monkeypatch):
    """Kokoro reads the IPA our code maps from espeak-ng's (`kokoro.reading`): a mapping change must miss the
    cache of the sentences whose reading it changes (and their batch), and keep the others and every teacher
    that reads the text itself."""
    from model_server.data import kokoro
    from model_server.data.voices import ALL_VOICES

    serbian, festival, japanese = ALL_VOICES["sr_male_kumo"], ALL_VOICES["it_female_lp"], ALL_VOICES["ja_female_alpha"]
    changed, kept = "Šta je to?", "Dobro jutro."  # espeak-ng: ʃtɐ je tˈo? (Kokoro: ʃta) / dˈobro jˈutro.
    keys = {t: build.utterance_key(serbian, t) for t in (changed, kept)}
    batch = build.Batch(serbian, 0, [changed, kept], [changed, kept], Path("unused.npz"))
    before = (batch.key, build.utterance_key(festival, "Ciao."), build.utterance_key(japanese, "こんにちは。"))
    monkeypatch.setattr(kokoro, "_IPA_TO_KOKORO", (*kokoro._IPA_TO_KOKORO, ("ʃ", "s")))
    assert kokoro.reading(changed, "sr") == "sta je tˈo?"
    assert build.utterance_key(serbian, changed) != keys[changed]
    assert build.utterance_key(serbian, kept) == keys[kept]
    after = (batch.key, build.utterance_key(festival, "Ciao."), build.utterance_key(japanese, "こんにちは。"))
    assert after[0] != before[0] and after[1:] == before[1:]
