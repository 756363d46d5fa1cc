"""GPU benchmark of the Statespeak model and server: one run on an H100/H200-class CUDA machine.

    python tools/gpu_bench.py [--out gpu-bench.json] [--max-seconds 450] [--quick]

Run it from the repository root inside the CUDA image (torch with CUDA, mamba-ssm; the server's own
requirements). It prints one JSON document on stdout (progress goes to stderr) with:

1. `hardware`: nvidia-smi's view of the GPUs, torch.cuda's device name and properties, library versions,
   the date.
2. `kernels`: the Mamba-2 path CUDA tensors take in this process (`triton`: mamba-ssm's Triton kernels,
   `torch`: the fallback) with the reason when it is the fallback, and where mamba_ssm was imported from.
3. `parity`: the pure torch Mamba-2 path (model_server/ssm/mamba2.py) against the mamba-ssm kernels
   (model_server/ssm/cuda.py) on the shipped weights: each mixer's sequence path and one-step path, and
   the whole frame decoder; max absolute and relative error against a stated tolerance.
4. `decode`: time of one batched engine step (`SpeechRuntime.step`: decoder, vocoder, copy to host) per
   batch size and chunk length, with and without CUDA graphs, and how many times real time that is.
5. `server`: the real server (`python -m model_server serve`, MAX_STREAMS large) under the load bench's
   ramp (1, 2, 4, ... concurrent WebSocket streams): client TTFA p50/p99 per level and the most
   concurrent real-time streams with p99 TTFA under the target and no playback stall; `startup`: the
   server's own start-up log (kernel path, CUDA graphs captured, warm-up and load seconds).

The whole run is bounded by --max-seconds (default 450 s, under 8 minutes); a section that runs out of
its share of time says so in the JSON instead of running on. Without CUDA it stops at once with exit
code 2 and says why. Exit code 1: a parity check failed, the kernels were missing (the torch fallback
ran, here or in the server), or the server section failed; the JSON is printed either way.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a script from anywhere: the model_server package is the repo's
    sys.path.insert(0, str(REPO_ROOT))

EXIT_NO_CUDA = 2
EXIT_FAILED = 1
# Relative error = max |kernel - torch| / max |torch|. fp32 with TF32 tensor-core dots inside the Triton
# kernels: a few 1e-3 per mixer, compounding over the decoder's layers.
MIXER_TOLERANCE = 5e-3
DECODER_TOLERANCE = 2e-2
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128)
QUICK_BATCHES = (1, 8)
RAMP_MAX = 512
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
    done = [c for c in checks if "ok" in c]
    return {
        "ok": bool(done) and all(c["ok"] for c in done),
        "kernels_available": True,
        "checks": checks,
        "seconds": round(time.monotonic() - start, 1),
    }


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
) -> dict[str, Any]:
    """The server under a WebSocket ramp. `device`/`ramp_max` let the CPU tests run this code small."""
    import httpx

    from model_server.bench.local import LocalServer
    from model_server.bench.runner import ramp_levels, run_level, streams_per_replica
    from model_server.bench.streams import StreamOptions, ws_stream
    from model_server.bench.texts import TextMix

    start = time.monotonic()
    env = {"STATESPEAK_DEVICE": device}
    levels = ramp_levels(ramp_max or (8 if quick else RAMP_MAX))
    with LocalServer(
        workdir / "gpu-bench-server.log",
        max_streams=max(levels) + 8,
        ready_timeout_s=min(300, seconds),
        extra_env=env,
    ) as server:
        log(f"server ready at {server.url} after {time.monotonic() - start:.0f} s")
        voice = httpx.get(server.url + "/voices", timeout=10).json()["voices"][0]["id"]
        opts = StreamOptions(voice=voice, timeout_s=60.0)

        async def ramp() -> list[dict[str, Any]]:
            mix = TextMix(0)
            summaries = []
            for i, c in enumerate(levels):
                left = seconds - (time.monotonic() - start)
                if left < 5:
                    log(f"server: time budget spent before concurrency {c}")
                    break
                budget = min(left / (len(levels) - i) * 2, left, 60.0)  # early levels finish fast: lend time
                level = await run_level(
                    lambda item: ws_stream(server.url, item, opts),
                    mix,
                    c,
                    max(16, 2 * c),
                    budget,
                    jitter_ms / 1000.0,
                )
                s = level.summary(ttfa_target_ms)
                summaries.append(s)
                t = s["client_ttfa_ms"]
                log(
                    f"server c={c}: ok {s['ok']} rejected {s['rejected']} errors {s['errors']} cut {s['cut']} "
                    f"TTFA p50 {t['p50']} p99 {t['p99']} stalls {s['stalls']}"
                )
                if not s["meets_target"]:
                    break
            return summaries

        summaries = asyncio.run(ramp())
    levels_out = [
        {
            k: s[k]
            for k in (
                "concurrency",
                "streams",
                "ok",
                "rejected",
                "errors",
                "cut",
                "client_ttfa_ms",
                "server_ttfa_ms",
                "stalls",
                "streams_with_stalls",
                "audio_per_wall_s",
                "meets_target",
                "first_errors",
            )
        }
        for s in summaries
    ]
    return {
        "startup": server_startup(workdir / "gpu-bench-server.log"),
        "levels": levels_out,
        "max_realtime_streams": streams_per_replica(summaries),
        "ttfa_target_ms": ttfa_target_ms,
        "jitter_ms": jitter_ms,
        "seconds": round(time.monotonic() - start, 1),
        "note": "WebSocket streams of the bench's text mix, client on the same machine; max_realtime_streams "
        "is the highest concurrency with p99 client TTFA under the target, no stalls, no failures",
    }


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
    if "max_realtime_streams" in result.get("server", {}):
        lines.append(f"server: max real-time streams {result['server']['max_realtime_streams']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python tools/gpu_bench.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--model-dir", help="model directory (default: the bundled weights)")
    p.add_argument("--max-seconds", type=float, default=450.0, help="bound on the whole run (default 450)")
    p.add_argument("--ttfa-target-ms", type=float, default=200.0)
    p.add_argument("--jitter-ms", type=float, default=100.0)
    p.add_argument("--quick", action="store_true", help="a small smoke run (two batch sizes, ramp to 8)")
    p.add_argument("--out", type=Path, help="also write the JSON here")
    p.add_argument("--summary", type=Path, help="print the summary of an earlier run's JSON and exit")
    args = p.parse_args(argv)
    if args.summary:
        print("\n".join(summary_lines(json.loads(args.summary.read_text()))))
        return 0

    budget = Budget(args.max_seconds)
    try:
        torch = preflight()
    except NoCudaError as exc:
        print(f"gpu_bench: no CUDA: {exc}", file=sys.stderr)
        return EXIT_NO_CUDA
    if args.model_dir:
        os.environ["MODEL_DIR"] = args.model_dir  # the server subprocess reads the same weights
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
                5 if args.quick else 30,
            ),
            150.0,
            0.5,
        ),
        (
            "server",
            lambda s: server_ramp(
                s,
                args.ttfa_target_ms,
                args.jitter_ms,
                args.quick,
                (args.out.parent if args.out else Path.cwd()),
            ),
            1e9,
            0.0,
        ),
    )
    for name, run, cap, reserve_fraction in sections:
        seconds = budget.share(cap, reserve=budget.left() * reserve_fraction)
        log(f"{name}: up to {seconds:.0f} s")
        try:
            result[name] = run(seconds)
        except Exception as exc:  # one failed section must not lose the others' numbers
            result[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            failed = True
            log(f"{name} failed: {exc}")
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
