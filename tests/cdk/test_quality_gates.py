"""Quality gates on every synthesized variant: cdk-nag, cfn-lint, acknowledgement reasons, ruff."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from cfnlint.api import lint
from cfnlint.config import ManualArgs

REPO_ROOT = Path(__file__).resolve().parents[2]

# aws-cdk-lib acknowledges known false positives of its own template validator under this plugin name.
CDK_INTERNAL_PREFIX = "CloudFormation-Validate::"
MIN_REASON_CHARS = 50
MIN_REASON_WORDS = 8
GENERIC_REASONS = re.compile(
    r"^(n/?a|none|ok|fine|false positive|not (needed|applicable|required)|suppress(ed)?|acknowledged|"
    r"by design|intended|todo|tbd|test)\.?$",
    re.IGNORECASE,
)


def _violations_text(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        where = [
            c.get("constructPath") for c in v.get("violatingConstructs", v.get("violatingResources", []))
        ]
        lines.append(f"{v.get('severity')} {v.get('ruleName')}: {v.get('description')} at {where}")
    return "\n".join(lines)


def test_cdk_nag_leaves_no_unacknowledged_finding(any_synth):
    """AwsSolutions: any unacknowledged error or warning fails synthesis; the gate names each finding."""
    assert not any_synth.nag_violations, "cdk-nag findings:\n" + _violations_text(any_synth.nag_violations)
    assert any_synth.error is None, any_synth.error


def test_every_template_passes_cfn_lint(any_synth):
    region = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]["region"]
    assert any_synth.templates, "no template was synthesized"
    failures = []
    for name, template in any_synth.templates.items():
        matches = lint(json.dumps(template), config=ManualArgs(regions=[region]))
        failures += [f"{name}: {m}" for m in matches if m.rule.id.startswith("E")]
    assert not failures, "cfn-lint errors:\n" + "\n".join(failures)


def _kit_acknowledgements(result):
    """The kit's acknowledgements: aws-cdk-lib's own (for its built-in template validator) are not ours."""
    return [a for a in result.acknowledgements if not a.rule_id.startswith(CDK_INTERNAL_PREFIX)]


def _rule_name(rule_id: str) -> str:
    """`NIST.800.53.R5-SageMakerX[...]` -> `SageMakerX`: one rule as every pack names it."""
    rule_id = rule_id.split("::", 1)[-1]
    return re.sub(r"\[.*\]$", "", rule_id.split("-", 1)[-1])


def test_acknowledgements_carry_specific_reasons(any_synth):
    acks = _kit_acknowledgements(any_synth)
    assert acks, "the app acknowledges nothing: expected at least the documented CDK-internal findings"
    bad = []
    rules_per_reason: dict[str, set[str]] = defaultdict(set)
    for ack in acks:
        reason = ack.reason.strip()
        if (
            len(reason) < MIN_REASON_CHARS
            or len(reason.split()) < MIN_REASON_WORDS
            or GENERIC_REASONS.match(reason)
        ):
            bad.append(f"{ack.path} {ack.rule_id}: {reason!r}")
        rules_per_reason[reason].add(_rule_name(ack.rule_id))
    assert not bad, "acknowledgements without a specific reason:\n" + "\n".join(bad)
    assert len(rules_per_reason) > 1, "every acknowledgement has the same reason"
    # One reason text reused across different rules is boilerplate, not a reason a reviewer can check
    # (the same rule in several packs, e.g. NIST R4/R5 and HIPAA, may share its reason).
    reused = {reason: rules for reason, rules in rules_per_reason.items() if len(rules) > 1}
    assert not reused, f"one reason used for several rules: {reused}"


def test_acknowledged_rule_ids_are_well_formed(any_synth):
    pattern = re.compile(r"^([A-Za-z0-9.-]+::)?[A-Za-z0-9.]+-[A-Za-z0-9]+(\[.+\])?$")
    malformed = [
        f"{a.path}: {a.rule_id}" for a in _kit_acknowledgements(any_synth) if not pattern.match(a.rule_id)
    ]
    assert not malformed, malformed


def test_ruff_is_clean_over_the_repo():
    ruff = shutil.which("ruff", path=str(REPO_ROOT / ".venv" / "bin")) or shutil.which("ruff")
    cmd = [ruff, "check", "."] if ruff else [sys.executable, "-m", "ruff", "check", "."]
    proc = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_stacks_pin_the_region_and_leave_the_account_unresolved(any_synth):
    """Offline synthesis: a concrete region (ALB logs, endpoint names), no account, no lookups."""
    manifest = json.loads((any_synth.outdir / "manifest.json").read_text())
    stacks = {k: v for k, v in manifest["artifacts"].items() if v["type"] == "aws:cloudformation:stack"}
    assert set(stacks) == set(any_synth.templates)
    assert {v["environment"] for v in stacks.values()} == {"aws://unknown-account/us-east-1"}
    assert not (REPO_ROOT / "cdk.context.json").exists(), "a lookup wrote cdk.context.json"
