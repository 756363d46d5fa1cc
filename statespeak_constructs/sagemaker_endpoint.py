"""A SageMaker real-time endpoint inside the kit's VPC: model, execution role, endpoint config, endpoint.

The model is either the kit's own container (an ECR image plus uncompressed weights under an S3 prefix,
mounted at /opt/ml/model) or an AWS Marketplace model package. Either way the container runs with
network isolation, attached to isolated subnets through a dedicated security group, under a role that
can read exactly the one image repository, the one weights prefix and the one log group it needs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jsii
from aws_cdk import Acknowledgment, ArnFormat, Duration, Stack, Validations
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sagemaker as sagemaker
from constructs import Construct, IValidation

from model_server.contract import (
    DEPLOYMENT_SAGEMAKER,
    DEVICE_CUDA,
    ENV_DEPLOYMENT,
    ENV_DEVICE,
    ENV_DRAIN_TIMEOUT_S,
    ENV_ENGINES,
    ENV_KIT_NAME,
    ENV_MAX_STREAMS,
    ENV_MODEL_DIR,
    KIT_INFERENCE_AMI_VERSION,
    MAX_ENGINES,
    METRIC_REJECTED_STREAMS,
    METRICS_NAMESPACE,
    SAGEMAKER_MODEL_DIR,
)
from statespeak_constructs.image import ServerImage
from statespeak_constructs.observability import kit_metric, sustained_alarm

VARIANT_NAME = "AllTraffic"
ENDPOINT_INSTANCE_NAMESPACE = "/aws/sagemaker/Endpoints"  # per-instance CPU/GPU/memory/disk utilization
# SageMaker stops a container 30 s after SIGTERM: the server must finish draining before that.
SAGEMAKER_DRAIN_TIMEOUT_S = 25

# Instance families whose hosts carry NVMe instance-store volumes. SageMaker encrypts those with the
# hardware module on the instance and rejects (older API) or ignores (newer API) an endpoint-config
# KmsKeyId for them, so the kit sets the key only where an EBS volume exists to encrypt.
INSTANCE_STORE_FAMILIES = frozenset(
    {
        "c5d", "m5d", "r5d", "c6id", "m6id", "r6id", "c7gd", "m7gd", "r7gd",
        "g4dn", "g5", "g6", "g6e", "gr6", "g6f", "g7e",
        "p4d", "p4de", "p5", "p5e", "p5en", "p6-b200", "trn1", "trn1n",
    }
)  # fmt: skip
_INSTANCE_TYPE = re.compile(r"^ml\.([a-z0-9-]+)\.([a-z0-9]+)$")
_ENDPOINT_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
# KMS rule of the compliance packs (cdk-nag's AwsSolutions pack has no endpoint-config rule; SM1-SM3
# are notebook rules).
ENDPOINT_KMS_RULE = "SageMakerEndpointConfigurationKMSKeyConfigured"
NAG_PACKS_WITH_ENDPOINT_KMS_RULE = ("HIPAA.Security", "NIST.800.53.R4", "NIST.800.53.R5", "PCI.DSS.321")


# Why each policy statement that cdk-nag's AwsSolutions-IAM5 flags for a wildcard needs one: by Sid, or
# by its action list (comma-joined, sorted) for statements a grant method wrote without a Sid.
WILDCARD_REASONS = {
    "ecr:GetAuthorizationToken": "ecr:GetAuthorizationToken has no resource-level permissions; layer "
    "pulls are limited to the one image repository by the statement next to it.",
    "ReadWeights": "s3:GetObject on the objects under the one weights prefix the model serves.",
    "PutKitMetrics": "cloudwatch:PutMetricData has no resource-level permissions; the cloudwatch:namespace "
    f"condition limits it to {METRICS_NAMESPACE}.",
    "DescribeNetwork": "ec2:Describe* calls have no resource-level permissions; SageMaker needs them to "
    "attach the endpoint to the VPC.",
    "CreateInterfacesInKitSubnets": "The network interface ids SageMaker creates are unknown in advance; "
    "creation is limited to the kit's subnets and the endpoint's security group.",
    "ManageInterfacesInKitVpc": "The network interface ids SageMaker creates are unknown in advance; the "
    "ec2:Vpc condition limits these calls to interfaces in the kit's VPC.",
}


def flatten_cfn_reference(node: Any) -> str:
    """cdk-nag's rendering of a resolved CloudFormation value inside a finding id (flatten-cfn-reference.js)."""
    if node is None:
        return ""
    if isinstance(node, str):
        return node.replace("${", "<").replace("}", ">")
    if isinstance(node, dict):
        if node.get("Fn::Join"):
            delimiter, items = node["Fn::Join"]
            return delimiter.join(flatten_cfn_reference(item) for item in items)
        if node.get("Fn::Sub"):
            return flatten_cfn_reference(node["Fn::Sub"])
        if node.get("Fn::GetAtt"):
            resource, attribute = node["Fn::GetAtt"]
            return f"<{flatten_cfn_reference(resource)}.{flatten_cfn_reference(attribute)}>"
        if node.get("Fn::ImportValue"):
            return flatten_cfn_reference(node["Fn::ImportValue"])
        if node.get("Ref"):
            return f"<{flatten_cfn_reference(node['Ref'])}>"
    return json.dumps(node, separators=(",", ":"))


def wildcard_findings(statement: Mapping[str, Any]) -> list[str]:
    """The AwsSolutions-IAM5 finding ids one resolved Allow statement produces."""
    if statement.get("Effect") != "Allow":
        return []

    def as_list(value: Any) -> list:
        return value if isinstance(value, list) else [value]

    actions = [f"Action::{a}" for a in as_list(statement.get("Action")) if "*" in a]
    resources = [flatten_cfn_reference(r) for r in as_list(statement.get("Resource"))]
    return actions + [f"Resource::{r}" for r in resources if "*" in r]


@jsii.implements(IValidation)
class _AcknowledgeWildcards:
    """Acknowledges exactly the IAM5 findings of the statements named in `reasons`, each with its reason,
    in every policy attached to `role`. Any other wildcard stays a finding, so a new broad statement
    cannot slip through under an old acknowledgement.
    """

    def __init__(self, role: iam.Role, reasons: Mapping[str, str]):
        self._role = role
        self._reasons = reasons

    def validate(self) -> list[str]:
        policies = [child for child in self._role.node.scope.node.find_all() if isinstance(child, iam.Policy)]
        for policy in policies:
            cfn_policy = policy.node.default_child
            document = Stack.of(cfn_policy).resolve(cfn_policy.policy_document)
            for statement in document.get("Statement", []):
                actions = statement.get("Action")
                key = statement.get("Sid") or ",".join(
                    sorted(actions if isinstance(actions, list) else [actions])
                )
                reason = self._reasons.get(key)
                for finding in wildcard_findings(statement) if reason else []:
                    Validations.of(policy).acknowledge(
                        Acknowledgment(id=f"AwsSolutions-IAM5[{finding}]", reason=reason)
                    )
        return []


def instance_family(instance_type: str) -> str:
    match = _INSTANCE_TYPE.match(instance_type)
    if not match:
        raise ValueError(
            f"instance_type={instance_type!r} is not a SageMaker instance type such as ml.g6e.xlarge"
        )
    return match.group(1)


def inference_ami_version(props: SageMakerEndpointProps) -> str:
    """The variant's `InferenceAmiVersion` ("" for SageMaker's default): the props' own, else what the model
    needs (the kit image: driver 580)."""
    if props.inference_ami_version is not None:
        return props.inference_ami_version
    return KIT_INFERENCE_AMI_VERSION if isinstance(props.model, KitModel) else ""


def has_instance_storage(instance_type: str) -> bool:
    """True where the host's storage is NVMe instance store (no EBS volume for a KMS key to encrypt)."""
    return instance_family(instance_type) in INSTANCE_STORE_FAMILIES


@dataclass(frozen=True)
class KitModel:
    """The kit's own container: an image in ECR and the weights as plain files under an S3 prefix."""

    image: ServerImage
    """The server image (built asset or the kit's ECR repository); the role may pull this image only."""
    weights_bucket: s3.IBucket
    """Bucket holding the model directory (config.json, model.safetensors, voices)."""
    weights_prefix: str
    """Key prefix of the model directory, ending in '/': SageMaker copies it to /opt/ml/model as is."""
    max_streams: int
    """Admission limit per container (MAX_STREAMS)."""
    kit_name: str
    """The kit instance's name (KIT_NAME): the Kit dimension of the server's metrics, so two copies of the
    kit in one account keep theirs apart."""
    environment: Mapping[str, str] = field(default_factory=dict)
    """Extra container environment, merged over the kit's own variables."""
    engines: int = 1
    """Engine processes per container (STATESPEAK_ENGINES), sharing its GPU and max_streams."""

    def __post_init__(self) -> None:
        if not self.weights_prefix.endswith("/") or self.weights_prefix.startswith("/"):
            raise ValueError(
                f"weights_prefix={self.weights_prefix!r}: an S3Prefix model source is a key prefix such as "
                "'models/default/' (no leading '/', a trailing '/')"
            )
        if self.max_streams < 1:
            raise ValueError(f"max_streams={self.max_streams} must be at least 1")
        if not 1 <= self.engines <= min(MAX_ENGINES, self.max_streams):
            raise ValueError(f"engines={self.engines} must be from 1 to {min(MAX_ENGINES, self.max_streams)}")


@dataclass(frozen=True)
class MarketplaceModel:
    """An AWS Marketplace model package (subscribed in the account); SageMaker supplies image and weights."""

    model_package_arn: str
    """arn:aws:sagemaker:<region>:<account>:model-package/<name>"""


@dataclass(frozen=True)
class SageMakerEndpointProps:
    """Everything the endpoint needs from the rest of the kit."""

    vpc: ec2.IVpc
    """The kit's VPC."""
    subnets: ec2.SubnetSelection
    """Isolated subnets for the endpoint's network interfaces (at least two AZs for instance spread)."""
    model: KitModel | MarketplaceModel
    """What to serve."""
    endpoint_name: str
    """Endpoint name: the `sagemaker://<name>` target of the client, and the name in its log group."""
    log_group: logs.ILogGroup
    """Pre-created /aws/sagemaker/Endpoints/<endpoint_name> log group (retention and encryption set)."""
    instance_type: str = "ml.g6e.xlarge"
    """GPU instance type of the production variant."""
    inference_ami_version: str | None = None
    """The hosts' AMI (`InferenceAmiVersion`), which fixes their NVIDIA driver. None: what the model needs, the
    driver-580 AMI for a `KitModel` (`contract.KIT_INFERENCE_AMI_VERSION`: the kit image's torch is a CUDA 13
    build, and on SageMaker's default AMIs the server would never turn ready) and SageMaker's default for a
    `MarketplaceModel`. "": SageMaker's default in either case."""
    initial_instance_count: int = 2
    """Instances at creation; autoscaling takes over from there."""
    volume_key: kms.IKey | None = None
    """Key for the instance's EBS storage volume; used only on instance types that have one."""
    weights_key: kms.IKey | None = None
    """Key the weights bucket encrypts with (the role may decrypt with it)."""
    container_startup_timeout: Duration = field(default_factory=lambda: Duration.minutes(20))
    """Time for /ping to turn 200: image pull of the CUDA image, weights load, warm-up of the kernels."""
    model_download_timeout: Duration = field(default_factory=lambda: Duration.minutes(10))
    """Time to copy the weights prefix from S3 to the instance."""
    max_stream_seconds: int = 300
    """Longest stream: an update keeps the old fleet this long after traffic moved (its streams finish),
    and a p99 ModelLatency above it means requests are stuck."""
    max_invocations_per_instance_minute: float = 480.0
    """Alarm when requests per instance per minute exceed this (more than the instance can start)."""
    bake_seconds: int = 300
    """Blue/green: how long the new fleet serves all traffic, watched by the rollback alarms, before the
    update completes."""
    runtime_vpc_endpoint: ec2.IInterfaceVpcEndpoint | None = None
    """The VPC's SageMaker runtime interface endpoint: when given, the invoke policy only allows calls
    that arrive through it, so a leaked caller credential is useless outside the VPC. Without it, the
    policy requires calls through any endpoint of `vpc` (aws:SourceVpc)."""

    def __post_init__(self) -> None:
        if not _ENDPOINT_NAME.match(self.endpoint_name):
            raise ValueError(
                f"endpoint_name={self.endpoint_name!r}: 1-63 letters, digits and hyphens, starting and ending "
                "with a letter or digit"
            )
        instance_family(self.instance_type)
        if self.initial_instance_count < 1:
            raise ValueError(f"initial_instance_count={self.initial_instance_count} must be at least 1")
        for name, value in (
            ("container_startup_timeout", self.container_startup_timeout),
            ("model_download_timeout", self.model_download_timeout),
        ):
            if not 60 <= value.to_seconds() <= 3600:
                raise ValueError(f"{name}={value.to_seconds()} s is outside SageMaker's 60-3600 s range")


class SageMakerEndpoint(Construct):
    """One SageMaker real-time endpoint with its model, execution role and security group.

    Attributes: `endpoint` (CfnEndpoint), `endpoint_name`, `endpoint_arn`, `variant_name`, `role`,
    `security_group`, `model`, `endpoint_config`, `volume_encrypted` (whether the endpoint config names a
    KMS key), `invoke_policy` (a managed policy for callers).
    """

    def __init__(self, scope: Construct, construct_id: str, props: SageMakerEndpointProps) -> None:
        super().__init__(scope, construct_id)
        stack = Stack.of(self)
        self.endpoint_name = props.endpoint_name
        self.variant_name = VARIANT_NAME

        # No ingress: the runtime reaches the container over SageMaker's own network, never these ENIs.
        # Egress HTTPS only, for the platform's S3 download of the weights through the gateway endpoint;
        # the subnets have no internet route, and the S3 prefix list id would need a synth-time lookup.
        self.security_group = ec2.SecurityGroup(
            self,
            "SecurityGroup",
            vpc=props.vpc,
            description=f"SageMaker endpoint {props.endpoint_name}: no ingress, HTTPS egress to S3/endpoints",
            allow_all_outbound=False,
        )
        self.security_group.add_egress_rule(
            ec2.Peer.any_ipv4(), ec2.Port.tcp(443), "S3 gateway endpoint and VPC interface endpoints"
        )
        subnets = props.vpc.select_subnets(
            subnet_group_name=props.subnets.subnet_group_name,
            subnet_type=props.subnets.subnet_type,
            subnets=props.subnets.subnets,
            availability_zones=props.subnets.availability_zones,
        )

        self.role = iam.Role(
            self,
            "ExecutionRole",
            assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"),
            description=f"Execution role of SageMaker endpoint {props.endpoint_name}",
        )
        self._grant_base(props, subnets.subnet_ids)
        container = self._container(props)

        self.model = sagemaker.CfnModel(
            self,
            "Model",
            execution_role_arn=self.role.role_arn,
            primary_container=container,
            enable_network_isolation=True,  # no inbound or outbound calls from the container
            vpc_config=sagemaker.CfnModel.VpcConfigProperty(
                security_group_ids=[self.security_group.security_group_id], subnets=subnets.subnet_ids
            ),
        )
        # CreateModel checks the role's permissions: create the role's policies first (the role itself is
        # already a dependency through ExecutionRoleArn).
        self.model.node.add_dependency(*(c for c in self.node.find_all() if isinstance(c, iam.Policy)))

        self.volume_encrypted = props.volume_key is not None and not has_instance_storage(props.instance_type)
        variant = sagemaker.CfnEndpointConfig.ProductionVariantProperty(
            variant_name=VARIANT_NAME,
            model_name=self.model.attr_model_name,
            instance_type=props.instance_type,
            inference_ami_version=inference_ami_version(props) or None,
            initial_instance_count=props.initial_instance_count,
            initial_variant_weight=1.0,
            container_startup_health_check_timeout_in_seconds=int(
                props.container_startup_timeout.to_seconds()
            ),
            model_data_download_timeout_in_seconds=int(props.model_download_timeout.to_seconds()),
            # Streams differ in length by minutes: route each new one to the least busy instance.
            routing_config=sagemaker.CfnEndpointConfig.RoutingConfigProperty(
                routing_strategy="LEAST_OUTSTANDING_REQUESTS"
            ),
        )
        self.endpoint_config = sagemaker.CfnEndpointConfig(
            self,
            "EndpointConfig",
            production_variants=[variant],
            kms_key_id=props.volume_key.key_arn if self.volume_encrypted else None,
        )
        if self.volume_encrypted:
            props.volume_key.grant(self.role, "kms:CreateGrant", "kms:DescribeKey")
        else:
            reason = (
                f"{props.instance_type} keeps its storage on NVMe instance-store volumes, which the instance's "
                "hardware module encrypts (AES-256, key never leaves the host); SageMaker does not apply an "
                "endpoint-config KmsKeyId to them, so none is set. Instance types with EBS volumes get one."
                if has_instance_storage(props.instance_type)
                else "No volume key was supplied to the construct."
            )
            for pack in NAG_PACKS_WITH_ENDPOINT_KMS_RULE:
                Validations.of(self.endpoint_config).acknowledge(
                    Acknowledgment(id=f"{pack}-{ENDPOINT_KMS_RULE}", reason=reason)
                )

        self.alarms = self._endpoint_alarms(props)
        rollback = [self.alarms["Invocation5XXErrors"], self.alarms["ModelLatency"]]
        # SageMaker reads the rollback alarms with the execution role: "Ensure that your IAM execution role has
        # permission to perform the cloudwatch:DescribeAlarms action on the auto-rollback alarms you specify."
        self.policy.add_statements(
            iam.PolicyStatement(
                sid="ReadRollbackAlarms",
                actions=["cloudwatch:DescribeAlarms"],
                resources=[alarm.alarm_arn for alarm in rollback],
            )
        )
        termination_wait = min(3600, props.max_stream_seconds)
        self.endpoint = sagemaker.CfnEndpoint(
            self,
            "Endpoint",
            endpoint_name=props.endpoint_name,
            endpoint_config_name=self.endpoint_config.attr_endpoint_config_name,
            # An update (new image, weights, instance type) keeps the instance count autoscaling reached
            # instead of falling back to the config's initial count.
            retain_all_variant_properties=True,
            # Blue/green: the new fleet comes up beside the old one, takes all traffic, bakes under the
            # rollback alarms, and only then the old fleet goes, after its in-flight streams had time to end.
            deployment_config=sagemaker.CfnEndpoint.DeploymentConfigProperty(
                blue_green_update_policy=sagemaker.CfnEndpoint.BlueGreenUpdatePolicyProperty(
                    traffic_routing_configuration=sagemaker.CfnEndpoint.TrafficRoutingConfigProperty(
                        type="ALL_AT_ONCE", wait_interval_in_seconds=props.bake_seconds
                    ),
                    termination_wait_in_seconds=termination_wait,
                    maximum_execution_timeout_in_seconds=min(
                        14400,
                        int(props.container_startup_timeout.to_seconds())
                        + int(props.model_download_timeout.to_seconds())
                        + props.bake_seconds
                        + termination_wait
                        + 600,
                    ),
                ),
                auto_rollback_configuration=sagemaker.CfnEndpoint.AutoRollbackConfigProperty(
                    alarms=[
                        sagemaker.CfnEndpoint.AlarmProperty(alarm_name=alarm.alarm_name) for alarm in rollback
                    ]
                ),
            ),
        )
        # The log group exists (with retention and key) before the first instance writes to it.
        self.endpoint.node.add_dependency(props.log_group)
        self.endpoint_arn = stack.format_arn(
            service="sagemaker", resource="endpoint", resource_name=props.endpoint_name.lower()
        )
        # Callers (voice agents, the canary, the benchmark) attach this: invoke this endpoint, nothing else.
        # sagemaker:InvokeEndpoint covers InvokeEndpointWithResponseStream as well.
        invoke = iam.PolicyStatement(actions=["sagemaker:InvokeEndpoint"], resources=[self.endpoint_arn])
        if props.runtime_vpc_endpoint is not None:
            invoke.add_condition(
                "StringEquals", {"aws:SourceVpce": props.runtime_vpc_endpoint.vpc_endpoint_id}
            )
        else:
            # The VPC's own runtime endpoint (one the kit did not create, e.g. in your VPC): calls must
            # still arrive through an endpoint in this VPC.
            invoke.add_condition("StringEquals", {"aws:SourceVpc": props.vpc.vpc_id})
        self.invoke_policy = iam.ManagedPolicy(
            self,
            "InvokePolicy",
            description=f"Invoke SageMaker endpoint {props.endpoint_name} (streaming included)",
            statements=[invoke],
        )

    # -- metrics ------------------------------------------------------------------------------------

    def _endpoint_alarms(self, props: SageMakerEndpointProps) -> dict[str, cloudwatch.Alarm]:
        """Alarms on SageMaker's own endpoint metrics, which any container (a Marketplace package too)
        produces; the first two also roll back a failing blue/green update."""
        minutes = 3
        specs = (
            ("Invocation5XXErrors", "Sum", 1, "5xx responses from the endpoint"),
            (
                "ModelLatency",
                "p99",
                props.max_stream_seconds * 1_000_000,  # microseconds
                f"p99 model latency above {props.max_stream_seconds} s, the longest stream: requests are stuck",
            ),
            (
                "InvocationsPerInstance",
                "Sum",
                props.max_invocations_per_instance_minute,
                f"more than {props.max_invocations_per_instance_minute:g} requests per instance per minute",
            ),
        )
        alarms = {}
        for name, statistic, threshold, what in specs:
            metric: cloudwatch.IMetric = self.metric(name, statistic, name)
            if name == "Invocation5XXErrors" and isinstance(props.model, KitModel):
                metric = self._errors_beyond_admission(metric, props.model.kit_name)
            alarms[name] = sustained_alarm(
                self,
                f"{name}Alarm",
                metric,
                threshold,
                minutes,
                f"Statespeak SageMaker endpoint {props.endpoint_name}: {what}",
            )
        return alarms

    def _errors_beyond_admission(self, errors: cloudwatch.Metric, kit_name: str) -> cloudwatch.IMetric:
        """5xx responses less the kit server's admission refusals. A refusal is a 503 with Retry-After (the
        client's cue to back off, the same on both routes), and SageMaker counts it in Invocation5XXErrors: a
        burst above the fleet's admission limit for three minutes fired the alarm and, during an update,
        rolled back the new fleet (or ended the deployment, if the old fleet was the one refusing)."""
        rejected = kit_metric(METRIC_REJECTED_STREAMS, "Sum", DEPLOYMENT_SAGEMAKER, kit_name)
        return cloudwatch.MathExpression(
            expression="errors - FILL(rejected, 0)",
            using_metrics={"errors": errors, "rejected": rejected},
            label="5xx responses other than admission refusals",
            period=errors.period,
        )

    def metric(
        self,
        name: str,
        statistic: str,
        label: str,
        *,
        namespace: str = "AWS/SageMaker",
        period: Duration | None = None,
    ) -> cloudwatch.Metric:
        """An endpoint metric of this variant: AWS/SageMaker invocation metrics, or the per-instance
        utilization metrics with namespace ENDPOINT_INSTANCE_NAMESPACE."""
        return cloudwatch.Metric(
            namespace=namespace,
            metric_name=name,
            dimensions_map={"EndpointName": self.endpoint_name, "VariantName": self.variant_name},
            statistic=statistic,
            period=period or Duration.minutes(1),
            label=label,
        )

    def dashboard_widgets(self) -> list[cloudwatch.IWidget]:
        """Graphs only the endpoint has: its request load (the scaling signal) and latency split."""
        return [
            cloudwatch.GraphWidget(
                title="Concurrent requests per instance (scaling signal)",
                left=[
                    self.metric(
                        "ConcurrentRequestsPerModel", "Average", "Average", period=Duration.seconds(10)
                    ),
                    self.metric(
                        "ConcurrentRequestsPerModel", "Maximum", "Maximum", period=Duration.seconds(10)
                    ),
                ],
                right=[self.metric("Invocations", "Sum", "Invocations per minute")],
                width=12,
            ),
            cloudwatch.GraphWidget(
                title="Latency to response start (microseconds)",
                left=[
                    self.metric("ModelLatency", "p99", "Model p99"),
                    self.metric("OverheadLatency", "p99", "SageMaker overhead p99"),
                ],
                right=[self.metric("Invocation4XXErrors", "Sum", "4xx")],
                width=12,
            ),
        ]

    # -- pieces -------------------------------------------------------------------------------------

    def _container(self, props: SageMakerEndpointProps) -> sagemaker.CfnModel.ContainerDefinitionProperty:
        model = props.model
        if isinstance(model, MarketplaceModel):
            # Marketplace packages bring image and artifacts; SageMaker requires network isolation for them.
            return sagemaker.CfnModel.ContainerDefinitionProperty(model_package_name=model.model_package_arn)
        environment = {
            ENV_MODEL_DIR: SAGEMAKER_MODEL_DIR,
            ENV_MAX_STREAMS: str(model.max_streams),
            ENV_ENGINES: str(model.engines),
            ENV_DEPLOYMENT: DEPLOYMENT_SAGEMAKER,
            ENV_DRAIN_TIMEOUT_S: str(SAGEMAKER_DRAIN_TIMEOUT_S),
            ENV_DEVICE: DEVICE_CUDA,  # no readiness without CUDA and the kernels
            ENV_KIT_NAME: model.kit_name,
            **model.environment,
        }
        return sagemaker.CfnModel.ContainerDefinitionProperty(
            image=model.image.image_uri,
            mode="SingleModel",
            environment=environment,
            # Uncompressed: SageMaker copies the prefix file by file to /opt/ml/model, no tar to unpack.
            model_data_source=sagemaker.CfnModel.ModelDataSourceProperty(
                s3_data_source=sagemaker.CfnModel.S3DataSourceProperty(
                    s3_uri=model.weights_bucket.s3_url_for_object(model.weights_prefix),
                    s3_data_type="S3Prefix",
                    compression_type="None",
                )
            ),
        )

    def _grant_base(self, props: SageMakerEndpointProps, subnet_ids: list[str]) -> None:
        stack = Stack.of(self)
        policy = iam.Policy(self, "ExecutionPolicy", roles=[self.role])
        statements: list[iam.PolicyStatement] = []
        model = props.model
        if isinstance(model, KitModel):
            # Pull from the one repository the image lives in (lands in the role's default policy).
            model.image.grant_pull(self.role)
            statements += [
                iam.PolicyStatement(
                    sid="ReadWeights",
                    actions=["s3:GetObject"],
                    resources=[model.weights_bucket.arn_for_objects(f"{model.weights_prefix}*")],
                ),
                iam.PolicyStatement(
                    sid="ListWeights",
                    actions=["s3:ListBucket"],
                    resources=[model.weights_bucket.bucket_arn],
                    conditions={"StringLike": {"s3:prefix": [f"{model.weights_prefix}*"]}},
                ),
            ]
            if props.weights_key is not None:
                statements.append(
                    iam.PolicyStatement(
                        sid="DecryptWeights",
                        actions=["kms:Decrypt"],
                        resources=[props.weights_key.key_arn],
                        conditions={"StringEquals": {"kms:ViaService": f"s3.{stack.region}.amazonaws.com"}},
                    )
                )
        statements += [
            iam.PolicyStatement(
                sid="WriteEndpointLogs",
                # The group already exists (retention, key); CreateLogGroup only spares SageMaker an error.
                actions=[
                    "logs:CreateLogGroup",
                    "logs:CreateLogStream",
                    "logs:PutLogEvents",
                    "logs:DescribeLogStreams",
                ],
                resources=[
                    props.log_group.log_group_arn,  # "...:log-group:<name>:*", the group's streams
                    stack.format_arn(
                        service="logs",
                        resource="log-group",
                        resource_name=props.log_group.log_group_name,
                        arn_format=ArnFormat.COLON_RESOURCE_NAME,
                    ),
                ],
            ),
            iam.PolicyStatement(
                sid="PutKitMetrics",  # PutMetricData has no resources: the namespace condition scopes it
                actions=["cloudwatch:PutMetricData"],
                resources=["*"],
                conditions={"StringEquals": {"cloudwatch:namespace": METRICS_NAMESPACE}},
            ),
            # VpcConfig: SageMaker creates the instances' network interfaces with this role.
            iam.PolicyStatement(
                sid="DescribeNetwork",  # Describe* calls have no resource-level permissions
                actions=[
                    "ec2:DescribeNetworkInterfaces",
                    "ec2:DescribeVpcs",
                    "ec2:DescribeDhcpOptions",
                    "ec2:DescribeSubnets",
                    "ec2:DescribeSecurityGroups",
                ],
                resources=["*"],
            ),
            iam.PolicyStatement(
                sid="CreateInterfacesInKitSubnets",
                actions=["ec2:CreateNetworkInterface"],
                resources=[
                    *(
                        stack.format_arn(service="ec2", resource="subnet", resource_name=s)
                        for s in subnet_ids
                    ),
                    stack.format_arn(
                        service="ec2",
                        resource="security-group",
                        resource_name=self.security_group.security_group_id,
                    ),
                    stack.format_arn(service="ec2", resource="network-interface", resource_name="*"),
                ],
            ),
            iam.PolicyStatement(
                sid="ManageInterfacesInKitVpc",
                actions=[
                    "ec2:CreateNetworkInterfacePermission",
                    "ec2:DeleteNetworkInterface",
                    "ec2:DeleteNetworkInterfacePermission",
                ],
                resources=[stack.format_arn(service="ec2", resource="network-interface", resource_name="*")],
                conditions={
                    "ArnEquals": {
                        "ec2:Vpc": stack.format_arn(
                            service="ec2", resource="vpc", resource_name=props.vpc.vpc_id
                        )
                    }
                },
            ),
        ]
        for statement in statements:
            policy.add_statements(statement)
        # The findings name resolved ARNs (cross-stack imports included), known only after references
        # are resolved; a construct validation runs then, and before cdk-nag's validation plugin.
        self.node.add_validation(_AcknowledgeWildcards(self.role, WILDCARD_REASONS))
        self.policy = policy
