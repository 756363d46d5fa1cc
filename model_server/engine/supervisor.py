"""`python -m model_server serve`: the supervisor of the engine process(es) and N API worker processes.

    supervisor (this process: no torch, no requests)
      |- engine 0 .. E-1 (model, slot pool, admission, metrics)   ROUTER on an ipc:// socket each
      |- worker 0 .. N-1 (HTTP/WebSocket on the one listening socket the supervisor bound)   a DEALER per engine

E is 1 unless STATESPEAK_ENGINES / --engines asks for more: each engine then owns a share of MAX_STREAMS
and the workers open each stream on the least-loaded one (`loads`, a shared array of active counts).

Signals: the first SIGTERM/SIGINT starts the drain: the engine refuses new streams from every worker,
each worker turns unready and finishes its streams, then exits; once all have exited the engine stops and
the supervisor exits 0. A second signal is forwarded too (workers then stop at once).

Failures: a worker that dies (kill -9, a crash) is replaced by a new worker on the same socket, and the
engines cancel the dead worker's streams so their slots free at once; the other workers' streams go on.
If an engine dies, every worker fails its streams with an error and turns unready (SIGUSR2), and the
supervisor exits non-zero, so ECS or SageMaker replace the task.
"""

from __future__ import annotations

import ctypes
import dataclasses
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import tempfile
import time
import uuid

import zmq

from model_server.config import ServerConfig
from model_server.engine import protocol as p
from model_server.threads import available_cpus

log = logging.getLogger("statespeak.supervisor")

ENGINE_LOST_EXIT_S = 10.0  # workers' time to send their error messages before they are killed
ENGINE_STOP_S = 10.0
RESTARTS_PER_MINUTE = 5  # more worker deaths than this in a minute: give up (exit 1) instead of looping
_PR_SET_PDEATHSIG = 1


def detach_from_terminal() -> None:
    """For a child: its own process group (a terminal's Ctrl-C reaches the supervisor alone, which then
    drains in order), and SIGKILL when the supervisor dies so no child outlives it."""
    os.setpgrp()
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:  # not Linux: children still end when their sockets close
        pass


def default_workers() -> int:
    """The container default when STATESPEAK_WORKERS is unset: half the CPUs this process may use (its
    affinity mask, capped by a cgroup quota; not the host's cores), 1 to 8."""
    return max(1, min(8, available_cpus() // 2))


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


class Supervisor:
    def __init__(self, host: str, port: int, config: ServerConfig) -> None:
        self.config = config  # config.workers: the worker processes to keep running; config.engines: engines
        run = f"{tempfile.gettempdir()}/statespeak-{uuid.uuid4().hex[:12]}"
        self.endpoints = [f"ipc://{run}-e{k}.ipc" for k in range(config.engines)]
        self.sock = bind_socket(host, port)
        self.mp = multiprocessing.get_context("spawn")
        # each engine's active streams, written by it once per loop; read by the workers (routing) and
        # engine 0 (the task's ActiveStreams); unlocked: one writer per entry, and a stale read is harmless
        self.loads = self.mp.RawArray("i", config.engines)
        self.engines: list[multiprocessing.Process] = []
        self.workers: dict[int, tuple[multiprocessing.Process, bytes]] = {}
        self.generation = 0
        self.signals = 0
        self.draining = False
        self.restarts: list[float] = []
        self._ctl: list[zmq.Socket] = []

    # children ---------------------------------------------------------------------------------------------
    def _start_engines(self) -> None:
        from model_server.engine.process import engine_main

        for k, (endpoint, slots) in enumerate(zip(self.endpoints, self.config.engine_slots(), strict=True)):
            config = dataclasses.replace(self.config, max_streams=slots)
            name = "statespeak-engine" if self.config.engines == 1 else f"statespeak-engine-{k}"
            proc = self.mp.Process(
                target=engine_main, args=(config, endpoint, k, self.loads), name=name, daemon=False
            )
            proc.start()
            self.engines.append(proc)

    def _start_worker(self, index: int) -> None:
        from model_server.api.server import worker_main

        self.generation += 1
        identity = p.worker_identity(index, self.generation)
        proc = self.mp.Process(target=worker_main, args=(self.config, self.endpoints, identity, self.sock, self.loads),
                               name=f"statespeak-worker-{index}", daemon=False)  # fmt: skip
        proc.start()
        self.workers[index] = (proc, identity)

    def _tell_engines(self, *item) -> None:
        for ctl in self._ctl:
            ctl.send(p.pack([item]))

    # signals -----------------------------------------------------------------------------------------------
    def _on_signal(self, sig, frame) -> None:
        self.signals += 1

    def _forward_signal(self) -> None:
        first = not self.draining
        self.draining = True
        if first:
            log.info("signal received, draining", extra={"workers": len(self.workers)})
            self._tell_engines(p.DRAIN)
        for proc, _ in self.workers.values():
            if proc.is_alive():
                os.kill(proc.pid, signal.SIGTERM)

    # run ---------------------------------------------------------------------------------------------------
    def run(self) -> int:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        ctx = zmq.Context.instance()
        for endpoint in self.endpoints:
            ctl = ctx.socket(zmq.DEALER)
            ctl.setsockopt(zmq.IDENTITY, p.SUPERVISOR_ID)
            ctl.setsockopt(zmq.LINGER, 1000)
            ctl.connect(endpoint)
            self._ctl.append(ctl)
        self._start_engines()
        for i in range(self.config.workers):
            self._start_worker(i)
        log.info("serving", extra={"workers": self.config.workers, "engine_pid": self.engines[0].pid,
                                   "engine_pids": [e.pid for e in self.engines],
                                   "port": self.sock.getsockname()[1]})  # fmt: skip
        handled = 0
        try:
            while True:
                if self.signals > handled:
                    handled = self.signals
                    self._forward_signal()
                sentinels = [e.sentinel for e in self.engines] + [
                    proc.sentinel for proc, _ in self.workers.values()
                ]
                multiprocessing.connection.wait(sentinels, timeout=0.2)
                dead = next((e for e in self.engines if not e.is_alive()), None)
                if dead is not None:
                    return self._engine_died(dead)
                for index, (proc, identity) in list(self.workers.items()):
                    if proc.is_alive():
                        continue
                    proc.join()
                    del self.workers[index]
                    if self.draining:
                        continue
                    if not self._replace_worker(index, proc, identity):
                        return self._give_up()
                if self.draining and not self.workers:
                    return self._stop_engines()
        finally:
            self.sock.close()
            for ctl in self._ctl:
                ctl.close()
            for endpoint in self.endpoints:
                path = endpoint.removeprefix("ipc://")
                if os.path.exists(path):
                    os.unlink(path)

    def _replace_worker(self, index: int, proc, identity: bytes) -> bool:
        now = time.monotonic()
        self.restarts = [t for t in self.restarts if now - t < 60] + [now]
        log.error("worker exited: its streams are cancelled, a new worker takes its place",
                  extra={"worker": identity.decode(), "pid": proc.pid, "exitcode": proc.exitcode})  # fmt: skip
        self._tell_engines(p.WORKER_GONE, identity)
        if len(self.restarts) > RESTARTS_PER_MINUTE:
            return False
        self._start_worker(index)
        return True

    def _give_up(self) -> int:
        log.error("workers keep dying: exiting", extra={"restarts_last_minute": len(self.restarts)})
        self._forward_signal()
        self._wait_workers(ENGINE_LOST_EXIT_S)
        self._stop_engines()
        return 1

    def _engine_died(self, engine: multiprocessing.Process) -> int:
        """One engine gone: the task exits (the others' streams end with it), as with a single engine."""
        log.error("engine process exited: failing every stream and exiting",
                  extra={"exitcode": engine.exitcode, "engine": engine.name})  # fmt: skip
        for proc, _ in self.workers.values():
            if proc.is_alive():
                os.kill(proc.pid, signal.SIGUSR2)
        self._wait_workers(ENGINE_LOST_EXIT_S)
        for other in self.engines:
            if other.is_alive():
                other.kill()
                other.join()
        return 1

    def _wait_workers(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        for proc, _ in self.workers.values():
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join()

    def _stop_engines(self) -> int:
        self._tell_engines(p.STOP)
        deadline = time.monotonic() + ENGINE_STOP_S
        clean = True
        for engine in self.engines:
            engine.join(max(0.0, deadline - time.monotonic()))
            if engine.is_alive():
                engine.kill()
                engine.join()
            clean = clean and engine.exitcode == 0
        if clean:
            log.info("stopped")
        return 0 if clean else 1


def serve(host: str, port: int, config: ServerConfig, workers: int, engines: int | None = None) -> int:
    from model_server.api.logs import setup_logging

    setup_logging(config.log_level)
    # the engines size their threads by both
    config = dataclasses.replace(config, workers=workers, engines=engines or config.engines)
    return Supervisor(host, port, config).run()
