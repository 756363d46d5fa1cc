"""stacks.config: defaults from cdk.json, `-c` string coercion, and one clear error per bad value."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from stacks.config import CDK_JSON, ConfigError, StatespeakConfig, load_context

CERT = "arn:aws:acm:us-east-1:123456789012:certificate/12345678-1234-1234-1234-123456789012"


def make(**overrides) -> StatespeakConfig:
    return StatespeakConfig.from_context(load_context(overrides))


def test_cdk_json_defaults_are_the_dataclass_defaults():
    """cdk.json documents every key with the same default the code uses (no silent divergence)."""
    context = json.loads(CDK_JSON.read_text())["context"]
    settings = {k: v for k, v in context.items() if not k.startswith("@")}
    defaults = StatespeakConfig()
    assert set(settings) == {f for f in StatespeakConfig.__dataclass_fields__}
    for key, value in settings.items():
        assert getattr(defaults, key) == value, key


def test_defaults_validate():
    config = make()
    assert config.deployment == "ecs" and config.deploy_ecs and not config.deploy_sagemaker
    assert config.region == "us-east-1"
    assert config.min_replicas >= 2
    assert config.drain_timeout_s < config.container_stop_timeout_s <= 120


def test_cli_strings_are_coerced():
    """`cdk synth -c min_replicas=3 -c internet_facing=true` passes strings."""
    config = make(
        min_replicas="3", max_replicas="9", internet_facing="true", certificate_arn=CERT, api_key_auth="true"
    )
    assert config.min_replicas == 3 and config.max_replicas == 9 and config.internet_facing is True


def test_cdk_context_json_overrides_cdk_json(monkeypatch):
    monkeypatch.setenv("CDK_CONTEXT_JSON", json.dumps({"deployment": "both", "weights_storage": "efs"}))
    config = StatespeakConfig.from_context(load_context())
    assert config.deployment == "both" and config.weights_storage == "efs"


def test_cdk_feature_flags_and_cli_keys_are_ignored():
    config = make(
        **{
            "@aws-cdk/core:newStyleStackSynthesis": True,
            "aws:cdk:version-reporting": False,
            "acknowledged-issue-numbers": [1234],
        }
    )
    assert config == make()


BAD_VALUES = [
    ("deployment", "eks", "ecs, sagemaker, both"),
    ("weights_storage", "s3", "fsx, efs"),
    ("image_source", "dockerhub", "asset, ecr"),
    ("region", "mars-1", "region name"),
    ("ecs_instance_type", "m5.xlarge", "g5, g6, g6e"),
    ("ecs_instance_type", "g4dn.xlarge", "g5, g6, g6e"),
    ("sagemaker_instance_type", "g6e.xlarge", "ml.*"),
    ("min_replicas", 1, "from 2 to"),
    ("max_replicas", 101, "from 2 to 100"),
    ("target_streams_per_task", 0, "from 1 to"),
    ("max_streams_per_task", "lots", "whole number"),
    ("internet_facing", "yes", "true or false"),
    ("certificate_arn", "arn:aws:iam::123456789012:server-certificate/x", "acm"),
    ("model_package_arn", "arn:aws:sagemaker:us-east-1:123456789012:model/x", "model-package"),
    ("alarm_email", "not-an-address", "name@domain"),
    ("alarm_topic_arn", "arn:aws:sqs:us-east-1:123456789012:q", "sns"),
    ("image_tag", "bad tag!", "ECR tag"),
    ("vpc_cidr", "10.0.0.0/8", "/16 to /24"),
    ("vpc_cidr", "300.1.0.0/16", "/16 to /24"),
    ("availability_zones", "us-east-1a", "2 or 3 distinct zones"),
    ("availability_zones", "us-east-1a,eu-west-1b", "2 or 3 distinct zones"),
    ("log_retention_days", 10, "30"),
    ("fsx_storage_gib", 2000, "1200 or a multiple of 2400"),
    ("fsx_throughput_per_tib", 100, "125, 250, 500, 1000"),
    ("container_stop_timeout_s", 300, "from 30 to 120"),
    ("weights_version", "../etc", "folder name"),
    ("name", "1kit", "a letter"),
    ("gpu_az_id", "usw2-az1", "use1-az4"),
    ("ecs_ami_version", "latest", "2023.0.20261113"),
    (
        "model_package_arn",
        "arn:aws:sagemaker:eu-west-1:123456789012:model-package/x",
        "the package ARN of the deployment region",
    ),
]


@pytest.mark.parametrize(("key", "value", "allowed"), BAD_VALUES, ids=[f"{k}={v}" for k, v, _ in BAD_VALUES])
def test_bad_value_names_key_value_and_allowed(key, value, allowed):
    with pytest.raises(ConfigError) as info:
        make(**{key: value})
    message = str(info.value)
    assert key in message
    assert str(value) in message
    assert "allowed" in message and allowed in message


def test_marketplace_canary_voice_needs_a_package_and_a_plain_id():
    with pytest.raises(ConfigError, match="marketplace_canary_voice='narrator' needs model_package_arn"):
        make(marketplace_canary_voice="narrator")
    arn = "arn:aws:sagemaker:us-east-1:123456789012:model-package/x"
    with pytest.raises(ConfigError, match="marketplace_canary_voice=.*allowed: a voice id"):
        make(model_package_arn=arn, marketplace_canary_voice="two words")
    assert (
        make(model_package_arn=arn, marketplace_canary_voice="narrator").marketplace_canary_voice
        == "narrator"
    )


def test_gpu_zone_by_id_or_by_name_not_both():
    with pytest.raises(ConfigError, match="gpu_az_id='use1-az6' and availability_zones=.* both set"):
        make(gpu_az_id="use1-az6", availability_zones="us-east-1a,us-east-1b")
    assert make(gpu_az_id="use1-az6").gpu_zone_id == "use1-az6"
    assert make().gpu_zone_id == "use1-az4"


def test_a_region_without_zone_ids_needs_zone_names():
    with pytest.raises(ConfigError, match="region sa-east-1 needs availability_zones"):
        make(region="sa-east-1", gpu_az_id="sae1-az1")
    assert make(region="sa-east-1", availability_zones="sa-east-1a,sa-east-1b").zone_list


def test_internet_facing_needs_api_keys():
    with pytest.raises(ConfigError, match="internet_facing=true needs api_key_auth=true"):
        make(internet_facing=True, certificate_arn=CERT)


def test_internet_facing_needs_the_ecs_route():
    with pytest.raises(ConfigError, match="deployment=sagemaker has none"):
        make(deployment="sagemaker", internet_facing=True, certificate_arn=CERT, api_key_auth=True)


def test_internet_facing_needs_certificate():
    with pytest.raises(ConfigError, match="internet_facing=true needs certificate_arn"):
        make(internet_facing=True)


def test_certificate_must_be_in_the_region():
    other = CERT.replace("us-east-1", "eu-west-1")
    with pytest.raises(ConfigError, match="certificate_arn=.*region eu-west-1.*region=us-east-1"):
        make(certificate_arn=other)


def test_min_above_max_is_refused():
    with pytest.raises(ConfigError, match="max_replicas=3 is below min_replicas=4"):
        make(min_replicas=4, max_replicas=3)


def test_target_above_admission_limit_is_refused():
    with pytest.raises(ConfigError, match="target_streams_per_task=9 exceeds max_streams_per_task=8"):
        make(target_streams_per_task=9, max_streams_per_task=8)


def test_alarm_email_and_topic_are_exclusive():
    with pytest.raises(ConfigError, match="alarm_email and alarm_topic_arn"):
        make(alarm_email="a@example.com", alarm_topic_arn="arn:aws:sns:us-east-1:123456789012:ops")


def test_misspelt_key_is_an_error():
    with pytest.raises(ConfigError, match="'min_replica' is not a Statespeak setting"):
        make(min_replica=3)


def test_app_exits_with_the_config_error(tmp_path):
    """`python app.py` with a bad value prints the error and exits 2 before building anything."""
    env = {
        "CDK_CONTEXT_JSON": json.dumps({"weights_storage": "nfs"}),
        "CDK_OUTDIR": str(tmp_path),
        "PATH": "/usr/bin:/bin",
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    }
    proc = subprocess.run(
        [sys.executable, "app.py"], cwd=CDK_JSON.parent, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    assert "weights_storage='nfs' is not allowed; allowed: fsx, efs" in proc.stderr


def test_every_context_key_is_documented():
    doc = (CDK_JSON.parent / "docs" / "ecs.md").read_text()
    missing = [key for key in StatespeakConfig.__dataclass_fields__ if f"`{key}`" not in doc]
    assert not missing, f"context keys missing from docs/ecs.md: {missing}"
