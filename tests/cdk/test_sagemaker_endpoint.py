"""The SageMaker stack: template assertions on the shared synth variants plus one Marketplace variant.

`full_synth` (deployment=both, ECR image, weights v2, 3..12 replicas, 5 target / 10 max streams, alarm
e-mail) covers the kit's own model; MARKETPLACE covers a model package ARN with the default bounds.
The cfn-lint and cdk-nag gates of the shared variants live in the gate tests; the Marketplace variant
is not among them, so this module runs both gates on it.
"""

from __future__ import annotations

import json

import pytest
from aws_cdk.assertions import Match

from model_server.contract import (
    DIM_KIT,
    DIM_SERVICE,
    METRIC_REJECTED_STREAMS,
    METRIC_TIME_TO_FIRST_AUDIO,
    METRICS_NAMESPACE,
    SAGEMAKER_MODEL_DIR,
)
from statespeak_constructs.sagemaker_endpoint import (
    ENDPOINT_KMS_RULE,
    has_instance_storage,
    instance_family,
)
from statespeak_constructs.sagemaker_scaling import CONCURRENCY_METRIC_TYPE

MODEL_PACKAGE_ARN = "arn:aws:sagemaker:us-east-1:865070037744:model-package/statespeak-sonic-test-1"
MARKETPLACE_VOICE = "sonic-english-narrator"
MARKETPLACE = {
    "deployment": "sagemaker",
    "model_package_arn": MODEL_PACKAGE_ARN,
    "marketplace_canary_voice": MARKETPLACE_VOICE,
}
ENDPOINT = "statespeak-tts"
SM = "SageMaker"


@pytest.fixture(scope="module")
def marketplace_synth(synth):
    return synth(**MARKETPLACE)


def role_policies(result, part: str = SM) -> list[dict]:
    """Every statement of every policy attached to the endpoint's execution role."""
    roles = result.resources(part, "AWS::IAM::Role")
    [role_id] = [
        k for k, v in roles.items()
        if v["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]
        == {"Service": "sagemaker.amazonaws.com"}
    ]  # fmt: skip
    statements = []
    for policy in result.resources(part, "AWS::IAM::Policy").values():
        if {"Ref": role_id} in policy["Properties"]["Roles"]:
            statements += policy["Properties"]["PolicyDocument"]["Statement"]
    assert "ManagedPolicyArns" not in roles[role_id]["Properties"]
    return statements


def as_list(value) -> list:
    return value if isinstance(value, list) else [value]


# -- the kit's own model (deployment=both) ----------------------------------------------------------


def test_both_routes_synthesize_side_by_side(full_synth):
    assert {full_synth.stack_name(p) for p in ("Foundation", "Ecs", SM)} <= set(full_synth)
    assert full_synth.error is None or SM not in full_synth.error


def test_model_runs_network_isolated_in_the_isolated_subnets(full_synth):
    model = full_synth.only(SM, "AWS::SageMaker::Model")
    assert model["EnableNetworkIsolation"] is True
    vpc = model["VpcConfig"]
    foundation = full_synth[full_synth.stack_name("Foundation")]["Resources"]
    isolated = {
        k for k, v in foundation.items()
        if v["Type"] == "AWS::EC2::Subnet" and {"Key": "aws-cdk:subnet-type", "Value": "Isolated"}
        in v["Properties"].get("Tags", [])
    }  # fmt: skip
    # Every isolated (data) subnet, one per AZ, and nothing else (the public entry subnets exist here).
    exports = [subnet["Fn::ImportValue"] for subnet in vpc["Subnets"]]
    assert len(exports) == len(isolated) >= 2
    assert all(any(logical in export for logical in isolated) for export in exports), exports
    [sg_ref] = vpc["SecurityGroupIds"]
    sg_id = sg_ref["Fn::GetAtt"][0]
    sg = full_synth.resources(SM, "AWS::EC2::SecurityGroup")[sg_id]["Properties"]
    assert "SecurityGroupIngress" not in sg
    assert [(e["IpProtocol"], e["FromPort"], e["ToPort"]) for e in sg["SecurityGroupEgress"]] == [
        ("tcp", 443, 443)
    ]


def test_model_serves_the_kit_image_and_uncompressed_weights_prefix(full_synth):
    container = full_synth.only(SM, "AWS::SageMaker::Model")["PrimaryContainer"]
    assert "ModelPackageName" not in container
    assert (
        "ImportValue" in json.dumps(container["Image"])
        and container["Image"]["Fn::Join"][1][-1] == ":2026.11.1"
    )
    source = container["ModelDataSource"]["S3DataSource"]
    assert source["S3DataType"] == "S3Prefix" and source["CompressionType"] == "None"
    assert source["S3Uri"]["Fn::Join"][1][-1] == "/weights/v2/"
    assert "ModelDataUrl" not in container
    env = container["Environment"]
    assert env["MODEL_DIR"] == SAGEMAKER_MODEL_DIR
    assert env["MAX_STREAMS"] == "10"
    assert env["STATESPEAK_ENGINES"] == "2"  # the full variant's engines_per_task
    assert env["STATESPEAK_DEPLOYMENT"] == "sagemaker"
    assert 0 < int(env["DRAIN_TIMEOUT_S"]) < 30  # SageMaker kills 30 s after SIGTERM


def test_execution_role_is_least_privilege(full_synth):
    statements = role_policies(full_synth)
    actions = {a for s in statements for a in as_list(s["Action"])}
    assert not [a for a in actions if "*" in a]
    assert actions == {
        "ecr:BatchCheckLayerAvailability", "ecr:GetDownloadUrlForLayer", "ecr:BatchGetImage",
        "ecr:GetAuthorizationToken", "s3:GetObject", "s3:ListBucket", "logs:CreateLogGroup",
        "logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams", "cloudwatch:PutMetricData",
        "ec2:DescribeNetworkInterfaces", "ec2:DescribeVpcs", "ec2:DescribeDhcpOptions", "ec2:DescribeSubnets",
        "ec2:DescribeSecurityGroups", "ec2:CreateNetworkInterface", "ec2:CreateNetworkInterfacePermission",
        "ec2:DeleteNetworkInterface", "ec2:DeleteNetworkInterfacePermission", "cloudwatch:DescribeAlarms",
    }  # fmt: skip
    assert all(s["Effect"] == "Allow" for s in statements)
    # SageMaker reads the auto-rollback alarms with this role (its guardrails doc): those two, no others
    [describe] = [s for s in statements if s["Action"] == "cloudwatch:DescribeAlarms"]
    rollback = full_synth.only(SM, "AWS::SageMaker::Endpoint")["DeploymentConfig"][
        "AutoRollbackConfiguration"
    ]
    named = {a["AlarmName"]["Ref"] for a in rollback["Alarms"]}
    assert {r["Fn::GetAtt"][0] for r in as_list(describe["Resource"])} == named
    # A bare "*" resource only where the action has no resource-level permissions.
    for s in statements:
        if "*" in as_list(s["Resource"]):
            assert set(as_list(s["Action"])) <= {
                "ecr:GetAuthorizationToken", "cloudwatch:PutMetricData", "ec2:DescribeNetworkInterfaces",
                "ec2:DescribeVpcs", "ec2:DescribeDhcpOptions", "ec2:DescribeSubnets", "ec2:DescribeSecurityGroups",
            }, s  # fmt: skip
    [metrics] = [s for s in statements if s["Action"] == "cloudwatch:PutMetricData"]
    assert metrics["Condition"] == {"StringEquals": {"cloudwatch:namespace": METRICS_NAMESPACE}}
    [read] = [s for s in statements if s["Action"] == "s3:GetObject"]
    assert read["Resource"]["Fn::Join"][1][-1] == "/weights/v2/*"
    [listing] = [s for s in statements if s["Action"] == "s3:ListBucket"]
    assert listing["Condition"] == {"StringLike": {"s3:prefix": ["weights/v2/*"]}}
    [pull] = [s for s in statements if "ecr:BatchGetImage" in as_list(s["Action"])]
    assert "ImportValue" in json.dumps(pull["Resource"])  # the kit's one repository, not "*"
    [delete] = [s for s in statements if "ec2:DeleteNetworkInterface" in as_list(s["Action"])]
    assert "ec2:Vpc" in delete["Condition"]["ArnEquals"]


def test_model_waits_for_the_role_policies(full_synth):
    models = full_synth.resources(SM, "AWS::SageMaker::Model")
    [model] = models.values()
    # The execution role's policies (the latency canary's role has its own, unrelated to the model).
    role = model["Properties"]["ExecutionRoleArn"]["Fn::GetAtt"][0]
    policies = {
        k
        for k, p in full_synth.resources(SM, "AWS::IAM::Policy").items()
        if {"Ref": role} in p["Properties"]["Roles"]
    }
    assert policies and policies <= set(model["DependsOn"])


def test_endpoint_config_instance_timeouts_and_routing(full_synth):
    config = full_synth.only(SM, "AWS::SageMaker::EndpointConfig")
    [variant] = config["ProductionVariants"]
    assert variant["InstanceType"] == "ml.g6e.xlarge"
    assert variant["InitialInstanceCount"] == 3
    assert variant["VariantName"] == "AllTraffic"
    # Startup covers the CUDA image pull, weights load and warm-up: well above SageMaker's default.
    assert 900 <= variant["ContainerStartupHealthCheckTimeoutInSeconds"] <= 3600
    assert 300 <= variant["ModelDataDownloadTimeoutInSeconds"] <= 3600
    assert variant["RoutingConfig"] == {"RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"}
    # driver 580 for the image's CUDA 13 torch: SageMaker's default AMIs carry 470, 535 or 550, on which the
    # server finds no usable CUDA and never turns ready
    assert variant["InferenceAmiVersion"] == "al2023-ami-sagemaker-inference-gpu-4-1"
    # ml.g6e keeps its storage on NVMe instance store: no KmsKeyId, and an acknowledged, reasoned exception.
    assert "KmsKeyId" not in config
    prefix = full_synth.stack_name(SM) + "/"
    acks = [
        a
        for a in full_synth.acknowledgements
        if a.rule_id.endswith(ENDPOINT_KMS_RULE) and a.path.startswith(prefix)
    ]
    assert {a.rule_id.split("-Sage")[0] for a in acks} == {
        "HIPAA.Security",
        "NIST.800.53.R4",
        "NIST.800.53.R5",
        "PCI.DSS.321",
    }
    assert all("instance-store" in a.reason and "ml.g6e.xlarge" in a.reason for a in acks)


def test_endpoint_name_and_outputs(full_synth):
    endpoint = full_synth.only(SM, "AWS::SageMaker::Endpoint")
    assert endpoint["EndpointName"] == ENDPOINT
    assert endpoint["EndpointConfigName"]["Fn::GetAtt"][1] == "EndpointConfigName"
    outputs = full_synth[full_synth.stack_name(SM)]["Outputs"]
    assert {o["Value"] for o in outputs.values() if isinstance(o["Value"], str)} >= {
        ENDPOINT,
        f"sagemaker://{ENDPOINT}",
    }


def test_endpoint_log_group_is_encrypted_and_not_retained(full_synth):
    groups = full_synth.resources(SM, "AWS::Logs::LogGroup")
    [group] = [
        g
        for g in groups.values()
        if g["Properties"].get("LogGroupName") == f"/aws/sagemaker/Endpoints/{ENDPOINT}"
    ]
    assert group["Properties"]["RetentionInDays"] == 30
    assert "KmsKeyId" in group["Properties"]
    # Its name is fixed by SageMaker: retained, it would make the deploy after `cdk destroy` fail.
    assert group["DeletionPolicy"] == "Delete"


def test_autoscaling_tracks_high_resolution_concurrency(full_synth):
    target = full_synth.only(SM, "AWS::ApplicationAutoScaling::ScalableTarget")
    assert target["ResourceId"] == f"endpoint/{ENDPOINT}/variant/AllTraffic"
    assert target["ScalableDimension"] == "sagemaker:variant:DesiredInstanceCount"
    assert (target["MinCapacity"], target["MaxCapacity"]) == (3, 12)
    assert "RoleARN" not in target  # the SageMaker service-linked role
    [target_resource] = full_synth.resources(SM, "AWS::ApplicationAutoScaling::ScalableTarget").values()
    endpoint_id = next(iter(full_synth.resources(SM, "AWS::SageMaker::Endpoint")))
    assert endpoint_id in target_resource["DependsOn"]
    policy = full_synth.only(SM, "AWS::ApplicationAutoScaling::ScalingPolicy")
    assert policy["PolicyType"] == "TargetTrackingScaling"
    tracking = policy["TargetTrackingScalingPolicyConfiguration"]
    assert tracking["PredefinedMetricSpecification"] == {"PredefinedMetricType": CONCURRENCY_METRIC_TYPE}
    assert CONCURRENCY_METRIC_TYPE == "SageMakerVariantConcurrentRequestsPerModelHighResolution"
    assert tracking["TargetValue"] == 5
    assert (tracking["ScaleInCooldown"], tracking["ScaleOutCooldown"]) == (900, 60)


def test_dashboard_and_alarms_watch_the_sagemaker_route(full_synth):
    template = full_synth.template(SM)
    dashboards = full_synth.resources(SM, "AWS::CloudWatch::Dashboard")
    [dashboard] = dashboards.values()
    assert dashboard["Properties"]["DashboardName"] == "Statespeak-sagemaker"
    body = json.dumps(dashboard["Properties"]["DashboardBody"])
    for metric in (
        "ConcurrentRequestsPerModel",
        "GPUUtilization",
        "ModelLatency",
        METRIC_TIME_TO_FIRST_AUDIO,
    ):
        assert metric in body, metric
    watched = set()
    for alarm in full_synth.resources(SM, "AWS::CloudWatch::Alarm").values():
        props = alarm["Properties"]
        assert props.get("AlarmActions"), "alarms notify the alarm topic"
        for query in props.get("Metrics", []):  # labelled metrics and math render as metric queries
            if "MetricStat" not in query:
                watched.add(("expression", query["Expression"]))
                continue
            metric, stat = query["MetricStat"]["Metric"], query["MetricStat"]["Stat"]
            dims = tuple(sorted((d["Name"], d["Value"]) for d in metric["Dimensions"]))
            watched.add((metric["Namespace"], metric["MetricName"], dims, stat))
        if "MetricName" in props:  # an unlabelled metric renders inline
            dims = tuple(sorted((d["Name"], d["Value"]) for d in props.get("Dimensions", [])))
            stat = props.get("ExtendedStatistic") or props.get("Statistic")
            watched.add((props["Namespace"], props["MetricName"], dims, stat))
    assert (
        METRICS_NAMESPACE,
        METRIC_TIME_TO_FIRST_AUDIO,
        ((DIM_KIT, "Statespeak"), (DIM_SERVICE, "sagemaker")),
        "p99",
    ) in watched
    endpoint_dims = (("EndpointName", ENDPOINT), ("VariantName", "AllTraffic"))
    assert ("AWS/SageMaker", "Invocation5XXErrors", endpoint_dims, "Sum") in watched
    # less the server's admission refusals (503s SageMaker counts as 5xx: a burst fired it and rolled back
    # an update), from the kit's own metric of this route
    assert ("expression", "errors - FILL(rejected, 0)") in watched
    kit_dims = ((DIM_KIT, "Statespeak"), (DIM_SERVICE, "sagemaker"))
    assert (METRICS_NAMESPACE, METRIC_REJECTED_STREAMS, kit_dims, "Sum") in watched
    template.has_resource_properties(
        "AWS::SNS::Subscription", {"Protocol": "email", "Endpoint": "oncall@example.com"}
    )


def test_invoke_policy_is_one_endpoint_through_the_vpc_endpoint(full_synth):
    [policy] = full_synth.resources(SM, "AWS::IAM::ManagedPolicy").values()
    [statement] = policy["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Action"] == "sagemaker:InvokeEndpoint"
    assert json.dumps(statement["Resource"]).endswith(f':endpoint/{ENDPOINT}"]]}}')
    # The runtime interface endpoint of this stack (the route owns its endpoints).
    source = statement["Condition"]["StringEquals"]["aws:SourceVpce"]
    endpoint = full_synth.resources(SM, "AWS::EC2::VPCEndpoint")[source["Ref"]]
    assert endpoint["Properties"]["ServiceName"].endswith(".sagemaker.runtime")


def test_nag_findings_in_the_stack_are_all_acknowledged_with_specific_reasons(full_synth):
    prefix = full_synth.stack_name(SM) + "/"
    left = [
        v["ruleName"] for v in full_synth.nag_violations
        if any(c.get("constructPath", "").startswith(prefix) for c in v.get("violatingConstructs", []))
    ]  # fmt: skip
    assert left == []
    iam5 = [a for a in full_synth.acknowledgements if a.path.startswith(prefix) and "IAM5" in a.rule_id]
    assert iam5, "the role's scoped wildcards are acknowledged finding by finding"
    assert all(a.rule_id.startswith("AwsSolutions-IAM5[") and len(a.reason) > 40 for a in iam5)


def test_default_deployment_has_no_sagemaker_stack(default_synth):
    assert default_synth.stack_name(SM) not in default_synth


# -- the Marketplace model package ------------------------------------------------------------------


def test_marketplace_model_package_replaces_image_and_weights(marketplace_synth):
    assert marketplace_synth.stack_name("Ecs") not in marketplace_synth
    model = marketplace_synth.only(SM, "AWS::SageMaker::Model")
    assert model["PrimaryContainer"] == {"ModelPackageName": MODEL_PACKAGE_ARN}
    assert model["EnableNetworkIsolation"] is True
    assert "VpcConfig" in model
    actions = {a for s in role_policies(marketplace_synth) for a in as_list(s["Action"])}
    assert not {a for a in actions if a.startswith(("ecr:", "s3:"))}  # nothing of the kit's to read


def test_marketplace_variant_keeps_the_default_minimum_of_two(marketplace_synth):
    target = marketplace_synth.only(SM, "AWS::ApplicationAutoScaling::ScalableTarget")
    assert (target["MinCapacity"], target["MaxCapacity"]) == (2, 8)
    [variant] = marketplace_synth.only(SM, "AWS::SageMaker::EndpointConfig")["ProductionVariants"]
    assert variant["InitialInstanceCount"] == 2


def test_marketplace_variant_passes_cfn_lint_and_cdk_nag(marketplace_synth):
    from cfnlint.api import lint

    prefix = marketplace_synth.stack_name(SM) + "/"
    left = [
        v["ruleName"] for v in marketplace_synth.nag_violations
        if any(c.get("constructPath", "").startswith(prefix) for c in v.get("violatingConstructs", []))
    ]  # fmt: skip
    assert left == []
    matches = lint(json.dumps(marketplace_synth[marketplace_synth.stack_name(SM)]), regions=["us-east-1"])
    # W3005 (a DependsOn that a GetAtt already implies) is CDK's own: a Function depends on its role's
    # whole subtree so its grants exist before it first runs (the latency canary this variant now has).
    assert [str(m) for m in matches if m.rule.id != "W3005"] == []


# -- volume encryption by instance type -------------------------------------------------------------


def test_ebs_instance_types_get_the_volume_key():
    """A construct-level synth (no app, no nag): an EBS-backed type names the key and may use it."""
    import aws_cdk as cdk
    from aws_cdk import aws_ec2 as ec2
    from aws_cdk import aws_kms as kms
    from aws_cdk import aws_logs as logs
    from aws_cdk.assertions import Template

    from statespeak_constructs.sagemaker_endpoint import (
        MarketplaceModel,
        SageMakerEndpoint,
        SageMakerEndpointProps,
    )

    stack = cdk.Stack(cdk.App(), "T", env=cdk.Environment(region="us-east-1"))
    vpc = ec2.Vpc(
        stack,
        "Vpc",
        nat_gateways=0,
        subnet_configuration=[
            ec2.SubnetConfiguration(name="data", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)
        ],
    )
    key = kms.Key(stack, "Key", enable_key_rotation=True)
    endpoint = SageMakerEndpoint(stack, "Endpoint", SageMakerEndpointProps(
        vpc=vpc, subnets=ec2.SubnetSelection(subnet_group_name="data"), model=MarketplaceModel(MODEL_PACKAGE_ARN),
        endpoint_name=ENDPOINT, log_group=logs.LogGroup(stack, "Logs"), instance_type="ml.p3.2xlarge",
        volume_key=key,
    ))  # fmt: skip
    assert endpoint.volume_encrypted
    template = Template.from_stack(stack)
    template.has_resource_properties("AWS::SageMaker::EndpointConfig", {"KmsKeyId": Match.any_value()})
    # a Marketplace package brings its own image: no AMI is chosen for it (SageMaker's default)
    template.has_resource_properties("AWS::SageMaker::EndpointConfig", {"ProductionVariants": [
        Match.object_like({"InferenceAmiVersion": Match.absent()})]})  # fmt: skip
    template.has_resource_properties("AWS::IAM::Policy", {"PolicyDocument": {"Statement": Match.array_with([
        Match.object_like({"Action": ["kms:CreateGrant", "kms:DescribeKey"]})])}})  # fmt: skip


@pytest.mark.parametrize(
    "instance_type, instance_store",
    [
        ("ml.g6e.xlarge", True), ("ml.g5.2xlarge", True), ("ml.g6.12xlarge", True), ("ml.p4d.24xlarge", True),
        ("ml.p5.48xlarge", True), ("ml.p3.2xlarge", False), ("ml.inf2.xlarge", False), ("ml.m5.xlarge", False),
    ],
)  # fmt: skip
def test_instance_store_types_are_told_apart(instance_type, instance_store):
    assert has_instance_storage(instance_type) is instance_store


def test_the_inference_ami_is_checked_and_may_be_left_to_sagemaker():
    from stacks.config import StatespeakConfig

    with pytest.raises(ValueError, match="sagemaker_inference_ami_version"):
        StatespeakConfig.from_context(
            {"sagemaker_inference_ami_version": "al2-ami-sagemaker-inference-neuron-2"}
        )
    assert (
        StatespeakConfig.from_context({"sagemaker_inference_ami_version": ""}).sagemaker_inference_ami_version
        == ""
    )


def test_bad_instance_type_is_refused():
    with pytest.raises(ValueError, match="not a SageMaker instance type"):
        instance_family("g6e.xlarge")


def test_marketplace_route_is_watched_on_sagemakers_own_metrics(marketplace_synth):
    """A package emits none of the kit's server metrics: alarms on them would never fire."""
    watched = set()
    for alarm in marketplace_synth.resources(SM, "AWS::CloudWatch::Alarm").values():
        props = alarm["Properties"]
        for query in props.get("Metrics", []):
            metric = query["MetricStat"]["Metric"]
            watched.add((metric["Namespace"], metric["MetricName"]))
        if "MetricName" in props:
            watched.add((props["Namespace"], props["MetricName"]))
    for name in ("ModelLatency", "Invocation5XXErrors", "InvocationsPerInstance"):
        assert ("AWS/SageMaker", name) in watched
    assert (METRICS_NAMESPACE, METRIC_TIME_TO_FIRST_AUDIO) not in watched
    assert (METRICS_NAMESPACE, "RejectedStreams") not in watched


def test_marketplace_canary_speaks_with_the_configured_voice(marketplace_synth):
    functions = marketplace_synth.resources(SM, "AWS::Lambda::Function").values()
    [canary] = [f for f in functions if "CANARY_SERVICE" in json.dumps(f["Properties"].get("Environment"))]
    env = canary["Properties"]["Environment"]["Variables"]
    assert env["CANARY_VOICE"] == MARKETPLACE_VOICE
    assert env["CANARY_ENDPOINT_NAME"] == ENDPOINT


def test_instance_type_change_deploys_without_a_scalable_target(synth):
    """The manual instance-type change (docs/sagemaker.md): with autoscaling off nothing is registered,
    no handover runs, and the endpoint keeps the count autoscaling had reached."""
    result = synth(
        deployment="sagemaker", sagemaker_autoscaling=False, sagemaker_instance_type="ml.g6e.2xlarge"
    )
    assert result.error is None, result.error
    assert not result.resources(SM, "AWS::ApplicationAutoScaling::ScalableTarget")
    assert not result.resources(SM, "AWS::ApplicationAutoScaling::ScalingPolicy")
    assert not result.resources(SM, "Custom::StatespeakScalingHandover")
    endpoint = result.only(SM, "AWS::SageMaker::Endpoint")
    assert endpoint["RetainAllVariantProperties"] is True
    [variant] = result.only(SM, "AWS::SageMaker::EndpointConfig")["ProductionVariants"]
    assert variant["InstanceType"] == "ml.g6e.2xlarge"
