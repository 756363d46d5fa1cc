"""One API worker: the app under uvicorn, with Statespeak's drain on SIGTERM.

uvicorn's own SIGTERM handling stops accepting connections and waits only briefly, and it would close
WebSockets with streams still speaking. Here the first SIGTERM/SIGINT starts a drain instead: readiness
turns 503 (load balancers and SageMaker stop routing), new streams are refused with 503 / a WebSocket
error, every in-flight stream runs to its end, and only then (or after DRAIN_TIMEOUT_S) uvicorn shuts
down. A second signal skips the wait. The supervisor (model_server/engine/supervisor.py) sends each
worker the signal; SIGUSR2 from it means the engine process died.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Sequence

import uvicorn

from model_server.api.app import create_app
from model_server.api.read_deadline import http_protocol_class
from model_server.api.state import ServerState
from model_server.api.ws_protocol import DenialAwareWebSocketProtocol
from model_server.config import ServerConfig
from model_server.engine.client import EngineClient

log = logging.getLogger("statespeak.server")
SHUTDOWN_GRACE_S = 3.0  # after the drain: time for uvicorn to close idle connections
ENGINE_LOST_GRACE_S = 1.0  # after the engine died: time for the error messages to reach the clients


class DrainingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, state: ServerState) -> None:
        super().__init__(config)
        self.state = state
        self.exit_code = 0
        self._drain_task: asyncio.Task | bool | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        state.on_fatal = self._fatal

    async def startup(self, sockets=None) -> None:
        self._loop = asyncio.get_running_loop()
        if hasattr(signal, "SIGUSR2"):
            try:
                self._loop.add_signal_handler(signal.SIGUSR2, self._engine_lost)
            except (RuntimeError, ValueError):  # not the main thread (the in-thread test server)
                pass
        await super().startup(sockets)

    def _engine_lost(self) -> None:
        log.error("engine process exited: failing every stream of this worker")
        self.state.engine.engine_lost("the engine process exited; retry on another instance")

    def _fatal(self, reason: str) -> None:
        log.error("exiting", extra={"reason": reason})
        self.exit_code = 1
        if self._loop is not None:
            self._loop.call_later(ENGINE_LOST_GRACE_S, setattr, self, "should_exit", True)
        else:
            self.should_exit = True

    def handle_exit(self, sig: int, frame) -> None:
        if self._drain_task is not None or self._loop is None:
            # Second signal (or one before the loop runs): uvicorn's normal, prompt shutdown.
            super().handle_exit(sig, frame)
            return
        log.info("signal received, draining", extra={"signal": signal.Signals(sig).name})
        self._drain_task = True  # marks the drain as started; the task itself is made on the loop
        self._loop.call_soon_threadsafe(self._start_drain)

    def _start_drain(self) -> None:
        self._drain_task = asyncio.get_running_loop().create_task(self.drain())

    async def drain(self) -> None:
        self.state.begin_drain()
        timeout = self.state.config.drain_timeout_s
        finished = await self.state.wait_drained(timeout)
        if not finished:
            log.warning(
                "drain timeout: closing with streams in flight",
                extra={"timeout_s": timeout, "sessions": self.state.sessions},
            )
            await self.state.end_open_contexts()
        else:
            log.info("drained")
        self.should_exit = True


def build_server(
    host: str,
    port: int,
    config: ServerConfig,
    engine_endpoints: str | Sequence[str],
    identity: bytes = b"w0.0",
    loads: Sequence[int] | None = None,
) -> DrainingServer:
    """`engine_endpoints`: one per engine process (config.engines); `loads`: their active counts (the
    supervisor's array)."""
    state = ServerState(config, EngineClient(engine_endpoints, identity, loads, config.engine_slots()))
    app = create_app(config, state)
    uv_config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,  # our JSON logging, set up by the caller
        access_log=False,  # every stream logs its own line with TTFB and outcome
        ws=DenialAwareWebSocketProtocol,  # websockets-sansio, without an ERROR log per refused key
        ws_per_message_deflate=config.ws_per_message_deflate,  # off by default: CPU, not bandwidth, is short
        ws_max_size=4
        * config.max_body_bytes,  # larger frames get a protocol close; smaller ones a JSON error
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        timeout_keep_alive=config.keep_alive_s,  # above the load balancer's idle timeout (contract)
        http=http_protocol_class(config.request_read_timeout_s),  # uvicorn's own, with a read deadline
        lifespan="on",
    )
    return DrainingServer(uv_config, state)


def worker_main(
    config: ServerConfig,
    engine_endpoints: Sequence[str],
    identity: bytes,
    sock,
    loads: Sequence[int] | None = None,
) -> None:
    """Entry point of one API worker process (multiprocessing target): serve on the supervisor's socket."""
    import sys

    from model_server.api.logs import setup_logging
    from model_server.engine.supervisor import detach_from_terminal

    detach_from_terminal()
    setup_logging(config.log_level)
    host, port = sock.getsockname()[:2]
    server = build_server(host, port, config, engine_endpoints, identity, loads)
    log.info(
        "worker started",
        extra={
            "worker": identity.decode(),
            "pid": os.getpid(),
            "api_keys": len(config.api_keys),  # 0: no auth (said at start, not found out later)
            "sagemaker_routes": config.sagemaker_routes,
        },
    )
    server.run(sockets=[sock])
    sys.exit(server.exit_code)
