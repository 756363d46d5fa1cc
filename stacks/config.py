"""The one typed, validated configuration of the CDK app.

Values come from CDK context: the `context` block of cdk.json holds the defaults, `cdk synth -c key=value`
overrides them. `python app.py` run directly gets no context from the cdk CLI (the CLI passes it through
CDK_CONTEXT_JSON), so `load_context` reads cdk.json itself and merges CDK_CONTEXT_JSON over it: both entry
points then build the same app.

Every key is validated here, once, so a bad value fails before any construct exists, with an error that
names the key, the value and what is allowed.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from model_server.contract import (
    BUNDLED_WEIGHTS_VERSION,
    KIT_INFERENCE_AMI_VERSION,
    MAX_ENGINES,
    MAX_STREAMS_LIMIT,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
CDK_JSON = REPO_ROOT / "cdk.json"

DEPLOYMENTS = ("ecs", "sagemaker", "both")
WEIGHTS_STORAGES = ("fsx", "efs")
IMAGE_SOURCES = ("asset", "ecr")
# CloudWatch Logs accepts only these retention periods (days).
LOG_RETENTION_DAYS = (
    1,
    3,
    5,
    7,
    14,
    30,
    60,
    90,
    120,
    150,
    180,
    365,
    400,
    545,
    731,
    1096,
    1827,
    2192,
    2557,
    2922,
    3288,
    3653,
)
FSX_THROUGHPUT_PER_TIB = (125, 250, 500, 1000)  # PERSISTENT_2 throughput tiers (MB/s per TiB)
# The GPU zone when `gpu_az_id` is empty, by AZ ID (the same physical zone in every account, unlike AZ
# names). `make preflight` checks that the instance type and FSx are offered there before a deploy.
DEFAULT_GPU_AZ_IDS = {
    "us-east-1": "use1-az4",
    "us-east-2": "use2-az1",
    "us-west-2": "usw2-az1",
    "eu-west-1": "euw1-az1",
    "eu-central-1": "euc1-az2",
    "ap-northeast-1": "apne1-az4",
}

_REGION_RE = re.compile(r"^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d$")
# GPU families the GPU-optimized ECS AMI and the server's CUDA image support.
_ECS_INSTANCE_RE = re.compile(r"^(g5|g6|g6e|p4d|p4de|p5|p5e|p5en|p6-b200)\.(\d*xlarge|metal)$")
_SAGEMAKER_INSTANCE_RE = re.compile(r"^ml\.(g5|g6|g6e|p4d|p4de|p5|p5e|p5en)\.\d*xlarge$")
_INFERENCE_AMI_RE = re.compile(r"^$|^al2(023)?-ami-sagemaker-inference-gpu-\d+(-\d+)?$")
_CERT_ARN_RE = re.compile(r"^arn:aws[a-z-]*:acm:([a-z0-9-]+):\d{12}:certificate/[0-9a-f-]{36}$")
_MODEL_PACKAGE_RE = re.compile(
    r"^arn:aws[a-z-]*:sagemaker:([a-z0-9-]+):\d{12}:model-package/[A-Za-z0-9/._-]+$"
)
_VOICE_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
_TOPIC_ARN_RE = re.compile(r"^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$")
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_IMAGE_TAG_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
_CIDR_RE = re.compile(r"^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})/(\d{1,2})$")
_VERSION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
_ECS_AMI_VERSION_RE = re.compile(r"^2023\.0\.\d{8}$")
_AZ_ID_RE = re.compile(r"^[a-z]{3,5}\d-az\d{1,2}$")
_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9-]{0,30}$")
_SETTING_KEY_RE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
_VPC_ID_RE = re.compile(r"^vpc-[0-9a-f]{8,17}$")
_SUBNET_ID_RE = re.compile(r"^subnet-[0-9a-f]{8,17}$")
_ROUTE_TABLE_RE = re.compile(r"^rtb-[0-9a-f]{8,17}$")
_SG_ID_RE = re.compile(r"^sg-[0-9a-f]{8,17}$")
_ZONE_ID_RE = re.compile(r"^Z[0-9A-Z]{1,32}$")
_DNS_NAME_RE = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$")
# The endpoint services the kit may add (com.amazonaws.<region>.<name>), for existing_vpc_endpoints;
# tests/cdk/test_estate.py checks that statespeak_constructs/network.py creates exactly these.
VPC_ENDPOINT_SERVICES = (
    "s3",
    "ecr.api",
    "ecr.dkr",
    "logs",
    "monitoring",
    "ecs",
    "ecs-agent",
    "ecs-telemetry",
    "sts",
    "sagemaker.runtime",
    "sagemaker.api",
    "secretsmanager",
)


class ConfigError(ValueError):
    """A context value is invalid; the message names the key, the value and what is allowed."""


@dataclass(frozen=True)
class StatespeakConfig:
    """Every deploy-time choice of the kit. Field names are the context keys (see cdk.json)."""

    deployment: str = "ecs"
    """Which service stack(s) to build: ecs, sagemaker or both (the foundation stack is always built)."""
    name: str = "Statespeak"
    """Prefix of the stack names; lets two copies of the kit live in one account and region."""
    region: str = "us-east-1"
    """Region every stack is pinned to (ALB access logging and VPC endpoint names need a concrete one)."""
    weights_storage: str = "fsx"
    """fsx: FSx for Lustre linked to the weights bucket; efs: encrypted EFS filled by the sync Lambda."""
    ecs_instance_type: str = "g6.xlarge"
    """GPU instance type of the ECS capacity (g5, g6, g6e or p families); one task per GPU."""
    sagemaker_instance_type: str = "ml.g6e.xlarge"
    """Instance type of the SageMaker real-time endpoint."""
    sagemaker_inference_ami_version: str = KIT_INFERENCE_AMI_VERSION
    """The endpoint hosts' AMI (`InferenceAmiVersion`): the kit image's torch is a CUDA 13.0 build, which needs
    NVIDIA driver 580; SageMaker's default AMIs carry 470 (g5, p4d), 535 (g6, p5) or 550. Empty: SageMaker's
    default (a Marketplace package built for an older CUDA)."""
    sagemaker_autoscaling: bool = True
    """Register the endpoint variant with Application Auto Scaling. False removes the registration (the
    endpoint keeps its current count), e.g. to change `sagemaker_instance_type` by hand (docs/sagemaker.md)."""
    min_replicas: int = 2
    """Lower bound of tasks / endpoint instances (at least 2, so one failure never stops the service)."""
    max_replicas: int = 8
    """Upper bound of tasks / endpoint instances."""
    target_streams_per_task: int = 6
    """Average active streams per task that target tracking holds (the scaling set point)."""
    max_streams_per_task: int = 8
    """Admission limit per server process (MAX_STREAMS); beyond it the server answers 503."""
    engines_per_task: int = 1
    """Engine processes per task (STATESPEAK_ENGINES), sharing its GPU and max_streams_per_task: for a GPU
    whose one engine's host work is the limit (docs/architecture.md, "Several engine processes")."""
    internet_facing: bool = False
    """Put the ALB in public subnets with a TLS listener; needs certificate_arn."""
    api_key_auth: bool = False
    """ECS route: require an API key (generated into Secrets Manager) on every request."""
    certificate_arn: str = ""
    """ACM certificate for the ALB's HTTPS listener (same region); required when internet_facing."""
    model_package_arn: str = ""
    """Optional SageMaker Marketplace model package to deploy instead of the kit's own container."""
    marketplace_canary_voice: str = ""
    """With model_package_arn: a voice id of the package; a latency canary then speaks with it once a
    minute (a package's voices cannot be listed through /invocations). Empty: no canary on that route."""
    alarm_email: str = ""
    """Optional address subscribed to the alarm topic."""
    alarm_topic_arn: str = ""
    """Optional existing SNS topic for alarms; when empty and alarm_email is set, the kit creates one."""
    image_source: str = "asset"
    """asset: build model_server/Dockerfile at deploy time; ecr: pull image_tag from the kit's ECR repo."""
    image_tag: str = "v1"
    """Tag pulled from the kit's ECR repository when image_source is ecr (tags are immutable there)."""
    vpc_cidr: str = "10.40.0.0/16"
    """Address range of the kit's VPC."""
    availability_zones: str = ""
    """Comma-separated AZ names (2 or 3, e.g. `us-east-1a,us-east-1b,us-east-1c`) for the VPC, endpoints
    and ALB; GPU hosts sit in the first. Empty: the region's first two AZs, resolved at deploy time (with
    no account at synth, CDK cannot list more without a lookup)."""
    gpu_az_id: str = ""
    """AZ ID (e.g. `use1-az4`) of the subnet the GPU hosts and FSx for Lustre live in. Empty: the region's
    default from DEFAULT_GPU_AZ_IDS (regions without one must set it)."""
    placement_group: bool = True
    """Launch the GPU hosts into a cluster placement group (one rack, lowest latency; the reference
    architecture's advice). Switch off when capacity in one placement group is hard to get."""
    ecs_ami_version: str = "2023.0.20261113"
    """ECS-optimized AL2023 GPU AMI release of the GPU hosts (`al2023-ami-ecs-gpu-hvm-<this>-kernel-6.1-
    x86_64-ebs`). Pinned: the Lustre client installed at boot comes from the same release's repository, so
    it matches the kernel. docs/ecs.md says how to move to a newer release and refresh the hosts."""
    log_retention_days: int = 30
    """Retention of every log group the kit creates (a value CloudWatch Logs accepts)."""
    fsx_storage_gib: int = 1200
    """FSx for Lustre capacity: 1200 or a multiple of 2400 GiB."""
    fsx_throughput_per_tib: int = 125
    """FSx for Lustre PERSISTENT_2 throughput tier (MB/s per TiB): 125, 250, 500 or 1000."""
    max_stream_seconds: int = 300
    """Longest stream the service must never cut: the ALB deregistration delay on scale-in and deploys."""
    alb_idle_timeout_s: int = 300
    """ALB idle timeout: above the longest silence inside one stream or WebSocket session."""
    health_check_grace_s: int = 600
    """Seconds after a task starts during which ALB health checks are ignored (weights load + warm-up)."""
    container_stop_timeout_s: int = 120
    """ECS stopTimeout: SIGTERM to SIGKILL; the server's drain bound (DRAIN_TIMEOUT_S) stays below it."""
    scale_in_cooldown_s: int = 900
    """Cooldown after a scale-in: long, so load dips between conversations do not churn tasks."""
    scale_out_cooldown_s: int = 60
    """Cooldown after a scale-out."""
    alarm_ttfb_p99_ms: int = 500
    """Alarm threshold for the p99 time to first audio."""
    weights_version: str = BUNDLED_WEIGHTS_VERSION
    """Folder under s3://<weights bucket>/weights/ the service loads; `bundled` is seeded from the repo."""

    # Your own estate (docs/ecs.md "Three ways to use the kit") ---------------------------------
    vpc_id: str = ""
    """Deploy into this existing VPC (`vpc-...`) instead of creating one; imported by ID, no lookup. Needs
    vpc_cidr (its primary range), data_subnet_ids and availability_zones (the subnets' zones, in order)."""
    data_subnet_ids: str = ""
    """With vpc_id: comma-separated IDs of 2 or 3 subnets in different zones (private, ideally without an
    internet route) for tasks, GPU hosts, file systems, endpoints, the canary and the internal ALB."""
    data_route_table_ids: str = ""
    """With vpc_id: the route table of each data subnet, in the same order; the S3 gateway endpoint is
    associated with them (not needed when `s3` is in existing_vpc_endpoints)."""
    gpu_subnet_id: str = ""
    """With vpc_id: the data subnet GPU hosts and FSx for Lustre use (the subnet in zone gpu_az_id).
    Empty: the first of data_subnet_ids."""
    entry_subnet_ids: str = ""
    """With vpc_id and internet_facing: public subnets, one per zone of availability_zones, for the ALB."""
    existing_vpc_endpoints: str = ""
    """Comma-separated endpoint services the VPC already has and the kit must not create again (a VPC
    holds one private-DNS endpoint per service), named as in com.amazonaws.<region>.<name>: s3, ecr.api,
    ecr.dkr, logs, monitoring, ecs, ecs-agent, ecs-telemetry, sts, sagemaker.runtime, sagemaker.api,
    secretsmanager. Needs existing_endpoints_security_group_id for the interface ones."""
    existing_endpoints_security_group_id: str = ""
    """Security group of the VPC's existing interface endpoints: the canary's HTTPS egress goes there.
    That group must admit the kit's subnets on 443."""
    client_cidrs: str = ""
    """Comma-separated IPv4 ranges allowed to call the service: the internal ALB, and the SageMaker runtime
    endpoint the kit creates. Empty (with client_security_group_ids empty too): the VPC range."""
    client_security_group_ids: str = ""
    """Comma-separated security groups (`sg-...`) whose members may call the service, as client_cidrs."""
    dns_name: str = ""
    """A name inside the VPC for the internal ALB, e.g. `tts.internal.example`: an alias record in a
    private hosted zone. With certificate_arn (a certificate for this name) the ALB serves HTTPS and the
    canary verifies the name; the stack's Url output uses it."""
    private_zone_id: str = ""
    """The existing private hosted zone (`Z...`) to put dns_name in. Empty: the kit creates a private zone
    named private_zone_name, associated with the VPC."""
    private_zone_name: str = ""
    """Domain of the private hosted zone. Empty: dns_name without its first label (`internal.example`)."""

    # Derived values ---------------------------------------------------------------------------
    @property
    def deploy_ecs(self) -> bool:
        return self.deployment in ("ecs", "both")

    @property
    def deploy_sagemaker(self) -> bool:
        return self.deployment in ("sagemaker", "both")

    @property
    def drain_timeout_s(self) -> int:
        """The server's drain bound: 15 s under stopTimeout, so it exits before ECS sends SIGKILL."""
        return self.container_stop_timeout_s - 15

    @property
    def zone_list(self) -> list[str]:
        return [z.strip() for z in self.availability_zones.split(",") if z.strip()]

    @property
    def secrets_endpoint(self) -> bool:
        """The data plane reads Secrets Manager (the ECS tasks' API key). Not tied to `deployment`: the
        foundation stays the same while routes are switched (docs/switching.md)."""
        return self.api_key_auth

    @property
    def tls(self) -> bool:
        return bool(self.certificate_arn)

    @property
    def gpu_zone_id(self) -> str:
        """The effective AZ ID of the GPU hosts: `gpu_az_id`, or the region's default."""
        return self.gpu_az_id or DEFAULT_GPU_AZ_IDS.get(self.region, "")

    @property
    def gpu_zone_name(self) -> str:
        """The GPU hosts' zone by name when the kit's own VPC is placed by `availability_zones` (the first
        name wins over `gpu_az_id`); empty when it is placed by AZ ID, or in your VPC (`gpu_subnet_id`)."""
        return self.zone_list[0] if self.zone_list and not self.vpc_id else ""

    @property
    def byo_vpc(self) -> bool:
        """Deploy into an existing VPC (vpc_id) rather than create one."""
        return bool(self.vpc_id)

    @property
    def data_subnet_list(self) -> list[str]:
        return _items(self.data_subnet_ids)

    @property
    def data_route_table_list(self) -> list[str]:
        return _items(self.data_route_table_ids)

    @property
    def entry_subnet_list(self) -> list[str]:
        return _items(self.entry_subnet_ids)

    @property
    def existing_endpoint_set(self) -> frozenset[str]:
        return frozenset(_items(self.existing_vpc_endpoints))

    @property
    def client_cidr_list(self) -> list[str]:
        return _items(self.client_cidrs)

    @property
    def client_security_group_list(self) -> list[str]:
        return _items(self.client_security_group_ids)

    @property
    def zone_domain(self) -> str:
        """The private hosted zone's domain: private_zone_name, or dns_name's parent."""
        return self.private_zone_name or self.dns_name.partition(".")[2]

    def stack_name(self, part: str) -> str:
        return f"{self.name}-{part}"

    # Construction -----------------------------------------------------------------------------
    @classmethod
    def from_context(cls, context: dict[str, Any]) -> StatespeakConfig:
        """Build and validate a config from a context dict.

        Only keys that are fields of this class are read; CDK's own keys pass through untouched. A
        snake_case key that is not a field is an error, so a typo such as `-c min_replica=3` cannot
        silently fall back to a default.
        """
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, raw in context.items():
            if key in known:
                values[key] = _coerce(key, raw, known[key].type)
                continue
            # Feature flags (`@aws-cdk/...`), CLI keys (`aws:cdk:...`, `acknowledged-issue-numbers`) and
            # lookup caches are not snake_case; a snake_case key we do not know is a misspelt setting.
            if _SETTING_KEY_RE.match(key):
                raise ConfigError(
                    f"context key {key!r} is not a Statespeak setting; known keys: {', '.join(sorted(known))}"
                )
        config = cls(**values)
        config.validate()
        return config

    def validate(self) -> None:
        _choice("deployment", self.deployment, DEPLOYMENTS)
        _choice("weights_storage", self.weights_storage, WEIGHTS_STORAGES)
        _choice("image_source", self.image_source, IMAGE_SOURCES)
        _pattern("name", self.name, _NAME_RE, "a letter then letters, digits or '-' (at most 31)")
        _pattern("region", self.region, _REGION_RE, "a region name such as us-east-1")
        _pattern(
            "ecs_instance_type",
            self.ecs_instance_type,
            _ECS_INSTANCE_RE,
            "a GPU type of the g5, g6, g6e or p4d/p4de/p5/p5e/p5en/p6-b200 families, e.g. g6.xlarge",
        )
        _pattern(
            "sagemaker_instance_type",
            self.sagemaker_instance_type,
            _SAGEMAKER_INSTANCE_RE,
            "an ml.* GPU type of the g5, g6, g6e or p4d/p4de/p5/p5e/p5en families, e.g. ml.g6e.xlarge",
        )
        _pattern(
            "sagemaker_inference_ami_version",
            self.sagemaker_inference_ami_version,
            _INFERENCE_AMI_RE,
            "a GPU InferenceAmiVersion such as al2023-ami-sagemaker-inference-gpu-4-1, or empty",
        )
        _pattern("image_tag", self.image_tag, _IMAGE_TAG_RE, "an ECR tag: letters, digits, '_', '.', '-'")
        _pattern(
            "weights_version",
            self.weights_version,
            _VERSION_RE,
            "a folder name under weights/: letters, digits, '.', '_', '-' (at most 63)",
        )
        _pattern(
            "ecs_ami_version",
            self.ecs_ami_version,
            _ECS_AMI_VERSION_RE,
            "an ECS-optimized AL2023 AMI release such as 2023.0.20261113 (github.com/aws/amazon-ecs-ami releases)",
        )
        _cidr("vpc_cidr", self.vpc_cidr, largest=28 if self.vpc_id else 24)  # an existing VPC may be small
        if self.availability_zones:
            zones = self.zone_list
            if (
                not 2 <= len(zones) <= 3
                or len(set(zones)) != len(zones)
                or not all(re.fullmatch(re.escape(self.region) + r"[a-z]", z) for z in zones)
            ):
                raise ConfigError(
                    f"availability_zones={self.availability_zones!r} is not allowed; allowed: 2 or 3 distinct "
                    f"zones of region {self.region}, comma-separated, e.g. {self.region}a,{self.region}b"
                )
        if self.gpu_az_id:
            _pattern("gpu_az_id", self.gpu_az_id, _AZ_ID_RE, "an AZ ID such as use1-az4")
            default = DEFAULT_GPU_AZ_IDS.get(self.region)
            if default and not self.gpu_az_id.startswith(default.split("-")[0] + "-"):
                raise ConfigError(
                    f"gpu_az_id={self.gpu_az_id!r} is not a zone of region {self.region}; allowed: an AZ ID such "
                    f"as {default} (aws ec2 describe-availability-zones --query 'AvailabilityZones[].ZoneId')"
                )
        if self.region not in DEFAULT_GPU_AZ_IDS and not self.availability_zones:
            # Subnets are placed by AZ ID only where the kit knows the region's IDs (zones.py).
            raise ConfigError(
                f"region {self.region} needs availability_zones (zone names; the GPU hosts use the first): the "
                f"kit places subnets by AZ ID only in {', '.join(sorted(DEFAULT_GPU_AZ_IDS))}"
            )
        if self.gpu_az_id and self.availability_zones and not self.vpc_id:
            # In your own VPC both are set: zone names describe the subnets, gpu_az_id the GPU subnet's zone.
            raise ConfigError(
                f"gpu_az_id={self.gpu_az_id!r} and availability_zones={self.availability_zones!r} are both set; "
                "allowed: one of them (with zone names the GPU hosts use the first zone)"
            )
        _range("min_replicas", self.min_replicas, 2, 100)
        _range("max_replicas", self.max_replicas, 2, 100)
        if self.max_replicas < self.min_replicas:
            raise ConfigError(
                f"max_replicas={self.max_replicas} is below min_replicas={self.min_replicas}; "
                "allowed: max_replicas >= min_replicas"
            )
        _range("max_streams_per_task", self.max_streams_per_task, 1, MAX_STREAMS_LIMIT)
        _range("target_streams_per_task", self.target_streams_per_task, 1, MAX_STREAMS_LIMIT)
        _range("engines_per_task", self.engines_per_task, 1, MAX_ENGINES)
        if self.engines_per_task > self.max_streams_per_task:
            raise ConfigError(
                f"engines_per_task={self.engines_per_task} exceeds max_streams_per_task="
                f"{self.max_streams_per_task}; allowed: at most one engine per stream slot"
            )
        if self.target_streams_per_task > self.max_streams_per_task:
            raise ConfigError(
                f"target_streams_per_task={self.target_streams_per_task} exceeds max_streams_per_task="
                f"{self.max_streams_per_task}; allowed: a set point at or below the admission limit"
            )
        _choice("log_retention_days", self.log_retention_days, LOG_RETENTION_DAYS)
        if self.fsx_storage_gib != 1200 and (self.fsx_storage_gib < 2400 or self.fsx_storage_gib % 2400):
            raise ConfigError(
                f"fsx_storage_gib={self.fsx_storage_gib} is not a valid FSx for Lustre PERSISTENT_2 size; "
                "allowed: 1200 or a multiple of 2400"
            )
        _choice("fsx_throughput_per_tib", self.fsx_throughput_per_tib, FSX_THROUGHPUT_PER_TIB)
        _range("max_stream_seconds", self.max_stream_seconds, 30, 3600)  # ALB deregistration delay bound
        _range("alb_idle_timeout_s", self.alb_idle_timeout_s, 60, 4000)  # ALB idle timeout bound
        _range("health_check_grace_s", self.health_check_grace_s, 60, 7200)
        _range("container_stop_timeout_s", self.container_stop_timeout_s, 30, 120)  # ECS stopTimeout max
        _range("scale_in_cooldown_s", self.scale_in_cooldown_s, 60, 3600)
        _range("scale_out_cooldown_s", self.scale_out_cooldown_s, 0, 3600)
        _range("alarm_ttfb_p99_ms", self.alarm_ttfb_p99_ms, 10, 60000)

        if self.internet_facing and not self.certificate_arn:
            raise ConfigError(
                "internet_facing=true needs certificate_arn: an internet-facing entry only serves HTTPS; "
                "allowed: an ACM certificate ARN in the deployment region"
            )
        if self.internet_facing and not self.deploy_ecs:
            raise ConfigError(
                f"internet_facing=true applies to the ECS route's load balancer, but deployment={self.deployment} "
                "has none (it would only add unused public subnets); allowed: deployment=ecs or both, or "
                "internet_facing=false"
            )
        if self.internet_facing and not self.api_key_auth:
            raise ConfigError(
                "internet_facing=true needs api_key_auth=true: a public entry without API keys answers anyone; "
                "allowed: api_key_auth=true, or keep the entry internal"
            )
        if self.certificate_arn:
            match = _CERT_ARN_RE.match(self.certificate_arn)
            if not match:
                raise ConfigError(
                    f"certificate_arn={self.certificate_arn!r} is not an ACM certificate ARN; allowed: "
                    "arn:aws:acm:<region>:<account>:certificate/<uuid>"
                )
            if match.group(1) != self.region:
                raise ConfigError(
                    f"certificate_arn={self.certificate_arn!r} is in region {match.group(1)}, but "
                    f"region={self.region}; allowed: a certificate in the deployment region (ALB requirement)"
                )
        if self.model_package_arn and not _MODEL_PACKAGE_RE.match(self.model_package_arn):
            raise ConfigError(
                f"model_package_arn={self.model_package_arn!r} is not a SageMaker model package ARN; "
                "allowed: arn:aws:sagemaker:<region>:<account>:model-package/<name>"
            )
        package = _MODEL_PACKAGE_RE.match(self.model_package_arn)
        if package and package.group(1) != self.region:
            raise ConfigError(
                f"model_package_arn={self.model_package_arn!r} is in region {package.group(1)}, but "
                f"region={self.region}; allowed: the package ARN of the deployment region (Marketplace "
                "packages have one ARN per region)"
            )
        if self.marketplace_canary_voice:
            _pattern(
                "marketplace_canary_voice",
                self.marketplace_canary_voice,
                _VOICE_ID_RE,
                "a voice id: letters, digits, '_', '.', ':', '-' (at most 128)",
            )
            if not self.model_package_arn:
                raise ConfigError(
                    f"marketplace_canary_voice={self.marketplace_canary_voice!r} needs model_package_arn; the "
                    "kit's own model gets a canary without it; allowed: empty, or set model_package_arn"
                )
        if self.alarm_email and not _EMAIL_RE.match(self.alarm_email):
            raise ConfigError(
                f"alarm_email={self.alarm_email!r} is not an e-mail address; allowed: name@domain"
            )
        if self.alarm_topic_arn and not _TOPIC_ARN_RE.match(self.alarm_topic_arn):
            raise ConfigError(
                f"alarm_topic_arn={self.alarm_topic_arn!r} is not an SNS topic ARN; "
                "allowed: arn:aws:sns:<region>:<account>:<topic>"
            )
        if self.alarm_topic_arn and self.alarm_email:
            raise ConfigError(
                "alarm_email and alarm_topic_arn are both set; allowed: one of them (subscribe the address "
                "to your own topic, or let the kit create a topic for the address)"
            )
        self._validate_estate()

    def _validate_estate(self) -> None:
        """Own VPC, clients and the private name (docs/ecs.md); every message names the key."""
        byo_keys = ("data_subnet_ids", "data_route_table_ids", "gpu_subnet_id", "entry_subnet_ids")
        if not self.vpc_id:
            for key in byo_keys:
                if getattr(self, key):
                    raise ConfigError(f"{key} is set but vpc_id is empty; allowed: {key} only with vpc_id")
        else:
            _pattern("vpc_id", self.vpc_id, _VPC_ID_RE, "a VPC ID such as vpc-0123456789abcdef0")
            subnets = self.data_subnet_list
            if not 2 <= len(subnets) <= 3 or len(set(subnets)) != len(subnets):
                raise ConfigError(
                    f"data_subnet_ids={self.data_subnet_ids!r} is not allowed with vpc_id; allowed: 2 or 3 "
                    "distinct subnet IDs (subnet-...), comma-separated, one per zone"
                )
            for subnet in subnets + self.entry_subnet_list:
                _pattern("data_subnet_ids/entry_subnet_ids", subnet, _SUBNET_ID_RE, "subnet IDs (subnet-...)")
            if len(self.zone_list) != len(subnets):
                raise ConfigError(
                    f"availability_zones={self.availability_zones!r} must name the zone of each of the "
                    f"{len(subnets)} data_subnet_ids, in the same order (an imported VPC is read without "
                    "lookups); allowed: e.g. availability_zones="
                    + ",".join(f"{self.region}{c}" for c in "abc"[: len(subnets)])
                )
            tables = self.data_route_table_list
            for table in tables:
                _pattern("data_route_table_ids", table, _ROUTE_TABLE_RE, "route table IDs (rtb-...)")
            if tables and len(tables) != len(subnets):
                raise ConfigError(
                    f"data_route_table_ids has {len(tables)} entries for {len(subnets)} data_subnet_ids; "
                    "allowed: one route table per data subnet, in the same order"
                )
            if not tables and "s3" not in self.existing_endpoint_set:
                raise ConfigError(
                    "vpc_id needs data_route_table_ids for the S3 gateway endpoint the kit adds; allowed: the "
                    "data subnets' route tables, or existing_vpc_endpoints including s3 if the VPC has one"
                )
            if self.gpu_subnet_id and self.gpu_subnet_id not in subnets:
                raise ConfigError(
                    f"gpu_subnet_id={self.gpu_subnet_id!r} is not one of data_subnet_ids; allowed: the data "
                    "subnet in the GPU zone (gpu_az_id)"
                )
            if self.internet_facing and len(self.entry_subnet_list) != len(subnets):
                raise ConfigError(
                    "internet_facing=true with vpc_id needs entry_subnet_ids: one public subnet per zone of "
                    f"availability_zones ({len(subnets)}), in the same order"
                )
            if self.entry_subnet_list and not self.internet_facing:
                raise ConfigError("entry_subnet_ids is set but internet_facing=false; allowed: empty")
        unknown = sorted(self.existing_endpoint_set - set(VPC_ENDPOINT_SERVICES))
        if unknown:
            raise ConfigError(
                f"existing_vpc_endpoints names unknown services {unknown}; allowed: "
                + ", ".join(VPC_ENDPOINT_SERVICES)
            )
        interface_existing = self.existing_endpoint_set - {"s3"}
        if interface_existing and not self.existing_endpoints_security_group_id:
            raise ConfigError(
                f"existing_vpc_endpoints names interface endpoints {sorted(interface_existing)}; they need "
                "existing_endpoints_security_group_id (the group those endpoints use)"
            )
        if self.existing_endpoints_security_group_id:
            _pattern(
                "existing_endpoints_security_group_id",
                self.existing_endpoints_security_group_id,
                _SG_ID_RE,
                "a security group ID (sg-...)",
            )
        for cidr in self.client_cidr_list:
            _client_cidr("client_cidrs", cidr)
        for group in self.client_security_group_list:
            _pattern("client_security_group_ids", group, _SG_ID_RE, "security group IDs (sg-...)")
        if (self.client_cidrs or self.client_security_group_ids) and self.internet_facing:
            raise ConfigError(
                "client_cidrs/client_security_group_ids narrow the internal entry, but internet_facing=true "
                "admits everyone; allowed: internet_facing=false with client keys"
            )
        zone_keys = ("private_zone_id", "private_zone_name")
        if not self.dns_name:
            for key in zone_keys:
                if getattr(self, key):
                    raise ConfigError(
                        f"{key} is set but dns_name is empty; allowed: {key} only with dns_name"
                    )
            return
        _pattern(
            "dns_name", self.dns_name, _DNS_NAME_RE, "a lower-case DNS name such as tts.internal.example"
        )
        if not self.deploy_ecs or self.internet_facing:
            raise ConfigError(
                "dns_name names the internal ALB of the ECS route; allowed: deployment=ecs or both with "
                "internet_facing=false (a public entry takes its name from your public DNS)"
            )
        if self.private_zone_name:
            _pattern(
                "private_zone_name", self.private_zone_name, _DNS_NAME_RE, "a domain such as internal.example"
            )
        if not self.dns_name.endswith("." + self.zone_domain) or not self.zone_domain:
            raise ConfigError(
                f"dns_name={self.dns_name!r} is not inside private_zone_name={self.zone_domain!r}; allowed: "
                "a name ending in the zone's domain"
            )
        if self.private_zone_id:
            _pattern(
                "private_zone_id",
                self.private_zone_id,
                _ZONE_ID_RE,
                "a hosted zone ID such as Z0123456789ABC",
            )


def _items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _client_cidr(key: str, value: str) -> None:
    match = _CIDR_RE.match(value)
    ok = (
        bool(match) and all(0 <= int(p) <= 255 for p in match.groups()[:4]) and 8 <= int(match.group(5)) <= 32
    )
    if not ok or value.startswith("0.0.0.0/"):
        raise ConfigError(
            f"{key} entry {value!r} is not allowed; allowed: IPv4 CIDRs from /8 to /32 (not 0.0.0.0/x: an "
            "internet-facing entry is internet_facing=true)"
        )


def _choice(key: str, value: Any, allowed: tuple) -> None:
    if value not in allowed:
        raise ConfigError(f"{key}={value!r} is not allowed; allowed: {', '.join(str(a) for a in allowed)}")


def _pattern(key: str, value: str, pattern: re.Pattern, allowed: str) -> None:
    if not pattern.match(value):
        raise ConfigError(f"{key}={value!r} is not allowed; allowed: {allowed}")


def _range(key: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ConfigError(f"{key}={value!r} is out of range; allowed: an integer from {low} to {high}")


def _cidr(key: str, value: str, largest: int = 24) -> None:
    match = _CIDR_RE.match(value)
    ok = (
        bool(match)
        and all(0 <= int(p) <= 255 for p in match.groups()[:4])
        and 16 <= int(match.group(5)) <= largest
    )
    if not ok:
        raise ConfigError(f"{key}={value!r} is not allowed; allowed: an IPv4 CIDR from /16 to /{largest}")


def _coerce(key: str, raw: Any, annotation: Any) -> Any:
    """Context from `-c key=value` arrives as strings; cdk.json gives JSON types. Accept both."""
    kind = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    if kind == "bool":
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
            return raw.strip().lower() == "true"
        raise ConfigError(f"{key}={raw!r} is not a boolean; allowed: true or false")
    if kind == "int":
        if isinstance(raw, bool):
            raise ConfigError(f"{key}={raw!r} is not an integer; allowed: a whole number")
        if isinstance(raw, int):
            return raw
        if isinstance(raw, str) and re.fullmatch(r"-?\d+", raw.strip()):
            return int(raw.strip())
        raise ConfigError(f"{key}={raw!r} is not an integer; allowed: a whole number")
    if not isinstance(raw, str):
        raise ConfigError(f"{key}={raw!r} is not a string; allowed: a text value")
    return raw.strip()


def load_context(overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """cdk.json's context, then CDK_CONTEXT_JSON (set by the cdk CLI and `make demo`), then `overrides`.

    The cdk CLI already folds cdk.json into CDK_CONTEXT_JSON; reading cdk.json here as well changes nothing
    for it and gives `python app.py` the same defaults.
    """
    context: dict[str, Any] = {}
    if CDK_JSON.exists():
        context.update(json.loads(CDK_JSON.read_text()).get("context", {}))
    env_json = os.environ.get("CDK_CONTEXT_JSON")
    if env_json:
        try:
            context.update(json.loads(env_json))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"CDK_CONTEXT_JSON is not valid JSON: {exc}") from exc
    context.update(overrides or {})
    return context
