"""Who may call the service: client address ranges and security groups, applied to one entry's group."""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import aws_ec2 as ec2
from constructs import Construct


@dataclass(frozen=True)
class ClientAccess:
    """The callers of the TTS API (the internal ALB, the SageMaker runtime endpoint).

    Empty (the default): every address of the VPC (`vpc_cidr`). Otherwise exactly the listed ranges and
    security groups, for example the voice agents' group in this VPC and a peered VPC's range.
    """

    cidrs: tuple[str, ...] = ()
    """IPv4 ranges allowed to connect (e.g. a peered VPC or an on-premises range behind a VPN)."""
    security_group_ids: tuple[str, ...] = ()
    """Security groups (`sg-...`, same VPC or a peered one in the same region) whose members may connect."""

    @property
    def restricted(self) -> bool:
        """True when clients were named: the VPC range as a whole is then not admitted."""
        return bool(self.cidrs or self.security_group_ids)

    def peers(self, scope: Construct, vpc_cidr: str) -> list[tuple[ec2.IPeer, str]]:
        """(peer, description) of every client; the VPC range when none was named."""
        if not self.restricted:
            return [(ec2.Peer.ipv4(vpc_cidr), "Clients inside the VPC")]
        found: list[tuple[ec2.IPeer, str]] = [(ec2.Peer.ipv4(c), f"Client range {c}") for c in self.cidrs]
        for group_id in self.security_group_ids:
            # A plain ID (no import construct): the rule references the group and nothing else.
            found.append((ec2.Peer.security_group_id(group_id), f"Client security group {group_id}"))
        return found

    def admit(self, group: ec2.SecurityGroup, port: int, vpc_cidr: str, what: str) -> None:
        """Ingress on `port` to `group` from every client (`what` ends each rule's description)."""
        for peer, description in self.peers(group, vpc_cidr):
            group.add_ingress_rule(peer, ec2.Port.tcp(port), f"{description}: {what}")
