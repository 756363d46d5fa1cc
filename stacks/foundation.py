"""Pieces both serving routes share: the VPC, the weights bucket, the server image, the access-log bucket."""

from __future__ import annotations

from aws_cdk import CfnOutput, Stack, Token
from constructs import Construct

from stacks.config import REPO_ROOT, StatespeakConfig
from statespeak_constructs.buckets import AccessLogBucket, WeightsBucket, WeightsBucketProps
from statespeak_constructs.clients import ClientAccess
from statespeak_constructs.image import ServerImage, ServerImageProps
from statespeak_constructs.logs import LogsKey
from statespeak_constructs.network import ExistingVpc, NetworkProps, StatespeakNetwork
from statespeak_constructs.zones import zone_ids

BUNDLED_WEIGHTS_DIR = REPO_ROOT / "model_server" / "weights" / "default"


def existing_vpc(config: StatespeakConfig) -> ExistingVpc | None:
    """The VPC named by `vpc_id` and its subnets, or None: the kit creates its own."""
    if not config.byo_vpc:
        return None
    return ExistingVpc(
        vpc_id=config.vpc_id,
        availability_zones=config.zone_list,
        data_subnet_ids=config.data_subnet_list,
        data_route_table_ids=config.data_route_table_list,
        gpu_subnet_id=config.gpu_subnet_id,
        entry_subnet_ids=config.entry_subnet_list,
    )


def client_access(config: StatespeakConfig) -> ClientAccess:
    """Who may call the service (client_cidrs, client_security_group_ids; default: the VPC range): the ECS
    route's internal ALB and the SageMaker runtime endpoint the kit creates."""
    return ClientAccess(
        cidrs=tuple(config.client_cidr_list), security_group_ids=tuple(config.client_security_group_list)
    )


class FoundationStack(Stack):
    """Network, image and weights, deployed once and referenced by the ECS and SageMaker stacks.

    Attributes used by the service stacks: `network`, `image`, `weights` (bucket + layout),
    `access_logs` (bucket for ALB and S3 access logs).
    """

    def __init__(self, scope: Construct, construct_id: str, *, config: StatespeakConfig, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.logs_key = LogsKey(self, "LogsKey")
        self.network = StatespeakNetwork(
            self,
            "Network",
            NetworkProps(
                cidr=config.vpc_cidr,
                availability_zones=config.zone_list,
                public_entry=config.internet_facing,
                secrets_manager_endpoint=config.secrets_endpoint,
                logs_key=self.logs_key,
                log_retention_days=config.log_retention_days,
                # A new VPC's subnets by AZ ID, the GPU zone first, unless zone names were given (then GPU
                # hosts use the first). Your own VPC's subnets are where they are: not placed at all.
                zone_ids=[] if config.zone_list else zone_ids(config.region, config.gpu_zone_id, 2),
                marketplace_artifacts=bool(config.model_package_arn),
                existing_vpc=existing_vpc(config),
                existing_endpoints=config.existing_endpoint_set,
                existing_endpoints_security_group_id=config.existing_endpoints_security_group_id,
            ),
        )
        self.access_logs = AccessLogBucket(
            self, "AccessLogs", retention_days=max(config.log_retention_days, 30)
        )
        self.weights = WeightsBucket(
            self,
            "Weights",
            WeightsBucketProps(
                access_logs=self.access_logs.bucket,
                bundled_weights_dir=BUNDLED_WEIGHTS_DIR,
                logs_key=self.logs_key,
                log_retention_days=config.log_retention_days,
                event_bridge=config.weights_storage == "efs",  # not the route: see _export_shared_values
            ),
        )
        self.image = ServerImage(
            self,
            "Image",
            ServerImageProps(source=config.image_source, tag=config.image_tag, repo_root=REPO_ROOT),
        )
        # A named export: the ECS stack imports the ARN by this name, so the ARN's rendering in IAM findings
        # (and acknowledgements) is stable instead of an auto-generated export id.
        self.weights_bucket_arn_export = config.stack_name("WeightsBucketArn")
        self.export_value(self.weights.bucket.bucket_arn, name=self.weights_bucket_arn_export)
        self._export_shared_values()
        CfnOutput(
            self,
            "WeightsBucketName",
            value=self.weights.bucket.bucket_name,
            description="Upload model dirs to s3://<this>/weights/<version>/",
        )
        CfnOutput(self, "VpcId", value=self.network.vpc.vpc_id)
        if self.image.repository is not None:
            CfnOutput(
                self,
                "ImageRepositoryUri",
                value=self.image.repository.repository_uri,
                description=f"Push the server image here as :{config.image_tag}",
            )

    def _export_shared_values(self) -> None:
        """Export every value a service stack may import, whichever routes this deployment builds.

        `cdk deploy` never deletes a stack, and CloudFormation refuses to remove an export another stack
        still imports: were the exports to follow the `deployment` choice, switching from `both` to `ecs`
        would fail while the SageMaker stack is still up. Everything here (and the network itself) is
        therefore the same for ecs, sagemaker and both; `export_value` gives each value the name CDK's
        automatic cross-stack reference uses, so the service stacks import these very exports.
        """
        vpc = self.network.vpc
        values = [
            vpc.vpc_id,
            *(subnet.subnet_id for subnet in [*vpc.isolated_subnets, *vpc.public_subnets]),
            self.network.endpoint_security_group.security_group_id,
            self.weights.bucket.bucket_arn,
            self.weights.bucket.bucket_name,
            self.access_logs.bucket.bucket_name,
        ]
        if self.image.repository is not None:
            values += [self.image.repository.repository_arn, self.image.repository.repository_name]
        for value in values:
            if Token.is_unresolved(value):  # your own VPC's IDs are literals: nothing to export
                self.export_value(value)
