"""The kit's VPC: a data plane with no route to the internet, reached through VPC endpoints only."""

from __future__ import annotations

from dataclasses import dataclass, field

from aws_cdk import aws_ec2 as ec2
from constructs import Construct

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
    """AZ IDs of the data (and entry) subnets, the GPU zone first (GPU hosts, FSx); empty: the zones of
    `availability_zones`, GPU hosts in the first."""
    marketplace_artifacts: bool = False
    """Let the S3 gateway read objects of other accounts' buckets (a Marketplace model package's artifacts)."""


class StatespeakNetwork(Construct):
    """VPC with isolated data subnets, no NAT, VPC endpoints, flow logs and optional public entry subnets.

    Without `public_entry` the VPC has no internet gateway at all. With it, only the `entry` subnets
    route to the gateway; the isolated subnets keep no default route, so GPU hosts and tasks never reach
    the internet even when the ALB is public.
    """

    def __init__(self, scope: Construct, construct_id: str, props: NetworkProps) -> None:
        super().__init__(scope, construct_id)
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

        # S3 gateway: ECR image layers, AL2023 package repos (lustre client), the weights bucket.
        self.gateway_endpoints = {
            "S3": self.vpc.add_gateway_endpoint(
                "S3", service=ec2.GatewayVpcEndpointAwsService.S3, subnets=[self.data_subnets]
            )
        }

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
            self.interface_endpoints[name] = self.vpc.add_interface_endpoint(
                name,
                service=service,
                subnets=self.data_subnets,
                security_groups=[self.endpoint_security_group],
                private_dns_enabled=True,
                open=False,  # the shared group above already admits the VPC range
            )
        # Only this account's principals (and, for S3, this account's buckets plus the AWS-owned ones the
        # data plane reads) pass through any endpoint.
        apply_data_perimeter(
            self,
            self.gateway_endpoints,
            self.interface_endpoints,
            marketplace_artifacts=props.marketplace_artifacts,
        )

    @property
    def gpu_subnet(self) -> ec2.ISubnet:
        """The one data subnet GPU hosts (cluster placement group) and FSx for Lustre live in: the one in
        the first of `zone_ids` (the GPU zone)."""
        return self.vpc.select_subnets(subnet_group_name=DATA_SUBNETS).subnets[0]

    @property
    def gpu_subnets(self) -> ec2.SubnetSelection:
        """`gpu_subnet` as a selection (task ENIs of the ECS service)."""
        return ec2.SubnetSelection(subnets=[self.gpu_subnet])
