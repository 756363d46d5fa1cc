"""The prepared GPU training run: render hibari data, fine-tune the shipped model, bring back the weights.

Started by tools/gpu_train.sh (which installs the carried wheels on an offline CUDA host first):

    python tools/gpu_train.py --device cuda --out $OUT          # on the CUDA host, from the repository root
    python tools/gpu_train.py --device cpu --minutes 0.1 --hours-scale 0.016 --batch 8 --crop 96 \
        --speed-sentences 1 --out /tmp/rehearsal                 # the same steps on a CPU, in about a minute

Steps, each timed into <out>/gpu-train.json (rewritten after every step, so a run cut short still says how
far it got):

1. env: versions, the GPU, the Mamba-2 path, and on CUDA a gradient check of mamba-ssm's Triton kernels
   against the torch path on one decoder layer of the init model (training differentiates through them);
2. render: `python -m model_server.data --voices VOICE --hours-scale H --workers N --max-render-seconds R`,
   started before step 1 so that the CPU renders while the gradient check has Triton compile the kernels;
3. baseline: the init model's validation loss on the held-out utterances of that data (`model_server.train
   --minutes 0`), the number the fine-tune is compared with;
4. train: `python -m model_server.train --init INIT --device DEVICE --batch 64 --crop 400 --minutes M --focus
   VOICE --focus-share 0.5 --export ...`; M is cut so that the whole run ends within --budget-seconds;
5. export: the weights (config.json + model.safetensors) into <out>/weights/, loaded back with SpeechRuntime,
   checked to keep every voice of the init model;
6. speed: one stream of the new weights through the serving path (planner + SpeechRuntime.step, chunks of
   32 frames) on the device and on one CPU thread: real-time factor and time to the first chunk.

``--stage vocoder`` runs the learned vocoder's stage instead (docs/model.md, "A learned vocoder"): env, then
vocoder_render (`python -m model_server.train_vocoder data`: the voice's teacher at 24 kHz beside the --init
model's features predicted at the teacher's timing, or with ``--vocoder-features teacher`` the teacher's own
analysed features; time-boxed), vocoder_train (`train_vocoder train --gan` on the device, cut to the budget), vocoder_export (the
vocoder into <out>/weights-vocoder/, loaded beside the shipped model by SpeechRuntime at 24 kHz) and
vocoder_speed (graphed against eager on CUDA, and one stream's speed on the device and one CPU thread).

Whisper and DistillMOS cannot travel (their weights are too large for the carry), so the judged evaluation
runs where the weights come back: `python -m model_server.evaluate --model <out>/weights --voices VOICE
--limit 40 --report <file>` (docs/model.md). Exit code: 0 when every step ran, 1 when one failed (its
error is in the JSON), 2 when --device cuda finds no CUDA.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
INIT = REPO / "model_server" / "weights" / "default"
HELDOUT = REPO / "model_server" / "data" / "heldout_en.txt"
VOICE = "en_female_heart"
OUT_FILE_LIMIT = 16 * 1024 * 1024  # the device tool brings back files of at most 16 MiB
# Rendering cost, measured on a 2-core x86 machine (one worker, hibari heart, `--hours-scale 0.0894`: 120
# sentences, 0.14 h of audio, rendered and analyzed in 18.7 s): 6.4 sentences, about 28 s of audio, per core
# second. --hours-scale 1 is 4029 sentences (heart's default 4.5 h at 4.02 s each), so about 630 core seconds.
# Two of them (8,058 sentences, about 9 h of audio) take 1,260 core seconds: 79 s on 16 cores, plus about 20 s
# to start the workers and align the utterances in one process: about 100 s, leaving room for cores half as
# fast inside the 150 s time box (which keeps whatever finished if they are slower still).
HOURS_SCALE = 2.0
RENDER_SECONDS = 150.0
# The vocoder stage renders heart at 24 kHz: 1,600 sentences (1.8 h) took 142 s on 2 shared cores here, about
# 0.18 core seconds a sentence, so 6,000 (6.7 h) take about 70 s on 16 cores.
VOCODER_SENTENCES = 6000
VOCODER_RENDER_SECONDS = 120.0
# What the run needs after training: the train process's own start, validation and export, the weights
# loaded back and the speed measurements (a guess with room; the JSON records what each step took).
RESERVE_AFTER_TRAIN_S = 75.0
# Relative L2 error allowed between the float32 kernels' output and gradients and the torch path's: the Triton
# dots run in TF32 (tools/gpu_bench.py allows 2e-2 on the decoder for the same reason); a wrong or missing
# backward term shows up as an error of order 1.
GRAD_TOLERANCE = 2e-2


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="tools/gpu_train.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument(
        "--out",
        type=Path,
        default=Path(os.environ.get("OUT") or "gpu-train"),
        help="where the JSON, the logs and the weights go (default: $OUT, else ./gpu-train)",
    )
    p.add_argument("--work", type=Path, default=None, help="data and runs (default: a temporary folder)")
    p.add_argument("--voice", default=VOICE, help="the voice whose data is rendered and trained")
    p.add_argument("--init", type=Path, default=INIT, help="the model fine-tuned (every voice is kept)")
    p.add_argument("--hours-scale", type=float, default=HOURS_SCALE, help="data size (model_server.data)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="render processes")
    p.add_argument("--render-seconds", type=float, default=RENDER_SECONDS, help="time box of the render")
    p.add_argument(
        "--minutes", type=float, default=2.5, help="training minutes (cut to fit --budget-seconds)"
    )
    p.add_argument(
        "--budget-seconds",
        type=float,
        default=420.0,
        help="the whole run ends within this (the training is shortened to fit)",
    )
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--crop", type=int, default=400)
    p.add_argument("--speed-sentences", type=int, default=5, help="held-out sentences timed per device")
    p.add_argument(
        "--stage",
        choices=("model", "vocoder"),
        default="model",
        help="model: fine-tune the acoustic model; vocoder: train the learned vocoder",
    )
    p.add_argument(
        "--vocoder-sentences", type=int, default=VOCODER_SENTENCES, help="teacher sentences rendered"
    )
    p.add_argument("--vocoder-batch", type=int, default=64)
    p.add_argument("--vocoder-crop", type=int, default=64, help="frames per training window")
    p.add_argument("--vocoder-channels", type=int, default=0, help="network width (0: the default)")
    p.add_argument(
        "--vocoder-features",
        choices=("model", "teacher"),
        default="model",
        help="model: the --init model's predictions at the teacher's timing (what serving gives the vocoder); "
        "teacher: the features analysed from the teacher's audio",
    )
    args = p.parse_args(argv)
    if args.hours_scale <= 0 or args.minutes <= 0 or args.workers < 1 or args.speed_sentences < 1:
        p.error("--hours-scale and --minutes must be > 0, --workers and --speed-sentences >= 1")
    return args  # fmt: skip


class Run:
    """The JSON report, written after every step."""

    def __init__(self, out: Path):
        self.out = out
        self.t0 = time.monotonic()
        self.report: dict = {
            "ok": False,
            "steps": {},
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        out.mkdir(parents=True, exist_ok=True)
        self.log = out / "run.log"
        self.log.write_text("", encoding="utf-8")

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def step(self, name: str, fn, *a, **kw):
        """Run one step: its seconds and result (or its error) go into the report."""
        say(f"step {name} ...")
        t = time.monotonic()
        try:
            result = fn(*a, **kw)
        except Exception as exc:  # recorded, and the run stops: later steps need this one's output
            self.report["steps"][name] = {"seconds": round(time.monotonic() - t, 2), "error": f"{exc}"}
            self.save()
            raise StepFailed(name, exc) from exc
        self.report["steps"][name] = {"seconds": round(time.monotonic() - t, 2), **(result or {})}
        self.save()
        say(f"step {name}: {self.report['steps'][name]['seconds']} s")
        return result

    def save(self) -> None:
        self.report["total_s"] = round(self.elapsed(), 2)
        (self.out / "gpu-train.json").write_text(json.dumps(self.report, indent=2) + "\n", encoding="utf-8")

    def run(self, cmd: list[str], timeout: float | None = None) -> None:
        """A subprocess of this Python, its output appended to run.log; a failure names the command."""
        self.finish(self.start(cmd), timeout)

    def start(self, cmd: list[str]) -> Job:
        """The same subprocess, started in the background (`finish` waits for it)."""
        fh = self.log.open("a", encoding="utf-8")
        fh.write(f"\n$ {' '.join(cmd)}\n")
        fh.flush()
        try:  # its own process group: stopping it stops the worker processes it starts too
            proc = subprocess.Popen([sys.executable, *cmd], cwd=REPO, stdout=fh, stderr=subprocess.STDOUT,
                                    start_new_session=True)  # fmt: skip
        except BaseException:
            fh.close()
            raise
        return Job(cmd, proc, fh, self.elapsed())

    def finish(self, job: Job, timeout: float | None = None) -> None:
        try:
            code = job.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            job.stop()
            raise RuntimeError(f"`{' '.join(job.cmd[:3])}` ran past {timeout:g} s") from None
        finally:
            job.log.close()
        if code != 0:
            tail = self.log.read_text(encoding="utf-8").splitlines()[-5:]
            raise RuntimeError(f"`{' '.join(job.cmd[:3])}` exited with {code}: {' | '.join(tail)}")


class Job:
    """A subprocess started by `Run.start`: its command, process, log file and start (seconds into the run)."""

    def __init__(self, cmd: list[str], proc: subprocess.Popen, log: Any, started_at_s: float) -> None:
        self.cmd, self.proc, self.log, self.started_at_s = cmd, proc, log, started_at_s

    def stop(self) -> None:
        """Kill it and its process group (a render's worker pool) unless it has ended; close its log."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.log.close()


class StepFailed(Exception):
    def __init__(self, name: str, exc: Exception):
        super().__init__(f"step {name} failed: {exc}")


def say(msg: str) -> None:
    print(f"gpu_train: {msg}", file=sys.stderr, flush=True)


# -- 1. environment and kernels ---------------------------------------------------------------------------
def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def environment(device: str) -> dict:
    import torch

    from model_server.ssm import cuda as cuda_path

    env = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cpus": os.cpu_count(),
        "packages": {d: _version(d) for d in ("triton", "mamba_ssm", "hibari-tts", "onnxruntime", "onnx",
                                               "espeakng-loader", "pyworld", "soxr", "numpy", "safetensors")},
    }  # fmt: skip
    try:  # the carried Triton-only copy (.mssm) has no package metadata, only its version string
        import mamba_ssm

        env["packages"]["mamba_ssm"] = mamba_ssm.__version__
    except ImportError:
        pass
    if device == "cuda":
        if not torch.cuda.is_available():
            raise RuntimeError(f"--device cuda: torch {torch.__version__} sees no CUDA device")
        env["gpu"] = torch.cuda.get_device_name(0)
        env["mamba2_path"] = cuda_path.kernel_path()
        env["kernels_reason"] = cuda_path.unavailable_reason() or None
        try:  # a failure here is reported, not fatal: the training step shows whether the kernels train
            env["grad_check"] = kernel_grad_check() if cuda_path.available() else {"skipped": "no kernels"}
        except Exception as exc:
            env["grad_check"] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    else:
        env["mamba2_path"] = "torch"
        env["grad_check"] = {"skipped": "CPU run: the kernels need CUDA"}
    return env


def grad_errors(mixer, forward_a, forward_b, batch: int = 2, length: int = 256, seed: int = 0) -> dict:
    """Relative L2 error (||a - b|| / ||b||) of the output and of every gradient (input and parameters)
    between two forward functions of one Mamba-2 mixer, from a zero state, as training calls it."""
    import torch

    gen = torch.Generator(device=mixer.out_proj.weight.device).manual_seed(seed)
    device = mixer.out_proj.weight.device
    u = torch.randn(batch, length, mixer.d_model, device=device, generator=gen)
    g = torch.randn(batch, length, mixer.d_model, device=device, generator=gen)

    def run(forward):
        mixer.zero_grad(set_to_none=True)
        with (
            torch.enable_grad()
        ):  # whatever the caller's grad mode (a server in the same process turns it off)
            x = u.clone().requires_grad_(True)
            y, _ = forward(x)
            (y.float() * g).sum().backward()
        grads = {"input": x.grad.detach().float()}
        grads.update({n: p.grad.detach().float() for n, p in mixer.named_parameters() if p.grad is not None})
        return y.detach().float(), grads

    ya, ga = run(forward_a)
    yb, gb = run(forward_b)
    missing = sorted(set(gb) - set(ga))
    if missing:
        raise RuntimeError(f"no gradient reached {missing} through the first path")

    def rel(a, b) -> float:
        return float((a - b).norm() / b.norm().clamp_min(1e-12))

    return {"output": rel(ya, yb), **{f"grad.{n}": rel(ga[n], gb[n]) for n in gb}}


def kernel_grad_check() -> dict:
    """mamba-ssm's Triton kernels against the torch path, forward and backward, on the init model's first
    decoder layer: in float32 (the check, which proves the kernels' backward right) and under bf16 autocast
    as training runs them (reported: what bf16 costs in precision)."""
    import torch

    from model_server.model import checkpoint
    from model_server.ssm import cuda as cuda_path

    mixer = checkpoint.load(INIT).model.decoder.layers[0].mixer.to("cuda").float()

    def kernels(x):
        return cuda_path.forward(mixer, x, None, None)

    def kernels_bf16(x):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return cuda_path.forward(mixer, x, None, None)

    def reference(x):
        return mixer.scan(x)

    errors = grad_errors(mixer, kernels, reference)
    bf16 = grad_errors(mixer, kernels_bf16, reference)
    worst = max(errors, key=errors.get)
    return {"ok": errors[worst] <= GRAD_TOLERANCE, "tolerance": GRAD_TOLERANCE, "worst": worst,
            "relative_l2_fp32": {k: round(v, 6) for k, v in errors.items()},
            "relative_l2_bf16_autocast": {k: round(v, 6) for k, v in bf16.items()}}  # fmt: skip


# -- 2-4. data, baseline, training ------------------------------------------------------------------------
def render_cmd(args, data: Path) -> list[str]:
    # --word-share 0: wordfreq (a 57 MB wheel) does not fit the carry; English voices never draw words anyway
    return ["-m", "model_server.data", "--voices", args.voice, "--hours-scale", f"{args.hours_scale:g}",
            "--workers", str(args.workers), "--max-render-seconds", f"{args.render_seconds:g}",
            "--word-share", "0", "--out", str(data), "--no-progress"]  # fmt: skip


def render(run: Run, args, data: Path, job: Job) -> dict:
    """Wait for the render `job` (started before the env step, so the CPU renders while the env step's
    gradient check has Triton compile the kernels) and read what it made. The timeout counts from here,
    so the render may run the env step's time longer; its own --max-render-seconds bounds it anyway."""
    run.finish(job, timeout=args.render_seconds + 300)
    summary = json.loads((data / "dataset" / "summary.json").read_text(encoding="utf-8"))
    voice = summary["voices"][args.voice]
    if voice["utterances"] == 0:
        raise RuntimeError(f"no {args.voice} utterances rendered within {args.render_seconds:g} s")
    return {"hours_scale": args.hours_scale, "workers": args.workers, "render_s": summary["render_s"],
            "assemble_s": summary["assemble_s"], "batches": summary["batches"],
            "batches_timed_out": summary.get("batches_timed_out", 0), "utterances": voice["utterances"],
            "hours": round(voice["hours"], 3), "frames": voice["frames"],
            "dropped": voice["dropped_alignment"] + voice["dropped_render"],
            "started_at_s": round(job.started_at_s, 2), "wall_s": round(run.elapsed() - job.started_at_s, 2)}  # fmt: skip


def train_cmd(args, data: Path, runs: Path, name: str, minutes: float) -> list[str]:
    return ["-m", "model_server.train", "--data", str(data / "dataset"), "--init", str(args.init),
            "--device", args.device, "--batch", str(args.batch), "--crop", str(args.crop),
            "--minutes", f"{minutes:.3f}", "--focus", args.voice, "--focus-share", "0.5", "--runs", str(runs),
            "--name", name, "--no-progress", "--log-every", "50"]  # fmt: skip


def model_extra(model_dir: Path) -> dict:
    return json.loads((model_dir / "config.json").read_text(encoding="utf-8")).get("extra", {})


def baseline(run: Run, args, data: Path, runs: Path) -> dict:
    run.run(train_cmd(args, data, runs, "baseline", 0.0))
    return {"val_loss": model_extra(runs / "baseline" / "last").get("val_loss")}


def train(run: Run, args, data: Path, runs: Path, export: Path) -> dict:
    left = args.budget_seconds - run.elapsed() - RESERVE_AFTER_TRAIN_S
    minutes = min(args.minutes, left / 60)
    if minutes <= 0:
        raise RuntimeError(f"no time left to train within --budget-seconds {args.budget_seconds:g}")
    run.run([*train_cmd(args, data, runs, "gpu", minutes), "--export", str(export)])
    extra = model_extra(export)
    shutil.copyfile(runs / "gpu" / "train.log", run.out / "train.log")
    # the last logged interval's rate: the steady state, after the first steps' kernel compilation
    rates = re.findall(r"(\d+) frames/s", (run.out / "train.log").read_text(encoding="utf-8"))
    return {"minutes_asked": args.minutes, "minutes": round(minutes, 3), "trained_minutes": extra.get("trained_minutes"),
            "steps": extra.get("step"), "frames_per_s": extra.get("frames_per_s"), "val_loss": extra.get("val_loss"),
            "frames_per_s_last_interval": int(rates[-1]) if rates else None,
            "mamba2_path": extra.get("mamba2_path"), "batch": args.batch, "crop": args.crop}  # fmt: skip


# -- 5-6. export and speed --------------------------------------------------------------------------------
def bring_back(src: Path, dest: Path, names: tuple[str, ...]) -> dict[str, int]:
    """Copy ``names`` from ``src`` into ``dest`` (under the run's output), each within what the device tool
    brings back; their sizes."""
    dest.mkdir(parents=True, exist_ok=True)
    sizes = {}
    for name in names:
        size = (src / name).stat().st_size
        if size > OUT_FILE_LIMIT:
            raise RuntimeError(f"{name} is {size} bytes, over the {OUT_FILE_LIMIT} the device brings back")
        shutil.copyfile(src / name, dest / name)
        sizes[name] = size
    return sizes


def export_weights(run: Run, args, export: Path) -> dict:
    from model_server.model import checkpoint
    from model_server.model.runtime import SpeechRuntime

    dest = run.out / "weights"
    sizes = bring_back(export, dest, (checkpoint.CONFIG_FILE, checkpoint.WEIGHTS_FILE))
    rt = SpeechRuntime.load(dest)
    init_voices = {v.info.id for v in checkpoint.load(args.init).voices}
    lost = sorted(init_voices - set(rt.voices))
    if lost:
        raise RuntimeError(f"the exported model lost voices of the init model: {lost}")
    return {"dir": "weights", "bytes": sizes, "voices": len(rt.voices), "init_voices": len(init_voices)}


def heldout(n: int) -> list[str]:
    from model_server.data.text import read_sentences

    return read_sentences(HELDOUT)[:n]


def stream_speed(rt, voice: str, sentences: list[str], chunk: int = 32) -> dict:
    """One stream at a time through the serving path: compute seconds per audio second, first chunk time
    (rt.step returns the audio on the host, so each chunk's time includes the device's work)."""

    from model_server.model.runtime import speak_one_stream

    def one(text: str) -> tuple[float, float, int]:
        spoken = speak_one_stream(rt, voice, text, chunk)
        return spoken.compute_s, spoken.first_chunk_s, spoken.audio.numel()

    one(sentences[0])  # warm-up: first-call allocations (and on CUDA the first graphs) are not steady state
    runs = [one(s) for s in sentences]
    audio_s = sum(r[2] for r in runs) / rt.sample_rate
    return {"sentences": len(runs), "audio_s": round(audio_s, 2),
            "rtf": round(sum(r[0] for r in runs) / max(audio_s, 1e-9), 4),
            "first_chunk_ms_max": round(1000 * max(r[1] for r in runs), 1)}  # fmt: skip


def speed(args, weights: Path) -> dict:

    from model_server.model.runtime import SpeechRuntime
    from model_server.ssm import cuda as cuda_path

    sentences = heldout(args.speed_sentences)
    out = {}
    if args.device == "cuda":
        rt = SpeechRuntime.load(weights, device="cuda")
        rt.warmup(1, 32)  # the graphs the server captures before readiness
        out["cuda"] = {**stream_speed(rt, args.voice, sentences), "mamba2_path": cuda_path.kernel_path()}
        del rt
    out["cpu_1_thread"] = cpu_speed(weights, args.voice, sentences)
    return out


def cpu_speed(model_dir: Path, voice: str, sentences: list[str]) -> dict:
    """One stream on one core, as docs/evaluation.md measures it."""
    import torch

    from model_server.model.runtime import SpeechRuntime

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return stream_speed(SpeechRuntime.load(model_dir, device="cpu"), voice, sentences)
    finally:
        torch.set_num_threads(threads)


# -- the vocoder stage ----------------------------------------------------------------------------------------
def vocoder_render_cmd(args, data: Path) -> list[str]:
    return (["-m", "model_server.train_vocoder", "data", "--voices", args.voice, "--sentences",
             str(args.vocoder_sentences), "--workers", str(args.workers), "--max-seconds",
             f"{VOCODER_RENDER_SECONDS:g}", "--out", str(data)]
            + (["--features-from", str(args.init)] if args.vocoder_features == "model" else []))  # fmt: skip


def vocoder_render(run: Run, args, data: Path, job: Job) -> dict:
    """Wait for the vocoder data's render `job` (started before the env step, as `render`'s)."""
    run.finish(job, timeout=VOCODER_RENDER_SECONDS + 300)
    from model_server.train_vocoder import VocoderData

    loaded = VocoderData(data)
    return {"sentences_asked": args.vocoder_sentences, "utterances": len(loaded.audio),
            "hours": round(loaded.hours(), 3), "workers": args.workers,
            "features": args.vocoder_features, "started_at_s": round(job.started_at_s, 2)}  # fmt: skip


def vocoder_train(run: Run, args, data: Path, out: Path) -> dict:
    left = args.budget_seconds - run.elapsed() - RESERVE_AFTER_TRAIN_S
    minutes = min(args.minutes, left / 60)
    if minutes <= 0:
        raise RuntimeError(f"no time left to train within --budget-seconds {args.budget_seconds:g}")
    cmd = [
        "-m",
        "model_server.train_vocoder",
        "train",
        "--data",
        str(data),
        "--out",
        str(out),
        "--device",
        args.device,
        "--minutes",
        f"{minutes:.3f}",
        "--batch",
        str(args.vocoder_batch),
        "--crop",
        str(args.vocoder_crop),
        "--log-seconds",
        "15",
    ] + (["--gan"] if args.device == "cuda" else [])
    if args.vocoder_channels:
        cmd += ["--channels", str(args.vocoder_channels)]
    run.run(cmd)
    info = json.loads((out / "neural_vocoder.json").read_text(encoding="utf-8"))
    return {"minutes": round(minutes, 3), **info["trained"], "config": info["config"]}


def vocoder_export(run: Run, args, trained: Path) -> dict:
    from model_server import neural_vocoder
    from model_server.model.runtime import SpeechRuntime

    dest = run.out / "weights-vocoder"
    sizes = bring_back(trained, dest, (neural_vocoder.CONFIG_FILE, neural_vocoder.WEIGHTS_FILE))
    served = trained.parent / "served"  # the shipped model with this vocoder beside it, as a user serves it
    shutil.copytree(args.init, served, dirs_exist_ok=True)
    for name in sizes:
        shutil.copyfile(dest / name, served / name)
    rt = SpeechRuntime.load(served)
    if rt.vocoder_name != "neural" or rt.sample_rate != neural_vocoder.OUTPUT_RATE:
        raise RuntimeError(f"the served model uses the {rt.vocoder_name} vocoder at {rt.sample_rate} Hz")
    return {"dir": "weights-vocoder", "bytes": sizes, "served_dir": str(served),
            "parameters": neural_vocoder.parameter_count(rt.synth)}  # fmt: skip


def vocoder_speed(args, served: Path) -> dict:
    import torch

    from model_server.model.runtime import SpeechRuntime

    sentences = heldout(args.speed_sentences)
    out = {}
    if args.device == "cuda":
        graphed, eager = SpeechRuntime.load(served, device="cuda"), SpeechRuntime.load(served, "cuda", False)
        graphed.warmup(8, 32)
        pools, errors = (graphed.new_pool(8), eager.new_pool(8)), []
        for b, n in ((3, 8), (3, 10), (5, 1), (8, 32)):
            cond = torch.randn(b, n, graphed.config.cond_dim)
            a, e = graphed.step(pools[0], list(range(b)), cond), eager.step(pools[1], list(range(b)), cond)
            errors.append(float((a - e).norm() / e.norm().clamp_min(1e-9)))
        out["cuda_graph_vs_eager_relative_l2_max"] = round(max(errors), 6)
        out["cuda"] = stream_speed(graphed, args.voice, sentences)
        del graphed, eager
    out["cpu_1_thread"] = cpu_speed(served, args.voice, sentences)
    return out


def main_vocoder(run: Run, args, work: Path) -> None:
    job = run.start(vocoder_render_cmd(args, work / "vocdata"))  # beside the env step's kernel compile
    try:
        run.step("env", environment, args.device)
        run.step("vocoder_render", vocoder_render, run, args, work / "vocdata", job)
    finally:
        job.stop()
    run.step("vocoder_train", vocoder_train, run, args, work / "vocdata", work / "vocoder")
    exported = run.step("vocoder_export", vocoder_export, run, args, work / "vocoder")
    run.step("vocoder_speed", vocoder_speed, args, Path(exported["served_dir"]))
    returned = f"<returned {args.out.name}>/weights-vocoder"
    init = Path(args.init).resolve()
    if init.is_relative_to(REPO):  # the same folder in the checkout here
        init = init.relative_to(REPO)
    # the model's voice through it (what serving gives), then what it loses resynthesizing the teacher
    run.report["evaluate_here"] = (
        f"mkdir -p runs/served && cp {init}/config.json {init}/model.safetensors {returned}/neural_* "
        f"runs/served/ && python -m model_server.evaluate --model runs/served --voices {args.voice}; "
        f"python tools/vocoder_resynth.py --voices {args.voice} --sentences 40 --systems "
        f"teacher,current,neural:{returned}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    run = Run(args.out)
    run.report["args"] = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
    work = args.work or Path(tempfile.mkdtemp(prefix="gpu-train-"))
    data, runs, export = work / "data", work / "runs", work / "export"
    try:
        if os.environ.get("GPU_TRAIN_INSTALL_S"):  # tools/gpu_train.sh's wheel install, before this process
            run.report["steps"]["install"] = {"seconds": float(os.environ["GPU_TRAIN_INSTALL_S"])}
        if args.stage == "vocoder":
            main_vocoder(run, args, work)
            run.report["ok"] = True
            run.save()
            say(f"done in {run.elapsed():.0f} s: vocoder in {run.out / 'weights-vocoder'}")
            return 0
        # The render runs on the CPU cores while the env step's gradient check has Triton compile mamba-ssm's
        # kernels: on an H200 that compile took 197 s of an 8-minute run (docs/model.md).
        job = run.start(render_cmd(args, data))
        try:
            run.step("env", environment, args.device)
            run.step("render", render, run, args, data, job)
        finally:
            job.stop()  # a no-op once the render has ended; else (env failed, interrupted) it is killed
        run.step("baseline", baseline, run, args, data, runs)
        run.step("train", train, run, args, data, runs, export)
        run.step("export", export_weights, run, args, export)
        run.step("speed", speed, args, run.out / "weights")
    except StepFailed as exc:
        say(str(exc))
        run.save()
        return 2 if "sees no CUDA" in str(exc) else 1
    run.report["ok"] = True
    run.report["evaluate_here"] = (f"python -m model_server.evaluate --model <returned {args.out.name}>/weights "
                                   f"--voices {args.voice} --limit 40 --report <file>")  # fmt: skip
    run.save()
    steps = run.report["steps"]
    say(f"done in {run.elapsed():.0f} s: render {steps['render']['wall_s']} s ({steps['render']['hours']} h), "
        f"train {steps['train']['seconds']} s ({steps['train']['steps']} steps, {steps['train']['frames_per_s']} "
        f"frames/s, {steps['train']['mamba2_path']}), val loss {steps['baseline']['val_loss']} -> "
        f"{steps['train']['val_loss']}; weights in {run.out / 'weights'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
