"""Synthesize the real CDK app once per distinct context per test session, in-process, and share it.

At the tests root so every folder (tests/cdk, tests/security, ...) shares one cache: a context is
synthesized once per session however many folders use it.

Every CDK test asks for a variant through `synth(**context)` (or the `default_synth` / `full_synth`
fixtures for the two contexts the suite is built around). Synthesis is the expensive part (~20-30 s of
CPU), so the whole suite should stay at a handful of distinct contexts: reuse VARIANTS before adding one.

A SynthResult is a mapping {stack name: template dict} with extras:
- `template(part)`: an aws_cdk.assertions.Template of the stack `<name>-<part>` (e.g. "Ecs");
- `nag_violations`: cdk-nag findings left unacknowledged (empty when the synth passed validation);
- `acknowledgements`: every Validations.acknowledge() in the app: (construct path, rule id, reason);
- `error`: the synthesis error (validation failure) as text, or None;
- `seconds`: wall time of build + synth.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from aws_cdk.assertions import Template

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

REPO_ROOT = Path(__file__).resolve().parents[1]
TEST_CERTIFICATE_ARN = "arn:aws:acm:us-east-1:123456789012:certificate/12345678-1234-1234-1234-123456789012"

# The suite's contexts. "default" is cdk.json as shipped; "full" flips every switch the default leaves
# off (both routes, EFS, the kit's ECR repo, public entry with TLS, API keys, alarm e-mail, other bounds).
VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "full": {
        "deployment": "both",
        "weights_storage": "efs",
        "image_source": "ecr",
        "image_tag": "2026.11.1",
        "internet_facing": True,
        "certificate_arn": TEST_CERTIFICATE_ARN,
        "alarm_email": "oncall@example.com",
        "api_key_auth": True,
        "min_replicas": 3,
        "max_replicas": 12,
        "target_streams_per_task": 5,
        "max_streams_per_task": 10,
        "engines_per_task": 2,
        "weights_version": "v2",
        "availability_zones": "us-east-1a,us-east-1b,us-east-1c",
    },
    # Your own estate (issue 13): both routes in an existing VPC imported by ID, some of its endpoints
    # already there, named clients only, a private name with internal TLS.
    "estate": {
        "deployment": "both",
        "vpc_id": "vpc-0a1b2c3d4e5f60718",
        "vpc_cidr": "10.20.0.0/16",
        "availability_zones": "us-east-1a,us-east-1b",
        "data_subnet_ids": "subnet-0aaaaaaaaaaaaaaa1,subnet-0bbbbbbbbbbbbbbb2",
        "data_route_table_ids": "rtb-0aaaaaaaaaaaaaaa1,rtb-0bbbbbbbbbbbbbbb2",
        "gpu_subnet_id": "subnet-0bbbbbbbbbbbbbbb2",
        "existing_vpc_endpoints": "sts,ecs-telemetry,sagemaker.api",
        "existing_endpoints_security_group_id": "sg-0eeeeeeeeeeeeeee1",
        "client_cidrs": "10.30.0.0/16",
        "client_security_group_ids": "sg-0ccccccccccccccc1",
        "dns_name": "tts.internal.example",
        "certificate_arn": TEST_CERTIFICATE_ARN,
        "api_key_auth": True,
    },
}


@dataclass(frozen=True)
class Ack:
    path: str
    rule_id: str
    reason: str


@dataclass
class SynthResult(Mapping):
    context: dict[str, Any]
    stack_prefix: str
    templates: dict[str, dict] = field(default_factory=dict)
    nag_violations: list[dict] = field(default_factory=list)
    acknowledgements: list[Ack] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    outdir: Path | None = None
    _assertions: dict[str, Template] = field(default_factory=dict)

    def __getitem__(self, stack_name: str) -> dict:
        return self.templates[stack_name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.templates)

    def __len__(self) -> int:
        return len(self.templates)

    def stack_name(self, part: str) -> str:
        return f"{self.stack_prefix}-{part}"

    def template(self, part: str) -> Template:
        """Assertions view of stack `<prefix>-<part>`; fails clearly when the stack was not built."""
        name = self.stack_name(part)
        if name not in self.templates:
            raise AssertionError(f"stack {name} not synthesized; stacks: {sorted(self.templates)}")
        if name not in self._assertions:
            from aws_cdk.assertions import Template

            self._assertions[name] = Template.from_json(self.templates[name])
        return self._assertions[name]

    def resources(self, part: str, type_name: str) -> dict[str, dict]:
        """{logical id: resource} of one CloudFormation type in stack `<prefix>-<part>`."""
        template = self.templates[self.stack_name(part)]
        return {k: v for k, v in template.get("Resources", {}).items() if v.get("Type") == type_name}

    def only(self, part: str, type_name: str) -> dict:
        """The properties of the single resource of `type_name` in the stack."""
        found = self.resources(part, type_name)
        assert len(found) == 1, f"expected one {type_name} in {part}, found {sorted(found)}"
        return next(iter(found.values())).get("Properties", {})


@contextmanager
def _clean_cdk_env() -> Iterator[None]:
    """No context or account leaking in from the caller's shell (e.g. a `make demo` CDK_CONTEXT_JSON)."""
    saved = {
        k: os.environ.pop(k)
        for k in ("CDK_CONTEXT_JSON", "CDK_DEFAULT_ACCOUNT", "CDK_OUTDIR")
        if k in os.environ
    }
    try:
        yield
    finally:
        os.environ.update(saved)


def _acknowledgements(app) -> list[Ack]:
    from aws_cdk import Validations

    key = Validations.ACKNOWLEDGED_RULES_METADATA_KEY
    acks: list[Ack] = []
    for construct in app.node.find_all():
        for entry in construct.node.metadata:
            if entry.type == key and entry.data:
                for rule_id, reason in dict(entry.data).items():
                    # aws-cdk-lib stores ids as "Annotation::<id>" (older versions: lower case).
                    clean = (
                        rule_id.split("::", 1)[1] if rule_id.lower().startswith("annotation::") else rule_id
                    )
                    acks.append(Ack(construct.node.path, clean, str(reason)))
    return acks


def _synthesize(context: dict[str, Any], outdir: Path) -> SynthResult:
    import app as cdk_app  # the repo's app.py
    from stacks.config import StatespeakConfig, load_context

    start = time.perf_counter()
    with _clean_cdk_env():
        config = StatespeakConfig.from_context(load_context(context))
        app, _ = cdk_app.build_app(context, outdir=str(outdir))
        result = SynthResult(context=dict(context), stack_prefix=config.name, outdir=outdir)
        try:
            app.synth()
        except RuntimeError as exc:  # jsii surfaces the validation failure as RuntimeError
            result.error = str(exc)
    result.acknowledgements = _acknowledgements(app)
    manifest = json.loads((outdir / "manifest.json").read_text())
    for artifact in manifest.get("artifacts", {}).values():
        if artifact.get("type") == "aws:cloudformation:stack":
            template_file = artifact["properties"]["templateFile"]
            name = artifact.get("displayName") or Path(template_file).stem.replace(".template", "")
            result.templates[name] = json.loads((outdir / template_file).read_text())
    for report_name in ("validation-report.json", "policy-validation-report.json"):
        report = outdir / report_name
        if report.exists():
            data = json.loads(report.read_text())
            for plugin in data.get("pluginReports", []):
                result.nag_violations.extend(plugin.get("violations", []))
            break
    result.seconds = time.perf_counter() - start
    return result


_CACHE: dict[str, SynthResult] = {}
TIMINGS: dict[str, float] = {}


@pytest.fixture(scope="session")
def synth(tmp_path_factory):
    """`synth(**context) -> SynthResult`, cached per distinct context for the whole session."""

    def run(**context: Any) -> SynthResult:
        key = json.dumps(context, sort_keys=True)
        if key not in _CACHE:
            outdir = tmp_path_factory.mktemp("cdk-out")
            _CACHE[key] = _synthesize(context, outdir)
            TIMINGS[key] = _CACHE[key].seconds
        return _CACHE[key]

    return run


@pytest.fixture(scope="session")
def default_synth(synth) -> SynthResult:
    """cdk.json as shipped: ECS only, FSx, image asset, internal ALB without TLS."""
    return synth(**VARIANTS["default"])


@pytest.fixture(scope="session")
def full_synth(synth) -> SynthResult:
    """Both routes, EFS, ECR image, internet-facing TLS entry, alarm e-mail."""
    return synth(**VARIANTS["full"])


@pytest.fixture(scope="session", params=sorted(VARIANTS))
def any_synth(request, synth) -> SynthResult:
    """Each suite variant in turn (quality gates run on all of them)."""
    return synth(**VARIANTS[request.param])


def pytest_terminal_summary(terminalreporter) -> None:
    """Print the measured synthesis time of each context (a number for benchmarks, never an assert)."""
    if TIMINGS:
        terminalreporter.write_line("CDK synthesis time per context:")
        for key, seconds in TIMINGS.items():
            terminalreporter.write_line(f"  {seconds:6.1f} s  {key}")
