"""The planner: one stream's text -> frame conditioning, lazily (a sentence, then a window of phones).

    planner = rt.new_planner(voice_id, language, speed)
    planner.feed(text); planner.flush(); planner.finish()
    chunk = planner.pop_frames(max_frames)              # FrameChunk(cond [n, D], words [WordSpan])

Memory per stream is bounded: the text not yet phonemized, at most one sentence of phone ids (sentences
are capped at MAX_SENTENCE_WORDS words) and a window of at most ENCODE_WINDOW phones' frames.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch

from model_server import vocoder
from model_server.model.acoustic import AcousticConfig, durations_from_log, frame_conditioning
from model_server.model.checkpoint import Voice
from model_server.model.text import sentence_units, split_sentences

if TYPE_CHECKING:
    from model_server.model.runtime import SpeechRuntime

ENCODE_WINDOW = 16  # phones encoded at a time (rounded up to the end of a word)


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
