"""Data perimeter on the kit's VPC endpoints: this account's principals on this account's data.

Every VPC endpoint otherwise carries the default full-access policy, so a compromised task could use the
S3 gateway to write to any bucket of any account. These policies let traffic through an endpoint only
when the caller is a principal of this account and, where the data lives in S3, a SageMaker endpoint or
a secret, only when that resource belongs to this account too. The exceptions are reads of the buckets
AWS owns that the data plane needs (`aws_owned_read_buckets`, documented in docs/security.md): those
requests are presigned by AWS or anonymous, so they carry no principal of this account.
"""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from constructs import Construct

# Interface endpoints whose calls name a resource of the account (an endpoint, a secret): callers may
# only reach this account's resources through them. The others (ECS, ECR auth, Logs, Monitoring, STS)
# carry calls without a resource or with AWS-owned ones, so they keep the principal perimeter only.
RESOURCE_SCOPED_SERVICES = ("sagemaker.runtime", "secretsmanager")
# Interface endpoints that take only the default full-access policy: EC2 refuses any other when it creates
# the endpoint ("Service ... only supports the full-access endpoint policy"), which fails the whole stack.
# The ECS agent's control and telemetry channels (ACS, TCS) are not documented to take policies, and AWS said
# they do not (awsdocs/amazon-ecs-developer-guide#55); they carry the agent's own protocol, not data a task
# can address to another account. `make preflight` reads `VpcEndpointPolicySupported` for every endpoint the
# kit does give a policy, so a region where another one refuses is found before a deploy.
FULL_ACCESS_ONLY_SERVICES = ("ecs-agent", "ecs-telemetry")


def takes_policy(short_name: str) -> bool:
    """Whether the kit gives the interface endpoint of `short_name` (`ecs`, `sts`, ...) a policy."""
    return short_name not in FULL_ACCESS_ONLY_SERVICES


# dnf options for the GPU hosts' package installs: through the S3 gateway they reach AL2023's own repositories
# (the bucket above); a repository the AMI adds that lives elsewhere is skipped instead of failing the install.
HOST_DNF_OPTIONS = "'--setopt=*.skip_if_unavailable=True'"  # quoted: the shell must not glob it


def aws_owned_read_buckets(region: str, partition: str = "aws") -> dict[str, str]:
    """S3 objects the data plane reads from AWS-owned buckets, by reason, as object ARNs."""
    return {
        # ECR keeps image layers here; `docker pull` through ecr.dkr downloads them over the S3 gateway.
        "EcrImageLayers": f"arn:{partition}:s3:::prod-{region}-starport-layer-bucket/*",
        # dnf on the GPU hosts (Lustre client, CloudWatch agent) reads the AL2023 package repositories.
        "AmazonLinuxRepos": f"arn:{partition}:s3:::al2023-repos-{region}-*/*",
    }


def _this_account(stack: Stack) -> dict[str, dict[str, str]]:
    return {"StringEquals": {"aws:PrincipalAccount": stack.account}}


def s3_gateway_statements(stack: Stack, marketplace_artifacts: bool = False) -> list[iam.PolicyStatement]:
    """The S3 gateway's policy: this account's principals on this account's buckets, plus reads of the
    AWS-owned buckets the data plane needs."""
    statements = [
        iam.PolicyStatement(
            sid="OwnAccountBuckets",
            principals=[iam.AnyPrincipal()],
            actions=["s3:*"],
            resources=["*"],
            conditions={
                "StringEquals": {"aws:PrincipalAccount": stack.account, "aws:ResourceAccount": stack.account}
            },
        )
    ]
    for sid, arn in aws_owned_read_buckets(stack.region, stack.partition).items():
        # No principal condition: ECR hands out layer URLs presigned by its own (AWS) account, and dnf
        # reads the AL2023 repositories anonymously, so neither request carries this account's principal.
        # Read only, and only these AWS-owned buckets.
        statements.append(
            iam.PolicyStatement(
                sid=sid, principals=[iam.AnyPrincipal()], actions=["s3:GetObject"], resources=[arn]
            )
        )
    if marketplace_artifacts:
        # A Marketplace model package's artifacts live in the seller's bucket, whose name is not
        # published; SageMaker reads them with the endpoint's role. Read only, this account's roles only.
        statements.append(
            iam.PolicyStatement(
                sid="MarketplaceModelArtifacts",
                principals=[iam.AnyPrincipal()],
                actions=["s3:GetObject"],
                resources=[f"arn:{stack.partition}:s3:::*/*"],
                conditions=_this_account(stack),
            )
        )
    return statements


def interface_statement(stack: Stack, service_name: str) -> iam.PolicyStatement:
    """The policy statement of one interface endpoint (`service_name` like `com.amazonaws.<region>.ecs`,
    resolved: the stacks have a concrete region)."""
    conditions: dict[str, str] = {"aws:PrincipalAccount": stack.account}
    if any(service_name.endswith(f".{s}") for s in RESOURCE_SCOPED_SERVICES):
        conditions["aws:ResourceAccount"] = stack.account
    return iam.PolicyStatement(
        sid="ThisAccountOnly",
        principals=[iam.AnyPrincipal()],
        actions=["*"],
        resources=["*"],
        conditions={"StringEquals": conditions},
    )


def apply_data_perimeter(
    scope: Construct,
    gateway_endpoints: Mapping[str, ec2.GatewayVpcEndpoint],
    interface_endpoints: Mapping[str, ec2.InterfaceVpcEndpoint],
    *,
    marketplace_artifacts: bool = False,
) -> None:
    """Replace the default full-access policy of each endpoint with the perimeter above (except where the
    service takes no other: `FULL_ACCESS_ONLY_SERVICES`)."""
    stack = Stack.of(scope)
    for endpoint in gateway_endpoints.values():
        for statement in s3_gateway_statements(stack, marketplace_artifacts):
            endpoint.add_to_policy(statement)
    for endpoint in interface_endpoints.values():
        service = stack.resolve(endpoint.node.default_child.service_name)  # type: ignore[union-attr]
        if not isinstance(service, str):
            raise ValueError(f"endpoint {endpoint.node.path}: service name {service!r} is not resolved")
        if takes_policy(service.split(f".{stack.region}.", 1)[-1]):  # com.amazonaws.<region>.<short name>
            endpoint.add_to_policy(interface_statement(stack, service))
