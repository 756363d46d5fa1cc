"""The constructs as a library: the example app synthesizes, the wheel builds and works once installed.

The example (examples/existing_vpc/app.py) adds the kit's SageMaker endpoint to an existing stack that
holds an imported VPC, with the kit's compliance packs on. The wheel is built from this repository
(hatchling, as pyproject.toml declares it) and installed into a bare folder; the example then runs
against that folder alone, not against the repository.
"""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from model_server import contract

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = REPO_ROOT / "examples" / "existing_vpc" / "app.py"
STACK = "VoiceAgents"


def _templates(outdir: Path) -> dict[str, dict]:
    return {p.name.split(".")[0]: json.loads(p.read_text()) for p in outdir.glob("*.template.json")}


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> dict:
    outdir = tmp_path_factory.mktemp("example-out")
    app = runpy.run_path(str(EXAMPLE))["build_app"](str(outdir))
    app.synth()  # the compliance packs are on: an unacknowledged finding raises here
    return _templates(outdir)[STACK]


def _of_type(template: dict, type_name: str) -> list[dict]:
    return [r["Properties"] for r in template["Resources"].values() if r["Type"] == type_name]


def test_example_adds_the_endpoint_to_an_existing_stack_in_an_imported_vpc(example):
    assert not _of_type(example, "AWS::EC2::VPC") and not _of_type(example, "AWS::EC2::Subnet")
    (endpoint,) = _of_type(example, "AWS::SageMaker::Endpoint")
    assert endpoint["EndpointName"] == "agents-tts"
    # the example sets no AMI: the construct picks the driver-580 one the kit image needs (without it the
    # endpoint would never turn ready on SageMaker's default AMIs)
    (config,) = _of_type(example, "AWS::SageMaker::EndpointConfig")
    (variant,) = config["ProductionVariants"]
    assert variant["InferenceAmiVersion"] == contract.KIT_INFERENCE_AMI_VERSION
    (model,) = _of_type(example, "AWS::SageMaker::Model")
    assert model["VpcConfig"]["Subnets"] == ["subnet-0aaaaaaaaaaaaaaa1", "subnet-0bbbbbbbbbbbbbbb2"]
    assert model["PrimaryContainer"]["Environment"][contract.ENV_KIT_NAME] == "Agents"
    assert _of_type(example, "AWS::ApplicationAutoScaling::ScalingPolicy")
    (dashboard,) = _of_type(example, "AWS::CloudWatch::Dashboard")
    assert dashboard["DashboardName"] == "Agents-tts"
    # The VPC's own runtime endpoint is not known to the constructs: invocations are bound to the VPC.
    (policy,) = _of_type(example, "AWS::IAM::ManagedPolicy")
    (statement,) = policy["PolicyDocument"]["Statement"]
    assert statement["Condition"] == {"StringEquals": {"aws:SourceVpc": "vpc-0a1b2c3d4e5f60718"}}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # No build isolation: hatchling is pinned in requirements-dev.txt, so this needs no network.
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(REPO_ROOT), "-w", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    (built,) = out.glob("statespeak_constructs-*.whl")
    return built


def test_wheel_holds_the_constructs_their_lambda_code_and_the_shared_names_only(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {f"statespeak_constructs/{p.name}" for p in (REPO_ROOT / "statespeak_constructs").glob("*.py")}
    assert modules <= names, sorted(modules - names)
    assert "statespeak_constructs/py.typed" in names
    assert {"model_server/__init__.py", "model_server/contract.py"} <= names
    server = {n for n in names if n.startswith("model_server/")}
    assert server == {"model_server/__init__.py", "model_server/contract.py"}, "the server is not a library"
    with zipfile.ZipFile(wheel) as archive:
        # Every function the constructs deploy: a new lambda/ folder missing from pyproject.toml fails here.
        functions = sorted(p.name for p in (REPO_ROOT / "lambda").iterdir() if (p / "handler.py").is_file())
        assert {"canary", "weights_sync", "capacity_release", "scaling_handover"} <= set(functions)
        for function in functions:
            for source in (REPO_ROOT / "lambda" / function).glob("*.py"):
                packaged = f"statespeak_constructs/_lambda/{function}/{source.name}"
                assert archive.read(packaged) == source.read_bytes(), packaged
        metadata = archive.read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "Name: statespeak-constructs" in metadata and "Requires-Dist: aws-cdk-lib" in metadata


def test_installed_wheel_synthesizes_the_example_without_the_repository(wheel, tmp_path):
    site = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-3000:]
    script = (
        "import runpy, statespeak_constructs, model_server.contract as c\n"
        "from statespeak_constructs.assets import lambda_asset\n"
        f"app = runpy.run_path({str(EXAMPLE)!r})['build_app']({str(tmp_path / 'out')!r}); app.synth()\n"
        "print(statespeak_constructs.__file__); print(c.__file__); print(lambda_asset('canary'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CDK_CONTEXT_JSON")}
    env["PYTHONPATH"] = str(site)  # the shared venv still provides aws-cdk-lib, constructs and cdk-nag
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    package, shared, asset = proc.stdout.strip().splitlines()[-3:]
    for path in (package, shared, asset):
        assert Path(path).resolve().is_relative_to(site.resolve()), path
    assert (Path(asset) / "handler.py").is_file()
    assert STACK in _templates(tmp_path / "out")
