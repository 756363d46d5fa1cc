"""checkov over the synthesized templates of the suite's contexts (default, full, your own VPC), in one run.

checkov lives in its own virtual environment (.venv-checkov, from the pinned requirements-checkov.txt)
because its pins (boto3, botocore, packaging) clash with requirements-dev.txt; the test builds it on
first use and rebuilds it when the lock file changes.

The skip list of .checkov.yaml is applied here rather than by checkov, so one run also tells which
skips no longer match any finding (a stale skip hides the next real one).
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import VARIANTS

REPO_ROOT = Path(__file__).resolve().parents[2]
CONFIG = REPO_ROOT / ".checkov.yaml"
REQUIREMENTS = REPO_ROOT / "requirements-checkov.txt"
VENV = REPO_ROOT / ".venv-checkov"
MIN_REASON_WORDS = 8
_SKIP_LINE = re.compile(r"^\s*-\s*(CKV2?_[A-Z0-9_]+)\s*(?:#\s*(.*))?$")


def skips_with_reasons() -> dict[str, str]:
    """{check id: reason} from the skip-check list of .checkov.yaml (reasons are the line comments)."""
    listed = yaml.safe_load(CONFIG.read_text()).get("skip-check") or []
    reasons = {}
    for line in CONFIG.read_text().splitlines():
        match = _SKIP_LINE.match(line)
        if match:
            reasons[match.group(1)] = (match.group(2) or "").strip()
    missing = [check for check in listed if check not in reasons]
    assert not missing, f"skip-check entries not written one per line as '- ID  # reason': {missing}"
    return {check: reasons[check] for check in listed}


def checkov_executable() -> Path:
    """.venv-checkov/bin/checkov, installed from the lock file on first use or when the lock changed."""
    stamp = VENV / ".installed"
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text() != digest:
        if not (VENV / "bin" / "python").exists():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, timeout=300)
        subprocess.run(
            [str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", "-r", str(REQUIREMENTS)],
            check=True, timeout=1200,
        )  # fmt: skip
        stamp.write_text(digest)
    return VENV / "bin" / "checkov"


def test_every_skip_has_a_specific_reason():
    skips = skips_with_reasons()
    assert skips, "no skip list: then this file and its test can go"
    thin = {check: reason for check, reason in skips.items() if len(reason.split()) < MIN_REASON_WORDS}
    assert not thin, f"skips without a reason of at least {MIN_REASON_WORDS} words: {thin}"


def test_checkov_has_no_failed_check_beyond_the_reasoned_skips(default_synth, full_synth, synth, tmp_path):
    skips = skips_with_reasons()
    config = yaml.safe_load(CONFIG.read_text())
    config.pop("skip-check", None)
    config_file = tmp_path / "checkov.yaml"
    config_file.write_text(yaml.safe_dump(config))
    estate_synth = synth(**VARIANTS["estate"])
    results = (default_synth, full_synth, estate_synth)
    files = sorted(p for result in results for p in result.outdir.glob("*.template.json"))
    assert len(files) >= 7, f"expected the templates of the three contexts, found {files}"

    cmd = [str(checkov_executable()), "--config-file", str(config_file), "-o", "json"]
    for path in files:
        cmd += ["-f", str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode in (0, 1), f"checkov crashed ({proc.returncode}):\n{proc.stderr[-3000:]}"
    reports = json.loads(proc.stdout)
    reports = reports if isinstance(reports, list) else [reports]
    assert any(r.get("check_type") == "cloudformation" for r in reports), proc.stdout[:2000]
    summary = [r.get("summary", {}) for r in reports]
    assert sum(s.get("parsing_errors", 0) for s in summary) == 0, summary
    assert sum(s.get("passed", 0) for s in summary) > 100, f"checkov checked almost nothing: {summary}"

    failed = [f for r in reports for f in r.get("results", {}).get("failed_checks", [])]
    unexpected = sorted(
        f"{f['check_id']} {f['check_name']}: {Path(f['file_path']).name} {f['resource']}"
        for f in failed if f["check_id"] not in skips
    )  # fmt: skip
    assert not unexpected, (
        "checkov findings (fix them or skip with a reason in .checkov.yaml):\n" + "\n".join(unexpected)
    )
    stale = sorted(set(skips) - {f["check_id"] for f in failed})
    assert not stale, f"skips in .checkov.yaml that match no finding any more (remove them): {stale}"
