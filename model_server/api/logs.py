"""Structured logs: one JSON object per line on stderr (stdout carries the EMF metric lines)."""

from __future__ import annotations

import json
import logging
import re
import sys
import time

_STD_ATTRS = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}
# API keys in what libraries log: uvicorn logs each WebSocket handshake's path with its query string at INFO
# ("?api_key=..." reached CloudWatch, even where query keys are refused), and headers at DEBUG.
_SECRETS = re.compile(r"(?i)(api_key=)[^&\s\"']*|((?:x-api-key|authorization)\s*:\s*)[^\r\n\"']*")
# Loggers whose DEBUG records carry request headers and WebSocket frames (keys, transcripts): they stay at INFO
# whatever STATESPEAK_LOG_LEVEL says.
_PROTOCOL_LOGGERS = ("uvicorn", "uvicorn.error", "websockets")


def redact(text: str) -> str:
    return _SECRETS.sub(lambda m: (m.group(1) or m.group(2)) + "<redacted>", text)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        doc = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": redact(record.getMessage()),
        }
        # Fields passed with `extra=` become top-level keys, so log queries can filter on them.
        doc.update({k: v for k, v in vars(record).items() if k not in _STD_ATTRS and not k.startswith("_")})
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, default=str)


def setup_logging(level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        lg = logging.getLogger(name)
        lg.handlers[:] = []
        lg.propagate = True
    for name in _PROTOCOL_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.INFO, root.level))
