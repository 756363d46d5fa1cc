"""Optional tool packages (judges, peers, teachers) installed beside the main venv, not into it.

Each set is a pinned requirements file installed with `--no-deps --target` into its own folder, on first
use or when the file changed, then put on sys.path: `make test` stays lean, and packages that would pull
a CUDA torch (distillmos) or a second onnxruntime cannot replace the venv's own.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path


def ensure_target(requirements: Path, folder: Path, timeout_s: float = 1800) -> Path:
    """Install `requirements` into `folder` unless its stamp matches the file's digest; put the folder on
    sys.path. Returns the folder."""
    stamp = folder / ".installed"
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text() != digest:
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade",
             "--target", str(folder), "-r", str(requirements)],
            check=True, timeout=timeout_s,
        )  # fmt: skip
        stamp.write_text(digest)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return folder
