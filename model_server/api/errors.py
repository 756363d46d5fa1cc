"""Client-facing errors: every refusal names the field at fault and says why, as JSON."""

from __future__ import annotations

import uuid

from fastapi.responses import JSONResponse

_TITLES = {
    400: "Invalid request",
    401: "Unauthorized",
    404: "Not found",
    405: "Method not allowed",
    413: "Request too large",
    415: "Unsupported media type",
    503: "Service unavailable",
}


class ApiError(Exception):
    """A 4xx/5xx answer. `field` is the request field at fault (dotted path), or '' when none is."""

    def __init__(
        self,
        status: int,
        field: str,
        message: str,
        code: str = "invalid_request",
        headers: dict | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.field = field
        self.message = message
        self.code = code
        self.headers = headers or {}

    def cartesia_body(self, request_id: str | None = None, context_id: str | None = None) -> dict:
        """Shape of Cartesia's error event (title, message, error_code, status_code) plus `field`."""
        body = {
            "type": "error",
            "done": True,
            "status_code": self.status,
            "error_code": self.code,
            "title": _TITLES.get(self.status, "Error"),
            "message": self.message,
            "field": self.field or None,
            "request_id": request_id or new_request_id(),
        }
        if context_id is not None:
            body["context_id"] = context_id
        return body

    def openai_body(self) -> dict:
        """OpenAI's error shape; the openai SDK reads error.message and error.param."""
        kind = "invalid_request_error" if self.status < 500 else "server_error"
        return {
            "error": {"message": self.message, "type": kind, "param": self.field or None, "code": self.code}
        }

    def response(self, openai: bool = False) -> JSONResponse:
        body = self.openai_body() if openai else self.cartesia_body()
        return JSONResponse(body, status_code=self.status, headers=self.headers)


def new_request_id() -> str:
    return uuid.uuid4().hex
