"""`python -m tools.preflight [-c key=value ...]`: check the account before `cdk deploy` with the same context.

Examples:
    python -m tools.preflight                                   # cdk.json's defaults
    python -m tools.preflight -c deployment=both -c max_replicas=12
    AWS_PROFILE=prod python -m tools.preflight -c region=us-west-2

Exit status: 0 when every check passes (warnings allowed), 1 when a check fails or AWS cannot be asked
(no credentials, endpoint unreachable), 2 on bad arguments or configuration.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    EndpointConnectionError,
    NoCredentialsError,
    PartialCredentialsError,
    ProfileNotFound,
)

from stacks.config import ConfigError, StatespeakConfig, load_context
from tools.preflight.render import render
from tools.preflight.runner import Clients, make_clients, run

PROG = "python -m tools.preflight"
# The credential check's own refusals: the keys exist but AWS does not accept them.
_REFUSED_CREDENTIALS = (
    "InvalidClientTokenId",
    "ExpiredToken",
    "ExpiredTokenException",
    "SignatureDoesNotMatch",
)


def parse_context(pairs: list[str]) -> dict[str, Any]:
    """`-c key=value` pairs as the CDK CLI takes them (values stay strings; the config coerces them)."""
    context: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"-c {pair!r} is not key=value; allowed: -c key=value, e.g. -c deployment=both")
        context[key.strip()] = value
    return context


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Read-only checks of the AWS account for the deployment the CDK context describes: "
        "service quotas, zone offerings, Lambda concurrency, the Marketplace package's region.",
    )
    parser.add_argument(
        "-c",
        "--context",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="context override, as for `cdk deploy -c` (repeatable)",
    )
    return parser


def main(argv: list[str] | None = None, clients: Clients | None = None) -> int:
    """`clients`: boto3 clients to ask (tests pass Stubber-wired ones); default: the ambient credentials."""
    args = build_parser().parse_args(argv)
    try:
        config = StatespeakConfig.from_context(load_context(parse_context(args.context)))
    except ConfigError as exc:
        print(f"statespeak preflight: invalid configuration: {exc}", file=sys.stderr)
        return 2
    try:
        report = run(config, clients or make_clients(config.region))
    except (NoCredentialsError, PartialCredentialsError, ProfileNotFound) as exc:
        print(
            f"statespeak preflight: no usable AWS credentials ({exc}); set AWS_PROFILE or run "
            "`aws configure` / `aws sso login`, then retry",
            file=sys.stderr,
        )
        return 1
    except EndpointConnectionError as exc:
        print(f"statespeak preflight: cannot reach AWS: {exc}", file=sys.stderr)
        return 1
    except ClientError as exc:  # only the credential check lets one through (run() catches the others)
        error = exc.response.get("Error", {})
        print(
            f"statespeak preflight: AWS refused the credentials: {error.get('Code')}: {error.get('Message')}",
            file=sys.stderr,
        )
        return 1
    except BotoCoreError as exc:  # timeouts, proxy and TLS failures: one line, not a traceback
        print(f"statespeak preflight: cannot ask AWS: {exc}", file=sys.stderr)
        return 1
    print(render(report, config))
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
