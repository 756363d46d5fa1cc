"""Command line of the load bench: parse, start the local server if asked, run the levels, report."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import hashlib
import importlib.metadata
import json
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from model_server.contract import ENV_MODEL_DIR

from . import engine_account, report
from .arrivals import ARRIVAL_MODELS, open_capacity, poisson_arrivals, poisson_label, staggered_offsets
from .clients import SAGEMAKER_SCHEME, ClientPool, ClientSetup, LevelPlan, run_shard
from .local import LocalServer
from .runner import LevelResult, ramp_levels, records_as_dicts, streams_per_replica
from .streams import StreamOptions
from .texts import MIX_WEIGHTS, TextMix

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS_PAGE = REPO_ROOT / "docs" / "benchmarks.md"
DOCS_IMAGE = REPO_ROOT / "docs" / "img" / "bench_cpu.png"
BUNDLED_MODEL_DIR = REPO_ROOT / "model_server" / "weights" / "default"


def parse_levels(text: str) -> list[int]:
    try:
        levels = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--concurrency takes integers separated by commas, got {text!r}"
        ) from None
    if not levels or any(c < 1 for c in levels):
        raise argparse.ArgumentTypeError(f"--concurrency levels must be >= 1, got {text!r}")
    return sorted(set(levels))


def parse_rates(text: str) -> list[float]:
    try:
        rates = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--rates takes numbers separated by commas, got {text!r}") from None
    if not rates or any(r <= 0 for r in rates):
        raise argparse.ArgumentTypeError(f"--rates must be > 0 streams per second, got {text!r}")
    return sorted(set(rates))


def parse_arrivals(text: str) -> list[str]:
    models = [x.strip() for x in text.split(",") if x.strip()]
    bad = [m for m in models if m not in ARRIVAL_MODELS]
    if not models or bad:
        raise argparse.ArgumentTypeError(
            f"--arrivals takes {', '.join(ARRIVAL_MODELS)} separated by commas, got {text!r}"
        )
    return list(dict.fromkeys(models))  # each model once, in the order given


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m model_server.bench",
        description="Load benchmark: time to first audio, real-time playback stalls and rejections per "
        "concurrency level, against a local server, an ALB URL or a SageMaker endpoint.",
    )
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--target", help="http(s)://host:port of a server or ALB, or sagemaker://ENDPOINT_NAME"
    )
    where.add_argument(
        "--local",
        action="store_true",
        help="start the bundled server on 127.0.0.1 (free port) and stop it after",
    )
    p.add_argument(
        "--protocol",
        choices=["ws", "http", "sse"],
        default="ws",
        help="ws: /tts/websocket (default); http: /tts/bytes; sse: /tts/sse. SageMaker targets use /invocations",
    )
    p.add_argument(
        "--continuations",
        action="store_true",
        help="WebSocket: send each transcript in word groups with continue=true, as an LLM streams it",
    )
    p.add_argument(
        "--piece-interval-ms", type=float, default=50.0, help="pause between continuation pieces (default 50)"
    )
    levels = p.add_mutually_exclusive_group()
    levels.add_argument(
        "--concurrency",
        type=parse_levels,
        default=[1, 2, 4, 8, 16, 32, 64],
        help="fixed concurrency levels, comma-separated (default 1,2,4,8,16,32,64)",
    )
    levels.add_argument(
        "--ramp",
        type=int,
        metavar="MAX",
        help="ramp 1,2,4,...,MAX, stopping after the first level that misses the target",
    )
    p.add_argument(
        "--arrivals",
        type=parse_arrivals,
        default=["closed"],
        help="arrival models to run, comma-separated: closed (C streams in flight, all starting together; "
        "default), staggered (closed, first starts spread over --stagger-seconds), poisson (open loop: "
        "streams arrive at each of --rates whatever is in flight)",
    )
    p.add_argument(
        "--stagger-seconds", type=float, default=2.0, help="staggered: window of the first starts (default 2)"
    )
    p.add_argument(
        "--rates",
        type=parse_rates,
        default=[1.0, 2.0, 4.0, 8.0],
        help="poisson: arrival rates in streams per second, comma-separated (default 1,2,4,8)",
    )
    p.add_argument(
        "--arrival-seconds",
        type=float,
        default=20.0,
        help="poisson: how long arrivals continue at each rate (default 20); the level's share of "
        "--max-seconds must cover it, arrivals past the share are not sent",
    )
    p.add_argument(
        "--clients",
        type=int,
        default=1,
        help="client processes sharing each level, one event loop each (default 1: this process)",
    )
    p.add_argument(
        "--client-busy-limit",
        type=float,
        default=0.9,
        help="event-loop utilization at or above which a client process is called saturated and its "
        "level client-limited (default 0.9)",
    )
    p.add_argument(
        "--streams-per-level",
        type=int,
        default=12,
        help="streams sent per level (at least the concurrency; default 12)",
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=240.0,
        help="bound on the whole run in seconds (default 240); each level gets an equal share of what is left",
    )
    p.add_argument("--stream-timeout", type=float, default=60.0, help="bound on one stream, seconds")
    p.add_argument(
        "--jitter-ms",
        type=float,
        default=100.0,
        help="client jitter buffer before playback starts (default 100)",
    )
    p.add_argument(
        "--ttfa-target-ms", type=float, default=200.0, help="p99 client TTFA target for streams per replica"
    )
    p.add_argument(
        "--voice",
        help="voice id (default on HTTP targets: the first English voice GET /voices lists; "
        "required for sagemaker:// targets, which have no /voices route)",
    )
    p.add_argument(
        "--sample-rate", type=int, default=16000, help="requested output rate (default 16000, the model's)"
    )
    p.add_argument(
        "--api-key",
        default=os.environ.get("STATESPEAK_API_KEY"),
        help="sent as Authorization: Bearer (default: $STATESPEAK_API_KEY)",
    )
    p.add_argument(
        "--max-streams",
        type=int,
        help="--local only: the server's MAX_STREAMS (default: the highest concurrency level)",
    )
    p.add_argument("--region", help="sagemaker:// only: AWS region (default: boto3's)")
    p.add_argument(
        "--endpoint-url",
        help="sagemaker:// only: SageMaker runtime URL (a VPC interface endpoint's DNS name, or a local stand-in)",
    )
    p.add_argument("--seed", type=int, default=0, help="text mix seed")
    p.add_argument("--out", type=Path, default=Path("bench-out"), help="output folder (default bench-out/)")
    p.add_argument(
        "--update-docs",
        action="store_true",
        help="also write the PNG to docs/img/ and the numbers into docs/benchmarks.md",
    )
    p.add_argument("--no-progress", action="store_true", help="no tqdm progress bar")
    return p


def host_info() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    try:
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_version = "not installed"
    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch_version,
        "platform": platform.platform(),
    }


def describe_weights(local: bool) -> str:
    """Which weights a local run served: the model dir and a short hash, so numbers can be traced."""
    if not local:
        return "as deployed behind the target"
    model_dir = Path(os.environ.get(ENV_MODEL_DIR) or BUNDLED_MODEL_DIR)
    weights = model_dir / "model.safetensors"
    if not weights.exists():
        return f"{model_dir} (no model.safetensors there: the server's own fallback)"
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()[:12]
    try:
        rel = model_dir.resolve().relative_to(REPO_ROOT)
    except ValueError:
        rel = model_dir
    text = f"{rel}/model.safetensors sha256 {digest}"
    # The checkpoint's own record of what it is (training run summary, or a random-weights marker).
    with contextlib.suppress(OSError, ValueError, AttributeError):
        extra = json.loads((model_dir / "config.json").read_text()).get("extra") or {}
        if extra.get("random"):
            text += ", untrained random weights"
        if extra.get("note"):
            text += f" ({extra['note']})"
        facts = [
            f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
            for k, v in extra.items()
            if k not in ("random", "note") and isinstance(v, int | float | str) and not isinstance(v, bool)
        ]
        if facts:
            text += f" (checkpoint: {', '.join(facts[:4])})"
        voices = json.loads((model_dir / "config.json").read_text()).get("voices") or []
        if voices:
            text += f"; voices: {', '.join(v['id'] for v in voices)}"
    return text


async def first_voice(base_url: str, api_key: str | None, language: str = "en") -> str:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with httpx.AsyncClient(timeout=10.0) as client:
            resp = await client.get(base_url.rstrip("/") + "/voices", headers=headers)
    except httpx.HTTPError as exc:
        raise SystemExit(f"cannot reach {base_url} (GET /voices: {type(exc).__name__}: {exc})") from None
    if resp.status_code != 200:
        raise SystemExit(f"GET /voices returned HTTP {resp.status_code}; pass --voice")
    voices = resp.json().get("voices") or []
    if not voices:
        raise SystemExit("GET /voices lists no voices; pass --voice")
    # The text mix is English: an English voice if the model has one, else whatever comes first.
    return next((v["id"] for v in voices if v.get("language") == language), voices[0]["id"])


def level_plan(
    args: argparse.Namespace, model: str, value: float, mix: TextMix, budget_s: float
) -> LevelPlan:
    """One level of one arrival model: its requests (drawn from the mix, in order) and start times."""
    jitter_s = args.jitter_ms / 1000.0
    if model == "poisson":
        times = poisson_arrivals(value, args.arrival_seconds, seed=f"{args.seed}/{value:g}")
        items = tuple(mix.next() for _ in times)
        label = poisson_label(value)
        return LevelPlan(model, label, items, tuple(times), budget_s, jitter_s, rate_per_s=value)
    c = int(value)
    items = tuple(mix.next() for _ in range(max(args.streams_per_level, c)))  # each worker sends one
    offsets = staggered_offsets(c, args.stagger_seconds) if model == "staggered" else [0.0] * c
    label = f"c={c} staggered" if model == "staggered" else f"c={c}"
    return LevelPlan(model, label, items, tuple(offsets), budget_s, jitter_s, concurrency=c)


def run_levels(
    args: argparse.Namespace,
    target: str,
    levels: list[int],
    rates: list[float],
    server_cpu: Callable[[], float | None] | None = None,
    gpu_busy: Callable[[], float | None] | None = None,
) -> list[LevelResult]:
    """Every level of `levels` (and Poisson `rates`), each stopping its ramp at its first level past the target.
    `server_cpu` and `gpu_busy` are running totals (the server's CPU seconds, the GPU's busy seconds), read
    before and after each level."""
    voice = args.voice
    if voice is None:
        if target.startswith(SAGEMAKER_SCHEME):
            raise SystemExit("a sagemaker:// target needs --voice (the endpoint has no /voices route)")
        voice = asyncio.run(first_voice(target, args.api_key))
    args.resolved_voice = voice  # reported with the results
    opts = StreamOptions(
        voice=voice,
        sample_rate=args.sample_rate,
        api_key=args.api_key,
        continuations=args.continuations,
        piece_interval_s=args.piece_interval_ms / 1000.0,
        timeout_s=args.stream_timeout,
    )
    setup = ClientSetup(target, args.protocol, opts, args.region, args.endpoint_url, args.client_busy_limit)
    schedule = [(m, v) for m in args.arrivals for v in (rates if m == "poisson" else levels)]
    mix = TextMix(args.seed)
    results: list[LevelResult] = []
    bar = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=len(schedule), unit="level", desc="bench", file=sys.stderr)
    run_deadline = time.monotonic() + args.max_seconds
    http_target = target.startswith(("http://", "https://"))  # a SageMaker endpoint has no /metrics
    stopped: set[str] = set()  # arrival models whose ramp stopped
    with ClientPool(args.clients, setup) if args.clients > 1 else contextlib.nullcontext() as pool:
        for i, (model, value) in enumerate(schedule):
            if model in stopped:
                continue
            left = run_deadline - time.monotonic()
            if left <= 1.0:
                print(f"time budget spent: {model} level {value:g} and after not run", file=sys.stderr)
                break
            plan = level_plan(args, model, value, mix, left / (len(schedule) - i))
            if bar is not None:
                bar.set_description(f"bench {plan.label}")
            cpu_before = server_cpu() if server_cpu else None
            gpu_before = gpu_busy() if gpu_busy else None
            engine_before = engine_account.scrape(target) if http_target else None
            level = pool.run(plan) if pool is not None else run_shard(setup, plan)
            cpu_after = server_cpu() if server_cpu else None
            if cpu_before is not None and cpu_after is not None:
                level.server_cpu_s = cpu_after - cpu_before
            gpu_after = gpu_busy() if gpu_busy else None
            if gpu_before is not None and gpu_after is not None:
                level.gpu_busy_s = gpu_after - gpu_before
            if engine_before is not None:
                chunks = sum(r.chunks for r in level.records)
                level.engine = engine_account.level_account(
                    engine_before, engine_account.scrape(target), level.elapsed_s, chunks
                )
            results.append(level)
            if bar is not None:
                bar.update(1)
            if args.ramp and not level.summary(args.ttfa_target_ms)["meets_target"]:
                stopped.add(model)  # a ramp stops at the first level past capacity
    if bar is not None:
        bar.close()
    return results


def run(args: argparse.Namespace) -> dict[str, Any]:
    levels = ramp_levels(args.ramp) if args.ramp else args.concurrency
    if args.streams_per_level < 1:
        raise SystemExit("--streams-per-level must be >= 1")
    if args.clients < 1:
        raise SystemExit("--clients must be >= 1")
    if not 0 < args.client_busy_limit <= 1:
        raise SystemExit("--client-busy-limit must be within (0, 1]")
    if args.stagger_seconds < 0 or args.arrival_seconds <= 0:
        raise SystemExit("--stagger-seconds must be >= 0 and --arrival-seconds > 0")
    if args.max_seconds <= 0 or args.stream_timeout <= 0 or args.jitter_ms < 0:
        raise SystemExit("--max-seconds and --stream-timeout must be > 0, --jitter-ms >= 0")
    if args.update_docs and not args.local:
        raise SystemExit("--update-docs needs --local (the docs section describes this machine's CPU server)")
    if args.max_streams is not None and not args.local:
        raise SystemExit("--max-streams applies only with --local (a remote server has its own MAX_STREAMS)")
    if (args.region or args.endpoint_url) and not (args.target or "").startswith(SAGEMAKER_SCHEME):
        raise SystemExit("--region and --endpoint-url apply to sagemaker:// targets only")
    if args.continuations and args.protocol != "ws":
        raise SystemExit("--continuations needs --protocol ws")
    if args.target and not (args.target.startswith(("http://", "https://", SAGEMAKER_SCHEME))):
        raise SystemExit(f"--target must be http(s)://... or {SAGEMAKER_SCHEME}NAME, got {args.target!r}")
    args.out.mkdir(parents=True, exist_ok=True)

    with contextlib.ExitStack() as stack:
        if args.local:
            server = stack.enter_context(
                LocalServer(args.out / "server.log", args.max_streams if args.max_streams else max(levels))
            )
            target, label = server.url, "the bundled server on 127.0.0.1"
            server_cpu = server.cpu_seconds
        else:
            target = args.target
            label = target
            server_cpu = None  # a remote server's CPU is not visible from here
        protocol = (
            "sagemaker /invocations"
            if target.startswith(SAGEMAKER_SCHEME)
            else {
                "ws": "WebSocket" + (" with continuations" if args.continuations else ""),
                "http": "HTTP /tts/bytes",
                "sse": "HTTP /tts/sse",
            }[args.protocol]
        )
        results = run_levels(args, target, levels, args.rates, server_cpu)

    command = "python -m model_server.bench " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    meta = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command.strip(),
        "target_label": label,
        "protocol": protocol,
        "jitter_ms": args.jitter_ms,
        "ttfa_target_ms": args.ttfa_target_ms,
        "streams_per_level": args.streams_per_level,
        "arrivals": args.arrivals,
        "stagger_seconds": args.stagger_seconds,
        "rates": args.rates if "poisson" in args.arrivals else [],
        "arrival_seconds": args.arrival_seconds,
        "clients": args.clients,
        "client_busy_limit": args.client_busy_limit,
        "max_seconds": args.max_seconds,
        "sample_rate": args.sample_rate,
        "voice": getattr(args, "resolved_voice", args.voice),
        "text_mix": ", ".join(f"{k} {w:.0%}" for k, w in MIX_WEIGHTS.items()),
        "host": host_info(),
        "weights": describe_weights(args.local),
    }
    return bench_document(meta, results, args.ttfa_target_ms)


def bench_document(meta: dict[str, Any], results: list[LevelResult], ttfa_target_ms: float) -> dict[str, Any]:
    """The bench's JSON document (what bench.json holds and the report renders) from its levels."""
    summaries = [lvl.summary(ttfa_target_ms) for lvl in results]
    return {
        "meta": meta,
        "levels": summaries,
        "streams_per_replica": streams_per_replica(summaries, "closed"),
        "staggered_streams_per_replica": streams_per_replica(summaries, "staggered"),
        "open_loop_capacity": open_capacity(summaries),
        "client_limited_levels": [s["label"] for s in summaries if s["client_limited"]],
        "streams": records_as_dicts(results),
    }


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result = run(args)
    json_path, md_path, png_path = (args.out / f"bench.{ext}" for ext in ("json", "md", "png"))
    report.write_json(json_path, result)
    report.plot(png_path, result["levels"], result["streams"], result["meta"])
    md_path.write_text(report.docs_section(result, png_path.name) + "\n")
    print(report.markdown_table(result["levels"]))
    print(
        f"\nstreams per replica, closed loop (p99 TTFA < {args.ttfa_target_ms:.0f} ms, no stalls, no failures): "
        f"{report.capacity_text(result)}"
    )
    if result["staggered_streams_per_replica"] is not None:
        print(
            f"streams per replica, staggered starts (same target): {report.capacity_text(result, 'staggered')}"
        )
    open_text = report.open_capacity_text(result)
    if open_text is not None:
        print(f"open-loop capacity: {open_text}")
    print(f"load generator: {report.clients_text(result)}".replace("**", ""))
    for s in result["levels"]:
        for err in s["first_errors"]:
            print(f"  {s['label']}: {err}", file=sys.stderr)
    print(f"wrote {json_path}, {md_path} and {png_path}")
    if args.update_docs:
        report.plot(DOCS_IMAGE, result["levels"], result["streams"], result["meta"])
        report.update_docs(DOCS_PAGE, report.docs_section(result, "img/" + DOCS_IMAGE.name))
        print(f"updated {DOCS_PAGE.relative_to(REPO_ROOT)} and {DOCS_IMAGE.relative_to(REPO_ROOT)}")
    return 0
