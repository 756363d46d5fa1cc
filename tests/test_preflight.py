"""`python -m tools.preflight`: every check against botocore Stubber responses, the runner, the table, the
exit codes, and the real CLI without credentials or without a reachable endpoint (no network used)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber

from stacks.config import StatespeakConfig
from tools.preflight import checks
from tools.preflight.__main__ import main
from tools.preflight.checks import FAIL, OK, WARN
from tools.preflight.render import render, table
from tools.preflight.runner import Clients, make_clients, plan, run

REPO_ROOT = Path(__file__).resolve().parents[1]
REGION = "us-east-1"
ACCOUNT = "123456789012"
G_QUOTA, P_QUOTA, LAMBDA_QUOTA = "L-DB2E81BA", "L-417A185B", "L-B99A9384"
SAGEMAKER_QUOTA = "L-A1B2C3D4"  # made-up code: the check must find it by name, never assume it
PACKAGE_ARN = f"arn:aws:sagemaker:{REGION}:865070037744:model-package/sonic-tts"


# Your own VPC (issue 13): its subnets' zone names sit next to gpu_az_id.
ESTATE_KEYS = {
    "vpc_id": "vpc-0a1b2c3d4e5f60718",
    "vpc_cidr": "10.20.0.0/16",
    "availability_zones": "us-east-1a,us-east-1b",
    "data_subnet_ids": "subnet-0aaaaaaaaaaaaaaa1,subnet-0bbbbbbbbbbbbbbb2",
    "data_route_table_ids": "rtb-0aaaaaaaaaaaaaaa1,rtb-0bbbbbbbbbbbbbbb2",
}


def config(**context) -> StatespeakConfig:
    """cdk.json's shipped defaults (the ones the checks read), with overrides."""
    base = {"deployment": "ecs", "region": REGION, "ecs_instance_type": "g6.xlarge", "min_replicas": 2}
    return StatespeakConfig.from_context({**base, **context})


@pytest.fixture
def clients() -> Iterator[tuple[Clients, dict[str, Stubber]]]:
    """Real boto3 clients (fake keys), each wired to a Stubber; fails if a queued response is left."""
    session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION)
    made = make_clients(REGION, session)
    stubs = {name: Stubber(getattr(made, name)) for name in ("sts", "ec2", "quotas", "lambda_", "ssm", "iam")}
    for stub in stubs.values():
        stub.activate()
    yield made, stubs
    for stub in stubs.values():
        stub.assert_no_pending_responses()
        stub.deactivate()


# Stubbed responses ------------------------------------------------------------------------------------
def stub_vcpus(ec2: Stubber, instance_type: str, vcpus: int) -> None:
    ec2.add_response(
        "describe_instance_types",
        {"InstanceTypes": [{"InstanceType": instance_type, "VCpuInfo": {"DefaultVCpus": vcpus}}]},
        {"InstanceTypes": [instance_type]},
    )


def stub_quota(quotas: Stubber, service: str, code: str, value: float, applied: bool = True) -> None:
    params = {"ServiceCode": service, "QuotaCode": code}
    if applied:
        quotas.add_response("get_service_quota", {"Quota": {"QuotaCode": code, "Value": value}}, params)
    else:
        quotas.add_client_error("get_service_quota", "NoSuchResourceException", expected_params=params)
        quotas.add_response(
            "get_aws_default_service_quota", {"Quota": {"QuotaCode": code, "Value": value}}, params
        )


def instance(itype: str, cores: int, threads: int = 2, stack: str = "", spot: bool = False) -> dict:
    found = {"InstanceType": itype, "CpuOptions": {"CoreCount": cores, "ThreadsPerCore": threads}}
    if stack:
        found["Tags"] = [{"Key": "aws:cloudformation:stack-name", "Value": stack}]
    if spot:
        found["InstanceLifecycle"] = "spot"
    return found


def stub_running(ec2: Stubber, *instances: dict) -> None:
    ec2.add_response(
        "describe_instances",
        {"Reservations": [{"Instances": list(instances)}]} if instances else {"Reservations": []},
        {"Filters": [{"Name": "instance-state-name", "Values": ["pending", "running"]}]},
    )


def quota_entry(name: str, code: str, value: float) -> dict:
    return {"QuotaName": name, "QuotaCode": code, "Value": value, "ServiceCode": "sagemaker"}


def stub_quota_pages(quotas: Stubber, operation: str, pages: list[list[dict]]) -> None:
    """One response per page, each but the last with a NextToken, each expecting the previous token."""
    for i, page in enumerate(pages):
        response: dict = {"Quotas": page}
        if i < len(pages) - 1:
            response["NextToken"] = f"page-{i + 1}"
        params = {"ServiceCode": "sagemaker"}
        if i:
            params["NextToken"] = f"page-{i}"
        quotas.add_response(operation, response, params)


def stub_zone(ec2: Stubber, zone_id: str, zones: list[dict], by: str = "zone-id") -> None:
    ec2.add_response(
        "describe_availability_zones",
        {"AvailabilityZones": zones},
        {"AllAvailabilityZones": True, "Filters": [{"Name": by, "Values": [zone_id]}]},
    )


def stub_offerings(
    ec2: Stubber, itype: str, zone_id: str, offered: bool, location_type: str = "availability-zone-id"
) -> None:
    offers = [{"InstanceType": itype, "LocationType": location_type, "Location": zone_id}]
    ec2.add_response(
        "describe_instance_type_offerings",
        {"InstanceTypeOfferings": offers if offered else []},
        {
            "LocationType": location_type,
            "Filters": [
                {"Name": "location", "Values": [zone_id]},
                {"Name": "instance-type", "Values": [itype]},
            ],
        },
    )


def stub_fsx(ssm: Stubber, listed: bool = True) -> None:
    name = f"/aws/service/global-infrastructure/regions/{REGION}/services/fsx"
    if listed:
        ssm.add_response("get_parameter", {"Parameter": {"Name": name, "Value": "fsx"}}, {"Name": name})
    else:
        ssm.add_client_error("get_parameter", "ParameterNotFound", expected_params={"Name": name})


def stub_lambda(lambda_: Stubber, total: int, unreserved: int) -> None:
    limit = {"ConcurrentExecutions": total, "UnreservedConcurrentExecutions": unreserved}
    lambda_.add_response("get_account_settings", {"AccountLimit": limit}, {})


def stub_ecs_role(iam: Stubber, present: bool = True) -> None:
    params = {"RoleName": "AWSServiceRoleForECS"}
    if present:
        role = {
            "Path": "/aws-service-role/ecs.amazonaws.com/",
            "RoleName": "AWSServiceRoleForECS",
            "RoleId": "AROAEXAMPLEEXAMPLE123",
            "Arn": f"arn:aws:iam::{ACCOUNT}:role/aws-service-role/ecs.amazonaws.com/AWSServiceRoleForECS",
            "CreateDate": "2024-01-01T00:00:00Z",
        }
        iam.add_response("get_role", {"Role": role}, params)
    else:
        iam.add_client_error("get_role", "NoSuchEntity", "role not found", 404, expected_params=params)


def stub_endpoint_services(ec2: Stubber, config: StatespeakConfig, refusing=(), missing=()) -> None:
    """describe_vpc_endpoint_services for the kit's policy endpoints, in two pages."""
    names = sorted(f"com.amazonaws.{REGION}.{s}" for s in checks.kit_policy_endpoints(config))
    details = [
        {"ServiceName": n, "VpcEndpointPolicySupported": n.rsplit(f"{REGION}.", 1)[1] not in refusing}
        for n in names
        if n.rsplit(f"{REGION}.", 1)[1] not in missing
    ]
    expected = {"Filters": [{"Name": "service-name", "Values": names}]}
    ec2.add_response(
        "describe_vpc_endpoint_services", {"ServiceDetails": details[:2], "NextToken": "t"}, expected
    )
    ec2.add_response(
        "describe_vpc_endpoint_services", {"ServiceDetails": details[2:]}, {**expected, "NextToken": "t"}
    )


def stub_identity(sts: Stubber) -> None:
    arn = f"arn:aws:iam::{ACCOUNT}:user/deployer"
    sts.add_response("get_caller_identity", {"Account": ACCOUNT, "Arn": arn, "UserId": "AIDAEXAMPLE"}, {})


USE1_AZ4 = {
    "ZoneName": "us-east-1c",
    "ZoneId": "use1-az4",
    "State": "available",
    "OptInStatus": "opt-in-not-required",
    "ZoneType": "availability-zone",
}


# EC2 vCPU quota ---------------------------------------------------------------------------------------
def test_gpu_vcpus_pass_when_the_quota_covers_twice_max_replicas(clients):
    made, stubs = clients
    stub_vcpus(stubs["ec2"], "g6.xlarge", 4)
    stub_quota(stubs["quotas"], "ec2", G_QUOTA, 64)
    # The kit's own host (tag) and a spot instance do not count against the On-Demand quota.
    stub_running(
        stubs["ec2"], instance("g6.xlarge", 2, stack="Statespeak-Ecs"), instance("g5.xlarge", 2, spot=True)
    )
    outcome = checks.ec2_gpu_vcpus(made.ec2, made.quotas, config(max_replicas=8))
    assert outcome.verdict == OK
    assert outcome.needed.startswith("64 vCPUs (16 x g6.xlarge at 4)")
    assert "64 vCPUs (quota 64, 0 in use)" == outcome.available


def test_gpu_vcpus_subtract_other_instances_of_the_family(clients):
    made, stubs = clients
    stub_vcpus(stubs["ec2"], "g6.xlarge", 4)
    stub_quota(stubs["quotas"], "ec2", G_QUOTA, 64)
    stub_running(
        stubs["ec2"], instance("g5.2xlarge", 4), instance("c7i.large", 1), instance("vt1.3xlarge", 6)
    )
    outcome = checks.ec2_gpu_vcpus(made.ec2, made.quotas, config(max_replicas=8))
    assert outcome.available == "44 vCPUs (quota 64, 20 in use)"  # g5 8 + vt1 12; c7i is another quota
    assert outcome.verdict == WARN  # the first deploy fits (8), the full cluster (64) does not
    assert f"--quota-code {G_QUOTA} --desired-value 84" in outcome.hint


def test_gpu_vcpus_fail_below_min_replicas_with_the_default_quota(clients):
    made, stubs = clients
    stub_vcpus(stubs["ec2"], "g6.xlarge", 4)
    stub_quota(stubs["quotas"], "ec2", G_QUOTA, 0, applied=False)  # never raised: AWS's default applies
    stub_running(stubs["ec2"])
    outcome = checks.ec2_gpu_vcpus(made.ec2, made.quotas, config())
    assert outcome.verdict == FAIL
    assert outcome.available == "0 vCPUs (quota 0, 0 in use)"
    assert "request-service-quota-increase --service-code ec2" in outcome.hint


def test_p_family_reads_the_p_instances_quota(clients):
    made, stubs = clients
    stub_vcpus(stubs["ec2"], "p5.48xlarge", 192)
    stub_quota(stubs["quotas"], "ec2", P_QUOTA, 192 * 4)
    stub_running(stubs["ec2"], instance("g6.xlarge", 2))  # a G host does not use the P quota
    outcome = checks.ec2_gpu_vcpus(
        made.ec2, made.quotas, config(ecs_instance_type="p5.48xlarge", max_replicas=2)
    )
    assert outcome.verdict == OK
    assert outcome.available == "768 vCPUs (quota 768, 0 in use)"


# Zone, instance offering, FSx -----------------------------------------------------------------------
def test_gpu_zone_available(clients):
    made, stubs = clients
    stub_zone(stubs["ec2"], "use1-az4", [USE1_AZ4])
    outcome = checks.gpu_zone(made.ec2, config())
    assert (outcome.verdict, outcome.available) == (OK, "us-east-1c: available, opt-in-not-required")


@pytest.mark.parametrize(
    "zones",
    [[], [{**USE1_AZ4, "OptInStatus": "not-opted-in"}], [{**USE1_AZ4, "State": "impaired"}]],
    ids=["unknown", "not-opted-in", "impaired"],
)
def test_gpu_zone_fails_when_missing_or_unusable(clients, zones):
    made, stubs = clients
    stub_zone(stubs["ec2"], "use1-az9", zones)
    outcome = checks.gpu_zone(made.ec2, config(gpu_az_id="use1-az9"))
    assert outcome.verdict == FAIL


@pytest.mark.parametrize("offered", [True, False])
def test_instance_offered_in_the_gpu_zone_by_az_id(clients, offered):
    made, stubs = clients
    stub_offerings(stubs["ec2"], "g6.xlarge", "use1-az4", offered)
    outcome = checks.instance_offered_in_zone(made.ec2, config())
    assert outcome.verdict == (OK if offered else FAIL)
    assert outcome.needed == "g6.xlarge in use1-az4"


def test_zone_names_put_the_gpu_hosts_in_the_first_and_preflight_checks_that_one(clients):
    """With `availability_zones` the kit's VPC is placed by name (GPU hosts in the first), not by AZ ID."""
    made, stubs = clients
    named = config(availability_zones="us-east-1b,us-east-1c")
    stub_zone(stubs["ec2"], "us-east-1b", [{**USE1_AZ4, "ZoneName": "us-east-1b"}], by="zone-name")
    stub_offerings(stubs["ec2"], "g6.xlarge", "us-east-1b", True, location_type="availability-zone")
    assert checks.gpu_zone(made.ec2, named).verdict == OK
    assert checks.instance_offered_in_zone(made.ec2, named).needed == "g6.xlarge in us-east-1b"
    assert "GPU zone us-east-1b" in [title for title, _ in plan(named)]
    # Your own VPC: the zone names describe your subnets; the GPU zone is still gpu_az_id.
    assert checks.gpu_zone_label(config(**ESTATE_KEYS, gpu_az_id="use1-az6")) == "use1-az6"


@pytest.mark.parametrize("listed", [True, False])
def test_fsx_offered_in_the_region(clients, listed):
    made, stubs = clients
    stub_fsx(stubs["ssm"], listed)
    outcome = checks.fsx_in_region(made.ssm, config())
    assert outcome.verdict == (OK if listed else FAIL)
    if listed:
        assert "PERSISTENT_2 per zone: no API" in outcome.available


# SageMaker ---------------------------------------------------------------------------------------------
def test_sagemaker_quota_found_by_name_across_pages(clients):
    made, stubs = clients
    stub_quota_pages(
        stubs["quotas"],
        "list_service_quotas",
        [
            [quota_entry("ml.g5.xlarge for endpoint usage", "L-11111111", 4)],
            [quota_entry("ml.g6e.xlarge for training job usage", "L-22222222", 8)],
            [quota_entry("ml.g6e.xlarge for endpoint usage", SAGEMAKER_QUOTA, 8)],
        ],
    )
    outcome = checks.sagemaker_endpoint_instances(made.quotas, config(deployment="sagemaker"))
    assert outcome.verdict == OK
    assert outcome.available == f"8 instances ({SAGEMAKER_QUOTA})"


def test_sagemaker_quota_falls_back_to_the_default_and_fails_at_zero(clients):
    made, stubs = clients
    stub_quota_pages(stubs["quotas"], "list_service_quotas", [[]])  # nothing applied in this account
    stub_quota_pages(
        stubs["quotas"],
        "list_aws_default_service_quotas",
        [[], [quota_entry("ml.g6e.xlarge for endpoint usage", SAGEMAKER_QUOTA, 0)]],
    )
    outcome = checks.sagemaker_endpoint_instances(made.quotas, config(deployment="sagemaker"))
    assert outcome.verdict == FAIL
    assert f"--service-code sagemaker --quota-code {SAGEMAKER_QUOTA} --desired-value 8" in outcome.hint


def test_sagemaker_quota_between_min_and_max_warns(clients):
    made, stubs = clients
    stub_quota_pages(
        stubs["quotas"], "list_service_quotas", [[quota_entry("ml.g6e.xlarge for endpoint usage", "L-1", 2)]]
    )
    outcome = checks.sagemaker_endpoint_instances(made.quotas, config(deployment="sagemaker"))
    assert outcome.verdict == WARN


@pytest.mark.parametrize("offered", [True, False])
def test_sagemaker_instance_offered_in_the_region(clients, offered):
    made, stubs = clients
    page = [quota_entry("ml.g6e.xlarge for endpoint usage", SAGEMAKER_QUOTA, 0)] if offered else []
    stub_quota_pages(
        stubs["quotas"], "list_aws_default_service_quotas", [[quota_entry("other", "L-9", 1)], page]
    )
    outcome = checks.sagemaker_instance_offered(made.quotas, config(deployment="sagemaker"))
    assert outcome.verdict == (OK if offered else FAIL)


def test_marketplace_package_region():
    # A package of another region never gets this far: the configuration refuses it (exit 2, below).
    outcome = checks.model_package_region(config(deployment="sagemaker", model_package_arn=PACKAGE_ARN))
    assert (outcome.verdict, outcome.available) == (OK, REGION)


# Lambda ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "total,unreserved,verdict",
    [(1000, 1000, OK), (10, 10, WARN), (1000, 1, FAIL)],
    ids=["ok", "new-account", "reserved-away"],
)
def test_lambda_concurrency(clients, total, unreserved, verdict):
    made, stubs = clients
    stub_lambda(stubs["lambda_"], total, unreserved)
    outcome = checks.lambda_concurrency(made.lambda_, config())
    assert outcome.verdict == verdict
    if verdict != OK:
        assert "'Concurrent executions' (L-B99A9384)" in outcome.hint


def test_kit_functions_follow_the_deployment():
    # weights upload, capacity release + provider, ECS canary
    assert len(checks.kit_functions(config())) == 4
    # + bucket notifications, weights sync + provider, scaling handover + provider, SageMaker canary
    assert len(checks.kit_functions(config(deployment="both", weights_storage="efs"))) == 10
    # weights upload, scaling handover + provider: a package's voices are unknown, so no canary
    assert len(checks.kit_functions(config(deployment="sagemaker", model_package_arn=PACKAGE_ARN))) == 3
    marketplace_canary = config(
        deployment="sagemaker",
        model_package_arn=PACKAGE_ARN,
        marketplace_canary_voice="v1",
        sagemaker_autoscaling=False,
    )
    assert len(checks.kit_functions(marketplace_canary)) == 2


# Each route on EFS beyond the shared variants: EFS adds the foundation's bucket-notifications function and,
# on the ECS route, the weights sync and its provider; the internal ALB keeps the ECS canary.
_EFS_ROUTES = {
    f"{route}-efs": {"deployment": route, "weights_storage": "efs"} for route in ("ecs", "sagemaker", "both")
}


@pytest.mark.parametrize("variant", ["default", "full", *_EFS_ROUTES])
def test_kit_functions_are_the_functions_the_app_synthesizes(synth, variant):
    """The concurrency check counts exactly the Lambda functions the templates of that context hold."""
    from stacks.config import load_context
    from tests.conftest import VARIANTS

    context = {**VARIANTS, **_EFS_ROUTES}[variant]
    result = synth(**context)
    assert result.error is None, result.error
    functions = [
        k
        for t in result.templates.values()
        for k, r in t["Resources"].items()
        if r["Type"] == "AWS::Lambda::Function"
    ]
    as_deployed = StatespeakConfig.from_context(load_context(context))  # cdk.json + the variant
    assert len(functions) == len(checks.kit_functions(as_deployed)), sorted(functions)


# VPC endpoint policies ---------------------------------------------------------------------------------
def test_the_policy_endpoints_follow_the_deployment():
    base = ["ecr.api", "ecr.dkr", "logs", "monitoring", "ecs", "sts"]  # ecs-agent, ecs-telemetry: full access
    assert checks.kit_policy_endpoints(config()) == base
    both = config(deployment="both", api_key_auth=True)
    assert checks.kit_policy_endpoints(both) == [
        *base,
        "secretsmanager",
        "sagemaker.runtime",
        "sagemaker.api",
    ]
    own = config(
        **ESTATE_KEYS, existing_vpc_endpoints="sts,ecs", existing_endpoints_security_group_id="sg-0a1b2c3d"
    )
    assert checks.kit_policy_endpoints(own) == ["ecr.api", "ecr.dkr", "logs", "monitoring"]


@pytest.mark.parametrize("variant", ["default", "full", *_EFS_ROUTES])
def test_the_policy_endpoints_are_the_endpoints_the_app_gives_a_policy(synth, variant):
    """The check asks about exactly the interface endpoints whose template carries a PolicyDocument, and
    the ECS agent's two (which EC2 accepts with the full-access policy only) carry none."""
    from stacks.config import load_context
    from tests.conftest import VARIANTS

    context = {**VARIANTS, **_EFS_ROUTES}[variant]
    result = synth(**context)
    assert result.error is None, result.error
    with_policy, without = set(), set()
    for template in result.templates.values():
        for resource in template["Resources"].values():
            props = resource.get("Properties", {})
            if resource["Type"] != "AWS::EC2::VPCEndpoint" or props.get("VpcEndpointType") != "Interface":
                continue
            short = props["ServiceName"].split(f".{REGION}.", 1)[1]
            (with_policy if props.get("PolicyDocument") else without).add(short)
    as_deployed = StatespeakConfig.from_context(load_context(context))
    assert with_policy == set(checks.kit_policy_endpoints(as_deployed))
    assert without == {"ecs-agent", "ecs-telemetry"}


@pytest.mark.parametrize(
    ("refusing", "missing", "verdict", "shown"),
    [
        ((), (), OK, "all offered, all take a policy"),
        (("ecs",), (), FAIL, "full access only: ecs"),
        ((), ("sts",), FAIL, "not offered: sts"),
    ],
    ids=["ok", "full-access-only", "not-offered"],
)
def test_endpoint_policies_are_taken_by_every_service(clients, refusing, missing, verdict, shown):
    made, stubs = clients
    stub_endpoint_services(stubs["ec2"], config(), refusing, missing)
    outcome = checks.endpoint_policies(made.ec2, config())
    assert (outcome.verdict, outcome.available) == (verdict, shown)
    if refusing:
        assert "-c existing_vpc_endpoints=ecs " in outcome.hint


# Runner, table, exit codes ----------------------------------------------------------------------------
@pytest.mark.parametrize(("present", "verdict"), [(True, checks.OK), (False, WARN)])
def test_the_ecs_service_linked_role(clients, present, verdict):
    made, stubs = clients
    stub_ecs_role(stubs["iam"], present)
    outcome = checks.ecs_service_linked_role(made.iam)
    assert outcome.verdict == verdict
    if not present:
        assert outcome.hint == "aws iam create-service-linked-role --aws-service-name ecs.amazonaws.com"


def test_plan_follows_the_deployment():
    ecs = [title for title, _ in plan(config())]
    assert ecs == [
        "ECS service-linked role",
        "EC2 Running On-Demand G and VT instances",
        "GPU zone use1-az4",
        "EC2 g6.xlarge offered in zone",
        "FSx for Lustre PERSISTENT_2 in use1-az4",
        "VPC endpoint policies",
        "Lambda concurrency",
    ]
    assert not any("FSx" in t for t, _ in plan(config(weights_storage="efs")))
    sagemaker = [t for t, _ in plan(config(deployment="sagemaker", model_package_arn=PACKAGE_ARN))]
    assert sagemaker[0] == "Marketplace model package region"
    assert "SageMaker ml.g6e.xlarge for endpoint usage" in sagemaker
    assert not any(t.startswith("EC2") for t in sagemaker)
    assert len(plan(config(deployment="both"))) == len(ecs) + 2


def test_clients_ask_the_deployment_region_and_ssm_global_infrastructure_in_us_east_1():
    session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing")
    made = make_clients("eu-west-1", session)
    assert {made.ec2.meta.region_name, made.quotas.meta.region_name, made.lambda_.meta.region_name} == {
        "eu-west-1"
    }
    assert made.ssm.meta.region_name == "us-east-1"


def stub_ecs_run(stubs: dict[str, Stubber], g_quota: float) -> None:
    """Every response a default ECS run asks for, in order."""
    stub_identity(stubs["sts"])
    stub_ecs_role(stubs["iam"])
    stub_vcpus(stubs["ec2"], "g6.xlarge", 4)
    stub_quota(stubs["quotas"], "ec2", G_QUOTA, g_quota)
    stub_running(stubs["ec2"])
    stub_zone(stubs["ec2"], "use1-az4", [USE1_AZ4])
    stub_offerings(stubs["ec2"], "g6.xlarge", "use1-az4", True)
    stub_fsx(stubs["ssm"])
    stub_endpoint_services(stubs["ec2"], config())
    stub_lambda(stubs["lambda_"], 1000, 1000)


def test_run_turns_an_api_refusal_into_a_warn_row(clients):
    made, stubs = clients
    stub_identity(stubs["sts"])
    stub_ecs_role(stubs["iam"])
    stubs["ec2"].add_client_error("describe_instance_types", "UnauthorizedOperation", "not allowed")
    stub_zone(stubs["ec2"], "use1-az4", [USE1_AZ4])
    stub_offerings(stubs["ec2"], "g6.xlarge", "use1-az4", True)
    stub_fsx(stubs["ssm"])
    stub_endpoint_services(stubs["ec2"], config())
    stub_lambda(stubs["lambda_"], 1000, 1000)
    report = run(config(), made)
    assert report.account == ACCOUNT
    first = report.rows[2]
    assert (first.verdict, first.available) == (
        WARN,
        "not checked: UnauthorizedOperation (DescribeInstanceTypes)",
    )
    assert not report.failed


def test_table_has_one_aligned_row_per_check(clients):
    made, stubs = clients
    stub_ecs_run(stubs, g_quota=32)
    report = run(config(), made)
    text = table(report)
    lines = text.splitlines()
    assert lines[0].split() == ["check", "needed", "available", "verdict"]
    assert set(lines[1]) <= {"-", " "}
    assert len(lines) == 2 + len(report.rows)
    verdict_column = lines[0].index("verdict")
    assert [line[verdict_column:].strip() for line in lines[2:]] == [
        "ok",
        "ok",
        "warn",
        "ok",
        "ok",
        "ok",
        "ok",
        "ok",
    ]
    full = render(report, config())
    assert f"account {ACCOUNT}, region {REGION}, deployment=ecs" in full
    assert "- EC2 Running On-Demand G and VT instances (warn): aws service-quotas" in full
    assert "PERSISTENT_2 in the GPU zone" in full  # said as not checkable
    assert full.rstrip().endswith("7 ok, 1 warn, 0 FAIL")


@pytest.mark.parametrize("g_quota,code", [(64, 0), (32, 0), (0, 1)], ids=["ok", "warn", "fail"])
def test_exit_code_follows_the_worst_verdict(clients, capsys, g_quota, code):
    made, stubs = clients
    stub_ecs_run(stubs, g_quota)
    assert (
        main(["-c", "deployment=ecs", "-c", "weights_storage=fsx", "-c", "gpu_az_id=use1-az4"], made) == code
    )
    assert "check" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv,named",
    [
        (["-c", "max_replicas=lots"], "max_replicas"),
        (["-c", "min_replica=3"], "min_replica"),
        (["-c", "deployment"], "deployment"),
        (
            [
                "-c",
                "deployment=sagemaker",
                "-c",
                "model_package_arn=" + PACKAGE_ARN.replace(REGION, "us-west-2"),
            ],
            "model_package_arn",
        ),
    ],
)
def test_bad_config_exits_2_naming_the_key(capsys, argv, named):
    assert main(argv) == 2  # before any client exists: no AWS call can happen
    err = capsys.readouterr().err
    assert err.startswith("statespeak preflight: invalid configuration:") and named in err


# The real CLI, real boto3, no network ------------------------------------------------------------------
def offline_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """No credential source at all: AWS_* unset, empty config files, instance metadata off, and a proxy
    on a closed local port, so any request that did leave would fail with a proxy error instead."""
    config_file = tmp_path / "aws-config"
    config_file.write_text("")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("AWS_") and k.lower() not in ("https_proxy", "http_proxy")
    }
    env.update(
        AWS_CONFIG_FILE=str(config_file),
        AWS_SHARED_CREDENTIALS_FILE=str(config_file),
        AWS_EC2_METADATA_DISABLED="true",
        HTTPS_PROXY="http://127.0.0.1:9",
        HTTP_PROXY="http://127.0.0.1:9",
        NO_PROXY="",
        CDK_CONTEXT_JSON="",
    )
    env.update(extra)
    return env


def run_cli(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tools.preflight"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("extra", [{}, {"AWS_PROFILE": "missing"}], ids=["no-source", "unknown-profile"])
def test_no_credentials_is_one_line_and_exit_1(tmp_path, extra):
    done = run_cli(offline_env(tmp_path, **extra))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("statespeak preflight: no usable AWS credentials")


def test_unreachable_endpoint_is_one_line_and_exit_1(tmp_path):
    env = offline_env(
        tmp_path,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_ENDPOINT_URL="http://127.0.0.1:9",  # a closed local port: refused at once
        AWS_MAX_ATTEMPTS="1",
        NO_PROXY="127.0.0.1",
    )
    done = run_cli(env)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("statespeak preflight: cannot reach AWS")
