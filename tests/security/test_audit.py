"""The boundary audit on the suite's two synthesized contexts (no synthesis of its own)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tools.audit import Boundary, diagram, markdown
from tools.audit.__main__ import main as audit_main
from tools.audit.model import API_KEY_ENV, Acknowledged, load_templates, task_auth

REPO_ROOT = Path(__file__).resolve().parents[2]
REGION = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]["region"]


def test_graphviz_dot_is_installed():
    """`make test` installs Debian's graphviz (Makefile APT_PACKAGES): the diagrams below need `dot`."""
    assert shutil.which("dot") is not None, "graphviz `dot` missing: run `make apt`"


@pytest.fixture(scope="module")
def internal(default_synth) -> Boundary:
    return Boundary.from_templates("default", dict(default_synth), REGION)


@pytest.fixture(scope="module")
def public(full_synth) -> Boundary:
    return Boundary.from_templates("full", dict(full_synth), REGION)


def _resources(result, type_name: str) -> list[str]:
    return [
        lid for t in result.templates.values() for lid, r in t["Resources"].items() if r["Type"] == type_name
    ]


def test_default_has_no_route_out_and_nothing_public(internal):
    assert internal.internet_routes == []
    assert not internal.t.of_type("AWS::EC2::InternetGateway", "AWS::EC2::NatGateway")
    assert [lb.scheme for lb in internal.lbs] == ["internal"]
    assert internal.exposure == [], internal.exposure
    assert all(not s.routes_out for s in internal.subnets), [s.routes_out for s in internal.subnets]
    ingress = [r for g in internal.groups for r in g.rules if r.direction == "in"]
    assert ingress and not [r for r in ingress if r.is_internet]
    # Clients reach the ALB from the VPC range only; tasks only from the ALB's group.
    alb_group = next(
        g for g in internal.groups if any(a.type.endswith("LoadBalancer") for a in g.attached_to)
    )
    assert {r.peer_kind for r in alb_group.rules if r.direction == "in"} == {"vpc"}


def test_every_security_group_rule_and_endpoint_is_reported(internal, default_synth):
    assert {g.res.logical_id for g in internal.groups} == set(
        _resources(default_synth, "AWS::EC2::SecurityGroup")
    )
    standalone = len(_resources(default_synth, "AWS::EC2::SecurityGroupIngress"))
    standalone += len(_resources(default_synth, "AWS::EC2::SecurityGroupEgress"))
    inline = sum(
        len(r["Properties"].get("SecurityGroupIngress", []))
        + len([e for e in r["Properties"].get("SecurityGroupEgress", []) if e.get("CidrIp") != "255.255.255.255/32"])
        for t in default_synth.templates.values() for r in t["Resources"].values()
        if r["Type"] == "AWS::EC2::SecurityGroup"
    )  # fmt: skip
    assert sum(len(g.rules) for g in internal.groups) == inline + standalone
    services = {e.service for e in internal.endpoints}
    assert {"s3", "ecr.api", "ecr.dkr", "logs"} <= services, services
    assert next(e for e in internal.endpoints if e.service == "s3").kind == "Gateway"


def test_every_role_has_its_trust_and_statements_with_wildcards_flagged(internal, default_synth):
    assert {r.res.logical_id for r in internal.roles} == set(_resources(default_synth, "AWS::IAM::Role"))
    for role in internal.roles:
        assert role.trust, f"{role.res.name} has no trusted principal"
    granted = {s.source for role in internal.roles for s in role.statements}
    policies = {lid[:-8] for lid in _resources(default_synth, "AWS::IAM::Policy")}
    assert policies <= granted, f"policies missing from the report: {policies - granted}"
    flagged = {(role.res.name, a) for role, st in internal.wildcards for a in st.actions}
    assert flagged, "the ECS agent's statements on '*' should be flagged"
    for _role, st in internal.wildcards:
        assert st.effect == "Allow" and ("*" in "".join(st.actions) or "*" in "".join(st.resources))


def test_encryption_covers_every_storage_resource(internal, public, default_synth, full_synth):
    for boundary, result in ((internal, default_synth), (public, full_synth)):
        covered = {e.res.logical_id for e in boundary.encryption}
        for type_name in (
            "AWS::S3::Bucket",
            "AWS::Logs::LogGroup",
            "AWS::EFS::FileSystem",
            "AWS::FSx::FileSystem",
            "AWS::SNS::Topic",
            "AWS::SageMaker::EndpointConfig",
            "AWS::KMS::Key",
        ):
            missing = set(_resources(result, type_name)) - covered
            assert not missing, f"{type_name} without an encryption row: {missing}"
    efs = [e for e in public.encryption if e.res.type == "AWS::EFS::FileSystem"]
    assert efs and all(e.ok for e in efs), efs
    buckets = [e for e in internal.encryption if e.res.type == "AWS::S3::Bucket"]
    assert buckets and all("TLS enforced" in e.in_transit for e in buckets), buckets


def test_internet_facing_entry_is_the_only_public_path(public):
    public_lbs = [lb for lb in public.lbs if lb.internet_facing]
    assert len(public_lbs) == 1
    listeners = {(lis.protocol, lis.port): lis for lis in public_lbs[0].listeners}
    assert listeners[("HTTP", 80)].redirects_to_https
    assert listeners[("HTTPS", 443)].tls_policy
    assert all(e.acceptable for e in public.exposure), [e for e in public.exposure if not e.acceptable]
    internet_rules = [
        (g.label, r.ports) for g in public.groups for r in g.rules if r.direction == "in" and r.is_internet
    ]
    assert sorted(p for _, p in internet_rules) == ["443", "80"]
    assert {label for label, _ in internet_rules} == set(public_lbs[0].groups)
    # Only the entry subnets route to the internet gateway; no NAT anywhere.
    assert public.internet_routes and all(r.target_kind == "internet-gateway" for r in public.internet_routes)
    assert all("entry" in s for r in public.internet_routes for s in r.subnets)
    assert any(e.what.startswith("SageMaker endpoint") for e in public.exposure)


def test_missing_api_keys_on_a_public_entry_is_a_finding(public):
    authed = all(ok for _, ok in task_auth(public.t))
    flagged = any("no STATESPEAK_API_KEYS" in f for f in public.findings())
    assert flagged == (not authed), f"tasks authenticated={authed}; findings={public.findings()}"
    assert set(API_KEY_ENV) == {"STATESPEAK_API_KEYS", "STATESPEAK_API_KEYS_FILE"}


def test_markdown_has_every_section_and_names_the_data_paths(internal, public):
    for boundary in (internal, public):
        text = markdown(boundary, {})
        for heading in (
            "## Findings to review",
            "## Publicly reachable",
            "### Security groups",
            "### VPC endpoints",
            "### Subnets and routes",
            "## IAM roles",
            "### Resource policies",
            "## Encryption at rest and in transit",
            "## Where data flows and rests",
            "## Diagram",
        ):
            assert heading in text, f"{boundary.name}: {heading} missing"
        assert "text in, audio out" in text and "model weights" in text and "logs:" in text
    assert "(none)" in markdown(internal, {}).split("## Publicly reachable")[1].split("##")[0]


def test_diagram_renders_and_marks_internet_paths_red(internal, public):
    quiet = diagram(internal).source
    loud = diagram(public).source
    assert "internet ->" not in quiet, "the internal deployment draws a path from the internet"
    red = [line for line in loud.splitlines() if line.strip().startswith("internet ->")]
    assert red and all("color=red" in line for line in red), red
    svg = diagram(public).pipe(format="svg").decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "internet gateway" in svg


def test_cli_reports_on_an_existing_cloud_assembly(default_synth, tmp_path, capsys):
    assert (
        audit_main(["--cdk-out", str(default_synth.outdir), "--name", "suite", "--out", str(tmp_path)]) == 0
    )
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["boundary-suite.dot", "boundary-suite.md", "boundary-suite.png", "boundary-suite.svg"]
    assert (tmp_path / "boundary-suite.png").read_bytes()[:4] == b"\x89PNG"
    assert "wildcard:" in capsys.readouterr().out
    assert load_templates(default_synth.outdir).keys() == default_synth.templates.keys()


def test_cli_rejects_unknown_choice(capsys):
    assert audit_main(["--choice", "nope"]) == 2
    assert "unknown choice" in capsys.readouterr().err


def test_committed_default_report_exists_next_to_its_diagram():
    docs = REPO_ROOT / "docs" / "security"
    report = (docs / "boundary-ecs-internal.md").read_text()
    assert report.startswith("# Security boundary: ecs-internal")
    assert "](boundary-ecs-internal.svg)" in report
    assert (docs / "boundary-ecs-internal.svg").read_text().lstrip().startswith("<?xml")


def test_report_lists_every_acknowledgement_with_its_reason(default_synth):
    boundary = Boundary.from_templates("default", dict(default_synth), REGION)
    assert "run the audit without --cdk-out" in markdown(boundary, {})
    boundary.acknowledged = [
        Acknowledged(a.path, a.rule_id, a.reason) for a in default_synth.acknowledgements
    ]
    assert boundary.acknowledged, "the default app acknowledges nothing"
    section = markdown(boundary, {}).split("## Acknowledged rule findings")[1].split("## Diagram")[0]
    for ack in boundary.acknowledged:
        assert ack.rule in section and ack.path in section
