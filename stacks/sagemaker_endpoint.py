"""The managed route: the kit's model on a SageMaker real-time endpoint inside the kit's VPC.

Wires constructs only: the endpoint (model, role, security group, endpoint config), its autoscaling,
its log group, its dashboard and alarms (the same observability construct as the ECS route). The VPC, the image and the weights come from the stacks that
own them, so `deployment=both` serves the same image and the same weights on both routes.
"""

from __future__ import annotations

from aws_cdk import CfnOutput, Duration, RemovalPolicy, Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from constructs import Construct

from model_server.contract import DEPLOYMENT_SAGEMAKER, ENV_KIT_NAME
from stacks.config import StatespeakConfig
from stacks.foundation import BUNDLED_WEIGHTS_DIR
from statespeak_constructs.canary import CanaryProps, LatencyCanary, model_voice
from statespeak_constructs.image import ServerImage
from statespeak_constructs.logs import LogsKey, retention
from statespeak_constructs.network import StatespeakNetwork
from statespeak_constructs.observability import ObservabilityProps, ServiceObservability
from statespeak_constructs.sagemaker_endpoint import (
    ENDPOINT_INSTANCE_NAMESPACE,
    KitModel,
    MarketplaceModel,
    SageMakerEndpoint,
    SageMakerEndpointProps,
)
from statespeak_constructs.sagemaker_scaling import SageMakerScaling, SageMakerScalingProps


def endpoint_name(config: StatespeakConfig) -> str:
    """The endpoint's name: the client's target is `sagemaker://<this>`."""
    return f"{config.name.lower()}-tts"


class SageMakerEndpointStack(Stack):
    """SageMaker endpoint serving the kit's image and weights, or a Marketplace model package."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: StatespeakConfig,
        network: StatespeakNetwork,
        image: ServerImage,
        weights_bucket: s3.IBucket,
        weights_prefix: str,
        **kwargs,
    ) -> None:
        """`weights_prefix`: the model directory in `weights_bucket`, e.g. `weights/bundled/`."""
        super().__init__(scope, construct_id, **kwargs)
        name = endpoint_name(config)

        logs_key = LogsKey(self, "LogsKey")
        # SageMaker writes container output to this exact group; made here so it has retention and a key.
        log_group = logs.LogGroup(
            self,
            "EndpointLogs",
            log_group_name=f"/aws/sagemaker/Endpoints/{name}",
            encryption_key=logs_key.key,
            retention=retention(config.log_retention_days),
            removal_policy=RemovalPolicy.RETAIN,
        )

        model = (
            MarketplaceModel(config.model_package_arn)
            if config.model_package_arn
            else KitModel(
                image=image,
                weights_bucket=weights_bucket,
                weights_prefix=weights_prefix,
                max_streams=config.max_streams_per_task,
                environment={ENV_KIT_NAME: config.name},  # the Kit metric dimension
            )
        )
        self.endpoint = SageMakerEndpoint(
            self,
            "Endpoint",
            SageMakerEndpointProps(
                vpc=network.vpc,
                subnets=network.data_subnets,
                model=model,
                endpoint_name=name,
                log_group=log_group,
                instance_type=config.sagemaker_instance_type,
                initial_instance_count=config.min_replicas,
                # Weights load and warm-up share the ECS health-check grace; the CUDA image pull comes on top.
                container_startup_timeout=Duration.seconds(min(3600, config.health_check_grace_s + 600)),
                runtime_vpc_endpoint=network.interface_endpoints.get("SageMakerRuntime"),
            ),
        )
        self.scaling = SageMakerScaling(
            self,
            "Scaling",
            SageMakerScalingProps(
                endpoint=self.endpoint.endpoint,
                endpoint_name=name,
                variant_name=self.endpoint.variant_name,
                min_instances=config.min_replicas,
                max_instances=config.max_replicas,
                target_concurrency=config.target_streams_per_task,
                scale_in_cooldown=Duration.seconds(config.scale_in_cooldown_s),
                scale_out_cooldown=Duration.seconds(config.scale_out_cooldown_s),
            ),
        )

        endpoint = self.endpoint
        self.observability = ServiceObservability(
            self,
            "Observability",
            ObservabilityProps(
                route=DEPLOYMENT_SAGEMAKER,
                dashboard_name=config.stack_name("sagemaker"),
                kit_name=config.name,
                ttfb_p99_threshold_ms=config.alarm_ttfb_p99_ms,
                server_errors=endpoint.metric("Invocation5XXErrors", "Sum", "Endpoint 5xx"),
                gpu_utilization=endpoint.metric(
                    "GPUUtilization",
                    "Average",
                    "GPU utilization (instances)",
                    namespace=ENDPOINT_INSTANCE_NAMESPACE,
                ),
                alarm_email=config.alarm_email,
                alarm_topic_arn=config.alarm_topic_arn,
            ),
        )
        self.observability.dashboard.add_widgets(*endpoint.dashboard_widgets())
        # One real stream a minute through the runtime VPC endpoint (TTFA, stalls, success, two alarms),
        # started once the endpoint is in service. /invocations cannot list voices: the canary speaks with
        # the bundled model's first English voice. A Marketplace package's voices are unknown: no canary.
        self.canary = (
            None
            if config.model_package_arn
            else LatencyCanary(
                self,
                "Canary",
                CanaryProps(
                    vpc=network.vpc,
                    subnets=network.data_subnets,
                    service=DEPLOYMENT_SAGEMAKER,
                    logs_key=logs_key,
                    log_retention_days=config.log_retention_days,
                    endpoint_name=name,
                    route_security_group=network.endpoint_group("sagemaker.runtime"),
                    voice=model_voice(BUNDLED_WEIGHTS_DIR),
                    ttfa_alarm_ms=config.alarm_ttfb_p99_ms,
                    alarm_topic=self.observability.topic,
                    kit_name=config.name,
                ),
            )
        )
        if self.canary is not None:
            self.canary.rule.node.add_dependency(self.endpoint.endpoint)
            if (
                network.runtime_security_group is not None
                and config.client_cidrs + config.client_security_group_ids
            ):
                # Named clients replace the VPC range on the runtime endpoint: admit the canary by its group,
                # with the rule in this stack (one in the foundation's would make the stacks depend both ways).
                ec2.CfnSecurityGroupIngress(
                    self,
                    "CanaryToRuntimeEndpoint",
                    group_id=network.runtime_security_group.security_group_id,
                    source_security_group_id=self.canary.security_group.security_group_id,
                    ip_protocol="tcp",
                    from_port=443,
                    to_port=443,
                    description="The kit's latency canary",
                )

        CfnOutput(self, "EndpointName", value=name, description="SageMaker endpoint name")
        CfnOutput(
            self,
            "InvokePolicyArn",
            value=self.endpoint.invoke_policy.managed_policy_arn,
            description="Attach to callers' roles: invoke this endpoint through the VPC endpoint only",
        )
        CfnOutput(
            self,
            "ClientTarget",
            value=f"sagemaker://{name}",
            description="Target for SpeechClient and `python -m model_server.bench --target`",
        )
