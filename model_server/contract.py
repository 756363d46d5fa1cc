"""Names shared by the model server and the CDK stacks: the one source of truth.

The server emits metrics under these names and the stacks' scaling policies, dashboards and alarms
read them, so neither side may spell them on its own. Import-light: no torch, no server imports.
"""

from __future__ import annotations

# Network contract -------------------------------------------------------------------------------
SERVER_PORT = 8080
HEALTH_PATH = "/health"  # liveness: 200 while the process runs
READY_PATH = "/ready"  # readiness: 200 once weights are loaded and warmed, 503 while loading/draining
PING_PATH = "/ping"  # SageMaker readiness, same semantics as READY_PATH
INVOCATIONS_PATH = "/invocations"  # SageMaker inference route
METRICS_PATH = "/metrics"  # Prometheus text

# Environment variables the container reads ------------------------------------------------------
ENV_MODEL_DIR = "MODEL_DIR"
ENV_MAX_STREAMS = "MAX_STREAMS"
MAX_STREAMS_LIMIT = 4096  # highest MAX_STREAMS the server and the stacks accept (issue 15 scale)
ENV_ENGINES = "STATESPEAK_ENGINES"  # engine processes sharing the device and MAX_STREAMS; default 1
MAX_ENGINES = 16
ENV_API_KEYS = "STATESPEAK_API_KEYS"  # comma-separated keys; unset = no auth
ENV_API_KEYS_FILE = "STATESPEAK_API_KEYS_FILE"  # path to a mounted secret, one key per line
ENV_DRAIN_TIMEOUT_S = "DRAIN_TIMEOUT_S"
ENV_DEPLOYMENT = "STATESPEAK_DEPLOYMENT"  # "ecs" or "sagemaker": a metric dimension
# "false" on the ECS route: /invocations and /ping (the keyless SageMaker contract) answer 404 there.
ENV_SAGEMAKER_ROUTES = "STATESPEAK_SAGEMAKER_ROUTES"
# "false" on internet-facing entries: a key in `?api_key=` (which lands in ALB access logs) is refused.
ENV_QUERY_API_KEYS = "STATESPEAK_QUERY_API_KEYS"
ENV_DEVICE = "STATESPEAK_DEVICE"  # auto (cuda when available; the local default), cpu, cuda, cuda:N
DEVICE_CUDA = "cuda"  # what both deployment routes set: no readiness without CUDA and the kernels
# HTTP keep-alive of idle connections, in seconds: it must outlast the load balancer's idle timeout, or the
# server closes a connection the balancer still sends a request on and the client gets a 502.
ENV_KEEP_ALIVE_S = "STATESPEAK_KEEP_ALIVE_S"
KEEP_ALIVE_MARGIN_S = 5  # how much longer the server keeps an idle connection than the load balancer
ENV_KIT_NAME = "STATESPEAK_KIT"  # the kit instance (CDK context `name`): a metric dimension

# The SageMaker hosts' AMI the kit's image needs (`InferenceAmiVersion`): its torch is a CUDA 13.0 build, which
# needs NVIDIA driver 580; SageMaker's default AMIs carry 470 (g5, p4d), 535 (g6, p5) or 550 (p5e).
KIT_INFERENCE_AMI_VERSION = "al2023-ami-sagemaker-inference-gpu-4-1"

SAGEMAKER_MODEL_DIR = "/opt/ml/model"
CONTAINER_MODEL_DIR = "/opt/statespeak/model"  # where ECS mounts the shared weights
# The image's non-root user (uid:gid, made by model_server/Dockerfile). The image itself runs as root, as
# SageMaker's container contract requires ("SageMaker AI expects all containers to run with root users"); the
# ECS task runs it as this user.
IMAGE_USER = "10001:10001"

# CloudWatch Embedded Metric Format ---------------------------------------------------------------
METRICS_NAMESPACE = "Statespeak"
DIM_SERVICE = "Service"  # the deployment route: "ecs" or "sagemaker"
# The kit instance (CDK context `name`, e.g. "Statespeak"): two copies of the kit in one account and region
# publish into the same namespace, and without it each would scale on the other's load.
DIM_KIT = "Kit"
DEFAULT_KIT_NAME = "local"  # a server started without ENV_KIT_NAME (tests, `make serve`)
# Every server and canary metric carries exactly these dimensions; the stacks' scaling policy, dashboards
# and alarms read them with the same set (CloudWatch matches a metric on its full dimension set).
METRIC_DIMENSIONS = (DIM_SERVICE, DIM_KIT)


def metric_dimensions(route: str, kit: str) -> dict[str, str]:
    """{dimension: value} of one kit instance's route, as both sides write it."""
    return {DIM_SERVICE: route, DIM_KIT: kit}


METRIC_ACTIVE_STREAMS = "ActiveStreams"  # gauge per task, the autoscaling signal
METRIC_TIME_TO_FIRST_AUDIO = "TimeToFirstAudio"  # milliseconds, per stream
METRIC_REAL_TIME_FACTOR = "RealTimeFactor"  # compute seconds per audio second, per stream
METRIC_REJECTED_STREAMS = "RejectedStreams"  # count, admission control refusals
METRIC_STREAM_ERRORS = "StreamErrors"  # count
METRIC_STREAMS_COMPLETED = "StreamsCompleted"  # count
METRIC_AUDIO_SECONDS = "AudioSeconds"  # seconds of audio produced
# 1 while a server asked for cuda stays unready because CUDA or the mamba-ssm kernels are missing
# (Prometheus label / log field `reason`: cuda_unavailable or kernels_unavailable).
METRIC_DEVICE_UNAVAILABLE = "DeviceUnavailable"

# Canary (lambda/canary) publishes under the same namespace.
METRIC_CANARY_TTFB = "CanaryTimeToFirstAudio"
METRIC_CANARY_STALLS = "CanaryStalls"
METRIC_CANARY_SUCCESS = "CanarySuccess"

# Deployment routes: the values of ENV_DEPLOYMENT and of the DIM_SERVICE metric dimension.
DEPLOYMENT_ECS = "ecs"
DEPLOYMENT_SAGEMAKER = "sagemaker"

# Weights bucket layout: s3://<weights bucket>/weights/<version>/{config.json, model.safetensors, voices...}.
# The ECS stack serves one version (context `weights_version`); SageMaker reads the same prefix.
WEIGHTS_S3_PREFIX = "weights/"
BUNDLED_WEIGHTS_VERSION = "bundled"  # the model shipped in model_server/weights/default, seeded on deploy
