"""The Lambda function behind one of the kit's CloudFormation custom resources, with its CDK Provider.

The capacity release (gpu_cluster.py) and the scaling handover (sagemaker_scaling.py) are both a small
Python function that CloudFormation calls through the CDK Provider framework. This makes the function,
the provider, their encrypted log groups and the cdk-nag acknowledgements every such pair needs; the
caller adds its own IAM statements and acknowledges the findings those statements raise.

Made as children of the caller's scope (ids `<prefix>Function`, `<prefix>Logs`, `<prefix>Provider`,
`<prefix>ProviderLogs`), not of a construct of its own, so the resources keep the logical ids they had
when each construct made them itself: a new id would replace the provider and re-run the custom resource.
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import Acknowledgment, Duration, Stack, Validations
from aws_cdk import aws_lambda as lambda_
from aws_cdk import custom_resources as cr
from constructs import Construct

from statespeak_constructs.assets import lambda_asset
from statespeak_constructs.logs import LogsKey

BASIC_EXECUTION_FINDING = (
    "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]"
)


@dataclass(frozen=True)
class CustomResourceFunctionProps:
    """One custom resource's function: its code, what it is for (in the acknowledgements) and its logs."""

    asset: str
    """Its folder under lambda/ (see `lambda_asset`), e.g. `capacity_release`."""
    description: str
    """The Lambda function's description."""
    purpose: str
    """What it is, as the acknowledgement reasons name it, e.g. `GPU capacity release`."""
    runs_when: str
    """When CloudFormation invokes it, e.g. `when the ECS stack is deleted or rolled back`."""
    calls: str
    """The AWS APIs it calls, e.g. `the Auto Scaling API on the one GPU group`: why it needs no VPC."""
    logs_key: LogsKey
    """Key of the function's and the provider's log groups."""
    log_retention_days: int
    """Retention of those log groups."""


@dataclass(frozen=True)
class CustomResourceFunction:
    """What `custom_resource_function` made."""

    function: lambda_.Function
    """The kit's handler: add its IAM statements with `add_to_role_policy`."""
    provider: cr.Provider
    """The CDK Provider framework in front of it: `provider.service_token` is the resources' token."""


def custom_resource_function(
    scope: Construct, id_prefix: str, props: CustomResourceFunctionProps
) -> CustomResourceFunction:
    """Function and provider in `scope`, with the findings common to every such pair acknowledged."""
    function = lambda_.Function(
        scope,
        f"{id_prefix}Function",
        description=props.description,
        runtime=lambda_.Runtime.PYTHON_3_14,
        handler="handler.handler",
        # Only the handler: bytecode caches left by local test runs would change the asset hash.
        code=lambda_.Code.from_asset(str(lambda_asset(props.asset)), exclude=["__pycache__", "*.pyc"]),
        timeout=Duration.minutes(2),
        memory_size=256,
        log_group=props.logs_key.log_group(scope, f"{id_prefix}Logs", props.log_retention_days),
    )
    provider = cr.Provider(
        scope,
        f"{id_prefix}Provider",
        on_event_handler=function,
        log_group=props.logs_key.log_group(scope, f"{id_prefix}ProviderLogs", props.log_retention_days),
    )
    _acknowledge(function, provider, props)
    return CustomResourceFunction(function=function, provider=provider)


def _acknowledge(
    function: lambda_.Function, provider: cr.Provider, props: CustomResourceFunctionProps
) -> None:
    for pack in ("NIST.800.53.R5", "HIPAA.Security"):
        Validations.of(function).acknowledge(
            Acknowledgment(
                id=f"{pack}-LambdaInsideVPC",
                reason=f"{props.purpose}: invoked by CloudFormation only {props.runs_when}; it calls "
                f"{props.calls} and reaches no resource inside the VPC (inside it, it would need interface "
                "endpoints for those APIs only for this).",
            ),
            Acknowledgment(
                id=f"{pack}-LambdaDLQ",
                reason=f"{props.purpose}: invoked synchronously by the CDK Provider framework on behalf of "
                "CloudFormation; a failure fails the stack operation visibly, and there is no asynchronous "
                "event to dead-letter.",
            ),
            Acknowledgment(
                id=f"{pack}-LambdaConcurrency",
                reason=f"{props.purpose}: no reserved concurrency, because a new account has 10 concurrent "
                "executions in all and Lambda refuses a reservation that leaves fewer than 10 unreserved; it "
                f"runs only {props.runs_when}.",
            ),
        )
    assert function.role is not None
    Validations.of(function.role).acknowledge(
        Acknowledgment(
            id=BASIC_EXECUTION_FINDING,
            reason=f"{props.purpose} function: the AWS basic execution policy only lets it write its own log "
            "streams.",
        )
    )
    stack = Stack.of(function)
    function_id = stack.resolve(stack.get_logical_id(function.node.default_child))
    Validations.of(provider).acknowledge(
        Acknowledgment(
            id=BASIC_EXECUTION_FINDING,
            reason="CDK Provider framework function: the AWS basic execution policy only lets it write its "
            "own log streams.",
        ),
        Acknowledgment(
            id=f"AwsSolutions-IAM5[Resource::<{function_id}.Arn>:*]",
            reason=f"The Provider framework may invoke any version/alias of the one {props.purpose} function "
            "(`<arn>:*`); it cannot invoke anything else.",
        ),
        Acknowledgment(
            id="AwsSolutions-L1",
            reason="The Provider framework's runtime is pinned by aws-cdk-lib and upgraded with it; the kit's "
            "own function uses the latest Python runtime.",
        ),
    )
