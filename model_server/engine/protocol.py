"""What crosses between an API worker and the engine process (import-light: no torch).

Transport: ZMQ, the engine's ROUTER socket and one DEALER per worker (identity `w<index>.<generation>`),
plus the supervisor's DEALER. Every message is one pickled list of items, so a worker sends everything its
event loop queued since the last send (opens, text, flushes, consumed counts) as one message, and the
engine answers each worker with ONE message per tick holding the admission answers and every event of
every stream that worker owns. Pickle is fine on this channel: both ends are this package's own
processes on one host (an ipc:// socket only they can reach).

Worker -> engine items (stream ids are the worker's own integers):
    (HELLO,)                                   announce; the engine answers with a STATUS
    (OPEN, sid, voice, language, speed)
    (SENTENCE, sid, symbol ids, words)         a sentence the worker normalized and phonemized
    (TEXT_ERROR, sid, message)                 a sentence its frontend refused (fails there, in order)
    (FLUSH, sid) (FINISH, sid) (CANCEL, sid) (CONSUMED, sid, samples)
    (REJECTED, reason)                         a refusal the worker made itself (draining), for metrics
    (FINISHED, outcome, ttfb_ms, rtf, audio_s, error_kind)   one stream's end, for metrics
    (METRICS, request_id)                      asks for the Prometheus text
    (DRAIN,)                                   refuse new streams from now on
Supervisor -> engine: (DRAIN,), (WORKER_GONE, identity), (STOP,).
Engine -> worker items:
    (STATUS, phase, reason, catalog | None, active)
    (ADMITTED, sid) (REFUSED, sid, reason, message)
    (AUDIO, sid, int16 samples, words, flush_id, step_ms) (FLUSH_DONE, sid, flush_id)
    (DONE | ERROR | CANCELLED, sid, message, stats)
    (METRICS, request_id, prometheus text)
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

HELLO, OPEN, FLUSH, FINISH, CANCEL, CONSUMED = (
    "hello",
    "open",
    "flush",
    "finish",
    "cancel",
    "consumed",
)
SENTENCE, TEXT_ERROR = "sentence", "text_error"
REJECTED, FINISHED, METRICS, DRAIN, WORKER_GONE, STOP = (
    "rejected",
    "finished",
    "metrics",
    "drain",
    "gone",
    "stop",
)
STATUS, ADMITTED, REFUSED = "status", "admitted", "refused"
AUDIO, FLUSH_DONE, DONE, ERROR, CANCELLED = "audio", "flush_done", "done", "error", "cancelled"
TERMINAL = frozenset((DONE, ERROR, CANCELLED))
SUPERVISOR_ID = b"supervisor"
# Why a stream is refused, as its client reads it (the engine's and the worker's refusals say the same)
DRAINING_MESSAGE = "server is draining for shutdown; retry on another instance"
LOADING_MESSAGE = "model is still loading"


class AdmissionError(Exception):
    """No slot for a new stream. reason: 'full', 'draining' or 'loading'."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class Word(NamedTuple):
    """A spoken word and where it is in the stream's audio (the runtime's WordSpan, without torch)."""

    text: str
    start_s: float
    end_s: float


@dataclass
class StreamEvent:
    """What a stream's consumer receives. kind: audio, flush_done, done, error, cancelled."""

    kind: str
    audio: np.ndarray | None = None
    words: list[Word] = field(default_factory=list)
    flush_id: int = 0
    step_ms: float = 0.0
    message: str = ""
    stats: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Catalog:
    """What the loaded model offers, sent to every worker once the engine is ready."""

    voices: list[dict[str, Any]]  # id, name, language, gender, description, teacher, supported (bool)
    languages: frozenset[str]
    sample_rate: int
    symbols: list[str]  # the model's symbol inventory: workers phonemize into its ids
    length_marks: str  # the model's rule (`frontend.symbols.LengthMarks`): workers phonemize as it learned


def worker_identity(index: int, generation: int) -> bytes:
    return f"w{index}.{generation}".encode()


def pack(items: list[tuple[Any, ...]]) -> bytes:
    return pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(data: bytes) -> list[tuple[Any, ...]]:
    return pickle.loads(data)
