"""The kit's own cdk-nag rules on small purpose-built stacks: each rule has a failing and a passing case.

The pack is run with `validate_scope` on a stack that is never synthesized, so each test takes well
under a second after the first (jsii start-up).
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

import aws_cdk as cdk  # noqa: E402
from aws_cdk import aws_ec2 as ec2  # noqa: E402
from aws_cdk import aws_ecs as ecs  # noqa: E402
from aws_cdk import aws_efs as efs  # noqa: E402
from aws_cdk import aws_elasticloadbalancingv2 as elbv2  # noqa: E402
from aws_cdk import aws_fsx as fsx  # noqa: E402
from aws_cdk import aws_sagemaker as sagemaker  # noqa: E402

from statespeak_constructs.nag_rules import (  # noqa: E402
    KIT_EXCEPTIONS,
    StatespeakChecks,
    acknowledge_kit_exceptions,
    pack_of,
)

CERT = "arn:aws:acm:us-east-1:123456789012:certificate/12345678-1234-1234-1234-123456789012"


def findings(scope) -> dict[str, list[str]]:
    """{rule id: [construct paths]} of the Statespeak pack over `scope` (acknowledged ones excluded)."""
    report = StatespeakChecks().validate_scope(scope)
    out: dict[str, list[str]] = {}
    for violation in report.violations:
        out[violation.rule_name] = [r.construct_path for r in violation.violating_resources]
    return out


@pytest.fixture
def stack():
    app = cdk.App()
    return cdk.Stack(app, "T", env=cdk.Environment(region="us-east-1"))


@pytest.fixture
def vpc(stack):
    return ec2.Vpc(
        stack,
        "Vpc",
        max_azs=2,
        nat_gateways=0,
        subnet_configuration=[
            ec2.SubnetConfiguration(name="data", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED),
            ec2.SubnetConfiguration(name="entry", subnet_type=ec2.SubnetType.PUBLIC),
        ],
    )


# -- SageMakerModelIsolated ------------------------------------------------------------------------------


def _model(stack, name, **kwargs):
    return sagemaker.CfnModel(
        stack,
        name,
        execution_role_arn="arn:aws:iam::123456789012:role/x",
        primary_container=sagemaker.CfnModel.ContainerDefinitionProperty(
            image="123456789012.dkr.ecr.us-east-1.amazonaws.com/x:1"
        ),
        **kwargs,
    )


def test_sagemaker_model_without_vpc_or_isolation_fails(stack):
    _model(stack, "Open")
    found = findings(stack)
    assert found.get("Statespeak-SageMakerModelIsolated[VpcConfig]") == ["T/Open"]
    assert found.get("Statespeak-SageMakerModelIsolated[NetworkIsolation]") == ["T/Open"]


def test_sagemaker_model_in_vpc_with_isolation_passes(stack, vpc):
    sg = ec2.SecurityGroup(stack, "Sg", vpc=vpc)
    _model(
        stack,
        "Closed",
        enable_network_isolation=True,
        vpc_config=sagemaker.CfnModel.VpcConfigProperty(
            security_group_ids=[sg.security_group_id],
            subnets=vpc.select_subnets(subnet_group_name="data").subnet_ids,
        ),
    )
    _model(stack, "IsolatedOnly", enable_network_isolation=True)
    found = findings(stack)
    assert not [k for k in found if "SageMaker" in k and "Closed" in str(found[k])], found
    assert found.get("Statespeak-SageMakerModelIsolated[VpcConfig]") == ["T/IsolatedOnly"]
    assert "Statespeak-SageMakerModelIsolated[NetworkIsolation]" not in found


# -- FileSystemEncrypted -------------------------------------------------------------------------------


def test_unencrypted_efs_and_scratch1_lustre_fail(stack, vpc):
    efs.FileSystem(stack, "Efs", vpc=vpc, encrypted=False)
    subnet = vpc.select_subnets(subnet_group_name="data").subnets[0]
    fsx.LustreFileSystem(
        stack,
        "Lustre",
        vpc=vpc,
        vpc_subnet=subnet,
        storage_capacity_gib=1200,
        lustre_configuration=fsx.LustreConfiguration(deployment_type=fsx.LustreDeploymentType.SCRATCH_1),
    )
    found = findings(stack)
    assert found.get("Statespeak-FileSystemEncrypted[AtRest]") == ["T/Efs/Resource"]
    assert found.get("Statespeak-FileSystemEncrypted[InTransit]") == ["T/Lustre/Resource"]


def test_encrypted_efs_and_persistent_lustre_pass(stack, vpc):
    efs.FileSystem(stack, "Efs", vpc=vpc, encrypted=True)
    subnet = vpc.select_subnets(subnet_group_name="data").subnets[0]
    fsx.LustreFileSystem(
        stack,
        "Lustre",
        vpc=vpc,
        vpc_subnet=subnet,
        storage_capacity_gib=1200,
        lustre_configuration=fsx.LustreConfiguration(
            deployment_type=fsx.LustreDeploymentType.PERSISTENT_2, per_unit_storage_throughput=125
        ),
    )
    assert not [k for k in findings(stack) if "FileSystemEncrypted" in k]


def _efs_task(stack, vpc, transit: str):
    file_system = efs.FileSystem(stack, f"Efs{transit}", vpc=vpc, encrypted=True)
    task = ecs.Ec2TaskDefinition(stack, f"Task{transit}", network_mode=ecs.NetworkMode.AWS_VPC)
    task.add_volume(
        name="weights",
        efs_volume_configuration=ecs.EfsVolumeConfiguration(
            file_system_id=file_system.file_system_id, transit_encryption=transit
        ),
    )
    task.add_container("c", image=ecs.ContainerImage.from_registry("x"), memory_limit_mib=256)
    return task


def test_ecs_efs_volume_without_tls_fails_and_with_tls_passes(stack, vpc):
    _efs_task(stack, vpc, "DISABLED")
    _efs_task(stack, vpc, "ENABLED")
    found = findings(stack)
    assert found.get("Statespeak-FileSystemEncrypted[EfsVolume:weights:InTransit]") == [
        "T/TaskDISABLED/Resource"
    ]


# -- EcsTaskIsolated -----------------------------------------------------------------------------------


def test_privileged_or_host_network_task_fails(stack):
    host = ecs.Ec2TaskDefinition(stack, "HostNet", network_mode=ecs.NetworkMode.HOST)
    host.add_container("c", image=ecs.ContainerImage.from_registry("x"), memory_limit_mib=256)
    privileged = ecs.Ec2TaskDefinition(stack, "Priv", network_mode=ecs.NetworkMode.AWS_VPC)
    privileged.add_container(
        "gpu", image=ecs.ContainerImage.from_registry("x"), memory_limit_mib=256, privileged=True
    )
    found = findings(stack)
    assert found.get("Statespeak-EcsTaskIsolated[NetworkHost]") == ["T/HostNet/Resource"]
    assert found.get("Statespeak-EcsTaskIsolated[Privileged:gpu]") == ["T/Priv/Resource"]


def test_unprivileged_awsvpc_task_passes(stack):
    task = ecs.Ec2TaskDefinition(stack, "Task", network_mode=ecs.NetworkMode.AWS_VPC)
    task.add_container(
        "c", image=ecs.ContainerImage.from_registry("x"), memory_limit_mib=256, privileged=False
    )
    assert not [k for k in findings(stack) if "EcsTaskIsolated" in k]


# -- PublicIngress and PublicHttpListener ----------------------------------------------------------------


def _alb(stack, vpc, *, internet_facing: bool, tls: bool, http: str | None):
    """ALB open to the world on 443 (TLS listener when `tls`) and, when `http`, on 80 ("redirect"/"forward")."""
    sg = ec2.SecurityGroup(stack, "AlbSg", vpc=vpc, allow_all_outbound=False)
    sg.add_ingress_rule(ec2.Peer.any_ipv4(), ec2.Port.tcp(443))
    alb = elbv2.ApplicationLoadBalancer(
        stack,
        "Alb",
        vpc=vpc,
        internet_facing=internet_facing,
        security_group=sg,
        vpc_subnets=ec2.SubnetSelection(subnet_group_name="entry" if internet_facing else "data"),
    )
    target = elbv2.ApplicationTargetGroup(stack, "Tg", vpc=vpc, port=8080, target_type=elbv2.TargetType.IP)
    if tls:
        alb.add_listener(
            "Https",
            port=443,
            open=False,
            certificates=[elbv2.ListenerCertificate.from_arn(CERT)],
            default_target_groups=[target],
        )
    else:
        alb.add_listener(
            "Plain443",
            port=443,
            protocol=elbv2.ApplicationProtocol.HTTP,
            open=False,
            default_target_groups=[target],
        )
    if http:
        sg.add_ingress_rule(ec2.Peer.any_ipv4(), ec2.Port.tcp(80))
        action = (
            elbv2.ListenerAction.redirect(protocol="HTTPS", port="443", permanent=True)
            if http == "redirect"
            else elbv2.ListenerAction.forward([target])
        )
        alb.add_listener(
            "Http", port=80, protocol=elbv2.ApplicationProtocol.HTTP, open=False, default_action=action
        )
    return sg, alb


def test_open_ssh_and_ipv6_ingress_fail(stack, vpc):
    sg = ec2.SecurityGroup(stack, "Hosts", vpc=vpc)
    sg.add_ingress_rule(ec2.Peer.any_ipv4(), ec2.Port.tcp(22))
    sg.add_ingress_rule(ec2.Peer.any_ipv6(), ec2.Port.all_traffic())
    other = ec2.SecurityGroup(stack, "Other", vpc=vpc)
    ec2.CfnSecurityGroupIngress(
        stack,
        "Standalone",
        group_id=other.security_group_id,
        ip_protocol="tcp",
        from_port=8080,
        to_port=8080,
        cidr_ip="0.0.0.0/0",
    )
    found = findings(stack)
    assert found.get("Statespeak-PublicIngress[tcp:22:0.0.0.0/0]") == ["T/Hosts/Resource"]
    assert found.get("Statespeak-PublicIngress[all:all:::/0]") == ["T/Hosts/Resource"]
    assert found.get("Statespeak-PublicIngress[tcp:8080:0.0.0.0/0]") == ["T/Standalone"]


def test_open_ingress_on_internet_facing_tls_listener_passes(stack, vpc):
    _alb(stack, vpc, internet_facing=True, tls=True, http=None)
    assert not [k for k in findings(stack) if "Public" in k]


def test_open_ingress_on_internal_or_plain_listener_fails(stack, vpc):
    _alb(stack, vpc, internet_facing=False, tls=True, http=None)
    assert findings(stack).get("Statespeak-PublicIngress[tcp:443:0.0.0.0/0]") == ["T/AlbSg/Resource"]
    other = cdk.Stack(cdk.App(), "U", env=cdk.Environment(region="us-east-1"))
    other_vpc = ec2.Vpc(
        other,
        "Vpc",
        max_azs=2,
        nat_gateways=0,
        subnet_configuration=[
            ec2.SubnetConfiguration(name="data", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED),
            ec2.SubnetConfiguration(name="entry", subnet_type=ec2.SubnetType.PUBLIC),
        ],
    )
    _alb(other, other_vpc, internet_facing=True, tls=False, http=None)
    found = findings(other)
    assert found.get("Statespeak-PublicIngress[tcp:443:0.0.0.0/0]") == ["U/AlbSg/Resource"]
    assert found.get("Statespeak-PublicHttpListener") == ["U/Alb/Plain443/Resource"]


def test_public_http_listener_that_forwards_fails(stack, vpc):
    _alb(stack, vpc, internet_facing=True, tls=True, http="forward")
    found = findings(stack)
    assert found.get("Statespeak-PublicHttpListener") == ["T/Alb/Http/Resource"]
    assert found.get("Statespeak-PublicIngress[tcp:80:0.0.0.0/0]") == ["T/AlbSg/Resource"]


def test_public_http_listener_that_redirects_passes_and_port_80_is_a_kit_exception(stack, vpc):
    _alb(stack, vpc, internet_facing=True, tls=True, http="redirect")
    found = findings(stack)
    assert "Statespeak-PublicHttpListener" not in found
    # The rule itself still names port 80; the kit accepts it only for a redirect-only listener.
    assert found.get("Statespeak-PublicIngress[tcp:80:0.0.0.0/0]") == ["T/AlbSg/Resource"]
    acknowledge_kit_exceptions(stack, [e for e in KIT_EXCEPTIONS if e.packs == ("Statespeak",)])
    assert not findings(stack), findings(stack)


def test_redirect_listener_with_a_forwarding_rule_fails_and_loses_the_exception(stack, vpc):
    sg, alb = _alb(stack, vpc, internet_facing=True, tls=True, http="redirect")
    http = next(
        c for c in alb.node.children if isinstance(c, elbv2.ApplicationListener) and c.node.id == "Http"
    )
    target = elbv2.ApplicationTargetGroup(stack, "Tg2", vpc=vpc, port=8080, target_type=elbv2.TargetType.IP)
    http.add_action(
        "Sneaky",
        priority=1,
        conditions=[elbv2.ListenerCondition.path_patterns(["/tts/*"])],
        action=elbv2.ListenerAction.forward([target]),
    )
    acknowledge_kit_exceptions(stack, [e for e in KIT_EXCEPTIONS if e.packs == ("Statespeak",)])
    found = findings(stack)
    assert found.get("Statespeak-PublicHttpListener") == ["T/Alb/Http/Resource"]
    assert found.get("Statespeak-PublicIngress[tcp:80:0.0.0.0/0]") == ["T/AlbSg/Resource"]


def test_internal_http_listener_is_not_a_public_listener(stack, vpc):
    _alb(stack, vpc, internet_facing=False, tls=False, http="forward")
    assert "Statespeak-PublicHttpListener" not in findings(stack)


def test_pack_of_reads_rule_ids():
    assert pack_of("NIST.800.53.R5-IAMNoInlinePolicy") == "NIST.800.53.R5"
    assert pack_of("Statespeak-PublicIngress[tcp:80:0.0.0.0/0]") == "Statespeak"
    assert pack_of("AwsSolutions::AwsSolutions-IAM5[Resource::*]") == "AwsSolutions"


# -- kit exceptions apply only under their conditions ------------------------------------------------------


def _acks(scope) -> dict[str, set[str]]:
    """{construct path: acknowledged rule ids} after applying KIT_EXCEPTIONS."""
    acknowledge_kit_exceptions(scope)
    out: dict[str, set[str]] = {}
    for construct in scope.node.find_all():
        for entry in construct.node.metadata:
            if entry.type == cdk.Validations.ACKNOWLEDGED_RULES_METADATA_KEY and entry.data:
                out.setdefault(construct.node.path, set()).update(
                    k.split("::", 1)[-1] for k in dict(entry.data)
                )
    return out


def test_plain_http_exceptions_cover_an_internal_listener_only(stack, vpc):
    _alb(stack, vpc, internet_facing=False, tls=False, http=None)
    acks = _acks(stack)
    assert "NIST.800.53.R5-ELBv2ACMCertificateRequired" in acks["T/Alb/Plain443/Resource"]
    assert "HIPAA.Security-ALBHttpToHttpsRedirection" in acks["T/Alb/Plain443/Resource"]
    assert "NIST.800.53.R5-ALBWAFEnabled" in acks["T/Alb/Resource"]

    public = cdk.Stack(cdk.App(), "U", env=cdk.Environment(region="us-east-1"))
    public_vpc = ec2.Vpc(
        public, "Vpc", max_azs=2, nat_gateways=0,
        subnet_configuration=[ec2.SubnetConfiguration(name="entry", subnet_type=ec2.SubnetType.PUBLIC)],
    )  # fmt: skip
    _alb(public, public_vpc, internet_facing=True, tls=True, http="forward")
    acks = _acks(public)
    assert not {a for a in acks.get("U/Alb/Http/Resource", set()) if "Certificate" in a or "Redirection" in a}
    assert "Statespeak-PublicIngress[tcp:80:0.0.0.0/0]" not in acks.get("U/AlbSg/Resource", set())


def test_alarm_and_default_security_group_exceptions_follow_the_resource(stack, vpc):
    from aws_cdk import aws_cloudwatch as cloudwatch
    from aws_cdk import aws_cloudwatch_actions as actions
    from aws_cdk import aws_sns as sns

    metric = cloudwatch.Metric(namespace="N", metric_name="M")
    cloudwatch.Alarm(stack, "Quiet", metric=metric, threshold=1, evaluation_periods=1)
    loud = cloudwatch.Alarm(stack, "Loud", metric=metric, threshold=1, evaluation_periods=1)
    loud.add_alarm_action(actions.SnsAction(sns.Topic(stack, "Topic")))
    acks = _acks(stack)
    assert "HIPAA.Security-CloudWatchAlarmAction" in acks["T/Quiet/Resource"]
    assert "T/Loud/Resource" not in acks
    assert "NIST.800.53.R5-VPCDefaultSecurityGroupClosed" in acks["T/Vpc/Resource"]

    other = cdk.Stack(cdk.App(), "U", env=cdk.Environment(region="us-east-1"))
    other_vpc = ec2.Vpc(other, "Vpc", max_azs=1, nat_gateways=0, subnet_configuration=[
        ec2.SubnetConfiguration(name="data", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)])  # fmt: skip
    ec2.CfnInstance(
        other,
        "UsesDefault",
        image_id="ami-12345678",
        security_group_ids=[other_vpc.vpc_default_security_group],
    )
    assert "NIST.800.53.R5-VPCDefaultSecurityGroupClosed" not in _acks(other).get("U/Vpc/Resource", set())
