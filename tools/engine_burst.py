"""The engine alone under a closed-loop burst: N streams open in the same instant and are ticked to the end.

    python tools/engine_burst.py --streams 64 [--cpu-clock] [--repo PATH] [--model-dir DIR]

No sockets, no API workers: the scheduler (`model_server.scheduler.Engine`) and the runtime on this
process's one torch thread, fed what an API worker sends (sentences already split and phonemized, the
bench's text mix), with a client that reads every chunk at once. Per stream it records when each chunk
came and replays that through the bench's 100 ms jitter buffer (`bench.playback`), then prints one
line: TTFA p50/p99 from the open, streams with stalls, stalls, total stall time, ticks and the engine's
time for the whole burst.

`--count-ops` also counts the torch calls the engine thread makes per stream-chunk outside the model's own
forward (decoder and vocoder), by where they happen: `encode` (the batched phone encoder and its inputs),
`step` (the state slots, inputs and audio of a model step) and `engine` (the scheduler and planner). On a
GPU host each is a dispatch of a few microseconds, most a kernel launch, which is why they bound the
engine's chunks per second there while this CPU is bound by the model (docs/benchmarks.md). The count
slows the run: read the counts, not the timings, of such a run.

`--cpu-clock` runs the scheduler (and the recording) on this process's CPU time instead of wall time:
on a shared, loaded machine the time other work takes from the engine then does not count, as if it had
a quiet core of its own. Use it to compare two versions of the engine on a busy machine; it says nothing
about contention itself. `--repo` runs another checkout's engine (A/B against older code) with this
script.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
import types
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python tools/engine_burst.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--streams", type=int, default=64, help="streams opened together (default 64)")
    p.add_argument(
        "--cpu-clock", action="store_true", help="the scheduler's clock is this process's CPU time"
    )
    p.add_argument(
        "--count-ops", action="store_true", help="count torch calls per chunk outside the model's forward"
    )
    p.add_argument("--repo", type=Path, help="the checkout whose engine runs (default: this one)")
    p.add_argument("--model-dir", help="model directory (default: the bundled weights)")
    p.add_argument("--jitter-ms", type=float, default=100.0, help="client jitter buffer (default 100)")
    p.add_argument("--seed", type=int, default=0, help="text mix seed")
    return p


def run(args: argparse.Namespace) -> dict:
    """The burst, with torch's thread count and grad mode set for it and given back after (a caller in the
    same process, such as a test session, keeps its own)."""
    if args.streams < 1:
        raise SystemExit("--streams must be >= 1")
    import torch

    threads, grad = torch.get_num_threads(), torch.is_grad_enabled()
    torch.set_num_threads(1)  # the engine's CPU plan on 2 cores with one API worker
    torch.set_grad_enabled(False)
    try:
        return _burst(args)
    finally:
        torch.set_num_threads(threads)
        torch.set_grad_enabled(grad)


def _burst(args: argparse.Namespace) -> dict:
    repo = (args.repo or Path(__file__).resolve().parents[1]).resolve()
    sys.path.insert(0, str(repo))
    import model_server.scheduler as sched
    from model_server.bench.playback import simulate_playback
    from model_server.bench.texts import TextMix
    from model_server.model.runtime import SpeechRuntime
    from model_server.model.text import SentenceText, split_sentences

    clock = time
    if args.cpu_clock:
        clock = types.SimpleNamespace(monotonic=time.process_time, perf_counter=time.process_time)
        sched.time = clock  # the scheduler's ahead-of-real-time and step-budget clocks
    rt = SpeechRuntime.load(args.model_dir, device="cpu")
    arrivals: dict = {}
    opened: dict = {}
    ended: dict = {}

    def emit(stream, ev) -> None:
        if ev.audio is not None:
            arrivals.setdefault(stream.key, []).append(
                (clock.monotonic() - opened[stream.key], len(ev.audio) / rt.sample_rate)
            )
            stream.consumed(len(ev.audio))
        if ev.kind in ("done", "error", "cancelled"):
            ended[stream.key] = ev.kind

    engine = sched.Engine(rt, max(args.streams, 2), emit=emit)
    step, steps = rt.step, [0]

    def counted_step(*a, **kw):  # steps per tick: the chunk lengths a tick ran apart
        steps[0] += 1
        return step(*a, **kw)

    rt.step = counted_step
    engine.accepting = True
    voice = next(iter(rt.voices))
    language = rt.voices[voice].language
    text = SentenceText(rt.catalog.symbols)
    mix = TextMix(args.seed)

    def burst(n: int, tag: str) -> tuple[int, float]:
        arrivals.clear(), opened.clear(), ended.clear()
        for i in range(n):  # what the API workers did before: split and phonemize (not the engine's time)
            sentences = [text.sentence(s, language) for s in split_sentences(mix.next().text, final=True)[0]]
            stream = engine.open_stream((tag, i), voice, language, 1.0)
            opened[(tag, i)] = clock.monotonic()
            for sentence in sentences:
                stream.sentence(*sentence)
            stream.finish()
        start, ticks, steps[0] = clock.monotonic(), 0, 0
        while len(ended) < n:
            engine.tick()
            ticks += 1
        return ticks, clock.monotonic() - start

    burst(2, "warm-up")
    counter = _TorchCalls(rt) if args.count_ops else None
    with counter or contextlib.nullcontext():
        ticks, seconds = burst(args.streams, "burst")
    chunks = sum(len(a) for a in arrivals.values())
    plays = [simulate_playback(a, args.jitter_ms / 1000.0) for a in arrivals.values()]
    ttfa = sorted(a[0][0] * 1000.0 for a in arrivals.values())

    def pct(p: float) -> float:
        return ttfa[min(len(ttfa) - 1, int(p * len(ttfa)))]

    return {
        "streams": args.streams,
        "failed": sum(kind != "done" for kind in ended.values()),
        "clock": "cpu" if args.cpu_clock else "wall",
        "seconds": seconds,
        "ticks": ticks,
        "ttfa_p50_ms": pct(0.5),
        "ttfa_p99_ms": pct(0.99),
        "streams_with_stalls": sum(p.stalls > 0 for p in plays),
        "stalls": sum(p.stalls for p in plays),
        "stall_ms": sum(p.stall_s for p in plays) * 1000.0,
        "audio_s": sum(p.audio_s for p in plays),
        "chunks": chunks,
        "steps": steps[0],
        # the scheduler's own account (`engine.cost.TickCost`; None for a checkout older than it)
        "us_per_chunk": cost.per_chunk * 1e6 if (cost := getattr(engine, "cost", None)) else None,
        "us_per_frame": cost.per_frame * 1e6 if cost else None,
        "ms_per_step": getattr(cost, "per_step", 0.0) * 1e3 if cost else None,  # 0 before the step fit
        "phase_seconds": dict(phases.total) if (phases := getattr(engine, "phases", None)) else None,
        "torch_calls_per_chunk": counter.per_chunk(chunks) if counter else None,
    }


class _TorchCalls:
    """Counts torch function and tensor-method calls while active, by where they happen: inside the model's
    forward (not counted), the runtime's phone encoder (`encode`), the rest of a model step (`step`), and
    everything else on the engine thread (`engine`)."""

    def __init__(self, rt) -> None:
        from torch.overrides import TorchFunctionMode

        self.counts = {"engine": 0, "encode": 0, "step": 0}
        where = ["engine"]
        counts = self.counts

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                if where[-1] != "forward":
                    counts[where[-1]] += 1
                return func(*args, **(kwargs or {}))

        def tagged(owner, name: str, tag: str) -> None:
            inner = getattr(owner, name)

            def call(*a, **kw):
                where.append(tag)
                try:
                    return inner(*a, **kw)
                finally:
                    where.pop()

            setattr(owner, name, call)  # on the instance: the runtime is this burst's own

        tagged(rt, "prepare_batch", "encode")
        tagged(rt, "step", "step")
        tagged(rt.executor, "forward", "forward")
        if getattr(rt.executor, "_graphs", None) is not None:
            tagged(rt.executor._graphs, "forward", "forward")
        self._mode = Mode()

    def __enter__(self):
        self._mode.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._mode.__exit__(*exc)

    def per_chunk(self, chunks: int) -> dict[str, float]:
        per = {k: v / max(chunks, 1) for k, v in self.counts.items()}
        return {**per, "all": sum(per.values())}


def main(argv: list[str] | None = None) -> int:
    r = run(build_parser().parse_args(argv))
    print(
        f"{r['streams']} streams ({r['clock']} clock): {r['seconds']:.1f} s, {r['ticks']} ticks, "
        f"{r['audio_s']:.0f} audio s; TTFA p50 {r['ttfa_p50_ms']:.0f} p99 {r['ttfa_p99_ms']:.0f} ms; "
        f"streams with stalls {r['streams_with_stalls']}, stalls {r['stalls']}, stall time {r['stall_ms']:.0f} ms"
        + (
            f"; {r['chunks']} chunks in {r['steps']} steps; cost: step {r['ms_per_step']:.2f} ms fixed + "
            f"{r['us_per_frame']:.1f} us per stream-frame, {r['us_per_chunk']:.0f} us per chunk besides its frames"
            if r["us_per_chunk"] is not None
            else f"; {r['chunks']} chunks in {r['steps']} steps"
        )
        + (f"; {r['failed']} FAILED" if r["failed"] else "")
    )
    if r["torch_calls_per_chunk"]:
        calls = r["torch_calls_per_chunk"]
        print(
            "torch calls per chunk outside the model's forward: "
            + ", ".join(f"{k} {v:.1f}" for k, v in calls.items())
        )
    if r["phase_seconds"]:  # where the engine thread's time went (scheduler.PhaseTimes)
        total = sum(r["phase_seconds"].values())
        top = sorted(r["phase_seconds"].items(), key=lambda kv: -kv[1])
        print("engine time by phase: " + ", ".join(f"{k} {v / total:.0%}" for k, v in top if v > 0))
    return 1 if r["failed"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
