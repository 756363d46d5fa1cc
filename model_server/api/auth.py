"""Optional API keys. Accepted as `Authorization: Bearer KEY`, `X-API-Key: KEY` or `?api_key=KEY`."""

from __future__ import annotations

import hmac

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
