"""The ALB in front of the streaming tasks: internal by default, TLS when a certificate is supplied.

Inside the VPC it can carry a name (an alias record in a private hosted zone, e.g. `tts.internal.example`),
so clients verify the certificate against the name they dial, and it admits either the whole VPC range or
exactly the client ranges and security groups named in `clients`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aws_cdk import Acknowledgment, Duration, Validations
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_elasticloadbalancingv2 as elbv2
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_route53_targets as route53_targets
from aws_cdk import aws_s3 as s3
from constructs import Construct

from model_server.contract import INVOCATIONS_PATH, PING_PATH
from statespeak_constructs.buckets import ALB_LOG_PREFIX
from statespeak_constructs.clients import ClientAccess

# The SageMaker contract's routes: keyless by design (SageMaker authenticates callers with IAM), so the
# ALB answers them itself and never forwards them to a task (the tasks also turn them off).
SAGEMAKER_ONLY_PATHS = (INVOCATIONS_PATH, f"{INVOCATIONS_PATH}/*", PING_PATH, f"{PING_PATH}/*")


@dataclass(frozen=True)
class StreamingLoadBalancerProps:
    """Entry point settings."""

    vpc: ec2.IVpc
    """VPC of the service."""
    subnets: ec2.SubnetSelection
    """Isolated subnets (internal) or the public entry subnets (internet-facing)."""
    internet_facing: bool
    """Public ALB; then a certificate is mandatory and plain HTTP only redirects."""
    certificate_arn: str
    """ACM certificate: enables HTTPS on 443 (with an HTTP->HTTPS redirect on 80). Empty: HTTP on 80,
    allowed only for the internal ALB, whose clients sit inside the VPC."""
    idle_timeout_s: int
    """Longest silence allowed inside one connection (a WebSocket waiting for the next sentence)."""
    access_logs: s3.IBucket
    """Bucket for ALB access logs (SSE-S3)."""
    client_cidr: str
    """Who may connect by default: the VPC range (internal) or 0.0.0.0/0 (internet-facing)."""
    clients: ClientAccess = field(default_factory=ClientAccess)
    """Internal ALB: when it names clients, exactly those connect instead of `client_cidr`."""
    dns_name: str = ""
    """A name for the internal ALB inside the VPC (e.g. `tts.internal.example`); `url` then uses it. With
    `certificate_arn`, that certificate must cover this name."""
    private_zone_id: str = ""
    """Existing private hosted zone for `dns_name`; empty: a new private zone associated with `vpc`."""
    private_zone_name: str = ""
    """Domain of that zone (e.g. `internal.example`); empty: `dns_name` without its first label."""

    def __post_init__(self) -> None:
        if self.internet_facing and (self.dns_name or self.clients.restricted):
            raise ValueError(
                "dns_name and clients are for the internal ALB; an internet-facing one admits everyone"
            )
        zone = self.private_zone_name or self.dns_name.partition(".")[2]
        if self.dns_name and not (zone and self.dns_name.endswith("." + zone)):
            raise ValueError(f"dns_name={self.dns_name!r} is not inside the zone {zone!r}")


class StreamingLoadBalancer(Construct):
    """ALB with HTTP/2, WebSocket-friendly idle timeout, access logs and one listener for the service.

    WebSockets need nothing special on an ALB: the upgrade is forwarded on HTTP/1.1 connections and the
    connection then lives until the idle timeout passes without a frame.
    """

    def __init__(self, scope: Construct, construct_id: str, props: StreamingLoadBalancerProps) -> None:
        super().__init__(scope, construct_id)
        if props.internet_facing and not props.certificate_arn:
            raise ValueError("an internet-facing load balancer needs certificate_arn (HTTPS only)")
        self.security_group = ec2.SecurityGroup(
            self,
            "Sg",
            vpc=props.vpc,
            description="Statespeak ALB: clients in, service tasks out",
            allow_all_outbound=False,  # egress is opened per target by the service wiring
        )
        self.tls = bool(props.certificate_arn)
        self.port = 443 if self.tls else 80
        ports = [(self.port, "TTS API")] + ([(80, "HTTP, answered by a redirect")] if self.tls else [])
        for port, what in ports:
            if props.clients.restricted:
                props.clients.admit(self.security_group, port, props.client_cidr, what)
            else:
                self.security_group.add_ingress_rule(
                    ec2.Peer.ipv4(props.client_cidr),
                    ec2.Port.tcp(port),
                    "Clients of the TTS API" if port == self.port else what,
                )
        self.idle_timeout_s = props.idle_timeout_s
        self.load_balancer = elbv2.ApplicationLoadBalancer(
            self,
            "Alb",
            vpc=props.vpc,
            vpc_subnets=props.subnets,
            internet_facing=props.internet_facing,
            security_group=self.security_group,
            http2_enabled=True,
            idle_timeout=Duration.seconds(props.idle_timeout_s),
            drop_invalid_header_fields=True,
            deletion_protection=False,
        )
        # Access logs into the foundation's bucket, which grants the delivery itself (`AccessLogBucket`).
        for key, value in (
            ("enabled", "true"),
            ("bucket", props.access_logs.bucket_name),
            ("prefix", ALB_LOG_PREFIX),
        ):
            self.load_balancer.set_attribute(f"access_logs.s3.{key}", value)
        if self.tls:
            certificate = acm.Certificate.from_certificate_arn(self, "Certificate", props.certificate_arn)
            self.listener = self.load_balancer.add_listener(
                "Https",
                port=443,
                protocol=elbv2.ApplicationProtocol.HTTPS,
                certificates=[elbv2.ListenerCertificate.from_certificate_manager(certificate)],
                ssl_policy=elbv2.SslPolicy.RECOMMENDED_TLS,
                open=False,  # the ingress rules above decide who connects
            )
            self.load_balancer.add_listener(
                "HttpRedirect",
                port=80,
                protocol=elbv2.ApplicationProtocol.HTTP,
                open=False,
                default_action=elbv2.ListenerAction.redirect(protocol="HTTPS", port="443", permanent=True),
            )
        else:
            self.listener = self.load_balancer.add_listener(
                "Http", port=80, protocol=elbv2.ApplicationProtocol.HTTP, open=False
            )
        self.listener.add_action(
            "SageMakerOnlyPaths",
            priority=1,
            conditions=[elbv2.ListenerCondition.path_patterns(list(SAGEMAKER_ONLY_PATHS))],
            action=elbv2.ListenerAction.fixed_response(
                404, content_type="application/json", message_body='{"error": "not found"}'
            ),
        )
        self.dns_name = props.dns_name
        self.record: route53.ARecord | None = None
        if props.dns_name:
            self.record = self._name(props)
        if props.internet_facing:
            Validations.of(self.security_group).acknowledge(
                Acknowledgment(
                    id="AwsSolutions-EC23",
                    reason="internet_facing=true was chosen: the public ALB accepts 443 (and 80, which only "
                    "redirects to 443) from anywhere; tasks stay in isolated subnets behind it.",
                )
            )

    def _name(self, props: StreamingLoadBalancerProps) -> route53.ARecord:
        """Alias record `dns_name` -> the ALB, in an existing private zone or in a new one on the VPC."""
        zone_name = props.private_zone_name or props.dns_name.partition(".")[2]
        if props.private_zone_id:
            self.zone: route53.IHostedZone = route53.HostedZone.from_hosted_zone_attributes(
                self, "Zone", hosted_zone_id=props.private_zone_id, zone_name=zone_name
            )
        else:
            self.zone = route53.PrivateHostedZone(
                self, "Zone", zone_name=zone_name, vpc=props.vpc, comment="Statespeak: names inside the VPC"
            )
        return route53.ARecord(
            self,
            "Name",
            zone=self.zone,
            record_name=props.dns_name + ".",  # absolute: the zone's domain is not appended twice
            target=route53.RecordTarget.from_alias(route53_targets.LoadBalancerTarget(self.load_balancer)),
        )

    def admit(self, peer: ec2.ISecurityGroup, description: str) -> None:
        """Let one more security group (the kit's canary) connect to the listener's port."""
        self.security_group.add_ingress_rule(peer, ec2.Port.tcp(self.port), description)

    @property
    def url(self) -> str:
        """The base URL clients use: the private name when there is one, else the ALB's AWS DNS name."""
        scheme = "https" if self.tls else "http"
        return f"{scheme}://{self.dns_name or self.load_balancer.load_balancer_dns_name}"
