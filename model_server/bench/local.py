"""`--local`: start the bundled server on 127.0.0.1 on a free port, wait for readiness, stop it after."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from model_server.contract import ENV_MAX_STREAMS, READY_PATH


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalServer:
    """The bundled server as a child process; a context manager that always stops it."""

    def __init__(
        self,
        log_path: Path,
        max_streams: int | None,
        ready_timeout_s: float = 300.0,
        extra_env: dict[str, str] | None = None,
    ):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.max_streams = max_streams
        self.ready_timeout_s = ready_timeout_s
        self.extra_env = extra_env or {}
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> LocalServer:
        env = dict(os.environ, **self.extra_env)
        if self.max_streams is not None:
            env[ENV_MAX_STREAMS] = str(self.max_streams)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("wb")
        cmd = [sys.executable, "-m", "model_server", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        self.proc = subprocess.Popen(cmd, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        try:
            self._wait_ready()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"the local server exited with code {self.proc.returncode} before it was ready; "
                    f"see {self.log_path}"
                )
            try:
                if httpx.get(self.url + READY_PATH, timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass  # not listening yet
            time.sleep(0.5)
        raise TimeoutError(
            f"the local server was not ready within {self.ready_timeout_s:.0f}s; see {self.log_path}"
        )

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system, all threads) the server process has used; None where /proc is absent.

        Unlike latency, it barely moves when other work shares the cores: the bench's contention-robust
        measure of what one second of audio costs the server.
        """
        if self.proc is None:
            return None
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        # Fields 14 and 15 of proc(5), utime and stime, counted from after the ")" ending the name.
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            # SIGTERM drains in-flight streams; kill only if it overstays its drain bound.
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=45)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log.close()
