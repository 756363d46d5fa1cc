"""Hands the SageMaker variant's autoscaling over across an instance-type change, which SageMaker refuses
on a variant registered with Application Auto Scaling ("must be deregistered ... before they can ...
have their instance type updated").

Two custom resources share this function, both with the scaling settings and the instance type as
properties (so they update exactly when the instance type or a setting changes):
- Phase `before` (the endpoint depends on it). On an update that changes the instance type: when the
  endpoint still runs another type, deregister the variant, so the endpoint update may proceed; when it
  already runs the requested type (a rollback of a failed change), register it again.
- Phase `after` (depends on the endpoint and on the stack's scalable target and policy). On an update:
  register the variant and put the target-tracking policy again, exactly as the stack declares them.
Creation and deletion do nothing: the stack's AWS::ApplicationAutoScaling resources handle those.

Invoked through the CDK Provider framework: return the resource's data, raise to fail.
"""

from __future__ import annotations

import logging
from typing import Any

LOG = logging.getLogger()
LOG.setLevel(logging.INFO)

NAMESPACE = "sagemaker"
DIMENSION = "sagemaker:variant:DesiredInstanceCount"


def current_instance_type(sagemaker: Any, endpoint: str, variant: str) -> str | None:
    """The instance type the endpoint's variant runs now (None when the endpoint does not exist)."""
    try:
        config_name = sagemaker.describe_endpoint(EndpointName=endpoint)["EndpointConfigName"]
    except sagemaker.exceptions.ClientError as exc:
        if "Could not find endpoint" in str(exc):
            return None
        raise
    config = sagemaker.describe_endpoint_config(EndpointConfigName=config_name)
    return next(v.get("InstanceType") for v in config["ProductionVariants"] if v["VariantName"] == variant)


def register(autoscaling: Any, props: dict[str, Any]) -> None:
    resource_id = f"endpoint/{props['EndpointName']}/variant/{props['VariantName']}"
    autoscaling.register_scalable_target(
        ServiceNamespace=NAMESPACE,
        ResourceId=resource_id,
        ScalableDimension=DIMENSION,
        MinCapacity=int(props["MinCapacity"]),
        MaxCapacity=int(props["MaxCapacity"]),
    )
    autoscaling.put_scaling_policy(
        PolicyName=props["PolicyName"],
        ServiceNamespace=NAMESPACE,
        ResourceId=resource_id,
        ScalableDimension=DIMENSION,
        PolicyType="TargetTrackingScaling",
        TargetTrackingScalingPolicyConfiguration={
            "TargetValue": float(props["TargetValue"]),
            "PredefinedMetricSpecification": {"PredefinedMetricType": props["MetricType"]},
            "ScaleInCooldown": int(props["ScaleInCooldown"]),
            "ScaleOutCooldown": int(props["ScaleOutCooldown"]),
        },
    )
    LOG.info("registered %s and put policy %s", resource_id, props["PolicyName"])


def deregister(autoscaling: Any, props: dict[str, Any]) -> None:
    resource_id = f"endpoint/{props['EndpointName']}/variant/{props['VariantName']}"
    try:
        autoscaling.deregister_scalable_target(
            ServiceNamespace=NAMESPACE, ResourceId=resource_id, ScalableDimension=DIMENSION
        )
        LOG.info("deregistered %s", resource_id)
    except autoscaling.exceptions.ObjectNotFoundException:
        LOG.info("%s was not registered", resource_id)


def on_event(event: dict[str, Any], autoscaling: Any, sagemaker: Any) -> dict[str, Any]:
    props = event["ResourceProperties"]
    physical_id = f"scaling-{props['Phase']}-{props['EndpointName']}"
    if event["RequestType"] != "Update":
        return {"PhysicalResourceId": physical_id}
    if props["Phase"] == "after":
        register(autoscaling, props)
    elif props["InstanceType"] != event.get("OldResourceProperties", {}).get("InstanceType"):
        running = current_instance_type(sagemaker, props["EndpointName"], props["VariantName"])
        if running is None:
            LOG.info("endpoint %s does not exist: nothing to hand over", props["EndpointName"])
        elif running != props["InstanceType"]:
            deregister(autoscaling, props)  # the endpoint update that follows changes the type
        else:
            register(autoscaling, props)  # already there (a rollback): restore autoscaling
    return {"PhysicalResourceId": physical_id}


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    import boto3  # in the Lambda runtime

    return on_event(event, boto3.client("application-autoscaling"), boto3.client("sagemaker"))
