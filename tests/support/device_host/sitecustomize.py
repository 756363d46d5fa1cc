"""Makes this interpreter look like the device machines' image: every top-level module named in
STATESPEAK_ABSENT_MODULES (comma-separated) fails to import, as it would there. Put on PYTHONPATH by
tests/support/gpu_tools.device_host_env; subprocesses inherit it."""

import os
import sys

_ABSENT = frozenset(filter(None, os.environ.get("STATESPEAK_ABSENT_MODULES", "").split(",")))


class _AbsentOnTheDeviceHost:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in _ABSENT:
            raise ModuleNotFoundError(f"No module named {name!r} (not on the device host)", name=name)
        return None


if _ABSENT:
    sys.meta_path.insert(0, _AbsentOnTheDeviceHost)
