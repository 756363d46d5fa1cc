"""`python -m tools.audit`: synthesize each deployment choice and write its boundary report and diagram.

Examples:
    python -m tools.audit                                # every choice -> audit-out/
    python -m tools.audit --choice ecs-internal          # one choice
    python -m tools.audit --cdk-out cdk.out --name mine  # report on an existing cloud assembly
    python -m tools.audit --update-docs                  # also refresh docs/security/ (default choice)

Exit status: 0 when every choice synthesized with no unacknowledged cdk-nag finding, 1 otherwise (the
reports are still written), 2 on bad arguments or configuration.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from tools.audit.model import Acknowledged, Boundary, load_templates  # noqa: E402
from tools.audit.render import diagram, diagram_basename, markdown  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS_DIR = REPO_ROOT / "docs" / "security"
DEFAULT_CHOICE = "ecs-internal"
# An internet-facing entry needs a certificate; synthesis never looks it up, so an example ARN in the
# deployment region stands in (the report says so).
EXAMPLE_CERTIFICATE = "arn:aws:acm:{region}:123456789012:certificate/12345678-1234-1234-1234-123456789012"


def choices(region: str) -> dict[str, dict[str, Any]]:
    # An internet-facing entry is the ECS route's ALB and always comes with API keys (config enforces both).
    public = {
        "internet_facing": True,
        "api_key_auth": True,
        "certificate_arn": EXAMPLE_CERTIFICATE.format(region=region),
    }
    return {
        "ecs-internal": {"deployment": "ecs"},
        "ecs-internet-facing": {"deployment": "ecs", **public},
        "sagemaker-internal": {"deployment": "sagemaker"},
        "both-internal": {"deployment": "both"},
        "both-internet-facing": {"deployment": "both", **public},
        # Your own VPC (imported by ID), named clients only, a private name with internal TLS.
        "both-own-vpc": {
            "deployment": "both",
            "vpc_id": "vpc-0a1b2c3d4e5f60718",
            "vpc_cidr": "10.20.0.0/16",
            "availability_zones": f"{region}a,{region}b",
            "data_subnet_ids": "subnet-0aaaaaaaaaaaaaaa1,subnet-0bbbbbbbbbbbbbbb2",
            "data_route_table_ids": "rtb-0aaaaaaaaaaaaaaa1,rtb-0bbbbbbbbbbbbbbb2",
            "client_cidrs": "10.30.0.0/16",
            "client_security_group_ids": "sg-0ccccccccccccccc1",
            "dns_name": "tts.internal.example",
            "certificate_arn": EXAMPLE_CERTIFICATE.format(region=region),
        },
    }


def acknowledgements(app: Any) -> list[Acknowledged]:
    """Every Validations.acknowledge() in the app's construct tree: (construct path, rule id, reason)."""
    from aws_cdk import Validations

    found = []
    for construct in app.node.find_all():
        for entry in construct.node.metadata:
            if entry.type == Validations.ACKNOWLEDGED_RULES_METADATA_KEY and entry.data:
                for rule, reason in dict(entry.data).items():
                    # aws-cdk-lib stores "Annotation::<id>"; plugin-qualified ids keep their "Pack::" part.
                    rule = rule.split("::", 1)[1] if rule.lower().startswith("annotation::") else rule
                    found.append(Acknowledged(construct.node.path, rule, str(reason)))
    return found


def synthesize(
    context: dict[str, Any], outdir: Path
) -> tuple[dict[str, dict], str | None, str, list[Acknowledged]]:
    """Templates of the app under `context`, the validation error (cdk-nag) if any, the region, and the
    acknowledged findings."""
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    import app as cdk_app  # the repository's app.py

    saved = {
        k: os.environ.pop(k)
        for k in ("CDK_CONTEXT_JSON", "CDK_DEFAULT_ACCOUNT", "CDK_OUTDIR")
        if k in os.environ
    }
    try:
        app, config = cdk_app.build_app(context, outdir=str(outdir))
        error = None
        try:
            app.synth()
        except RuntimeError as exc:  # jsii surfaces a failed validation as RuntimeError; templates exist
            error = str(exc).splitlines()[0]
    finally:
        os.environ.update(saved)
    return load_templates(outdir), error, config.region, acknowledgements(app)


def write(boundary: Boundary, context: dict, out: Path, error: str | None) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    text = markdown(boundary, context)
    if error:
        text = text.replace(
            "## Findings to review\n", f"## Findings to review\n\n- SYNTHESIS FAILED: {error}\n", 1
        )
    base = out / diagram_basename(boundary.name)
    md = base.with_suffix(".md")
    md.write_text(text)
    graph = diagram(boundary)
    (out / f"{base.name}.dot").write_text(graph.source)
    written = [md, out / f"{base.name}.dot"]
    for fmt in ("svg", "png"):
        written.append(Path(graph.render(filename=base.name, directory=str(out), format=fmt, cleanup=True)))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.audit", description=__doc__.splitlines()[0])
    parser.add_argument("--choice", action="append", help="deployment choice(s) to audit (default: all)")
    parser.add_argument("--cdk-out", type=Path, help="report on this existing cloud assembly instead")
    parser.add_argument("--name", default="cdk-out", help="report name with --cdk-out")
    parser.add_argument("--region", default="", help="region shown with --cdk-out (default: cdk.json's)")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "audit-out", help="output folder")
    parser.add_argument(
        "--update-docs",
        action="store_true",
        help=f"copy the {DEFAULT_CHOICE} report and diagram to docs/security/",
    )
    args = parser.parse_args(argv)
    if shutil.which("dot") is None:
        print("audit: graphviz's `dot` is not installed (make apt installs it)", file=sys.stderr)
        return 2

    from stacks.config import ConfigError, load_context

    region = args.region or load_context({}).get("region", "us-east-1")
    failed = False
    if args.cdk_out is not None:
        boundary = Boundary.from_templates(args.name, load_templates(args.cdk_out), region)
        for path in write(boundary, {"cdk-out": str(args.cdk_out)}, args.out, None):
            print(f"audit: wrote {path}")
        _print_findings(boundary)
        return 0

    available = choices(region)
    unknown = sorted(set(args.choice or []) - set(available))
    if unknown:
        print(f"audit: unknown choice(s) {unknown}; known: {', '.join(available)}", file=sys.stderr)
        return 2
    selected = args.choice or list(available)
    if args.update_docs and DEFAULT_CHOICE not in selected:
        selected.append(DEFAULT_CHOICE)
    for name in selected:
        start = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix=f"audit-{name}-") as tmp:
            try:
                templates, error, region, acks = synthesize(available[name], Path(tmp))
            except ConfigError as exc:
                print(f"audit: {name}: invalid configuration: {exc}", file=sys.stderr)
                return 2
        boundary = Boundary.from_templates(name, templates, region)
        boundary.acknowledged = acks
        paths = write(boundary, available[name], args.out, error)
        print(
            f"audit: {name}: {len(templates)} stacks in {time.perf_counter() - start:.0f} s -> "
            + ", ".join(str(p.relative_to(args.out)) if p.is_relative_to(args.out) else str(p) for p in paths)
        )
        if error:
            failed = True
            print(f"audit: {name}: cdk-nag validation failed: {error}", file=sys.stderr)
        _print_findings(boundary)
        if args.update_docs and name == DEFAULT_CHOICE:
            DOCS_DIR.mkdir(parents=True, exist_ok=True)
            for path in paths:
                if path.suffix in (".md", ".svg"):
                    shutil.copyfile(path, DOCS_DIR / path.name)
                    print(f"audit: updated {DOCS_DIR.relative_to(REPO_ROOT) / path.name}")
    return 1 if failed else 0


def _print_findings(boundary: Boundary) -> None:
    for finding in boundary.findings():
        print(f"  - {finding}")


if __name__ == "__main__":
    sys.exit(main())
