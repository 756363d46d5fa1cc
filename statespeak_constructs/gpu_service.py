"""The streaming TTS service on the GPU cluster: task definition, ECS service, ALB target, autoscaling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from aws_cdk import Acknowledgment, Duration, Size, Validations
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_ecs as ecs
from aws_cdk import aws_elasticloadbalancingv2 as elbv2
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct, IDependable

from model_server.contract import (
    CONTAINER_MODEL_DIR,
    DEPLOYMENT_ECS,
    DEVICE_CUDA,
    ENV_API_KEYS,
    ENV_DEPLOYMENT,
    ENV_DEVICE,
    ENV_DRAIN_TIMEOUT_S,
    ENV_ENGINES,
    ENV_KEEP_ALIVE_S,
    ENV_KIT_NAME,
    ENV_MAX_STREAMS,
    ENV_MODEL_DIR,
    ENV_QUERY_API_KEYS,
    ENV_SAGEMAKER_ROUTES,
    HEALTH_PATH,
    IMAGE_USER,
    KEEP_ALIVE_MARGIN_S,
    METRIC_ACTIVE_STREAMS,
    READY_PATH,
    SERVER_PORT,
)
from statespeak_constructs.gpu_cluster import GpuCluster
from statespeak_constructs.image import ServerImage
from statespeak_constructs.load_balancer import StreamingLoadBalancer
from statespeak_constructs.logs import LogsKey
from statespeak_constructs.observability import kit_metric

CONTAINER_NAME = "server"


class WeightsMount(Protocol):
    """What the service needs from a weights store (FsxWeights or EfsWeights)."""

    ready: IDependable

    def allow_tasks(self, tasks: ec2.IConnectable) -> None: ...

    def attach(
        self, task_definition: ecs.TaskDefinition, container: ecs.ContainerDefinition, version: str
    ) -> None: ...


def active_streams_metric(kit_name: str, route: str = DEPLOYMENT_ECS) -> cloudwatch.Metric:
    """Average ActiveStreams over one kit instance's tasks per minute = streams per task (every task emits
    it, with the dimensions contract.metric_dimensions gives: route and kit instance)."""
    return kit_metric(METRIC_ACTIVE_STREAMS, "Average", route, kit_name)


@dataclass(frozen=True)
class GpuTtsServiceProps:
    """Task shape, stream-safe deployment and scaling settings."""

    cluster: GpuCluster
    """Cluster and GPU capacity provider to run on."""
    subnets: ec2.SubnetSelection
    """Task ENIs (awsvpc): the GPU hosts' subnet."""
    image: ServerImage
    """Server image."""
    weights: WeightsMount
    """Shared weights store, mounted read-only at CONTAINER_MODEL_DIR."""
    weights_version: str
    """Folder under weights/ the tasks load."""
    load_balancer: StreamingLoadBalancer
    """Entry point; the service becomes its listener's target."""
    logs_key: LogsKey
    """Key of the container log group."""
    log_retention_days: int
    """Retention of the container log group (EMF lines become metrics before they expire)."""
    min_tasks: int
    """Desired count at deploy and the scaling floor (>= 2)."""
    max_tasks: int
    """Scaling ceiling."""
    target_streams_per_task: int
    """Target-tracking set point on ActiveStreams per task."""
    max_streams_per_task: int
    """MAX_STREAMS: admission limit inside each task."""
    engines_per_task: int
    """STATESPEAK_ENGINES: engine processes inside each task, sharing its GPU and MAX_STREAMS (1: one)."""
    stop_timeout_s: int
    """SIGTERM-to-SIGKILL window (<= 120 s on ECS)."""
    drain_timeout_s: int
    """DRAIN_TIMEOUT_S: the server's own bound for finishing in-flight streams, below stop_timeout_s."""
    health_check_grace_s: int
    """ALB health checks ignored this long after a task starts (weight load + warm-up)."""
    deregistration_delay_s: int
    """ALB keeps draining connections this long: at least the longest stream."""
    scale_in_cooldown_s: int
    """Wait after a scale-in before the next; long, so streams are not churned by short load dips."""
    scale_out_cooldown_s: int
    """Wait after a scale-out before the next."""
    kit_name: str
    """The kit instance's name (STATESPEAK_KIT, the Kit metric dimension): the scaling policy reads only
    this instance's tasks, so two copies in one account never scale on each other's load."""
    cpu_units: int = 2048
    """CPU reservation of a task (1024 = one vCPU): the text frontend and encoders run on the CPU."""
    memory_reservation_mib: int = 8192
    """Soft memory reservation of a task."""
    api_key_secret: secretsmanager.ISecret | None = None
    """When set, injected as STATESPEAK_API_KEYS: the server then refuses requests without a valid key."""
    accept_query_api_keys: bool = True
    """False on internet-facing entries: the server refuses `?api_key=` (URLs land in ALB access logs)."""


class GpuTtsService(Construct):
    """One GPU per task, awsvpc networking, rolling deploys that never cut an in-flight stream.

    Deploys start new tasks first (max 200%, min healthy 100%); an old task leaves the target group,
    keeps its open streams for the deregistration delay, then gets SIGTERM and drains within
    DRAIN_TIMEOUT_S before stopTimeout. A deployment whose tasks never turn healthy rolls back.
    """

    def __init__(self, scope: Construct, construct_id: str, props: GpuTtsServiceProps) -> None:
        super().__init__(scope, construct_id)
        if not props.drain_timeout_s < props.stop_timeout_s <= 120:
            raise ValueError(
                f"drain_timeout_s={props.drain_timeout_s} must be below stop_timeout_s={props.stop_timeout_s}, "
                "which ECS caps at 120"
            )
        self.task_definition = ecs.Ec2TaskDefinition(self, "Task", network_mode=ecs.NetworkMode.AWS_VPC)
        self.log_group = props.logs_key.log_group(self, "Logs", props.log_retention_days)
        self.container = self.task_definition.add_container(
            CONTAINER_NAME,
            image=props.image.container_image,
            command=["serve"],
            user=IMAGE_USER,  # the image's non-root user (the image runs as root for SageMaker's contract)
            gpu_count=1,
            cpu=props.cpu_units,
            memory_reservation_mib=props.memory_reservation_mib,
            essential=True,
            port_mappings=[ecs.PortMapping(container_port=SERVER_PORT, protocol=ecs.Protocol.TCP)],
            environment={
                ENV_MODEL_DIR: CONTAINER_MODEL_DIR,
                ENV_MAX_STREAMS: str(props.max_streams_per_task),
                ENV_ENGINES: str(props.engines_per_task),
                ENV_DRAIN_TIMEOUT_S: str(props.drain_timeout_s),
                ENV_DEPLOYMENT: DEPLOYMENT_ECS,
                # /invocations and /ping are the keyless SageMaker contract: never served behind the ALB.
                ENV_SAGEMAKER_ROUTES: "false",
                ENV_QUERY_API_KEYS: "true" if props.accept_query_api_keys else "false",
                ENV_DEVICE: DEVICE_CUDA,  # never serve from the CPU or the torch fallback on a GPU host
                ENV_KIT_NAME: props.kit_name,
                # the ALB may send a request on any connection it holds open: the task must hold it longer
                ENV_KEEP_ALIVE_S: str(props.load_balancer.idle_timeout_s + KEEP_ALIVE_MARGIN_S),
            },
            secrets=(
                {ENV_API_KEYS: ecs.Secret.from_secrets_manager(props.api_key_secret)}
                if props.api_key_secret is not None
                else None
            ),
            # awslogs ships stdout, so the server's EMF lines turn into metrics without a sidecar.
            logging=ecs.LogDrivers.aws_logs(
                stream_prefix="server",
                log_group=self.log_group,
                mode=ecs.AwsLogDriverMode.NON_BLOCKING,
                max_buffer_size=Size.mebibytes(25),
            ),
            # Liveness only (the ALB checks readiness): restart a wedged process, not a loading one.
            health_check=ecs.HealthCheck(
                command=[
                    "CMD",
                    "python3",
                    "-c",
                    "import urllib.request; urllib.request.urlopen("
                    f"'http://127.0.0.1:{SERVER_PORT}{HEALTH_PATH}', timeout=4)",
                ],
                interval=Duration.seconds(15),
                timeout=Duration.seconds(5),
                retries=3,
                start_period=Duration.seconds(60),
            ),
            stop_timeout=Duration.seconds(props.stop_timeout_s),
            linux_parameters=ecs.LinuxParameters(
                self, "Linux", init_process_enabled=True
            ),  # signals reach PID 1
            readonly_root_filesystem=False,
        )
        props.weights.attach(self.task_definition, self.container, props.weights_version)
        Validations.of(self.task_definition).acknowledge(
            Acknowledgment(
                id="AwsSolutions-ECS2",
                reason="The environment holds only non-secret settings (model dir path, stream limit, drain "
                "bound, route name for metrics); nothing confidential is passed in plain environment.",
            )
        )
        execution_role = self.task_definition.obtain_execution_role()
        Validations.of(execution_role).acknowledge(
            Acknowledgment(
                id="AwsSolutions-IAM5[Resource::*]",
                reason="ecr:GetAuthorizationToken has no resource type and must name '*'; the image pull "
                "actions themselves are bound to the server image repository.",
            )
        )

        self.security_group = ec2.SecurityGroup(
            self,
            "TaskSg",
            vpc=props.cluster.cluster.vpc,
            description=f"Statespeak tasks: port {SERVER_PORT} from the ALB only",
            allow_all_outbound=True,  # VPC endpoints, weights store; the subnets have no internet route
        )
        self.service = ecs.Ec2Service(
            self,
            "Service",
            cluster=props.cluster.cluster,
            task_definition=self.task_definition,
            # No desired count in the template: CloudFormation would send it again with every new task
            # definition (an image or weights roll-out) and scale an autoscaled fleet back to its minimum at
            # peak. Left out, ECS starts one task and the scalable target below raises it to `min_tasks`.
            min_healthy_percent=100,
            max_healthy_percent=200,
            circuit_breaker=ecs.DeploymentCircuitBreaker(enable=True, rollback=True),
            capacity_provider_strategies=[
                ecs.CapacityProviderStrategy(
                    capacity_provider=props.cluster.capacity_provider.capacity_provider_name, weight=1
                )
            ],
            health_check_grace_period=Duration.seconds(props.health_check_grace_s),
            vpc_subnets=props.subnets,
            security_groups=[self.security_group],
            placement_strategies=[ecs.PlacementStrategy.spread_across_instances()],
            propagate_tags=ecs.PropagatedTagSource.SERVICE,
            enable_ecs_managed_tags=True,
        )
        # The cluster construct includes the capacity-provider association CDK adds at synthesis: a service
        # created before it exists fails with "capacity provider not associated with the cluster".
        self.service.node.add_dependency(props.weights.ready, props.cluster.cluster)
        props.weights.allow_tasks(self.security_group)

        self.target_group = props.load_balancer.listener.add_targets(
            "Tasks",
            port=SERVER_PORT,
            protocol=elbv2.ApplicationProtocol.HTTP,
            protocol_version=elbv2.ApplicationProtocolVersion.HTTP1,  # WebSocket upgrades need HTTP/1.1
            targets=[
                self.service.load_balancer_target(container_name=CONTAINER_NAME, container_port=SERVER_PORT)
            ],
            health_check=elbv2.HealthCheck(
                path=READY_PATH,
                healthy_http_codes="200",
                interval=Duration.seconds(10),
                timeout=Duration.seconds(5),
                healthy_threshold_count=2,
                unhealthy_threshold_count=3,
            ),
            deregistration_delay=Duration.seconds(props.deregistration_delay_s),
            load_balancing_algorithm_type=elbv2.TargetGroupLoadBalancingAlgorithmType.LEAST_OUTSTANDING_REQUESTS,
        )

        self.scaling = self.service.auto_scale_task_count(
            min_capacity=props.min_tasks, max_capacity=props.max_tasks
        )
        self.scaling.scale_to_track_custom_metric(
            "ActiveStreamsPerTask",
            metric=active_streams_metric(props.kit_name, DEPLOYMENT_ECS),
            target_value=props.target_streams_per_task,
            scale_in_cooldown=Duration.seconds(props.scale_in_cooldown_s),
            scale_out_cooldown=Duration.seconds(props.scale_out_cooldown_s),
            disable_scale_in=False,
        )
