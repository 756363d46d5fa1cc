"""The streaming runtime: the only thing the scheduler imports from the model (docs/architecture.md).

    rt = SpeechRuntime.load(model_dir, device="cpu")
    pool = rt.new_pool(max_streams)                     # fixed-size state slots (decoder + vocoder)
    planner = rt.new_planner(voice_id, language, speed) # text -> frame conditioning, per stream
    planner.feed(text); planner.flush(); planner.finish()
    chunk = planner.pop_frames(max_frames)              # FrameChunk(cond [n, D], words [WordSpan])
    rt.reset_slots(pool, slot_ids)
    audio = rt.step(pool, slot_ids, cond)               # [B, L, D] -> float32 [B, L * hop] (CPU tensor)

Memory per stream is bounded by construction: the pool holds per layer one conv state and one SSM state
plus the vocoder's few tensors, whatever the stream's length; the planner holds the text not yet
phonemized, at most one sentence of phone ids (sentences are capped at MAX_SENTENCE_WORDS words) and a
window of at most ENCODE_WINDOW phones' frames of conditioning.
"""

from __future__ import annotations

import math
import os
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import torch

from model_server import vocoder
from model_server.model import checkpoint
from model_server.model.acoustic import AcousticConfig, AcousticModel, durations_from_log, frame_conditioning
from model_server.model.checkpoint import Checkpoint, ModelLoadError, Voice, VoiceInfo

__all__ = ["FrameChunk", "ModelLoadError", "Planner", "SpeechRuntime", "StatePool", "VoiceInfo", "WordSpan"]

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "weights" / "default"
MAX_SENTENCE_WORDS = 40  # longer sentences are cut at a comma or a word boundary (bounded phone window)
ENCODE_WINDOW = 16  # phones encoded at a time (rounded up to the end of a word)
MIN_SPEED, MAX_SPEED = 0.5, 2.0
GRAPH_BATCHES = (1, 2, 4, 8, 16, 32, 64)
GRAPH_LENGTHS = (1, 2, 4, 8, 16, 32, 64)

_SENTENCE_END = re.compile(r"[.!?…]+[\"')\]»”’]*\s+")
_ABBREVIATIONS = {
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "st",
    "sr",
    "jr",
    "vs",
    "etc",
    "e.g",
    "i.e",
    "fig",
    "mt",
    "sra",
    "dra",
    "hr",
    "fr",
    "mme",
    "mlle",
    "nr",
    "ca",
    "bzw",
    "z.b",
    "u.a",
}


@dataclass(frozen=True)
class WordSpan:
    text: str
    start_s: float
    end_s: float


@dataclass
class FrameChunk:
    cond: torch.Tensor  # [n, cond_dim] float32
    words: list[WordSpan] = field(default_factory=list)


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


# -- text -> sentences -----------------------------------------------------------------------------------
def _cut_long(sentence: str) -> list[str]:
    """Split a sentence of more than MAX_SENTENCE_WORDS words, preferring the last comma in range."""
    out = []
    words = sentence.split()
    while len(words) > MAX_SENTENCE_WORDS:
        cut = MAX_SENTENCE_WORDS
        for i in range(MAX_SENTENCE_WORDS - 1, MAX_SENTENCE_WORDS // 2, -1):
            if words[i - 1].endswith((",", ";", ":")):
                cut = i
                break
        out.append(" ".join(words[:cut]))
        words = words[cut:]
    if words:
        out.append(" ".join(words))
    return out


def split_sentences(text: str, final: bool) -> tuple[list[str], str]:
    """Complete sentences in ``text`` and the unfinished rest. A sentence ends at . ! ? followed by
    whitespace (so "3.5" and a half-received "Mr." do not end one), not after a known abbreviation or a
    single letter. With ``final`` the rest is a sentence too and nothing is left over: whitespace alone is
    no sentence, and a rest kept after the input closed would keep the stream from ever being done."""
    sentences, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        before = text[start : m.start()].split()
        last = before[-1].lower().rstrip(".") if before else ""
        if m.group().startswith(".") and (last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())):
            continue
        sentences.append(text[start : m.end()].strip())
        start = m.end()
    rest = text[start:]
    if final:
        if rest.strip():
            sentences.append(rest.strip())
        rest = ""
    out = [piece for s in sentences if s for piece in _cut_long(s)]
    return out, rest


_NON_SPACE = re.compile(r"\S+")


def written_words(sentence: str, words: list[str]) -> list[str]:
    """The client's text for each spoken word, punctuation attached: ["Hello,", "world!"] for the words
    ["Hello", "world"] of "Hello, world!". Word timestamps carry these, so a framework that joins them
    with spaces (Pipecat) or finds them in the text it sent (LiveKit) gets the sentence back as written.

    Each whitespace-delimited token of the sentence goes to the first word that starts in it (two words in
    one token split it where the second begins); a token with no word ("-", "...") joins the word before
    it (or the first word). A word not found verbatim in the sentence keeps its own text."""
    if not words:
        return []
    tokens = [(m.start(), m.end()) for m in _NON_SPACE.finditer(sentence)]
    starts: list[int | None] = []
    pos = 0
    for word in words:
        at = sentence.find(word, pos) if word else -1
        starts.append(None if at < 0 else at)
        if at >= 0:
            pos = at + len(word)
    # pieces[i]: the parts of the sentence word i stands for, in order
    pieces: list[list[str]] = [[] for _ in words]
    i = 0  # next word to place
    for t0, t1 in tokens:
        inside = [k for k in range(i, len(words)) if starts[k] is not None and starts[k] < t1]
        if not inside:  # no word starts in this token: it belongs to the word before
            pieces[max(i - 1, 0)].append(sentence[t0:t1])
            continue
        cut = t0
        for n, k in enumerate(inside):
            end = starts[inside[n + 1]] if n + 1 < len(inside) else t1
            pieces[k].append(sentence[cut:end])
            cut = end
        i = inside[-1] + 1
    return [" ".join(parts) if parts else word for word, parts in zip(words, pieces, strict=True)]


# -- planner ---------------------------------------------------------------------------------------------
class Planner:
    """Per-stream text -> frame conditioning. Not thread-safe: one owner (the engine thread) per stream."""

    def __init__(self, rt: SpeechRuntime, voice: Voice, language: str, speed: float):
        self._rt = rt
        self.voice = voice
        self.language = language
        self.speed = speed
        self._speaker = torch.tensor([voice.speaker])
        self._text = ""  # fed, not yet a complete sentence
        self._sentences: deque[str] = deque()  # complete, not yet phonemized
        self._finished = False
        # current sentence: model symbol ids and words (text, first phone, end phone)
        self._ids: list[int] = []
        self._words: deque[tuple[str, int, int]] = deque()
        self._next_phone = 0  # first phone of the sentence not yet encoded
        self._frames: deque[torch.Tensor] = deque()  # encoded, not yet popped: [n_i, D] blocks
        self._n_buffered = 0
        self._pending_words: deque[tuple[int, WordSpan]] = deque()  # (start frame, span), not yet emitted
        self._frames_planned = 0  # frames encoded since the stream began (absolute frame clock)
        self._frames_popped = 0
        self._carry = 0.0  # duration rounding remainder
        self._error: Exception | None = None  # deferred from pending_frames to pop_frames
        self.peak_phones = 0  # high-water marks of the bounded window (memory checks)
        self.peak_frames = 0

    # text in --------------------------------------------------------------------------------------------
    def feed(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"feed() takes a str, got {type(text).__name__}")
        if self._finished:
            raise RuntimeError("feed() after finish()")
        self._text += text
        sentences, self._text = split_sentences(self._text, final=False)
        self._sentences.extend(sentences)

    def flush(self) -> None:
        """Treat the text fed so far as complete: all of it becomes frames without waiting for more."""
        sentences, self._text = split_sentences(self._text, final=True)
        self._sentences.extend(sentences)

    def finish(self) -> None:
        self.flush()
        self._finished = True

    # frames out -----------------------------------------------------------------------------------------
    @property
    def pending_frames(self) -> int:
        """Frames pop_frames can return now (prepares the next sentence when the buffer is empty).

        Never raises: the scheduler polls it outside its per-stream error handling. A text the frontend
        rejects is reported by the next pop_frames() instead (pending_frames reads 1 until then)."""
        if self._error is None:
            try:
                self._prepare(1)
            except Exception as exc:  # e.g. the normalizer refusing a token; only this stream fails
                self._error = exc
        if self._error is not None:
            return max(1, self._n_buffered)
        return self._n_buffered

    @property
    def done(self) -> bool:
        return (
            self._finished
            and not self._text
            and not self._sentences
            and self._next_phone >= len(self._ids)
            and self._n_buffered == 0
            and not self._pending_words
        )

    @property
    def held_phones(self) -> int:
        """Phone ids held for the current sentence (bounded by MAX_SENTENCE_WORDS)."""
        return len(self._ids)

    @property
    def buffered_frames(self) -> int:
        return self._n_buffered

    def pop_frames(self, max_frames: int) -> FrameChunk | None:
        """Up to max_frames frames of conditioning with the words that start in them; None when nothing is
        ready (more text is needed, or the stream is done)."""
        if isinstance(max_frames, bool) or not isinstance(max_frames, int) or max_frames < 1:
            raise ValueError(f"max_frames must be a positive int, got {max_frames!r}")
        if self._error is not None:
            raise ValueError(f"text could not be processed: {self._error}") from self._error
        self._prepare(max_frames)
        if self._n_buffered == 0:
            return None
        parts, n = [], 0
        while self._frames and n < max_frames:
            block = self._frames[0]
            take = min(len(block), max_frames - n)
            parts.append(block[:take])
            if take == len(block):
                self._frames.popleft()
            else:
                self._frames[0] = block[take:]
            n += take
        self._n_buffered -= n
        self._frames_popped += n
        words = []
        while self._pending_words and self._pending_words[0][0] < self._frames_popped:
            words.append(self._pending_words.popleft()[1])
        if not self._frames:  # zero-length words at the end go out with the last frames
            words.extend(w for _, w in self._pending_words)
            self._pending_words.clear()
        return FrameChunk(torch.cat(parts, 0), words)

    # internals ------------------------------------------------------------------------------------------
    def _prepare(self, want: int) -> None:
        while self._n_buffered < want:
            if self._next_phone < len(self._ids):
                self._encode_window()
            elif self._sentences:
                self._start_sentence(self._sentences.popleft())
            else:
                return

    def _start_sentence(self, sentence: str) -> None:
        units = self._rt.phonemize(sentence, self.language)
        ids, spans = [], deque()
        for text, sym_ids in units:
            if text is not None and sym_ids:
                spans.append((text, len(ids), len(ids) + len(sym_ids)))
            ids.extend(sym_ids)
        written = written_words(sentence, [text for text, _, _ in spans])
        spans = deque((w, a, b) for w, (_, a, b) in zip(written, spans, strict=True))
        self._ids, self._words, self._next_phone = ids, spans, 0
        self.peak_phones = max(self.peak_phones, len(ids))

    def _encode_window(self) -> None:
        cfg: AcousticConfig = self._rt.config
        a = self._next_phone
        b = min(len(self._ids), a + ENCODE_WINDOW)
        for _, w0, w1 in self._words:  # end the window at a word end so word spans complete within it
            if w0 < b < w1:
                b = w1
                break
        lo = max(0, a - cfg.left_context)
        hi = min(len(self._ids), b + cfg.lookahead)
        sym = torch.tensor([self._ids[lo:hi]])
        with torch.inference_mode():
            enc, log_dur = self._rt.encoder_cpu(sym, self._speaker)
        enc, log_dur = enc[0, a - lo : b - lo], log_dur[0, a - lo : b - lo]
        dur, self._carry = durations_from_log(log_dur, self.speed, self._carry)
        cond = frame_conditioning(enc, dur)
        starts = torch.cumsum(dur, 0) - dur
        base = self._frames_planned
        hop_s = vocoder.HOP / vocoder.SAMPLE_RATE
        while self._words and self._words[0][1] < b:
            text, w0, w1 = self._words.popleft()
            s = base + int(starts[w0 - a])
            e = base + int(starts[w1 - 1 - a] + dur[w1 - 1 - a])
            self._pending_words.append((s, WordSpan(text, round(s * hop_s, 4), round(e * hop_s, 4))))
        if len(cond):
            self._frames.append(cond)
            self._n_buffered += len(cond)
            self.peak_frames = max(self.peak_frames, self._n_buffered)
        self._frames_planned += len(cond)
        self._next_phone = b
        if b >= len(self._ids):  # sentence consumed: drop its phones
            self._ids, self._next_phone = [], 0


def warmup_shapes(max_streams: int, max_chunk_frames: int, graphs: bool) -> tuple[list[int], list[int]]:
    """(batch sizes, chunk lengths) SpeechRuntime.warmup steps through. With graphs: every bucket a batch
    of up to max_streams is padded to (or max_streams itself beyond the largest bucket, which runs
    eagerly) and every captured length a chunk of up to max_chunk_frames is split into."""
    if not graphs:
        return sorted({1, max_streams}), [min(8, max_chunk_frames)]
    batches = [b for b in GRAPH_BATCHES if b < max_streams]
    batches.append(next((b for b in GRAPH_BATCHES if b >= max_streams), max_streams))
    return batches, [n for n in GRAPH_LENGTHS if n <= max_chunk_frames]


# -- runtime ---------------------------------------------------------------------------------------------
class SpeechRuntime:
    def __init__(self, ckpt: Checkpoint, device: str | torch.device = "cpu", use_cuda_graphs: bool = True):
        self.device = torch.device(device)
        self.ckpt = ckpt
        self.config = ckpt.config
        self.sample_rate = vocoder.SAMPLE_RATE
        self.hop = vocoder.HOP
        self.voices: dict[str, VoiceInfo] = {v.info.id: v.info for v in ckpt.voices}
        self._voices = {v.info.id: v for v in ckpt.voices}
        self.languages = sorted({v.info.language for v in ckpt.voices})
        self.model: AcousticModel = ckpt.model.to(self.device).eval()
        # The planner's tiny convolutions stay on the CPU: no device round trip per text window.
        cpu_encoder = type(ckpt.model.encoder)(self.config)
        cpu_encoder.load_state_dict({k: v.detach().cpu() for k, v in ckpt.model.encoder.state_dict().items()})
        self.encoder_cpu = cpu_encoder.eval()
        self.synth = vocoder.HarmonicNoiseSynth().to(self.device).eval()
        self._symbol_index = {s: i for i, s in enumerate(ckpt.symbols)}
        self._frontends: dict[str, object] = {}
        self._frontend_lock = threading.Lock()
        self._graphs = _GraphCache(self) if (self.device.type == "cuda" and use_cuda_graphs) else None
        self._voc_init = self.synth.init_state(1, self.device)

    # construction ---------------------------------------------------------------------------------------
    @classmethod
    def load(
        cls,
        model_dir: str | os.PathLike | None = None,
        device: str | torch.device = "cpu",
        use_cuda_graphs: bool = True,
    ) -> SpeechRuntime:
        """Load a model directory (default: the bundled weights). Raises ModelLoadError."""
        device = torch.device(device)
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ModelLoadError("device 'cuda' requested but CUDA is not available")
        return cls(checkpoint.load(model_dir or DEFAULT_MODEL_DIR, device), device, use_cuda_graphs)

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

    # text ------------------------------------------------------------------------------------------------
    def _frontend(self, language: str):
        with self._frontend_lock:
            fe = self._frontends.get(language)
            if fe is None:
                from model_server.frontend import Frontend

                fe = self._frontends[language] = Frontend(language)
            return fe

    def phonemize(self, sentence: str, language: str) -> list[tuple[str | None, list[int]]]:
        """One sentence -> [(word text, or None for pauses/boundaries/punctuation, model symbol ids)]."""
        units = self._frontend(language).text_to_units(sentence)
        unk = self._symbol_index.get("<unk>", 0)
        return [
            (u.text if u.kind == "word" else None, [self._symbol_index.get(s, unk) for s in u.symbols])
            for u in units
        ]

    def new_planner(self, voice_id: str, language: str | None = None, speed: float = 1.0) -> Planner:
        voice = self._voices.get(voice_id)
        if voice is None:
            raise ValueError(f"unknown voice {voice_id!r}; this model has {sorted(self._voices)}")
        language = language or voice.info.language
        if language not in self.languages:
            raise ValueError(
                f"language {language!r} is not supported by this model (it has {self.languages})"
            )
        if (
            isinstance(speed, bool)
            or not isinstance(speed, (int, float))
            or not math.isfinite(speed)
            or not MIN_SPEED <= speed <= MAX_SPEED
        ):
            raise ValueError(f"speed must be a number in [{MIN_SPEED}, {MAX_SPEED}], got {speed!r}")
        return Planner(self, voice, language, float(speed))

    # state -----------------------------------------------------------------------------------------------
    def new_pool(self, max_streams: int) -> StatePool:
        if isinstance(max_streams, bool) or not isinstance(max_streams, int) or max_streams < 1:
            raise ValueError(f"max_streams must be a positive int, got {max_streams!r}")
        layers = [
            layer.mixer.allocate_state(max_streams, device=self.device) for layer in self.model.decoder.layers
        ]
        voc = {k: v.expand(max_streams, *v.shape[1:]).clone() for k, v in self._voc_init.items()}
        return StatePool(max_streams, layers, voc)

    def _slot_index(self, pool: StatePool, slot_ids) -> torch.Tensor:
        ids = list(slot_ids)
        if not ids:
            raise ValueError("slot_ids is empty")
        for s in ids:
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < pool.max_streams:
                raise ValueError(f"slot id {s!r} outside [0, {pool.max_streams})")
        if len(set(ids)) != len(ids):
            raise ValueError(f"slot_ids has duplicates: {ids}")
        return torch.tensor(ids, dtype=torch.long, device=self.device)

    def reset_slots(self, pool: StatePool, slot_ids) -> None:
        idx = self._slot_index(pool, slot_ids)
        for conv, ssm in pool.layers:
            conv.index_fill_(0, idx, 0.0)
            ssm.index_fill_(0, idx, 0.0)
        for k, t in pool.vocoder.items():
            t.index_copy_(0, idx, self._voc_init[k].expand(len(idx), *t.shape[1:]))

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
        }

    # the batched step --------------------------------------------------------------------------------------
    def decode(self, cond: torch.Tensor, states):
        """Decoder + denormalization, eager: cond [B, L, D] -> (vocoder features [B, L, F], new states)."""
        out, new_states = self.model.decoder(cond, states)
        return self.model.denormalize(out), new_states

    def step(self, pool: StatePool, slot_ids, cond: torch.Tensor) -> torch.Tensor:
        """Advance the listed streams by L frames: cond [B, L, cond_dim] -> float32 audio [B, L * hop] (CPU)."""
        idx = self._slot_index(pool, slot_ids)
        if (
            not isinstance(cond, torch.Tensor)
            or cond.dim() != 3
            or cond.shape[0] != len(idx)
            or cond.shape[2] != self.config.cond_dim
            or cond.shape[1] < 1
        ):
            shape = tuple(cond.shape) if isinstance(cond, torch.Tensor) else type(cond).__name__
            raise ValueError(f"cond must be [{len(idx)}, L >= 1, {self.config.cond_dim}], got {shape}")
        cond = cond.to(self.device, torch.float32)
        states = [(conv.index_select(0, idx), ssm.index_select(0, idx)) for conv, ssm in pool.layers]
        with torch.inference_mode():
            if self._graphs is not None:
                feats, new_states = self._graphs.decode(cond, states)
            else:
                feats, new_states = self.decode(cond, states)
            voc_state = {k: v.index_select(0, idx) for k, v in pool.vocoder.items()}
            audio, voc_new = self.synth(feats, voc_state)
            for (conv, ssm), (c_new, s_new) in zip(pool.layers, new_states, strict=True):
                conv.index_copy_(0, idx, c_new.to(conv.dtype))
                ssm.index_copy_(0, idx, s_new.to(ssm.dtype))
            for k, t in pool.vocoder.items():
                t.index_copy_(0, idx, voc_new[k].to(t.dtype))
        return audio.to("cpu", torch.float32)


class _GraphCache:
    """CUDA graphs of the decoder for bucketed batch sizes and power-of-two chunk lengths.

    A batch is padded up to the next bucket; a chunk length that is not a captured one is run as a sum of
    captured lengths (8 + 2 for 10), carrying the state, which is exact because the scan is. The vocoder
    runs eagerly after the graph: its harmonic count depends on the chunk's lowest F0 (a host-side value).
    """

    def __init__(self, rt: SpeechRuntime):
        self.rt = rt
        self.graphs: dict[tuple[int, int], tuple] = {}
        self.mempool = torch.cuda.graph_pool_handle()

    def _capture(self, batch: int, length: int):
        rt = self.rt
        d = rt.device
        cond = torch.zeros(batch, length, rt.config.cond_dim, device=d)
        states = [layer.mixer.allocate_state(batch, device=d) for layer in rt.model.decoder.layers]
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side), torch.inference_mode():
            for _ in range(3):  # warm up (Triton autotuning, allocator) before capture
                rt.decode(cond, states)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.mempool), torch.inference_mode():
            feats, new_states = rt.decode(cond, states)
        entry = (graph, cond, states, feats, new_states)
        self.graphs[(batch, length)] = entry
        return entry

    def _run(self, cond: torch.Tensor, states):
        b, length, _ = cond.shape
        bucket = next((g for g in GRAPH_BATCHES if g >= b), None)
        if bucket is None:  # beyond the largest bucket: eager
            return self.rt.decode(cond, states)
        entry = self.graphs.get((bucket, length)) or self._capture(bucket, length)
        graph, s_cond, s_states, feats, new_states = entry
        s_cond.zero_()
        s_cond[:b].copy_(cond)
        for (sc, ss), (c, s) in zip(s_states, states, strict=True):
            sc.zero_()
            ss.zero_()
            sc[:b].copy_(c)
            ss[:b].copy_(s)
        graph.replay()
        return feats[:b].clone(), [(c[:b].clone(), s[:b].clone()) for c, s in new_states]

    def decode(self, cond: torch.Tensor, states):
        length = cond.shape[1]
        parts, pos = [], 0
        for g in sorted(GRAPH_LENGTHS, reverse=True):
            while length - pos >= g:
                feats, states = self._run(cond[:, pos : pos + g], states)
                parts.append(feats)
                pos += g
        return torch.cat(parts, dim=1), states
