"""The managed route: the kit's model on a SageMaker real-time endpoint inside the kit's VPC.

Wires constructs only: the endpoint (model, role, security group, endpoint config), its autoscaling,
its log group, its dashboard and alarms (the same observability construct as the ECS route). The VPC, the image and the weights come from the stacks that
own them, so `deployment=both` serves the same image and the same weights on both routes.
"""

from __future__ import annotations

from aws_cdk import CfnOutput, Duration, RemovalPolicy, Stack
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from constructs import Construct

from model_server.contract import DEPLOYMENT_SAGEMAKER
from stacks.config import StatespeakConfig
from stacks.foundation import BUNDLED_WEIGHTS_DIR, client_access
from statespeak_constructs.canary import CanaryProps, LatencyCanary, model_voice
from statespeak_constructs.image import ServerImage
from statespeak_constructs.logs import LogsKey, retention
from statespeak_constructs.network import (
    SageMakerVpcEndpoints,
    SageMakerVpcEndpointsProps,
    StatespeakNetwork,
)
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
        # The route's own interface endpoints (those the VPC lacks) live here, not in the foundation: the
        # foundation (and its exports) stays the same whichever routes are deployed, so routes can be
        # switched in place. The runtime endpoint's group admits the named clients (default: the VPC range).
        self.vpc_endpoints = SageMakerVpcEndpoints(
            self,
            "VpcEndpoints",
            SageMakerVpcEndpointsProps(network=network, clients=client_access(config)),
        )
        # SageMaker writes container output to this exact group; made here so it has retention and a key.
        log_group = logs.LogGroup(
            self,
            "EndpointLogs",
            log_group_name=f"/aws/sagemaker/Endpoints/{name}",
            encryption_key=logs_key.key,
            retention=retention(config.log_retention_days),
            # Not retained: the name is fixed (SageMaker's choice), so a retained group would make the
            # next deploy after `cdk destroy` fail with "already exists". Export logs you must keep.
            removal_policy=RemovalPolicy.DESTROY,
        )

        model = (
            MarketplaceModel(config.model_package_arn)
            if config.model_package_arn
            else KitModel(
                image=image,
                weights_bucket=weights_bucket,
                weights_prefix=weights_prefix,
                max_streams=config.max_streams_per_task,
                kit_name=config.name,
                engines=config.engines_per_task,
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
                inference_ami_version=config.sagemaker_inference_ami_version,
                initial_instance_count=config.min_replicas,
                # Weights load and warm-up share the ECS health-check grace; the CUDA image pull comes on top.
                container_startup_timeout=Duration.seconds(min(3600, config.health_check_grace_s + 600)),
                # None when the VPC had its own runtime endpoint: the invoke policy then asks for the VPC.
                runtime_vpc_endpoint=self.vpc_endpoints.runtime_endpoint,
                max_stream_seconds=config.max_stream_seconds,
                # An instance cannot start more streams a minute than its admission limit if each lasts
                # a second or more: above that, requests are failing fast or piling up.
                max_invocations_per_instance_minute=60.0 * config.max_streams_per_task,
            ),
        )
        # Autoscaling, handed over around the endpoint across an instance-type change. `sagemaker_autoscaling`
        # =false removes it (the endpoint keeps its count: RetainAllVariantProperties), e.g. for a manual change.
        self.scaling = (
            None
            if not config.sagemaker_autoscaling
            else SageMakerScaling(
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
                    instance_type=config.sagemaker_instance_type,
                    logs_key=logs_key,
                    log_retention_days=config.log_retention_days,
                ),
            )
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
                # A Marketplace package emits none of the kit's server metrics: only SageMaker's own.
                server_metric_alarms=not config.model_package_arn,
            ),
        )
        self.observability.add_alarms(endpoint.alarms.values())
        self.observability.dashboard.add_widgets(*endpoint.dashboard_widgets())
        # One real stream a minute through the runtime VPC endpoint (TTFA, stalls, success, two alarms),
        # started once the endpoint is in service. /invocations cannot list voices: the canary speaks with
        # the bundled model's first English voice, or with `marketplace_canary_voice` for a package (none
        # when that is empty: a package's voices are unknown).
        voice = (
            config.marketplace_canary_voice if config.model_package_arn else model_voice(BUNDLED_WEIGHTS_DIR)
        )
        self.canary = (
            None
            if not voice
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
                    route_security_group=self.vpc_endpoints.runtime_group,
                    voice=voice,
                    ttfa_alarm_ms=config.alarm_ttfb_p99_ms,
                    alarm_topic=self.observability.topic,
                    kit_name=config.name,
                ),
            )
        )
        if self.canary is not None:
            self.canary.rule.node.add_dependency(self.endpoint.endpoint)
            # Named clients replace the VPC range on the runtime endpoint: admit the canary by its group.
            self.vpc_endpoints.admit(self.canary.security_group, "The kit's latency canary")

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
