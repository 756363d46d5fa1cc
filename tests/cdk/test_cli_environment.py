"""The app as `cdk deploy` runs it: the CDK CLI sets CDK_DEFAULT_ACCOUNT (and CDK_DEFAULT_REGION) from the
caller's credentials. The other suites clear them, so they never saw that every real account failed the synth:
account-scoped ARNs turned concrete and no longer matched the acknowledged cdk-nag findings."""

from __future__ import annotations

import aws_cdk as cdk
import pytest

import app as cdk_app
from tests.conftest import VARIANTS

ACCOUNT = "210987654321"  # not the suite's certificate account


@pytest.fixture
def cli_environment(monkeypatch):
    monkeypatch.setenv("CDK_DEFAULT_ACCOUNT", ACCOUNT)
    monkeypatch.setenv("CDK_DEFAULT_REGION", "us-east-1")
    monkeypatch.delenv("CDK_CONTEXT_JSON", raising=False)


def test_the_account_stays_unresolved(cli_environment):
    app, _ = cdk_app.build_app(VARIANTS["full"])
    stacks = [c for c in app.node.children if isinstance(c, cdk.Stack)]
    assert len(stacks) == 3
    assert all(cdk.Token.is_unresolved(stack.account) for stack in stacks)


def test_both_routes_synthesize_under_the_cli_environment(cli_environment, tmp_path):
    app, _ = cdk_app.build_app(VARIANTS["full"], outdir=str(tmp_path))
    app.synth()  # a cdk-nag finding fails it (RuntimeError)
    templates = "".join(p.read_text() for p in tmp_path.glob("*.template.json"))
    assert ACCOUNT not in templates
