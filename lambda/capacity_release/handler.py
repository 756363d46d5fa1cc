"""Lets CloudFormation delete the GPU Auto Scaling group despite scale-in protection (aws-cdk issue 18179).

The ECS capacity provider's managed termination protection needs every new host protected from scale-in.
When the stack is deleted, or a failed first deploy rolls back, nothing lifts that protection any more:
CloudFormation's delete of the group waits on hosts it may not terminate, for hours. This function backs
a custom resource that depends on the group and that the ECS service depends on, so CloudFormation
deletes it after the service and before the capacity provider and the group. On Delete it sets the
group's minimum and desired capacity to 0 and lifts scale-in protection from every instance; on Create
and Update it does nothing.

Invoked through the CDK Provider framework: return the resource's data, raise to fail.
"""

from __future__ import annotations

import logging
from typing import Any

LOG = logging.getLogger()
LOG.setLevel(logging.INFO)

BATCH = 50  # SetInstanceProtection takes at most 50 instance ids per call


def release(autoscaling: Any, group_name: str) -> dict[str, Any]:
    """Empty `group_name` and lift scale-in protection from its instances. A group already gone is fine."""
    groups = autoscaling.describe_auto_scaling_groups(AutoScalingGroupNames=[group_name])["AutoScalingGroups"]
    if not groups:
        LOG.info("group %s no longer exists", group_name)
        return {"Unprotected": 0}
    autoscaling.update_auto_scaling_group(AutoScalingGroupName=group_name, MinSize=0, DesiredCapacity=0)
    protected = [i["InstanceId"] for i in groups[0].get("Instances", []) if i.get("ProtectedFromScaleIn")]
    for start in range(0, len(protected), BATCH):
        autoscaling.set_instance_protection(
            AutoScalingGroupName=group_name,
            InstanceIds=protected[start : start + BATCH],
            ProtectedFromScaleIn=False,
        )
    LOG.info("group %s: desired 0, protection lifted from %d instances", group_name, len(protected))
    return {"Unprotected": len(protected)}


def on_event(event: dict[str, Any], autoscaling: Any) -> dict[str, Any]:
    group_name = event["ResourceProperties"]["AutoScalingGroupName"]
    if event["RequestType"] == "Delete":
        release(autoscaling, group_name)
    return {"PhysicalResourceId": f"release-{group_name}"}


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    import boto3  # in the Lambda runtime

    return on_event(event, boto3.client("autoscaling"))
