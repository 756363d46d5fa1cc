"""The kit's network: a data plane with no route to the internet, reached through VPC endpoints only.

Two paths produce the same attributes (`vpc`, `data_subnets`, `entry_subnets`, `gpu_subnet`,
`endpoint_security_group`, `interface_endpoints`): the kit creates its own VPC (the default), or it
imports an existing one by ID (`ExistingVpc`, no lookup at synthesis) and adds only what it needs there:
the endpoints the VPC does not have yet and its own security groups.

The SageMaker route's endpoints (`SageMakerVpcEndpoints`) are not part of the network: they live in the
SageMaker stack, so the network (and every value it exports) is the same whichever routes are deployed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aws_cdk import aws_ec2 as ec2
from constructs import Construct

from statespeak_constructs.clients import ClientAccess
from statespeak_constructs.endpoint_policies import apply_data_perimeter
from statespeak_constructs.logs import LogsKey
from statespeak_constructs.zones import place_by_zone_id

DATA_SUBNETS = "data"  # isolated: GPU hosts, tasks, file systems, endpoints, the internal ALB
ENTRY_SUBNETS = "entry"  # public: only the internet-facing ALB, only when asked for

# Interface endpoints every ECS host needs with no NAT: the ECS agent (ecs, ecs-a, ecs-t), image pulls
# (ecr.api, ecr.dkr; layers come from S3 through the gateway), the awslogs driver (logs), EMF / agent
# metrics (monitoring) and STS for SDK credential exchange inside tasks.
_BASE_INTERFACE_ENDPOINTS = {
    "EcrApi": ec2.InterfaceVpcEndpointAwsService.ECR,
    "EcrDocker": ec2.InterfaceVpcEndpointAwsService.ECR_DOCKER,
    "Logs": ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS,
    "Monitoring": ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_MONITORING,
    "Ecs": ec2.InterfaceVpcEndpointAwsService.ECS,
    "EcsAgent": ec2.InterfaceVpcEndpointAwsService.ECS_AGENT,
    "EcsTelemetry": ec2.InterfaceVpcEndpointAwsService.ECS_TELEMETRY,
    "Sts": ec2.InterfaceVpcEndpointAwsService.STS,
}
# The SageMaker route's, created by `SageMakerVpcEndpoints` in that route's stack: its clients inside the
# VPC call the runtime and the API.
_SAGEMAKER_INTERFACE_ENDPOINTS = {
    "SageMakerRuntime": ec2.InterfaceVpcEndpointAwsService.SAGEMAKER_RUNTIME,
    "SageMakerApi": ec2.InterfaceVpcEndpointAwsService.SAGEMAKER_API,
}
_ALL_INTERFACE_NAMES = {
    **_BASE_INTERFACE_ENDPOINTS,
    **_SAGEMAKER_INTERFACE_ENDPOINTS,
    "SecretsManager": ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
}
_ALL_INTERFACE_SERVICES = tuple(_ALL_INTERFACE_NAMES.values())
# Every endpoint service the kit may add, by the short name users give in `existing_vpc_endpoints`.
ENDPOINT_SERVICES = ("s3", *(service.short_name for service in _ALL_INTERFACE_SERVICES))
# The interface endpoints by where they are made, as short names (`make preflight` checks their policies).
BASE_INTERFACE_SERVICES = tuple(service.short_name for service in _BASE_INTERFACE_ENDPOINTS.values())
SAGEMAKER_INTERFACE_SERVICES = tuple(
    service.short_name for service in _SAGEMAKER_INTERFACE_ENDPOINTS.values()
)
SECRETS_INTERFACE_SERVICE = ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER.short_name


@dataclass(frozen=True)
class ExistingVpc:
    """A VPC that already exists, named by IDs: imported with `Vpc.from_vpc_attributes`, no lookup."""

    vpc_id: str
    """`vpc-...`."""
    availability_zones: list[str]
    """Zone name of each data subnet, in the same order."""
    data_subnet_ids: list[str]
    """Private subnets (2 or 3, one per zone) for hosts, tasks, file systems, endpoints and the internal ALB."""
    data_route_table_ids: list[str] = field(default_factory=list)
    """Route table of each data subnet (the S3 gateway endpoint is associated with them)."""
    gpu_subnet_id: str = ""
    """The data subnet of the GPU hosts and FSx for Lustre; empty: the first data subnet."""
    entry_subnet_ids: list[str] = field(default_factory=list)
    """Public subnets, one per zone, for an internet-facing ALB; empty when the entry is internal."""

    def __post_init__(self) -> None:
        if len(self.availability_zones) != len(self.data_subnet_ids) or len(self.data_subnet_ids) < 2:
            raise ValueError("ExistingVpc: give 2 or 3 data_subnet_ids and the zone of each, in order")
        if self.gpu_subnet_id and self.gpu_subnet_id not in self.data_subnet_ids:
            raise ValueError(f"ExistingVpc: gpu_subnet_id={self.gpu_subnet_id!r} is not a data subnet")


@dataclass(frozen=True)
class NetworkProps:
    """Shape of the VPC."""

    cidr: str
    """IPv4 range of the VPC."""
    availability_zones: list[str]
    """Zones to span (endpoints and the ALB need two); empty: the region's first two, resolved at deploy."""
    public_entry: bool
    """Add public subnets (and an internet gateway) for an internet-facing ALB; data stays isolated."""
    secrets_manager_endpoint: bool
    """Add the Secrets Manager interface endpoint (tasks and the canary read the API key secret)."""
    logs_key: LogsKey
    """Key for the flow-log group."""
    log_retention_days: int
    """Retention of the flow-log group."""
    zone_ids: list[str] = field(default_factory=list)
    """A new VPC only: AZ IDs of the data (and entry) subnets, the GPU zone first (GPU hosts, FSx); empty:
    the zones of `availability_zones`, GPU hosts in the first. An existing VPC's subnets stay where they are."""
    marketplace_artifacts: bool = False
    """Let the S3 gateway read objects of other accounts' buckets (a Marketplace model package's artifacts)."""
    existing_vpc: ExistingVpc | None = None
    """Deploy into this VPC instead of creating one (its flow logs stay its owner's business)."""
    existing_endpoints: frozenset[str] = frozenset()
    """Endpoint services the VPC already has (short names: `s3`, `ecr.api`, `sagemaker.runtime`, ...):
    not created again (a VPC holds one private-DNS interface endpoint per service)."""
    existing_endpoints_security_group_id: str = ""
    """With `existing_endpoints`: the security group of those interface endpoints."""


class StatespeakNetwork(Construct):
    """VPC with isolated data subnets, no NAT, VPC endpoints, flow logs and optional public entry subnets.

    Without `public_entry` the VPC has no internet gateway at all. With it, only the `entry` subnets
    route to the gateway; the isolated subnets keep no default route, so GPU hosts and tasks never reach
    the internet even when the ALB is public.
    """

    def __init__(self, scope: Construct, construct_id: str, props: NetworkProps) -> None:
        super().__init__(scope, construct_id)
        self.cidr = props.cidr
        self.flow_log: ec2.FlowLog | None = None
        self._gpu_subnet: ec2.ISubnet | None = None
        if props.existing_vpc is None:
            self._create_vpc(props)
        else:
            self._import_vpc(props.existing_vpc, props)
        self._add_endpoints(props)

    def _create_vpc(self, props: NetworkProps) -> None:
        """The default: a new VPC with isolated data subnets, flow logs and optional public entry subnets."""
        subnets = [
            ec2.SubnetConfiguration(
                name=DATA_SUBNETS, subnet_type=ec2.SubnetType.PRIVATE_ISOLATED, cidr_mask=20
            )
        ]
        if props.public_entry:
            subnets.append(
                ec2.SubnetConfiguration(
                    name=ENTRY_SUBNETS,
                    subnet_type=ec2.SubnetType.PUBLIC,
                    cidr_mask=24,
                    map_public_ip_on_launch=False,
                )
            )
        self.vpc = ec2.Vpc(
            self,
            "Vpc",
            ip_addresses=ec2.IpAddresses.cidr(props.cidr),
            **(
                {"availability_zones": props.availability_zones}
                if props.availability_zones
                else {"max_azs": 2}
            ),
            nat_gateways=0,
            subnet_configuration=subnets,
            enable_dns_hostnames=True,  # interface endpoints need private DNS
            enable_dns_support=True,
        )
        if props.zone_ids:
            place_by_zone_id(self.vpc, props.zone_ids)
        self.data_subnets = ec2.SubnetSelection(subnet_group_name=DATA_SUBNETS)
        self.entry_subnets = ec2.SubnetSelection(
            subnet_group_name=ENTRY_SUBNETS if props.public_entry else DATA_SUBNETS
        )

        flow_log_group = props.logs_key.log_group(self, "FlowLogGroup", props.log_retention_days)
        self.flow_log = ec2.FlowLog(
            self,
            "FlowLog",
            resource_type=ec2.FlowLogResourceType.from_vpc(self.vpc),
            destination=ec2.FlowLogDestination.to_cloud_watch_logs(flow_log_group),
            traffic_type=ec2.FlowLogTrafficType.ALL,
        )

    def _import_vpc(self, existing: ExistingVpc, props: NetworkProps) -> None:
        """Your VPC, by ID: nothing in it is created or changed except the endpoints and groups added below.

        The data subnets are imported as the VPC's isolated subnets whatever their routes are: the kit only
        places resources in them. The VPC's DNS support and hostnames must be on (private DNS endpoints).
        """
        self.vpc = ec2.Vpc.from_vpc_attributes(
            self,
            "Vpc",
            vpc_id=existing.vpc_id,
            vpc_cidr_block=props.cidr,
            availability_zones=list(existing.availability_zones),
            isolated_subnet_ids=list(existing.data_subnet_ids),
            isolated_subnet_route_table_ids=list(existing.data_route_table_ids) or None,
            public_subnet_ids=list(existing.entry_subnet_ids) or None,
        )
        self.data_subnets = ec2.SubnetSelection(subnets=list(self.vpc.isolated_subnets))
        self.entry_subnets = (
            ec2.SubnetSelection(subnets=list(self.vpc.public_subnets))
            if props.public_entry
            else self.data_subnets
        )
        gpu_id = existing.gpu_subnet_id or existing.data_subnet_ids[0]
        self._gpu_subnet = next(s for s in self.vpc.isolated_subnets if s.subnet_id == gpu_id)

    def _add_endpoints(self, props: NetworkProps) -> None:
        """The S3 gateway and the interface endpoints the data plane needs, minus those the VPC has."""
        existing = self.existing_endpoints = props.existing_endpoints
        self.existing_endpoints_security_group: ec2.ISecurityGroup | None = (
            ec2.SecurityGroup.from_security_group_id(
                self, "ExistingEndpointsSg", props.existing_endpoints_security_group_id, mutable=False
            )
            if props.existing_endpoints_security_group_id
            else None
        )
        # S3 gateway: ECR image layers, AL2023 package repos (lustre client), the weights bucket.
        self.gateway_endpoints: dict[str, ec2.GatewayVpcEndpoint] = {}
        if "s3" not in existing:
            self.gateway_endpoints["S3"] = self.vpc.add_gateway_endpoint(
                "S3", service=ec2.GatewayVpcEndpointAwsService.S3, subnets=[self.data_subnets]
            )

        # One security group for all interface endpoints: HTTPS from inside the VPC only.
        self.endpoint_security_group = ec2.SecurityGroup(
            self,
            "EndpointSg",
            vpc=self.vpc,
            description="VPC interface endpoints: HTTPS from the VPC",
            allow_all_outbound=False,
        )
        self.endpoint_security_group.add_ingress_rule(
            # The literal range, not the VPC's CidrBlock attribute: reviewers (and cdk-nag) can read it.
            ec2.Peer.ipv4(props.cidr),
            ec2.Port.tcp(443),
            "HTTPS from inside the VPC",
        )
        endpoints = dict(_BASE_INTERFACE_ENDPOINTS)
        if props.secrets_manager_endpoint:
            endpoints["SecretsManager"] = ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER
        self.interface_endpoints: dict[str, ec2.InterfaceVpcEndpoint] = {}
        for name, service in endpoints.items():
            if service.short_name in existing:
                continue
            self.interface_endpoints[name] = self.vpc.add_interface_endpoint(
                name,
                service=service,
                subnets=self.data_subnets,
                security_groups=[self.endpoint_security_group],
                private_dns_enabled=True,
                open=False,  # the shared group above already admits the VPC range
            )
        # Only this account's principals (and, for S3, this account's buckets plus the AWS-owned ones the
        # data plane reads) pass through the endpoints the kit creates; the VPC's own ones are its owner's.
        apply_data_perimeter(
            self,
            self.gateway_endpoints,
            self.interface_endpoints,
            marketplace_artifacts=props.marketplace_artifacts,
        )

    def endpoint_group(self, short_name: str) -> ec2.ISecurityGroup:
        """The security group in front of one interface endpoint service of this network (`secretsmanager`,
        `sts`, ...): the kit's own, or the existing endpoints' group for one the VPC had."""
        for name, endpoint in self.interface_endpoints.items():
            if _ALL_INTERFACE_NAMES[name].short_name == short_name:
                return endpoint.connections.security_groups[0]
        if short_name in self.existing_endpoints and self.existing_endpoints_security_group is not None:
            return self.existing_endpoints_security_group
        raise ValueError(f"no interface endpoint {short_name} in this network (neither created nor existing)")

    @property
    def gpu_subnet(self) -> ec2.ISubnet:
        """The one data subnet GPU hosts (cluster placement group) and FSx for Lustre live in: a new VPC's
        subnet in the first of `zone_ids` (the GPU zone), or the existing VPC's `gpu_subnet_id`."""
        if self._gpu_subnet is not None:  # an existing VPC: the subnet its owner named (gpu_subnet_id)
            return self._gpu_subnet
        return self.vpc.select_subnets(subnet_group_name=DATA_SUBNETS).subnets[0]

    @property
    def gpu_subnets(self) -> ec2.SubnetSelection:
        """`gpu_subnet` as a selection (task ENIs of the ECS service)."""
        return ec2.SubnetSelection(subnets=[self.gpu_subnet])


@dataclass(frozen=True)
class SageMakerVpcEndpointsProps:
    """The SageMaker route's interface endpoints in a `StatespeakNetwork`."""

    network: StatespeakNetwork
    """The network they join: its VPC, data subnets, shared endpoint group and existing endpoints."""
    clients: ClientAccess = field(default_factory=ClientAccess)
    """Who may reach the SageMaker runtime endpoint the kit creates (default: the VPC range)."""


class SageMakerVpcEndpoints(Construct):
    """The SageMaker runtime and API interface endpoints, minus those the VPC already has.

    Built in the SageMaker stack, not in the network's: the foundation (and its exports) stays the same
    whichever routes are deployed, so routes can be switched in place (docs/switching.md). The runtime
    endpoint is what clients call: its own group admits exactly them (the VPC range unless `clients`
    narrows it), while the network's shared group serves the API endpoint.
    """

    def __init__(self, scope: Construct, construct_id: str, props: SageMakerVpcEndpointsProps) -> None:
        super().__init__(scope, construct_id)
        network = self._network = props.network
        self._clients_restricted = props.clients.restricted
        self.runtime_security_group: ec2.SecurityGroup | None = None
        if "sagemaker.runtime" not in network.existing_endpoints:
            self.runtime_security_group = ec2.SecurityGroup(
                self,
                "RuntimeEndpointSg",
                vpc=network.vpc,
                description="SageMaker runtime endpoint: HTTPS from the TTS clients",
                allow_all_outbound=False,
            )
            props.clients.admit(
                self.runtime_security_group, 443, network.cidr, "SageMaker runtime (InvokeEndpoint*)"
            )
        self.interface_endpoints: dict[str, ec2.InterfaceVpcEndpoint] = {}
        for name, service in _SAGEMAKER_INTERFACE_ENDPOINTS.items():
            if service.short_name in network.existing_endpoints:
                continue
            runtime = name == "SageMakerRuntime" and self.runtime_security_group is not None
            self.interface_endpoints[name] = ec2.InterfaceVpcEndpoint(
                self,
                name,
                vpc=network.vpc,
                service=service,
                subnets=network.data_subnets,
                security_groups=[self.runtime_security_group if runtime else network.endpoint_security_group],
                private_dns_enabled=True,
                open=False,  # the groups above decide who connects
            )
        apply_data_perimeter(self, {}, self.interface_endpoints)

    @property
    def runtime_endpoint(self) -> ec2.InterfaceVpcEndpoint | None:
        """The runtime endpoint the kit created; None when the VPC had its own."""
        return self.interface_endpoints.get("SageMakerRuntime")

    @property
    def runtime_group(self) -> ec2.ISecurityGroup:
        """The security group in front of the runtime endpoint: the kit's, or the VPC's existing one."""
        if self.runtime_security_group is not None:
            return self.runtime_security_group
        return self._network.endpoint_group("sagemaker.runtime")

    def admit(self, peer: ec2.ISecurityGroup, description: str) -> None:
        """Let one more security group (the kit's canary) reach the runtime endpoint the kit created, when
        named clients replaced the VPC range (which admits it otherwise). A VPC's own endpoint is left to
        its owner: its group must admit the kit's subnets."""
        if self.runtime_security_group is not None and self._clients_restricted:
            self.runtime_security_group.add_ingress_rule(peer, ec2.Port.tcp(443), description)
