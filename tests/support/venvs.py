"""Virtual environments for heavy real-client suites (checkov, agent frameworks), kept out of `.venv`.

Each is built from its own pinned requirements file on first use and rebuilt only when that file changes
(a stamp holds the file's digest), so a clean clone sets itself up and a second run starts at once.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from model_server.pinned_deps import install_command


def locked_venv(venv: Path, requirements: Path) -> Path:
    """`venv`'s python, with `requirements` installed; (re)installs when the requirements changed."""
    python = venv / "bin" / "python"
    stamp = venv / ".installed"
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text() != digest:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        subprocess.run(
            [*install_command(python), "-r", str(requirements)],
            check=True, timeout=1200,
        )  # fmt: skip
        stamp.write_text(digest)
    return python
