"""The request read deadline (`model_server.api.read_deadline`) on a real uvicorn server, both parsers.

A small ASGI app stands in for ours so that the deadlines can be short and each case exact; the model
server's own wiring is tested in test_http.py (a slow client beside a stream)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest
import uvicorn
from websockets.sync.client import connect

from model_server.api.read_deadline import MAX_HEAD_BYTES, http_protocol_class
from model_server.bench.local import free_port

DEADLINE_S = 0.5
KEEP_ALIVE_S = 2
STREAM_PARTS, STREAM_GAP_S = 4, 0.3  # a response that takes longer than the deadline to send


class Served:
    def __init__(self, parser: str):
        self.port = free_port()
        self.disconnects: list[str] = []
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            http=http_protocol_class(DEADLINE_S, parser),
            timeout_keep_alive=KEEP_ALIVE_S,
            log_config=None,
            lifespan="off",
            interface="asgi3",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)

    async def app(self, scope, receive, send):
        """POST: answers the body's length. GET /stream: a chunked response over 1.2 s. WebSocket: echoes."""
        if scope["type"] == "websocket":
            await receive()  # connect
            await send({"type": "websocket.accept"})
            while (msg := await receive())["type"] == "websocket.receive":
                await send({"type": "websocket.send", "text": msg["text"]})
            return
        body, more = b"", True
        while more:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                self.disconnects.append(scope["path"])
                return
            body, more = body + msg.get("body", b""), msg.get("more_body", False)
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]}
        )
        if scope["path"] == "/stream":
            for i in range(STREAM_PARTS):
                await asyncio.sleep(STREAM_GAP_S)
                await send({"type": "http.response.body", "body": b"part%d\n" % i, "more_body": True})
        await send({"type": "http.response.body", "body": str(len(body)).encode()})

    def socket(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=5)


@pytest.fixture(params=["h11", "httptools"])
def served(request):
    with Served(request.param) as s:
        yield s


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """True when the server closes `sock` (reads EOF) within `seconds`; what arrives before is dropped."""
    sock.settimeout(seconds)
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            if sock.recv(4096) == b"":
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return False


def response(sock: socket.socket) -> bytes:
    """The body of one whole response of the test app (chunked: read to the last chunk, then join)."""
    data = b""
    sock.settimeout(5)
    while not data.endswith(b"\r\n0\r\n\r\n"):
        chunk = sock.recv(4096)
        assert chunk, f"closed after {data!r}"
        data += chunk
    chunks = data.split(b"\r\n\r\n", 1)[1].split(b"\r\n")  # size, data, size, data, ..., 0, "", ""
    return b"".join(chunks[1:-3:2])


POST = b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello"


def test_a_whole_request_is_answered(served):
    with served.socket() as sock:
        sock.sendall(POST)
        assert response(sock) == b"5"


def test_a_request_head_that_stops_arriving_is_closed(served):
    with served.socket() as sock:
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-")
        assert closed_within(sock, 5)


def test_a_head_sent_a_byte_at_a_time_is_closed_at_the_deadline_not_reset_by_each_byte(served):
    with served.socket() as sock:
        with pytest.raises((BrokenPipeError, ConnectionResetError)):  # refused while still dripping
            for byte in POST[:60]:  # 60 bytes at 0.05 s: 3 s, six deadlines
                sock.sendall(bytes([byte]))
                time.sleep(0.05)


def test_a_body_that_stops_arriving_is_closed_and_the_app_sees_a_disconnect(served):
    with served.socket() as sock:
        sock.sendall(b'POST /slow-body HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n{"tran')
        assert closed_within(sock, 5)
    deadline = time.monotonic() + 2
    while "/slow-body" not in served.disconnects and time.monotonic() < deadline:
        time.sleep(0.02)
    assert served.disconnects == ["/slow-body"]


def test_a_response_may_stream_past_the_deadline(served):
    with served.socket() as sock:
        sock.sendall(b"GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
        data = response(sock)
    assert all(b"part%d" % i in data for i in range(STREAM_PARTS)), data


def test_keep_alive_idles_past_the_deadline_and_a_second_request_is_read(served):
    with served.socket() as sock:
        sock.sendall(POST)
        assert response(sock) == b"5"
        assert not closed_within(sock, 3 * DEADLINE_S)  # idle: keep-alive (2 s), not the read deadline
        sock.sendall(POST)
        assert response(sock) == b"5"


def test_a_second_request_that_stops_arriving_is_closed(served):
    with served.socket() as sock:
        sock.sendall(POST)
        assert response(sock) == b"5"
        sock.sendall(b"POST /echo HTTP/1.1\r\nHo")
        assert closed_within(sock, 5)


def test_a_connection_never_used_closes_after_keep_alive_not_the_deadline(served):
    with served.socket() as sock:
        assert not closed_within(sock, 3 * DEADLINE_S)
        assert closed_within(sock, 5)  # uvicorn alone would hold it open for good


def test_a_websocket_may_stay_quiet_past_the_deadline(served):
    with connect(f"ws://127.0.0.1:{served.port}/ws", open_timeout=5) as ws:
        time.sleep(3 * DEADLINE_S)
        ws.send("still here")
        assert ws.recv(timeout=5) == "still here"


def test_a_head_past_the_limit_is_refused_and_closed_while_a_large_one_is_read(served):
    """httptools took a head of any size (a 96 MiB header held the event loop for seconds before its 401)."""
    with served.socket() as sock:
        sock.sendall(
            b"POST /echo HTTP/1.1\r\nHost: t\r\nX-Pad: "
            + b"a" * 12_000
            + b"\r\nContent-Length: 5\r\n\r\nhello"
        )
        assert response(sock) == b"5"
    with served.socket() as sock:
        try:
            sock.sendall(b"GET /echo HTTP/1.1\r\nHost: t\r\nX-Pad: " + b"a" * (2 * MAX_HEAD_BYTES))
        except (BrokenPipeError, ConnectionResetError):
            pass
        sock.settimeout(5)
        head = sock.recv(4096)
        assert head.split(b" ")[1] in (b"400", b"431"), head  # h11's own limit (16 KiB) answers 400
        assert closed_within(sock, 5)


def test_an_unknown_parser_is_refused():
    with pytest.raises(ValueError, match="h11 or httptools"):
        http_protocol_class(1.0, "wsproto")
