"""The API key the ECS route requires when `api_key_auth` is on, generated into Secrets Manager."""

from __future__ import annotations

from aws_cdk import Acknowledgment, RemovalPolicy, Validations
from aws_cdk import aws_kms as kms
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct


class ApiKey(Construct):
    """A generated 48-character key. Tasks read it at start (ECS secret injection); clients fetch it with
    `aws secretsmanager get-secret-value`. Several keys: put them comma-separated into the secret value.
    """

    def __init__(self, scope: Construct, construct_id: str, *, description: str) -> None:
        """`description`: shown in the Secrets Manager console (say which deployment it guards)."""
        super().__init__(scope, construct_id)
        # A customer-managed key (not aws/secretsmanager): who may decrypt the secret is then written in this
        # key's policy, which `secret.grant_read` extends for exactly the readers (NIST/HIPAA, checkov).
        self.key = kms.Key(
            self,
            "Key",
            description=f"Encrypts the secret: {description}",
            enable_key_rotation=True,
            removal_policy=RemovalPolicy.DESTROY,  # goes with the secret (after KMS's waiting period)
        )
        self.secret = secretsmanager.Secret(
            self,
            "Secret",
            description=description,
            encryption_key=self.key,
            generate_secret_string=secretsmanager.SecretStringGenerator(
                password_length=48, exclude_punctuation=True, include_space=False
            ),
            removal_policy=RemovalPolicy.DESTROY,
        )
        Validations.of(self.secret).acknowledge(
            Acknowledgment(
                id="AwsSolutions-SMG4",
                reason="A client-facing API key cannot rotate on a schedule without breaking every caller "
                "holding it; operators rotate by adding a new key (comma-separated), redeploying tasks, "
                "then removing the old one (docs/ecs.md, 'API keys').",
            )
        )
