"""KMS-encrypted, retained CloudWatch log groups: every log group of the kit is made here."""

from __future__ import annotations

from aws_cdk import RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import Construct


class LogsKey(Construct):
    """A customer-managed KMS key (rotated yearly) that CloudWatch Logs in this stack's region may use.

    One key per stack: a log group can only use a key whose policy names the regional logs principal,
    and a cross-stack key would tie the stacks' lifecycles together.
    """

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        stack = Stack.of(self)
        self.key = kms.Key(
            self,
            "Key",
            description=f"Encrypts the CloudWatch log groups of {stack.stack_name}",
            enable_key_rotation=True,
            removal_policy=RemovalPolicy.RETAIN,
        )
        # Logs may only use the key for log groups of this account and region (encryption-context scoped).
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal(f"logs.{stack.region}.amazonaws.com")],
                actions=[
                    "kms:Encrypt*",
                    "kms:Decrypt*",
                    "kms:ReEncrypt*",
                    "kms:GenerateDataKey*",
                    "kms:Describe*",
                ],
                resources=["*"],
                conditions={
                    "ArnLike": {
                        "kms:EncryptionContext:aws:logs:arn": (
                            f"arn:{stack.partition}:logs:{stack.region}:{stack.account}:log-group:*"
                        )
                    }
                },
            )
        )

    def log_group(self, scope: Construct, construct_id: str, retention_days: int) -> logs.LogGroup:
        """A log group encrypted with this key and kept `retention_days` (a CloudWatch-valid value)."""
        return logs.LogGroup(
            scope,
            construct_id,
            encryption_key=self.key,
            retention=retention(retention_days),
            removal_policy=RemovalPolicy.RETAIN,
        )


_RETENTION = {
    1: logs.RetentionDays.ONE_DAY,
    3: logs.RetentionDays.THREE_DAYS,
    5: logs.RetentionDays.FIVE_DAYS,
    7: logs.RetentionDays.ONE_WEEK,
    14: logs.RetentionDays.TWO_WEEKS,
    30: logs.RetentionDays.ONE_MONTH,
    60: logs.RetentionDays.TWO_MONTHS,
    90: logs.RetentionDays.THREE_MONTHS,
    120: logs.RetentionDays.FOUR_MONTHS,
    150: logs.RetentionDays.FIVE_MONTHS,
    180: logs.RetentionDays.SIX_MONTHS,
    365: logs.RetentionDays.ONE_YEAR,
    400: logs.RetentionDays.THIRTEEN_MONTHS,
    545: logs.RetentionDays.EIGHTEEN_MONTHS,
    731: logs.RetentionDays.TWO_YEARS,
    1096: logs.RetentionDays.THREE_YEARS,
    1827: logs.RetentionDays.FIVE_YEARS,
    2192: logs.RetentionDays.SIX_YEARS,
    2557: logs.RetentionDays.SEVEN_YEARS,
    2922: logs.RetentionDays.EIGHT_YEARS,
    3288: logs.RetentionDays.NINE_YEARS,
    3653: logs.RetentionDays.TEN_YEARS,
}


def retention(days: int) -> logs.RetentionDays:
    """RetentionDays members are named, not valued by days: map a validated day count onto one."""
    try:
        return _RETENTION[days]
    except KeyError:
        raise ValueError(
            f"log retention of {days} days is not a CloudWatch Logs period; allowed: {sorted(_RETENTION)}"
        ) from None
