"""Optional API keys. Accepted as `Authorization: Bearer KEY`, `X-API-Key: KEY` or `?api_key=KEY` (an
entry with query keys off refuses the last: a URL lands in the load balancer's access logs)."""

from __future__ import annotations

import hmac

from model_server.config import ServerConfig
from model_server.contract import HEALTH_PATH, INVOCATIONS_PATH, METRICS_PATH, PING_PATH, READY_PATH

# Probes and scrapes carry no key; /invocations is authenticated by SageMaker (IAM, SigV4) and SageMaker
# does not forward an Authorization header to the container.
OPEN_PATHS = frozenset({HEALTH_PATH, READY_PATH, PING_PATH, METRICS_PATH, INVOCATIONS_PATH})


def presented_keys(headers, query_params) -> list[str]:
    keys = []
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        keys.append(auth[7:].strip())
    if headers.get("x-api-key"):
        keys.append(headers["x-api-key"].strip())
    if query_params.get("api_key"):
        keys.append(query_params["api_key"].strip())
    return keys


def is_authorized(valid: frozenset[str], headers, query_params) -> bool:
    if not valid:
        return True
    # compare_digest against every key: timing does not reveal which prefix matched.
    return any(
        hmac.compare_digest(k.encode(), v.encode())
        for k in presented_keys(headers, query_params)
        for v in valid
    )


def origin_error(config: ServerConfig, headers) -> str | None:
    """Why a request from a browser page is refused (its 403 message), or None. Voice agents, SDKs and load
    balancers send no Origin header; a browser always does on a WebSocket handshake and a POST, and neither
    needs a CORS preflight: any web page a person inside the VPC opened could use the WebSocket (audio and
    all) or post blind synthesis requests to a keyless service."""
    origin = headers.get("origin")
    if origin is None or "*" in config.allowed_origins or origin.rstrip("/") in config.allowed_origins:
        return None
    return f"requests from browser origin {origin!r} are refused; allow it with STATESPEAK_ALLOWED_ORIGINS"


def auth_error(config: ServerConfig, headers, query_params) -> str | None:
    """Why a request to a keyed path is refused (its 401 message), or None when it may go on."""
    if not config.query_api_keys and "api_key" in query_params:
        return (
            "API keys in the query string (?api_key=) are refused on this entry; "
            "send Authorization: Bearer or X-API-Key"
        )
    if not is_authorized(config.api_keys, headers, query_params):
        ways = "Authorization: Bearer, X-API-Key or ?api_key="
        if not config.query_api_keys:
            ways = "Authorization: Bearer or X-API-Key"
        return f"missing or invalid API key ({ways})"
    return None
