"""Server metrics: Prometheus (`GET /metrics`) and CloudWatch Embedded Metric Format lines on stdout.

The metric names come from `model_server.contract`, which the CDK stacks import for their scaling policy,
dashboards and alarms; Prometheus names are derived from the same constants (CamelCase -> snake_case with
a `statespeak_` prefix) so the two views cannot drift apart.

EMF: one line per finished stream (TimeToFirstAudio, RealTimeFactor, AudioSeconds, StreamsCompleted or
StreamErrors) and one line every `interval` seconds with the ActiveStreams gauge and the counts of
rejected and failed streams since the previous line (zeros included, so alarms see data, not gaps).
Every line carries the dimensions contract.METRIC_DIMENSIONS: the route (Service) and the kit instance
(Kit, `ServerConfig.kit`, from the STATESPEAK_KIT environment variable the stacks set), so two copies of the kit in one account
never read each other's load.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from model_server.contract import (
    DEFAULT_KIT_NAME,
    METRIC_ACTIVE_STREAMS,
    METRIC_AUDIO_SECONDS,
    METRIC_DEVICE_UNAVAILABLE,
    METRIC_DIMENSIONS,
    METRIC_REAL_TIME_FACTOR,
    METRIC_REJECTED_STREAMS,
    METRIC_STREAM_ERRORS,
    METRIC_STREAMS_COMPLETED,
    METRIC_TIME_TO_FIRST_AUDIO,
    METRICS_NAMESPACE,
    metric_dimensions,
)

PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def prom_name(metric: str) -> str:
    """`TimeToFirstAudio` -> `statespeak_time_to_first_audio`."""
    return "statespeak_" + re.sub(r"(?<!^)(?=[A-Z])", "_", metric).lower()


class ServerMetrics:
    """Thread-safe: the engine thread and the event loop both record into it."""

    def __init__(
        self, deployment: str, max_streams: int, emf_out: TextIO | None = None, kit: str = DEFAULT_KIT_NAME
    ) -> None:
        """`deployment` and `kit` (the kit instance's name): the Service and Kit dimensions."""
        self.deployment = deployment
        self.kit = kit
        self._emf_out = emf_out  # None: whatever sys.stdout is at write time
        self._lock = threading.Lock()
        self._rejected_since = 0
        self._errors_since = 0
        self._active_fn = lambda: 0
        self._task_active_fn: Callable[[], int] | None = lambda: self._active_fn()
        self.registry = CollectorRegistry()
        r = self.registry
        self.active = Gauge(prom_name(METRIC_ACTIVE_STREAMS), "Streams holding a slot", registry=r)
        self.active.set_function(lambda: self._active_fn())
        Gauge("statespeak_max_streams", "Stream slots (MAX_STREAMS)", registry=r).set(max_streams)
        self.ready = Gauge(
            "statespeak_ready", "1 when ready for traffic, 0 while loading or draining", registry=r
        )
        self.ttfb = Histogram(
            prom_name(METRIC_TIME_TO_FIRST_AUDIO) + "_ms",
            "Request arrival to first audio bytes handed to the transport, milliseconds",
            buckets=(10, 25, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 2000, 5000),
            registry=r,
        )
        self.rtf = Histogram(
            prom_name(METRIC_REAL_TIME_FACTOR),
            "Compute seconds per audio second, per stream",
            buckets=(0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0),
            registry=r,
        )
        self.rejected = Counter(
            prom_name(METRIC_REJECTED_STREAMS), "Streams refused by admission control", ["reason"], registry=r
        )
        self.errors = Counter(
            prom_name(METRIC_STREAM_ERRORS), "Streams ended by an error", ["kind"], registry=r
        )
        self.completed = Counter(
            prom_name(METRIC_STREAMS_COMPLETED), "Streams finished", ["outcome"], registry=r
        )
        self.audio_seconds = Counter(prom_name(METRIC_AUDIO_SECONDS), "Audio produced, seconds", registry=r)
        self.device_gauge = Gauge(
            prom_name(METRIC_DEVICE_UNAVAILABLE),
            "1 while the server, asked for cuda, stays unready because CUDA or the kernels are missing",
            ["reason"],
            registry=r,
        )
        self._device_unavailable = False
        self.engine_steps = Counter("statespeak_engine_steps", "Batched model steps", registry=r)
        # steps / ticks: the chunk lengths a tick steps apart (scheduler.Engine._merge_lengths)
        self.engine_ticks = Counter(
            "statespeak_engine_ticks", "Engine ticks that ran a model step", registry=r
        )
        self.engine_batch = Histogram(
            "statespeak_engine_batch_size",
            "Streams per batched step",
            buckets=tuple(1 << i for i in range(13)),  # 1 to 4,096: a GPU step batches thousands
            registry=r,
        )
        # The scheduler's cost model (`engine.cost.TickCost`): where an engine's time goes, per deployment.
        self.engine_step_per_frame = Gauge(
            "statespeak_engine_step_seconds_per_frame",
            "Running estimate of the model step's seconds per stream-frame",
            registry=r,
        )
        self.engine_step_fixed = Gauge(
            "statespeak_engine_step_seconds_fixed",
            "Running estimate of a model step's seconds whatever it carries (launches, copies, the sync)",
            registry=r,
        )
        self.engine_phase = Counter(
            "statespeak_engine_phase_seconds",
            "Seconds the engine thread spent per phase of its ticks and on its messages (scheduler.PhaseTimes)",
            ["phase"],
            registry=r,
        )
        self._phase_counters: dict[str, Counter] = {}
        self.engine_per_chunk = Gauge(
            "statespeak_engine_seconds_per_chunk",
            "Running estimate of the engine thread's seconds per chunk served besides its frames "
            "(its share of the step; planner, events, I/O)",
            registry=r,
        )

    def engine_phases(self, seconds: dict[str, float]) -> None:
        """Add one tick's seconds per phase (`scheduler.PhaseTimes`); the labelled counters are looked up
        once, not on every tick."""
        for phase, value in seconds.items():
            if value > 0:
                counter = self._phase_counters.get(phase)
                if counter is None:
                    counter = self._phase_counters[phase] = self.engine_phase.labels(phase=phase)
                counter.inc(value)

    def bind_active(self, fn) -> None:
        """Where the active-stream count comes from (the scheduler's slot pool)."""
        self._active_fn = fn

    def bind_task_active(self, fn: Callable[[], int] | None) -> None:
        """Where the periodic EMF line's ActiveStreams comes from when several engine processes serve one task
        (STATESPEAK_ENGINES): the task's total in one engine, None (left out) in the others, so the scaling
        policy's per-task average stays the task's count. Prometheus keeps each engine's own count."""
        self._task_active_fn = fn

    # Recording ----------------------------------------------------------------------------------
    def stream_rejected(self, reason: str) -> None:
        self.rejected.labels(reason=reason).inc()
        with self._lock:
            self._rejected_since += 1

    def stream_finished(
        self, *, outcome: str, ttfb_ms: float | None, rtf: float | None, audio_s: float, error_kind: str = ""
    ) -> None:
        """outcome: completed, cancelled or error."""
        self.completed.labels(outcome=outcome).inc()
        self.audio_seconds.inc(audio_s)
        values: dict[str, tuple[float, str]] = {METRIC_AUDIO_SECONDS: (audio_s, "Seconds")}
        if ttfb_ms is not None:
            self.ttfb.observe(ttfb_ms)
            values[METRIC_TIME_TO_FIRST_AUDIO] = (ttfb_ms, "Milliseconds")
        if rtf is not None:
            self.rtf.observe(rtf)
            values[METRIC_REAL_TIME_FACTOR] = (rtf, "None")
        if outcome == "error":
            self.errors.labels(kind=error_kind or "internal").inc()
            with self._lock:
                self._errors_since += 1
        elif outcome == "completed":
            values[METRIC_STREAMS_COMPLETED] = (1, "Count")
        self.emit(values)

    def device_unavailable(self, reason: str) -> None:
        """The requested device cannot serve: Prometheus gauge now, EMF now and in every periodic line."""
        self.device_gauge.labels(reason=reason).set(1)
        self._device_unavailable = True
        self.emit({METRIC_DEVICE_UNAVAILABLE: (1.0, "Count")})

    # EMF ----------------------------------------------------------------------------------------
    def emit(self, values: dict[str, tuple[float, str]]) -> None:
        """One EMF line: {metric: (value, unit)} under the shared namespace, dimensions Service and Kit."""
        doc = {
            "_aws": {
                "Timestamp": int(time.time() * 1000),
                "CloudWatchMetrics": [
                    {
                        "Namespace": METRICS_NAMESPACE,
                        "Dimensions": [list(METRIC_DIMENSIONS)],
                        "Metrics": [{"Name": name, "Unit": unit} for name, (_, unit) in values.items()],
                    }
                ],
            },
            **metric_dimensions(self.deployment, self.kit),
        }
        doc.update({name: value for name, (value, _) in values.items()})
        line = json.dumps(doc, separators=(",", ":"))
        out = self._emf_out if self._emf_out is not None else sys.stdout
        with self._lock:
            out.write(line + "\n")
            out.flush()

    def emit_periodic(self) -> None:
        with self._lock:
            rejected, self._rejected_since = self._rejected_since, 0
            errors, self._errors_since = self._errors_since, 0
        values = {
            METRIC_REJECTED_STREAMS: (float(rejected), "Count"),
            METRIC_STREAM_ERRORS: (float(errors), "Count"),
        }
        if self._task_active_fn is not None:
            values = {METRIC_ACTIVE_STREAMS: (float(self._task_active_fn()), "Count"), **values}
        if self._device_unavailable:
            values[METRIC_DEVICE_UNAVAILABLE] = (1.0, "Count")
        self.emit(values)

    def prometheus_text(self) -> bytes:
        return generate_latest(self.registry)
