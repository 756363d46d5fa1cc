"""`python -m model_server.bench`: load benchmark of a Statespeak endpoint. See docs/benchmarks.md.

Examples:
    python -m model_server.bench --local --update-docs            # what `make bench` runs
    python -m model_server.bench --target http://10.0.1.5:8080 --concurrency 1,4,16
    python -m model_server.bench --target sagemaker://statespeak --ramp 32 --protocol http
    python -m model_server.bench --local --clients 2 --arrivals closed,poisson --rates 2,4,8
"""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
