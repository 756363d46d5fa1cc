"""The preflight checks: each takes the boto3 clients it reads and the config, and returns an Outcome.

A check only reads (Describe/Get/List calls); nothing here creates or changes anything in the account.
Botocore errors are not caught here: the runner turns an API refusal of one check into a `warn` row and
stops the whole run on missing credentials or an unreachable endpoint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from stacks.config import StatespeakConfig
from statespeak_constructs.endpoint_policies import takes_policy
from statespeak_constructs.network import (
    BASE_INTERFACE_SERVICES,
    SAGEMAKER_INTERFACE_SERVICES,
    SECRETS_INTERFACE_SERVICE,
)

OK, WARN, FAIL = "ok", "warn", "FAIL"

# Running On-Demand vCPU quotas (service code `ec2`) by instance family.
EC2_GPU_QUOTAS = {
    "G": ("L-DB2E81BA", "Running On-Demand G and VT instances"),
    "P": ("L-417A185B", "Running On-Demand P instances"),
}
LAMBDA_CONCURRENCY_QUOTA = ("L-B99A9384", "Concurrent executions")
NEW_ACCOUNT_LAMBDA_LIMIT = 10
# Availability zones a GPU host and a PERSISTENT_2 file system can use (not Local or Wavelength Zones).
_USABLE_OPT_IN = ("opt-in-not-required", "opted-in")
# The kit's own GPU hosts are part of the need, not competing usage: their instances carry this tag.
_STACK_TAG = "aws:cloudformation:stack-name"


@dataclass(frozen=True)
class Outcome:
    """What one check found: the need, what the account offers, the verdict, and how to fix a miss."""

    needed: str
    available: str
    verdict: str
    hint: str = ""


def quota_family(instance_type: str) -> str:
    """`G` (G and VT instances quota) or `P` (P instances quota) for an EC2 instance type."""
    return "P" if re.match(r"^p\d", instance_type) else "G"


def increase_command(service: str, code: str, value: float, region: str) -> str:
    return (
        f"aws service-quotas request-service-quota-increase --service-code {service} "
        f"--quota-code {code} --desired-value {value:g} --region {region}"
    )


def _count(value: float) -> str:
    return f"{value:g}"


# Credentials -----------------------------------------------------------------------------------------
def caller_identity(sts: Any) -> tuple[Outcome, str]:
    """Who the credentials are (sts:GetCallerIdentity needs no permission). Returns the account too."""
    identity = sts.get_caller_identity()
    account = identity["Account"]
    return Outcome("working credentials", f"account {account} ({identity['Arn']})", OK), account


# The account's ECS role ---------------------------------------------------------------------------------
ECS_SERVICE_LINKED_ROLE = "AWSServiceRoleForECS"


def ecs_service_linked_role(iam: Any) -> Outcome:
    """ECS makes its service-linked role on first use, and in an account that never had a cluster the role may
    not be there yet when the stack's capacity provider is created: the first deploy then rolls back ("ECS
    Service Linked Role does not exist"). Made once, beforehand, it cannot race."""
    needed = f"role {ECS_SERVICE_LINKED_ROLE}"
    try:
        iam.get_role(RoleName=ECS_SERVICE_LINKED_ROLE)
    except iam.exceptions.NoSuchEntityException:
        fix = "aws iam create-service-linked-role --aws-service-name ecs.amazonaws.com"
        return Outcome(needed, "missing (an account that never ran ECS)", WARN, fix)
    return Outcome(needed, "present", OK)


# VPC endpoint policies ---------------------------------------------------------------------------------
def kit_policy_endpoints(config: StatespeakConfig) -> list[str]:
    """The interface endpoints (short names) the kit creates for this config and gives a policy: the
    foundation's, the API key's Secrets Manager one, the SageMaker route's; minus those the VPC has."""
    services = list(BASE_INTERFACE_SERVICES)
    if config.secrets_endpoint:
        services.append(SECRETS_INTERFACE_SERVICE)
    if config.deploy_sagemaker:
        services += SAGEMAKER_INTERFACE_SERVICES
    return [s for s in services if takes_policy(s) and s not in config.existing_endpoint_set]


def endpoint_policies(ec2: Any, config: StatespeakConfig) -> Outcome:
    """Every endpoint the kit gives a policy is offered in the region and takes a policy
    (`VpcEndpointPolicySupported`): EC2 refuses a policy on a service that takes only full access, and the
    stack fails at that endpoint."""
    wanted = {f"com.amazonaws.{config.region}.{s}": s for s in kit_policy_endpoints(config)}
    details: dict[str, dict] = {}
    pages = ec2.get_paginator("describe_vpc_endpoint_services").paginate(
        Filters=[{"Name": "service-name", "Values": sorted(wanted)}]
    )
    for page in pages:
        details.update((d["ServiceName"], d) for d in page.get("ServiceDetails", []))
    needed = f"{len(wanted)} endpoint services with policies"
    missing = [short for name, short in wanted.items() if name not in details]
    if missing:
        return Outcome(
            needed, "not offered: " + ", ".join(missing), FAIL, "deploy in a region that offers them"
        )
    refusing = [
        short for name, short in wanted.items() if not details[name].get("VpcEndpointPolicySupported")
    ]
    if refusing:
        return Outcome(
            needed,
            "full access only: " + ", ".join(refusing),
            FAIL,
            "deploy into a VPC that has these endpoints with their full-access policy: -c vpc_id=... "
            f"-c existing_vpc_endpoints={','.join(refusing)} -c existing_endpoints_security_group_id=sg-...",
        )
    return Outcome(needed, "all offered, all take a policy", OK)


# Service quotas ---------------------------------------------------------------------------------------
def applied_quota(quotas: Any, service: str, code: str) -> float:
    """The account's value of a quota: the applied one, or AWS's default where none was ever applied."""
    try:
        return float(quotas.get_service_quota(ServiceCode=service, QuotaCode=code)["Quota"]["Value"])
    except quotas.exceptions.NoSuchResourceException:
        return float(
            quotas.get_aws_default_service_quota(ServiceCode=service, QuotaCode=code)["Quota"]["Value"]
        )


def _find_by_name(quotas: Any, operation: str, service: str, name: str) -> dict | None:
    for page in quotas.get_paginator(operation).paginate(ServiceCode=service):
        for quota in page["Quotas"]:
            if quota["QuotaName"] == name:
                return quota
    return None


def quota_by_name(quotas: Any, service: str, name: str) -> dict | None:
    """A quota found by its name (SageMaker has one per instance type and use, so no fixed code list).

    ListServiceQuotas returns only quotas with an applied value; AWS's default list holds every quota of
    the region, so it is searched when the applied list has no match.
    """
    return _find_by_name(quotas, "list_service_quotas", service, name) or _find_by_name(
        quotas, "list_aws_default_service_quotas", service, name
    )


def sagemaker_quota_name(instance_type: str) -> str:
    return f"{instance_type} for endpoint usage"


# ECS route -------------------------------------------------------------------------------------------
def instance_vcpus(ec2: Any, instance_type: str) -> int:
    types = ec2.describe_instance_types(InstanceTypes=[instance_type])["InstanceTypes"]
    return int(types[0]["VCpuInfo"]["DefaultVCpus"])


def on_demand_vcpus_in_use(ec2: Any, family: str, exclude_stack: str) -> int:
    """vCPUs of running On-Demand instances in the quota's family, without the kit's own GPU hosts."""
    pattern = re.compile(r"^p\d" if family == "P" else r"^(g|vt)\d")
    used = 0
    pages = ec2.get_paginator("describe_instances").paginate(
        Filters=[{"Name": "instance-state-name", "Values": ["pending", "running"]}]
    )
    for page in pages:
        for reservation in page["Reservations"]:
            for instance in reservation["Instances"]:
                if not pattern.match(instance["InstanceType"]) or instance.get("InstanceLifecycle") == "spot":
                    continue
                tags = {t["Key"]: t["Value"] for t in instance.get("Tags", [])}
                if tags.get(_STACK_TAG) == exclude_stack:
                    continue
                cpu = instance.get("CpuOptions", {})
                used += int(cpu.get("CoreCount", 0)) * int(cpu.get("ThreadsPerCore", 1))
    return used


def ec2_gpu_vcpus(ec2: Any, quotas: Any, config: StatespeakConfig) -> Outcome:
    """The vCPU quota of the GPU family against the cluster's largest size (2 x max_replicas hosts).

    FAIL when not even `min_replicas` hosts fit (the first deploy waits for hours with tasks in
    PROVISIONING); warn when the full size does not (scale-out and rolling deploys stall at the quota).
    """
    itype = config.ecs_instance_type
    family = quota_family(itype)
    code, _ = EC2_GPU_QUOTAS[family]
    vcpus = instance_vcpus(ec2, itype)
    hosts = 2 * config.max_replicas  # stacks/ecs_service.py: room for a 200% rolling deploy
    needed, start = hosts * vcpus, config.min_replicas * vcpus
    limit = applied_quota(quotas, "ec2", code)
    in_use = on_demand_vcpus_in_use(ec2, family, exclude_stack=config.stack_name("Ecs"))
    free = limit - in_use
    shown_needed = f"{needed} vCPUs ({hosts} x {itype} at {vcpus}); {start} to start"
    shown_free = f"{_count(free)} vCPUs (quota {_count(limit)}, {in_use} in use)"
    fix = increase_command("ec2", code, needed + in_use, config.region)
    if free < start:
        return Outcome(shown_needed, shown_free, FAIL, fix)
    if free < needed:
        return Outcome(shown_needed, shown_free, WARN, fix)
    return Outcome(shown_needed, shown_free, OK)


def gpu_zone_label(config: StatespeakConfig) -> str:
    """Where the GPU hosts go: the first of `availability_zones` when the kit's VPC is placed by zone
    names, else the AZ ID `gpu_az_id` (or the region's default)."""
    return config.gpu_zone_name or config.gpu_zone_id


def gpu_zone(ec2: Any, config: StatespeakConfig) -> Outcome:
    """The GPU zone (by AZ ID, or by name) exists in the region, is available and opted in (not a Local
    Zone)."""
    zone_id = gpu_zone_label(config)
    by = "zone-name" if config.gpu_zone_name else "zone-id"
    zones = ec2.describe_availability_zones(
        AllAvailabilityZones=True, Filters=[{"Name": by, "Values": [zone_id]}]
    )["AvailabilityZones"]
    needed = f"an available zone of {config.region}"
    if not zones:
        return Outcome(
            needed,
            f"no zone {zone_id} in {config.region}",
            FAIL,
            f"set -c gpu_az_id= to a zone ID that `aws ec2 describe-availability-zones --region {config.region}` lists",
        )
    zone = zones[0]
    shown = f"{zone['ZoneName']}: {zone.get('State')}, {zone.get('OptInStatus')}"
    usable = (
        zone.get("State") == "available"
        and zone.get("OptInStatus") in _USABLE_OPT_IN
        and zone.get("ZoneType", "availability-zone") == "availability-zone"
    )
    if not usable:
        return Outcome(needed, f"{shown}, {zone.get('ZoneType')}", FAIL, "choose another -c gpu_az_id=")
    return Outcome(needed, shown, OK)


def instance_offered_in_zone(ec2: Any, config: StatespeakConfig) -> Outcome:
    itype, zone_id = config.ecs_instance_type, gpu_zone_label(config)
    location_type = "availability-zone" if config.gpu_zone_name else "availability-zone-id"
    offers = ec2.describe_instance_type_offerings(
        LocationType=location_type,
        Filters=[
            {"Name": "location", "Values": [zone_id]},
            {"Name": "instance-type", "Values": [itype]},
        ],
    )["InstanceTypeOfferings"]
    if not offers:
        return Outcome(
            f"{itype} in {zone_id}",
            "not offered",
            FAIL,
            f"aws ec2 describe-instance-type-offerings --location-type {location_type} --filters "
            f"Name=instance-type,Values={itype} --region {config.region}: pick a listed zone (-c gpu_az_id=)",
        )
    return Outcome(f"{itype} in {zone_id}", "offered", OK)


def fsx_in_region(ssm: Any, config: StatespeakConfig) -> Outcome:
    """FSx is a service of the region (SSM's public global-infrastructure parameters).

    No API says which deployment types a zone accepts: that PERSISTENT_2 takes the GPU zone is known only
    when CloudFormation creates the file system (it fails within minutes, before any GPU host starts).
    """
    name = f"/aws/service/global-infrastructure/regions/{config.region}/services/fsx"
    needed = f"FSx in {config.region}"
    try:
        ssm.get_parameter(Name=name)
    except ssm.exceptions.ParameterNotFound:
        return Outcome(needed, "not listed", FAIL, "use -c weights_storage=efs or another region")
    return Outcome(needed, "listed; PERSISTENT_2 per zone: no API", OK)


# SageMaker route -------------------------------------------------------------------------------------
def sagemaker_instance_offered(quotas: Any, config: StatespeakConfig) -> Outcome:
    """The region offers the type for endpoints: it has a `<type> for endpoint usage` quota at all."""
    itype = config.sagemaker_instance_type
    found = _find_by_name(quotas, "list_aws_default_service_quotas", "sagemaker", sagemaker_quota_name(itype))
    if found is None:
        return Outcome(
            f"{itype} for endpoints in {config.region}",
            "not offered",
            FAIL,
            "choose another -c sagemaker_instance_type= or region",
        )
    return Outcome(f"{itype} for endpoints in {config.region}", "offered", OK)


def sagemaker_endpoint_instances(quotas: Any, config: StatespeakConfig) -> Outcome:
    """The endpoint-usage quota of the type against max_replicas (FAIL below min_replicas).

    Instances of other endpoints of the same type count against the same quota; the value shown is the
    quota, not what is left of it.
    """
    itype = config.sagemaker_instance_type
    needed = f"{config.max_replicas} instances; {config.min_replicas} to start"
    quota = quota_by_name(quotas, "sagemaker", sagemaker_quota_name(itype))
    if quota is None:
        return Outcome(needed, f"no quota for {itype} in {config.region}", FAIL)
    limit = float(quota["Value"])
    fix = increase_command("sagemaker", quota["QuotaCode"], config.max_replicas, config.region)
    shown = f"{_count(limit)} instances ({quota['QuotaCode']})"
    if limit < config.min_replicas:
        return Outcome(needed, shown, FAIL, fix)
    if limit < config.max_replicas:
        return Outcome(needed, shown, WARN, fix)
    return Outcome(needed, shown, OK)


def model_package_region(config: StatespeakConfig) -> Outcome:
    """A Marketplace model package can only be deployed in its own region."""
    package_region = config.model_package_arn.split(":")[3]
    if package_region != config.region:
        return Outcome(
            config.region,
            package_region,
            FAIL,
            f"subscribe to the package's {config.region} ARN, or deploy with -c region={package_region}",
        )
    return Outcome(config.region, package_region, OK)


# Lambda ------------------------------------------------------------------------------------------------
def kit_functions(config: StatespeakConfig) -> list[str]:
    """The kit's Lambda functions for this config, each able to run once at the same time."""
    functions = ["bundled-weights upload (deploy time)"]
    if config.deploy_ecs:
        # Lifts the GPU hosts' scale-in protection when the stack (or a failed first deploy) is deleted.
        functions += ["capacity release (deploy time)", "capacity release provider (deploy time)"]
    if config.deploy_ecs and not config.internet_facing:
        functions.append("ECS canary")
    if config.weights_storage == "efs":
        # The weights bucket's EventBridge switch (foundation, whatever the route) is a CDK-made function.
        functions.append("bucket notifications (deploy time)")
    if config.deploy_ecs and config.weights_storage == "efs":
        functions += ["weights sync", "weights sync provider (deploy time)"]
    if config.deploy_sagemaker and config.sagemaker_autoscaling:
        # Hands autoscaling over around an endpoint update (a new instance type).
        functions += ["scaling handover (deploy time)", "scaling handover provider (deploy time)"]
    if config.deploy_sagemaker and (config.marketplace_canary_voice or not config.model_package_arn):
        functions.append("SageMaker canary")
    return functions


def lambda_concurrency(lambda_client: Any, config: StatespeakConfig) -> Outcome:
    """Unreserved concurrency covers the kit's functions, and the account is past the new-account 10."""
    limit = lambda_client.get_account_settings()["AccountLimit"]
    total, unreserved = limit["ConcurrentExecutions"], limit["UnreservedConcurrentExecutions"]
    count = len(kit_functions(config))
    needed = f"{count} unreserved; limit above {NEW_ACCOUNT_LAMBDA_LIMIT}"
    shown = f"{unreserved} unreserved of {total}"
    code, name = LAMBDA_CONCURRENCY_QUOTA
    fix = f"raise Lambda '{name}' ({code}): " + increase_command("lambda", code, 1000, config.region)
    if unreserved < count:
        return Outcome(needed, shown, FAIL, fix)
    if total <= NEW_ACCOUNT_LAMBDA_LIMIT:
        return Outcome(needed, shown, WARN, fix)
    return Outcome(needed, shown, OK)
