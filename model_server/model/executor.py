"""The executor: the per-stream state pool and the batched step on the device.

    pool = executor.new_pool(max_streams)               # fixed-size state slots (decoder + vocoder)
    executor.reset_slots(pool, slot_ids, settings)      # settings: the streams' voices' vocoder settings
    audio = executor.step(pool, slot_ids, cond)         # [B, L, D] -> float32 [B, L * hop] (CPU tensor)

State is updated in place through slot indices, as vLLM's Mamba state indices and mamba-ssm's inference
cache do: when a step's slots are one contiguous run (in any order; the engine's slot allocator keeps
streams on the lowest free slots so a tick's streams usually are), the model reads the pool's slots as
views and the new state is written straight back into them; no copy of the batch's state is gathered.
Other slot sets gather the listed slots and scatter them back. A pool holds per decoder layer one conv
state and one SSM state plus the vocoder's few tensors, whatever the streams' lengths. On CUDA the whole step,
decoder and vocoder, runs from graphs captured per (batch bucket, chunk length) before readiness (`warmup`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import torch

from model_server import vocoder
from model_server.model.acoustic import AcousticModel

GRAPH_LENGTHS = (1, 2, 4, 8, 16, 32, 64)

log = logging.getLogger("statespeak.executor")


def graph_bucket(batch: int) -> int:
    """The captured batch size a batch is padded to: the next power of two (at most 2x padding)."""
    return 1 << (batch - 1).bit_length()


def graph_chunks(length: int) -> list[int]:
    """The captured lengths a chunk of `length` frames runs as, largest first (10 -> [8, 2])."""
    if length < 1:
        raise ValueError(f"length must be >= 1, got {length}")
    parts, left = [], length
    for g in sorted(GRAPH_LENGTHS, reverse=True):
        while left >= g:
            parts.append(g)
            left -= g
    return parts


@dataclass
class StatePool:
    """Per-stream state slots: tensors with the slot as their first dimension."""

    max_streams: int
    layers: list[tuple[torch.Tensor, torch.Tensor]]  # per decoder layer: (conv [S, C, K], ssm [S, H, P, N])
    vocoder: dict[str, torch.Tensor]

    def tensors(self) -> list[torch.Tensor]:
        return [t for pair in self.layers for t in pair] + list(self.vocoder.values())

    @property
    def bytes_per_stream(self) -> int:
        return sum(t[0].numel() * t.element_size() for t in self.tensors())


def warmup_shapes(max_streams: int, max_chunk_frames: int, graphs: bool) -> tuple[list[int], list[int]]:
    """(batch sizes, chunk lengths) SpeechRuntime.warmup steps through. With graphs: every bucket a batch
    of up to max_streams is padded to, up to the one that holds max_streams (graphs are captured up to
    MAX_STREAMS before readiness, none under traffic), and every captured length a chunk of up to
    max_chunk_frames is split into."""
    if not graphs:
        return sorted({1, max_streams}), [min(8, max_chunk_frames)]
    top = graph_bucket(max_streams)
    return [1 << i for i in range(top.bit_length())], [n for n in GRAPH_LENGTHS if n <= max_chunk_frames]


class Executor:
    """Owns the acoustic model's decoder and the vocoder on the device, and steps slots of a pool."""

    def __init__(
        self,
        model: AcousticModel,
        config,
        device: torch.device,
        use_cuda_graphs: bool = True,
        graph_backend: GraphBackend | None = None,
        synth: torch.nn.Module | None = None,
    ):
        """graph_backend: what captures and replays the step (default: `CudaGraphs` on CUDA with
        use_cuda_graphs, none elsewhere); the CPU tests pass a stand-in that replays by running the step again.
        synth: features -> audio (default `vocoder.HarmonicNoiseSynth`; a model directory's learned
        `neural_vocoder.NeuralVocoder` has the same interface: ``init_state``, and a call with ``fixed_shape``)."""
        self.device = device
        self.model = model
        self.config = config
        self.synth = (synth if synth is not None else vocoder.HarmonicNoiseSynth()).to(device).eval()
        self._voc_init = self.synth.init_state(1, device)
        if graph_backend is None and device.type == "cuda" and use_cuda_graphs:
            graph_backend = CudaGraphs()
        self._graphs = _GraphCache(self, graph_backend) if graph_backend is not None else None
        # On a GPU (and in any graph) the vocoder runs with fixed shapes and no host synchronization (the
        # only sync of a step is the copy of its audio back); on a CPU the adaptive harmonic count is cheaper.
        self._fixed_vocoder = device.type == "cuda" or self._graphs is not None
        self._pinned: torch.Tensor | None = None  # host buffer for the int16 audio coming back (CUDA)

    def padded_batch(self, batch: int) -> int:
        """The batch a step of `batch` streams runs on the device: its graph bucket when CUDA graphs
        serve (padding rows are computed and dropped), else the batch itself."""
        if self._graphs is not None and not self._graphs.failed:
            return graph_bucket(batch)
        return batch

    def new_pool(self, max_streams: int) -> StatePool:
        if isinstance(max_streams, bool) or not isinstance(max_streams, int) or max_streams < 1:
            raise ValueError(f"max_streams must be a positive int, got {max_streams!r}")
        layers = [
            layer.mixer.allocate_state(max_streams, device=self.device) for layer in self.model.decoder.layers
        ]
        voc = {k: v.expand(max_streams, *v.shape[1:]).clone() for k, v in self._voc_init.items()}
        return StatePool(max_streams, layers, voc)

    def _slot_ids(self, pool: StatePool, slot_ids) -> list[int]:
        ids = list(slot_ids)
        if not ids:
            raise ValueError("slot_ids is empty")
        for s in ids:
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < pool.max_streams:
                raise ValueError(f"slot id {s!r} outside [0, {pool.max_streams})")
        if len(set(ids)) != len(ids):
            raise ValueError(f"slot_ids has duplicates: {ids}")
        return ids

    def _slot_index(self, pool: StatePool, slot_ids) -> torch.Tensor:
        return torch.tensor(self._slot_ids(pool, slot_ids), dtype=torch.long, device=self.device)

    def reset_slots(self, pool: StatePool, slot_ids, settings: dict[str, torch.Tensor] | None = None) -> None:
        """Fresh state for the listed slots. ``settings``: each new stream's vocoder settings, one row per slot
        (`Catalog.vocoder_settings`: ``lifter`` [n, N_ENV], ``ap_scale`` [n], ``voicing`` [n]); a setting left
        out keeps the vocoder's default."""
        idx = self._slot_index(pool, slot_ids)
        settings = settings or {}
        unknown = sorted(set(settings) - set(vocoder.VOICE_SETTINGS))
        if unknown:
            raise ValueError(f"unknown vocoder setting(s) {unknown}; known: {list(vocoder.VOICE_SETTINGS)}")
        # a synthesizer without per-voice settings (the learned one) has no slot for them: they do not apply
        settings = {key: rows for key, rows in settings.items() if key in pool.vocoder}
        for key, rows in settings.items():
            want = (len(idx), *pool.vocoder[key].shape[1:])
            if tuple(rows.shape) != want:
                raise ValueError(f"setting {key!r} must be {list(want)}, got {list(rows.shape)}")
        for conv, ssm in pool.layers:
            conv.index_fill_(0, idx, 0.0)
            ssm.index_fill_(0, idx, 0.0)
        for k, t in pool.vocoder.items():
            t.index_copy_(0, idx, self._voc_init[k].expand(len(idx), *t.shape[1:]))
        for key, rows in settings.items():
            pool.vocoder[key].index_copy_(0, idx, rows.to(self.device, torch.float32))

    def warmup(self, max_streams: int, max_chunk_frames: int = max(GRAPH_LENGTHS)) -> dict:
        """Before serving (the server calls it before readiness): run one step of every shape the engine
        can ask for on a scratch pool, so that on CUDA every graph (batch bucket x chunk length) is
        captured and Triton has compiled and autotuned its kernels before the first request. Batches are
        padded up to a bucket, so the bucket that holds max_streams is included; chunks are split into
        captured lengths, so every length up to max_chunk_frames is. Beyond the largest bucket the step
        runs eagerly: one eager step at max_streams tunes that shape. On the CPU: two small steps."""
        batches, lengths = warmup_shapes(max_streams, max_chunk_frames, self._graphs is not None)
        pool = self.new_pool(max(batches))
        for b in batches:
            for n in lengths:
                self.step(pool, list(range(b)), torch.zeros(b, n, self.config.cond_dim))
        return {
            "batches": batches,
            "lengths": lengths,
            "cuda_graphs": len(self._graphs.graphs) if self._graphs is not None else 0,
            "graph_failures": len(self._graphs.failed) if self._graphs is not None else 0,
        }

    # the batched step --------------------------------------------------------------------------------------
    def decode(self, cond: torch.Tensor, states):
        """Decoder + denormalization, eager: cond [B, L, D] -> (vocoder features [B, L, F], new states)."""
        out, new_states = self.model.decoder(cond, states)
        return self.model.denormalize(out), new_states

    def forward(self, cond: torch.Tensor, states, voc_state: dict[str, torch.Tensor]):
        """One step, eager: cond [B, L, D] -> (audio [B, L * hop], new decoder states, new vocoder state).
        What a graph captures."""
        feats, new_states = self.decode(cond, states)
        audio, voc_new = self.synth(feats, voc_state, fixed_shape=self._fixed_vocoder)
        return audio, new_states, voc_new

    def step(self, pool: StatePool, slot_ids, cond: torch.Tensor, *, pcm16: bool = False) -> torch.Tensor:
        """Advance the listed streams by L frames: cond [B, L, cond_dim] -> audio [B, L * hop] on the CPU,
        float32 in [-1, 1], or with pcm16 int16 (rounded, clipped; converted on the device, so half the
        bytes come back, through a pinned buffer on CUDA)."""
        ids = self._slot_ids(pool, slot_ids)
        if (
            not isinstance(cond, torch.Tensor)
            or cond.dim() != 3
            or cond.shape[0] != len(ids)
            or cond.shape[2] != self.config.cond_dim
            or cond.shape[1] < 1
        ):
            shape = tuple(cond.shape) if isinstance(cond, torch.Tensor) else type(cond).__name__
            raise ValueError(f"cond must be [{len(ids)}, L >= 1, {self.config.cond_dim}], got {shape}")
        cond = cond.to(self.device, torch.float32)
        run = contiguous_run(ids)
        order = None
        if run is not None and ids != sorted(ids):  # a run out of order: put the rows in slot order
            order = sorted(range(len(ids)), key=ids.__getitem__)
            cond = cond[torch.tensor(order, device=self.device)]
        with torch.inference_mode():
            slots = _Slots(pool, run if run is not None else self._slot_index(pool, ids))
            states, voc_state = slots.read_layers(), slots.read_vocoder()
            if self._graphs is not None:
                audio, new_states, voc_new = self._graphs.forward(cond, states, voc_state)
            else:
                audio, new_states, voc_new = self.forward(cond, states, voc_state)
            slots.write(new_states, voc_new)
            if order is not None:  # back to the caller's row order
                inverse = [0] * len(order)
                for row, i in enumerate(order):
                    inverse[i] = row
                audio = audio[torch.tensor(inverse, device=audio.device)]
            if not pcm16:
                return audio.to("cpu", torch.float32)
            pcm = audio.clamp(-1.0, 1.0).mul_(32767.0).round_().to(torch.int16)
        return self._to_host(pcm)

    def _to_host(self, pcm: torch.Tensor) -> torch.Tensor:
        """Device int16 audio -> a CPU tensor of its own. On CUDA: a non-blocking copy into a reused pinned
        buffer, one synchronization, then a plain copy out (the buffer is reused by the next step)."""
        if pcm.device.type != "cuda":
            return pcm
        n = pcm.numel()
        if self._pinned is None or self._pinned.numel() < n:
            self._pinned = torch.empty(max(n, 1 << 16), dtype=torch.int16, pin_memory=True)
        host = self._pinned[:n]
        host.copy_(pcm.reshape(-1), non_blocking=True)
        torch.cuda.current_stream(pcm.device).synchronize()
        return host.clone().reshape(pcm.shape)


def contiguous_run(ids: list[int]) -> slice | None:
    """slice(lo, hi) when the slot ids are exactly lo..hi-1 in some order (then the step works on views of
    the pool), else None."""
    lo, hi = min(ids), max(ids) + 1
    return slice(lo, hi) if hi - lo == len(ids) else None


class _Slots:
    """The slots one step reads and writes: a contiguous run as views of the pool (read in place, new
    state copied straight into it), or an index (gathered, then scattered back)."""

    def __init__(self, pool: StatePool, where: slice | torch.Tensor) -> None:
        self.pool, self.where = pool, where

    def _read(self, t: torch.Tensor) -> torch.Tensor:
        return t[self.where] if isinstance(self.where, slice) else t.index_select(0, self.where)

    def _write(self, t: torch.Tensor, new: torch.Tensor) -> None:
        if isinstance(self.where, slice):
            t[self.where].copy_(new)
        else:
            t.index_copy_(0, self.where, new.to(t.dtype))

    def read_layers(self) -> list[tuple[torch.Tensor, torch.Tensor]]:
        return [(self._read(conv), self._read(ssm)) for conv, ssm in self.pool.layers]

    def read_vocoder(self) -> dict[str, torch.Tensor]:
        return {k: self._read(v) for k, v in self.pool.vocoder.items()}

    def write(self, layers, vocoder_state: dict[str, torch.Tensor]) -> None:
        for (conv, ssm), (c_new, s_new) in zip(self.pool.layers, layers, strict=True):
            self._write(conv, c_new)
            self._write(ssm, s_new)
        for k, t in self.pool.vocoder.items():
            self._write(t, vocoder_state[k])


class GraphBackend(Protocol):
    """Captures a function of static input buffers once; replaying re-runs it on whatever those buffers hold
    and leaves the result in the same output tensors."""

    def capture(self, fn: Callable[[], Any]) -> tuple[Callable[[], None], Any]: ...


class CudaGraphs:
    """torch.cuda graphs, all drawing on one memory pool. Each output is cloned right after its replay, so
    graphs replayed in any order may share the pool's memory."""

    def __init__(self) -> None:
        self.mempool = torch.cuda.graph_pool_handle()

    def capture(self, fn: Callable[[], Any]) -> tuple[Callable[[], None], Any]:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side), torch.inference_mode():
            for _ in range(3):  # warm up (Triton autotuning, allocator) before capture
                fn()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        # Our own stream context around the capture: when the capture fails, torch.cuda.graph's exit raises
        # before it restores the stream, and this outer context still does.
        with torch.cuda.stream(side):
            with torch.cuda.graph(graph, pool=self.mempool, stream=side), torch.inference_mode():
                out = fn()
        torch.cuda.current_stream().wait_stream(side)
        return graph.replay, out


class _GraphCache:
    """Graphs of the whole step (decoder and vocoder) for bucketed batch sizes and power-of-two chunk lengths.

    A batch is padded up to the next bucket (padding rows hold zeros for the decoder and a fresh vocoder
    state, and are dropped); a chunk length that is not a captured one is run as a sum of captured lengths
    (8 + 2 for 10), carrying both states, which is exact because the scan and the vocoder are
    chunking-invariant. The vocoder runs in its fixed-shape form: no host synchronization inside a graph.
    """

    def __init__(self, rt: Executor, backend: GraphBackend):
        self.rt = rt
        self.backend = backend
        self.graphs: dict[tuple[int, int], tuple] = {}
        # The shape whose capture raised. After it every step runs eagerly: a failed capture can leave the
        # allocator's capture bookkeeping behind, so no other capture or replay is trusted.
        self.failed: dict[tuple[int, int], str] = {}

    def _capture(self, batch: int, length: int):
        rt = self.rt
        d = rt.device
        cond = torch.zeros(batch, length, rt.config.cond_dim, device=d)
        states = [layer.mixer.allocate_state(batch, device=d) for layer in rt.model.decoder.layers]
        fresh = {k: v.expand(batch, *v.shape[1:]).clone() for k, v in rt._voc_init.items()}
        voc = {k: v.clone() for k, v in fresh.items()}
        try:
            with torch.inference_mode():
                replay, out = self.backend.capture(lambda: rt.forward(cond, states, voc))
        except torch.OutOfMemoryError:
            raise  # not a capture problem: the warm-up fails, as MAX_STREAMS does not fit
        except RuntimeError as exc:
            # The step still serves, eagerly and slower; the warm-up log says so. The cause of a broken
            # capture is the exception capture_end's own error was raised from.
            cause = exc.__context__ or exc
            self.failed[(batch, length)] = (str(cause).splitlines() or [type(cause).__name__])[0]
            log.warning("graph capture failed: every step runs eagerly",
                        extra={"batch": batch, "frames": length, "error": self.failed[(batch, length)]})  # fmt: skip
            return None
        entry = (replay, cond, states, voc, fresh, out)
        self.graphs[(batch, length)] = entry
        return entry

    def _run(self, cond: torch.Tensor, states, voc_state: dict[str, torch.Tensor]):
        b, length, _ = cond.shape
        bucket = graph_bucket(b)
        entry = None if self.failed else self.graphs.get((bucket, length)) or self._capture(bucket, length)
        if entry is None:  # a capture failed, now or before: every step runs eagerly
            return self.rt.forward(cond, states, voc_state)
        replay, s_cond, s_states, s_voc, fresh, (audio, new_states, voc_new) = entry
        if b < bucket:
            s_cond.zero_()
            for sc, ss in s_states:
                sc.zero_()
                ss.zero_()
            for k, t in s_voc.items():
                t.copy_(fresh[k])
        s_cond[:b].copy_(cond)
        for (sc, ss), (c, s) in zip(s_states, states, strict=True):
            sc[:b].copy_(c)
            ss[:b].copy_(s)
        for k, t in s_voc.items():
            t[:b].copy_(voc_state[k])
        replay()
        return (
            audio[:b].clone(),
            [(c[:b].clone(), s[:b].clone()) for c, s in new_states],
            {k: v[:b].clone() for k, v in voc_new.items()},
        )

    def forward(self, cond: torch.Tensor, states, voc_state: dict[str, torch.Tensor]):
        parts, pos = [], 0
        for g in graph_chunks(cond.shape[1]):
            audio, states, voc_state = self._run(cond[:, pos : pos + g], states, voc_state)
            parts.append(audio)
            pos += g
        return torch.cat(parts, dim=1), states, voc_state
