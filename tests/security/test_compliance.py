"""The whole app against every rule pack: registration, no finding left, exceptions that still apply."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from statespeak_constructs.nag_rules import KIT_EXCEPTIONS, PACK_NAME, pack_of  # noqa: E402

PACKS = ("AwsSolutions", "NIST.800.53.R5", "HIPAA.Security", PACK_NAME)


def test_app_registers_every_pack():
    import app as cdk_app

    app, _ = cdk_app.build_app({})  # built, not synthesized: registration is all this test needs
    names = {plugin.name for plugin in app.policy_validation_beta1}
    assert set(PACKS) <= names, f"packs registered in app.py: {sorted(names)}"


@pytest.mark.parametrize("pack", PACKS)
def test_no_pack_leaves_a_finding(any_synth, pack):
    left = [
        f"{v.get('ruleName')} at {[c.get('constructPath') for c in v.get('violatingConstructs', [])]}"
        for v in any_synth.nag_violations
        if pack_of(str(v.get("ruleName"))) == pack
    ]
    assert not left, f"{pack} findings:\n" + "\n".join(left)
    assert any_synth.error is None or not any(pack in line for line in any_synth.error.splitlines()), (
        any_synth.error
    )


def test_every_kit_exception_still_applies_somewhere(default_synth, full_synth):
    """An exception whose condition no resource meets any more is stale: remove it (or it hides the next)."""
    made = {(a.rule_id, a.reason) for result in (default_synth, full_synth) for a in result.acknowledgements}
    stale = [
        f"{pack}-{exc.rule}"
        for exc in KIT_EXCEPTIONS
        for pack in exc.packs
        if (f"{pack}-{exc.rule}", exc.reason) not in made
    ]
    assert not stale, f"kit exceptions that acknowledge nothing in the suite's contexts: {stale}"


def test_kit_exceptions_are_specific():
    rules = [(exc.rule, exc.reason) for exc in KIT_EXCEPTIONS]
    assert len({reason for _, reason in rules}) == len(rules), "two exceptions share one reason text"
    for exc in KIT_EXCEPTIONS:
        assert exc.packs and set(exc.packs) <= set(PACKS), exc
        assert len(exc.reason.split()) >= 15, f"{exc.rule}: reason too thin: {exc.reason!r}"
