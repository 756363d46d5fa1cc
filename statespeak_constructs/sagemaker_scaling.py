"""Instance autoscaling of one SageMaker endpoint variant on concurrent requests (high resolution).

A speech stream holds its instance for the whole utterance, so the number of requests in flight per
instance is the load signal (the ECS service tracks the server's ActiveStreams for the same reason).
SageMaker publishes it every 10 s as ConcurrentRequestsPerModel; Application Auto Scaling tracks it
through the predefined metric type below, which reacts in well under a minute.

SageMaker refuses to change the instance type of a registered variant, and CloudFormation updates the
endpoint before the scalable target; two custom resources (lambda/scaling_handover/) hand autoscaling
over around the endpoint so that `-c sagemaker_instance_type=...` is one deploy: deregister before the
endpoint update, register again after it (or, on a rollback, as soon as the old type is back).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aws_cdk import Acknowledgment, ArnFormat, CustomResource, Duration, Stack, Validations
from aws_cdk import aws_applicationautoscaling as appscaling
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sagemaker as sagemaker
from constructs import Construct

from statespeak_constructs.custom_resource import CustomResourceFunctionProps, custom_resource_function
from statespeak_constructs.logs import LogsKey

CONCURRENCY_METRIC_TYPE = "SageMakerVariantConcurrentRequestsPerModelHighResolution"
SCALABLE_DIMENSION = "sagemaker:variant:DesiredInstanceCount"


@dataclass(frozen=True)
class SageMakerScalingProps:
    """Bounds and set point of the variant's instance count."""

    endpoint: sagemaker.CfnEndpoint
    """The endpoint whose variant scales (the target is registered after it exists)."""
    endpoint_name: str
    """Its name, as in the endpoint resource."""
    variant_name: str
    """The production variant to scale."""
    min_instances: int
    """Lower bound (2 keeps the service up through one instance failure)."""
    max_instances: int
    """Upper bound."""
    target_concurrency: int
    """Concurrent streams per instance that target tracking holds."""
    instance_type: str
    """The variant's instance type: a change hands autoscaling over around the endpoint update."""
    logs_key: LogsKey
    """Key of the handover function's log groups."""
    log_retention_days: int
    """Retention of those log groups."""
    scale_in_cooldown: Duration = field(default_factory=lambda: Duration.minutes(15))
    """Wait after a scale-in before the next one: long, as a new instance takes minutes to come up."""
    scale_out_cooldown: Duration = field(default_factory=lambda: Duration.minutes(1))
    """Wait after a scale-out before the next one."""

    def __post_init__(self) -> None:
        if not 1 <= self.min_instances <= self.max_instances:
            raise ValueError(
                f"instance bounds min={self.min_instances}, max={self.max_instances}: need 1 <= min <= max"
            )
        if self.target_concurrency < 1:
            raise ValueError(f"target_concurrency={self.target_concurrency} must be at least 1")


class SageMakerScaling(Construct):
    """Scalable target plus a target-tracking policy on the high-resolution concurrency metric.

    Built from the CloudFormation resources directly and without a RoleARN, so Application Auto
    Scaling uses its SageMaker service-linked role instead of a policy-less role the L2 would create.
    """

    def __init__(self, scope: Construct, construct_id: str, props: SageMakerScalingProps) -> None:
        super().__init__(scope, construct_id)
        self._endpoint_name = props.endpoint_name
        self.target = appscaling.CfnScalableTarget(
            self,
            "Target",
            service_namespace="sagemaker",
            resource_id=f"endpoint/{props.endpoint_name}/variant/{props.variant_name}",
            scalable_dimension=SCALABLE_DIMENSION,
            min_capacity=props.min_instances,
            max_capacity=props.max_instances,
        )
        self.target.add_resource_dependency(props.endpoint)  # the variant must exist to be registered
        self.policy = appscaling.CfnScalingPolicy(
            self,
            "ConcurrencyTracking",
            policy_name=f"{props.endpoint_name}-concurrency",
            policy_type="TargetTrackingScaling",
            scaling_target_id=self.target.ref,
            target_tracking_scaling_policy_configuration=(
                appscaling.CfnScalingPolicy.TargetTrackingScalingPolicyConfigurationProperty(
                    target_value=props.target_concurrency,
                    predefined_metric_specification=appscaling.CfnScalingPolicy.PredefinedMetricSpecificationProperty(
                        predefined_metric_type=CONCURRENCY_METRIC_TYPE
                    ),
                    scale_in_cooldown=int(props.scale_in_cooldown.to_seconds()),
                    scale_out_cooldown=int(props.scale_out_cooldown.to_seconds()),
                )
            ),
        )
        self._handover(props)

    def _handover(self, props: SageMakerScalingProps) -> None:
        """`before` (the endpoint depends on it) and `after` (after the endpoint, target and policy)."""
        stack = Stack.of(self)
        made = custom_resource_function(
            self,
            "Handover",
            CustomResourceFunctionProps(
                asset="scaling_handover",
                description="Statespeak: hands SageMaker autoscaling over across an instance-type change",
                purpose="SageMaker scaling handover",
                runs_when="around an update of the endpoint",
                calls="only the Application Auto Scaling and SageMaker control-plane APIs for the one endpoint",
                logs_key=props.logs_key,
                log_retention_days=props.log_retention_days,
            ),
        )
        function = made.function
        endpoint_arn = stack.format_arn(
            service="sagemaker", resource="endpoint", resource_name=props.endpoint_name.lower()
        )
        statements = [
            # Application Auto Scaling has no ARN for a target before it exists: its calls name '*'.
            iam.PolicyStatement(
                actions=[
                    "application-autoscaling:RegisterScalableTarget",
                    "application-autoscaling:DeregisterScalableTarget",
                    "application-autoscaling:PutScalingPolicy",
                    "application-autoscaling:DescribeScalableTargets",
                    "application-autoscaling:DescribeScalingPolicies",
                ],
                resources=["*"],
            ),
            # What Application Auto Scaling checks on the caller when it registers a SageMaker variant.
            iam.PolicyStatement(
                actions=["sagemaker:DescribeEndpoint", "sagemaker:UpdateEndpointWeightsAndCapacities"],
                resources=[endpoint_arn],
            ),
            iam.PolicyStatement(
                actions=["sagemaker:DescribeEndpointConfig"],
                resources=[
                    stack.format_arn(service="sagemaker", resource="endpoint-config", resource_name="*")
                ],
            ),
            # Target tracking creates and replaces its alarms with the caller's permissions.
            iam.PolicyStatement(
                actions=["cloudwatch:PutMetricAlarm", "cloudwatch:DeleteAlarms", "cloudwatch:DescribeAlarms"],
                resources=[
                    stack.format_arn(
                        service="cloudwatch",
                        resource="alarm",
                        resource_name=f"TargetTracking-endpoint/{props.endpoint_name}/*",
                        arn_format=ArnFormat.COLON_RESOURCE_NAME,
                    )
                ],
            ),
        ]
        for statement in statements:
            function.add_to_role_policy(statement)
        settings = {
            "EndpointName": props.endpoint_name,
            "VariantName": props.variant_name,
            "InstanceType": props.instance_type,
            "MinCapacity": props.min_instances,
            "MaxCapacity": props.max_instances,
            "TargetValue": props.target_concurrency,
            "MetricType": CONCURRENCY_METRIC_TYPE,
            "PolicyName": self.policy.policy_name,
            "ScaleInCooldown": int(props.scale_in_cooldown.to_seconds()),
            "ScaleOutCooldown": int(props.scale_out_cooldown.to_seconds()),
        }
        self.before = CustomResource(
            self,
            "HandoverBefore",
            service_token=made.provider.service_token,
            resource_type="Custom::StatespeakScalingHandover",
            properties={**settings, "Phase": "before"},
        )
        props.endpoint.node.add_dependency(self.before)
        self.after = CustomResource(
            self,
            "HandoverAfter",
            service_token=made.provider.service_token,
            resource_type="Custom::StatespeakScalingHandover",
            properties={**settings, "Phase": "after"},
        )
        self.after.node.add_dependency(props.endpoint, self.target, self.policy)
        self._acknowledge(function)

    def _acknowledge(self, function: lambda_.Function) -> None:
        """The wildcards of the handover function's own statements."""
        stack = Stack.of(self)
        assert function.role is not None
        Validations.of(function.role).acknowledge(
            Acknowledgment(
                id="AwsSolutions-IAM5[Resource::*]",
                reason="Application Auto Scaling register/deregister/put-policy/describe calls: a scalable "
                "target has no ARN the caller can name; the function only ever passes this endpoint's variant.",
            ),
            Acknowledgment(
                id="AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sagemaker:"
                f"{stack.region}:<AWS::AccountId>:endpoint-config/*]",
                reason="sagemaker:DescribeEndpointConfig (read only) of the config the endpoint runs, whose "
                "name CloudFormation generates.",
            ),
            Acknowledgment(
                id=f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cloudwatch:{stack.region}:"
                f"<AWS::AccountId>:alarm:TargetTracking-endpoint/{self._endpoint_name}/*]",
                reason="The alarms target tracking creates for this endpoint's policy, whose names Application "
                "Auto Scaling generates under this prefix.",
            ),
        )
