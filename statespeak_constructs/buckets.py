"""S3 buckets of the kit: one access-log bucket and the versioned weights bucket (seeded on deploy)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from aws_cdk import Acknowledgment, Aws, Duration, RemovalPolicy, Stack, Token, Validations, region_info
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from model_server.contract import BUNDLED_WEIGHTS_VERSION, WEIGHTS_S3_PREFIX
from statespeak_constructs.logs import LogsKey

ALB_LOG_PREFIX = "alb"  # key prefix of the ALB's access logs in the access-log bucket

# Construct id of aws-cdk-lib's singleton bucket-notifications function (a fixed UUID in aws-s3).
_NOTIFICATIONS_HANDLER_ID = "BucketNotificationsHandler050a0587b7544547bf325f094a3db834"


class AccessLogBucket(Construct):
    """Target of S3 server access logs and ALB access logs.

    SSE-S3, not KMS: neither S3 server access logging nor ALB access logging can write to a bucket whose
    default encryption is a customer-managed KMS key.
    """

    def __init__(self, scope: Construct, construct_id: str, *, retention_days: int) -> None:
        """`retention_days`: log objects expire after this many days."""
        super().__init__(scope, construct_id)
        self.bucket = s3.Bucket(
            self,
            "Bucket",
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            versioned=True,
            # No ACLs: S3 and ALB log delivery are granted by bucket policy (cdk.json sets the CDK flag
            # @aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy so CDK writes the policy, not an ACL).
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            lifecycle_rules=[
                s3.LifecycleRule(
                    expiration=Duration.days(retention_days),
                    noncurrent_version_expiration=Duration.days(1),
                )
            ],
            removal_policy=RemovalPolicy.RETAIN,
        )
        Validations.of(self.bucket).acknowledge(
            Acknowledgment(
                id="AwsSolutions-S1",
                reason="This is the access-log bucket itself; logging it into itself would loop, and a "
                "second log bucket would only move the same finding one level down.",
            )
        )
        self._grant_alb_log_delivery()

    def _grant_alb_log_delivery(self) -> None:
        """ALB log delivery may write under ALB_LOG_PREFIX, whichever routes are deployed. Granted here, not by
        the ALB (`log_access_logs` adds its grant to this bucket's policy from the ECS stack): a route switch
        that removes the ECS route from the app would then strip the grant while the ECS stack, which `cdk
        deploy` never deletes, still logs into the bucket, and would update the foundation it must leave alone.
        The principal is the region's ELB account where it has one, else the log-delivery service (as CDK)."""
        region = Stack.of(self).region
        account = None if Token.is_unresolved(region) else region_info.RegionInfo.get(region).elbv2_account
        principal = (
            iam.AccountPrincipal(account)
            if account
            else iam.ServicePrincipal("logdelivery.elasticloadbalancing.amazonaws.com")
        )
        self.bucket.add_to_resource_policy(
            iam.PolicyStatement(
                actions=["s3:PutObject"],
                principals=[principal],
                resources=[self.bucket.arn_for_objects(f"{ALB_LOG_PREFIX}/AWSLogs/{Aws.ACCOUNT_ID}/*")],
            )
        )


@dataclass(frozen=True)
class WeightsBucketProps:
    """Where model weights live and which bundled model is seeded."""

    access_logs: s3.IBucket
    """Bucket receiving this bucket's server access logs."""
    bundled_weights_dir: Path
    """Model dir shipped in the repo (config.json, model.safetensors, voices), uploaded on every deploy
    to weights/bundled/ so a fresh deployment serves without a manual upload."""
    logs_key: LogsKey
    """Key of the seeding function's log group."""
    log_retention_days: int
    """Retention of the seeding function's log group."""
    event_bridge: bool = False
    """Send object events to EventBridge (the EFS weights sync listens to them)."""


class WeightsBucket(Construct):
    """Versioned, encrypted, TLS-only bucket holding `weights/<version>/` model directories.

    Encrypted with SSE-S3: FSx for Lustre data repository associations and SageMaker read it without a
    key policy dance, and the data is model weights, not customer data.
    """

    def __init__(self, scope: Construct, construct_id: str, props: WeightsBucketProps) -> None:
        super().__init__(scope, construct_id)
        if not (props.bundled_weights_dir / "config.json").is_file():
            raise FileNotFoundError(
                f"bundled weights not found: {props.bundled_weights_dir}/config.json is missing; "
                "the kit seeds the weights bucket from this model dir (train it with `make train`)"
            )
        self.prefix = WEIGHTS_S3_PREFIX
        self.bundled_hash = _dir_hash(props.bundled_weights_dir)
        self.bucket = s3.Bucket(
            self,
            "Bucket",
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            versioned=True,  # an overwritten weights file can be restored
            server_access_logs_bucket=props.access_logs,
            server_access_logs_prefix="s3/weights/",
            event_bridge_enabled=props.event_bridge,
            lifecycle_rules=[s3.LifecycleRule(noncurrent_version_expiration=Duration.days(30))],
            removal_policy=RemovalPolicy.RETAIN,
        )
        # The kit owns weights/bundled/ only (prune there is safe); operators upload other versions.
        self.seed = s3deploy.BucketDeployment(
            self,
            "SeedBundled",
            sources=[s3deploy.Source.asset(str(props.bundled_weights_dir))],
            destination_bucket=self.bucket,
            destination_key_prefix=self.version_prefix(BUNDLED_WEIGHTS_VERSION),
            prune=True,
            retain_on_delete=True,
            memory_limit=512,
            log_group=props.logs_key.log_group(self, "SeedLogs", props.log_retention_days),
        )

        self._acknowledge_seed_findings()
        if props.event_bridge:
            self._acknowledge_notifications_findings()

    def _acknowledge_notifications_findings(self) -> None:
        """CDK turns EventBridge delivery on through a singleton custom-resource function."""
        handler = Stack.of(self).node.try_find_child(_NOTIFICATIONS_HANDLER_ID)
        if handler is None:
            raise RuntimeError(f"aws-cdk-lib no longer creates {_NOTIFICATIONS_HANDLER_ID}; update this code")
        Validations.of(handler).acknowledge(
            Acknowledgment(
                id="AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                "AWSLambdaBasicExecutionRole]",
                reason="CDK's bucket-notifications function (switches EventBridge delivery on for the "
                "weights bucket): the AWS basic execution policy only lets it write its own log streams.",
            )
        )

    def _acknowledge_seed_findings(self) -> None:
        """cdk-nag findings of CDK's BucketDeployment function, each acknowledged with what it grants."""
        stack = Stack.of(self)
        bucket_id = stack.resolve(stack.get_logical_id(self.bucket.node.default_child))
        staging = f"arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-{stack.region}/*"
        function = self.seed.handler_role.node.scope  # the singleton function owning the role
        reasons = {
            "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
            "AWSLambdaBasicExecutionRole]": "CDK's BucketDeployment function: the AWS basic execution policy "
            "only lets it write its own CloudWatch log streams.",
            "AwsSolutions-IAM5[Action::s3:GetObject*]": "BucketDeployment reads the staged bundled-weights "
            "zip from the CDK asset bucket and existing objects under weights/bundled/ (sync compare).",
            "AwsSolutions-IAM5[Action::s3:GetBucket*]": "BucketDeployment's aws s3 sync reads the bucket "
            "location/metadata of the asset and weights buckets; no write at bucket level.",
            "AwsSolutions-IAM5[Action::s3:List*]": "aws s3 sync lists the destination prefix to prune files "
            "that vanished from the bundled model; limited to the two buckets.",
            "AwsSolutions-IAM5[Action::s3:DeleteObject*]": "prune=True deletes stale files under "
            "weights/bundled/, the one prefix the kit owns; operator-uploaded versions are untouched.",
            "AwsSolutions-IAM5[Action::s3:Abort*]": "Aborts its own multipart uploads of large weight files "
            "when the copy fails midway, so no orphaned parts accrue cost.",
            f"AwsSolutions-IAM5[Resource::<{bucket_id}.Arn>/*]": "Object-level grant on the weights bucket "
            "generated by BucketDeployment; writes only land under weights/bundled/ (destination prefix).",
            f"AwsSolutions-IAM5[Resource::{staging}]": "Read access to the CDK bootstrap asset bucket, where "
            "cdk deploy staged the bundled-weights zip (object names are content hashes, unknown at synth).",
            "AwsSolutions-L1": "The BucketDeployment function's runtime is pinned by aws-cdk-lib (it ships "
            "the AWS CLI layer for that runtime); it is upgraded by upgrading aws-cdk-lib, not here.",
        }
        Validations.of(function).acknowledge(*(Acknowledgment(id=k, reason=v) for k, v in reasons.items()))

    def version_prefix(self, version: str) -> str:
        """Key prefix of one weights version, e.g. `weights/bundled/`."""
        return f"{self.prefix}{version}/"


def _dir_hash(root: Path) -> str:
    """SHA-256 over the relative paths and bytes of every file under `root`: changes iff the model does."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()
