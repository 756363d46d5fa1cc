"""The serving processes: one engine process that owns the device and N API worker processes.

- `protocol`: what crosses between them (ops from workers, one batch of events per tick back).
- `process`: the engine process (torch): slot pool, admission, one batched step per tick.
- `client`: a worker's side of the channel (no torch): remote streams, readiness, metrics.
- `supervisor`: `python -m model_server serve`: starts both, forwards SIGTERM, restarts a dead worker,
  exits non-zero when the engine dies.
"""
