"""`python -m model_server serve [--host H] [--port P]`: the container entrypoint (SageMaker runs
`docker run IMAGE serve`)."""

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
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"--port {args.port} is not a TCP port")

    from model_server.config import ConfigError, ServerConfig

    try:  # validate the environment before importing torch and the model stack: fail in milliseconds
        config = ServerConfig.from_env()
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    from model_server.api.server import serve

    return serve(args.host, args.port, config)


if __name__ == "__main__":
    sys.exit(main())
