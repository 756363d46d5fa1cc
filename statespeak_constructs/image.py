"""The model server's container image: built from the repo at deploy time, or pulled from the kit's ECR."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aws_cdk import Duration, IgnoreMode, RemovalPolicy
from aws_cdk import aws_ecr as ecr
from aws_cdk import aws_ecr_assets as ecr_assets
from aws_cdk import aws_ecs as ecs
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

DOCKERFILE = "model_server/Dockerfile"

DOCKERIGNORE = "model_server/Dockerfile.dockerignore"


def asset_excludes(repo_root: Path) -> list[str]:
    """The build context's allow-list (Docker-ignore lines): model_server/Dockerfile.dockerignore is the one
    source, read by Docker for a plain `docker build` and passed here to CDK, so the asset holds what the
    image holds and its hash moves only when that does."""
    lines = (repo_root / DOCKERIGNORE).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


@dataclass(frozen=True)
class ServerImageProps:
    """Where the image comes from."""

    source: str
    """`asset`: CDK builds model_server/Dockerfile and pushes it to the bootstrap repository on deploy
    (needs Docker where `cdk deploy` runs, not at synth); `ecr`: the kit creates a repository and tasks
    pull `tag` from it (push the image yourself, e.g. from CI)."""
    tag: str
    """Tag pulled when `source` is `ecr`; tags are immutable in the kit's repository."""
    repo_root: Path | None = None
    """Repository root: the build context for `asset` (not needed for `ecr`)."""


class ServerImage(Construct):
    """One image reference usable by ECS (`container_image`) and SageMaker (`image_uri`)."""

    def __init__(self, scope: Construct, construct_id: str, props: ServerImageProps) -> None:
        super().__init__(scope, construct_id)
        self.source = props.source
        self.repository: ecr.IRepository | None = None
        self._asset: ecr_assets.DockerImageAsset | None = None
        if props.source == "asset":
            if props.repo_root is None:
                raise ValueError(
                    "image source asset needs repo_root (the build context holding the Dockerfile)"
                )
            dockerfile = props.repo_root / DOCKERFILE
            if not dockerfile.is_file():
                raise FileNotFoundError(
                    f"image_source=asset builds {dockerfile}, which does not exist; "
                    "restore it or deploy with -c image_source=ecr"
                )
            self._asset = ecr_assets.DockerImageAsset(
                self,
                "Asset",
                directory=str(props.repo_root),
                file=DOCKERFILE,
                exclude=asset_excludes(props.repo_root),
                ignore_mode=IgnoreMode.DOCKER,
                platform=ecr_assets.Platform.LINUX_AMD64,  # GPU hosts are x86_64
            )
            self.image_uri = self._asset.image_uri
            self.container_image = ecs.ContainerImage.from_docker_image_asset(self._asset)
        elif props.source == "ecr":
            key = kms.Key(
                self,
                "RepositoryKey",
                description="Encrypts the Statespeak server image repository",
                enable_key_rotation=True,
                removal_policy=RemovalPolicy.RETAIN,
            )
            repository = ecr.Repository(
                self,
                "Repository",
                image_scan_on_push=True,
                image_tag_mutability=ecr.TagMutability.IMMUTABLE,  # a tag always means the same bytes
                encryption=ecr.RepositoryEncryption.KMS,
                encryption_key=key,
                lifecycle_rules=[
                    ecr.LifecycleRule(
                        description="Drop untagged layers of failed or superseded pushes",
                        tag_status=ecr.TagStatus.UNTAGGED,
                        max_image_age=Duration.days(7),
                        rule_priority=1,
                    ),
                    ecr.LifecycleRule(
                        description="Keep the 30 newest tagged images (enough to roll back)",
                        tag_status=ecr.TagStatus.ANY,
                        max_image_count=30,
                        rule_priority=2,
                    ),
                ],
                removal_policy=RemovalPolicy.RETAIN,
            )
            self.repository = repository
            self.image_uri = repository.repository_uri_for_tag(props.tag)
            self.container_image = ecs.ContainerImage.from_ecr_repository(repository, props.tag)
        else:
            raise ValueError(f"image source {props.source!r} is not allowed; allowed: asset, ecr")

    def grant_pull(self, grantee: iam.IGrantable) -> None:
        """Let `grantee` (e.g. a SageMaker execution role) pull this image."""
        if self._asset is not None:
            self._asset.repository.grant_pull(grantee)
        elif self.repository is not None:
            self.repository.grant_pull(grantee)
