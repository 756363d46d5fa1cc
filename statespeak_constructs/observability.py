"""Dashboard and alarms for one serving route (ECS or SageMaker), from the server's EMF metrics.

The server publishes its metrics under contract.METRICS_NAMESPACE with the dimensions Service (its route)
and Kit (the kit instance's name), so one construct serves both stacks: the caller names the route and hands over the
platform metrics only it knows (load balancer or endpoint errors, GPU utilization, task count).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from model_server.contract import (
    METRIC_ACTIVE_STREAMS,
    METRIC_REAL_TIME_FACTOR,
    METRIC_REJECTED_STREAMS,
    METRIC_STREAM_ERRORS,
    METRIC_TIME_TO_FIRST_AUDIO,
    METRICS_NAMESPACE,
    metric_dimensions,
)


def kit_metric(
    name: str, statistic: str, route: str, kit_name: str, label: str | None = None
) -> cloudwatch.Metric:
    """A metric the kit's server emits (EMF), per minute, for one route of one kit instance (the dimensions
    contract.metric_dimensions gives)."""
    return cloudwatch.Metric(
        namespace=METRICS_NAMESPACE,
        metric_name=name,
        dimensions_map=metric_dimensions(route, kit_name),
        statistic=statistic,
        period=Duration.minutes(1),
        label=label,
    )


def sustained_alarm(
    scope: Construct,
    construct_id: str,
    metric: cloudwatch.IMetric,
    threshold: float,
    minutes: int,
    description: str,
) -> cloudwatch.Alarm:
    """An alarm when `metric` is at or above `threshold` in each of `minutes` consecutive periods; a period
    without data is not a breach (no traffic is not an incident: the canary's own alarm watches for that)."""
    return cloudwatch.Alarm(
        scope,
        construct_id,
        metric=metric,
        threshold=threshold,
        evaluation_periods=minutes,
        datapoints_to_alarm=minutes,
        comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        alarm_description=description,
    )


@dataclass(frozen=True)
class ObservabilityProps:
    """What to watch and whom to tell."""

    route: str
    """Value of the Service dimension the server emits (contract.DEPLOYMENT_ECS or DEPLOYMENT_SAGEMAKER)."""
    dashboard_name: str
    """CloudWatch dashboard name (unique per account and region: include the kit instance's name)."""
    kit_name: str
    """Value of the Kit dimension the server emits (STATESPEAK_KIT): this kit instance's metrics only."""
    ttfb_p99_threshold_ms: float
    """Alarm when the p99 time to first audio stays above this."""
    server_errors: cloudwatch.IMetric
    """5xx count of the entry (ALB HTTPCode_Target_5XX_Count or SageMaker Invocation5XXErrors)."""
    unhealthy_hosts: cloudwatch.IMetric | None = None
    """Unhealthy target count (ALB) if the route has one."""
    gpu_utilization: cloudwatch.IMetric | None = None
    """GPU utilization in percent."""
    capacity: list[cloudwatch.IMetric] = field(default_factory=list)
    """Task/instance counts to graph (running, desired, pending)."""
    alarm_email: str = ""
    """Subscribe this address to a new, encrypted alarm topic."""
    alarm_topic_arn: str = ""
    """Send alarms to this existing topic instead."""
    server_metric_alarms: bool = True
    """Alarm on the kit server's own metrics (TTFB, rejections); off for a container that emits none."""
    rejections_threshold: float = 1.0
    """Alarm when admission control refuses this many streams per minute, 5 minutes running."""


class ServiceObservability(Construct):
    """Dashboard (TTFB p50/p99, active streams, rejections, errors, GPU, capacity) and four alarms."""

    def __init__(self, scope: Construct, construct_id: str, props: ObservabilityProps) -> None:
        super().__init__(scope, construct_id)

        def server_metric(name: str, statistic: str, label: str) -> cloudwatch.Metric:
            return kit_metric(name, statistic, props.route, props.kit_name, label)

        self.ttfb_p50 = server_metric(METRIC_TIME_TO_FIRST_AUDIO, "p50", "TTFB p50 (ms)")
        self.ttfb_p99 = server_metric(METRIC_TIME_TO_FIRST_AUDIO, "p99", "TTFB p99 (ms)")
        self.active_streams = server_metric(METRIC_ACTIVE_STREAMS, "Sum", "Active streams (all tasks)")
        self.active_per_task = server_metric(METRIC_ACTIVE_STREAMS, "Average", "Active streams per task")
        self.rejections = server_metric(METRIC_REJECTED_STREAMS, "Sum", "Rejected streams")
        self.stream_errors = server_metric(METRIC_STREAM_ERRORS, "Sum", "Stream errors")
        self.rtf_p99 = server_metric(METRIC_REAL_TIME_FACTOR, "p99", "Real-time factor p99")

        self.topic: sns.ITopic | None = None
        if props.alarm_topic_arn:
            self.topic = sns.Topic.from_topic_arn(self, "AlarmTopic", props.alarm_topic_arn)
        elif props.alarm_email:
            key = kms.Key(
                self,
                "AlarmTopicKey",
                enable_key_rotation=True,
                description="Encrypts the Statespeak alarm topic",
            )
            # CloudWatch alarms publish to the topic, so they must be able to use its key.
            key.add_to_resource_policy(
                iam.PolicyStatement(
                    principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                    actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                    resources=["*"],
                )
            )
            topic = sns.Topic(
                self, "AlarmTopic", master_key=key, enforce_ssl=True, display_name="Statespeak alarms"
            )
            topic.add_subscription(subscriptions.EmailSubscription(props.alarm_email))
            self.topic = topic

        self.alarms: dict[str, cloudwatch.Alarm] = {}
        if props.server_metric_alarms:
            self._alarm(
                "TtfbP99",
                self.ttfb_p99,
                props.ttfb_p99_threshold_ms,
                5,
                f"p99 time to first audio above {props.ttfb_p99_threshold_ms:g} ms for 5 minutes",
            )
        self._alarm("ServerErrors", props.server_errors, 1, 3, "5xx responses in 3 consecutive minutes")
        if props.server_metric_alarms:
            self._alarm(
                "Rejections",
                self.rejections,
                props.rejections_threshold,
                5,
                "admission control refusing streams for 5 minutes: capacity is short",
            )
        if props.unhealthy_hosts is not None:
            self._alarm("UnhealthyHosts", props.unhealthy_hosts, 1, 3, "a target failing its readiness check")

        self.dashboard = cloudwatch.Dashboard(self, "Dashboard", dashboard_name=props.dashboard_name)
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Time to first audio (ms)", left=[self.ttfb_p50, self.ttfb_p99], width=12
            ),
            cloudwatch.GraphWidget(
                title="Active streams", left=[self.active_streams], right=[self.active_per_task], width=12
            ),
        )
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Rejections and errors",
                left=[self.rejections, self.stream_errors, props.server_errors],
                width=12,
            ),
            cloudwatch.GraphWidget(title="Real-time factor p99", left=[self.rtf_p99], width=12),
        )
        lower = []
        if props.gpu_utilization is not None:
            lower.append(
                cloudwatch.GraphWidget(title="GPU utilization (%)", left=[props.gpu_utilization], width=12)
            )
        if props.capacity:
            lower.append(cloudwatch.GraphWidget(title="Capacity", left=list(props.capacity), width=12))
        if lower:
            self.dashboard.add_widgets(*lower)
        self.dashboard.add_widgets(
            cloudwatch.AlarmStatusWidget(title="Alarms", alarms=list(self.alarms.values()), width=24)
        )

    def add_alarms(self, alarms: Iterable[cloudwatch.Alarm]) -> None:
        """Route alarms made elsewhere (e.g. on the endpoint's own metrics) to the topic and the dashboard."""
        alarms = list(alarms)
        for alarm in alarms:
            if self.topic is not None:
                alarm.add_alarm_action(cw_actions.SnsAction(self.topic))
                alarm.add_ok_action(cw_actions.SnsAction(self.topic))
        if alarms:
            self.dashboard.add_widgets(
                cloudwatch.AlarmStatusWidget(title="Endpoint alarms", alarms=alarms, width=24)
            )

    def _alarm(
        self, name: str, metric: cloudwatch.IMetric, threshold: float, minutes: int, what: str
    ) -> None:
        alarm = sustained_alarm(self, name, metric, threshold, minutes, f"Statespeak: {what}")
        if self.topic is not None:
            alarm.add_alarm_action(cw_actions.SnsAction(self.topic))
            alarm.add_ok_action(cw_actions.SnsAction(self.topic))
        self.alarms[name] = alarm
