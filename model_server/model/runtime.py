"""The streaming runtime: the only thing the scheduler imports from the model (docs/architecture.md).

    rt = SpeechRuntime.load(model_dir, device="cpu")
    pool = rt.new_pool(max_streams)                     # fixed-size state slots (decoder + vocoder)
    planner = rt.new_planner(voice_id, language, speed) # text -> frame conditioning, per stream
    planner.feed(text); planner.flush(); planner.finish()
    chunk = planner.pop_frames(max_frames)              # FrameChunk(cond [n, D], words [WordSpan])
    failed = rt.prepare_batch([(planner, want), ...])   # the engine: all streams' windows, one encoder call
    rt.reset_slots(pool, slot_ids, voice_ids)           # voice_ids: each stream's vocoder settings
    audio = rt.step(pool, slot_ids, cond)               # [B, L, D] -> float32 [B, L * hop] (CPU tensor)

It puts three parts together: the catalog (voices, languages, text frontends: `catalog.py`), the planner
(one stream's text -> frame conditioning: `planner.py`) and the executor (state pool and batched step on
the device: `executor.py`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from model_server import neural_vocoder
from model_server.config import VOCODERS
from model_server.model import checkpoint
from model_server.model.acoustic import AcousticConfig, AcousticModel
from model_server.model.catalog import Catalog
from model_server.model.checkpoint import Checkpoint, ModelLoadError, Voice, VoiceInfo
from model_server.model.executor import GRAPH_LENGTHS, Executor, StatePool
from model_server.model.planner import Planner, prepare_batch
from model_server.neural_vocoder import NeuralVocoder

__all__ = [
    "GRAPH_LENGTHS",
    "ModelLoadError",
    "OneStream",
    "Planner",
    "SpeechRuntime",
    "StatePool",
    "VoiceInfo",
    "speak_one_stream",
]

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "weights" / "default"


VOCODER_CHOICES = VOCODERS
VOCODER_AUTO, VOCODER_HARMONIC, VOCODER_NEURAL = VOCODERS


def load_synth(model_dir: Path, choice: str = VOCODER_AUTO) -> torch.nn.Module | None:
    """The vocoder a model directory is served with (None: the default harmonic-plus-noise one)."""
    if choice not in VOCODER_CHOICES:
        raise ModelLoadError(f"vocoder {choice!r} must be one of {', '.join(VOCODER_CHOICES)}")
    has_neural = (Path(model_dir) / neural_vocoder.CONFIG_FILE).is_file()
    if choice == VOCODER_HARMONIC or (choice == VOCODER_AUTO and not has_neural):
        return None
    if not has_neural:
        raise ModelLoadError(
            f"vocoder 'neural' requested but {model_dir} has no {neural_vocoder.CONFIG_FILE} "
            "(python -m model_server.train_vocoder writes one)"
        )
    try:
        return neural_vocoder.NeuralVocoder.load(model_dir)
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"learned vocoder: {exc}") from None


class SpeechRuntime:
    def __init__(
        self,
        ckpt: Checkpoint,
        device: str | torch.device = "cpu",
        use_cuda_graphs: bool = True,
        synth: torch.nn.Module | None = None,
    ):
        """synth: the vocoder (default: `vocoder.HarmonicNoiseSynth` at 16 kHz); its output rate and hop are
        the runtime's, so a 24 kHz learned vocoder serves 24 kHz without resampling."""
        self.device = torch.device(device)
        self.ckpt = ckpt
        self.config = ckpt.config
        self.catalog = Catalog(ckpt)
        self.voices: dict[str, VoiceInfo] = self.catalog.voices
        self.languages = self.catalog.languages
        self.model: AcousticModel = ckpt.model.to(self.device).eval()
        # The phone encoder runs on the device too, batched over every stream that needs frames in a tick
        # (planner.encode_windows): one call per tick, the frames stay on the device for the step.
        self.encoder = self.model.encoder
        self.executor = Executor(self.model, self.config, self.device, use_cuda_graphs, synth=synth)
        self.synth = self.executor.synth
        self.sample_rate = int(self.synth.sample_rate)
        self.hop = int(self.synth.hop)  # output samples per 12.5 ms frame
        self.vocoder_name = VOCODER_NEURAL if isinstance(self.synth, NeuralVocoder) else VOCODER_HARMONIC

    # construction ---------------------------------------------------------------------------------------
    @classmethod
    def load(
        cls,
        model_dir: str | os.PathLike | None = None,
        device: str | torch.device = "cpu",
        use_cuda_graphs: bool = True,
        vocoder_choice: str = VOCODER_AUTO,
    ) -> SpeechRuntime:
        """Load a model directory (default: the bundled weights). Raises ModelLoadError.

        vocoder_choice: ``auto`` serves the directory's learned vocoder (``neural_vocoder.json``) when it has
        one, else the harmonic-plus-noise one; ``harmonic`` always the latter; ``neural`` requires the former."""
        device = torch.device(device)
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ModelLoadError("device 'cuda' requested but CUDA is not available")
        model_dir = Path(model_dir or DEFAULT_MODEL_DIR)
        return cls(
            checkpoint.load(model_dir, device), device, use_cuda_graphs, load_synth(model_dir, vocoder_choice)
        )

    @classmethod
    def init_random(
        cls,
        voices: list[VoiceInfo] | None = None,
        device: str | torch.device = "cpu",
        seed: int = 0,
        **config,
    ) -> SpeechRuntime:
        """An untrained runtime (random weights) over the full symbol inventory: for tests and wiring."""
        from model_server.frontend.symbols import SYMBOLS

        voices = voices or [VoiceInfo("en_female_slt", "SLT", "en", "female", "untrained test voice")]
        torch.manual_seed(seed)
        cfg = AcousticConfig(n_symbols=len(SYMBOLS), n_speakers=len(voices), **config)
        model = AcousticModel(cfg)
        ckpt = Checkpoint(
            cfg, list(SYMBOLS), [Voice(v, i) for i, v in enumerate(voices)], model, {"random": True}
        )
        checkpoint._validate_meta(cfg, ckpt.symbols, ckpt.voices)
        return cls(ckpt, device)

    # text and streams -----------------------------------------------------------------------------------
    def phonemize(self, sentence: str, language: str) -> list[tuple[str | None, list[int]]]:
        """One sentence -> [(word text, or None for pauses/boundaries/punctuation, model symbol ids)]."""
        return self.catalog.phonemize(sentence, language)

    def new_planner(self, voice_id: str, language: str | None = None, speed: float = 1.0) -> Planner:
        voice, language, speed = self.catalog.stream_params(voice_id, language, speed)
        return Planner(self, voice, language, speed)

    def prepare_batch(self, wants) -> list:
        """[(planner, frames wanted)] -> the planners brought to their wanted frames with one batched
        encoder call per round; returns [(planner, error)] for those whose text failed."""
        return prepare_batch(self.encoder, wants)

    # state and steps (the executor's) ------------------------------------------------------------------
    def new_pool(self, max_streams: int) -> StatePool:
        return self.executor.new_pool(max_streams)

    def reset_slots(self, pool: StatePool, slot_ids, voice_ids: list[str] | None = None) -> None:
        """Fresh state for new streams; ``voice_ids`` (one per slot) give each its voice's vocoder settings."""
        settings = None if voice_ids is None else self.catalog.vocoder_settings(list(voice_ids))
        self.executor.reset_slots(pool, slot_ids, settings)

    def warmup(self, max_streams: int, max_chunk_frames: int = max(GRAPH_LENGTHS)) -> dict:
        return self.executor.warmup(max_streams, max_chunk_frames)

    def decode(self, cond: torch.Tensor, states):
        return self.executor.decode(cond, states)

    def step(self, pool: StatePool, slot_ids, cond: torch.Tensor, *, pcm16: bool = False) -> torch.Tensor:
        return self.executor.step(pool, slot_ids, cond, pcm16=pcm16)

    def padded_batch(self, batch: int) -> int:
        return self.executor.padded_batch(batch)

    @property
    def _graphs(self):
        return self.executor._graphs


@dataclass(frozen=True)
class OneStream:
    """One utterance spoken alone through the serving path (`speak_one_stream`)."""

    audio: torch.Tensor  # float32 [samples] on the CPU
    first_chunk_s: float  # from the start to the first chunk's audio on the host
    compute_s: float  # the whole utterance


def speak_one_stream(rt: SpeechRuntime, voice: str, text: str, chunk: int = 32, pool=None) -> OneStream:
    """`text` by `voice` as a single server stream speaks it (planner + batched step, `chunk` frames per
    step), timed: what the evaluation, the peers' comparison and the GPU training run measure. `pool` (one
    slot) can be reused between calls; its slot 0 is reset first."""
    pool = pool if pool is not None else rt.new_pool(1)
    t0 = time.perf_counter()
    rt.reset_slots(pool, [0], [voice])
    planner = rt.new_planner(voice, None, 1.0)
    planner.feed(text)
    planner.finish()
    parts, first = [], None
    while (frames := planner.pop_frames(chunk)) is not None:
        parts.append(rt.step(pool, [0], frames.cond.unsqueeze(0))[0])
        if first is None:
            first = time.perf_counter() - t0
    compute = time.perf_counter() - t0
    audio = torch.cat(parts) if parts else torch.zeros(0)
    return OneStream(audio, compute if first is None else first, compute)
