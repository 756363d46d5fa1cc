"""uvicorn's websockets-sansio protocol, with its handshake marked complete once a denial response is sent.

The server refuses a WebSocket without a valid key with an HTTP 401 (the ASGI denial-response extension).
uvicorn 0.54's sansio protocol (pinned) writes that response but never marks the handshake complete, so when
the app returns it logs "ASGI callable returned without completing handshake." at ERROR: every unauthenticated
attempt, a scanner's included, set off log-based alarms (Kludex/uvicorn#3138, open; its wsproto protocol
already does this). Nothing else changes: the response the client gets is uvicorn's own.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class DenialAwareWebSocketProtocol(WebSocketsSansIOProtocol):
    async def send(self, message) -> None:
        await super().send(message)
        if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
            self.handshake_complete = True  # the denial is on the wire: the handshake ended, by refusal
