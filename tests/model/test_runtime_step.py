"""SpeechRuntime's batched step and state pool (random weights; no frontend needed)."""

import itertools

import pytest
import torch

from model_server import vocoder
from model_server.model import checkpoint
from model_server.model.checkpoint import ModelLoadError
from model_server.model.executor import GRAPH_LENGTHS, Executor, graph_chunks
from model_server.model.runtime import SpeechRuntime

SMALL = dict(d_enc=32, d_model=48, headdim=16, d_state=8, n_layers=2, chunk_size=8)


@pytest.fixture(scope="module")
def rt():
    return SpeechRuntime.init_random(seed=1, **SMALL)


def _cond(rt, b, n, seed=0):
    g = torch.Generator().manual_seed(seed)
    c = torch.randn(b, n, rt.config.cond_dim, generator=g)
    return c


def test_step_shapes_and_dtype(rt):
    pool = rt.new_pool(4)
    audio = rt.step(pool, [2, 0], _cond(rt, 2, 5))
    assert audio.shape == (2, 5 * rt.hop) and audio.dtype == torch.float32 and audio.device.type == "cpu"
    assert torch.isfinite(audio).all()


def test_chunking_is_invisible(rt):
    """Any split of a stream's frames into step calls gives the same audio (state carried exactly)."""
    cond = _cond(rt, 1, 23)
    p1 = rt.new_pool(1)
    whole = rt.step(p1, [0], cond)
    p2 = rt.new_pool(1)
    parts, pos = [], 0
    for n in (1, 4, 7, 2, 9):
        parts.append(rt.step(p2, [0], cond[:, pos : pos + n]))
        pos += n
    torch.testing.assert_close(torch.cat(parts, 1), whole, rtol=1e-4, atol=1e-4)


def test_batched_equals_single_and_slots_are_isolated(rt):
    cond = _cond(rt, 3, 6, seed=2)
    pool = rt.new_pool(5)
    batched = rt.step(pool, [4, 1, 3], cond)
    for i in range(3):
        p = rt.new_pool(1)
        torch.testing.assert_close(rt.step(p, [0], cond[i : i + 1]), batched[i : i + 1], rtol=1e-4, atol=1e-4)
    # untouched slots keep their initial state
    fresh = rt.new_pool(5)
    for (c, s), (c0, s0) in zip(pool.layers, fresh.layers, strict=True):
        for slot in (0, 2):
            assert torch.equal(c[slot], c0[slot]) and torch.equal(s[slot], s0[slot])
        assert not torch.equal(s[1], s0[1])


def test_reset_slots_restarts_a_stream(rt):
    cond = _cond(rt, 1, 8, seed=3)
    pool = rt.new_pool(2)
    first = rt.step(pool, [1], cond)
    rt.step(pool, [1], cond)
    rt.reset_slots(pool, [1])
    torch.testing.assert_close(rt.step(pool, [1], cond), first)


def test_each_stream_gets_its_voices_postfilter():
    """reset_slots with voice ids puts each voice's vocoder post-filter into its slot; a batch of two voices
    gives each stream the audio it has alone (the setting is per stream, not per batch)."""
    from model_server import vocoder
    from model_server.model.checkpoint import Postfilter, VoiceInfo

    voices = [
        VoiceInfo("plain", "P", "en", "female", "test"),
        VoiceInfo("sharp", "S", "en", "female", "test", postfilter=Postfilter(0.8, 48, 0.3, voicing=3.0)),
    ]
    rt = SpeechRuntime.init_random(voices, seed=4, **SMALL)
    pool = rt.new_pool(3)
    rt.reset_slots(pool, [2, 0], ["sharp", "plain"])
    lifter = pool.vocoder["lifter"]
    torch.testing.assert_close(lifter[2], torch.tensor(vocoder.lifter_gains(0.8, 48), dtype=torch.float32))
    torch.testing.assert_close(lifter[0], torch.tensor(vocoder.lifter_gains(), dtype=torch.float32))
    assert pool.vocoder["ap_scale"][[2, 0]].tolist() == pytest.approx([0.3, 1.0])
    assert pool.vocoder["voicing"][[2, 0]].tolist() == pytest.approx([3.0, 1.0])
    cond = _cond(rt, 2, 12, seed=5)
    batched = rt.step(pool, [2, 0], cond)
    for row, voice in enumerate(("sharp", "plain")):
        alone = rt.new_pool(1)
        rt.reset_slots(alone, [0], [voice])
        torch.testing.assert_close(
            rt.step(alone, [0], cond[row : row + 1])[0], batched[row], rtol=1e-4, atol=1e-4
        )
    with pytest.raises(ValueError, match="unknown voice"):
        rt.reset_slots(pool, [1], ["nobody"])


def test_state_size_is_fixed(rt):
    pool = rt.new_pool(2)
    before = [(t.shape, t.dtype) for t in pool.tensors()]
    for _ in range(5):
        rt.step(pool, [0, 1], _cond(rt, 2, 16))
    assert [(t.shape, t.dtype) for t in pool.tensors()] == before
    assert pool.bytes_per_stream == sum(t[0].numel() * t.element_size() for t in pool.tensors())


@pytest.mark.parametrize(
    "slots, shape, message",
    [
        ([0, 0], (2, 4), "duplicates"),
        ([5], (1, 4), "outside"),
        ([], (0, 4), "empty"),
        ([0], (2, 4), "cond must be"),
        ([0], (1, 0), "cond must be"),
    ],
)
def test_step_rejects_bad_input(rt, slots, shape, message):
    pool = rt.new_pool(2)
    with pytest.raises(ValueError, match=message):
        rt.step(pool, slots, torch.zeros(*shape, rt.config.cond_dim))


def test_step_rejects_wrong_cond_dim(rt):
    with pytest.raises(ValueError, match="cond must be"):
        rt.step(rt.new_pool(1), [0], torch.zeros(1, 3, rt.config.cond_dim + 1))


def test_new_pool_and_planner_validation(rt):
    with pytest.raises(ValueError, match="max_streams"):
        rt.new_pool(0)
    with pytest.raises(ValueError, match="unknown voice"):
        rt.new_planner("nope", "en", 1.0)
    with pytest.raises(ValueError, match="language"):
        rt.new_planner("en_female_slt", "xx", 1.0)
    with pytest.raises(ValueError, match="speed"):
        rt.new_planner("en_female_slt", "en", 9.0)


def test_load_saved_model_dir(rt, tmp_path):
    checkpoint.save(rt.ckpt, tmp_path)
    rt2 = SpeechRuntime.load(tmp_path)
    assert rt2.voices == rt.voices and rt2.sample_rate == 16000 and rt2.hop == 200
    cond = _cond(rt, 1, 5)
    torch.testing.assert_close(rt2.step(rt2.new_pool(1), [0], cond), rt.step(rt.new_pool(1), [0], cond))
    (tmp_path / "config.json").unlink()
    with pytest.raises(ModelLoadError, match="config.json"):
        SpeechRuntime.load(tmp_path)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_graph_step_equals_eager():
    rt_g = SpeechRuntime.init_random(seed=1, device="cuda", **SMALL)
    rt_e = SpeechRuntime(rt_g.ckpt, "cuda", use_cuda_graphs=False)
    pg, pe = rt_g.new_pool(8), rt_e.new_pool(8)
    for b, n in ((3, 8), (3, 10), (5, 1), (3, 16)):
        cond = torch.randn(b, n, rt_g.config.cond_dim)
        slots = list(range(b))
        # eager in the graphs' own chunks (10 = 8 + 2): a 10-frame kernel call differs from 8 + 2 by TF32
        # rounding, which the vocoder's phase turns into sample differences of order one (no bug)
        starts = [0, *itertools.accumulate(graph_chunks(n))]
        eager = torch.cat([rt_e.step(pe, slots, cond[:, a:b_]) for a, b_ in itertools.pairwise(starts)], 1)
        torch.testing.assert_close(rt_g.step(pg, slots, cond), eager, rtol=1e-3, atol=1e-3)
    assert rt_g._graphs.graphs and not rt_g._graphs.failed  # graphs were captured and used, none fell back


def test_graph_chunks_are_the_captured_lengths_largest_first():
    assert graph_chunks(10) == [8, 2]
    assert graph_chunks(3) == [2, 1]
    assert graph_chunks(64) == [64]
    assert graph_chunks(127) == [64, 32, 16, 8, 4, 2, 1]
    assert graph_chunks(200) == [64, 64, 64, 8]
    for n in range(1, 300):
        parts = graph_chunks(n)
        assert (
            sum(parts) == n
            and all(p in GRAPH_LENGTHS for p in parts)
            and parts == sorted(parts, reverse=True)
        )
    with pytest.raises(ValueError, match="length must be >= 1"):
        graph_chunks(0)


class ReplayByRerun:
    """A graph stand-in for the CPU (`executor.GraphBackend`): replay runs the function again and copies its
    result into the captured output tensors, which is what a replay does. It lets these tests cover the static
    buffers, the padding to buckets and the split into captured lengths; `CudaGraphs` is tested on a GPU."""

    def capture(self, fn):
        out = fn()

        def replay() -> None:
            for static, fresh in zip(_flat(out), _flat(fn()), strict=True):
                static.copy_(fresh)

        return replay, out


def _flat(tree) -> list[torch.Tensor]:
    if isinstance(tree, torch.Tensor):
        return [tree]
    items = tree.values() if isinstance(tree, dict) else tree
    return [t for item in items for t in _flat(item)]


@pytest.mark.parametrize("slots", [[0, 1, 2], [4, 1, 6]], ids=["contiguous", "scattered"])
def test_graph_plumbing_equals_eager(rt, slots):
    """The graphed step (static buffers, batches padded to a bucket, chunks split into captured lengths,
    decoder and vocoder state carried across the parts) gives the eager step's audio and state. On a CPU
    the graph is `ReplayByRerun`, which replays by running the captured function again; CUDA graphs
    themselves are checked by the GPU test above."""
    graphed = Executor(rt.model, rt.config, rt.device, graph_backend=ReplayByRerun())
    eager = rt.executor
    pg, pe = graphed.new_pool(8), eager.new_pool(8)
    lifters = torch.rand(len(slots), vocoder.N_ENV)
    graphed.reset_slots(pg, slots, {"lifter": lifters})
    eager.reset_slots(pe, slots, {"lifter": lifters})
    for i, n in enumerate((8, 10, 1, 3, 16)):  # 10 = 8 + 2, 3 = 2 + 1: split into captured lengths
        cond = _cond(rt, len(slots), n, seed=i)
        torch.testing.assert_close(
            graphed.step(pg, slots, cond), eager.step(pe, slots, cond), rtol=1e-4, atol=1e-5
        )
    for a, b in zip(pg.tensors(), pe.tensors(), strict=True):
        torch.testing.assert_close(a[slots], b[slots], rtol=1e-4, atol=1e-5)
    assert sorted(graphed._graphs.graphs) == [(4, 1), (4, 2), (4, 8), (4, 16)]  # 3 streams pad to bucket 4
    # what the scheduler's cost model prices a step at: the bucket on graphs, the batch itself eagerly
    assert [graphed.padded_batch(n) for n in (1, 3, 4, 5, 100)] == [1, 4, 4, 8, 128]
    assert [eager.padded_batch(n) for n in (1, 3, 100)] == [1, 3, 100]


class _CaptureFails:
    calls = 0

    def capture(self, fn):
        self.calls += 1
        raise RuntimeError("operation not permitted when stream is capturing")


def test_a_failed_capture_leaves_every_step_eager(rt, caplog):
    """A capture that raises (an op a graph cannot hold) turns graphs off for the executor, logged once,
    and the audio stays right; nothing is captured again."""
    backend = _CaptureFails()
    graphed = Executor(rt.model, rt.config, rt.device, graph_backend=backend)
    pg, pe = graphed.new_pool(4), rt.executor.new_pool(4)
    for i, (b, n) in enumerate(((2, 8), (2, 8), (3, 4))):
        cond = _cond(rt, b, n, seed=i)
        torch.testing.assert_close(
            graphed.step(pg, list(range(b)), cond),
            rt.executor.step(pe, list(range(b)), cond),
            rtol=1e-4,
            atol=1e-5,
        )
    assert backend.calls == 1 and not graphed._graphs.graphs
    assert graphed.padded_batch(3) == 3  # every step eager now: no padding to price
    assert graphed._graphs.failed == {(2, 8): "operation not permitted when stream is capturing"}
    assert [r.message for r in caplog.records].count("graph capture failed: every step runs eagerly") == 1


def test_warmup_leaves_no_trace(rt):
    rt.warmup(3)
    pool = rt.new_pool(3)
    cond = _cond(rt, 1, 6)
    torch.testing.assert_close(rt.step(pool, [0], cond), rt.step(rt.new_pool(1), [0], cond))


def test_pcm16_step_is_the_float_step_rounded(rt):
    """int16 made on the device: the float audio clipped, scaled by 32767 and rounded, same state."""
    c = _cond(rt, 2, 8, seed=4)
    pool_f, pool_i = rt.new_pool(2), rt.new_pool(2)
    for _ in range(2):  # the second step runs from the state the first one left
        audio = rt.step(pool_f, [0, 1], c)
        pcm = rt.step(pool_i, [0, 1], c, pcm16=True)
        assert pcm.dtype == torch.int16 and pcm.device.type == "cpu" and pcm.shape == audio.shape
        assert torch.equal(pcm, (audio.clamp(-1, 1) * 32767).round().to(torch.int16))


def test_a_contiguous_run_of_slots_is_stepped_in_place(rt, monkeypatch):
    """Slots 1..3 (in any order) are read as views of the pool and written back into it: the decoder gets
    the pool's own memory, not a gathered copy, and the audio and state equal the gathered path's."""
    cond = _cond(rt, 3, 5, seed=7)
    ref_pool = rt.new_pool(5)
    ref = rt.step(ref_pool, [3, 1, 4], cond)  # not a run (4 and 1 without 2): gathered and scattered
    # the same streams on slots 3, 1, 2: a run out of order
    pool = rt.new_pool(5)
    seen = []
    decode = rt.executor.decode

    def spy(c, states):
        seen.append([(conv.data_ptr(), ssm.data_ptr()) for conv, ssm in states])
        return decode(c, states)

    monkeypatch.setattr(rt.executor, "decode", spy)
    got = rt.step(pool, [3, 1, 2], cond)
    torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)
    assert seen[0] == [(conv[1].data_ptr(), ssm[1].data_ptr()) for conv, ssm in pool.layers]
    for (c, s), (rc, rs) in zip(pool.layers, ref_pool.layers, strict=True):
        for slot, ref_slot in ((3, 3), (1, 1), (2, 4)):
            torch.testing.assert_close(c[slot], rc[ref_slot], rtol=1e-5, atol=1e-5)
            torch.testing.assert_close(s[slot], rs[ref_slot], rtol=1e-5, atol=1e-5)
    fresh = rt.new_pool(5)
    for (c, s), (c0, s0) in zip(pool.layers, fresh.layers, strict=True):
        for slot in (0, 4):  # outside the run: untouched
            assert torch.equal(c[slot], c0[slot]) and torch.equal(s[slot], s0[slot])
    # a gathered step sees copies, not the pool
    rt.step(pool, [0, 4], cond[:2])
    assert seen[1][0][0] not in (pool.layers[0][0][0].data_ptr(), pool.layers[0][0][4].data_ptr())


def test_contiguous_run():
    from model_server.model.executor import contiguous_run

    assert contiguous_run([2, 0, 1]) == slice(0, 3)
    assert contiguous_run([5]) == slice(5, 6)
    assert contiguous_run([0, 2]) is None


def test_speak_one_stream_times_a_whole_utterance_and_reuses_its_pool():
    from model_server.model.runtime import speak_one_stream

    rt = SpeechRuntime.init_random(seed=1, **SMALL)
    with torch.no_grad():  # about 6 frames a phone, as a trained model speaks (random weights say ~0)
        rt.encoder.dur_out.bias.fill_(2.0)
    voice = next(iter(rt.voices))
    text = "One stream, spoken alone. Then a second sentence, in chunks of eight frames."
    pool = rt.new_pool(1)
    first = speak_one_stream(rt, voice, text, chunk=8, pool=pool)
    again = speak_one_stream(rt, voice, text, chunk=8, pool=pool)  # slot 0 reset: the same audio
    whole = speak_one_stream(rt, voice, text, chunk=64)
    assert first.audio.numel() > 8 * rt.hop and first.audio.dtype == torch.float32
    assert torch.equal(first.audio, again.audio)
    assert torch.allclose(first.audio, whole.audio, atol=1e-4)  # chunking is invisible
    assert 0.0 < first.first_chunk_s <= first.compute_s


# --- a model directory with a learned vocoder (model_server/neural_vocoder.py) --------------------------------

SMALL_VOCODER = dict(channels=16, layers=1, kernel=3, mlp_ratio=2)


@pytest.fixture()
def neural_dir(rt, tmp_path):
    from model_server import neural_vocoder

    checkpoint.save(rt.ckpt, tmp_path)
    torch.manual_seed(0)
    neural_vocoder.NeuralVocoder(neural_vocoder.NeuralVocoderConfig(**SMALL_VOCODER)).save(tmp_path)
    return tmp_path


def test_a_directory_with_a_learned_vocoder_serves_24_khz_from_it(neural_dir):
    from model_server.neural_vocoder import NeuralVocoder

    auto = SpeechRuntime.load(neural_dir)
    assert isinstance(auto.synth, NeuralVocoder) and auto.vocoder_name == "neural"
    assert (auto.sample_rate, auto.hop) == (24000, 300)
    pool = auto.new_pool(2)
    auto.reset_slots(
        pool, [0, 1], ["en_female_slt"] * 2
    )  # the voice's post-filter settings: not the learned vocoder's
    audio = auto.step(pool, [0, 1], _cond(auto, 2, 5))
    assert audio.shape == (2, 5 * 300) and bool(torch.isfinite(audio).all())
    harmonic = SpeechRuntime.load(neural_dir, vocoder_choice="harmonic")
    assert isinstance(harmonic.synth, vocoder.HarmonicNoiseSynth) and (
        harmonic.sample_rate,
        harmonic.hop,
    ) == (16000, 200)


def test_the_learned_vocoder_in_the_graphed_step_equals_eager(neural_dir):
    rt = SpeechRuntime.load(neural_dir)
    graphed = Executor(rt.model, rt.config, rt.device, graph_backend=ReplayByRerun(), synth=rt.synth)
    pg, pe = graphed.new_pool(4), rt.executor.new_pool(4)
    for i, n in enumerate((8, 10, 1)):
        cond = _cond(rt, 3, n, seed=i)
        torch.testing.assert_close(
            graphed.step(pg, [0, 1, 2], cond), rt.step(pe, [0, 1, 2], cond), rtol=1e-4, atol=1e-5
        )


def test_a_missing_or_broken_learned_vocoder_fails_the_load_with_its_name(rt, neural_dir, tmp_path_factory):
    plain = tmp_path_factory.mktemp("plain")
    checkpoint.save(rt.ckpt, plain)
    assert SpeechRuntime.load(plain).vocoder_name == "harmonic"  # auto without one: the harmonic vocoder
    with pytest.raises(ModelLoadError, match="vocoder 'neural' requested but .* has no neural_vocoder.json"):
        SpeechRuntime.load(plain, vocoder_choice="neural")
    with pytest.raises(ModelLoadError, match="vocoder 'wavenet' must be one of auto, harmonic, neural"):
        SpeechRuntime.load(plain, vocoder_choice="wavenet")
    (neural_dir / "neural_vocoder.safetensors").write_bytes(b"not a checkpoint")
    with pytest.raises(
        ModelLoadError, match="learned vocoder: .*neural_vocoder.safetensors is not a safetensors file"
    ):
        SpeechRuntime.load(neural_dir)
