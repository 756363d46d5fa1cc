"""Latency canary: a Lambda function in the VPC that speaks one stream a minute against the live route.

It measures what a caller sees (time to first audio, playback stalls behind a jitter buffer, success)
and publishes it as CloudWatch metrics under the names of model_server/contract.py, which this
construct hands to the function as environment variables (the asset folder lambda/canary/ cannot
import the server package). Two alarms watch the result: failures, and slow first audio.

Network: the function runs in the isolated data subnets with its own security group that has no
ingress and egress only to the security group of what it calls, on that port: the internal ALB's
listener, or HTTPS to the interface endpoints (SageMaker runtime; Secrets Manager for an API key). Its
metrics travel in its own log stream as Embedded Metric Format, so it needs neither a monitoring endpoint
nor cloudwatch:PutMetricData.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from aws_cdk import Acknowledgment, Duration, Stack, Token, Validations
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_sns as sns
from constructs import Construct

from model_server import contract
from statespeak_constructs.assets import lambda_asset
from statespeak_constructs.logs import LogsKey

ASSET_DIR = lambda_asset("canary")
RUNTIME = lambda_.Runtime.PYTHON_3_14  # latest Python runtime (cdk-nag L1); includes boto3
_ROUTES = (contract.DEPLOYMENT_ECS, contract.DEPLOYMENT_SAGEMAKER)


def model_voice(model_dir: Path, language: str = "en") -> str:
    """The first voice of `language` (else the first voice) in a model directory's config.json: the voice
    for a canary on the SageMaker route, which cannot list voices; the canary's sentence is English.
    Read at synth time, so a missing or unreadable file is an error."""
    config = Path(model_dir) / "config.json"
    try:
        voices = json.loads(config.read_text()).get("voices") or []
        return str(next((v["id"] for v in voices if v.get("language") == language), voices[0]["id"]))
    except (OSError, ValueError, LookupError, TypeError, AttributeError) as exc:
        raise ValueError(f"no voice id readable from {config}: {exc}") from None


@dataclass(frozen=True)
class CanaryProps:
    """Where the canary points and how it reports. Exactly one of `target_url` / `endpoint_name`."""

    vpc: ec2.IVpc
    service: str
    """The route's name, DEPLOYMENT_ECS or DEPLOYMENT_SAGEMAKER: the `Service` metric dimension."""
    route_security_group: ec2.ISecurityGroup
    """The security group of what the canary calls: the ALB's (ECS route) or the interface endpoints'
    (SageMaker route). The canary's only egress goes there; that group must admit it (the kit's admit
    the VPC range)."""
    logs_key: LogsKey
    log_retention_days: int
    kit_name: str
    """The kit instance's name: published as the Kit dimension next to Service (contract.METRIC_DIMENSIONS),
    so two copies of the kit in one account keep apart canary metrics and alarms."""
    voice: str | None = None
    """Voice id the canary speaks with. ALB route: default None, the first English voice GET /voices lists (so
    any served model works). SageMaker route: required, /invocations cannot list voices."""
    target_url: str | None = None
    """ECS route: the ALB's base URL as clients use it, e.g. http://internal-...elb.amazonaws.com."""
    target_port: int | None = None
    """ECS route: the ALB listener port the security group may reach (default: from the URL scheme)."""
    tls_check_hostname: bool = True
    """ECS route over https: False when the URL is the ALB's AWS DNS name, which the listener's
    certificate (for the service's own domain) does not name; the certificate chain is still verified."""
    endpoint_name: str | None = None
    """SageMaker route: the endpoint's name (a plain string, so the IAM resource ARN can be exact)."""
    subnets: ec2.SubnetSelection | None = None
    """Default: the VPC's isolated subnets."""
    ttfa_alarm_ms: float = 500.0
    """Slow-first-audio alarm threshold, milliseconds."""
    alarm_topic: sns.ITopic | None = None
    """Where both alarms notify (alarm and OK); none: alarms only show on dashboards."""
    api_key_secret: secretsmanager.ISecret | None = None
    """ECS route with API keys on: the secret holding the keys (comma-separated; the canary uses the first)."""
    endpoints_security_group: ec2.ISecurityGroup | None = None
    """With `api_key_secret`: the interface endpoints' group, for HTTPS to the Secrets Manager endpoint."""
    jitter_ms: int = 100
    timeout_s: int = 20
    """Bound on one canary stream; the function's own timeout is this plus a margin."""

    def __post_init__(self) -> None:
        if self.service not in _ROUTES:
            raise ValueError(f"service={self.service!r}: must be one of {_ROUTES}")
        if (self.target_url is None) == (self.endpoint_name is None):
            raise ValueError("give exactly one of target_url (ECS route) and endpoint_name (SageMaker route)")
        if self.endpoint_name is not None and not self.voice:
            raise ValueError("the SageMaker route needs a voice: /invocations cannot list the model's voices")
        if self.endpoint_name is not None and Token.is_unresolved(self.endpoint_name):
            raise ValueError(
                "endpoint_name must be a plain string so the invoke permission names one endpoint"
            )
        if self.target_url is not None and not Token.is_unresolved(self.target_url):
            if not self.target_url.startswith(("http://", "https://")):
                raise ValueError(f"target_url={self.target_url!r}: must start with http:// or https://")
        if self.api_key_secret is not None and (
            self.endpoint_name is not None or self.endpoints_security_group is None
        ):
            raise ValueError(
                "api_key_secret is for the ECS route and needs endpoints_security_group (Secrets Manager endpoint)"
            )
        if not 1 <= self.timeout_s <= 40:
            # The function's timeout (this + 15 s) stays under the one-minute schedule: runs never overlap.
            raise ValueError(f"timeout_s={self.timeout_s}: must be within 1..40 seconds")
        if self.ttfa_alarm_ms <= 0:
            raise ValueError(f"ttfa_alarm_ms={self.ttfa_alarm_ms}: must be > 0")


class LatencyCanary(Construct):
    """Scheduled canary function, its schedule and its alarms.

    Attributes: `function`, `role`, `security_group`, `rule`, `failure_alarm`, `slow_alarm`,
    `success_metric`, `ttfa_metric`, `stalls_metric`.
    """

    def __init__(self, scope: Construct, construct_id: str, props: CanaryProps) -> None:
        super().__init__(scope, construct_id)
        stack = Stack.of(self)
        sagemaker_route = props.endpoint_name is not None

        self.security_group = ec2.SecurityGroup(
            self,
            "Sg",
            vpc=props.vpc,
            allow_all_outbound=False,
            description=f"Statespeak latency canary ({props.service}): no ingress, egress to the route only",
        )
        if sagemaker_route:
            port, what = 443, "HTTPS to the SageMaker runtime interface endpoint"
        else:
            port = props.target_port or (443 if str(props.target_url).startswith("https://") else 80)
            what = "the internal ALB's listener"
        self.security_group.add_egress_rule(
            ec2.Peer.security_group_id(props.route_security_group.security_group_id), ec2.Port.tcp(port), what
        )
        if props.endpoints_security_group is not None and props.api_key_secret is not None:
            self.security_group.add_egress_rule(
                ec2.Peer.security_group_id(props.endpoints_security_group.security_group_id),
                ec2.Port.tcp(443),
                "HTTPS to the Secrets Manager interface endpoint (API key)",
            )

        log_group = props.logs_key.log_group(self, "Logs", props.log_retention_days)
        statements = [
            iam.PolicyStatement(
                actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                resources=[log_group.log_group_arn, f"{log_group.log_group_arn}:*"],
            ),
            # ENI management for a function in a VPC; EC2 does not scope these by resource.
            iam.PolicyStatement(
                actions=[
                    "ec2:CreateNetworkInterface",
                    "ec2:DescribeNetworkInterfaces",
                    "ec2:DescribeSubnets",
                    "ec2:DeleteNetworkInterface",
                    "ec2:AssignPrivateIpAddresses",
                    "ec2:UnassignPrivateIpAddresses",
                ],
                resources=["*"],
            ),
        ]
        env = {
            "CANARY_SERVICE": props.service,
            "CANARY_JITTER_MS": str(props.jitter_ms),
            "CANARY_TIMEOUT_S": str(props.timeout_s),
            # The shared names: from contract.py at synth time, never spelled in the asset.
            "METRICS_NAMESPACE": contract.METRICS_NAMESPACE,
            "METRIC_DIMENSION_SERVICE": contract.DIM_SERVICE,
            "METRIC_CANARY_TTFA": contract.METRIC_CANARY_TTFB,
            "METRIC_CANARY_STALLS": contract.METRIC_CANARY_STALLS,
            "METRIC_CANARY_SUCCESS": contract.METRIC_CANARY_SUCCESS,
            # The kit instance: the Kit dimension next to Service (contract.METRIC_DIMENSIONS).
            "CANARY_KIT": props.kit_name,
            "METRIC_DIMENSION_KIT": contract.DIM_KIT,
        }
        if props.voice:
            env["CANARY_VOICE"] = props.voice
        if not props.tls_check_hostname:
            env["CANARY_TLS_CHECK_HOSTNAME"] = "false"
        if sagemaker_route:
            endpoint_arn = stack.format_arn(
                service="sagemaker", resource="endpoint", resource_name=str(props.endpoint_name).lower()
            )
            statements.append(
                # InvokeEndpointWithResponseStream is authorized by the IAM action sagemaker:InvokeEndpoint
                # (there is no separate action for the streaming call).
                iam.PolicyStatement(actions=["sagemaker:InvokeEndpoint"], resources=[endpoint_arn])
            )
            env["CANARY_ENDPOINT_NAME"] = str(props.endpoint_name)
        else:
            env["CANARY_TARGET_URL"] = str(props.target_url)
        if props.api_key_secret is not None:
            statements.append(
                iam.PolicyStatement(
                    actions=["secretsmanager:GetSecretValue"], resources=[props.api_key_secret.secret_arn]
                )
            )
            if props.api_key_secret.encryption_key is not None:
                statements.append(
                    iam.PolicyStatement(
                        actions=["kms:Decrypt"], resources=[props.api_key_secret.encryption_key.key_arn]
                    )
                )
            env["CANARY_API_KEY_SECRET_ARN"] = props.api_key_secret.secret_arn

        self.role = iam.Role(
            self,
            "Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"Statespeak latency canary ({props.service}): logs, VPC ENIs, invoke its one route",
        )
        # Grants as the role's own AWS::IAM::Policy (created and deleted with it, attached to nothing
        # else); the function depends on the role's whole subtree, so the grants exist before it starts.
        for statement in statements:
            self.role.add_to_policy(statement)

        self.function = lambda_.Function(
            self,
            "Function",
            runtime=RUNTIME,
            handler="handler.handler",
            # Only the handler: bytecode caches left by local test runs would change the asset hash.
            code=lambda_.Code.from_asset(str(ASSET_DIR), exclude=["__pycache__", "*.pyc"]),
            description=f"Statespeak latency canary: one stream a minute against the {props.service} route",
            role=self.role,
            vpc=props.vpc,
            vpc_subnets=props.subnets or ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED),
            security_groups=[self.security_group],
            timeout=Duration.seconds(props.timeout_s + 15),
            memory_size=256,
            # No reserved concurrency (a new account has 10 executions in all and Lambda refuses a
            # reservation that leaves fewer than 10 unreserved): the function's timeout stays under the
            # one-minute schedule, so runs never overlap and cannot pile up on a slow route.
            # A failed run is a measurement already published; retrying it would double-count the minute.
            retry_attempts=0,
            log_group=log_group,
            environment=env,
        )

        # NIST 800-53 R5 / HIPAA want a dead-letter queue on async functions. A failed canary run is
        # itself the measurement (CanarySuccess 0, or no datapoint, which the failure alarm counts as a
        # failure); its event is the schedule's empty tick, and retries are off on purpose.
        for pack in ("NIST.800.53.R5", "HIPAA.Security"):
            Validations.of(self.function).acknowledge(
                Acknowledgment(
                    id=f"{pack}-LambdaConcurrency",
                    reason=(
                        "Latency canary: no reserved concurrency, because a new account has 10 concurrent "
                        "executions in all and Lambda refuses a reservation that leaves fewer than 10 "
                        "unreserved; runs cannot pile up, the function's timeout is below the one-minute "
                        "schedule."
                    ),
                )
            )
            Validations.of(self.function).acknowledge(
                Acknowledgment(
                    id=f"{pack}-LambdaDLQ",
                    reason=(
                        "Latency canary: a failed run is already recorded as CanarySuccess=0 or as a missing "
                        "datapoint the failure alarm treats as breaching; the invoking event is an empty "
                        "schedule tick with nothing to replay, and retries are disabled on purpose."
                    ),
                )
            )

        self.rule = events.Rule(
            self,
            "Schedule",
            description=f"Statespeak latency canary ({props.service}), once a minute",
            schedule=events.Schedule.rate(Duration.minutes(1)),
            targets=[targets.LambdaFunction(self.function, retry_attempts=0)],
        )

        dims = contract.metric_dimensions(props.service, props.kit_name)
        one_minute = Duration.minutes(1)
        self.success_metric = cloudwatch.Metric(
            namespace=contract.METRICS_NAMESPACE,
            metric_name=contract.METRIC_CANARY_SUCCESS,
            dimensions_map=dims,
            statistic="Average",
            period=one_minute,
        )
        self.ttfa_metric = cloudwatch.Metric(
            namespace=contract.METRICS_NAMESPACE,
            metric_name=contract.METRIC_CANARY_TTFB,
            dimensions_map=dims,
            statistic="Maximum",
            period=one_minute,
        )
        self.stalls_metric = cloudwatch.Metric(
            namespace=contract.METRICS_NAMESPACE,
            metric_name=contract.METRIC_CANARY_STALLS,
            dimensions_map=dims,
            statistic="Sum",
            period=one_minute,
        )
        # 3 failed minutes out of 5; a minute with no canary data counts as failed, since a canary that
        # cannot even report (timeout, ENI trouble) means callers are not being served either.
        self.failure_alarm = cloudwatch.Alarm(
            self,
            "FailureAlarm",
            alarm_description=f"Statespeak canary: streams on the {props.service} route are failing",
            metric=self.success_metric,
            threshold=1,
            comparison_operator=cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
            evaluation_periods=5,
            datapoints_to_alarm=3,
            treat_missing_data=cloudwatch.TreatMissingData.BREACHING,
        )
        # One sample a minute, so Maximum is that sample; missing minutes belong to the failure alarm.
        self.slow_alarm = cloudwatch.Alarm(
            self,
            "SlowFirstAudioAlarm",
            alarm_description=(
                f"Statespeak canary: first audio on the {props.service} route slower than {props.ttfa_alarm_ms:.0f} ms"
            ),
            metric=self.ttfa_metric,
            threshold=props.ttfa_alarm_ms,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=5,
            datapoints_to_alarm=3,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        if props.alarm_topic is not None:
            for alarm in (self.failure_alarm, self.slow_alarm):
                alarm.add_alarm_action(cw_actions.SnsAction(props.alarm_topic))
                alarm.add_ok_action(cw_actions.SnsAction(props.alarm_topic))

        # cdk-nag 3 names each wildcard finding on its own: acknowledge exactly those two.
        log_group_id = stack.get_logical_id(log_group.node.default_child)
        for finding, why in (
            (
                "Resource::*",
                "the VPC ENI actions (ec2:CreateNetworkInterface, DescribeNetworkInterfaces, ...) that EC2 "
                "does not scope by resource, the same grant as AWSLambdaVPCAccessExecutionRole",
            ),
            (
                f"Resource::<{log_group_id}.Arn>:*",
                "the log streams of the canary's own log group, which Lambda names per instance",
            ),
        ):
            Validations.of(self.role).acknowledge(
                Acknowledgment(id=f"AwsSolutions-IAM5[{finding}]", reason=f"Wildcard for {why}.")
            )
