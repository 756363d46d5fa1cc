"""Which checks a config needs, the boto3 clients they read, and running them into table rows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from stacks.config import StatespeakConfig
from tools.preflight import checks
from tools.preflight.checks import EC2_GPU_QUOTAS, WARN, Outcome

# Fail fast: a preflight is interactive, so no long retry ladders or hanging connects.
CLIENT_CONFIG = Config(connect_timeout=5, read_timeout=20, retries={"max_attempts": 2, "mode": "standard"})


# SSM serves the public /aws/service/global-infrastructure parameters (which services each region has)
# from a subset of regions only; us-east-1 is one of them and answers for every region of the partition.
GLOBAL_INFRASTRUCTURE_REGION = "us-east-1"


@dataclass(frozen=True)
class Clients:
    sts: Any
    ec2: Any
    quotas: Any
    lambda_: Any
    ssm: Any
    iam: Any


def make_clients(region: str, session: boto3.Session | None = None) -> Clients:
    session = session or boto3.Session()

    def client(name: str, in_region: str = region) -> Any:
        return session.client(name, region_name=in_region, config=CLIENT_CONFIG)

    return Clients(
        sts=client("sts"),
        ec2=client("ec2"),
        quotas=client("service-quotas"),
        lambda_=client("lambda"),
        ssm=client("ssm", GLOBAL_INFRASTRUCTURE_REGION),
        iam=client("iam"),
    )


@dataclass(frozen=True)
class Row:
    check: str
    needed: str
    available: str
    verdict: str
    hint: str = ""


@dataclass(frozen=True)
class Report:
    account: str
    rows: list[Row]

    @property
    def failed(self) -> bool:
        return any(row.verdict == checks.FAIL for row in self.rows)


Check = tuple[str, Callable[[Clients], Outcome]]


def plan(config: StatespeakConfig) -> list[Check]:
    """The checks of the chosen deployment, in the order the table shows them."""
    planned: list[Check] = []
    if config.deploy_ecs:
        itype = config.ecs_instance_type
        _, quota_name = EC2_GPU_QUOTAS[checks.quota_family(itype)]
        planned += [
            ("ECS service-linked role", lambda c: checks.ecs_service_linked_role(c.iam)),
            (f"EC2 {quota_name}", lambda c: checks.ec2_gpu_vcpus(c.ec2, c.quotas, config)),
            (f"GPU zone {checks.gpu_zone_label(config)}", lambda c: checks.gpu_zone(c.ec2, config)),
            (f"EC2 {itype} offered in zone", lambda c: checks.instance_offered_in_zone(c.ec2, config)),
        ]
        if config.weights_storage == "fsx":
            planned.append(
                (
                    f"FSx for Lustre PERSISTENT_2 in {checks.gpu_zone_label(config)}",
                    lambda c: checks.fsx_in_region(c.ssm, config),
                )
            )
    if config.deploy_sagemaker:
        if config.model_package_arn:
            planned.append(
                ("Marketplace model package region", lambda c: checks.model_package_region(config))
            )
        itype = config.sagemaker_instance_type
        planned += [
            (f"SageMaker {itype} offered", lambda c: checks.sagemaker_instance_offered(c.quotas, config)),
            (
                f"SageMaker {checks.sagemaker_quota_name(itype)}",
                lambda c: checks.sagemaker_endpoint_instances(c.quotas, config),
            ),
        ]
    planned.append(("VPC endpoint policies", lambda c: checks.endpoint_policies(c.ec2, config)))
    planned.append(("Lambda concurrency", lambda c: checks.lambda_concurrency(c.lambda_, config)))
    return planned


def run(config: StatespeakConfig, clients: Clients) -> Report:
    """Every planned check. Credentials first: without them nothing else can be asked.

    Missing credentials and unreachable endpoints propagate (the CLI prints one line). An API refusal of
    one check (AccessDenied, throttling) becomes a `warn` row naming the error: that check could not be
    made, which is not the same as the account lacking what it checks.
    """
    outcome, account = checks.caller_identity(clients.sts)
    rows = [Row("AWS credentials", outcome.needed, outcome.available, outcome.verdict)]
    for title, check in plan(config):
        try:
            outcome = check(clients)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            outcome = Outcome(
                "-",
                f"not checked: {error.get('Code', 'error')} ({exc.operation_name})",
                WARN,
                error.get("Message", ""),
            )
        rows.append(Row(title, outcome.needed, outcome.available, outcome.verdict, outcome.hint))
    return Report(account, rows)
