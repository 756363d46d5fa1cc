"""Failures cfn-lint, cdk-nag and checkov cannot see: a fresh account's first deploy, tear-down, and day-2
operations (switching routes, redeploying after destroy, host boot failures), asserted on the synthesized
templates of the real app (issue 11). Each test names the failure it would have caught.
"""

from __future__ import annotations

import json

import pytest

from model_server import contract
from statespeak_constructs.endpoint_policies import FULL_ACCESS_ONLY_SERVICES
from statespeak_constructs.gpu_cluster import ecs_gpu_ami_parameter
from statespeak_constructs.load_balancer import SAGEMAKER_ONLY_PATHS

FOUNDATION, ECS, SM = "Foundation", "Ecs", "SageMaker"
# Routes switched in place: both up, then one of them (placement group off, to cover that switch too).
BOTH = {"deployment": "both", "placement_group": False}
SAGEMAKER_ONLY = {"deployment": "sagemaker"}


@pytest.fixture(scope="module")
def both_synth(synth):
    result = synth(**BOTH)
    assert result.error is None, result.error
    return result


@pytest.fixture(scope="module")
def sagemaker_synth(synth):
    result = synth(**SAGEMAKER_ONLY)
    assert result.error is None, result.error
    return result


@pytest.fixture(scope="module")
def every_synth(default_synth, full_synth, both_synth, sagemaker_synth):
    return {"default": default_synth, "full": full_synth, "both": both_synth, "sagemaker": sagemaker_synth}


def _walk(node, found: list, key: str) -> None:
    if isinstance(node, dict):
        if key in node:
            found.append(node[key])
        for value in node.values():
            _walk(value, found, key)
    elif isinstance(node, list):
        for value in node:
            _walk(value, found, key)


def _imports(template: dict) -> set[str]:
    found: list = []
    _walk(template, found, "Fn::ImportValue")
    return {json.dumps(v, sort_keys=True) for v in found}


def _exports(template: dict) -> set[str]:
    return {
        json.dumps(o["Export"]["Name"], sort_keys=True)
        for o in template.get("Outputs", {}).values()
        if "Export" in o
    }


def _text(value) -> str:
    return json.dumps(value, sort_keys=True)


# -- deploy-time -------------------------------------------------------------------------------------
def test_no_function_reserves_concurrency(every_synth):
    """A new account has 10 concurrent executions; Lambda refuses a reservation leaving fewer than 10."""
    for variant, result in every_synth.items():
        for stack, template in result.items():
            for logical_id, resource in template["Resources"].items():
                if resource["Type"] == "AWS::Lambda::Function":
                    props = resource.get("Properties", {})
                    assert "ReservedConcurrentExecutions" not in props, f"{variant}/{stack}/{logical_id}"


def test_sagemaker_canary_may_call_invoke_endpoint(both_synth):
    """InvokeEndpointWithResponseStream is authorized by sagemaker:InvokeEndpoint, nothing else."""
    policies = both_synth.resources(SM, "AWS::IAM::Policy")
    canary = [p for k, p in policies.items() if "Canary" in k]
    assert canary, "the SageMaker route has a canary"
    actions = _text([p["Properties"]["PolicyDocument"] for p in canary])
    assert '"sagemaker:InvokeEndpoint"' in actions
    assert "InvokeEndpointWithResponseStream" not in actions


def test_subnets_are_placed_by_az_id_gpu_zone_first(default_synth):
    """The GPU zone is the AZ *ID* of the context (the same physical zone in every account), not the
    first name Fn::GetAZs returns."""
    subnets = default_synth.resources(FOUNDATION, "AWS::EC2::Subnet")
    data = sorted(k for k in subnets if "dataSubnet" in k)
    ids = [subnets[k]["Properties"].get("AvailabilityZoneId") for k in data]
    assert ids == ["use1-az4", "use1-az6"]
    assert not any("AvailabilityZone" in subnets[k]["Properties"] for k in data)
    gpu_subnet = {"Fn::ImportValue": Fn_import_of(default_synth, data[0])}
    fsx = default_synth.only(ECS, "AWS::FSx::FileSystem")
    assert fsx["SubnetIds"] == [gpu_subnet]
    asg = default_synth.only(ECS, "AWS::AutoScaling::AutoScalingGroup")
    assert asg["VPCZoneIdentifier"] == [gpu_subnet]


def Fn_import_of(result, logical_id: str) -> str:  # noqa: N802 (names the intrinsic)
    """The export name the service stacks import `logical_id`'s Ref by."""
    for output in result[result.stack_name(FOUNDATION)]["Outputs"].values():
        if output.get("Value") == {"Ref": logical_id} and "Export" in output:
            return output["Export"]["Name"]
    raise AssertionError(f"no export of {logical_id}")


def test_zone_names_when_given_place_every_subnet_by_name(full_synth):
    subnets = full_synth.resources(FOUNDATION, "AWS::EC2::Subnet").values()
    assert all("AvailabilityZoneId" not in s["Properties"] for s in subnets)


def test_placement_group_is_the_default_and_can_be_switched_off(default_synth, both_synth):
    assert default_synth.resources(ECS, "AWS::EC2::PlacementGroup")
    lt = default_synth.only(ECS, "AWS::EC2::LaunchTemplate")["LaunchTemplateData"]
    assert "Placement" in lt and "GroupName" in _text(lt["Placement"])
    assert not both_synth.resources(ECS, "AWS::EC2::PlacementGroup")
    assert "Placement" not in both_synth.only(ECS, "AWS::EC2::LaunchTemplate")["LaunchTemplateData"]


def test_teardown_lifts_scale_in_protection_before_the_group_goes(default_synth):
    """Managed termination protection + protected hosts would hang the delete (aws-cdk issue 18179)."""
    resources = default_synth[default_synth.stack_name(ECS)]["Resources"]
    [(release_id, release)] = [
        (k, v) for k, v in resources.items() if v["Type"] == "Custom::StatespeakCapacityRelease"
    ]
    [asg_id] = [k for k, v in resources.items() if v["Type"] == "AWS::AutoScaling::AutoScalingGroup"]
    [cp_id] = [k for k, v in resources.items() if v["Type"] == "AWS::ECS::CapacityProvider"]
    [assoc_id] = [
        k for k, v in resources.items() if v["Type"] == "AWS::ECS::ClusterCapacityProviderAssociations"
    ]
    assert release["Properties"]["AutoScalingGroupName"] == {"Ref": asg_id}
    # Deleted before the capacity provider, its association and the group ...
    assert {cp_id, assoc_id} <= set(release["DependsOn"])
    # ... and after the service, whose tasks must be gone first.
    [service] = [v for v in resources.values() if v["Type"] == "AWS::ECS::Service"]
    assert release_id in service["DependsOn"]
    handler = [v for k, v in resources.items() if v["Type"] == "AWS::IAM::Policy" and "ReleaseFunction" in k]
    actions = _text([p["Properties"]["PolicyDocument"] for p in handler])
    for action in ("UpdateAutoScalingGroup", "SetInstanceProtection", "DescribeAutoScalingGroups"):
        assert f"autoscaling:{action}" in actions
    assert default_synth.only(ECS, "AWS::AutoScaling::AutoScalingGroup")["NewInstancesProtectedFromScaleIn"]


# -- GPU host boot ------------------------------------------------------------------------------------
def _user_data(result) -> str:
    data = result.only(ECS, "AWS::EC2::LaunchTemplate")["LaunchTemplateData"]["UserData"]
    parts = data["Fn::Base64"]["Fn::Join"][1]
    return "".join(p if isinstance(p, str) else _text(p) for p in parts)


def test_a_host_whose_setup_fails_terminates_itself(default_synth):
    """A failed Lustre install/mount left a billed, scale-in-protected host that never joined."""
    script = _user_data(default_synth)
    lines = script.splitlines()
    trap = next(i for i, line in enumerate(lines) if line.startswith("trap ") and " ERR" in line)
    assert "shutdown -h now" in lines[trap]
    assert trap < next(i for i, line in enumerate(lines) if "lustre-client" in line)
    lt = default_synth.only(ECS, "AWS::EC2::LaunchTemplate")["LaunchTemplateData"]
    assert lt["InstanceInitiatedShutdownBehavior"] == "terminate"


def test_ami_is_pinned_and_the_lustre_client_follows_it(default_synth):
    """The AMI was re-resolved on every deploy while the Lustre client must match its kernel."""
    template = default_synth[default_synth.stack_name(ECS)]
    defaults = [p.get("Default") for p in template.get("Parameters", {}).values()]
    assert ecs_gpu_ami_parameter("2023.0.20261113") in defaults
    assert not any("recommended" in str(d) for d in defaults)
    script = _user_data(default_synth)
    # AL2023's repositories only (the S3 gateway); one the AMI adds elsewhere is skipped, not fatal at boot
    assert (
        "dnf install -y '--setopt=*.skip_if_unavailable=True' "
        '--releasever="$(rpm -q --qf %{VERSION} system-release)" lustre-client' in script
    )


def test_fsx_weights_are_preloaded_after_the_mount(default_synth):
    """The association imports the listing only; contents are restored from S3 explicitly."""
    script = _user_data(default_synth)
    mount = script.index("mountpoint -q /mnt/fsx")
    preload = script.index("lfs hsm_restore")
    assert mount < preload
    assert "find /mnt/fsx/weights/bundled -type f" in script


# -- day 2 ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("before", "after", "still_up"),
    [
        ("both", "default", SM),
        ("both", "sagemaker", ECS),
        ("default", "both", ECS),
        ("sagemaker", "both", SM),
    ],
)
def test_switching_routes_removes_no_export_the_other_stack_imports(every_synth, before, after, still_up):
    """`cdk deploy` never deletes a stack: after a switch the old service stack is still up, and the
    Foundation update must not delete an export it imports (CloudFormation refuses)."""
    old, new = every_synth[before], every_synth[after]
    imported = _imports(old[old.stack_name(still_up)])
    assert imported
    exported = _exports(new[new.stack_name(FOUNDATION)])
    assert imported <= exported, f"exports removed under a live stack: {sorted(imported - exported)}"


def test_foundation_is_the_same_whatever_the_route(every_synth):
    """No resource of the foundation appears or disappears with `deployment`."""
    ids = {
        name: set(r[r.stack_name(FOUNDATION)]["Resources"])
        for name, r in every_synth.items()
        if name in ("default", "both", "sagemaker")
    }
    assert ids["default"] == ids["both"] == ids["sagemaker"]


def _differences(a, b, path="") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _differences(a.get(k), b.get(k), f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [path]


@pytest.mark.parametrize(
    ("stack", "routes"), [(FOUNDATION, ("default", "both", "sagemaker")), (ECS, ("ecs_as_both", "both")),
                          (SM, ("sagemaker", "both"))],
)  # fmt: skip
def test_a_route_switch_leaves_the_stacks_that_stay_up_unchanged(every_synth, synth, stack, routes):
    """docs/switching.md: adding or removing a route changes nothing in the stacks that stay up (no update, no
    task restart). A tag that named the `deployment` setting once updated every resource of them, and the
    ALB's grant in the foundation's log bucket came and went with the ECS route."""
    synths = {**every_synth, "ecs_as_both": synth(**{**BOTH, "deployment": "ecs"})}  # BOTH's other settings
    first, *others = (synths[r][synths[r].stack_name(stack)] for r in routes)
    for other in others:
        assert _differences(first, other) == []


NAME_PROPERTIES = (
    "LogGroupName",
    "BucketName",
    "RepositoryName",
    "TableName",
    "TopicName",
    "QueueName",
    "FunctionName",
    "AliasName",
    "FileSystemName",
    "SecretName",
    "Name",
)


def test_no_retained_resource_has_a_fixed_name(every_synth):
    """A retained resource with a fixed name (the SageMaker log group) makes the deploy after
    `cdk destroy` fail with "already exists"."""
    for variant, result in every_synth.items():
        for stack, template in result.items():
            for logical_id, resource in template["Resources"].items():
                retained = "Retain" in (resource.get("DeletionPolicy"), resource.get("UpdateReplacePolicy"))
                if not retained:
                    continue
                props = resource.get("Properties", {})
                fixed = [k for k in NAME_PROPERTIES if isinstance(props.get(k), str)]
                assert not fixed, f"{variant}/{stack}/{logical_id} is retained with fixed {fixed}"


def test_sagemaker_updates_keep_capacity_and_roll_back(both_synth):
    """Every update fell back to min_replicas and had no rollback."""
    endpoint = both_synth.only(SM, "AWS::SageMaker::Endpoint")
    assert endpoint["RetainAllVariantProperties"] is True
    policy = endpoint["DeploymentConfig"]["BlueGreenUpdatePolicy"]
    assert policy["TrafficRoutingConfiguration"]["Type"] == "ALL_AT_ONCE"
    assert policy["TerminationWaitInSeconds"] >= 300  # the old fleet outlives the longest stream
    alarms = both_synth.resources(SM, "AWS::CloudWatch::Alarm")
    rollback = endpoint["DeploymentConfig"]["AutoRollbackConfiguration"]["Alarms"]
    watched = {_alarm_metric(alarms[a["AlarmName"]["Ref"]]) for a in rollback}
    assert watched == {"Invocation5XXErrors", "ModelLatency"}


def _alarm_metric(alarm: dict) -> str:
    """The AWS/SageMaker metric an alarm watches (inline, labelled, or the first term of its metric math)."""
    props = alarm["Properties"]
    if "MetricName" in props:
        return props["MetricName"]
    stats = [q["MetricStat"]["Metric"] for q in props["Metrics"] if "MetricStat" in q]
    return next(m["MetricName"] for m in stats if m["Namespace"] == "AWS/SageMaker")


# -- security boundary -------------------------------------------------------------------------------
def test_alb_answers_sagemaker_paths_itself(default_synth, full_synth):
    """/invocations is keyless (SageMaker authenticates it): through the ALB it bypassed the API keys."""
    for result in (default_synth, full_synth):
        rules = result.resources(ECS, "AWS::ElasticLoadBalancingV2::ListenerRule").values()
        [rule] = [r["Properties"] for r in rules if "fixed-response" in _text(r["Properties"]["Actions"])]
        assert rule["Priority"] == 1
        assert rule["Actions"][0]["FixedResponseConfig"]["StatusCode"] == "404"
        [condition] = rule["Conditions"]
        assert set(condition["PathPatternConfig"]["Values"]) == set(SAGEMAKER_ONLY_PATHS)
        assert {contract.INVOCATIONS_PATH, contract.PING_PATH} <= set(SAGEMAKER_ONLY_PATHS)


def _task_env(result) -> dict[str, str]:
    (container,) = result.only(ECS, "AWS::ECS::TaskDefinition")["ContainerDefinitions"]
    return {e["Name"]: e["Value"] for e in container.get("Environment", [])}


def test_tasks_turn_off_sagemaker_routes_and_public_query_keys(default_synth, full_synth):
    internal, public = _task_env(default_synth), _task_env(full_synth)
    assert internal[contract.ENV_SAGEMAKER_ROUTES] == public[contract.ENV_SAGEMAKER_ROUTES] == "false"
    assert internal[contract.ENV_QUERY_API_KEYS] == "true"
    assert public[contract.ENV_QUERY_API_KEYS] == "false"  # internet-facing: ?api_key= lands in logs


AWS_OWNED_READS = ("EcrImageLayers", "AmazonLinuxRepos")


def _endpoint_policies(result, part: str) -> dict[str, dict]:
    return {
        ep["Properties"]["ServiceName"] if isinstance(ep["Properties"]["ServiceName"], str) else "s3": ep[
            "Properties"
        ].get("PolicyDocument")
        for ep in result.resources(part, "AWS::EC2::VPCEndpoint").values()
    }


def test_every_vpc_endpoint_enforces_the_data_perimeter(every_synth):
    """Default full-access endpoint policies let a compromised task write to any account's bucket."""
    for variant, result in every_synth.items():
        for part in (FOUNDATION, SM):
            if result.stack_name(part) not in result:
                continue
            for service, document in _endpoint_policies(result, part).items():
                if service.rsplit(".", 1)[-1] in FULL_ACCESS_ONLY_SERVICES:
                    # EC2 refuses any other policy on these and the stack would fail (endpoint_policies.py)
                    assert document is None, f"{variant}/{part}/{service} has a policy EC2 would refuse"
                    continue
                assert document, f"{variant}/{part}/{service} keeps the default full-access policy"
                for statement in document["Statement"]:
                    assert statement["Effect"] == "Allow"
                    if statement.get("Sid") in AWS_OWNED_READS:
                        continue  # presigned by AWS or anonymous: checked below, read-only, one bucket
                    equals = statement["Condition"]["StringEquals"]
                    assert equals["aws:PrincipalAccount"] == {"Ref": "AWS::AccountId"}, service


def _arn(value) -> str:
    """An ARN as the template spells it, with the partition filled in (`aws`)."""
    if isinstance(value, str):
        return value
    delimiter, parts = value["Fn::Join"]
    return delimiter.join("aws" if p == {"Ref": "AWS::Partition"} else p for p in parts)


def test_s3_gateway_reaches_this_account_and_the_documented_aws_buckets_only(default_synth):
    document = _endpoint_policies(default_synth, FOUNDATION)["s3"]
    by_sid = {s["Sid"]: s for s in document["Statement"]}
    assert set(by_sid) == {"OwnAccountBuckets", "EcrImageLayers", "AmazonLinuxRepos"}
    own = by_sid["OwnAccountBuckets"]["Condition"]["StringEquals"]
    assert own["aws:ResourceAccount"] == {"Ref": "AWS::AccountId"}
    assert _arn(by_sid["EcrImageLayers"]["Resource"]) == "arn:aws:s3:::prod-us-east-1-starport-layer-bucket/*"
    assert _arn(by_sid["AmazonLinuxRepos"]["Resource"]) == "arn:aws:s3:::al2023-repos-us-east-1-*/*"
    for sid in AWS_OWNED_READS:  # ECR's layer URLs are presigned by ECR; dnf reads anonymously
        assert by_sid[sid]["Action"] == "s3:GetObject" and "Condition" not in by_sid[sid]


def test_sagemaker_runtime_endpoint_reaches_this_accounts_endpoints_only(both_synth):
    policies = _endpoint_policies(both_synth, SM)
    [runtime] = [d for s, d in policies.items() if s.endswith(".sagemaker.runtime")]
    equals = runtime["Statement"][0]["Condition"]["StringEquals"]
    assert equals["aws:ResourceAccount"] == {"Ref": "AWS::AccountId"}


def test_instance_type_change_hands_autoscaling_over_around_the_endpoint(both_synth):
    """SageMaker refuses a new instance type on a variant registered with Application Auto Scaling, and
    CloudFormation updates the endpoint before the scalable target: the change always failed."""
    resources = both_synth[both_synth.stack_name(SM)]["Resources"]
    handovers = {
        v["Properties"]["Phase"]: (k, v)
        for k, v in resources.items()
        if v["Type"] == "Custom::StatespeakScalingHandover"
    }
    assert set(handovers) == {"before", "after"}
    [(endpoint_id, endpoint)] = [
        (k, v) for k, v in resources.items() if v["Type"] == "AWS::SageMaker::Endpoint"
    ]
    [target_id] = [
        k for k, v in resources.items() if v["Type"] == "AWS::ApplicationAutoScaling::ScalableTarget"
    ]
    [policy_id] = [
        k for k, v in resources.items() if v["Type"] == "AWS::ApplicationAutoScaling::ScalingPolicy"
    ]
    before_id, before = handovers["before"]
    after_id, after = handovers["after"]
    assert before_id in endpoint["DependsOn"]  # deregistered before the endpoint update
    assert {endpoint_id, target_id, policy_id} <= set(after["DependsOn"])  # registered again after it
    for _, resource in handovers.values():
        props = resource["Properties"]
        assert props["InstanceType"] == "ml.g6e.xlarge"  # a change of type updates both
        assert props["EndpointName"] == "statespeak-tts" and props["VariantName"] == "AllTraffic"
    policy = resources[policy_id]["Properties"]
    assert after["Properties"]["PolicyName"] == policy["PolicyName"]
    tracking = policy["TargetTrackingScalingPolicyConfiguration"]
    assert after["Properties"]["TargetValue"] == tracking["TargetValue"]
    assert (
        after["Properties"]["MetricType"] == tracking["PredefinedMetricSpecification"]["PredefinedMetricType"]
    )
