"""Load a Lambda asset's handler as Lambda does: a plain module from its folder (`lambda` is a keyword,
so the folders are not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

LAMBDA_DIR = Path(__file__).resolve().parents[2] / "lambda"


def load_handler(function: str, module_name: str | None = None) -> ModuleType:
    """A fresh import of lambda/<function>/handler.py (module-level settings are read again each call).

    Registered in sys.modules under `module_name` (default `<function>_handler`): dataclasses resolve
    annotations through the module registry.
    """
    spec = importlib.util.spec_from_file_location(
        module_name or f"{function}_handler", LAMBDA_DIR / function / "handler.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
