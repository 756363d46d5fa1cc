"""Serving knobs for scale (issue 15): WebSocket permessage-deflate off by default and configurable, and
torch's thread pools sized at start (in the engine process). Real server subprocesses with two API workers
(each worker's uvicorn applies the compression setting), a real WebSocket client that offers
compression (the `websockets` client does by default), the negotiated extensions read from the handshake.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import socket
import subprocess
import sys
import time

import pytest
import websockets

from model_server.config import (
    ENV_KEEP_ALIVE_S,
    ENV_MAX_CHUNK_FRAMES,
    ENV_TORCH_INTEROP_THREADS,
    ENV_TORCH_THREADS,
    ENV_WS_PER_MESSAGE_DEFLATE,
    ConfigError,
    ServerConfig,
)
from model_server.threads import available_cpus, plan_threads

from ._server import REPO, ServerProcess


def extensions_per_worker(ws_url: str, workers: int = 2, tries: int = 80) -> dict[str, str]:
    """{API worker pid: negotiated extensions}: new connections (held open, like the clients of
    test_processes.py) until every worker answered one or `tries` were made; the kernel picks the worker."""

    async def handshakes() -> dict[str, str]:
        seen: dict[str, str] = {}
        async with contextlib.AsyncExitStack() as stack:
            for _ in range(tries):
                ws = await stack.enter_async_context(
                    websockets.connect(ws_url + "/tts/websocket", compression="deflate")
                )
                headers = ws.response.headers
                seen[headers["X-Statespeak-Worker"]] = headers.get("Sec-WebSocket-Extensions", "")
                if len(seen) == workers:
                    break
        return seen

    return asyncio.run(handshakes())


def start_log(proc: ServerProcess, message: str = "torch threads") -> list[dict]:
    lines = (proc.stdout() + proc.stderr()).splitlines()
    return [json.loads(line) for line in lines if line.startswith("{") and f'"{message}"' in line]


def test_websocket_compression_is_off_by_default_and_threads_are_logged(server):
    # The client offers permessage-deflate; no worker of the shared (two-worker) server accepts it.
    negotiated = extensions_per_worker(server.ws_url)
    assert len(negotiated) == 2 and set(negotiated.values()) == {""}, negotiated
    (record,) = start_log(server)
    # The shared test server runs with OMP_NUM_THREADS=1 and no Statespeak setting: OMP wins.
    assert record["intra_op_threads"] == 1 and record["source"] == "OMP_NUM_THREADS"
    assert record["inter_op_threads"] == 1  # CPU device
    (loading,) = start_log(server, "loading model")
    assert loading["device"] == "cpu" and loading["max_chunk_frames"] == 32  # the CPU's default


def test_compression_and_thread_counts_follow_the_environment(model_dir, tmp_path):
    env = {ENV_WS_PER_MESSAGE_DEFLATE: "true", ENV_TORCH_THREADS: "2", ENV_TORCH_INTEROP_THREADS: "3",
           "STATESPEAK_WORKERS": "2", ENV_MAX_CHUNK_FRAMES: "16"}  # fmt: skip
    with ServerProcess(model_dir, tmp_path, **env) as proc:
        negotiated = extensions_per_worker(proc.ws_url)
        (record,) = start_log(proc)  # one engine logs its threads; the two workers have no torch
    assert len(negotiated) == 2, "one worker took every connection"
    assert all(ext.startswith("permessage-deflate") for ext in negotiated.values()), negotiated
    assert record["intra_op_threads"] == 2 and record["source"] == ENV_TORCH_THREADS
    assert record["inter_op_threads"] == 3
    (loading,) = start_log(proc, "loading model")
    assert loading["max_chunk_frames"] == 16


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        (ENV_TORCH_THREADS, "many", "not an integer"),
        (ENV_TORCH_THREADS, "-1", "out of range"),
        (ENV_TORCH_INTEROP_THREADS, "65", "out of range"),
        (ENV_WS_PER_MESSAGE_DEFLATE, "maybe", "not a boolean"),
        (ENV_KEEP_ALIVE_S, "0", "out of range"),
        (ENV_KEEP_ALIVE_S, "soon", "not an integer"),
    ],
)
def test_bad_values_name_the_variable(name, value, reason):
    with pytest.raises(ConfigError, match=f"{name}.*{reason}"):
        ServerConfig.from_env({name: value})


def test_a_bad_value_stops_the_server_before_it_loads_anything():
    env = {**os.environ, ENV_TORCH_THREADS: "many"}
    proc = subprocess.run(
        [sys.executable, "-m", "model_server", "serve", "--port", "1"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard, not a timing check
    )
    assert proc.returncode == 2 and ENV_TORCH_THREADS in proc.stderr


def test_defaults_and_precedence():
    config = ServerConfig.from_env({})
    assert config.ws_per_message_deflate is False
    assert config.torch_threads == 0 and config.torch_interop_threads == 0
    cpus = available_cpus()
    plan = plan_threads(config, cuda=False, env={"OMP_NUM_THREADS": ""})
    assert plan.intra_op == cpus and plan.inter_op == 1 and plan.source == "available CPUs"
    assert plan_threads(config, cuda=True, env={}).inter_op == 2
    assert plan_threads(config, cuda=False, env={"OMP_NUM_THREADS": "3"}).intra_op == 3
    # The engine shares the host with its API workers: on the CPU it leaves one core per worker (at least
    # one thread remains); on CUDA its host side only launches kernels: one thread.
    workers = dataclasses.replace(config, workers=2)
    assert plan_threads(workers, cuda=False, env={}).intra_op == max(1, cpus - 2)
    plan = plan_threads(workers, cuda=True, env={})
    assert (plan.intra_op, plan.inter_op, plan.source) == (1, 2, "CUDA device")
    assert plan_threads(workers, cuda=True, env={"OMP_NUM_THREADS": "3"}).intra_op == 3
    pinned = ServerConfig.from_env({ENV_TORCH_THREADS: "5", ENV_TORCH_INTEROP_THREADS: "4"})
    plan = plan_threads(pinned, cuda=True, env={"OMP_NUM_THREADS": "3"})
    assert (plan.intra_op, plan.inter_op, plan.source) == (5, 4, ENV_TORCH_THREADS)


def test_available_cpus_honours_a_cgroup_quota(tmp_path):
    cpu_max = tmp_path / "cpu.max"
    cpu_max.write_text("50000 100000\n")  # half a CPU: still one thread
    assert available_cpus(cpu_max) == 1
    cpu_max.write_text("max 100000\n")
    assert available_cpus(cpu_max) == len(os.sched_getaffinity(0))
    assert available_cpus(tmp_path / "missing") == len(os.sched_getaffinity(0))


def closed_while_idle(port: int, idle_s: float) -> bool:
    """Whether the server closes a keep-alive HTTP connection that has been idle for `idle_s` after a request."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: statespeak\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += sock.recv(4096)
        head, body = answer.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 200"), head[:80]
        length = int(
            next(h.split(b":")[1] for h in head.split(b"\r\n") if h.lower().startswith(b"content-length"))
        )
        while len(body) < length:
            body += sock.recv(4096)
        time.sleep(idle_s)
        sock.settimeout(1.0)
        try:
            return sock.recv(4096) == b""  # end of stream: the server closed it
        except TimeoutError:
            return False


def test_idle_keep_alive_connections_follow_the_setting(server, model_dir, tmp_path):
    """The server must hold an idle connection longer than the load balancer in front of it (the ECS route
    sets STATESPEAK_KEEP_ALIVE_S to the ALB's idle timeout + a margin), or the balancer sends a request on a
    connection the server has just closed: a 502. The default (75 s) keeps it; 1 s closes it."""
    assert ServerConfig.from_env({}).keep_alive_s == 75
    assert not closed_while_idle(server.port, 2.5)
    with ServerProcess(model_dir, tmp_path, **{ENV_KEEP_ALIVE_S: "1", "STATESPEAK_WORKERS": "1"}) as proc:
        assert closed_while_idle(proc.port, 2.5)
