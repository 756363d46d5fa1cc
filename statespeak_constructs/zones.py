"""Place the kit's subnets by AZ ID, the GPU zone first, with no lookup at synth time.

AZ names (`us-east-1a`) map to different physical zones in every account; AZ IDs (`use1-az4`) do not, and
GPU capacity and FSx for Lustre PERSISTENT_2 are offered per physical zone. CloudFormation places a
subnet by ID (`AvailabilityZoneId`), so the first data subnet, where the GPU hosts, their tasks and the
file system live, goes to the GPU zone's ID, and the other data subnets (the ALB and the interface
endpoints need a second zone) to the next IDs of the region's list. Entry subnets follow the data subnet
of the same index, so an internet-facing ALB has a node in the zone its targets run in.
"""

from __future__ import annotations

from aws_cdk import aws_ec2 as ec2

# AZ IDs open to every account, in the order the kit fills the non-GPU subnets. Regions not listed here
# take zone names (`availability_zones`) instead.
REGION_ZONE_IDS: dict[str, tuple[str, ...]] = {
    "us-east-1": ("use1-az4", "use1-az6", "use1-az1", "use1-az2", "use1-az5"),
    "us-east-2": ("use2-az1", "use2-az2", "use2-az3"),
    "us-west-2": ("usw2-az1", "usw2-az2", "usw2-az3", "usw2-az4"),
    "eu-west-1": ("euw1-az1", "euw1-az2", "euw1-az3"),
    "eu-central-1": ("euc1-az2", "euc1-az1", "euc1-az3"),
    "ap-northeast-1": ("apne1-az4", "apne1-az1", "apne1-az2"),
}


def zone_ids(region: str, gpu_zone_id: str, count: int) -> list[str]:
    """`count` distinct AZ IDs of `region`, `gpu_zone_id` first."""
    known = REGION_ZONE_IDS.get(region)
    if known is None:
        raise ValueError(
            f"region {region} has no AZ ID list in the kit; set availability_zones (zone names) instead"
        )
    ids = [gpu_zone_id, *(z for z in known if z != gpu_zone_id)]
    if len(ids) < count:
        raise ValueError(f"region {region} has {len(ids)} AZ IDs in the kit's list, {count} are needed")
    return ids[:count]


def place_by_zone_id(vpc: ec2.Vpc, ids: list[str]) -> None:
    """Move the data subnets of `vpc` (and its entry subnets, index by index) to the AZ IDs `ids`."""
    for group in (vpc.isolated_subnets, vpc.public_subnets):
        for subnet, zone_id in zip(group, ids, strict=False):
            cfn: ec2.CfnSubnet = subnet.node.default_child  # type: ignore[assignment]
            cfn.add_property_deletion_override("AvailabilityZone")
            cfn.add_property_override("AvailabilityZoneId", zone_id)
