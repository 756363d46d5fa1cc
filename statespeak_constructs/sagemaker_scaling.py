"""Instance autoscaling of one SageMaker endpoint variant on concurrent requests (high resolution).

A speech stream holds its instance for the whole utterance, so the number of requests in flight per
instance is the load signal (the ECS service tracks the server's ActiveStreams for the same reason).
SageMaker publishes it every 10 s as ConcurrentRequestsPerModel; Application Auto Scaling tracks it
through the predefined metric type below, which reacts in well under a minute.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aws_cdk import Duration
from aws_cdk import aws_applicationautoscaling as appscaling
from aws_cdk import aws_sagemaker as sagemaker
from constructs import Construct

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
