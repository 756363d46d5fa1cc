"""`python -m model_server serve [--host H] [--port P] [--workers N] [--engines E]`: the container entrypoint
(SageMaker runs `docker run IMAGE serve`). It starts E engine processes (default 1) and N API worker processes
(docs/architecture.md); N comes from --workers, else STATESPEAK_WORKERS, else half the usable CPUs (1 to 8);
E from --engines, else STATESPEAK_ENGINES."""

from __future__ import annotations

import argparse
import sys

from model_server.contract import SERVER_PORT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m model_server", description="Statespeak model server")
    sub = parser.add_subparsers(dest="command", required=True)
    serve_p = sub.add_parser("serve", help="run the HTTP/WebSocket server")
    serve_p.add_argument("--host", default="0.0.0.0", help="bind address (default 0.0.0.0)")
    serve_p.add_argument("--port", type=int, default=SERVER_PORT, help=f"port (default {SERVER_PORT})")
    serve_p.add_argument(
        "--workers", type=int, default=None,
        help="API worker processes (default: STATESPEAK_WORKERS, else half the usable CPUs, 1 to 8)",
    )  # fmt: skip
    serve_p.add_argument(
        "--engines", type=int, default=None,
        help="engine processes sharing the device and MAX_STREAMS (default: STATESPEAK_ENGINES, else 1)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"--port {args.port} is not a TCP port")
    if args.workers is not None and not 1 <= args.workers <= 64:
        parser.error(f"--workers {args.workers} is out of range [1, 64]")

    from model_server.config import ConfigError, ServerConfig, check_engines

    try:  # validate the environment before importing torch and the model stack: fail in milliseconds
        config = ServerConfig.from_env()
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    engines = config.engines if args.engines is None else args.engines
    try:
        check_engines(engines, config.max_streams, "--engines")
    except ConfigError as exc:
        parser.error(str(exc))
    from model_server.engine.supervisor import default_workers, serve

    return serve(args.host, args.port, config, args.workers or config.workers or default_workers(), engines)


if __name__ == "__main__":
    sys.exit(main())
