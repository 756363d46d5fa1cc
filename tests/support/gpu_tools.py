"""The prepared GPU scripts in tools/ (gpu_smoke.sh with gpu_bench.py, gpu_train.sh with gpu_train.py), for
the tests that rehearse them on this CPU."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
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


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def device_host_env(carried: list[str]) -> dict[str, str]:
    """Environment entries under which this interpreter imports only what the device host would hold: the
    image's distributions (tools/device-host-packages.txt), the ``carried`` ones and the standard library.
    Every other distribution installed here has its top-level modules made unimportable
    (tests/support/device_host/sitecustomize.py)."""
    listed = (REPO / "tools" / "device-host-packages.txt").read_text().splitlines()
    allowed = {_normalized(n) for n in listed + carried if n.strip() and not n.startswith("#")}
    present: set[str] = set()
    absent: set[str] = set()
    for dist in importlib.metadata.distributions():
        tops = {f.parts[0].removesuffix(".py") for f in dist.files or ()}
        (present if _normalized(dist.metadata["Name"]) in allowed else absent).update(tops)
    # a module named as an allowed distribution is the host's even where this venv's copy comes from elsewhere
    present |= {name.replace("-", "_") for name in allowed} | {"__pycache__"}
    absent = {m for m in absent - present if m.isidentifier()}
    here = str(REPO / "tests" / "support" / "device_host")
    path = os.environ.get("PYTHONPATH")
    return {"STATESPEAK_ABSENT_MODULES": ",".join(sorted(absent)),
            "PYTHONPATH": here + (os.pathsep + path if path else "")}  # fmt: skip
