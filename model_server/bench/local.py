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


def stat_fields(pid: int) -> list[str] | None:
    """/proc/PID/stat from field 3 (state) on: the name before it may hold spaces and parentheses."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def process_tree(root: int) -> list[int]:
    """`root` and every live descendant of it (from each process's parent pid in /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = stat_fields(int(entry.name))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, ()))
    return tree


def tree_cpu_seconds(root: int) -> float | None:
    """CPU seconds used by `root`'s process tree: each live process's own time (utime, stime) plus that of
    its children it has already reaped (cutime, cstime), so a replaced worker's time is still counted."""
    if stat_fields(root) is None:
        return None
    ticks = 0
    for pid in process_tree(root):
        fields = stat_fields(pid)
        if fields is not None:
            # Fields 14 to 17 of proc(5), utime stime cutime cstime, counted from after the ")".
            ticks += sum(int(f) for f in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def _failed_reason(response: httpx.Response | None) -> str | None:
    """The reason a readiness answer gives when the server has refused readiness for good (phase
    "failed": the model did not load, or a GPU route found no kernels), else None (still loading)."""
    if response is None or response.status_code != 503:
        return None
    try:
        body = response.json()
    except ValueError:
        return None
    if not isinstance(body, dict) or body.get("status") != "failed":
        return None
    return str(body.get("reason") or "no reason given")


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
                response = httpx.get(self.url + READY_PATH, timeout=2.0)
            except httpx.HTTPError:
                response = None  # not listening yet
            if response is not None and response.status_code == 200:
                return
            failed = _failed_reason(response)
            if failed is not None:  # it stays up but refuses readiness for good: no use waiting it out
                raise RuntimeError(f"the local server will not become ready: {failed}; see {self.log_path}")
            time.sleep(0.5)
        raise TimeoutError(
            f"the local server was not ready within {self.ready_timeout_s:.0f}s; see {self.log_path}"
        )

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system, all threads) the server has used: its supervisor, engine and API
        worker processes together (the whole process tree); None where /proc is absent.

        Unlike latency, it barely moves when other work shares the cores: the bench's contention-robust
        measure of what one second of audio costs the server.
        """
        if self.proc is None:
            return None
        return tree_cpu_seconds(self.proc.pid)

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
