"""LatencyCanary construct: template assertions for both routes, and cdk-nag's AwsSolutions report.

Synthesized once for the module, in a small stack of its own (an isolated VPC like the kit's), so the
construct is checked without the full app.
"""

from __future__ import annotations

import json

import aws_cdk as cdk
import pytest
from aws_cdk import Acknowledgment, Validations
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_sns as sns
from aws_cdk.assertions import Match, Template

from model_server import contract
from statespeak_constructs.canary import RUNTIME, CanaryProps, LatencyCanary, model_voice
from statespeak_constructs.logs import LogsKey
from statespeak_constructs.nag_rules import add_rule_packs

ENDPOINT = "Statespeak-Endpoint"
KIT = "Statespeak-Test"


@pytest.fixture(scope="module")
def synth():
    app = cdk.App()
    # The kit's whole compliance gate: AwsSolutions, NIST 800-53 R5, HIPAA and the kit's own rules.
    add_rule_packs(app)
    stack = cdk.Stack(app, "CanaryTest", env=cdk.Environment(region="us-east-1"))
    vpc = ec2.Vpc(
        stack,
        "Vpc",
        nat_gateways=0,
        max_azs=2,
        subnet_configuration=[
            ec2.SubnetConfiguration(name="data", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)
        ],
    )
    for pack in ("AwsSolutions", "NIST.800.53.R5", "HIPAA.Security"):
        rule = "VPC7" if pack == "AwsSolutions" else "VPCFlowLogsEnabled"
        Validations.of(vpc).acknowledge(
            Acknowledgment(
                id=f"{pack}::{pack}-{rule}",
                reason="Test scaffolding VPC of this module only; the kit's own VPC has flow logs.",
            )
        )
    key = LogsKey(stack, "LogsKey")
    topic = sns.Topic(stack, "Alarms", enforce_ssl=True, master_key=key.key)
    # Stand-ins for the kit's ALB group and interface-endpoint group (no rules needed here).
    alb_sg = ec2.SecurityGroup(stack, "AlbSg", vpc=vpc, allow_all_outbound=False, description="ALB")
    endpoints_sg = ec2.SecurityGroup(
        stack, "EndpointSg", vpc=vpc, allow_all_outbound=False, description="VPCE"
    )
    secret = secretsmanager.Secret(stack, "ApiKey")
    for pack, rule in (
        ("AwsSolutions", "SMG4"),
        ("NIST.800.53.R5", "SecretsManagerRotationEnabled"),
        ("HIPAA.Security", "SecretsManagerRotationEnabled"),
        ("NIST.800.53.R5", "SecretsManagerUsingKMSKey"),
        ("HIPAA.Security", "SecretsManagerUsingKMSKey"),
    ):
        Validations.of(secret).acknowledge(
            Acknowledgment(
                id=f"{pack}::{pack}-{rule}", reason="Test stand-in for the kit's API key secret only."
            )
        )
    ecs = LatencyCanary(
        stack,
        "EcsCanary",
        CanaryProps(
            vpc=vpc,
            service=contract.DEPLOYMENT_ECS,
            voice="slt",
            logs_key=key,
            log_retention_days=30,
            kit_name=KIT,
            route_security_group=alb_sg,
            target_url="http://internal-statespeak.us-east-1.elb.amazonaws.com",
            ttfa_alarm_ms=450,
            alarm_topic=topic,
        ),
    )
    tls = LatencyCanary(
        stack,
        "TlsCanary",
        CanaryProps(
            vpc=vpc,
            service=contract.DEPLOYMENT_ECS,
            logs_key=key,
            log_retention_days=30,
            kit_name=KIT,
            route_security_group=alb_sg,
            target_url="https://internal-statespeak-123.us-east-1.elb.amazonaws.com",
            tls_check_hostname=False,
            api_key_secret=secret,
            endpoints_security_group=endpoints_sg,
        ),
    )
    sm = LatencyCanary(
        stack,
        "SmCanary",
        CanaryProps(
            vpc=vpc,
            service=contract.DEPLOYMENT_SAGEMAKER,
            voice="slt",
            logs_key=key,
            log_retention_days=30,
            kit_name=KIT,
            route_security_group=endpoints_sg,
            endpoint_name=ENDPOINT,
        ),
    )
    # Synthesizing runs the nag plugin: an unacknowledged finding fails here.
    app.synth()
    stack.sgs = {"alb": alb_sg, "endpoints": endpoints_sg}  # for the egress assertions
    stack.secret = secret
    return stack, Template.from_stack(stack), ecs, sm, tls


def _function(synth, canary):
    """The CfnFunction properties of one canary."""
    stack, template, *_ = synth
    return template.to_json()["Resources"][stack.get_logical_id(canary.function.node.default_child)]


def test_function_runs_in_the_isolated_subnets_with_its_own_security_group(synth):
    stack, template, ecs, *_ = synth
    props = _function(synth, ecs)["Properties"]
    assert props["Runtime"] == RUNTIME.name
    # No reservation: a new account has 10 concurrent executions in all, and Lambda refuses any
    # reservation that leaves fewer than 10 unreserved. Runs cannot overlap: timeout < schedule period.
    assert "ReservedConcurrentExecutions" not in props
    assert props["Timeout"] < 60
    assert props["Handler"] == "handler.handler"
    vpc_config = props["VpcConfig"]
    assert len(vpc_config["SubnetIds"]) == 2
    for subnet in vpc_config["SubnetIds"]:
        assert "dataSubnet" in subnet["Ref"]  # the isolated subnets
    assert vpc_config["SecurityGroupIds"] == [
        {"Fn::GetAtt": [stack.get_logical_id(ecs.security_group.node.default_child), "GroupId"]}
    ]
    template.has_resource_properties(
        "AWS::Lambda::EventInvokeConfig",
        {"MaximumRetryAttempts": 0, "FunctionName": {"Ref": Match.any_value()}},
    )


def test_security_groups_allow_no_ingress_and_egress_only_to_the_route(synth):
    stack, template, ecs, sm, tls = synth
    resources = template.to_json()["Resources"]

    def group_id(sg):
        return {"Fn::GetAtt": [stack.get_logical_id(sg.node.default_child), "GroupId"]}

    alb, endpoints = group_id(stack.sgs["alb"]), group_id(stack.sgs["endpoints"])
    expected = {
        ecs: {(80, json.dumps(alb))},
        sm: {(443, json.dumps(endpoints))},
        # HTTPS to the ALB, and to the Secrets Manager endpoint for the API key.
        tls: {(443, json.dumps(alb)), (443, json.dumps(endpoints))},
    }
    for canary, rules in expected.items():
        canary_sg = stack.get_logical_id(canary.security_group.node.default_child)
        props = resources[canary_sg]["Properties"]
        assert "SecurityGroupIngress" not in props
        # No CIDR at all (so never 0.0.0.0/0): every egress rule names the peer group, inline or as a
        # separate resource (CDK uses the latter when the peer lives in another stack).
        egress = [
            r for r in props.get("SecurityGroupEgress", []) if r.get("Description") != "Disallow all traffic"
        ]
        egress += [
            r["Properties"]
            for r in resources.values()
            if r["Type"] == "AWS::EC2::SecurityGroupEgress"
            and r["Properties"]["GroupId"] == group_id(canary.security_group)
        ]
        assert not any("CidrIp" in e for e in egress)
        assert {(e["FromPort"], json.dumps(e["DestinationSecurityGroupId"])) for e in egress} == rules
        assert all(e["IpProtocol"] == "tcp" and e["ToPort"] == e["FromPort"] for e in egress)


def test_environment_carries_the_contract_names_and_the_route(synth):
    _, _, ecs, sm, tls = synth
    shared = {
        "METRICS_NAMESPACE": contract.METRICS_NAMESPACE,
        "METRIC_DIMENSION_SERVICE": contract.DIM_SERVICE,
        "METRIC_DIMENSION_KIT": contract.DIM_KIT,
        "CANARY_KIT": KIT,
        "METRIC_CANARY_TTFA": contract.METRIC_CANARY_TTFB,
        "METRIC_CANARY_STALLS": contract.METRIC_CANARY_STALLS,
        "METRIC_CANARY_SUCCESS": contract.METRIC_CANARY_SUCCESS,
    }
    ecs_env, sm_env, tls_env = (
        _function(synth, c)["Properties"]["Environment"]["Variables"] for c in (ecs, sm, tls)
    )
    for env in (ecs_env, sm_env, tls_env):
        assert shared.items() <= env.items()
        assert "CANARY_TARGET_URL" in env or "CANARY_ENDPOINT_NAME" in env
    assert (
        ecs_env["CANARY_TARGET_URL"].startswith("http://internal-") and "CANARY_ENDPOINT_NAME" not in ecs_env
    )
    assert sm_env["CANARY_ENDPOINT_NAME"] == ENDPOINT and "CANARY_TARGET_URL" not in sm_env
    assert ecs_env["CANARY_VOICE"] == sm_env["CANARY_VOICE"] == "slt"
    # No voice given on the ALB route: the function asks GET /voices. The TLS ALB is called by its AWS
    # name, which its certificate does not carry: chain checked, host name not.
    assert "CANARY_VOICE" not in tls_env and tls_env["CANARY_TLS_CHECK_HOSTNAME"] == "false"
    assert "CANARY_TLS_CHECK_HOSTNAME" not in ecs_env
    assert "CANARY_API_KEY_SECRET_ARN" in tls_env and "CANARY_API_KEY_SECRET_ARN" not in ecs_env


def test_schedule_is_every_minute_for_each_canary(synth):
    _, template, *_ = synth
    rules = template.find_resources(
        "AWS::Events::Rule", {"Properties": {"ScheduleExpression": "rate(1 minute)"}}
    )
    assert len(rules) == 3
    for rule in rules.values():
        (target,) = rule["Properties"]["Targets"]
        assert target["RetryPolicy"]["MaximumRetryAttempts"] == 0
    template.resource_properties_count_is(
        "AWS::Lambda::Permission", {"Principal": "events.amazonaws.com", "Action": "lambda:InvokeFunction"}, 3
    )


def _dimensions(route: str) -> list[dict]:
    """The alarms' dimensions: exactly contract.METRIC_DIMENSIONS, for this route and the kit (CDK writes
    them sorted by name)."""
    dims = contract.metric_dimensions(route, KIT)
    assert set(dims) == set(contract.METRIC_DIMENSIONS)
    return [{"Name": k, "Value": dims[k]} for k in sorted(dims)]


def test_alarms_on_failure_and_slow_first_audio(synth):
    _, template, *_ = synth
    dims = _dimensions(contract.DEPLOYMENT_ECS)
    template.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "Namespace": contract.METRICS_NAMESPACE,
            "MetricName": contract.METRIC_CANARY_SUCCESS,
            "Dimensions": dims,
            "Statistic": "Average",
            "Period": 60,
            "Threshold": 1,
            "ComparisonOperator": "LessThanThreshold",
            "EvaluationPeriods": 5,
            "DatapointsToAlarm": 3,
            "TreatMissingData": "breaching",
            "AlarmActions": [{"Ref": Match.string_like_regexp("Alarms")}],
            "OKActions": [{"Ref": Match.string_like_regexp("Alarms")}],
        },
    )
    template.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "MetricName": contract.METRIC_CANARY_TTFB,
            "Dimensions": dims,
            "Threshold": 450,
            "ComparisonOperator": "GreaterThanThreshold",
            "TreatMissingData": "notBreaching",
        },
    )
    sm_alarms = template.find_resources(
        "AWS::CloudWatch::Alarm",
        {"Properties": {"Dimensions": _dimensions(contract.DEPLOYMENT_SAGEMAKER)}},
    )
    assert len(sm_alarms) == 2
    assert all("AlarmActions" not in a["Properties"] for a in sm_alarms.values())  # no topic given


def _statements(synth, canary):
    """Every statement granted to the canary's role (its own AWS::IAM::Policy, attached to it alone)."""
    stack, template, *_ = synth
    role_id = stack.get_logical_id(canary.role.node.default_child)
    policies = [
        p["Properties"]
        for p in template.find_resources("AWS::IAM::Policy").values()
        if {"Ref": role_id} in p["Properties"]["Roles"]
    ]
    assert len(policies) == 1 and policies[0]["Roles"] == [{"Ref": role_id}]
    return policies[0]["PolicyDocument"]["Statement"]


def test_role_is_least_privilege(synth):
    _, template, ecs, sm, tls = synth
    for canary in (ecs, sm, tls):
        role = template.to_json()["Resources"][synth[0].get_logical_id(canary.role.node.default_child)]
        props = role["Properties"]
        assert "ManagedPolicyArns" not in props and "Policies" not in props
        assert props["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
            "Service": "lambda.amazonaws.com"
        }
        actions = [a for st in _statements(synth, canary) for a in _as_list(st["Action"])]
        assert not any(a.endswith("*") for a in actions)
        assert "cloudwatch:PutMetricData" not in actions  # metrics travel as EMF in the function's logs
        # InvokeEndpointWithResponseStream is authorized by sagemaker:InvokeEndpoint; there is no IAM
        # action of the streaming call's own name, so a grant of that name authorizes nothing.
        assert "sagemaker:InvokeEndpointWithResponseStream" not in actions
        assert ("sagemaker:InvokeEndpoint" in actions) == (canary is sm)
        assert ("secretsmanager:GetSecretValue" in actions) == (canary is tls)
    (invoke,) = [st for st in _statements(synth, sm) if st["Action"] == "sagemaker:InvokeEndpoint"]
    # The one endpoint, with SageMaker's lower-case ARN spelling.
    assert f"endpoint/{ENDPOINT.lower()}" in str(invoke["Resource"])


def test_log_group_is_retained_and_encrypted(synth):
    _, template, *_ = synth
    groups = template.find_resources(
        "AWS::Logs::LogGroup",
        {"Properties": {"RetentionInDays": 30, "KmsKeyId": {"Fn::GetAtt": [Match.any_value(), "Arn"]}}},
    )
    used = {_function(synth, c)["Properties"]["LoggingConfig"]["LogGroup"]["Ref"] for c in synth[2:]}
    assert len(used) == 3 and used <= set(groups)


def _as_list(v):
    return v if isinstance(v, list) else [v]


def test_props_are_validated():
    app = cdk.App()
    stack = cdk.Stack(app, "Bad")
    vpc = ec2.Vpc(stack, "Vpc", nat_gateways=0)
    key = LogsKey(stack, "K")
    sg = ec2.SecurityGroup(stack, "Sg", vpc=vpc)
    base = {
        "vpc": vpc,
        "logs_key": key,
        "log_retention_days": 30,
        "kit_name": KIT,
        "route_security_group": sg,
    }
    with pytest.raises(ValueError, match="exactly one"):
        CanaryProps(service="ecs", **base)
    with pytest.raises(ValueError, match="exactly one"):
        CanaryProps(service="ecs", target_url="http://a", endpoint_name="b", **base)
    with pytest.raises(ValueError, match="service"):
        CanaryProps(service="eks", target_url="http://a", **base)
    with pytest.raises(ValueError, match="http"):
        CanaryProps(service="ecs", target_url="alb.internal", **base)
    secret = secretsmanager.Secret(stack, "Secret")
    with pytest.raises(ValueError, match="endpoints_security_group"):
        CanaryProps(service="ecs", target_url="http://a", api_key_secret=secret, **base)
    with pytest.raises(ValueError, match="needs a voice"):
        CanaryProps(service="sagemaker", endpoint_name="ep", **base)
    with pytest.raises(ValueError, match="plain string"):
        CanaryProps(service="sagemaker", endpoint_name=cdk.Aws.STACK_NAME, voice="slt", **base)


def test_model_voice_reads_the_first_voice_of_a_model_dir(tmp_path):
    (tmp_path / "config.json").write_text('{"voices": [{"id": "en_female_slt"}, {"id": "en_male_b"}]}')
    assert model_voice(tmp_path) == "en_female_slt"
    voices = '[{"id": "de_m", "language": "de"}, {"id": "en_f", "language": "en"}]'
    (tmp_path / "config.json").write_text(f'{{"voices": {voices}}}')
    assert model_voice(tmp_path) == "en_f"  # the canary's sentence is English
    assert model_voice(tmp_path, language="fr") == "de_m"  # none in that language: the first
    (tmp_path / "config.json").write_text('{"voices": []}')
    with pytest.raises(ValueError, match="no voice id"):
        model_voice(tmp_path)
    with pytest.raises(ValueError, match="no voice id"):
        model_voice(tmp_path / "missing")
