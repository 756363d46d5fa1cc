"""train.py end to end on a tiny synthetic dataset: train, checkpoint, resume, export, fine-tune a new voice."""

import collections
import json
import random

import numpy as np
import pytest
import torch

from model_server import train
from model_server.model import checkpoint
from model_server.model.acoustic import AcousticConfig, AcousticModel
from model_server.model.runtime import SpeechRuntime

TINY = json.dumps(dict(d_enc=16, d_model=32, headdim=16, d_state=8, n_layers=2, chunk_size=16))


def _run(tmp_path, data, *extra):
    return train.main(
        [
            "--data",
            str(data),
            "--runs",
            str(tmp_path / "runs"),
            "--no-progress",
            "--batch",
            "4",
            "--crop",
            "32",
            "--threads",
            "1",
            "--model",
            TINY,
            *extra,
        ]
    )


def test_train_resume_export(tmp_path, dataset_factory):
    data = dataset_factory(tmp_path / "dataset")
    assert _run(tmp_path, data, "--name", "t", "--max-steps", "4", "--log-every", "2") == 0
    run = tmp_path / "runs" / "t"
    first = checkpoint.load(run / "last")
    assert first.extra["step"] == 4 and "val_loss" in first.extra
    assert (run / "train.log").read_text().count("step 4") >= 1
    assert not torch.equal(first.model.feat_std, torch.ones_like(first.model.feat_std))  # stats were computed
    assert (
        _run(
            tmp_path,
            data,
            "--name",
            "t",
            "--resume",
            "--max-steps",
            "7",
            "--export",
            str(tmp_path / "export"),
        )
        == 0
    )
    resumed = checkpoint.load(tmp_path / "export")
    assert resumed.extra["step"] == 7
    torch.testing.assert_close(resumed.model.feat_mean, first.model.feat_mean)  # kept across resume
    rt = SpeechRuntime.load(tmp_path / "export")
    assert set(rt.voices) == {"en_female_slt", "en_male_kal"}


def test_finetune_adds_a_speaker_row(tmp_path, dataset_factory):
    base_data = dataset_factory(tmp_path / "dataset")
    assert _run(tmp_path, base_data, "--name", "base", "--max-steps", "2") == 0
    dataset_factory(tmp_path / "dataset", voices=(("my_voice", "en", "female"),), n_utts=8, seed=5)
    assert (
        _run(
            tmp_path,
            base_data,
            "--name",
            "ft",
            "--init",
            str(tmp_path / "runs" / "base" / "last"),
            "--voices",
            "my_voice,en_female_slt",
            "--max-steps",
            "2",
        )
        == 0
    )
    base = checkpoint.load(tmp_path / "runs" / "base" / "last")
    ft = checkpoint.load(tmp_path / "runs" / "ft" / "last")
    assert ft.config.n_speakers == base.config.n_speakers + 1
    assert [v.info.id for v in ft.voices] == ["en_female_slt", "en_male_kal", "my_voice"]
    assert ft.voice("my_voice").speaker == 2
    torch.testing.assert_close(ft.model.feat_std, base.model.feat_std)  # fine-tuning keeps the normalization


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--batch", "0"], "--batch"),
        (["--resume", "--init", "x"], "exclusive"),
        (["--device", "tpu"], "--device"),
        (["--minutes", "-1"], "--minutes"),
        (["--delta-weight", "-0.5"], "--delta-weight"),
        (["--ema", "1"], "--ema"),
    ],
)
def test_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit):
        train.parse_args(argv)
    assert message in capsys.readouterr().err


def test_missing_dataset_and_unknown_voice(tmp_path, dataset_factory):
    with pytest.raises(SystemExit, match="voices.json"):
        _run(tmp_path, tmp_path / "nope", "--max-steps", "1")
    data = dataset_factory(tmp_path / "dataset")
    with pytest.raises(SystemExit, match="not in"):
        _run(tmp_path, data, "--voices", "zz_voice", "--max-steps", "1")
    with pytest.raises(SystemExit, match="no checkpoint"):
        _run(tmp_path, data, "--name", "fresh", "--resume", "--max-steps", "1")


def test_focus_voices(tmp_path, dataset_factory):
    data = dataset_factory(tmp_path / "dataset")
    assert (
        _run(
            tmp_path,
            data,
            "--name",
            "f",
            "--focus",
            "en_male_kal",
            "--focus-share",
            "0.9",
            "--max-steps",
            "2",
        )
        == 0
    )
    with pytest.raises(SystemExit, match="--focus"):
        _run(tmp_path, data, "--name", "f2", "--focus", "zz", "--max-steps", "1")
    with pytest.raises(SystemExit):
        train.parse_args(["--focus-share", "1.5"])
    assert _run(tmp_path, data, "--name", "f3", "--focus", "en_male_kal:2", "--focus-by", "voice",
                "--max-steps", "1") == 0  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--focus", "a:3"], "voice weights need --focus-by voice"),
        (["--focus", "a:0", "--focus-by", "voice"], "weight of 'a' must be > 0"),
        (["--focus", "a:x", "--focus-by", "voice"], "weight 'x' of 'a' is not a number"),
        (["--focus", "a:nan", "--focus-by", "voice"], "must be > 0"),
    ],
)
def test_bad_focus(argv, message, capsys):
    with pytest.raises(SystemExit):
        train.parse_args(argv)
    assert message in capsys.readouterr().err


def _examples(counts: dict[int, int]) -> list[train.Example]:
    empty = np.zeros((0, 1), np.float32)
    return [train.Example(s, np.zeros(1, np.int64), np.zeros(1, np.int64), empty)
            for s, n in counts.items() for _ in range(n)]  # fmt: skip


@pytest.mark.parametrize("per_voice", [False, True])
def test_batch_sampler_shares(per_voice):
    """Speaker 0 has 10x the data of speaker 1; both are focus voices, speaker 2 is the rest. By utterance,
    speaker 0 takes 10/11 of the focus share; by voice with weights 1 and 3, a quarter against three quarters."""
    examples = _examples({0: 1000, 1: 100, 2: 500})
    sampler = train.BatchSampler(examples, {0: 1.0, 1: 3.0}, 0.8, per_voice, random.Random(0))
    seen = collections.Counter()
    for _ in range(2000):
        batch = sampler(16)
        assert len(batch) == 16 and len({id(e) for e in batch}) == 16  # distinct utterances
        seen.update(e.speaker for e in batch)
    total = sum(seen.values())
    want = {0: 0.8 / 4, 1: 0.8 * 3 / 4, 2: 0.2} if per_voice else {0: 0.8 * 10 / 11, 1: 0.8 / 11, 2: 0.2}
    for speaker, share in want.items():
        assert sampler.expected_share(speaker) == pytest.approx(share)
        assert seen[speaker] / total == pytest.approx(share, abs=0.01)


def test_batch_sampler_without_focus_is_uniform():
    sampler = train.BatchSampler(_examples({0: 300, 1: 100}), {}, 0.8, True, random.Random(1))
    seen = collections.Counter(e.speaker for _ in range(500) for e in sampler(8))
    assert seen[0] / sum(seen.values()) == pytest.approx(0.75, abs=0.02) == sampler.expected_share(0)


def test_init_from_a_v1_model_grows_its_symbol_table():
    """A model with inventory v1 (en/es/de/fr, as the five-voice model before the languages were trained in)
    is grown to the current inventory when fine-tuned for new languages, keeping every old row and starting
    new rows from the same espeak mnemonic."""
    from model_server.frontend.symbols import SYMBOLS, SYMBOLS_V1
    from model_server.model.runtime import DEFAULT_MODEL_DIR

    shipped = checkpoint.load(DEFAULT_MODEL_DIR)
    assert shipped.symbols == list(SYMBOLS) and train.extend_symbols(shipped) is shipped
    # the same model cut back to the v1 rows: what the five-voice model looked like
    n = len(SYMBOLS_V1)
    cfg = AcousticConfig.from_dict({**shipped.config.to_dict(), "n_symbols": n})
    state = shipped.model.state_dict()
    state["encoder.symbol_emb.weight"] = state["encoder.symbol_emb.weight"][:n].clone()
    v1_model = AcousticModel(cfg)
    v1_model.load_state_dict(state)
    old = checkpoint.Checkpoint(cfg, list(SYMBOLS_V1), list(shipped.voices), v1_model, dict(shipped.extra))
    grown = train.extend_symbols(old)
    assert grown.symbols == list(SYMBOLS) and grown.config.n_symbols == len(SYMBOLS)
    a, b = old.model.encoder.symbol_emb.weight, grown.model.encoder.symbol_emb.weight
    assert torch.equal(b[: len(SYMBOLS_V1)], a)
    assert torch.equal(b[SYMBOLS.index("it:a")], a[SYMBOLS_V1.index("es:a")])
    assert torch.allclose(b[SYMBOLS.index("zh:55")], a.mean(0))  # no such mnemonic before: the mean row
    assert [v.info for v in grown.voices] == [v.info for v in old.voices]
    assert all(v.info.teacher for v in grown.voices)  # the shipped config names every voice's teacher
    assert train.extend_symbols(grown) is grown


def test_finetune_on_one_voices_data_keeps_every_voice(tmp_path, dataset_factory):
    """The GPU run's case (tools/gpu_train.py): the init model has more voices than the data. The others keep
    their speaker rows and catalog entries; the run records how it trained."""
    assert _run(tmp_path, dataset_factory(tmp_path / "both"), "--name", "base", "--max-steps", "2") == 0
    one = dataset_factory(tmp_path / "one", voices=(("en_male_kal", "en", "male"),), n_utts=24, seed=3)
    export = tmp_path / "export"
    init = tmp_path / "runs" / "base" / "last"
    assert (
        _run(tmp_path, one, "--name", "ft", "--init", str(init), "--max-steps", "3", "--export", str(export))
        == 0
    )
    base, ft = checkpoint.load(init), checkpoint.load(export)
    assert [v.info for v in ft.voices] == [v.info for v in base.voices]
    rows = base.model.encoder.speaker_emb.weight, ft.model.encoder.speaker_emb.weight
    slt, kal = base.voice("en_female_slt").speaker, base.voice("en_male_kal").speaker
    torch.testing.assert_close(rows[1][slt], rows[0][slt])  # not trained: unchanged (no weight decay)
    assert not torch.equal(rows[1][kal], rows[0][kal])  # trained
    assert set(SpeechRuntime.load(export).voices) == {"en_female_slt", "en_male_kal"}
    assert ft.extra["step"] == 3 and ft.extra["device"] == "cpu" and ft.extra["mamba2_path"] == "torch"
    assert ft.extra["frames_per_s"] > 0


def test_the_model_records_the_datas_length_mark_rule(tmp_path, dataset_factory):
    data = dataset_factory(tmp_path / "dataset")
    vpath = data / "voices.json"
    entries = json.loads(vpath.read_text())
    assert {e["length_marks"] for e in entries} == {"double"}
    # An older dataset (no field: assembled when the mark was dropped) teaches the old rule, and says so.
    vpath.write_text(json.dumps([{k: v for k, v in e.items() if k != "length_marks"} for e in entries]))
    assert _run(tmp_path, data, "--name", "old", "--max-steps", "1", "--export", str(tmp_path / "old")) == 0
    assert checkpoint.load(tmp_path / "old").length_marks == "drop"
    # Fine-tuning that model on data made with the current rule moves it to that rule.
    vpath.write_text(json.dumps(entries))
    assert (
        _run(tmp_path, data, "--name", "new", "--init", str(tmp_path / "old"), "--max-steps", "1",
             "--export", str(tmp_path / "new"))
        == 0
    )  # fmt: skip
    assert checkpoint.load(tmp_path / "new").length_marks == "double"
    # Two rules in one run would teach a long phone two ways: refused, naming the voices.
    vpath.write_text(json.dumps([entries[0], {**entries[1], "length_marks": "drop"}]))
    with pytest.raises(SystemExit, match=r"different length-mark rules .*'double': \['en_female_slt'\]"):
        _run(tmp_path, data, "--name", "mixed", "--max-steps", "1")


def test_delta_l1_measures_changes_not_offsets():
    gen = torch.Generator().manual_seed(0)
    ref = torch.randn(2, 6, 3, generator=gen)
    mask = torch.ones(2, 6, dtype=torch.bool)
    assert float(train.delta_l1(ref, ref, mask)) == 0.0
    assert float(train.delta_l1(ref + 5.0, ref, mask)) == pytest.approx(0.0, abs=1e-6)  # an offset: no change
    wiggle = ref.clone()
    wiggle[:, ::2] += 1.0  # every other frame up by one: each change is off by one
    assert float(train.delta_l1(wiggle, ref, mask)) == pytest.approx(1.0)
    mask[:, 3:] = False  # pairs touching a masked frame do not count
    wiggle[:, 4:] += 100.0
    assert float(train.delta_l1(wiggle, ref, mask)) == pytest.approx(1.0)
    assert float(train.delta_l1(ref[:, :1], ref[:, :1], mask[:, :1])) == 0.0  # one frame: no pair, no NaN


def test_training_logs_the_delta_term_and_leaves_it_out_at_weight_zero(tmp_path, dataset_factory):
    data = dataset_factory(tmp_path / "data")
    _run(tmp_path, data, "--max-steps", "3", "--log-every", "1", "--name", "d1")
    _run(tmp_path, data, "--max-steps", "3", "--log-every", "1", "--name", "d0", "--delta-weight", "0")
    assert " delta " in (tmp_path / "runs" / "d1" / "train.log").read_text()
    assert " delta " not in (tmp_path / "runs" / "d0" / "train.log").read_text()


def _weights(path):
    return checkpoint.load(path).model.state_dict()


def test_ema_exports_the_moving_average_and_resumes_it(tmp_path, dataset_factory):
    """--ema 0.5 over two steps is the mean of the weights after step 1 and step 2 (the first update copies);
    the run resumed after step 1 ends with the same average, and the live weights carry on in state.pt."""
    data = dataset_factory(tmp_path / "dataset")
    slow = ("--minutes", "1000", "--warmup", "1")  # the cosine barely moves: both runs see the same rates
    assert _run(tmp_path, data, "--name", "one", "--max-steps", "1", *slow) == 0
    assert _run(tmp_path, data, "--name", "two", "--max-steps", "2", *slow) == 0
    one, two = _weights(tmp_path / "runs" / "one" / "last"), _weights(tmp_path / "runs" / "two" / "last")
    export = tmp_path / "export"
    assert (
        _run(
            tmp_path, data, "--name", "e", "--max-steps", "2", "--ema", "0.5", "--export", str(export), *slow
        )
        == 0
    )
    averaged = checkpoint.load(export)
    assert averaged.extra["ema"] == 0.5 and averaged.extra["step"] == 2
    for k, w in averaged.model.state_dict().items():
        torch.testing.assert_close(w, (one[k] + two[k]) / 2, rtol=1e-4, atol=1e-6)
    live = torch.load(tmp_path / "runs" / "e" / "state.pt", weights_only=True)["live"]
    torch.testing.assert_close(
        live["decoder.out_proj.weight"], two["decoder.out_proj.weight"], rtol=1e-4, atol=1e-6
    )
    assert not torch.allclose(
        averaged.model.state_dict()["decoder.out_proj.weight"], two["decoder.out_proj.weight"]
    )

    # --resume: the run's live weights carry on (not the average in last/), and the average keeps its count
    run = tmp_path / "runs" / "e"
    with pytest.raises(SystemExit, match="--ema 0.5"):
        _run(tmp_path, data, "--name", "e", "--resume", "--max-steps", "2", *slow)
    assert _run(tmp_path, data, "--name", "e", "--resume", "--max-steps", "2", "--ema", "0.5", *slow) == 0
    state = torch.load(run / "state.pt", weights_only=True)
    torch.testing.assert_close(state["live"], live)  # no step taken: saved back as they were
    assert _run(tmp_path, data, "--name", "e", "--resume", "--max-steps", "3", "--ema", "0.5", *slow) == 0
    live3 = torch.load(run / "state.pt", weights_only=True)["live"]
    for k, w in _weights(run / "last").items():  # an update of the average, not a fresh copy of step 3
        torch.testing.assert_close(w, (averaged.model.state_dict()[k] + live3[k]) / 2, rtol=1e-4, atol=1e-6)
    # a fine-tune from the averaged model without --ema does not claim one
    assert _run(tmp_path, data, "--name", "ft", "--init", str(export), "--max-steps", "1", *slow) == 0
    assert "ema" not in checkpoint.load(tmp_path / "runs" / "ft" / "last").extra


def test_compile_trains_the_same_weights(tmp_path, dataset_factory, monkeypatch):
    """--compile runs the decoder's training step through torch.compile: two steps from the same start give
    the eager run's weights (to float rounding), the model is saved and exported as itself, the first step
    is logged with its compile time; it refuses mamba-ssm's kernels, which it is not for.

    Dynamo traces the decoder and AOTAutograd its backward as in a real run; torch's "aot_eager" backend
    then runs that graph instead of inductor, whose C++ compile takes one to two minutes from a cold cache
    on two cores (a real run's numbers: docs/model.md "Training")."""
    compile_ = torch.compile
    monkeypatch.setattr(torch, "compile", lambda module, **kw: compile_(module, backend="aot_eager", **kw))
    data = dataset_factory(tmp_path / "dataset")
    assert _run(tmp_path, data, "--name", "eager", "--max-steps", "2", "--warmup", "1") == 0
    export = tmp_path / "export"
    compiled_run = (
        "--name",
        "comp",
        "--max-steps",
        "2",
        "--warmup",
        "1",
        "--compile",
        "--export",
        str(export),
    )
    assert _run(tmp_path, data, *compiled_run) == 0
    assert _run(tmp_path, data, "--name", "one", "--max-steps", "1", "--warmup", "1") == 0
    eager, compiled = _weights(tmp_path / "runs" / "eager" / "last"), _weights(export)
    assert compiled.keys() == eager.keys()
    for k, w in compiled.items():
        torch.testing.assert_close(w, eager[k], rtol=0, atol=1e-6)
    one = _weights(tmp_path / "runs" / "one" / "last")
    moved = (compiled["decoder.out_proj.weight"] - one["decoder.out_proj.weight"]).abs().max()
    assert moved > 1e-5  # the second step moved the weights ten times the tolerance
    assert "first step in" in (tmp_path / "runs" / "comp" / "train.log").read_text()
    assert "first step in" not in (tmp_path / "runs" / "eager" / "train.log").read_text()
    assert set(SpeechRuntime.load(export).voices) == {"en_female_slt", "en_male_kal"}
    with pytest.raises(SystemExit, match="--compile: the decoder runs mamba-ssm's kernels"):
        train.compiled_decoder(checkpoint.load(export).model, "triton")
