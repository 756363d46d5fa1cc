"""The planner: one stream's text -> frame conditioning, lazily (a sentence, then a window of phones).

    planner = rt.new_planner(voice_id, language, speed)
    planner.feed(text); planner.flush(); planner.finish()
    chunk = planner.pop_frames(max_frames)              # FrameChunk(cond [n, D], words [WordSpan])

Memory per stream is bounded: the text not yet phonemized, at most one sentence of phone ids (sentences
are capped at MAX_SENTENCE_WORDS words) and a window of at most ENCODE_WINDOW phones' frames.

The engine encodes the windows of every stream that needs frames together, once per tick
(`prepare_batch` -> `encode_windows`: phone encoder, durations and frame conditioning on the device,
one call per phone bucket, padded to fixed shapes); a planner used alone (`pop_frames`) encodes its own windows through the same
function with a batch of one, so both give the same frames.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import torch

from model_server import vocoder
from model_server.model.acoustic import AcousticConfig, PhoneEncoder, position_features
from model_server.model.checkpoint import Voice
from model_server.model.text import sentence_units, split_sentences

if TYPE_CHECKING:
    from model_server.model.runtime import SpeechRuntime

ENCODE_WINDOW = 16  # phones encoded at a time (rounded up to the end of a word)
# ... but no further than this: a giant token (a client's thousands of digits) is one word of thousands of
# phones, which encoded whole stalled every stream's tick and buffered its frames at once; its timestamp
# then spans the windows it took.
MAX_WINDOW_PHONES = 4 * ENCODE_WINDOW
MIN_PHONE_BUCKET = 32  # encoder inputs are padded to a power of two phones, at least this many


@dataclass(frozen=True)
class WordSpan:
    text: str
    start_s: float
    end_s: float


@dataclass(frozen=True)
class PhonemizedSentence:
    """A sentence an API worker already normalized and phonemized (`model.text.SentenceText.sentence`)."""

    ids: list[int]
    words: list[tuple[str, int, int]]  # (the word as written, first phone, end phone)


@dataclass
class FrameChunk:
    cond: torch.Tensor  # [n, cond_dim] float32
    words: list[WordSpan] = field(default_factory=list)


@dataclass(frozen=True)
class WindowRequest:
    """One stream's next encode window: `symbols` is the window with its receptive field around it; the
    phones to turn into frames are symbols[first : first + count]."""

    symbols: list[int]
    first: int
    count: int
    speaker: int
    speed: float
    carry: float  # duration rounding remainder carried in from the stream's previous window


@dataclass(frozen=True)
class EncodedWindow:
    durations: list[int]  # frames per phone of the window (host ints: the word spans need them)
    cond: torch.Tensor  # [sum(durations), cond_dim] on the encoder's device
    carry: float  # rounding remainder carried out, into the stream's next window


def phone_bucket(n: int) -> int:
    """The padded phone length of an encoder batch: a power of two, at least MIN_PHONE_BUCKET."""
    return max(MIN_PHONE_BUCKET, 1 << (n - 1).bit_length())


def encode_windows(encoder: PhoneEncoder, requests: Sequence[WindowRequest]) -> list[EncodedWindow]:
    """Phone encoder, durations and frame conditioning for many streams' windows: one batched call per
    phone bucket (windows are grouped by their padded length, so one long window does not make every
    row of the batch as long; usually one or two buckets a tick).

    Each window is a row padded (masked) on the right, which the encoder treats like the end of the
    sentence, i.e. like the zero padding a window encoded alone gets: per-stream results equal encoding
    each window by itself. Durations round with the carry running from phone to phone, as
    `acoustic.durations_from_log` does, vectorized (the running sum's rounding gives each phone's
    frames). The only host synchronization is one copy of the durations back per bucket."""
    out: list[EncodedWindow | None] = [None] * len(requests)
    buckets: dict[int, list[int]] = {}
    for i, r in enumerate(requests):
        buckets.setdefault(phone_bucket(len(r.symbols)), []).append(i)
    for width, rows in sorted(buckets.items()):
        for i, encoded in zip(rows, _encode_bucket(encoder, [requests[i] for i in rows], width), strict=True):
            out[i] = encoded
    return out  # type: ignore[return-value]


def _encode_bucket(encoder: PhoneEncoder, requests: list[WindowRequest], width: int) -> list[EncodedWindow]:
    """One encoder call: the windows as rows of `width` phones, the batch padded to a power of two rows
    (fixed shapes on a GPU)."""
    device = encoder.symbol_emb.weight.device
    batch = 1 << (len(requests) - 1).bit_length()
    # The rows are filled in numpy, then each array becomes a tensor once: filling torch tensors row by row
    # cost about ten dispatched torch operations per stream per window, the engine thread's main per-stream
    # cost on a GPU host (docs/benchmarks.md, "Where the server's ceiling is").
    sym = np.zeros((batch, width), dtype=np.int64)
    mask = np.zeros((batch, width), dtype=bool)
    window = np.zeros((batch, width), dtype=bool)
    speaker = np.zeros(batch, dtype=np.int64)
    speed = np.ones((batch, 1), dtype=np.float32)
    carry = np.zeros((batch, 1), dtype=np.float64)
    for i, r in enumerate(requests):
        sym[i, : len(r.symbols)] = r.symbols
        mask[i, : len(r.symbols)] = True
        window[i, r.first : r.first + r.count] = True
        speaker[i], speed[i, 0], carry[i, 0] = r.speaker, r.speed, r.carry
    flat = np.flatnonzero(window)  # the windows' phones, stream after stream (host-made)
    host = [torch.from_numpy(a) for a in (sym, mask, window, speaker, speed, carry, flat)]
    window_h = host[2]
    sym_d, mask_d, window_d, speaker_d, speed_d, carry_d, flat_d = (
        t.to(device, non_blocking=True) for t in host
    )
    with torch.inference_mode():
        enc, log_dur = encoder(sym_d, speaker_d, mask_d)
        frames = torch.clamp(torch.expm1(log_dur.float()), min=0.0) / speed_d
        running = torch.cumsum(frames.double() * window_d, dim=1) + carry_d
        total = torch.floor(running + 0.5)  # frames so far, rounded: sum of the rounded phones
        # The one synchronization: the rounded running totals (and the last running sum) come back;
        # frame counts decide what comes next (word timestamps, buffer accounting).
        back = torch.cat([total, running[:, -1:]], dim=1).cpu()
        total_h = back[:, :-1]
        dur_full = torch.diff(total_h, dim=1, prepend=torch.zeros_like(total_h[:, :1])).long()
        dur_host = dur_full[window_h]
        carries = (back[:, -1] - total_h[:, -1]).tolist()
        phone_enc = enc.reshape(-1, enc.shape[-1]).index_select(0, flat_d)
        n_frames = int(dur_host.sum())
        dur_dev = dur_host.to(device, non_blocking=True)
        rep = torch.repeat_interleave(phone_enc, dur_dev, dim=0, output_size=n_frames)
        pos = position_features(dur_host).to(device, rep.dtype, non_blocking=True)  # made on the host
        cond = torch.cat([rep, pos], dim=-1)
    per_phone = dur_host.tolist()
    out, phone0, frame0 = [], 0, 0
    for i, r in enumerate(requests):
        durations = per_phone[phone0 : phone0 + r.count]
        n = sum(durations)
        out.append(EncodedWindow(durations, cond[frame0 : frame0 + n], carries[i]))
        phone0 += r.count
        frame0 += n
    return out


def prepare_batch(
    encoder: PhoneEncoder, wants: Sequence[tuple[Planner, int]]
) -> list[tuple[Planner, Exception]]:
    """Bring every planner to at least its wanted frames (or to the end of its text), encoding the
    windows of all of them together: one batched call per round, and one round is usually enough (a
    window holds more frames than a chunk). Returns the planners whose text failed, with the error;
    the others are untouched by it."""
    failed: list[tuple[Planner, Exception]] = []
    todo = list(wants)
    while todo:
        asked: list[tuple[Planner, int, WindowRequest]] = []
        for planner, want in todo:
            try:
                request = planner.next_window(want)
            except Exception as exc:  # this stream's text broke the frontend: only it fails
                failed.append((planner, exc))
                continue
            if request is not None:
                asked.append((planner, want, request))
        if not asked:
            break
        for (planner, _, _), encoded in zip(
            asked, encode_windows(encoder, [r for *_, r in asked]), strict=True
        ):
            planner.take_window(encoded)
        todo = [(planner, want) for planner, want, _ in asked]
    return failed


# -- planner ---------------------------------------------------------------------------------------------
class Planner:
    """Per-stream text -> frame conditioning. Not thread-safe: one owner (the engine thread) per stream."""

    def __init__(self, rt: SpeechRuntime, voice: Voice, language: str, speed: float):
        self._rt = rt
        self.voice = voice
        self.language = language
        self.speed = speed
        self._window: tuple[int, int] | None = None  # (first, end phone) of the window being encoded
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
        self._open_word_start: int | None = None  # start frame of a word longer than a window, not yet ended
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

    def feed_sentence(self, ids: list[int], words: list[tuple[str, int, int]]) -> None:
        """A complete sentence an API worker already phonemized (`SentenceText.sentence`)."""
        if self._finished:
            raise RuntimeError("feed_sentence() after finish()")
        self._sentences.append(PhonemizedSentence(ids, words))

    def feed_error(self, message: str) -> None:
        """A sentence the worker's frontend refused: the stream fails when the planner reaches it."""
        self._sentences.append(ValueError(message))

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
    def has_work(self) -> bool:
        """Frames buffered, or text ready to become frames (nothing is encoded here: the engine batches
        that over streams), or a refused sentence to report."""
        return (
            self._n_buffered > 0
            or self._next_phone < len(self._ids)
            or bool(self._sentences)
            or self._error is not None
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
        if self._error is not None and self._n_buffered == 0:
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
        return FrameChunk(parts[0] if len(parts) == 1 else torch.cat(parts, 0), words)  # one block: a view

    # windows (the engine batches them over streams: prepare_batch) ---------------------------------------
    def next_window(self, want: int) -> WindowRequest | None:
        """The next window to encode while fewer than `want` frames are buffered, starting the next
        sentence when the current one is spent; None when enough frames are buffered or no text is
        ready. A sentence the frontend refuses raises here (only once nothing is buffered: the audio
        before it is spoken first)."""
        if self._window is not None:
            raise RuntimeError("next_window() before take_window() of the previous window")
        if self._error is not None:
            if self._n_buffered == 0:
                raise self._error
            return None
        cfg: AcousticConfig = self._rt.config
        while self._n_buffered < want:
            if self._next_phone < len(self._ids):
                a = self._next_phone
                b = min(len(self._ids), a + ENCODE_WINDOW)
                for _, w0, w1 in self._words:  # end the window at a word end: word spans complete in it
                    if w0 < b < w1:
                        b = min(w1, a + MAX_WINDOW_PHONES)
                        break
                lo = max(0, a - cfg.left_context)
                hi = min(len(self._ids), b + cfg.lookahead)
                self._window = (a, b)
                return WindowRequest(
                    self._ids[lo:hi], a - lo, b - a, self.voice.speaker, self.speed, self._carry
                )
            if not self._sentences:
                return None
            try:
                self._start_sentence(self._sentences.popleft())
            except Exception as exc:
                self._error = exc
                if self._n_buffered == 0:
                    raise
                return None
        return None

    def take_window(self, encoded: EncodedWindow) -> None:
        """The encoded window that next_window asked for: its frames and the words that start in it."""
        if self._window is None:
            raise RuntimeError("take_window() without a window asked for")
        a, b = self._window
        self._window = None
        dur, cond = encoded.durations, encoded.cond
        self._carry = encoded.carry
        starts = [0, *itertools.accumulate(dur)]
        base = self._frames_planned
        hop_s = vocoder.HOP / vocoder.SAMPLE_RATE
        while self._words and self._words[0][1] < b:
            text, w0, w1 = self._words[0]
            if w1 > b:  # a word longer than a window: it started here and ends in a later one
                if self._open_word_start is None:
                    self._open_word_start = base + starts[w0 - a]
                break
            self._words.popleft()
            s = base + starts[w0 - a] if self._open_word_start is None else self._open_word_start
            self._open_word_start = None
            e = base + starts[w1 - a]
            self._pending_words.append((s, WordSpan(text, round(s * hop_s, 4), round(e * hop_s, 4))))
        if len(cond):
            self._frames.append(cond)
            self._n_buffered += len(cond)
            self.peak_frames = max(self.peak_frames, self._n_buffered)
        self._frames_planned += len(cond)
        self._next_phone = b
        if b >= len(self._ids):  # sentence consumed: drop its phones
            self._ids, self._next_phone = [], 0

    # internals ------------------------------------------------------------------------------------------
    def _prepare(self, want: int) -> None:
        """Alone (no engine batching): encode this stream's own windows, a batch of one."""
        while (request := self.next_window(want)) is not None:
            self.take_window(encode_windows(self._rt.model.encoder, [request])[0])

    def _start_sentence(self, sentence) -> None:
        """A sentence's text (phonemized here), or one an API worker phonemized, or the worker's record of
        a sentence its frontend refused (raised here, in its place, so the audio before it is spoken)."""
        if isinstance(sentence, PhonemizedSentence):
            ids, spans = sentence.ids, sentence.words
        elif isinstance(sentence, Exception):
            raise sentence
        else:
            ids, spans = sentence_units(sentence, self._rt.phonemize(sentence, self.language))
        self._ids, self._words, self._next_phone = list(ids), deque(spans), 0
        self.peak_phones = max(self.peak_phones, len(ids))
