"""The prepared GPU scripts in tools/ (gpu_smoke.sh with gpu_bench.py, gpu_train.sh with gpu_train.py), for
the tests that rehearse them on this CPU."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def has_gpu() -> bool:
    """Whether nvidia-smi sees a GPU (the scripts' no-GPU path is tested only where there is none)."""
    smi = shutil.which("nvidia-smi")
    return smi is not None and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


def load_tool(name: str):
    """tools/<name>.py imported as a module (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
