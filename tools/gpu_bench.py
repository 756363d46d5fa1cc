"""GPU benchmark of the Statespeak model and server: one run on an H100/H200-class CUDA machine.

    python tools/gpu_bench.py [--out gpu-bench.json] [--max-seconds 450] [--clients 8] [--quick]

Run it from the repository root inside the CUDA image (torch with CUDA, mamba-ssm; the server's own
requirements, plus httpx, tqdm and matplotlib for the load bench), or through tools/gpu_smoke.sh, which
prepares that environment. It prints one JSON document on stdout (progress goes to stderr) with:

1. `hardware`: nvidia-smi's view of the GPUs, torch.cuda's device name and properties, library versions,
   the date.
2. `kernels`: the Mamba-2 path CUDA tensors take in this process (`triton`: mamba-ssm's Triton kernels,
   `torch`: the fallback) with the reason when it is the fallback, and where mamba_ssm was imported from.
3. `parity`: the pure torch Mamba-2 path (model_server/ssm/mamba2.py) against the mamba-ssm kernels
   (model_server/ssm/cuda.py) on the shipped weights: each mixer's sequence path and one-step path, and
   the whole frame decoder; and the whole step (decoder and vocoder) replayed from CUDA graphs against the
   same step run eagerly; max absolute and relative error against a stated tolerance.
4. `decode`: time of one batched engine step (`SpeechRuntime.step`: decoder, vocoder, copy to host) per
   batch bucket (1 to 4096 streams) and chunk length, with and without CUDA graphs, and how many times
   real time that is; plotted into `<out stem>-decode.png`.
5. `server`: the real server (`python -m model_server serve`, MAX_STREAMS up to 4096) under the load
   bench (`python -m model_server.bench`'s levels, run by `--clients` client processes): a ramp 1, 2,
   4, ... up to `--ramp-max` concurrent WebSocket streams for closed-loop and for staggered starts,
   each stopping at its first level past the target, then Poisson arrivals at `--rates`. Per level:
   client TTFA p50/p99, stalls behind the jitter buffer, audio seconds per wall second, server CPU,
   whether a client process was the limit. Capacity is reported per arrival model (closed, staggered,
   Poisson). `startup`: the server's own start-up log (kernel path, CUDA graphs captured, warm-up and
   load seconds). Every stream's record goes to `<out stem>-server.json`, the plot to
   `<out stem>-server.png`.

The whole run is bounded by --max-seconds (default 450 s, under 8 minutes); a section that runs out of
its share of time says so in the JSON instead of running on. Without CUDA it stops at once with exit
code 2 and says why. Exit code 1: a parity check failed, the kernels were missing (the torch fallback
ran, here or in the server), or a section failed; the JSON is printed either way.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a script from anywhere: the model_server package is the repo's
    sys.path.insert(0, str(REPO_ROOT))

from model_server.config import ENV_ENGINES, ENV_MAX_CHUNK_FRAMES, MAX_ENGINES  # noqa: E402  (torch-free)
from model_server.contract import MAX_STREAMS_LIMIT  # noqa: E402  (torch-free: the no-CUDA exit stays fast)

EXIT_NO_CUDA = 2
EXIT_FAILED = 1
# Relative error = max |kernel - torch| / max |torch|. fp32 with TF32 tensor-core dots inside the Triton
# kernels: a few 1e-3 per mixer, compounding over the decoder's layers.
MIXER_TOLERANCE = 5e-3
DECODER_TOLERANCE = 2e-2
BATCHES = (1, 8, 64, 256, 1024, 4096)  # graph buckets, up to the moonshot of 5,000 streams
QUICK_BATCHES = (1, 8)
RAMP_MAX = 4096
ARRIVALS = ("closed", "staggered", "poisson")
# calls per second; a few seconds each: tens to thousands in flight
RATES = (50.0, 100.0, 200.0, 400.0, 800.0)
QUICK_RATES = (1.0, 2.0)
ARRIVAL_SECONDS = 8.0
DEFAULT_CLIENTS = 8  # load-bench client processes: one event loop holds a few hundred streams
NVIDIA_SMI_FIELDS = ("name", "driver_version", "memory.total", "compute_cap", "power.limit", "clocks.max.sm")


def log(msg: str) -> None:
    print(f"[gpu_bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class NoCudaError(RuntimeError):
    """No usable CUDA device: the script cannot measure anything here."""


class Budget:
    """Wall-clock budget of the run; sections take a capped share of what is left."""

    def __init__(self, seconds: float, clock=time.monotonic):
        self._clock = clock
        self.deadline = clock() + seconds

    def left(self) -> float:
        return max(0.0, self.deadline - self._clock())

    def share(self, cap: float, reserve: float = 0.0) -> float:
        """Seconds a section may use: at most `cap`, leaving `reserve` for the sections after it."""
        return max(0.0, min(cap, self.left() - reserve))


# -- pure helpers (tested on CPU) --------------------------------------------------------------------------
def parse_nvidia_smi(csv_text: str, fields: tuple[str, ...] = NVIDIA_SMI_FIELDS) -> list[dict[str, str]]:
    """`nvidia-smi --query-gpu=... --format=csv,noheader` output -> one dict per GPU."""
    gpus = []
    for line in csv_text.strip().splitlines():
        if not line.strip():
            continue
        values = [v.strip() for v in line.split(",")]
        if len(values) != len(fields):
            raise ValueError(f"nvidia-smi line has {len(values)} fields, expected {len(fields)}: {line!r}")
        gpus.append(dict(zip(fields, values, strict=True)))
    return gpus


def error_stats(reference, candidate) -> dict[str, float]:
    """Max absolute and relative (to the reference's largest magnitude) difference of two tensors."""
    ref = reference.detach().double()
    diff = (candidate.detach().double() - ref).abs()
    scale = float(ref.abs().max()) if ref.numel() else 0.0
    max_abs = float(diff.max()) if diff.numel() else 0.0
    return {"max_abs": max_abs, "max_rel": max_abs / scale if scale > 0 else max_abs, "ref_scale": scale}


def times_real_time(step_ms: float, frames: int, hop: int, sample_rate: int) -> float:
    """How many times faster than real time one step runs: audio it produces per stream / its time."""
    if step_ms <= 0:
        raise ValueError(f"step_ms must be > 0, got {step_ms}")
    return (frames * hop / sample_rate * 1000.0) / step_ms


def max_realtime_batch(rows: list[dict[str, Any]], frames: int, graphs: bool) -> int | None:
    """Largest batch whose step keeps up with real time (x_real_time >= 1) for one chunk length."""
    ok = [
        r["batch"]
        for r in rows
        if r["frames"] == frames and r["cuda_graphs"] == graphs and r["x_real_time"] >= 1
    ]
    return max(ok) if ok else None


def preflight() -> Any:
    """Import torch and check for a CUDA device; raise NoCudaError with a reason otherwise."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) == "":
        raise NoCudaError("CUDA_VISIBLE_DEVICES is empty: no GPU is visible to this process")
    try:
        import torch
    except ImportError as exc:
        raise NoCudaError(f"torch is not importable ({exc}); run inside the CUDA image") from None
    if not torch.cuda.is_available():
        raise NoCudaError(
            f"torch {torch.__version__} sees no CUDA device (torch.version.cuda={torch.version.cuda}); this "
            "script measures GPUs: run it on an H100/H200-class machine with the CUDA image"
        )
    return torch


# -- sections ---------------------------------------------------------------------------------------------
def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _module_version(module: str) -> str | None:
    """__version__ of an importable module (the image's Triton-only mamba_ssm has no dist-info)."""
    try:
        return getattr(importlib.import_module(module), "__version__", None)
    except ImportError:
        return None


def kernel_report() -> dict[str, Any]:
    """The Mamba-2 path CUDA tensors take in this process, and whether that is the torch fallback."""
    from model_server.ssm import cuda as cuda_path

    _set_kernels(True)
    path = cuda_path.kernel_path()
    info: dict[str, Any] = {
        "path": path,
        "fallback": path == "torch",
        "reason": cuda_path.unavailable_reason() or None,
    }
    try:
        import mamba_ssm

        info["mamba_ssm"] = {"version": getattr(mamba_ssm, "__version__", None), "file": mamba_ssm.__file__}
    except ImportError as exc:
        info["mamba_ssm"] = f"not importable: {exc}"
    return info


def server_startup(log_path: Path) -> dict[str, Any]:
    """What the server's JSON log says about its start-up: the warm-up (kernel path, CUDA graphs, seconds)
    and readiness (load seconds). Empty values when the lines are missing."""
    warm: dict[str, Any] = {}
    ready: dict[str, Any] = {}
    for line in log_path.read_text(errors="replace").splitlines():
        if not line.startswith("{"):
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("msg") == "runtime warmed up":
            warm = entry
        elif entry.get("msg") == "ready":
            ready = entry
    return {
        "kernel_path": warm.get("kernel_path"),
        "kernels_unavailable": warm.get("kernels_unavailable"),
        "cuda_graphs": warm.get("cuda_graphs"),
        "warmup_s": warm.get("warmup_s"),
        "load_s": ready.get("load_s"),
    }


def hardware(torch) -> dict[str, Any]:
    info: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "host": platform.node(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "mamba_ssm": _version("mamba-ssm") or _module_version("mamba_ssm"),
        "causal_conv1d": _version("causal-conv1d") or _version("causal_conv1d"),
        "triton": _version("triton"),
        "device_name": torch.cuda.get_device_name(0),
        "device_count": torch.cuda.device_count(),
    }
    props = torch.cuda.get_device_properties(0)
    info["device"] = {
        "total_memory_gib": round(props.total_memory / 2**30, 1),
        "multiprocessors": props.multi_processor_count,
        "capability": f"{props.major}.{props.minor}",
    }
    smi = shutil.which("nvidia-smi")
    if smi is None:
        info["nvidia_smi"] = "nvidia-smi not found"
    else:
        query = ["--query-gpu=" + ",".join(NVIDIA_SMI_FIELDS), "--format=csv,noheader"]
        try:
            out = subprocess.run([smi, *query], capture_output=True, text=True, timeout=20, check=True).stdout
            info["nvidia_smi"] = parse_nvidia_smi(out)
        except (subprocess.SubprocessError, ValueError) as exc:
            info["nvidia_smi"] = f"nvidia-smi failed: {exc}"
    return info


def _set_kernels(enabled: bool) -> None:
    """Switch model_server/ssm/cuda.py between mamba-ssm kernels and the torch path (read once, cached)."""
    from model_server.ssm import cuda as cuda_path

    os.environ[cuda_path.DISABLE_ENV] = "0" if enabled else "1"
    cuda_path.reset()  # the switch is read on first use; forget that reading


def parity(torch, model_dir: str | None, seconds: float) -> dict[str, Any]:
    from model_server.model.runtime import SpeechRuntime
    from model_server.ssm import cuda as cuda_path

    _set_kernels(True)
    if not cuda_path.available():
        return {
            "ok": False,
            "kernels_available": False,
            "reason": "mamba_ssm kernels are not importable: pip install mamba-ssm (the CUDA image has it)",
        }
    start = time.monotonic()
    rt = SpeechRuntime.load(model_dir, device="cuda", use_cuda_graphs=False)
    gen = torch.Generator(device="cuda").manual_seed(0)
    checks: list[dict[str, Any]] = []

    def record(name: str, ref, got, tol: float) -> None:
        stats = error_stats(ref, got)
        checks.append({"check": name, **stats, "tolerance": tol, "ok": stats["max_rel"] <= tol})

    with torch.inference_mode():
        for i, layer in enumerate(rt.model.decoder.layers):
            if time.monotonic() - start > seconds:
                checks.append({"check": f"layer{i}", "skipped": "time budget"})
                continue
            mixer = layer.mixer
            b, length = 4, 200  # several SSD chunks (chunk_size 64) and a ragged tail
            u = torch.randn(b, length, mixer.d_model, device="cuda", generator=gen)
            conv, ssm = mixer.allocate_state(b, device="cuda")
            conv.normal_(generator=gen)
            ssm.normal_(0.0, 0.1, generator=gen)
            y_ref, (c_ref, s_ref) = mixer.scan(u, conv, ssm)
            y_k, (c_k, s_k) = cuda_path.forward(mixer, u, conv, ssm)
            record(f"layer{i}.scan.output", y_ref, y_k, MIXER_TOLERANCE)
            record(f"layer{i}.scan.ssm_state", s_ref, s_k, MIXER_TOLERANCE)
            record(f"layer{i}.scan.conv_state", c_ref, c_k, MIXER_TOLERANCE)
            y1_ref, (_, s1_ref) = mixer.step(u[:, :1], conv, ssm)
            y1_k, (_, s1_k) = cuda_path.forward(mixer, u[:, :1], conv, ssm)
            record(f"layer{i}.step.output", y1_ref, y1_k, MIXER_TOLERANCE)
            record(f"layer{i}.step.ssm_state", s1_ref, s1_k, MIXER_TOLERANCE)
            # Streaming on the kernels: 200 frames as chunks of 8 carrying the state = one call over 200.
            c_s, s_s, parts = conv, ssm, []
            for pos in range(0, length, 8):
                y_p, (c_s, s_s) = cuda_path.forward(mixer, u[:, pos : pos + 8], c_s, s_s)
                parts.append(y_p)
            record(f"layer{i}.kernel_chunks8_vs_whole", y_k, torch.cat(parts, dim=1), MIXER_TOLERANCE)

        # The whole decoder, as the engine calls it, kernels against torch.
        cond = torch.randn(8, 96, rt.config.cond_dim, device="cuda", generator=gen)
        states = [layer.mixer.allocate_state(8, device="cuda") for layer in rt.model.decoder.layers]
        _set_kernels(False)
        feats_ref, _ = rt.decode(cond, states)
        _set_kernels(True)
        feats_k, _ = rt.decode(cond, states)
        record("decoder.features", feats_ref, feats_k, DECODER_TOLERANCE)

    # The whole step (decoder and vocoder) from CUDA graphs against the same step run eagerly: 3 streams
    # padded to the bucket of 4, 10 frames split into the captured 8 + 2, state carried over four steps.
    # The eager reference runs the same 8 + 2 calls: the graphs must replay those kernels, not merely land
    # near a 10-frame call. Why: a 10-frame call differs from 8 + 2 by the kernels' TF32 rounding (about
    # 1e-4 of the features, which the per-layer kernel_chunks8_vs_whole checks bound), and the harmonic
    # vocoder turns F0 that far off into a phase drift of order one in the samples (an H200 run: 6.5 % of
    # the peak, with no bug). Compared sample by sample, only the same calls can tell a replay bug apart.
    graphed = SpeechRuntime(rt.ckpt, "cuda", use_cuda_graphs=True)
    pool_g, pool_e = graphed.new_pool(4), rt.new_pool(4)
    steps_g, steps_e = [], []
    for _ in range(4):
        cond = torch.randn(3, 10, rt.config.cond_dim, device="cuda", generator=gen)
        steps_g.append(graphed.step(pool_g, [0, 1, 2], cond))
        steps_e.extend(eager_as_graphed(rt, pool_e, [0, 1, 2], cond))
    record("step.cuda_graph_vs_eager.audio", torch.cat(steps_e, 1), torch.cat(steps_g, 1), DECODER_TOLERANCE)
    graphs = graphed._graphs
    # A capture that fell back to eager would pass the audio check: it fails this one (8 + 2 frames: 2 graphs).
    checks.append({
        "check": "step.cuda_graphs_captured",
        "graphs_captured": len(graphs.graphs) if graphs is not None else 0,
        "capture_failed": dict((f"{b}x{n}", e) for (b, n), e in graphs.failed.items()) if graphs else {},
        "ok": graphs is not None and len(graphs.graphs) == 2 and not graphs.failed,
    })  # fmt: skip
    done = [c for c in checks if "ok" in c]
    return {
        "ok": bool(done) and all(c["ok"] for c in done),
        "kernels_available": True,
        "checks": checks,
        "seconds": round(time.monotonic() - start, 1),
    }


def eager_as_graphed(rt, pool, slots: list[int], cond) -> list:
    """An eager runtime's audio for `cond` [B, L, D], stepped in the chunks a graphed runtime splits L
    into (`executor.graph_chunks`: 10 frames -> 8 + 2), state carried from one to the next."""
    from model_server.model.executor import graph_chunks

    out, pos = [], 0
    for n in graph_chunks(cond.shape[1]):
        out.append(rt.step(pool, slots, cond[:, pos : pos + n]))
        pos += n
    return out


def decode_timings(
    torch, model_dir: str | None, seconds: float, batches, lengths, iters: int, device: str = "cuda"
) -> dict[str, Any]:
    """Step time per (CUDA graphs on/off, chunk frames, batch). `device` is "cuda" in a run; the CPU
    tests use "cpu" (graphs then off: the runtime captures them on CUDA only) to exercise this code."""
    from model_server.model.runtime import SpeechRuntime

    def sync() -> None:
        if device == "cuda":
            torch.cuda.synchronize()

    start = time.monotonic()
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    for graphs in (False, True) if device == "cuda" else (False,):
        rt = SpeechRuntime.load(model_dir, device=device, use_cuda_graphs=graphs)
        pool = rt.new_pool(max(batches))
        for frames in lengths:
            for b in batches:
                if time.monotonic() - start > seconds:
                    skipped.append(f"graphs={graphs} frames={frames} batch={b}")
                    continue
                slots = list(range(b))
                cond = torch.randn(b, frames, rt.config.cond_dim)
                rt.reset_slots(pool, slots)
                for _ in range(3):  # warm-up: graph capture, Triton autotuning, allocator
                    rt.step(pool, slots, cond)
                sync()
                t0 = time.perf_counter()
                for _ in range(iters):
                    rt.step(pool, slots, cond)  # returns a host tensor: includes the copy back
                sync()
                step_ms = (time.perf_counter() - t0) * 1000.0 / iters
                xrt = times_real_time(step_ms, frames, rt.hop, rt.sample_rate)
                rows.append(
                    {
                        "cuda_graphs": graphs,
                        "frames": frames,
                        "batch": b,
                        "step_ms": round(step_ms, 3),
                        "x_real_time": round(xrt, 3),
                    }
                )
                log(
                    f"decode graphs={graphs} frames={frames} batch={b}: {step_ms:.2f} ms/step, {xrt:.1f}x real time"
                )
        del rt, pool
        if device == "cuda":
            torch.cuda.empty_cache()
    summary = {
        f"max_realtime_batch_frames{f}_{'graphs' if g else 'eager'}": max_realtime_batch(rows, f, g)
        for f in lengths
        for g in (False, True)
    }
    return {
        "rows": rows,
        "summary": summary,
        "skipped": skipped,
        "iters": iters,
        "seconds": round(time.monotonic() - start, 1),
        "note": "one SpeechRuntime.step for `batch` streams of `frames` frames (12.5 ms each): decoder, "
        "vocoder and the copy of the audio to host memory; no frontend, no HTTP",
    }


def server_ramp(
    seconds: float,
    ttfa_target_ms: float,
    jitter_ms: float,
    quick: bool,
    workdir: Path,
    device: str = "cuda",
    ramp_max: int | None = None,
    clients: int = 1,
    arrivals: tuple[str, ...] = ARRIVALS,
    rates: tuple[float, ...] | None = None,
    arrival_seconds: float | None = None,
    prefix: str = "gpu-bench",
    extra_env: dict[str, str] | None = None,
    records_dir: Path | None = None,
    gpu_read=None,
) -> dict[str, Any]:
    """The real server under the load bench (`python -m model_server.bench`'s own levels, client
    processes and report): a ramp 1, 2, 4, ... up to `ramp_max` concurrent WebSocket streams for each of
    the closed and staggered arrival models, each stopping at its first level past the target, then
    Poisson arrivals at `rates`. `clients` client processes share every level, so the load generator is
    not the limit at thousands of streams (a level where one was saturated is flagged and never passes).
    Writes `<prefix>-server.png` into `workdir`, and `<prefix>-server.json` (every stream's record) and
    `<prefix>-server.log` into `records_dir` (default `workdir`). `extra_env` goes to the server (a
    variant's settings). `device`/`ramp_max` let the CPU tests run this code small, `gpu_read` give them a GPU
    utilization reading (`GpuBusy`)."""
    from model_server.bench import cli as bench_cli
    from model_server.bench import engine_account, report
    from model_server.bench.local import LocalServer
    from model_server.bench.runner import ramp_levels

    start = time.monotonic()
    top = ramp_max or (8 if quick else RAMP_MAX)
    rates = rates or (QUICK_RATES if quick else RATES)
    arrival_seconds = arrival_seconds or (4.0 if quick else ARRIVAL_SECONDS)
    records_dir = records_dir or workdir
    records_dir.mkdir(parents=True, exist_ok=True)
    log_path = records_dir / f"{prefix}-server.log"
    with LocalServer(
        log_path,
        max_streams=min(MAX_STREAMS_LIMIT, 1 << (top - 1).bit_length()),  # a graph bucket: no 2x capture
        ready_timeout_s=max(30.0, min(300.0, seconds * 0.6)),
        extra_env={"STATESPEAK_DEVICE": device, **(extra_env or {})},
    ) as server:
        log(f"server ready at {server.url} after {time.monotonic() - start:.0f} s")
        left = seconds - (time.monotonic() - start)
        argv = bench_args(
            server.url,
            top,
            clients,
            arrivals,
            rates,
            arrival_seconds,
            left,
            jitter_ms,
            ttfa_target_ms,
            workdir,
        )
        args = bench_cli.build_parser().parse_args(argv)
        levels = ramp_levels(args.ramp)
        engine_before, ramp_start = engine_account.scrape(server.url), time.monotonic()
        with GpuBusy(read=gpu_read) as gpu:
            gpu_before = gpu.busy_seconds()
            results = bench_cli.run_levels(
                args, server.url, levels, args.rates, server.cpu_seconds, gpu.busy_seconds
            )
            gpu_after = gpu.busy_seconds()
        ramp_s = time.monotonic() - ramp_start
        engine = engine_account.level_account(  # the whole ramp (each level's own: levels[i]["engine"])
            engine_before,
            engine_account.scrape(server.url),
            ramp_s,
            sum(r.chunks for level in results for r in level.records),
        )
        gpu_busy = (gpu_after - gpu_before) / ramp_s if gpu_before is not None and ramp_s > 0 else None
    meta = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python -m model_server.bench " + " ".join(argv),
        "target_label": f"the server on 127.0.0.1 ({device})",
        "protocol": "WebSocket",
        "jitter_ms": jitter_ms,
        "ttfa_target_ms": ttfa_target_ms,
        "streams_per_level": args.streams_per_level,
        "arrivals": list(arrivals),
        "stagger_seconds": args.stagger_seconds,
        "rates": list(rates) if "poisson" in arrivals else [],
        "arrival_seconds": arrival_seconds,
        "clients": clients,
        "client_busy_limit": args.client_busy_limit,
        "max_seconds": left,
        "sample_rate": args.sample_rate,
        "voice": getattr(args, "resolved_voice", None),
    }
    doc = bench_cli.bench_document(meta, results, ttfa_target_ms)
    report.write_json(records_dir / f"{prefix}-server.json", doc)
    plot = _plot(
        lambda path: report.plot(path, doc["levels"], doc["streams"], meta), workdir / f"{prefix}-server.png"
    )
    for s in doc["levels"]:
        t = s["client_ttfa_ms"]
        log(
            f"server {s['label']}: ok {s['ok']} rejected {s['rejected']} errors {s['errors']} cut {s['cut']} "
            f"TTFA p50 {t['p50'] or 0:.0f} p99 {t['p99'] or 0:.0f} ms stalls {s['stalls']} audio/s {s['audio_per_wall_s']:.0f}"
            + (" CLIENT-LIMITED" if s["client_limited"] else "")
            + (f" engine busy {s['engine']['busy']:.2f}" if s.get("engine") else "")
            + (f" GPU busy {s['gpu_busy']:.2f}" if s.get("gpu_busy") is not None else "")
        )
    keys = (
        "label", "arrivals", "concurrency", "rate_per_s", "in_flight_mean", "in_flight_peak", "streams", "ok",
        "rejected", "errors", "cut", "client_ttfa_ms", "server_ttfa_ms", "stalls", "streams_with_stalls",
        "audio_per_wall_s", "server_cpu_ms_per_audio_s", "clients", "client_loop_busy_max", "client_limited",
        "meets_target", "first_errors", "engine", "gpu_busy",
    )  # fmt: skip
    return {
        "startup": server_startup(log_path),
        "engine": engine,
        "gpu_busy": gpu_busy,  # the share of the ramp's wall time the GPU ran a kernel (NVML; None without)
        "levels": [{k: s.get(k) for k in keys} for s in doc["levels"]],
        # Capacity, reported per arrival model (a staggered level never counts as a closed-loop one).
        "max_realtime_streams": doc["streams_per_replica"],
        "max_realtime_streams_staggered": doc["staggered_streams_per_replica"],
        "open_loop_capacity": doc["open_loop_capacity"],
        "client_limited_levels": doc["client_limited_levels"],
        "clients": clients,
        "ttfa_target_ms": ttfa_target_ms,
        "jitter_ms": jitter_ms,
        "files": {"records": str(records_dir / f"{prefix}-server.json"), "plot": plot, "log": str(log_path)},
        "server_env": dict(extra_env or {}),
        "seconds": round(time.monotonic() - start, 1),
        "note": "the load bench's WebSocket streams of its text mix, client processes on the same machine; "
        "max_realtime_streams: the highest closed-loop concurrency (all streams start at once) with p99 "
        "client TTFA under the target, no stalls, no failures, no client-limited level; the staggered and "
        "Poisson (open-loop) capacities are reported apart",
    }


class GpuBusy:
    """The GPU's busy seconds as a running total: NVML's utilization (the share of its last sample period in which
    a kernel ran) read every `period_s` in a background thread and integrated over time. `busy_seconds()` is
    None where NVML or a GPU is missing; `read` replaces the NVML reading (0-100) for a test."""

    def __init__(self, period_s: float = 0.1, read=None, start: bool = True) -> None:
        self._read = read or _nvml_utilization()
        self._busy = 0.0
        self._last: float | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if self._read is not None and start:
            self.sample(time.monotonic())
            self._thread = threading.Thread(target=self._run, args=(period_s,), name="gpu-busy", daemon=True)
            self._thread.start()

    def _run(self, period_s: float) -> None:
        while not self._stop.wait(period_s):
            self.sample(time.monotonic())

    def sample(self, now: float) -> None:
        """Add the time since the last sample at the utilization read now."""
        try:
            share = float(self._read()) / 100.0
        except Exception:  # a failed reading counts nothing; the next one resumes
            share = None
        with self._lock:
            if share is not None and self._last is not None:
                self._busy += share * max(0.0, now - self._last)
            self._last = now

    def busy_seconds(self) -> float | None:
        if self._read is None:
            return None
        self.sample(time.monotonic())
        with self._lock:
            return self._busy

    def __enter__(self) -> GpuBusy:
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)


def _nvml_utilization():
    """A callable reading GPU 0's utilization (%) through NVML (nvidia-ml-py), or None without it or a GPU."""
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        pynvml.nvmlDeviceGetUtilizationRates(handle)
    except Exception:
        return None
    return lambda: pynvml.nvmlDeviceGetUtilizationRates(handle).gpu


class ServerVariant(NamedTuple):
    """One server run of the ramp: its section name in the JSON, the server's settings, the suffix of its
    files, where its per-stream records and log go (None: beside the JSON) and the share of the time left
    it leaves to the runs after it."""

    section: str
    env: dict[str, str]
    suffix: str
    records_dir: Path | None
    reserve_fraction: float


def server_variants(chunk_frames: tuple[int, ...], engines: tuple[int, ...] = (1,)) -> list[ServerVariant]:
    """The server runs for every largest-chunk setting and engine count asked for (each chunk setting with
    each engine count): the first is `server` (the JSON's main server section, its records beside the
    JSON), each other is `server_chunk<N>` (`server_chunk<N>_engines<E>` with E > 1), with only its plot
    beside the JSON (the device tool brings back at most 8 files) and its records in a temporary folder.
    Each run but the last leaves the runs after it an equal share of the time."""
    combos = [(frames, count) for frames in chunk_frames for count in engines]
    out = []
    for i, (frames, count) in enumerate(combos):
        rest = len(combos) - i - 1
        tag = f"chunk{frames}" + (f"_engines{count}" if count > 1 else "")
        out.append(
            ServerVariant(
                "server" if i == 0 else f"server_{tag}",
                {ENV_MAX_CHUNK_FRAMES: str(frames), ENV_ENGINES: str(count)},
                "" if i == 0 else "-" + tag.replace("_", "-"),
                None if i == 0 else Path(tempfile.mkdtemp(prefix=f"gpu-bench-{tag}-")),
                rest / (rest + 1),
            )
        )
    return out


def bench_args(
    url: str,
    ramp_max: int,
    clients: int,
    arrivals,
    rates,
    arrival_seconds: float,
    seconds: float,
    jitter_ms: float,
    ttfa_target_ms: float,
    workdir: Path,
) -> list[str]:
    """The load bench's command line for the server section (also what the JSON reports as its command)."""
    return [
        "--target", url,
        "--ramp", str(ramp_max),
        "--arrivals", ",".join(arrivals),
        "--rates", ",".join(f"{r:g}" for r in rates),
        "--arrival-seconds", f"{arrival_seconds:g}",
        "--clients", str(clients),
        "--max-seconds", f"{max(1.0, seconds):.0f}",
        "--jitter-ms", f"{jitter_ms:g}",
        "--ttfa-target-ms", f"{ttfa_target_ms:g}",
        "--out", str(workdir),
        "--no-progress",
    ]  # fmt: skip


def _plot(draw, path: Path) -> str | None:
    """Draw a plot into `path` (its name is returned), or None when matplotlib is not installed here."""
    try:
        draw(path)
    except ImportError as exc:
        log(f"no plot {path.name}: {exc}")
        return None
    return path.name


def plot_decode(decode: dict[str, Any], path: Path) -> None:
    """Step time (left) and times real time (right) against batch size, per chunk length and graph mode."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = decode.get("rows") or []
    fig, (ax_ms, ax_rt) = plt.subplots(1, 2, figsize=(12, 4.5))
    for frames, graphs in sorted({(r["frames"], r["cuda_graphs"]) for r in rows}):
        group = sorted(
            (r for r in rows if r["frames"] == frames and r["cuda_graphs"] == graphs),
            key=lambda r: r["batch"],
        )
        label = f"{frames} frames, {'CUDA graphs' if graphs else 'eager'}"
        xs = [r["batch"] for r in group]
        ax_ms.plot(xs, [r["step_ms"] for r in group], marker="o", label=label)
        ax_rt.plot(xs, [r["x_real_time"] for r in group], marker="o", label=label)
    for ax, ylabel in ((ax_ms, "ms per step"), (ax_rt, "x real time per stream")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("batch (streams per step)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    ax_rt.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    fig.suptitle("SpeechRuntime.step: decoder, vocoder and the copy of the audio to the host")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def summary_lines(result: dict[str, Any]) -> list[str]:
    """The few lines a GPU smoke run is judged by: parity, the kernel path in the benchmark process and in
    the server, whether a fallback ran, start-up and decode headline numbers."""
    parity = result.get("parity", {})
    checks = [c for c in parity.get("checks", []) if "ok" in c]
    decoder = next((c for c in checks if c["check"] == "decoder.features"), None)
    kernels = result.get("kernels", {})
    startup = result.get("server", {}).get("startup", {})
    server_path = startup.get("kernel_path")
    fallback = bool(kernels.get("fallback", True)) or (
        server_path is not None and not server_path.startswith("triton")
    )
    hw = result.get("hardware", {})
    lines = [
        f"device: {hw.get('device_name')} torch {hw.get('torch')} CUDA {hw.get('torch_cuda')} "
        f"triton {hw.get('triton')} mamba_ssm {hw.get('mamba_ssm')}",
        f"parity: {'OK' if parity.get('ok') else 'FAILED'} ({len(checks)} checks"
        + (f", decoder max relative error {decoder['max_rel']:.2e}" if decoder else "")
        + ")"
        + ("" if parity.get("ok") else f" {parity.get('reason') or parity.get('error') or ''}"),
        f"kernel path: benchmark {kernels.get('path')}, server {server_path}"
        + (f" ({kernels['reason']})" if kernels.get("reason") else ""),
        f"fallback: {'YES' if fallback else 'none'}",
        f"server start-up: warm-up {startup.get('warmup_s')} s, {startup.get('cuda_graphs')} CUDA graphs, "
        f"ready after {startup.get('load_s')} s",
    ]
    summary = result.get("decode", {}).get("summary")
    if summary:
        lines.append("decode: " + ", ".join(f"{k}={v}" for k, v in summary.items()))
    for name, server in result.items():
        if name == "server" or name.startswith("server_chunk"):
            lines.extend(_server_lines(name, server))
    return lines


def _server_lines(name: str, server: dict[str, Any]) -> list[str]:
    """A server run's capacities and the engine's cost account, as summary lines (`server:` for the main
    run, `server_chunk64:` for a variant)."""
    lines = []
    if "max_realtime_streams" in server:
        cap = server.get("open_loop_capacity")
        lines.append(
            f"{name}: max real-time streams closed loop {server['max_realtime_streams']}, staggered "
            f"{server.get('max_realtime_streams_staggered')}, Poisson "
            + (
                f"{cap['rate_per_s']:g}/s ({cap['in_flight_peak']} in flight at the peak)"
                if cap
                else "none met"
            )
            + f"; {server.get('clients', 1)} client processes"
            + (
                f", CLIENT-LIMITED at {', '.join(server['client_limited_levels'])}"
                if server.get("client_limited_levels")
                else ""
            )
        )
    engine = server.get("engine") or {}
    prefix = "engine" if name == "server" else name + " engine"
    if "busy" in engine:  # (a JSON from before the per-level account has other keys: not summarized)
        gpu = server.get("gpu_busy")
        lines.append(
            f"{prefix}: busy {engine['busy']:.2f} s per s over the ramp"
            + (f" (the GPU {gpu:.2f})" if gpu is not None else "")
            + ", "
            f"{(engine.get('us_per_chunk') or {}).get('all', 0.0):.0f} us per chunk served; cost model: "
            f"{engine['per_chunk_us']:.0f} us per chunk besides its frames, step {engine['step_fixed_ms']:.2f} ms "
            f"fixed + {engine['step_per_frame_us']:.2f} us per stream-frame; mean batch {engine['mean_batch']}, "
            f"{engine['steps_per_tick'] or 0:.2f} steps per tick"
        )
    phases = engine.get("phase_s") or engine.get("phase_seconds") or {}
    if sum(phases.values()) > 0:
        total = sum(phases.values())
        top = sorted(phases.items(), key=lambda kv: -kv[1])
        lines.append(
            f"{prefix} time by phase: "
            + ", ".join(f"{phase} {seconds / total:.0%}" for phase, seconds in top if seconds > 0)
            + f" of {total:.1f} s"
        )
    by_level = [lvl for lvl in server.get("levels", []) if (lvl.get("engine") or {}).get("busy") is not None]
    if by_level:  # the engine thread's load per level (busy near 1 with streams barely real-time: the limit)
        lines.append(
            f"{prefix} by level: "
            + "; ".join(
                f"{lvl['label']} busy {lvl['engine']['busy']:.2f}, "
                f"{(lvl['engine'].get('us_per_chunk') or {}).get('all', 0.0):.0f} us/chunk, "
                f"{lvl['engine']['steps_per_tick'] or 0:.1f} steps/tick"
                + (f", GPU busy {lvl['gpu_busy']:.2f}" if lvl.get("gpu_busy") is not None else "")
                for lvl in by_level
            )
        )
    return lines


def _csv(cast, allowed: tuple[str, ...] | None = None):
    """An argparse type: comma-separated values, each cast (and checked against `allowed`)."""

    def parse(text: str):
        values = [cast(v.strip()) for v in text.split(",") if v.strip()]
        if not values or (allowed and any(v not in allowed for v in values)):
            raise argparse.ArgumentTypeError(
                f"expected comma-separated {allowed or cast.__name__}, got {text!r}"
            )
        if cast is float and any(v <= 0 for v in values):
            raise argparse.ArgumentTypeError(f"values must be > 0, got {text!r}")
        return tuple(values)

    return parse


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python tools/gpu_bench.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--model-dir", help="model directory (default: the bundled weights)")
    p.add_argument("--max-seconds", type=float, default=450.0, help="bound on the whole run (default 450)")
    p.add_argument("--ttfa-target-ms", type=float, default=200.0)
    p.add_argument("--jitter-ms", type=float, default=100.0)
    p.add_argument("--quick", action="store_true", help="a small smoke run (two batch sizes, ramp to 8)")
    p.add_argument(
        "--clients",
        type=int,
        help=f"load-bench client processes sharing each server level (default {DEFAULT_CLIENTS}, 1 with --quick)",
    )
    p.add_argument(
        "--ramp-max",
        type=int,
        help=f"highest concurrency of the server ramp (default {RAMP_MAX}, 8 with --quick; at most "
        "the server's MAX_STREAMS limit)",
    )
    p.add_argument(
        "--arrivals",
        type=_csv(str, ARRIVALS),
        default=ARRIVALS,
        help="server arrival models, comma-separated (default closed,staggered,poisson)",
    )
    p.add_argument(
        "--rates",
        type=_csv(float),
        help=f"Poisson arrival rates in streams/s (default {','.join(f'{r:g}' for r in RATES)}; "
        f"{','.join(f'{r:g}' for r in QUICK_RATES)} with --quick)",
    )
    p.add_argument(
        "--arrival-seconds",
        type=float,
        help=f"Poisson: seconds of arrivals per rate (default {ARRIVAL_SECONDS:g}, 4 with --quick)",
    )
    p.add_argument(
        "--server-chunk-frames",
        type=_csv(int),
        default=(64,),
        help="the server's largest chunk (STATESPEAK_MAX_CHUNK_FRAMES) for each server run, comma-separated "
        "(default 64, the server's own on CUDA: one run; more values: a run per "
        "setting, sharing the time)",
    )
    p.add_argument(
        "--server-engines",
        type=_csv(int),
        default=(1,),
        help="engine processes (STATESPEAK_ENGINES) for each server run, comma-separated, crossed with "
        "--server-chunk-frames (default 1; tools/gpu_smoke.sh --full asks for 1,2)",
    )
    p.add_argument(
        "--out",
        type=Path,
        help="also write the JSON here; the plots and the server's per-stream records go next to it",
    )
    p.add_argument("--summary", type=Path, help="print the summary of an earlier run's JSON and exit")
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    if args.summary:
        print("\n".join(summary_lines(json.loads(args.summary.read_text()))))
        return 0
    clients = args.clients if args.clients is not None else (1 if args.quick else DEFAULT_CLIENTS)
    ramp_max = args.ramp_max or (8 if args.quick else RAMP_MAX)
    if clients < 1 or not 1 <= ramp_max <= MAX_STREAMS_LIMIT:
        p.error(f"--clients must be >= 1 and --ramp-max within [1, {MAX_STREAMS_LIMIT}]")
    if any(not 1 <= f <= 1024 for f in args.server_chunk_frames):
        p.error(f"--server-chunk-frames values must be within [1, 1024], got {args.server_chunk_frames}")
    if any(not 1 <= e <= MAX_ENGINES for e in args.server_engines):
        p.error(f"--server-engines values must be within [1, {MAX_ENGINES}], got {args.server_engines}")

    budget = Budget(args.max_seconds)
    try:
        torch = preflight()
    except NoCudaError as exc:
        print(f"gpu_bench: no CUDA: {exc}", file=sys.stderr)
        return EXIT_NO_CUDA
    if args.model_dir:
        os.environ["MODEL_DIR"] = args.model_dir  # the server subprocess reads the same weights
    workdir = args.out.parent if args.out else Path.cwd()
    prefix = args.out.stem if args.out else "gpu-bench"
    result: dict[str, Any] = {"hardware": hardware(torch), "args": vars(args) | {"out": str(args.out)}}
    log(f"device: {result['hardware']['device_name']}")
    result["kernels"] = kernel_report()
    log(f"kernels: {result['kernels']['path']} {result['kernels']['reason'] or ''}")
    failed = result["kernels"]["fallback"]

    sections = (
        ("parity", lambda s: parity(torch, args.model_dir, s), 60.0, 0.65),
        (
            "decode",
            lambda s: decode_timings(
                torch,
                args.model_dir,
                s,
                QUICK_BATCHES if args.quick else BATCHES,
                (4, 32),
                5 if args.quick else 20,
            ),
            150.0,
            0.55,
        ),
    )

    def server_section(variant: ServerVariant):
        return lambda s: server_ramp(
            s,
            args.ttfa_target_ms,
            args.jitter_ms,
            args.quick,
            workdir,
            ramp_max=ramp_max,
            clients=clients,
            arrivals=args.arrivals,
            rates=args.rates,
            arrival_seconds=args.arrival_seconds,
            prefix=prefix + variant.suffix,
            extra_env=variant.env,
            records_dir=variant.records_dir,
        )

    variants = server_variants(args.server_chunk_frames, args.server_engines)
    sections += tuple((v.section, server_section(v), 1e9, v.reserve_fraction) for v in variants)
    for name, run, cap, reserve_fraction in sections:
        seconds = budget.share(cap, reserve=budget.left() * reserve_fraction)
        log(f"{name}: up to {seconds:.0f} s")
        try:
            result[name] = run(seconds)
        except Exception as exc:  # one failed section must not lose the others' numbers
            result[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            failed = True
            log(f"{name} failed: {exc}")
    if result["decode"].get("rows"):
        result["decode"]["plot"] = _plot(
            lambda path: plot_decode(result["decode"], path), workdir / f"{prefix}-decode.png"
        )
    if not result["parity"].get("ok", False):
        failed = True
    server_path = result["server"].get("startup", {}).get("kernel_path")
    if server_path is not None and not server_path.startswith("triton"):
        failed = True  # the server itself fell back to the torch path
    result["total_seconds"] = round(args.max_seconds - budget.left(), 1)
    text = json.dumps(result, indent=2, default=str)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return EXIT_FAILED if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
