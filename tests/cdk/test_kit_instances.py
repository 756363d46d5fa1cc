"""Several copies of the kit per account: no physical name and no metric shared between two instances.

The server and the stacks agree on the metric dimensions through model_server/contract.py: the EMF line
a task writes (with the environment the synthesized task definition gives it) names exactly the metric
the synthesized scaling policy tracks.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from model_server import contract
from model_server.config import ServerConfig
from model_server.metrics import ServerMetrics
from tests.conftest import VARIANTS

ECS = "Ecs"
SECOND = {"name": "Voice2"}  # a second copy beside the default "Statespeak"

# The properties that hold a physical name, unique per account and region (or per parent), by type.
PHYSICAL_NAME_KEYS = {
    "AWS::ApplicationAutoScaling::ScalableTarget": "ResourceId",
    "AWS::ApplicationAutoScaling::ScalingPolicy": "PolicyName",
    "AWS::AutoScaling::AutoScalingGroup": "AutoScalingGroupName",
    "AWS::CloudWatch::Alarm": "AlarmName",
    "AWS::CloudWatch::Dashboard": "DashboardName",
    "AWS::EC2::LaunchTemplate": "LaunchTemplateName",
    "AWS::ECR::Repository": "RepositoryName",
    "AWS::ECS::CapacityProvider": "Name",
    "AWS::ECS::Cluster": "ClusterName",
    "AWS::ECS::Service": "ServiceName",
    "AWS::ElasticLoadBalancingV2::LoadBalancer": "Name",
    "AWS::ElasticLoadBalancingV2::TargetGroup": "Name",
    "AWS::Events::Rule": "Name",
    "AWS::IAM::ManagedPolicy": "ManagedPolicyName",
    "AWS::IAM::Role": "RoleName",
    "AWS::KMS::Alias": "AliasName",
    "AWS::Lambda::Function": "FunctionName",
    "AWS::Logs::LogGroup": "LogGroupName",
    "AWS::S3::Bucket": "BucketName",
    "AWS::SNS::Topic": "TopicName",
    "AWS::SSM::Parameter": "Name",
    "AWS::SageMaker::Endpoint": "EndpointName",
    "AWS::SageMaker::EndpointConfig": "EndpointConfigName",
    "AWS::SageMaker::Model": "ModelName",
    "AWS::SecretsManager::Secret": "Name",
}


def _literal(value: Any) -> str | None:
    """The value when CloudFormation gets it as plain text (a Join of plain strings included)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Fn::Join" in value:
        delimiter, parts = value["Fn::Join"]
        if all(isinstance(p, str) for p in parts):
            return delimiter.join(parts)
    return None


def physical_names(templates: dict[str, dict]) -> dict[tuple[str, str, str], str]:
    """{(resource type, property, name): stack} of every literal physical name, plus exports and stacks."""
    found: dict[tuple[str, str, str], str] = {}
    for stack, template in templates.items():
        found[("AWS::CloudFormation::Stack", "StackName", stack)] = stack
        for resource in template.get("Resources", {}).values():
            key = PHYSICAL_NAME_KEYS.get(resource["Type"])
            name = _literal((resource.get("Properties") or {}).get(key)) if key else None
            if name is not None:
                found[(resource["Type"], key, name)] = stack
        for output in template.get("Outputs", {}).values():
            export = _literal((output.get("Export") or {}).get("Name"))
            if export is not None:
                found[("Export", "Name", export)] = stack
    return found


def metric_dimension_sets(templates: dict[str, dict]) -> set[tuple[str, str, tuple]]:
    """(namespace, metric, dimensions) of every kit metric the stacks read: scaling, alarms, dashboards."""
    found: set[tuple[str, str, tuple]] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("Namespace") == contract.METRICS_NAMESPACE and "MetricName" in node:
                dims = tuple(sorted((d["Name"], d["Value"]) for d in node.get("Dimensions", [])))
                found.add((node["Namespace"], node["MetricName"], dims))
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    for template in templates.values():
        walk(template.get("Resources", {}))
        for resource in template.get("Resources", {}).values():
            if resource["Type"] == "AWS::CloudWatch::Dashboard":
                body = resource["Properties"]["DashboardBody"]
                # A Join of text and references (other metrics' dimensions): the kit's metrics are text.
                parts = body["Fn::Join"][1] if isinstance(body, dict) else [body]
                text = "".join(part if isinstance(part, str) else "REF" for part in parts)
                for row in text.split('["' + contract.METRICS_NAMESPACE + '",')[1:]:
                    # ["Statespeak","<metric>","Service","ecs","Kit","<name>",{...}]
                    items = json.loads(
                        '["' + contract.METRICS_NAMESPACE + '",' + row.split("{", 1)[0] + "{}]"
                    )
                    dims = tuple(sorted(zip(items[2:-1:2], items[3:-1:2], strict=True)))
                    found.add((items[0], items[1], dims))
    return found


@pytest.fixture(scope="module")
def first_synth(full_synth):
    """The suite's `full` context (both routes, API keys, alarm topic): the most named resources."""
    return full_synth


@pytest.fixture(scope="module")
def second_synth(synth):
    return synth(**{**VARIANTS["full"], **SECOND})


def test_two_instances_share_no_physical_name(first_synth, second_synth):
    assert first_synth.error is None and second_synth.error is None
    first, second = physical_names(first_synth.templates), physical_names(second_synth.templates)
    named_types = {resource_type for resource_type, _, _ in first}
    # The fixed names the kit does give: endpoint, its config, the scaling target/policy, dashboards, log group.
    assert {"AWS::SageMaker::Endpoint", "AWS::CloudWatch::Dashboard", "Export"} <= named_types, sorted(first)
    shared = sorted(set(first) & set(second))
    assert not shared, f"physical names both instances would claim in one account: {shared}"


def test_two_instances_read_only_their_own_metrics(first_synth, second_synth):
    first, second = (
        metric_dimension_sets(first_synth.templates),
        metric_dimension_sets(second_synth.templates),
    )
    assert first and second
    assert not first & second, f"metrics both instances would read: {sorted(first & second)}"
    for _, _, dims in first | second:
        assert dict(dims).get(contract.DIM_KIT) in ("Statespeak", SECOND["name"]), dims


def _container_environment(result) -> dict[str, str]:
    task = result.only(ECS, "AWS::ECS::TaskDefinition")
    (container,) = task["ContainerDefinitions"]
    return {e["Name"]: e["Value"] for e in container["Environment"]}


@pytest.mark.parametrize("which", ["first", "second"])
def test_server_emf_matches_the_synthesized_scaling_metric(which, first_synth, second_synth):
    result = first_synth if which == "first" else second_synth
    env = _container_environment(result)
    assert env[contract.ENV_KIT_NAME] == result.stack_prefix
    config = ServerConfig.from_env(env)
    out = io.StringIO()
    metrics = ServerMetrics(config.deployment, 8, emf_out=out, kit=config.kit)
    metrics.emit_periodic()
    doc = json.loads(out.getvalue().splitlines()[-1])
    (directive,) = doc["_aws"]["CloudWatchMetrics"]
    (dimension_names,) = directive["Dimensions"]
    emitted = {name: doc[name] for name in dimension_names}

    policy = result.only(ECS, "AWS::ApplicationAutoScaling::ScalingPolicy")
    tracked = policy["TargetTrackingScalingPolicyConfiguration"]["CustomizedMetricSpecification"]
    assert tracked["Namespace"] == directive["Namespace"]
    assert tracked["MetricName"] in {m["Name"] for m in directive["Metrics"]}
    assert {d["Name"]: d["Value"] for d in tracked["Dimensions"]} == emitted
    assert emitted == {contract.DIM_SERVICE: contract.DEPLOYMENT_ECS, contract.DIM_KIT: result.stack_prefix}


def test_sagemaker_container_names_its_kit_instance(second_synth):
    model = second_synth.only("SageMaker", "AWS::SageMaker::Model")
    environment = model["PrimaryContainer"]["Environment"]
    assert environment[contract.ENV_KIT_NAME] == SECOND["name"]


def test_server_without_kit_variable_uses_the_default():
    config = ServerConfig.from_env({})
    out = io.StringIO()
    ServerMetrics(config.deployment, 4, emf_out=out, kit=config.kit).emit_periodic()
    doc = json.loads(out.getvalue())
    assert doc[contract.DIM_KIT] == contract.DEFAULT_KIT_NAME
    assert doc["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [list(contract.METRIC_DIMENSIONS)]


@pytest.mark.parametrize(
    ("which", "part", "route"), [("second", "SageMaker", "sagemaker"), ("estate", "Ecs", "ecs")]
)
def test_canary_emf_matches_its_synthesized_alarm(which, part, route, second_synth, synth, monkeypatch):
    """The canary function, run with the environment the template gives it, writes the metric its alarm reads."""
    from tests.support.lambdas import load_handler

    handler = load_handler("canary", "canary_handler_kit")

    result = second_synth if which == "second" else synth(**VARIANTS["estate"])
    functions = result.resources(part, "AWS::Lambda::Function")
    env = next(
        f["Properties"]["Environment"]["Variables"] for k, f in functions.items() if k.startswith("Canary")
    )
    for key, value in env.items():
        if isinstance(value, str):  # not the API key secret's ARN (a reference); the run never fetches it
            monkeypatch.setenv(key, value)
    cfg = handler.load_config()
    run = {
        "success": True,
        "ttfa_ms": 80.0,
        "stalls": 0,
        "stall_ms": 0.0,
        "audio_s": 2.0,
        "chunks": 4,
        "error": None,
    }
    doc = handler.emf_record(cfg, run, 1)
    (directive,) = doc["_aws"]["CloudWatchMetrics"]
    emitted = {name: doc[name] for name in directive["Dimensions"][0]}
    assert emitted == contract.metric_dimensions(route, result.stack_prefix)

    alarms = result.resources(part, "AWS::CloudWatch::Alarm")
    canary_alarms = [a["Properties"] for k, a in alarms.items() if k.startswith("Canary")]
    assert canary_alarms
    for alarm in canary_alarms:
        assert alarm["MetricName"] in {m["Name"] for m in directive["Metrics"]}
        assert {d["Name"]: d["Value"] for d in alarm["Dimensions"]} == emitted


def test_real_server_with_the_task_environment_emits_the_scaling_metric(second_synth, tmp_path):
    """The server process, started with the task definition's environment, writes the metric the policy reads."""
    import time

    from tests.server._server import ServerProcess, make_model_dir

    env = _container_environment(second_synth)
    env.pop(contract.ENV_MODEL_DIR)  # the test model instead of the task's mount
    # The task pins cuda; this machine has none (the dimensions are the point).
    env[contract.ENV_DEVICE] = "cpu"
    env["STATESPEAK_EMF_INTERVAL_S"] = "0.2"
    with ServerProcess(make_model_dir(tmp_path / "model"), tmp_path, **env) as server:
        deadline = time.monotonic() + 30
        while not server.emf_lines() and time.monotonic() < deadline:
            time.sleep(0.2)
    lines = [line for line in server.emf_lines() if contract.METRIC_ACTIVE_STREAMS in line]
    assert lines, f"no ActiveStreams EMF line on stdout:\n{server.stderr()[-2000:]}"
    (directive,) = lines[0]["_aws"]["CloudWatchMetrics"]
    emitted = {name: lines[0][name] for name in directive["Dimensions"][0]}
    policy = second_synth.only(ECS, "AWS::ApplicationAutoScaling::ScalingPolicy")
    tracked = policy["TargetTrackingScalingPolicyConfiguration"]["CustomizedMetricSpecification"]
    assert (tracked["Namespace"], tracked["MetricName"]) == (
        directive["Namespace"],
        contract.METRIC_ACTIVE_STREAMS,
    )
    assert {d["Name"]: d["Value"] for d in tracked["Dimensions"]} == emitted
    assert emitted[contract.DIM_KIT] == SECOND["name"]
