"""lambda/scaling_handover: autoscaling handed over around a SageMaker instance-type change, against
botocore's Stubber (the real Application Auto Scaling and SageMaker clients, no AWS calls)."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from tests.support.lambdas import load_handler

handler = load_handler("scaling_handover")

RESOURCE_ID = "endpoint/statespeak-tts/variant/AllTraffic"
DIMENSION = "sagemaker:variant:DesiredInstanceCount"
SETTINGS = {
    "EndpointName": "statespeak-tts",
    "VariantName": "AllTraffic",
    "MinCapacity": "2",  # CloudFormation hands every property over as a string
    "MaxCapacity": "8",
    "TargetValue": "6",
    "MetricType": "SageMakerVariantConcurrentRequestsPerModelHighResolution",
    "PolicyName": "statespeak-tts-concurrency",
    "ScaleInCooldown": "900",
    "ScaleOutCooldown": "60",
}
OLD, NEW = "ml.g6e.xlarge", "ml.g6e.2xlarge"


def _clients():
    kw = {"region_name": "us-east-1", "aws_access_key_id": "x", "aws_secret_access_key": "x"}
    autoscaling, sagemaker = boto3.client("application-autoscaling", **kw), boto3.client("sagemaker", **kw)
    return autoscaling, Stubber(autoscaling), sagemaker, Stubber(sagemaker)


def _event(phase: str, new_type: str, old_type: str | None, kind: str = "Update") -> dict:
    event = {
        "RequestType": kind,
        "ResourceProperties": {**SETTINGS, "Phase": phase, "InstanceType": new_type},
    }
    if old_type is not None:
        event["OldResourceProperties"] = {**SETTINGS, "Phase": phase, "InstanceType": old_type}
    return event


def _running(stub: Stubber, instance_type: str) -> None:
    stub.add_response(
        "describe_endpoint",
        {
            "EndpointName": "statespeak-tts",
            "EndpointArn": "arn:aws:sagemaker:us-east-1:123456789012:endpoint/statespeak-tts",
            "EndpointConfigName": "EndpointConfig-abc",
            "EndpointStatus": "InService",
            "CreationTime": "2026-11-30T00:00:00Z",
            "LastModifiedTime": "2026-11-30T00:00:00Z",
        },
        {"EndpointName": "statespeak-tts"},
    )
    stub.add_response(
        "describe_endpoint_config",
        {
            "EndpointConfigName": "EndpointConfig-abc",
            "EndpointConfigArn": "arn:aws:sagemaker:us-east-1:123456789012:endpoint-config/endpointconfig-abc",
            "ProductionVariants": [
                {"VariantName": "AllTraffic", "ModelName": "m", "InstanceType": instance_type}
            ],
            "CreationTime": "2026-11-30T00:00:00Z",
        },
        {"EndpointConfigName": "EndpointConfig-abc"},
    )


def _registered(stub: Stubber) -> None:
    stub.add_response(
        "register_scalable_target",
        {},
        {
            "ServiceNamespace": "sagemaker",
            "ResourceId": RESOURCE_ID,
            "ScalableDimension": DIMENSION,
            "MinCapacity": 2,
            "MaxCapacity": 8,
        },
    )
    stub.add_response(
        "put_scaling_policy",
        {"PolicyARN": "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:x"},
        {
            "PolicyName": "statespeak-tts-concurrency",
            "ServiceNamespace": "sagemaker",
            "ResourceId": RESOURCE_ID,
            "ScalableDimension": DIMENSION,
            "PolicyType": "TargetTrackingScaling",
            "TargetTrackingScalingPolicyConfiguration": {
                "TargetValue": 6.0,
                "PredefinedMetricSpecification": {
                    "PredefinedMetricType": "SageMakerVariantConcurrentRequestsPerModelHighResolution"
                },
                "ScaleInCooldown": 900,
                "ScaleOutCooldown": 60,
            },
        },
    )


def _run(event: dict, expect) -> dict:
    autoscaling, aas, sagemaker, sm = _clients()
    expect(aas, sm)
    with aas, sm:
        result = handler.on_event(event, autoscaling, sagemaker)
    aas.assert_no_pending_responses()
    sm.assert_no_pending_responses()
    return result


def test_before_a_type_change_the_variant_is_deregistered():
    def expect(aas, sm):
        _running(sm, OLD)
        aas.add_response(
            "deregister_scalable_target",
            {},
            {"ServiceNamespace": "sagemaker", "ResourceId": RESOURCE_ID, "ScalableDimension": DIMENSION},
        )

    assert _run(_event("before", NEW, OLD), expect)["PhysicalResourceId"] == "scaling-before-statespeak-tts"


def test_before_a_type_change_a_variant_already_deregistered_is_fine():
    def expect(aas, sm):
        _running(sm, OLD)
        aas.add_client_error("deregister_scalable_target", "ObjectNotFoundException", "no such target", 400)

    _run(_event("before", NEW, OLD), expect)


def test_rollback_of_a_failed_change_registers_the_old_type_again():
    """CloudFormation rolls the endpoint back first, then this resource (new -> old type)."""

    def expect(aas, sm):
        _running(sm, OLD)
        _registered(aas)

    _run(_event("before", OLD, NEW), expect)


def test_after_the_endpoint_update_the_variant_is_registered_again():
    _run(_event("after", NEW, OLD), lambda aas, sm: _registered(aas))


@pytest.mark.parametrize("phase", ["before", "after"])
@pytest.mark.parametrize("kind", ["Create", "Delete"])
def test_create_and_delete_leave_it_to_the_stacks_own_resources(phase, kind):
    _run(_event(phase, OLD, None, kind), lambda aas, sm: None)


def test_before_an_update_without_a_type_change_touches_nothing():
    _run(_event("before", OLD, OLD), lambda aas, sm: None)


def test_before_with_the_endpoint_gone_touches_nothing():
    def expect(aas, sm):
        sm.add_client_error("describe_endpoint", "ValidationException", "Could not find endpoint x", 400)

    _run(_event("before", NEW, OLD), expect)
