#!/usr/bin/env python3
"""Statespeak's constructs in your own CDK app: a streaming TTS endpoint added to a stack you already have.

`VoiceAgentStack` stands for your stack: it imports the VPC your voice agents run in (by ID, no lookup)
and holds the agents' role. The few lines marked "Statespeak" add a SageMaker real-time endpoint serving
the kit's image and weights in that VPC, its autoscaling on concurrent streams, a dashboard and alarms
under this kit instance's own metric dimension, and the invoke permission for the agents' role.

    pip install path/to/statespeak               # this repository: the statespeak-constructs package
    cdk synth --app "python examples/existing_vpc/app.py"

The IDs below are examples: put your VPC's. The VPC needs a SageMaker runtime interface endpoint
(callers reach the endpoint through it) and an S3 gateway endpoint (the instances load weights from S3).
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from constructs import Construct

from model_server import contract
from statespeak_constructs.image import ServerImage, ServerImageProps
from statespeak_constructs.logs import LogsKey
from statespeak_constructs.nag_rules import add_rule_packs
from statespeak_constructs.observability import ObservabilityProps, ServiceObservability
from statespeak_constructs.sagemaker_endpoint import KitModel, SageMakerEndpoint, SageMakerEndpointProps
from statespeak_constructs.sagemaker_scaling import SageMakerScaling, SageMakerScalingProps

KIT_NAME = "Agents"  # this copy of the kit: its metrics' Kit dimension, its endpoint's name
ENDPOINT_NAME = "agents-tts"
INSTANCE_TYPE = "ml.g6e.xlarge"


class VoiceAgentStack(cdk.Stack):
    """Your existing stack: the agents' VPC and role, and now a TTS endpoint next to them."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)
        vpc = ec2.Vpc.from_vpc_attributes(
            self,
            "AgentsVpc",
            vpc_id="vpc-0a1b2c3d4e5f60718",
            vpc_cidr_block="10.20.0.0/16",
            availability_zones=["us-east-1a", "us-east-1b"],
            isolated_subnet_ids=["subnet-0aaaaaaaaaaaaaaa1", "subnet-0bbbbbbbbbbbbbbb2"],
        )
        agents_role = iam.Role.from_role_name(self, "AgentsRole", "voice-agents", mutable=False)
        weights = s3.Bucket.from_bucket_name(self, "Weights", "agents-voice-weights")

        # Statespeak ---------------------------------------------------------------------------------
        image = ServerImage(self, "TtsImage", ServerImageProps(source="ecr", tag="v1"))
        logs_key = LogsKey(self, "TtsLogsKey")
        log_group = logs.LogGroup(
            self,
            "TtsLogs",
            log_group_name=f"/aws/sagemaker/Endpoints/{ENDPOINT_NAME}",  # where SageMaker writes
            encryption_key=logs_key.key,
            retention=logs.RetentionDays.ONE_MONTH,
        )
        tts = SageMakerEndpoint(
            self,
            "Tts",
            SageMakerEndpointProps(
                vpc=vpc,
                subnets=ec2.SubnetSelection(subnets=vpc.isolated_subnets),
                model=KitModel(
                    image=image,
                    weights_bucket=weights,
                    weights_prefix="weights/bundled/",
                    max_streams=8,
                    kit_name=KIT_NAME,
                ),
                endpoint_name=ENDPOINT_NAME,
                log_group=log_group,
                instance_type=INSTANCE_TYPE,
            ),
        )
        SageMakerScaling(
            self,
            "TtsScaling",
            SageMakerScalingProps(
                endpoint=tts.endpoint,
                endpoint_name=ENDPOINT_NAME,
                variant_name=tts.variant_name,
                min_instances=2,
                max_instances=6,
                target_concurrency=6,
                instance_type=INSTANCE_TYPE,  # a change hands autoscaling over around the endpoint update
                logs_key=logs_key,
                log_retention_days=30,
            ),
        )
        ServiceObservability(
            self,
            "TtsObservability",
            ObservabilityProps(
                route=contract.DEPLOYMENT_SAGEMAKER,
                dashboard_name=f"{KIT_NAME}-tts",
                kit_name=KIT_NAME,
                ttfb_p99_threshold_ms=500,
                server_errors=tts.metric("Invocation5XXErrors", "Sum", "Endpoint 5xx"),
            ),
        )
        agents_role.add_managed_policy(tts.invoke_policy)
        cdk.CfnOutput(self, "TtsTarget", value=f"sagemaker://{ENDPOINT_NAME}")


def build_app(outdir: str | None = None) -> cdk.App:
    app = cdk.App(outdir=outdir) if outdir else cdk.App()
    VoiceAgentStack(app, "VoiceAgents", env=cdk.Environment(region="us-east-1"))
    add_rule_packs(app)  # optional: the kit's compliance gate (cdk-nag packs) over your stack too
    return app


if __name__ == "__main__":
    build_app().synth()
