"""The self-managed route: the server on a GPU ECS cluster behind an ALB, with shared weights."""

from __future__ import annotations

from aws_cdk import CfnOutput, Duration, Fn, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_elasticloadbalancingv2 as elbv2
from aws_cdk import aws_s3 as s3
from constructs import Construct

from model_server.contract import DEPLOYMENT_ECS
from stacks.config import StatespeakConfig
from stacks.foundation import FoundationStack, client_access
from statespeak_constructs.api_key import ApiKey
from statespeak_constructs.canary import CanaryProps, LatencyCanary
from statespeak_constructs.gpu_cluster import (
    GPU_CLUSTER_DIMENSION,
    GPU_METRICS_NAMESPACE,
    GPU_UTILIZATION_METRIC,
    GpuCluster,
    GpuClusterProps,
)
from statespeak_constructs.gpu_service import GpuTtsService, GpuTtsServiceProps
from statespeak_constructs.load_balancer import StreamingLoadBalancer, StreamingLoadBalancerProps
from statespeak_constructs.logs import LogsKey
from statespeak_constructs.observability import ObservabilityProps, ServiceObservability
from statespeak_constructs.weights_storage import EfsWeights, EfsWeightsProps, FsxWeights, FsxWeightsProps


class EcsServiceStack(Stack):
    """GPU cluster, weights file system, ALB, service with stream-aware scaling, dashboard and alarms."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: StatespeakConfig,
        foundation: FoundationStack,
        **kwargs,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.add_stack_dependency(foundation, reason="imports the weights bucket ARN by export name")
        network = foundation.network
        weights_bucket = foundation.weights
        bucket = s3.Bucket.from_bucket_arn(
            self, "WeightsBucket", Fn.import_value(foundation.weights_bucket_arn_export)
        )
        logs_key = LogsKey(self, "LogsKey")

        if config.weights_storage == "fsx":
            weights: FsxWeights | EfsWeights = FsxWeights(
                self,
                "Weights",
                FsxWeightsProps(
                    vpc=network.vpc,
                    subnet=network.gpu_subnet,
                    bucket=bucket,
                    bucket_prefix=weights_bucket.prefix,
                    storage_gib=config.fsx_storage_gib,
                    throughput_per_tib=config.fsx_throughput_per_tib,
                    seeded_after=weights_bucket.seed,
                    preload_version=config.weights_version,
                ),
            )
        else:
            weights = EfsWeights(
                self,
                "Weights",
                EfsWeightsProps(
                    vpc=network.vpc,
                    subnets=network.data_subnets,
                    bucket=bucket,
                    bucket_prefix=weights_bucket.prefix,
                    version=config.weights_version,
                    logs_key=logs_key,
                    log_retention_days=config.log_retention_days,
                    seeded_after=weights_bucket.seed,
                    content_hash=weights_bucket.bundled_hash,
                ),
            )

        gpu = GpuCluster(
            self,
            "Gpu",
            GpuClusterProps(
                vpc=network.vpc,
                subnet=network.gpu_subnet,
                instance_type=config.ecs_instance_type,
                # Room for a rolling deploy (200%) of the largest service, one GPU per task.
                max_instances=2 * config.max_replicas,
                ami_version=config.ecs_ami_version,
                logs_key=logs_key,
                log_retention_days=config.log_retention_days,
                placement_group=config.placement_group,
                host_setup_commands=weights.host_setup_commands(),
            ),
        )
        if isinstance(weights, FsxWeights):
            weights.allow_hosts(gpu.host_security_group)

        entry = StreamingLoadBalancer(
            self,
            "Entry",
            StreamingLoadBalancerProps(
                vpc=network.vpc,
                subnets=network.entry_subnets,
                internet_facing=config.internet_facing,
                certificate_arn=config.certificate_arn,
                idle_timeout_s=config.alb_idle_timeout_s,
                access_logs=foundation.access_logs.bucket,
                client_cidr="0.0.0.0/0" if config.internet_facing else config.vpc_cidr,
                clients=client_access(config),
                dns_name=config.dns_name,
                private_zone_id=config.private_zone_id,
                private_zone_name=config.private_zone_name,
            ),
        )
        self.api_key = (
            ApiKey(self, "ApiKey", description=f"{config.name} ECS route API key (STATESPEAK_API_KEYS)")
            if config.api_key_auth
            else None
        )
        service = GpuTtsService(
            self,
            "Service",
            GpuTtsServiceProps(
                cluster=gpu,
                subnets=network.gpu_subnets,
                image=foundation.image,
                weights=weights,
                weights_version=config.weights_version,
                load_balancer=entry,
                logs_key=logs_key,
                log_retention_days=config.log_retention_days,
                min_tasks=config.min_replicas,
                max_tasks=config.max_replicas,
                target_streams_per_task=config.target_streams_per_task,
                max_streams_per_task=config.max_streams_per_task,
                engines_per_task=config.engines_per_task,
                stop_timeout_s=config.container_stop_timeout_s,
                drain_timeout_s=config.drain_timeout_s,
                health_check_grace_s=config.health_check_grace_s,
                deregistration_delay_s=config.max_stream_seconds,
                scale_in_cooldown_s=config.scale_in_cooldown_s,
                scale_out_cooldown_s=config.scale_out_cooldown_s,
                api_key_secret=self.api_key.secret if self.api_key else None,
                accept_query_api_keys=not config.internet_facing,
                kit_name=config.name,
            ),
        )

        minute = Duration.minutes(1)
        cluster_name = gpu.cluster.cluster_name
        service_name = service.service.service_name
        insights = {"ClusterName": cluster_name, "ServiceName": service_name}
        self.observability = ServiceObservability(
            self,
            "Observability",
            ObservabilityProps(
                route=DEPLOYMENT_ECS,
                dashboard_name=config.stack_name("ecs"),
                kit_name=config.name,
                ttfb_p99_threshold_ms=config.alarm_ttfb_p99_ms,
                server_errors=entry.load_balancer.metrics.http_code_target(
                    code=elbv2.HttpCodeTarget.TARGET_5XX_COUNT,
                    period=minute,
                    statistic="Sum",
                    label="ALB target 5xx",
                ),
                unhealthy_hosts=service.target_group.metrics.unhealthy_host_count(
                    period=minute, statistic="Maximum", label="Unhealthy targets"
                ),
                gpu_utilization=cloudwatch.Metric(
                    namespace=GPU_METRICS_NAMESPACE,
                    metric_name=GPU_UTILIZATION_METRIC,
                    dimensions_map={GPU_CLUSTER_DIMENSION: cluster_name},
                    statistic="Average",
                    period=minute,
                    label="GPU utilization (hosts)",
                ),
                capacity=[
                    cloudwatch.Metric(
                        namespace="ECS/ContainerInsights",
                        metric_name=name,
                        dimensions_map=insights,
                        statistic="Average",
                        period=minute,
                        label=label,
                    )
                    for name, label in (
                        ("RunningTaskCount", "Running tasks"),
                        ("DesiredTaskCount", "Desired"),
                        ("PendingTaskCount", "Pending"),
                    )
                ],
                alarm_email=config.alarm_email,
                alarm_topic_arn=config.alarm_topic_arn,
            ),
        )
        # One real stream a minute through the internal ALB (TTFA, stalls, success, two alarms). An
        # internet-facing ALB has only public addresses, which the isolated subnets cannot reach.
        self.canary = (
            None
            if config.internet_facing
            else LatencyCanary(
                self,
                "Canary",
                CanaryProps(
                    vpc=network.vpc,
                    subnets=network.data_subnets,
                    service=DEPLOYMENT_ECS,
                    logs_key=logs_key,
                    log_retention_days=config.log_retention_days,
                    route_security_group=entry.security_group,
                    target_url=entry.url,
                    target_port=entry.port,
                    # The AWS DNS name is not on the certificate; a private name is (dns_name).
                    tls_check_hostname=bool(entry.dns_name) or not entry.tls,
                    ttfa_alarm_ms=config.alarm_ttfb_p99_ms,
                    alarm_topic=self.observability.topic,
                    api_key_secret=self.api_key.secret if self.api_key else None,
                    endpoints_security_group=network.endpoint_group("secretsmanager")
                    if self.api_key
                    else None,
                    kit_name=config.name,
                ),
            )
        )
        # Deleted before the capacity release, which then lets the group's hosts go (tear-down, rollback).
        service.service.node.add_dependency(gpu.capacity_release)
        if self.canary is not None:
            self.canary.rule.node.add_dependency(service.service)  # first canary once the service is steady
            if config.client_cidrs or config.client_security_group_ids:
                entry.admit(self.canary.security_group, "The kit's latency canary")  # named clients only
        self.gpu = gpu
        self.service = service
        self.entry = entry
        self.weights = weights
        CfnOutput(
            self, "Url", value=entry.url, description="Base URL of the TTS API (inside the VPC unless public)"
        )
        CfnOutput(self, "ClusterName", value=cluster_name)
        CfnOutput(self, "ServiceName", value=service_name)
        if self.api_key is not None:
            CfnOutput(
                self,
                "ApiKeySecretArn",
                value=self.api_key.secret.secret_arn,
                description="aws secretsmanager get-secret-value --secret-id <this>: the API key",
            )
        if isinstance(weights, EfsWeights):
            CfnOutput(
                self,
                "WeightsSyncFunction",
                value=weights.sync_function.function_name,
                description='Invoke with {"version": "<folder>"} to re-sync a weights version',
            )
