"""Optional tool packages (judges, peers, teachers) installed beside the main venv, not into it.

Each set is a pinned requirements file installed with `--no-deps --target` into its own folder, on first
use or when the file changed, then put on sys.path: `make test` stays lean, and packages that would pull
a CUDA torch (distillmos) or a second onnxruntime cannot replace the venv's own.

The installer is uv's pip interface (`uv` is pinned in requirements-dev.txt), not pip: on a cold cache it
installed checkov's 98 pins in 6 s where pip took 45 s, and CI builds every such set afresh inside its
20-minute budget. The main venv stays on pip: uv reads no pip.conf, so it would not see a local torch.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from pathlib import Path


def install_command(python: str | Path) -> list[str]:
    """The start of the command that installs into `python`'s environment; add `-r FILE` and options."""
    from uv import find_uv_bin  # here, not at import: the modules that import this one need no uv to load

    return [find_uv_bin(), "pip", "install", "--quiet", "--python", str(python)]


def ensure_target(
    requirements: Path,
    folder: Path,
    timeout_s: float = 1800,
    retry_delays_s: tuple[float, ...] = (30.0, 90.0),
) -> Path:
    """Install `requirements` into `folder` unless its stamp matches the file's digest; put the folder on
    sys.path. Returns the folder. A failed install is tried again after each of `retry_delays_s`: uv's own
    retries cover a dropped connection, not an index that answers nothing for a minute ("from versions:
    none", seen in CI); the last failure raises a RuntimeError naming the file."""
    stamp = folder / ".installed"
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text() != digest:
        target = ["--no-deps", "--target", str(folder)]
        command = [*install_command(sys.executable), *target, "-r", str(requirements)]
        for attempt, delay in enumerate((*retry_delays_s, None), start=1):
            if subprocess.run(command, timeout=timeout_s).returncode == 0:
                break
            if delay is None:
                raise RuntimeError(f"uv could not install {requirements} into {folder} ({attempt} attempts)")
            print(f"uv failed on {requirements.name}; trying again in {delay:g} s", file=sys.stderr)
            time.sleep(delay)
        stamp.write_text(digest)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return folder
