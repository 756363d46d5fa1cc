"""HTTP/WebSocket API of the model server (see docs/server.md)."""
