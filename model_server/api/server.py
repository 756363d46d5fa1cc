"""Running the app under uvicorn with Statespeak's drain on SIGTERM.

uvicorn's own SIGTERM handling stops accepting connections and waits only briefly, and it would close
WebSockets with streams still speaking. Here the first SIGTERM/SIGINT starts a drain instead: readiness
turns 503 (load balancers and SageMaker stop routing), new streams are refused with 503 / a WebSocket
error, every in-flight stream runs to its end, and only then (or after DRAIN_TIMEOUT_S) uvicorn shuts
down. A second signal skips the wait.
"""

from __future__ import annotations

import asyncio
import logging
import signal

import uvicorn

from model_server.api.app import create_app
from model_server.api.logs import setup_logging
from model_server.api.state import ServerState
from model_server.config import ServerConfig
from model_server.threads import configure_torch_threads

log = logging.getLogger("statespeak.server")
SHUTDOWN_GRACE_S = 3.0  # after the drain: time for uvicorn to close idle connections


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
        await super().startup(sockets)

    def _fatal(self, reason: str) -> None:
        log.error("exiting", extra={"reason": reason})
        self.exit_code = 1
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
        else:
            log.info("drained")
        self.should_exit = True


def build_server(
    host: str, port: int, config: ServerConfig | None = None, runtime_factory=None
) -> DrainingServer:
    config = config or ServerConfig.from_env()
    state = ServerState(config, runtime_factory)
    app = create_app(config, state=state)
    uv_config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,  # our JSON logging, set up by the caller
        access_log=False,  # every stream logs its own line with TTFB and outcome
        ws="websockets-sansio",
        ws_per_message_deflate=config.ws_per_message_deflate,  # off by default: CPU, not bandwidth, is short
        ws_max_size=4
        * config.max_body_bytes,  # larger frames get a protocol close; smaller ones a JSON error
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        timeout_keep_alive=75,  # above the ALB idle timeout default (60 s)
        lifespan="on",
    )
    return DrainingServer(uv_config, state)


def serve(host: str, port: int, config: ServerConfig | None = None) -> int:
    config = config or ServerConfig.from_env()
    setup_logging(config.log_level)
    configure_torch_threads(config)
    server = build_server(host, port, config)
    server.run()
    return server.exit_code
