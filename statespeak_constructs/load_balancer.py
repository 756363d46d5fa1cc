"""The ALB in front of the streaming tasks: internal by default, TLS when a certificate is supplied."""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import Acknowledgment, Duration, Validations
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_elasticloadbalancingv2 as elbv2
from aws_cdk import aws_s3 as s3
from constructs import Construct

from model_server.contract import INVOCATIONS_PATH, PING_PATH

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
    """Who may connect: the VPC range (internal) or 0.0.0.0/0 (internet-facing)."""


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
        client_peer = ec2.Peer.ipv4(props.client_cidr)
        self.security_group.add_ingress_rule(client_peer, ec2.Port.tcp(self.port), "Clients of the TTS API")
        if self.tls:
            self.security_group.add_ingress_rule(
                client_peer, ec2.Port.tcp(80), "HTTP, answered by a redirect"
            )
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
        self.load_balancer.log_access_logs(props.access_logs, prefix="alb")
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
        if props.internet_facing:
            Validations.of(self.security_group).acknowledge(
                Acknowledgment(
                    id="AwsSolutions-EC23",
                    reason="internet_facing=true was chosen: the public ALB accepts 443 (and 80, which only "
                    "redirects to 443) from anywhere; tasks stay in isolated subnets behind it.",
                )
            )

    @property
    def url(self) -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://{self.load_balancer.load_balancer_dns_name}"
