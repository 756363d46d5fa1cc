"""Where the constructs find their Lambda code: inside the installed package, or in the repository.

The functions' code lives once, in the repository's `lambda/<function>/` asset folders. A wheel of this
package carries copies of them under `statespeak_constructs/_lambda/` (pyproject.toml force-includes
them), so a CDK app that installed the package synthesizes the same functions as this repository's app.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def lambda_asset(function: str) -> Path:
    """The asset folder of one Lambda function (`canary`, `weights_sync`, `capacity_release`,
    `scaling_handover`)."""
    packaged = _PACKAGE / "_lambda" / function
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / "lambda" / function
