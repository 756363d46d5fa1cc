"""A deadline on reading each HTTP request, which uvicorn lacks.

uvicorn closes a connection that stays idle between requests (`timeout_keep_alive`), but once a request's
first byte has arrived it waits for the rest of its head and body as long as the client likes: a client
that sends a byte every few seconds holds a connection, a file descriptor and a parser forever, and enough
of them exhaust the worker (slowloris). The protocols here are uvicorn's own, with a timer added:

- from the first byte of a request to the last byte of its body, at most `request_read_timeout` seconds
  (nginx's `client_header_timeout` and `client_body_timeout` play this part; one deadline for both is
  enough for requests whose bodies are at most `STATESPEAK_MAX_BODY_BYTES`);
- a connection opened and never used is idle, and closes after `timeout_keep_alive` like one between
  requests (uvicorn arms that timer only after a first response).

A request head is bounded in size too: httptools, unlike h11 (16 KiB), takes a head of any length, and
grows each header and the URL by concatenation, so one unauthenticated client sending a 96 MiB header held
the event loop for seconds (another client's first audio 0.05 -> 21 s) before its 401. A head past
`MAX_HEAD_BYTES` (an ALB's own limit on a whole head) is answered 431 and the connection closed.

A request that misses its deadline has its connection closed and a warning logged; the ASGI app, if it had
started on the head, sees the disconnect it sees from any client that leaves. Once read, a request's
response may stream for as long as it needs, and a WebSocket leaves the deadline behind with the upgrade.
The hooks used are uvicorn 0.54's (pinned); tests/server/test_read_deadline.py runs both parsers against them.
"""

from __future__ import annotations

import asyncio
import logging

import h11
from uvicorn.protocols.http.auto import AutoHTTPProtocol
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("statespeak.server")
MAX_HEAD_BYTES = 64 * 1024
_HEAD_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s"
)


class _ReadDeadline:
    """Mixin over a uvicorn HTTP protocol: `_start_read_deadline` when a request begins,
    `_stop_read_deadline` when its body is complete (each parser says so in its own way)."""

    request_read_timeout: float  # set by `http_protocol_class`

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._read_deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)  # type: ignore[misc]
        # uvicorn's own keep-alive timer and handler: the first request's wait is an idle wait too
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_read_deadline()
        super().connection_lost(exc)  # type: ignore[misc]

    def handle_websocket_upgrade(self, *args) -> None:
        self._stop_read_deadline()  # the WebSocket protocol has its own pings and timeouts
        super().handle_websocket_upgrade(*args)  # type: ignore[misc]

    def _start_read_deadline(self) -> None:
        if self._read_deadline is None:
            self._read_deadline = self.loop.call_later(self.request_read_timeout, self._read_too_slow)

    def _stop_read_deadline(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _read_too_slow(self) -> None:
        self._read_deadline = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return
        client = f"{self.client[0]}:{self.client[1]}" if self.client else "unknown"
        log.warning(
            "request not read within the deadline: connection closed",
            extra={"client": client, "timeout_s": self.request_read_timeout},
        )
        self.transport.close()


class H11ReadDeadline(_ReadDeadline, H11Protocol):
    """uvicorn's h11 protocol with the read deadline: h11's peer state says where the request is."""

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:  # bytes of a new request's head
            self._start_read_deadline()
        super().data_received(data)
        if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):  # read whole, or the connection is done
            self._stop_read_deadline()


def _httptools_class():
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HttpToolsReadDeadline(_ReadDeadline, HttpToolsProtocol):
        """uvicorn's httptools protocol with the read deadline: the parser's callbacks bound the request."""

        _head_bytes = 0  # bytes received since the current head began, until it is complete
        _in_head = True

        def data_received(self, data: bytes) -> None:
            if self._in_head:
                self._head_bytes += len(data)
            super().data_received(data)
            if self._in_head and self._head_bytes > MAX_HEAD_BYTES and not self.transport.is_closing():
                self._head_too_large()

        def _head_too_large(self) -> None:
            client = f"{self.client[0]}:{self.client[1]}" if self.client else "unknown"
            log.warning(
                "request head too large: connection closed",
                extra={"client": client, "limit_bytes": MAX_HEAD_BYTES},
            )
            body = b"request head (request line and headers) over %d bytes" % MAX_HEAD_BYTES
            self.transport.write(_HEAD_TOO_LARGE % (len(body), body))
            self._stop_read_deadline()
            self.transport.close()

        def on_message_begin(self) -> None:
            self._start_read_deadline()
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self._in_head, self._head_bytes = False, 0
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._stop_read_deadline()
            self._in_head = True
            super().on_message_complete()

    return HttpToolsReadDeadline


def http_protocol_class(request_read_timeout: float, parser: str = "auto") -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol for `parser` ("auto": httptools when installed, as uvicorn picks; "h11";
    "httptools") with a deadline of `request_read_timeout` seconds on reading each request."""
    if parser == "auto":
        parser = "h11" if issubclass(AutoHTTPProtocol, H11Protocol) else "httptools"
    if parser not in ("h11", "httptools"):
        raise ValueError(f"parser must be auto, h11 or httptools, got {parser!r}")
    base = H11ReadDeadline if parser == "h11" else _httptools_class()
    return type(base.__name__, (base,), {"request_read_timeout": float(request_read_timeout)})
