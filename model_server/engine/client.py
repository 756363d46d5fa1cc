"""A worker's side of the engine channel (no torch): remote streams, their text, the engine's status.

Ops are queued and sent once per event-loop turn as one message per engine (`flush` is scheduled with
call_soon when the first op is queued), so the ops of all streams of this worker that happen in one turn
travel together; each engine answers with one message per tick.

Several engine processes (STATESPEAK_ENGINES): one `EngineLink` (socket, queued ops, last status) per
engine. A new stream opens on the engine with the lowest share of its slots in use (the engines' own counts
from the shared `loads` array, plus this worker's opens not yet admitted), and all its ops go there. The
worker is ready when every engine is; /metrics gathers every engine's registry with an `engine` label.

Text is normalized and phonemized here, a sentence at a time (`TextIntake`): the engine gets symbol ids
and words. A long text is phonemized a few milliseconds per event-loop turn, so one big request does not
hold up this worker's other streams; a WebSocket context's unfinished sentence is spoken after its
buffer delay without new text.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import time
from collections.abc import Callable, Sequence

import zmq
import zmq.asyncio
from prometheus_client import generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from model_server.engine import protocol as p
from model_server.frontend.languages import api_languages
from model_server.model.text import SentenceText, split_sentences

log = logging.getLogger("statespeak.worker")
HELLO_INTERVAL_S = 0.5
WARMUP_SENTENCE = "Warming up, one two three, 123."
# What a language's frontend loads on first use beyond its espeak-ng voice: Japanese text loads janome's
# dictionary (0.4 s), a Chinese number cn2an; the first such request paid it on the event loop (111-146 ms).
WARMUP_TEXT = {"ja": "東京に3日います。", "zh": "价格是123元。"}
LANGUAGE = "language"  # a language switch in a stream's intake queue (worker-side only)
INTAKE_BUDGET_S = 0.004  # phonemizing per event-loop turn (all streams) before the rest waits a turn


class TextIntake:
    """One stream's text: split into sentences as it arrives, each phonemized and sent in order, with the
    stream's flush and finish in their places. A sentence the frontend refuses is sent as TEXT_ERROR (the
    engine fails the stream when it gets there) and the text after it is dropped.

    A stream's first sentence is phonemized at once (time to first audio); the rest wait for the worker's
    intake turns (`EngineClient._intake_turn`), which share a few milliseconds per event-loop turn among
    all streams, fewest sentences sent first: a burst of long texts does not hold up first audio."""

    def __init__(self, client: EngineClient, sid: int, language: str, buffer_delay_s: float | None) -> None:
        self.client = client
        self.sid = sid
        self.language = language
        self.buffer_delay_s = buffer_delay_s
        self.sent = 0  # sentences sent so far
        self._partial = ""  # fed, not yet a complete sentence
        self._queue: collections.deque[tuple[str, str]] = collections.deque()  # ("sentence", text) or op
        self._failed = False
        self._timer: asyncio.TimerHandle | None = None

    def feed(self, text: str) -> None:
        self._partial += text
        sentences, self._partial = split_sentences(self._partial, final=False)
        self._queue.extend((p.SENTENCE, s) for s in sentences)
        self._arm_timer()
        self._ready()

    def set_language(self, language: str) -> None:
        """Speak text fed from now on in `language`, from a sentence boundary: the unfinished sentence
        before the switch is closed and spoken in the previous language."""
        if language != self.language:
            self._take_partial()
            self._queue.append((LANGUAGE, language))
            self._ready()

    def end_text(self, op: str) -> None:
        """FLUSH or FINISH: the unfinished sentence is complete now; the op follows its sentences."""
        self._take_partial()
        self._queue.append((op, ""))
        self._ready()

    def _take_partial(self) -> None:
        sentences, self._partial = split_sentences(self._partial, final=True)
        self._queue.extend((p.SENTENCE, s) for s in sentences)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm_timer(self) -> None:
        if self.buffer_delay_s is None or not self._partial.strip():
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(self.buffer_delay_s, self._on_delay)

    def _on_delay(self) -> None:
        """No new text for the buffer delay: an LLM that pauses mid-sentence (a tool call, a slow token)
        does not hold back the audio of what it already sent."""
        self._timer = None
        if self._partial.strip():
            self._take_partial()
            self._ready()

    def _ready(self) -> None:
        if self.sent == 0:  # the first sentence (and the ops right after it) now
            while self._queue and self.sent == 0:
                self.step()
            while self._queue and self._queue[0][0] != p.SENTENCE:
                self.step()
        if self._queue:
            self.client._intake_ready(self)

    def step(self) -> bool:
        """Send the next item (phonemizing a sentence); True while more are queued."""
        kind, text = self._queue.popleft()
        if kind == LANGUAGE:  # in the queue, so sentences before the switch keep their language
            self.language = text
        elif kind != p.SENTENCE:
            self.client.send((kind, self.sid))
        elif not self._failed:
            self.sent += 1
            try:
                ids, words = self.client.text.sentence(text, self.language)
            except Exception as exc:  # the frontend refused this text: only this stream fails, in order
                self._failed = True
                self.client.send((p.TEXT_ERROR, self.sid, str(exc)))
            else:
                self.client.send((p.SENTENCE, self.sid, ids, words))
        return bool(self._queue)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._queue.clear()
        self.client._intakes.pop(self, None)


class RemoteStream:
    """One stream as the protocol handler sees it; the engine holds its slot and state."""

    def __init__(self, client: EngineClient, sid: int, intake: TextIntake) -> None:
        self.client = client
        self.id = sid
        self.intake = intake
        self._events: asyncio.Queue[p.StreamEvent] = asyncio.Queue()
        self._admission: asyncio.Future = asyncio.get_running_loop().create_future()
        self.closed = False  # no more input accepted after finish/cancel
        self.ended = False  # a terminal event was received (or admission refused)
        self.flushes = 0

    def feed(self, text: str) -> None:
        if self.closed:
            raise RuntimeError("stream no longer accepts input")
        if text:
            self.intake.feed(text)

    def set_language(self, language: str) -> None:
        """Speak the text fed after this in `language`, starting at a sentence boundary."""
        if self.closed:
            raise RuntimeError("stream no longer accepts input")
        self.intake.set_language(language)

    def flush(self) -> int:
        """Generate everything fed so far without waiting for lookahead; returns the flush id."""
        if self.closed:
            raise RuntimeError("stream no longer accepts input")
        self.flushes += 1
        self.intake.end_text(p.FLUSH)
        return self.flushes

    def finish(self) -> None:
        if not self.closed:
            self.closed = True
            self.intake.end_text(p.FINISH)

    def cancel(self) -> None:
        """Stop generation at the engine's next tick and free the slot (idempotent; also on disconnect)."""
        self.closed = True
        self.intake.close()
        if not self.ended:
            self.client.send((p.CANCEL, self.id))

    def consumed(self, samples: int) -> None:
        if samples and not self.ended:
            self.client.send((p.CONSUMED, self.id, samples))

    async def admitted(self) -> None:
        """Returns once the engine gave the stream a slot; raises AdmissionError when it did not."""
        await self._admission

    async def events(self):
        """Events until the terminal one (done, error or cancelled), which is yielded too."""
        while True:
            ev = await self._events.get()
            yield ev
            if ev.kind in p.TERMINAL:
                return

    # from the dispatcher ------------------------------------------------------------------------------------
    def _admit(self, error: p.AdmissionError | None) -> None:
        if self._admission.done():
            return
        if error is None:
            self._admission.set_result(None)
        else:
            self.ended = self.closed = True
            self.intake.close()
            self._admission.set_exception(error)

    def _deliver(self, ev: p.StreamEvent) -> None:
        if ev.kind in p.TERMINAL:
            self.ended = True
            self.intake.close()
            self._admit(None)
        self._events.put_nowait(ev)


class EngineLink:
    """One engine process as this worker sees it."""

    def __init__(self, index: int, endpoint: str, slots: int) -> None:
        self.index = index
        self.endpoint = endpoint
        self.slots = slots  # its share of MAX_STREAMS (`ServerConfig.engine_slots`)
        self.phase = "loading"
        self.reason = ""
        self.catalog: p.Catalog | None = None
        self.active = 0
        self.opening = 0  # this worker's opens sent to it and not yet answered
        self.pending: list[tuple] = []
        self.sock: zmq.asyncio.Socket | None = None


# Ops that belong to one stream (item[1] is its id): they go to the engine that holds the stream.
STREAM_OPS = frozenset((p.OPEN, p.SENTENCE, p.TEXT_ERROR, p.FLUSH, p.FINISH, p.CANCEL, p.CONSUMED))
BROADCAST_OPS = frozenset((p.HELLO, p.DRAIN))


class EngineClient:
    def __init__(
        self,
        endpoints: str | Sequence[str],
        identity: bytes,
        loads: Sequence[int] | None = None,
        slots: Sequence[int] | None = None,
    ) -> None:
        """`endpoints`: one per engine process; `loads`: their active counts (the supervisor's shared array;
        None: counted from this worker's own streams); `slots`: their shares of MAX_STREAMS (None: equal)."""
        endpoints = [endpoints] if isinstance(endpoints, str) else list(endpoints)
        slots = list(slots) if slots is not None else [1] * len(endpoints)
        if not endpoints or len(slots) != len(endpoints):
            raise ValueError(f"{len(endpoints)} engine endpoints with {len(slots)} slot counts")
        self.links = [EngineLink(i, e, n) for i, (e, n) in enumerate(zip(endpoints, slots, strict=True))]
        self.loads = loads
        self.identity = identity
        self.phase = "loading"  # the engine's: loading, ready, draining, failed
        self.reason = ""
        self.catalog: p.Catalog | None = None
        self.text: SentenceText | None = None  # made from the engine's symbol inventory
        self.warm = False  # this worker's frontends are made (see _warm_frontends)
        self.active = 0
        self.on_status: Callable[[], None] = lambda: None
        self._streams: dict[int, RemoteStream] = {}
        self._link_of: dict[int, EngineLink] = {}  # stream id -> the engine holding it
        self._ids = itertools.count(1)
        self._flush_scheduled = False
        self._intakes: dict[TextIntake, None] = {}  # streams with text still to phonemize
        self._intake_scheduled = False
        self._metrics: dict[int, tuple[asyncio.Future, dict[int, bytes]]] = {}
        self._tasks: list[asyncio.Task] = []
        self._ctx: zmq.asyncio.Context | None = None
        self.lost = False

    async def start(self) -> None:
        self._ctx = zmq.asyncio.Context()
        for link in self.links:
            link.sock = self._ctx.socket(zmq.DEALER)
            link.sock.setsockopt(zmq.IDENTITY, self.identity)
            link.sock.setsockopt(zmq.LINGER, 1000)
            link.sock.connect(link.endpoint)
        self._tasks = [asyncio.create_task(self._receive(link)) for link in self.links]
        self._tasks.append(asyncio.create_task(self._hello()))

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._flush()
        if self._ctx is not None:
            for link in self.links:
                link.sock.close()
                link.sock = None
            self._ctx.term()
            self._ctx = None

    # Sending --------------------------------------------------------------------------------------------
    def send(self, item: tuple) -> None:
        """Queue an op: a stream's ops for its engine, HELLO and DRAIN for every engine, the rest (a finished
        stream's numbers, a refusal) for engine 0, which counts them for the task."""
        if self.lost:
            return
        kind = item[0]
        if kind in STREAM_OPS:
            link = self._link_of.get(item[1])
            if link is not None:  # None: the stream ended and was forgotten, nothing holds it any more
                self._queue(link, item)
        elif kind in BROADCAST_OPS:
            for link in self.links:
                self._queue(link, item)
        else:
            self._queue(self.links[0], item)

    def _queue(self, link: EngineLink, item: tuple) -> None:
        link.pending.append(item)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        for link in self.links:
            if link.pending and link.sock is not None:
                items, link.pending = link.pending, []
                link.sock.send(p.pack(items))

    def _intake_ready(self, intake: TextIntake) -> None:
        self._intakes[intake] = None
        if not self._intake_scheduled:
            self._intake_scheduled = True
            asyncio.get_running_loop().call_soon(self._intake_turn)

    def _intake_turn(self) -> None:
        """Phonemize for INTAKE_BUDGET_S (at least one sentence), one sentence per stream per round,
        streams with the fewest sentences sent first; the rest waits for the next event-loop turn."""
        self._intake_scheduled = False
        deadline = time.perf_counter() + INTAKE_BUDGET_S
        while self._intakes:
            for intake in sorted(self._intakes, key=lambda i: i.sent):
                if not intake._queue or not intake.step():
                    self._intakes.pop(intake, None)
                if time.perf_counter() > deadline:
                    break
            if time.perf_counter() > deadline:
                break
        if self._intakes:
            self._intake_scheduled = True
            asyncio.get_running_loop().call_soon(self._intake_turn)

    def _warm_frontends(self, catalog: p.Catalog) -> None:
        """Every language's frontend (normalizer, espeak-ng voice) made before this worker turns ready,
        not under a stream's first sentence (only the languages the API accepts: `api_languages`). An error
        here is left for that stream to report."""
        for language in sorted(api_languages(catalog.languages)):
            try:
                self.text.sentence(WARMUP_TEXT.get(language, WARMUP_SENTENCE), language)
            except Exception:
                log.warning("frontend warm-up failed", extra={"language": language})
        self.warm = True

    async def _hello(self) -> None:
        """Announce this worker until the engine answers (it may still be starting)."""
        while self.catalog is None and self.phase == "loading" and not self.lost:
            self.send((p.HELLO,))
            await asyncio.sleep(HELLO_INTERVAL_S)

    # API ------------------------------------------------------------------------------------------------
    def open_stream(
        self, voice: str, language: str, speed: float, buffer_delay_s: float | None
    ) -> RemoteStream:
        """A stream whose OPEN is queued: ops sent now travel with it; `admitted()` says if it got a slot.
        `language` is resolved already (the API's request parsing gives a voice's default language)."""
        sid = next(self._ids)
        stream = RemoteStream(self, sid, TextIntake(self, sid, language, buffer_delay_s))
        self._streams[sid] = stream
        link = self._least_loaded()
        link.opening += 1
        self._link_of[sid] = link
        # the buffer delay is this worker's business (TextIntake): the engine gets whole sentences
        self.send((p.OPEN, sid, voice, language, speed))
        return stream

    def _least_loaded(self) -> EngineLink:
        """The engine with the lowest share of its slots in use, its own count (or this worker's streams on
        it, without the shared array) plus this worker's opens on their way; ties go to the lowest index."""
        if len(self.links) == 1:
            return self.links[0]
        if self.loads is not None:
            used = [self.loads[link.index] + link.opening for link in self.links]
        else:
            used = [0] * len(self.links)
            for link in self._link_of.values():
                used[link.index] += 1
        return min(self.links, key=lambda link: used[link.index] / link.slots)

    def _forget(self, sid: int) -> None:
        """The stream ended (or was refused): its later ops go nowhere."""
        self._streams.pop(sid, None)
        self._link_of.pop(sid, None)

    def stream_finished(self, outcome: str, ttfb_ms, rtf, audio_s: float, error_kind: str) -> None:
        self.send((p.FINISHED, outcome, ttfb_ms, rtf, audio_s, error_kind))

    def stream_rejected(self, reason: str) -> None:
        self.send((p.REJECTED, reason))

    def drain(self) -> None:
        self.send((p.DRAIN,))

    async def metrics_text(self, timeout_s: float = 5.0) -> bytes:
        """The Prometheus text of the task: the engine's registry, or every engine's with an `engine` label."""
        if self.lost:
            raise ConnectionError(self.reason)
        rid = next(self._ids)
        fut = asyncio.get_running_loop().create_future()
        self._metrics[rid] = (fut, {})
        for link in self.links:
            self._queue(link, (p.METRICS, rid))
        try:
            return await asyncio.wait_for(fut, timeout_s)
        finally:
            self._metrics.pop(rid, None)

    def engine_lost(self, reason: str) -> None:
        """An engine process is gone: every stream ends with an error now, never a hang."""
        if self.lost:
            return
        self.lost = True
        self.phase, self.reason = "failed", reason
        for stream in list(self._streams.values()):
            stream._admit(p.AdmissionError("engine_lost", reason))
            if not stream.ended:
                stream._deliver(p.StreamEvent(p.ERROR, message=reason))
        self._streams.clear()
        self._link_of.clear()
        for fut, _ in self._metrics.values():
            if not fut.done():
                fut.set_exception(ConnectionError(reason))
        self.on_status()

    # Receiving ------------------------------------------------------------------------------------------
    async def _receive(self, link: EngineLink) -> None:
        while True:
            data = await link.sock.recv()
            for item in p.unpack(data):
                try:
                    self._dispatch(link, item)
                except Exception:  # one bad item must not stop this worker's other streams
                    log.exception(
                        "engine message failed", extra={"item": str(item[:2]), "engine": link.index}
                    )

    def _dispatch(self, link: EngineLink, item: tuple) -> None:
        kind = item[0]
        if kind == p.AUDIO:
            _, sid, audio, words, flush_id, step_ms = item
            stream = self._streams.get(sid)
            if stream is not None:
                stream._deliver(p.StreamEvent(p.AUDIO, audio=audio, words=words, flush_id=flush_id,
                                              step_ms=step_ms))  # fmt: skip
        elif kind == p.ADMITTED:
            link.opening = max(0, link.opening - 1)
            stream = self._streams.get(item[1])
            if stream is not None:
                stream._admit(None)
        elif kind == p.REFUSED:
            link.opening = max(0, link.opening - 1)
            stream = self._streams.get(item[1])
            self._forget(item[1])
            if stream is not None:
                stream._admit(p.AdmissionError(item[2], item[3]))
        elif kind == p.FLUSH_DONE:
            stream = self._streams.get(item[1])
            if stream is not None:
                stream._deliver(p.StreamEvent(p.FLUSH_DONE, flush_id=item[2]))
        elif kind in p.TERMINAL:
            _, sid, message, stats = item
            stream = self._streams.get(sid)
            self._forget(sid)
            if stream is not None:
                stream._deliver(p.StreamEvent(kind, message=message, stats=stats))
        elif kind == p.STATUS:
            _, link.phase, link.reason, catalog, link.active = item
            if catalog is not None and link.catalog is None:
                link.catalog = catalog
            if not self.lost:
                self._combine_status()
        elif kind == p.METRICS:
            entry = self._metrics.get(item[1])
            if entry is not None and not entry[0].done():
                fut, texts = entry
                texts[link.index] = item[2]
                if len(texts) == len(self.links):
                    fut.set_result(texts[0] if len(texts) == 1 else merge_prometheus(texts))

    def _combine_status(self) -> None:
        """The task's phase from every engine's: failed or draining if any is, ready only when all are; the
        catalog once every engine has loaded (they load the same model)."""
        phases = [link.phase for link in self.links]
        for phase in ("failed", "draining", "loading"):
            if phase in phases:
                self.phase = phase
                self.reason = next(link.reason for link in self.links if link.phase == phase)
                break
        else:
            self.phase, self.reason = "ready", ""
        self.active = sum(link.active for link in self.links)
        if self.catalog is None and all(link.catalog is not None for link in self.links):
            catalog = self.links[0].catalog
            self.catalog = catalog
            self.text = SentenceText(catalog.symbols, catalog.length_marks)
            self._warm_frontends(catalog)
        self.on_status()


def merge_prometheus(texts: dict[int, bytes]) -> bytes:
    """Several engines' Prometheus texts as one exposition: each sample labelled with its engine's index
    (`engine="0"`), the families merged by name (sum them with `sum without (engine)`)."""
    families: dict[str, Metric] = {}
    for index, text in sorted(texts.items()):
        for family in text_string_to_metric_families(text.decode()):
            merged = families.setdefault(family.name, Metric(family.name, family.documentation, family.type))
            merged.samples.extend(
                sample._replace(labels={"engine": str(index), **sample.labels}) for sample in family.samples
            )
    return generate_latest(_Families(list(families.values())))


class _Families:
    """A registry-like collector over parsed families, for `generate_latest`."""

    def __init__(self, families: list[Metric]) -> None:
        self.families = families

    def collect(self) -> list[Metric]:
        return self.families
