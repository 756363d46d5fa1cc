"""The planner: one stream's text -> frame conditioning, lazily (a sentence, then a window of phones).

    planner = rt.new_planner(voice_id, language, speed)
    planner.feed(text); planner.flush(); planner.set_language(code); planner.finish()
    chunk = planner.pop_frames(max_frames)              # FrameChunk(cond [n, D], words [WordSpan])

Memory per stream is bounded: the text not yet phonemized, at most one sentence of phone ids (sentences
are capped at MAX_SENTENCE_WORDS words) and a window of at most ENCODE_WINDOW phones' frames.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch

from model_server import vocoder
from model_server.model.acoustic import AcousticConfig, durations_from_log, frame_conditioning
from model_server.model.checkpoint import Voice

if TYPE_CHECKING:
    from model_server.model.runtime import SpeechRuntime

MAX_SENTENCE_WORDS = 40  # longer sentences are cut at a comma or a word boundary (bounded phone window)
ENCODE_WINDOW = 16  # phones encoded at a time (rounded up to the end of a word)

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
        self._sentences: deque[tuple[str, str]] = deque()  # (sentence, its language), not yet phonemized
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
        self._sentences.extend((s, self.language) for s in sentences)

    def flush(self) -> None:
        """Treat the text fed so far as complete: all of it becomes frames without waiting for more."""
        sentences, self._text = split_sentences(self._text, final=True)
        self._sentences.extend((s, self.language) for s in sentences)

    def set_language(self, language: str) -> None:
        """Speak text fed from now on in `language`. The switch falls on a sentence boundary: text fed
        before it that has not ended its sentence is closed as a sentence in the previous language."""
        if language not in self._rt.languages:
            raise ValueError(
                f"language {language!r} is not supported by this model (it has {self._rt.languages})"
            )
        if language != self.language:
            self.flush()
            self.language = language

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
                self._start_sentence(*self._sentences.popleft())
            else:
                return

    def _start_sentence(self, sentence: str, language: str) -> None:
        units = self._rt.phonemize(sentence, language)
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
