"""A real model server in a subprocess (`python -m model_server serve`) for the server tests."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from model_server.bench.local import free_port

REPO = Path(__file__).resolve().parents[2]
VOICES = (("en_female_a", "A", "en", "female"), ("en_male_b", "B", "en", "male"))


def make_model_dir(path: Path) -> Path:
    """A checkpoint with random weights in the runtime's format: real loading, real inference, no training."""
    import torch

    from model_server.model import checkpoint
    from model_server.model.checkpoint import VoiceInfo
    from model_server.model.runtime import SpeechRuntime

    rt = SpeechRuntime.init_random(voices=[VoiceInfo(*v, "random test voice") for v in VOICES], seed=1)
    with torch.no_grad():  # random duration logits round to 0 frames; log(1 + 6.4): about 6 frames a phone
        rt.ckpt.model.encoder.dur_out.bias.fill_(2.0)
    checkpoint.save(rt.ckpt, path)
    return path


class ServerProcess:
    def __init__(self, model_dir: Path | str, workdir: Path, **env: str) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.workdir = workdir
        self.env = {
            **os.environ,
            "MODEL_DIR": str(model_dir),
            "STATESPEAK_DEVICE": "cpu",
            "PYTHONUNBUFFERED": "1",
            "OMP_NUM_THREADS": "1",
            **env,
        }
        self.proc: subprocess.Popen | None = None

    @property
    def stdout_path(self) -> Path:
        return self.workdir / f"server-{self.port}.out"

    @property
    def stderr_path(self) -> Path:
        return self.workdir / f"server-{self.port}.err"

    def start(self) -> ServerProcess:
        cmd = [sys.executable, "-m", "model_server", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        self.proc = subprocess.Popen(
            cmd,
            cwd=REPO,
            env=self.env,
            stdout=self.stdout_path.open("wb"),
            stderr=self.stderr_path.open("wb"),
        )
        return self

    def wait_ready(self, timeout: float = 90.0) -> ServerProcess:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.stderr()[-3000:]}")
            try:
                if httpx.get(self.base_url + "/ready", timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"server not ready after {timeout} s:\n{self.stderr()[-3000:]}")

    def __enter__(self) -> ServerProcess:
        """`with ServerProcess(...) as proc:` starts the server, waits until it is ready, and stops it after."""
        self.start()
        try:
            return self.wait_ready()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()

    def signal(self, sig: int = signal.SIGTERM) -> None:
        self.proc.send_signal(sig)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGINT)  # second signal: skip the drain
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def stdout(self) -> str:
        return self.stdout_path.read_text(errors="replace")

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def emf_lines(self) -> list[dict]:
        return [json.loads(line) for line in self.stdout().splitlines() if line.startswith('{"_aws"')]

    def metric(self, name: str, labels: str = "") -> float:
        """A sample from GET /metrics, e.g. metric('statespeak_active_streams')."""
        text = httpx.get(self.base_url + "/metrics", timeout=5).text
        pattern = re.escape(name) + (r"\{" + re.escape(labels) + r"\}" if labels else "") + r" ([0-9.e+-]+)$"
        m = re.search(pattern, text, re.M)
        return float(m.group(1)) if m else 0.0

    def wait_metric(self, name: str, value: float, timeout: float = 10.0, labels: str = "") -> float:
        deadline = time.monotonic() + timeout
        got = self.metric(name, labels)
        while got != value and time.monotonic() < deadline:
            time.sleep(0.05)
            got = self.metric(name, labels)
        return got


class InThreadServer:
    """The same engine loop and API worker (build_server: app, engine client, drain-capable uvicorn), each
    in a thread of the test process: starts faster than a subprocess because torch is already imported.
    No supervisor and no signals in a thread."""

    def __init__(self, config) -> None:
        import tempfile
        import uuid

        from model_server.api.server import build_server
        from model_server.engine.process import EngineServer

        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        endpoint = f"ipc://{tempfile.gettempdir()}/statespeak-test-{uuid.uuid4().hex[:12]}.ipc"
        self.engine = EngineServer(config, endpoint)
        self.server = build_server("127.0.0.1", self.port, config, endpoint)
        self.engine_thread = threading.Thread(target=self._run_engine, daemon=True)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def _run_engine(self) -> None:
        import torch

        torch.set_grad_enabled(False)
        self.engine.run()

    def start(self) -> InThreadServer:
        self.engine_thread.start()
        self.thread.start()
        return self

    def wait_ready(self, timeout: float = 90.0) -> InThreadServer:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.thread.is_alive() or not self.engine_thread.is_alive():
                raise RuntimeError("in-thread server stopped before it was ready")
            try:
                if httpx.get(self.base_url + "/ready", timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"in-thread server not ready after {timeout} s")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        self.engine.stop()
        self.engine_thread.join(15)
