"""`make demo`: the main job on the bundled defaults, end to end on one machine.

1. Synthesize every stack (deployment=both) into cdk.out with cdk-nag validation.
2. Start the bundled server on 127.0.0.1 with the shipped model.
3. Speak a sentence into a WAV file through the Cartesia-compatible streaming API.
4. Print the time to first audio and where the outputs are, then stop the server (SIGTERM drain).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from model_server.bench.local import LocalServer

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SENTENCE = (
    "Hello! This is Statespeak, a state space model speaking from your own machine. "
    "Your order of $42.50 ships on March 3rd."
)


def _step(title: str) -> None:
    print(f"\n== {title}", flush=True)


def synthesize_stacks(cdk_out: Path) -> list[Path]:
    """Run the CDK app with every stack enabled; returns the synthesized templates."""
    env = dict(os.environ)
    env["CDK_CONTEXT_JSON"] = json.dumps({"deployment": "both"})
    env["CDK_OUTDIR"] = str(cdk_out)
    env.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "app.py"], cwd=REPO_ROOT, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"demo: CDK synthesis failed (exit {proc.returncode}); see the output above")
    templates = sorted(cdk_out.glob("*.template.json"))
    print(f"synthesized {len(templates)} templates in {time.perf_counter() - started:.1f} s:")
    for template in templates:
        resources = json.loads(template.read_text()).get("Resources", {})
        print(
            f"  {template.relative_to(REPO_ROOT) if template.is_relative_to(REPO_ROOT) else template}"
            f"  ({len(resources)} resources)"
        )
    return templates


def speak(base: str, text: str, voice: str, wav_path: Path) -> tuple[float, float, int]:
    """Stream one utterance as WAV; returns (time to first audio s, total s, bytes)."""
    body = {
        "model_id": "statespeak-mamba2",
        "transcript": text,
        "voice": {"mode": "id", "id": voice},
        "output_format": {"container": "wav", "encoding": "pcm_s16le", "sample_rate": 24000},
        "language": "en",
    }
    started = time.perf_counter()
    first_audio = None
    size = 0
    with (
        wav_path.open("wb") as out,
        httpx.stream("POST", base + "/tts/bytes", json=body, timeout=120) as resp,
    ):
        if resp.status_code != 200:
            raise SystemExit(
                f"demo: /tts/bytes answered {resp.status_code}: {resp.read().decode(errors='replace')}"
            )
        for chunk in resp.iter_bytes():
            # The first 44 bytes are the WAV header: first audio is the first byte after it.
            if first_audio is None and size + len(chunk) > 44:
                first_audio = time.perf_counter() - started
            out.write(chunk)
            size += len(chunk)
    return first_audio or float("nan"), time.perf_counter() - started, size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cdk-out", type=Path, default=REPO_ROOT / "cdk.out")
    parser.add_argument("--wav", type=Path, default=REPO_ROOT / "demo.wav")
    parser.add_argument("--text", default=DEFAULT_SENTENCE)
    parser.add_argument("--voice", default="en_female_slt")
    parser.add_argument("--skip-synth", action="store_true", help="only start the server and speak")
    args = parser.parse_args(argv)
    cdk_out, wav_path = args.cdk_out.resolve(), args.wav.resolve()

    if not args.skip_synth:
        _step("1/3 synthesize every stack (deployment=both) with cdk-nag")
        synthesize_stacks(cdk_out)

    _step("2/3 start the bundled server on 127.0.0.1")
    log_path = wav_path.with_suffix(".server.log")
    started = time.perf_counter()
    # The benchmark's launcher: free port, readiness wait, SIGTERM drain on the way out.
    with LocalServer(log_path, max_streams=None, ready_timeout_s=180) as server:
        print(f"ready on {server.url} after {time.perf_counter() - started:.1f} s (log: {log_path})")
        _step("3/3 speak a sentence")
        print(f"text : {args.text}")
        ttfa, total, size = speak(server.url, args.text, args.voice, wav_path)
        audio_s = (size - 44) / (2 * 24000)
        print(f"time to first audio : {ttfa * 1000:.0f} ms (loopback, client side)")
        print(f"audio               : {audio_s:.2f} s in {total:.2f} s ({audio_s / total:.1f}x real time)")
    print("\noutputs:")
    if not args.skip_synth:
        print(f"  templates : {cdk_out}")
    print(f"  audio     : {wav_path}")
    print(f"  server log: {log_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
