"""ECS cluster on GPU instances: GPU-optimized AL2023 AMI, cluster placement group, managed capacity."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from aws_cdk import Acknowledgment, ArnFormat, CustomResource, Duration, Stack, Validations
from aws_cdk import aws_autoscaling as autoscaling
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_ecs as ecs
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from constructs import Construct

from statespeak_constructs.custom_resource import CustomResourceFunctionProps, custom_resource_function
from statespeak_constructs.endpoint_policies import HOST_DNF_OPTIONS
from statespeak_constructs.logs import LogsKey

# Host GPU metrics (nvidia-smi through the CloudWatch agent): ECS Container Insights reports GPU
# reservation, not utilization, so the hosts publish it themselves under this namespace and dimension.
GPU_METRICS_NAMESPACE = "Statespeak/Hosts"
GPU_UTILIZATION_METRIC = "nvidia_smi_utilization_gpu"
GPU_MEMORY_METRIC = "nvidia_smi_utilization_memory"
GPU_CLUSTER_DIMENSION = "ClusterName"


def ecs_gpu_ami_parameter(ami_version: str) -> str:
    """The public SSM parameter of one ECS-optimized AL2023 GPU AMI release (e.g. `2023.0.20261113`): it
    names the same image forever, unlike the `recommended` parameter, which moves with every release."""
    name = f"al2023-ami-ecs-gpu-hvm-{ami_version}-kernel-6.1-x86_64-ebs"
    return f"/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/{name}/image_id"


@dataclass(frozen=True)
class GpuClusterProps:
    """Shape of the GPU fleet."""

    vpc: ec2.IVpc
    """VPC of the hosts."""
    subnet: ec2.ISubnet
    """One subnet: a cluster placement group lives in one AZ (low-latency, same-rack hosts)."""
    instance_type: str
    """GPU instance type, e.g. g6.xlarge."""
    max_instances: int
    """Ceiling of the Auto Scaling group (room for a rolling deploy at 200% of the largest service)."""
    ami_version: str
    """ECS-optimized AL2023 GPU AMI release the hosts boot (pinned: the Lustre client must match its
    kernel); see `ecs_gpu_ami_parameter`."""
    logs_key: LogsKey
    """Key of the capacity-release function's log groups."""
    log_retention_days: int
    """Retention of those log groups."""
    root_volume_gib: int = 100
    """Encrypted gp3 root volume: the CUDA image and its layers live here."""
    placement_group: bool = True
    """Launch the hosts into a cluster placement group (one rack: lowest latency between hosts and FSx)."""
    host_setup_commands: list[str] = field(default_factory=list)
    """Extra user-data lines run before the ECS agent starts (e.g. the FSx for Lustre mount)."""


class GpuCluster(Construct):
    """ECS cluster (Container Insights) whose only capacity is a managed-scaling GPU Auto Scaling group.

    ECS managed scaling adds instances when tasks cannot be placed and removes empty ones; managed
    termination protection and managed draining keep scale-in from killing an instance that still
    runs a task (and so its streams).
    """

    def __init__(self, scope: Construct, construct_id: str, props: GpuClusterProps) -> None:
        super().__init__(scope, construct_id)
        self.cluster = ecs.Cluster(
            self, "Cluster", vpc=props.vpc, container_insights_v2=ecs.ContainerInsights.ENHANCED
        )
        self.host_security_group = ec2.SecurityGroup(
            self,
            "HostSg",
            vpc=props.vpc,
            description="Statespeak GPU hosts: inbound only Lustre callbacks from FSx; no internet route outbound",
            allow_all_outbound=True,
        )
        self.instance_role = iam.Role(
            self,
            "InstanceRole",
            assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
            description="Statespeak GPU hosts: ECS agent (granted by the cluster) and GPU metrics",
        )
        self.instance_role.add_to_policy(
            iam.PolicyStatement(
                actions=["cloudwatch:PutMetricData"],
                resources=["*"],  # PutMetricData has no resource type; the condition scopes it instead
                conditions={"StringEquals": {"cloudwatch:namespace": GPU_METRICS_NAMESPACE}},
            )
        )

        user_data = ec2.UserData.for_linux()
        user_data.add_commands(
            "set -euxo pipefail",
            # A host whose setup fails (Lustre client, mount) never joins the cluster, yet it would stay
            # billed and scale-in protected: it powers off instead, which the launch template turns into a
            # termination, and the group replaces it.
            "trap 'echo \"statespeak: host setup failed, shutting down\" >&2; shutdown -h now' ERR",
            "echo ECS_ENABLE_GPU_SUPPORT=true >> /etc/ecs/ecs.config",
            # Let the task's own stopTimeout (stream drain) apply rather than the agent's 30 s default.
            "echo ECS_CONTAINER_STOP_TIMEOUT=120s >> /etc/ecs/ecs.config",
            # awsvpc tasks would otherwise reach the instance metadata service (and the host's role).
            "echo ECS_AWSVPC_BLOCK_IMDS=true >> /etc/ecs/ecs.config",
            # Fatal on failure: a host without its weights mount never joins the cluster (CDK appends
            # ECS_CLUSTER after these lines), so no task is ever placed on it.
            *props.host_setup_commands,
            *self._gpu_metrics_commands(),
        )
        self.placement_group = (
            ec2.PlacementGroup(self, "PlacementGroup", strategy=ec2.PlacementGroupStrategy.CLUSTER)
            if props.placement_group
            else None
        )
        self.launch_template = ec2.LaunchTemplate(
            self,
            "LaunchTemplate",
            instance_type=ec2.InstanceType(props.instance_type),
            # Resolved at deploy time from the release's own public parameter: the same image on every
            # deploy until `ecs_ami_version` changes (docs/ecs.md: updating the host AMI).
            machine_image=ec2.MachineImage.from_ssm_parameter(
                ecs_gpu_ami_parameter(props.ami_version), os=ec2.OperatingSystemType.LINUX
            ),
            instance_initiated_shutdown_behavior=ec2.InstanceInitiatedShutdownBehavior.TERMINATE,
            user_data=user_data,
            role=self.instance_role,
            security_group=self.host_security_group,
            require_imdsv2=True,
            http_put_response_hop_limit=1,  # containers cannot reach the host's credentials through IMDS
            placement_group=self.placement_group,
            block_devices=[
                ec2.BlockDevice(
                    device_name="/dev/xvda",
                    volume=ec2.BlockDeviceVolume.ebs(
                        props.root_volume_gib,
                        encrypted=True,
                        volume_type=ec2.EbsDeviceVolumeType.GP3,
                        delete_on_termination=True,
                    ),
                )
            ],
        )
        self.host_events = self._host_events_topic()
        self.auto_scaling_group = autoscaling.AutoScalingGroup(
            self,
            "Hosts",
            vpc=props.vpc,
            vpc_subnets=ec2.SubnetSelection(subnets=[props.subnet]),
            launch_template=self.launch_template,
            min_capacity=0,  # ECS managed scaling sets the desired count
            max_capacity=props.max_instances,
            new_instances_protected_from_scale_in=True,  # required by managed termination protection
            default_instance_warmup=Duration.minutes(5),
            notifications=[autoscaling.NotificationConfiguration(topic=self.host_events)],
        )
        self.capacity_provider = ecs.AsgCapacityProvider(
            self,
            "CapacityProvider",
            auto_scaling_group=self.auto_scaling_group,
            enable_managed_scaling=True,
            enable_managed_termination_protection=True,
            enable_managed_draining=True,
            target_capacity_percent=100,
            machine_image_type=ecs.MachineImageType.AMAZON_LINUX_2,  # AL2/AL2023 ECS user-data bootstrap
        )
        self.cluster.add_asg_capacity_provider(self.capacity_provider)
        # The cluster first: creating it makes ECS's service-linked role in an account that never ran ECS, and a
        # capacity provider created in parallel fails without that role.
        provider_resource = self.capacity_provider.node.find_child("CapacityProvider")
        provider_resource.add_dependency(self.cluster.node.default_child)
        self.capacity_release = self._capacity_release(props)
        self._acknowledge_role_findings()

    def _capacity_release(self, props: GpuClusterProps) -> CustomResource:
        """Custom resource that lifts scale-in protection and empties the group when it is deleted.

        It depends on the group and on the cluster (capacity provider and its association); make the
        service depend on it, so CloudFormation deletes it after the service and before the capacity
        provider and the group, on stack deletion and on a failed first deploy's rollback alike.
        """
        stack = Stack.of(self)
        group_name = self.auto_scaling_group.auto_scaling_group_name
        made = custom_resource_function(
            self,
            "Release",
            CustomResourceFunctionProps(
                asset="capacity_release",
                description="Statespeak: lifts scale-in protection of the GPU hosts when the stack is deleted",
                purpose="GPU capacity release",
                runs_when="when the ECS stack is deleted or rolled back",
                calls="the Auto Scaling API on the one GPU group",
                logs_key=props.logs_key,
                log_retention_days=props.log_retention_days,
            ),
        )
        function = made.function
        function.add_to_role_policy(
            iam.PolicyStatement(
                actions=["autoscaling:DescribeAutoScalingGroups"],
                resources=["*"],  # Describe calls have no resource-level permissions
            )
        )
        group_arn = stack.format_arn(
            service="autoscaling",
            resource="autoScalingGroup",
            resource_name=f"*:autoScalingGroupName/{group_name}",  # `*`: the group's id, not its name
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )
        function.add_to_role_policy(
            iam.PolicyStatement(
                actions=["autoscaling:UpdateAutoScalingGroup", "autoscaling:SetInstanceProtection"],
                resources=[group_arn],
            )
        )
        release = CustomResource(
            self,
            "CapacityRelease",
            service_token=made.provider.service_token,
            resource_type="Custom::StatespeakCapacityRelease",
            properties={"AutoScalingGroupName": group_name},
        )
        release.node.add_dependency(self.capacity_provider, self.cluster)
        self._acknowledge_release_findings(function)
        return release

    def _acknowledge_release_findings(self, function: lambda_.Function) -> None:
        """The wildcards of the release function's own statements."""
        stack = Stack.of(self)
        assert function.role is not None
        group_id = stack.resolve(stack.get_logical_id(self.auto_scaling_group.node.default_child))
        Validations.of(function.role).acknowledge(
            Acknowledgment(
                id="AwsSolutions-IAM5[Resource::*]",
                reason="Capacity release: autoscaling:DescribeAutoScalingGroups has no resource-level "
                "permissions and must name '*'; the two write calls are limited to the one GPU group by name.",
            ),
            Acknowledgment(
                id=f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:autoscaling:{stack.region}:<AWS::AccountId>:"
                f"autoScalingGroup:*:autoScalingGroupName/<{group_id}>]",
                reason="The one GPU group, by name: the '*' stands for the group's id, which an Auto Scaling "
                "group ARN carries and CloudFormation does not return.",
            ),
        )

    def _host_events_topic(self) -> sns.Topic:
        """Encrypted topic receiving the ASG's launch/terminate events (subscribe ops tooling to it)."""
        stack = Stack.of(self)
        key = kms.Key(
            self,
            "HostEventsKey",
            enable_key_rotation=True,
            description="Encrypts the Statespeak GPU host events topic",
        )
        # Auto Scaling publishes through its service-linked role; matched by ARN condition because a key
        # policy may not name a role that does not exist yet (new accounts get it with their first ASG).
        key.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.AnyPrincipal()],
                actions=["kms:GenerateDataKey*", "kms:Decrypt"],
                resources=["*"],
                conditions={
                    "StringEquals": {"kms:CallerAccount": stack.account},
                    "ArnEquals": {
                        "aws:PrincipalArn": f"arn:{stack.partition}:iam::{stack.account}:role/"
                        "aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
                    },
                },
            )
        )
        return sns.Topic(
            self,
            "HostEvents",
            master_key=key,
            enforce_ssl=True,
            display_name="Statespeak GPU host scaling events",
        )

    def _acknowledge_role_findings(self) -> None:
        """cdk-nag wildcard findings on the host role, each acknowledged with the statement behind it."""
        Validations.of(self.instance_role).acknowledge(
            Acknowledgment(
                id="AwsSolutions-IAM5[Resource::*]",
                reason="Statements CDK's capacity-provider wiring and this construct need on '*': "
                "cloudwatch:PutMetricData (no resource type; limited by a cloudwatch:namespace condition to "
                "the GPU metrics namespace), ecs:Poll/StartTelemetrySession (limited by an ecs:cluster "
                "condition to this cluster), ecs:DiscoverPollEndpoint and ecr:GetAuthorizationToken (no "
                "resource type) and the agent's own log stream writes.",
            ),
            Acknowledgment(
                id="AwsSolutions-IAM5[Action::ecs:Submit*]",
                reason="The ECS agent reports task and container state changes with ecs:Submit*State calls; "
                "CDK grants the family, restricted to this cluster's ARN.",
            ),
        )

    def _gpu_metrics_commands(self) -> list[str]:
        """CloudWatch agent collecting nvidia-smi utilization, aggregated per cluster."""
        config = {
            "agent": {"metrics_collection_interval": 60, "run_as_user": "root"},
            "metrics": {
                "namespace": GPU_METRICS_NAMESPACE,
                "aggregation_dimensions": [[GPU_CLUSTER_DIMENSION]],
                "metrics_collected": {
                    "nvidia_gpu": {
                        "measurement": ["utilization_gpu", "utilization_memory", "memory_used"],
                        "append_dimensions": {GPU_CLUSTER_DIMENSION: "__CLUSTER__"},
                    }
                },
            },
        }
        text = json.dumps(config).replace("__CLUSTER__", self.cluster.cluster_name)
        path = "/opt/aws/amazon-cloudwatch-agent/etc/statespeak-gpu.json"
        ctl = "/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl"
        # Not fatal: a host without GPU metrics still serves; the dashboard shows the gap. The ECS GPU AMI is
        # built from AL2023 minimal and has no agent, so the config's directory exists only once we make it: a
        # bare `cat` into it failed under `set -e`, and the ERR trap shut every host down before it joined.
        return [
            f"mkdir -p {path.rsplit('/', 1)[0]}",
            f"cat > {path} <<'EOF'\n{text}\nEOF",
            f"(dnf install -y {HOST_DNF_OPTIONS} amazon-cloudwatch-agent && {ctl} -a fetch-config -m ec2 -s -c file:{path}) "
            "|| echo 'statespeak: GPU metrics agent not started' >&2",
        ]
