"""lambda/capacity_release: the custom resource that lets the GPU group be deleted despite scale-in
protection, against botocore's Stubber (the real Auto Scaling client, no AWS calls)."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from tests.support.lambdas import load_handler

handler = load_handler("capacity_release")

GROUP = "Statespeak-Ecs-GpuHostsASG-1A2B3C"


def _client():
    client = boto3.client(
        "autoscaling", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    return client, Stubber(client)


def _group(instances: list[tuple[str, bool]]) -> dict:
    return {
        "AutoScalingGroups": [
            {
                "AutoScalingGroupName": GROUP,
                "MinSize": 0,
                "MaxSize": 16,
                "DesiredCapacity": len(instances),
                "DefaultCooldown": 300,
                "AvailabilityZones": ["us-east-1a"],
                "HealthCheckType": "EC2",
                "CreatedTime": "2026-11-30T00:00:00Z",
                "Instances": [
                    {
                        "InstanceId": iid,
                        "AvailabilityZone": "us-east-1a",
                        "LifecycleState": "InService",
                        "HealthStatus": "Healthy",
                        "ProtectedFromScaleIn": protected,
                    }
                    for iid, protected in instances
                ],
            }
        ]
    }


def _event(kind: str) -> dict:
    return {"RequestType": kind, "ResourceProperties": {"AutoScalingGroupName": GROUP}}


def test_delete_empties_the_group_and_lifts_protection_in_batches_of_50():
    client, stub = _client()
    instances = [(f"i-{n:017x}", n != 3) for n in range(60)]  # 59 protected, one not
    protected = [iid for iid, p in instances if p]
    stub.add_response("describe_auto_scaling_groups", _group(instances), {"AutoScalingGroupNames": [GROUP]})
    stub.add_response(
        "update_auto_scaling_group", {}, {"AutoScalingGroupName": GROUP, "MinSize": 0, "DesiredCapacity": 0}
    )
    for chunk in (protected[:50], protected[50:]):
        stub.add_response(
            "set_instance_protection",
            {},
            {"AutoScalingGroupName": GROUP, "InstanceIds": chunk, "ProtectedFromScaleIn": False},
        )
    with stub:
        result = handler.on_event(_event("Delete"), client)
    stub.assert_no_pending_responses()
    assert result == {"PhysicalResourceId": f"release-{GROUP}"}


def test_delete_of_a_group_already_gone_succeeds():
    client, stub = _client()
    stub.add_response(
        "describe_auto_scaling_groups", {"AutoScalingGroups": []}, {"AutoScalingGroupNames": [GROUP]}
    )
    with stub:
        assert handler.release(client, GROUP) == {"Unprotected": 0}
    stub.assert_no_pending_responses()


@pytest.mark.parametrize("kind", ["Create", "Update"])
def test_create_and_update_touch_nothing(kind):
    client, stub = _client()
    with stub:  # any call would raise: no responses are queued
        assert handler.on_event(_event(kind), client)["PhysicalResourceId"] == f"release-{GROUP}"


def test_an_api_error_fails_the_delete_so_cloudformation_reports_it():
    client, stub = _client()
    stub.add_client_error("describe_auto_scaling_groups", "AccessDenied", "not allowed", 403)
    with stub, pytest.raises(client.exceptions.ClientError):
        handler.on_event(_event("Delete"), client)
