"""Optional tool packages (judges, peers, teachers) installed beside the main venv, not into it.

Each set is a pinned requirements file installed with `--no-deps --target` into its own folder, on first
use or when the file changed, then put on sys.path: `make test` stays lean, and packages that would pull
a CUDA torch (distillmos) or a second onnxruntime cannot replace the venv's own.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from pathlib import Path


def ensure_target(
    requirements: Path,
    folder: Path,
    timeout_s: float = 1800,
    retry_delays_s: tuple[float, ...] = (30.0, 90.0),
) -> Path:
    """Install `requirements` into `folder` unless its stamp matches the file's digest; put the folder on
    sys.path. Returns the folder. A failed install is tried again after each of `retry_delays_s`: pip's own
    retries cover a dropped connection, not an index that answers nothing for a minute ("from versions:
    none", seen in CI); the last failure raises a RuntimeError naming the file."""
    stamp = folder / ".installed"
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text() != digest:
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade",
                   "--target", str(folder), "-r", str(requirements)]  # fmt: skip
        for attempt, delay in enumerate((*retry_delays_s, None), start=1):
            if subprocess.run(command, timeout=timeout_s).returncode == 0:
                break
            if delay is None:
                raise RuntimeError(f"pip could not install {requirements} into {folder} ({attempt} attempts)")
            print(f"pip failed on {requirements.name}; trying again in {delay:g} s", file=sys.stderr)
            time.sleep(delay)
        stamp.write_text(digest)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return folder
