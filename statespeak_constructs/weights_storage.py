"""Shared, read-only model weights for GPU tasks: FSx for Lustre or EFS, both fed from the weights bucket.

Both constructs expose the same two hooks the service uses:
- `host_setup_commands()`: shell lines for the GPU hosts' user data (FSx mounts there; EFS needs none);
- `allow_tasks(task_security_group)`: network access the tasks need (NFS for EFS; none for FSx);
- `attach(task_definition, container, version)`: the task volume and a read-only mount at
  contract.CONTAINER_MODEL_DIR holding exactly `weights/<version>/` of the bucket.
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import Acknowledgment, CustomResource, Duration, RemovalPolicy, Stack, Validations
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_ecs as ecs
from aws_cdk import aws_efs as efs
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_fsx as fsx
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from aws_cdk import custom_resources as cr
from constructs import Construct, IDependable

from model_server.contract import CONTAINER_MODEL_DIR
from statespeak_constructs.assets import lambda_asset
from statespeak_constructs.endpoint_policies import HOST_DNF_OPTIONS
from statespeak_constructs.logs import LogsKey

WEIGHTS_VOLUME = "weights"
FSX_HOST_MOUNT = "/mnt/fsx"  # where GPU hosts mount the Lustre file system
FSX_WEIGHTS_PATH = "/weights"  # file system path linked to s3://<bucket>/weights/
EFS_WEIGHTS_ROOT = "/weights"  # EFS directory holding one folder per version
EFS_POSIX_ID = "10001"  # the image's `statespeak` user owns the synced files; tasks only read (755)
SYNC_LAMBDA_DIR = lambda_asset("weights_sync")


@dataclass(frozen=True)
class FsxWeightsProps:
    """FSx for Lustre sizing and placement."""

    vpc: ec2.IVpc
    """VPC of the GPU hosts."""
    subnet: ec2.ISubnet
    """The GPU hosts' subnet: Lustre is single-AZ, so it sits next to the cluster placement group."""
    bucket: s3.IBucket
    """Weights bucket the file system is linked to."""
    bucket_prefix: str
    """Key prefix linked to FSX_WEIGHTS_PATH (contract.WEIGHTS_S3_PREFIX)."""
    storage_gib: int
    """1200 or a multiple of 2400 GiB."""
    throughput_per_tib: int
    """PERSISTENT_2 tier in MB/s per TiB."""
    seeded_after: IDependable | None = None
    """Something that uploads weights (the bundled-weights seed): the link is created after it, so its
    first metadata import already lists those files."""
    preload_version: str | None = None
    """Version folder each host asks Lustre to load from S3 right after mounting (`lfs hsm_restore`), so
    the first task does not wait on lazy loading; None: contents load on first read."""


class FsxWeights(Construct):
    """FSx for Lustre PERSISTENT_2 with a data repository association to the weights bucket.

    The association imports object metadata on creation and then follows the bucket (new, changed and
    deleted objects) automatically; file contents load lazily from S3 on first read and stay cached on
    the file system, so every GPU host reads a 1 GB checkpoint at Lustre speed after the first.
    """

    def __init__(self, scope: Construct, construct_id: str, props: FsxWeightsProps) -> None:
        super().__init__(scope, construct_id)
        self.file_system = fsx.LustreFileSystem(
            self,
            "FileSystem",
            vpc=props.vpc,
            vpc_subnet=props.subnet,
            storage_capacity_gib=props.storage_gib,
            lustre_configuration=fsx.LustreConfiguration(
                deployment_type=fsx.LustreDeploymentType.PERSISTENT_2,
                per_unit_storage_throughput=props.throughput_per_tib,
                data_compression_type=fsx.LustreDataCompressionType.LZ4,
            ),
            # The bucket is the source of truth; the file system is a cache of it.
            removal_policy=RemovalPolicy.DESTROY,
        )
        # Lustre servers talk to each other and to clients on 988 and 1018-1023.
        self._lustre_ports = [ec2.Port.tcp(988), ec2.Port.tcp_range(1018, 1023)]
        for port in self._lustre_ports:
            self.file_system.connections.allow_internally(port, "Lustre between file server nodes")
        self.association = fsx.CfnDataRepositoryAssociation(
            self,
            "BucketLink",
            file_system_id=self.file_system.file_system_id,
            file_system_path=FSX_WEIGHTS_PATH,
            data_repository_path=f"s3://{props.bucket.bucket_name}/{props.bucket_prefix}",
            batch_import_meta_data_on_create=True,
            imported_file_chunk_size=1024,
            s3=fsx.CfnDataRepositoryAssociation.S3Property(
                auto_import_policy=fsx.CfnDataRepositoryAssociation.AutoImportPolicyProperty(
                    events=["NEW", "CHANGED", "DELETED"]
                )
            ),
        )
        if props.seeded_after is not None:
            self.association.node.add_dependency(props.seeded_after)
        self.ready: IDependable = self.association
        self._preload_version = props.preload_version

    def allow_hosts(self, clients: ec2.IConnectable) -> None:
        """Open the Lustre ports between the GPU hosts and the file system, both directions."""
        for port in self._lustre_ports:
            self.file_system.connections.allow_from(clients, port, "Lustre client to file system")
            self.file_system.connections.allow_to(clients, port, "Lustre file system to client callbacks")

    def allow_tasks(self, tasks: ec2.IConnectable) -> None:
        """Nothing: tasks read a host volume; only the hosts talk Lustre (see `allow_hosts`)."""
        del tasks

    def host_setup_commands(self) -> list[str]:
        """Install the Lustre client and mount the file system before the ECS agent starts tasks."""
        source = f"{self.file_system.dns_name}@tcp:/{self.file_system.mount_name}"
        return [
            # From the repository snapshot of the AMI's own release (AL2023 locks repositories to it; named
            # here so nothing else can move it): the client's kernel module matches the pinned kernel. The
            # hosts reach only AL2023's own repositories (the S3 gateway); a repository the AMI adds that
            # lives elsewhere must not fail the install (it is fatal: the host would shut down).
            f'dnf install -y {HOST_DNF_OPTIONS} --releasever="$(rpm -q --qf %{{VERSION}} system-release)" lustre-client',
            f"mkdir -p {FSX_HOST_MOUNT}",
            # The file system may still be settling when the first host boots: retry for ~5 minutes.
            f"for i in $(seq 1 30); do mount -t lustre -o relatime,flock {source} {FSX_HOST_MOUNT} && break; "
            "sleep 10; done",
            f"mountpoint -q {FSX_HOST_MOUNT}",
            f"echo '{source} {FSX_HOST_MOUNT} lustre defaults,relatime,flock,_netdev 0 0' >> /etc/fstab",
            *self._preload_commands(),
        ]

    def _preload_commands(self) -> list[str]:
        """Ask Lustre to restore the served version's file contents from S3 now (asynchronous; files
        already loaded are skipped). Not fatal: without it the contents still load on first read."""
        if not self._preload_version:
            return []
        folder = f"{FSX_HOST_MOUNT}{FSX_WEIGHTS_PATH}/{self._preload_version}"
        return [
            f"(find {folder} -type f -print0 | xargs -0 -r lfs hsm_restore) "
            "|| echo 'statespeak: weights preload not started' >&2"
        ]

    def attach(
        self, task_definition: ecs.TaskDefinition, container: ecs.ContainerDefinition, version: str
    ) -> None:
        """Host volume of the version folder, mounted read-only at CONTAINER_MODEL_DIR."""
        task_definition.add_volume(
            name=WEIGHTS_VOLUME, host=ecs.Host(source_path=f"{FSX_HOST_MOUNT}{FSX_WEIGHTS_PATH}/{version}")
        )
        container.add_mount_points(
            ecs.MountPoint(source_volume=WEIGHTS_VOLUME, container_path=CONTAINER_MODEL_DIR, read_only=True)
        )


@dataclass(frozen=True)
class EfsWeightsProps:
    """EFS placement and the sync function's inputs."""

    vpc: ec2.IVpc
    """VPC of the GPU hosts and the sync function."""
    subnets: ec2.SubnetSelection
    """Isolated subnets for mount targets and the sync function."""
    bucket: s3.IBucket
    """Weights bucket the sync function copies from (must have EventBridge notifications on)."""
    bucket_prefix: str
    """Key prefix holding the version folders (contract.WEIGHTS_S3_PREFIX)."""
    version: str
    """Version synced at deploy time, before the service starts tasks on it."""
    logs_key: LogsKey
    """Key of the function log groups."""
    log_retention_days: int
    """Retention of the function log groups."""
    seeded_after: IDependable | None = None
    """Something that uploads weights (the bundled-weights seed); the deploy-time sync runs after it."""
    content_hash: str = ""
    """Changes when the bundled weights change, so a redeploy re-syncs them."""


class EfsWeights(Construct):
    """Encrypted EFS (TLS + IAM auth through access points) filled from S3 by the weights_sync Lambda.

    The Lambda writes through a read-write access point rooted at EFS_WEIGHTS_ROOT; tasks mount a separate
    access point rooted at the one version folder they serve, read-only, with IAM authorization.
    """

    def __init__(self, scope: Construct, construct_id: str, props: EfsWeightsProps) -> None:
        super().__init__(scope, construct_id)
        self.file_system = efs.FileSystem(
            self,
            "FileSystem",
            vpc=props.vpc,
            vpc_subnets=props.subnets,
            encrypted=True,
            performance_mode=efs.PerformanceMode.GENERAL_PURPOSE,
            throughput_mode=efs.ThroughputMode.ELASTIC,
            removal_policy=RemovalPolicy.DESTROY,  # the bucket is the source of truth
        )
        # No anonymous or plaintext mounts: every client must use TLS and IAM (through an access point).
        self.file_system.add_to_resource_policy(
            iam.PolicyStatement(
                effect=iam.Effect.DENY,
                principals=[iam.AnyPrincipal()],
                actions=["*"],
                resources=["*"],  # in a resource policy '*' is this file system (its ARN would be a cycle)
                conditions={"Bool": {"aws:SecureTransport": "false"}},
            )
        )
        self.file_system.add_to_resource_policy(
            iam.PolicyStatement(
                effect=iam.Effect.DENY,
                principals=[iam.AnyPrincipal()],
                actions=[
                    "elasticfilesystem:ClientMount",
                    "elasticfilesystem:ClientWrite",
                    "elasticfilesystem:ClientRootAccess",
                ],
                resources=["*"],
                conditions={
                    "Bool": {"elasticfilesystem:AccessedViaMountTarget": "true"},
                    "Null": {"elasticfilesystem:AccessPointArn": "true"},
                },
            )
        )
        posix = efs.PosixUser(uid=EFS_POSIX_ID, gid=EFS_POSIX_ID)
        acl = efs.Acl(owner_uid=EFS_POSIX_ID, owner_gid=EFS_POSIX_ID, permissions="755")
        self.writer_access_point = self.file_system.add_access_point(
            "WriterAccessPoint", path=EFS_WEIGHTS_ROOT, posix_user=posix, create_acl=acl
        )
        self.reader_access_point = self.file_system.add_access_point(
            "ReaderAccessPoint", path=f"{EFS_WEIGHTS_ROOT}/{props.version}", posix_user=posix, create_acl=acl
        )

        mount_path = "/mnt/weights"
        self.sync_function = lambda_.Function(
            self,
            "SyncFunction",
            description="Copies weights/<version>/ from the weights bucket onto EFS",
            runtime=lambda_.Runtime.PYTHON_3_14,
            handler="handler.handler",
            code=lambda_.Code.from_asset(str(SYNC_LAMBDA_DIR), exclude=["__pycache__", "*.pyc"]),
            # Below the Provider framework's own 15 minutes: a sync that runs out of time must come back to
            # the framework as an error, which it answers FAILED; at 15 the framework was killed first and
            # CloudFormation waited an hour for a response that never came.
            timeout=Duration.minutes(14),
            memory_size=1024,
            # No reserved concurrency (new accounts have 10 executions in all): concurrent syncs of one
            # upload are safe, each file lands under its own temporary name and is renamed into place.
            vpc=props.vpc,
            vpc_subnets=props.subnets,
            filesystem=lambda_.FileSystem.from_efs_access_point(self.writer_access_point, mount_path),
            environment={
                "WEIGHTS_BUCKET": props.bucket.bucket_name,
                "WEIGHTS_PREFIX": props.bucket_prefix,
                "MOUNT_PATH": mount_path,
            },
            log_group=props.logs_key.log_group(self, "SyncLogs", props.log_retention_days),
        )
        # (The EFS client grants come with `filesystem=` above: ClientMount/ClientWrite via the writer point.)
        # Exactly list + get under weights/ (no s3:GetObject* / List* families).
        self.sync_function.add_to_role_policy(
            iam.PolicyStatement(
                actions=["s3:ListBucket"],
                resources=[props.bucket.bucket_arn],
                conditions={"StringLike": {"s3:prefix": [f"{props.bucket_prefix}*"]}},
            )
        )
        self.sync_function.add_to_role_policy(
            iam.PolicyStatement(
                actions=["s3:GetObject"],
                resources=[props.bucket.arn_for_objects(f"{props.bucket_prefix}*")],
            )
        )

        # Later uploads: every object created under weights/ re-syncs its version folder. Not deletions: S3
        # sends one event per deleted key, so removing a version folder deleted its EFS copy file by file
        # (the served version, or a rollback's, left half there); a deploy or manual sync mirrors deletions.
        events.Rule(
            self,
            "OnUpload",
            description="Re-sync a weights version on EFS when its objects change in the weights bucket",
            event_pattern=events.EventPattern(
                source=["aws.s3"],
                detail_type=["Object Created"],
                detail={
                    "bucket": {"name": [props.bucket.bucket_name]},
                    "object": {"key": [{"prefix": props.bucket_prefix}]},
                },
            ),
            targets=[targets.LambdaFunction(self.sync_function, retry_attempts=4)],
        )

        # Deploy time: sync the served version before the service starts tasks on it.
        provider = cr.Provider(
            self,
            "SyncProvider",
            on_event_handler=self.sync_function,
            log_group=props.logs_key.log_group(self, "ProviderLogs", props.log_retention_days),
        )
        self.initial_sync = CustomResource(
            self,
            "InitialSync",
            service_token=provider.service_token,
            resource_type="Custom::StatespeakWeightsSync",
            properties={"Version": props.version, "ContentHash": props.content_hash},
        )
        if props.seeded_after is not None:
            self.initial_sync.node.add_dependency(props.seeded_after)
        self.ready: IDependable = self.initial_sync
        self._acknowledge_findings(provider, props.bucket, props.bucket_prefix)

    def _acknowledge_findings(self, provider: cr.Provider, bucket: s3.IBucket, prefix: str) -> None:
        """cdk-nag findings of the sync function and of CDK's Provider framework, with their reasons."""
        stack = Stack.of(self)
        role = self.sync_function.role
        assert role is not None  # Function always creates one when none is passed
        bucket_arn = stack.resolve(bucket.bucket_arn)
        bucket_ref = _nag_reference(bucket_arn)
        Validations.of(role).acknowledge(
            Acknowledgment(
                id="AwsSolutions-IAM5[Resource::*]",
                reason="elasticfilesystem:ClientMount as granted by Lambda's EFS integration: Resource '*' "
                "with a condition that only the writer access point may be used.",
            ),
            Acknowledgment(
                id=f"AwsSolutions-IAM5[Resource::{bucket_ref}/{prefix}*]",
                reason="s3:GetObject on every object under weights/: the function copies whichever "
                "version folder was uploaded; no write, no other prefix.",
            ),
            Acknowledgment(
                id="AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                "AWSLambdaBasicExecutionRole]",
                reason="Sync function: the AWS basic execution policy only lets it write its own log streams.",
            ),
            Acknowledgment(
                id="AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                "AWSLambdaVPCAccessExecutionRole]",
                reason="The sync function runs in the isolated subnets to reach EFS; this AWS policy only "
                "grants the ENI create/describe/delete calls Lambda needs to attach to the VPC.",
            ),
        )
        function_id = stack.resolve(stack.get_logical_id(self.sync_function.node.default_child))
        Validations.of(provider).acknowledge(
            Acknowledgment(
                id="AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                "AWSLambdaBasicExecutionRole]",
                reason="CDK Provider framework function: the AWS basic execution policy only lets it write "
                "its own log streams.",
            ),
            Acknowledgment(
                id=f"AwsSolutions-IAM5[Resource::<{function_id}.Arn>:*]",
                reason="The Provider framework may invoke any version/alias of the one sync function "
                "(`<arn>:*`); it cannot invoke anything else.",
            ),
            Acknowledgment(
                id="AwsSolutions-L1",
                reason="The Provider framework's runtime is pinned by aws-cdk-lib and upgraded with it; the "
                "kit's own sync function uses the latest Python runtime.",
            ),
        )

    def allow_tasks(self, tasks: ec2.IConnectable) -> None:
        """NFS (2049) from the tasks to the mount targets: the ECS agent mounts EFS in the task's ENI."""
        self.file_system.connections.allow_default_port_from(tasks, "NFS from Statespeak tasks")

    def host_setup_commands(self) -> list[str]:
        """Nothing on the host: the ECS agent mounts EFS volumes for the task itself."""
        return []

    def attach(
        self, task_definition: ecs.TaskDefinition, container: ecs.ContainerDefinition, version: str
    ) -> None:
        """EFS volume through the version's access point, TLS + IAM, mounted read-only."""
        task_definition.add_volume(
            name=WEIGHTS_VOLUME,
            efs_volume_configuration=ecs.EfsVolumeConfiguration(
                file_system_id=self.file_system.file_system_id,
                transit_encryption="ENABLED",
                authorization_config=ecs.AuthorizationConfig(
                    access_point_id=self.reader_access_point.access_point_id, iam="ENABLED"
                ),
            ),
        )
        container.add_mount_points(
            ecs.MountPoint(source_volume=WEIGHTS_VOLUME, container_path=CONTAINER_MODEL_DIR, read_only=True)
        )
        # Read-only: ClientMount without ClientWrite, and only through the version's access point.
        task_definition.task_role.add_to_principal_policy(
            iam.PolicyStatement(
                actions=["elasticfilesystem:ClientMount"],
                resources=[self.file_system.file_system_arn],
                conditions={
                    "StringEquals": {
                        "elasticfilesystem:AccessPointArn": self.reader_access_point.access_point_arn
                    }
                },
            )
        )


def _nag_reference(resolved: object) -> str:
    """How cdk-nag prints a resolved ARN in finding ids: `<Logical.Arn>` or the cross-stack import name."""
    if isinstance(resolved, dict):
        if "Fn::GetAtt" in resolved:
            logical, attr = resolved["Fn::GetAtt"]
            return f"<{logical}.{attr}>"
        if "Fn::ImportValue" in resolved:
            return str(resolved["Fn::ImportValue"])
    return str(resolved)
