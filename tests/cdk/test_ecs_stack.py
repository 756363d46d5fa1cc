"""Template assertions for the self-managed route, one section per item of the ECS build list.

`default_synth` is cdk.json as shipped (ECS, FSx, image asset, internal HTTP entry); `full_synth` flips
the switches (both routes, EFS, ECR image, internet-facing TLS entry, alarm e-mail, other bounds).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_server import contract
from statespeak_constructs.image import DOCKERFILE

FOUNDATION, ECS = "Foundation", "Ecs"


def _text(value) -> str:
    return json.dumps(value, sort_keys=True)


def _user_data(result) -> str:
    data = result.only(ECS, "AWS::EC2::LaunchTemplate")["LaunchTemplateData"]["UserData"]
    parts = data["Fn::Base64"]["Fn::Join"][1]
    return "".join(p if isinstance(p, str) else _text(p) for p in parts)


def _container(result) -> dict:
    (container,) = result.only(ECS, "AWS::ECS::TaskDefinition")["ContainerDefinitions"]
    return container


def _env(container: dict) -> dict[str, str]:
    return {e["Name"]: e["Value"] for e in container.get("Environment", [])}


# 1. Network -------------------------------------------------------------------------------------------
def test_default_data_plane_has_no_internet_route(default_synth):
    for kind in (
        "AWS::EC2::InternetGateway",
        "AWS::EC2::NatGateway",
        "AWS::EC2::EgressOnlyInternetGateway",
        "AWS::EC2::VPCGatewayAttachment",
        "AWS::EC2::Route",
    ):
        assert not default_synth.resources(FOUNDATION, kind), f"{kind} in the default VPC"
    subnets = default_synth.resources(FOUNDATION, "AWS::EC2::Subnet")
    assert len(subnets) == 2
    assert all(s["Properties"]["MapPublicIpOnLaunch"] is False for s in subnets.values())


INTERFACE_ENDPOINTS = {"ecr.api", "ecr.dkr", "logs", "monitoring", "ecs", "ecs-agent", "ecs-telemetry", "sts"}


def _endpoint_services(result) -> tuple[set[str], list[dict]]:
    interface, gateways = set(), []
    for ep in result.resources(FOUNDATION, "AWS::EC2::VPCEndpoint").values():
        props = ep["Properties"]
        if props.get("VpcEndpointType") == "Interface":
            assert props["PrivateDnsEnabled"] is True
            interface.add(props["ServiceName"].removeprefix("com.amazonaws.us-east-1."))
        else:
            gateways.append(props)
    return interface, gateways


def test_vpc_endpoints_cover_the_ecs_data_plane(default_synth):
    interface, gateways = _endpoint_services(default_synth)
    assert interface == INTERFACE_ENDPOINTS
    assert len(gateways) == 1 and _text(gateways[0]["ServiceName"]).endswith('".s3"]]}')


def test_secrets_endpoint_only_with_api_keys_and_sagemaker_endpoints_in_their_own_stack(full_synth):
    interface, _ = _endpoint_services(full_synth)
    assert interface == INTERFACE_ENDPOINTS | {"secretsmanager"}
    # The route's own endpoints belong to its stack: the foundation stays the same whatever the route.
    services = {
        ep["Properties"]["ServiceName"].removeprefix("com.amazonaws.us-east-1.")
        for ep in full_synth.resources("SageMaker", "AWS::EC2::VPCEndpoint").values()
    }
    assert services == {"sagemaker.runtime", "sagemaker.api"}


def test_endpoints_accept_https_from_the_vpc_only(default_synth):
    (sg,) = [
        r["Properties"]
        for r in default_synth.resources(FOUNDATION, "AWS::EC2::SecurityGroup").values()
        if "endpoints" in r["Properties"]["GroupDescription"]
    ]
    assert sg["SecurityGroupIngress"] == [
        {
            "CidrIp": "10.40.0.0/16",
            "Description": "HTTPS from inside the VPC",
            "FromPort": 443,
            "IpProtocol": "tcp",
            "ToPort": 443,
        }
    ]


def test_flow_logs_to_an_encrypted_retained_group(default_synth):
    flow = default_synth.only(FOUNDATION, "AWS::EC2::FlowLog")
    assert flow["TrafficType"] == "ALL" and flow["LogDestinationType"] == "cloud-watch-logs"
    group_id = flow["LogGroupName"]["Ref"]
    group = default_synth[default_synth.stack_name(FOUNDATION)]["Resources"][group_id]["Properties"]
    assert group["RetentionInDays"] == 30 and "KmsKeyId" in group


def test_internet_facing_entry_uses_public_subnets_for_the_alb_only(full_synth):
    assert full_synth.resources(FOUNDATION, "AWS::EC2::InternetGateway")
    assert not full_synth.resources(FOUNDATION, "AWS::EC2::NatGateway")
    foundation = full_synth[full_synth.stack_name(FOUNDATION)]["Resources"]
    public_tables = {
        a["Properties"]["RouteTableId"]["Ref"]
        for a in full_synth.resources(FOUNDATION, "AWS::EC2::SubnetRouteTableAssociation").values()
        if "entry" in a["Properties"]["SubnetId"]["Ref"]
    }
    routes = full_synth.resources(FOUNDATION, "AWS::EC2::Route").values()
    assert routes and all(r["Properties"]["RouteTableId"]["Ref"] in public_tables for r in routes)
    # The data subnets (3 AZs) never map public IPs and have no default route.
    data = [k for k, v in foundation.items() if v["Type"] == "AWS::EC2::Subnet" and "data" in k]
    assert len(data) == 3
    alb = full_synth.only(ECS, "AWS::ElasticLoadBalancingV2::LoadBalancer")
    assert alb["Scheme"] == "internet-facing"
    assert all("entrySubnet" in _text(s) for s in alb["Subnets"])


def test_tls_listener_with_certificate_and_http_redirect(full_synth):
    listeners = [
        r["Properties"] for r in full_synth.resources(ECS, "AWS::ElasticLoadBalancingV2::Listener").values()
    ]
    https = [listener for listener in listeners if listener["Protocol"] == "HTTPS"]
    http = [listener for listener in listeners if listener["Protocol"] == "HTTP"]
    assert len(https) == 1 and https[0]["Port"] == 443
    assert https[0]["Certificates"] == [{"CertificateArn": full_synth.context["certificate_arn"]}]
    assert len(http) == 1 and http[0]["Port"] == 80
    assert http[0]["DefaultActions"][0]["Type"] == "redirect"
    assert http[0]["DefaultActions"][0]["RedirectConfig"]["Protocol"] == "HTTPS"


# 2. Image -------------------------------------------------------------------------------------------
def test_asset_image_builds_the_server_dockerfile_from_a_tight_context(default_synth):
    assert not default_synth.resources(FOUNDATION, "AWS::ECR::Repository")
    assert "container-assets" in _text(_container(default_synth)["Image"])
    manifests = [json.loads(p.read_text()) for p in Path(default_synth.outdir).glob("*.assets.json")]
    images = [img for m in manifests for img in m.get("dockerImages", {}).values()]
    assert len(images) == 1
    source = images[0]["source"]
    assert source["dockerFile"] == DOCKERFILE and source.get("platform") == "linux/amd64"
    staged = Path(default_synth.outdir) / source["directory"]
    assert (staged / DOCKERFILE).is_file() and (staged / "model_server" / "contract.py").is_file()
    for excluded in (".venv", ".git", "cdk.out", "data", "runs", "tests", "docs"):
        assert not (staged / excluded).exists(), f"{excluded} copied into the image build context"
    assert (staged / "model_server" / "data").is_dir(), (
        "`data` must exclude /data only, not model_server/data"
    )
    assert [p.name for p in staged.iterdir()] == ["model_server"]  # an allow-list: nothing else


def test_ecr_repository_owned_by_the_kit(full_synth):
    repo = full_synth.only(FOUNDATION, "AWS::ECR::Repository")
    assert repo["ImageScanningConfiguration"] == {"ScanOnPush": True}
    assert repo["ImageTagMutability"] == "IMMUTABLE"
    assert repo["EncryptionConfiguration"]["EncryptionType"] == "KMS"
    rules = json.loads(repo["LifecyclePolicy"]["LifecyclePolicyText"])["rules"]
    assert {r["selection"]["tagStatus"] for r in rules} == {"untagged", "any"}
    image = _text(_container(full_synth)["Image"])
    assert ":2026.11.1" in image and "container-assets" not in image


def test_api_key_comes_from_secrets_manager_not_the_environment(default_synth, full_synth):
    assert contract.ENV_API_KEYS not in _env(_container(default_synth))
    assert "Secrets" not in _container(default_synth)
    container = _container(full_synth)
    assert contract.ENV_API_KEYS not in _env(container)
    (secret,) = container["Secrets"]
    assert secret["Name"] == contract.ENV_API_KEYS
    (secret_id,) = full_synth.resources(ECS, "AWS::SecretsManager::Secret")
    assert secret["ValueFrom"] == {"Ref": secret_id}


# 3. Compute -----------------------------------------------------------------------------------------
def test_cluster_has_container_insights(default_synth):
    cluster = default_synth.only(ECS, "AWS::ECS::Cluster")
    assert {"Name": "containerInsights", "Value": "enhanced"} in cluster["ClusterSettings"]


def test_gpu_hosts_launch_template(default_synth):
    data = default_synth.only(ECS, "AWS::EC2::LaunchTemplate")["LaunchTemplateData"]
    assert data["InstanceType"] == "g6.xlarge"
    assert data["MetadataOptions"]["HttpTokens"] == "required"
    (root,) = data["BlockDeviceMappings"]
    assert root["Ebs"]["Encrypted"] is True
    params = default_synth[default_synth.stack_name(ECS)]["Parameters"]
    ami = params[data["ImageId"]["Ref"]]
    # One pinned release (ecs_ami_version), not the moving `recommended` parameter.
    assert ami["Default"] == (
        "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/"
        "al2023-ami-ecs-gpu-hvm-2023.0.20261113-kernel-6.1-x86_64-ebs/image_id"
    )
    placement = default_synth.only(ECS, "AWS::EC2::PlacementGroup")
    assert placement["Strategy"] == "cluster"
    assert "GpuPlacementGroup" in data["Placement"]["GroupName"]["Fn::GetAtt"][0]
    user_data = _user_data(default_synth)
    assert "ECS_ENABLE_GPU_SUPPORT=true" in user_data and "ECS_AWSVPC_BLOCK_IMDS=true" in user_data


def test_asg_in_one_subnet_with_managed_capacity(default_synth):
    asg = default_synth.only(ECS, "AWS::AutoScaling::AutoScalingGroup")
    assert len(asg["VPCZoneIdentifier"]) == 1  # one AZ: the cluster placement group
    assert asg["NewInstancesProtectedFromScaleIn"] is True
    assert asg["MaxSize"] == "16"  # 2 x max_replicas: a rolling deploy at 200%
    provider = default_synth.only(ECS, "AWS::ECS::CapacityProvider")["AutoScalingGroupProvider"]
    assert provider["ManagedScaling"]["Status"] == "ENABLED"
    assert provider["ManagedTerminationProtection"] == "ENABLED"


def test_task_definition_one_gpu_drain_and_logs(default_synth):
    container = _container(default_synth)
    assert {"Type": "GPU", "Value": "1"} in container["ResourceRequirements"]
    assert container["StopTimeout"] == 120
    env = _env(container)
    assert int(env[contract.ENV_DRAIN_TIMEOUT_S]) < container["StopTimeout"]
    assert env[contract.ENV_MODEL_DIR] == contract.CONTAINER_MODEL_DIR
    assert env[contract.ENV_MAX_STREAMS] == "8"
    assert env[contract.ENV_ENGINES] == "1"  # one engine process unless engines_per_task says otherwise
    assert env[contract.ENV_DEPLOYMENT] == contract.DEPLOYMENT_ECS
    assert container["PortMappings"] == [{"ContainerPort": contract.SERVER_PORT, "Protocol": "tcp"}]
    assert container["MountPoints"] == [
        {"ContainerPath": contract.CONTAINER_MODEL_DIR, "ReadOnly": True, "SourceVolume": "weights"}
    ]
    assert contract.HEALTH_PATH in " ".join(container["HealthCheck"]["Command"])
    logging = container["LogConfiguration"]
    assert logging["LogDriver"] == "awslogs"
    group = default_synth[default_synth.stack_name(ECS)]["Resources"][
        logging["Options"]["awslogs-group"]["Ref"]
    ]
    assert group["Properties"]["RetentionInDays"] == 30
    task = default_synth.only(ECS, "AWS::ECS::TaskDefinition")
    assert task["NetworkMode"] == "awsvpc"


def test_service_rolls_without_cutting_streams(default_synth):
    service = default_synth.only(ECS, "AWS::ECS::Service")
    deploy = service["DeploymentConfiguration"]
    assert deploy["MinimumHealthyPercent"] == 100 and deploy["MaximumPercent"] == 200
    assert deploy["DeploymentCircuitBreaker"] == {"Enable": True, "Rollback": True}
    # a roll-out keeps the count autoscaling reached: CloudFormation resends a templated DesiredCount with every
    # new task definition; the floor of two tasks is the scalable target's
    assert "DesiredCount" not in service
    # the cluster (whose creation makes ECS's service-linked role) before the capacity provider
    providers = default_synth.resources(ECS, "AWS::ECS::CapacityProvider")
    (provider,) = providers.values()
    (cluster_id,) = default_synth.resources(ECS, "AWS::ECS::Cluster")
    assert cluster_id in provider.get("DependsOn", [])
    target = default_synth.only(ECS, "AWS::ApplicationAutoScaling::ScalableTarget")
    assert target["MinCapacity"] == 2 and target["ScalableDimension"] == "ecs:service:DesiredCount"
    assert service["CapacityProviderStrategy"][0]["CapacityProvider"]["Ref"].startswith("GpuCapacityProvider")
    assert service["NetworkConfiguration"]["AwsvpcConfiguration"]["AssignPublicIp"] == "DISABLED"


# 4. Weights storage ----------------------------------------------------------------------------------
def test_weights_bucket_is_private_versioned_encrypted_tls_only(default_synth):
    buckets = default_synth.resources(FOUNDATION, "AWS::S3::Bucket")
    (weights_id,) = [k for k in buckets if k.startswith("WeightsBucket")]
    props = buckets[weights_id]["Properties"]
    assert props["VersioningConfiguration"] == {"Status": "Enabled"}
    assert props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert props["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert "DestinationBucketName" in props["LoggingConfiguration"]
    policies = [
        p["Properties"]
        for p in default_synth.resources(FOUNDATION, "AWS::S3::BucketPolicy").values()
        if p["Properties"]["Bucket"] == {"Ref": weights_id}
    ]
    denies = [s for s in policies[0]["PolicyDocument"]["Statement"] if s["Effect"] == "Deny"]
    assert any(s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}} for s in denies)


def test_bundled_weights_are_seeded_under_the_shared_prefix(default_synth):
    seed = default_synth.only(FOUNDATION, "Custom::CDKBucketDeployment")
    assert (
        seed["DestinationBucketKeyPrefix"]
        == f"{contract.WEIGHTS_S3_PREFIX}{contract.BUNDLED_WEIGHTS_VERSION}/"
    )


def test_fsx_lustre_linked_to_the_bucket_and_mounted_on_hosts(default_synth):
    fs = default_synth.only(ECS, "AWS::FSx::FileSystem")
    assert fs["FileSystemType"] == "LUSTRE" and fs["LustreConfiguration"]["DeploymentType"] == "PERSISTENT_2"
    dra = default_synth.only(ECS, "AWS::FSx::DataRepositoryAssociation")
    assert dra["BatchImportMetaDataOnCreate"] is True
    assert set(dra["S3"]["AutoImportPolicy"]["Events"]) == {"NEW", "CHANGED", "DELETED"}
    assert _text(dra["DataRepositoryPath"]).endswith(f'"/{contract.WEIGHTS_S3_PREFIX}"]]}}')
    user_data = _user_data(default_synth)
    assert "lustre-client" in user_data and "mount -t lustre" in user_data
    # The Lustre mount comes before the line that makes the host join the cluster.
    assert user_data.index("mount -t lustre") < user_data.index("ECS_CLUSTER=")
    (volume,) = default_synth.only(ECS, "AWS::ECS::TaskDefinition")["Volumes"]
    assert volume["Host"]["SourcePath"] == f"/mnt/fsx/weights/{contract.BUNDLED_WEIGHTS_VERSION}"
    ingress = default_synth.resources(ECS, "AWS::EC2::SecurityGroupIngress").values()
    lustre_from_hosts = [
        i["Properties"]
        for i in ingress
        if i["Properties"]["FromPort"] == 988
        and "GpuHostSg" in _text(i["Properties"].get("SourceSecurityGroupId"))
    ]
    assert lustre_from_hosts


def test_service_starts_after_the_weights_are_linked(default_synth):
    (service,) = default_synth.resources(ECS, "AWS::ECS::Service").values()
    assert any(d.startswith("WeightsBucketLink") for d in service["DependsOn"])


def test_efs_encrypted_tls_iam_through_an_access_point(full_synth):
    fs = full_synth.only(ECS, "AWS::EFS::FileSystem")
    assert fs["Encrypted"] is True
    statements = fs["FileSystemPolicy"]["Statement"]
    assert any(
        s["Effect"] == "Deny" and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        for s in statements
    )
    (volume,) = full_synth.only(ECS, "AWS::ECS::TaskDefinition")["Volumes"]
    efs = volume["EFSVolumeConfiguration"]
    assert efs["TransitEncryption"] == "ENABLED"
    assert efs["AuthorizationConfig"]["IAM"] == "ENABLED"
    access_points = full_synth.resources(ECS, "AWS::EFS::AccessPoint")
    reader = access_points[efs["AuthorizationConfig"]["AccessPointId"]["Ref"]]["Properties"]
    assert reader["RootDirectory"]["Path"] == "/weights/v2"
    assert _container(full_synth)["MountPoints"][0]["ReadOnly"] is True
    task_role_policies = [
        p["Properties"]["PolicyDocument"]["Statement"]
        for k, p in full_synth.resources(ECS, "AWS::IAM::Policy").items()
        if k.startswith("ServiceTaskTaskRole")
    ]
    actions = {s["Action"] for statements in task_role_policies for s in statements}
    assert actions == {"elasticfilesystem:ClientMount"}  # read-only: no ClientWrite


def test_efs_sync_function_runs_in_the_vpc_on_deploy_and_on_upload(full_synth):
    functions = full_synth.resources(ECS, "AWS::Lambda::Function")
    (sync_id,) = [k for k in functions if k.startswith("WeightsSyncFunction")]
    fn = functions[sync_id]["Properties"]
    assert fn["Handler"] == "handler.handler"
    assert fn["FileSystemConfigs"][0]["LocalMountPath"] == "/mnt/weights"
    assert fn["VpcConfig"]["SubnetIds"]
    assert fn["Environment"]["Variables"]["WEIGHTS_PREFIX"] == contract.WEIGHTS_S3_PREFIX
    sync = full_synth.only(ECS, "Custom::StatespeakWeightsSync")
    assert sync["Version"] == "v2"
    rule = full_synth.only(ECS, "AWS::Events::Rule")
    # deletions: by a deploy or manual sync only (one event per deleted key emptied a served copy file by file)
    assert rule["EventPattern"]["detail-type"] == ["Object Created"]
    # the Provider framework calls the sync and waits at most its own timeout: the sync must time out first, so
    # the framework answers FAILED (it was killed first, and CloudFormation waited an hour)
    (framework,) = [v for k, v in functions.items() if k.startswith("WeightsSyncProviderframeworkonEvent")]
    assert fn["Timeout"] < framework["Properties"]["Timeout"]
    assert rule["EventPattern"]["detail"]["object"] == {"key": [{"prefix": contract.WEIGHTS_S3_PREFIX}]}
    assert rule["Targets"][0]["Arn"] == {"Fn::GetAtt": [sync_id, "Arn"]}
    buckets = full_synth.resources(FOUNDATION, "AWS::S3::Bucket")
    (weights,) = [v for k, v in buckets.items() if k.startswith("WeightsBucket")]
    assert "NotificationConfiguration" in weights["Properties"] or full_synth.resources(
        FOUNDATION, "Custom::S3BucketNotifications"
    )
    (service,) = full_synth.resources(ECS, "AWS::ECS::Service").values()
    assert any(d.startswith("WeightsInitialSync") for d in service["DependsOn"])


# 5. Entry -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["default_synth", "full_synth"])
def test_tasks_keep_idle_connections_longer_than_the_alb(variant, request):
    """An ALB reuses idle connections to its targets until its own idle timeout: a task that closes one first
    makes the ALB answer 502 to the request it sends on it. The tasks' keep-alive follows the ALB's setting."""
    result = request.getfixturevalue(variant)
    alb = result.only(ECS, "AWS::ElasticLoadBalancingV2::LoadBalancer")
    idle = int({a["Key"]: a["Value"] for a in alb["LoadBalancerAttributes"]}["idle_timeout.timeout_seconds"])
    keep_alive = int(_env(_container(result))[contract.ENV_KEEP_ALIVE_S])
    assert keep_alive == idle + contract.KEEP_ALIVE_MARGIN_S > idle


def test_internal_alb_for_long_streams(default_synth):
    alb = default_synth.only(ECS, "AWS::ElasticLoadBalancingV2::LoadBalancer")
    assert alb["Scheme"] == "internal"
    attrs = {a["Key"]: a["Value"] for a in alb["LoadBalancerAttributes"]}
    assert attrs["idle_timeout.timeout_seconds"] == "300"
    assert attrs["routing.http2.enabled"] == "true"
    assert attrs["access_logs.s3.enabled"] == "true"
    tg = default_synth.only(ECS, "AWS::ElasticLoadBalancingV2::TargetGroup")
    assert tg["HealthCheckPath"] == contract.READY_PATH and tg["Port"] == contract.SERVER_PORT
    assert tg["ProtocolVersion"] == "HTTP1"  # WebSocket upgrades
    tg_attrs = {a["Key"]: a["Value"] for a in tg["TargetGroupAttributes"]}
    assert int(tg_attrs["deregistration_delay.timeout_seconds"]) >= 300
    assert tg_attrs["load_balancing.algorithm.type"] == "least_outstanding_requests"
    service = default_synth.only(ECS, "AWS::ECS::Service")
    assert service["HealthCheckGracePeriodSeconds"] >= 300


def test_only_the_alb_reaches_the_tasks(default_synth):
    resources = default_synth[default_synth.stack_name(ECS)]["Resources"]
    groups = default_synth.resources(ECS, "AWS::EC2::SecurityGroup")
    (task_sg,) = [k for k in groups if k.startswith("ServiceTaskSg")]
    (alb_sg,) = [k for k in groups if k.startswith("EntrySg")]
    assert "SecurityGroupIngress" not in resources[task_sg]["Properties"]
    rules = [
        r["Properties"]
        for r in default_synth.resources(ECS, "AWS::EC2::SecurityGroupIngress").values()
        if r["Properties"]["GroupId"] == {"Fn::GetAtt": [task_sg, "GroupId"]}
    ]
    assert rules, "no ingress to the tasks at all"
    for rule in rules:
        assert rule["SourceSecurityGroupId"] == {"Fn::GetAtt": [alb_sg, "GroupId"]}
        assert rule["FromPort"] == rule["ToPort"] == contract.SERVER_PORT
    alb_ingress = resources[alb_sg]["Properties"]["SecurityGroupIngress"]
    assert [r["CidrIp"] for r in alb_ingress] == ["10.40.0.0/16"]  # internal: clients inside the VPC


# 6. Scaling -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["default", "full"])
def test_target_tracking_on_the_servers_active_streams(variant, default_synth, full_synth):
    result = default_synth if variant == "default" else full_synth
    policy = result.only(ECS, "AWS::ApplicationAutoScaling::ScalingPolicy")
    config = policy["TargetTrackingScalingPolicyConfiguration"]
    metric = config["CustomizedMetricSpecification"]
    assert metric["Namespace"] == contract.METRICS_NAMESPACE
    assert metric["MetricName"] == contract.METRIC_ACTIVE_STREAMS
    assert {d["Name"]: d["Value"] for d in metric["Dimensions"]} == contract.metric_dimensions(
        contract.DEPLOYMENT_ECS, "Statespeak"
    )
    assert metric["Statistic"] == "Average"
    assert config["DisableScaleIn"] is False
    assert config["ScaleInCooldown"] >= 600 and config["ScaleOutCooldown"] <= 120
    target = result.only(ECS, "AWS::ApplicationAutoScaling::ScalableTarget")
    expected = {"default": (6, 2, 8), "full": (5, 3, 12)}[variant]
    assert (config["TargetValue"], target["MinCapacity"], target["MaxCapacity"]) == expected


# 7. Observability -----------------------------------------------------------------------------------
def _alarms(result) -> dict[str, dict]:
    return {k: v["Properties"] for k, v in result.resources(ECS, "AWS::CloudWatch::Alarm").items()}


def _alarm_metric(alarm: dict) -> dict:
    """{Namespace, MetricName, Stat, Dimensions} whether CDK rendered a plain or a labelled metric."""
    if "MetricName" in alarm:
        stat = alarm.get("ExtendedStatistic") or alarm.get("Statistic")
        return {
            "Namespace": alarm["Namespace"],
            "MetricName": alarm["MetricName"],
            "Stat": stat,
            "Dimensions": alarm.get("Dimensions", []),
        }
    (query,) = alarm["Metrics"]
    metric = query["MetricStat"]["Metric"]
    return {
        "Namespace": metric["Namespace"],
        "MetricName": metric["MetricName"],
        "Stat": query["MetricStat"]["Stat"],
        "Dimensions": metric.get("Dimensions", []),
    }


def test_alarms_watch_ttfb_errors_rejections_and_unhealthy_hosts(default_synth):
    # The latency canary's own two alarms are checked in tests/test_canary_construct.py.
    canary = {contract.METRIC_CANARY_SUCCESS, contract.METRIC_CANARY_TTFB}
    alarms = [a for a in _alarms(default_synth).values() if _alarm_metric(a)["MetricName"] not in canary]
    by_metric = {_alarm_metric(a)["MetricName"]: _alarm_metric(a) for a in alarms}
    assert set(by_metric) == {
        contract.METRIC_TIME_TO_FIRST_AUDIO,
        contract.METRIC_REJECTED_STREAMS,
        "HTTPCode_Target_5XX_Count",
        "UnHealthyHostCount",
    }
    ttfb = by_metric[contract.METRIC_TIME_TO_FIRST_AUDIO]
    assert ttfb["Stat"] == "p99" and ttfb["Namespace"] == contract.METRICS_NAMESPACE
    assert {d["Name"]: d["Value"] for d in ttfb["Dimensions"]} == contract.metric_dimensions(
        contract.DEPLOYMENT_ECS, "Statespeak"
    )
    assert all("AlarmActions" not in a for a in alarms)  # no topic unless asked for
    assert not default_synth.resources(ECS, "AWS::SNS::Subscription")


def test_alarm_topic_is_encrypted_with_an_email_subscription(full_synth):
    subscription = full_synth.only(ECS, "AWS::SNS::Subscription")
    assert subscription["Protocol"] == "email" and subscription["Endpoint"] == "oncall@example.com"
    topic_id = subscription["TopicArn"]["Ref"]
    topic = full_synth[full_synth.stack_name(ECS)]["Resources"][topic_id]["Properties"]
    assert "KmsMasterKeyId" in topic
    assert all(a["AlarmActions"] == [{"Ref": topic_id}] for a in _alarms(full_synth).values())


def test_dashboard_shows_latency_streams_errors_gpu_and_tasks(default_synth):
    dashboard = default_synth.only(ECS, "AWS::CloudWatch::Dashboard")
    body = _text(dashboard["DashboardBody"])
    for name in (
        contract.METRIC_TIME_TO_FIRST_AUDIO,
        contract.METRIC_ACTIVE_STREAMS,
        contract.METRIC_REJECTED_STREAMS,
        contract.METRIC_STREAM_ERRORS,
        "HTTPCode_Target_5XX_Count",
        "nvidia_smi_utilization_gpu",
        "RunningTaskCount",
    ):
        assert name in body, name
    assert "p50" in body and "p99" in body


def test_the_task_runs_the_image_as_its_non_root_user(default_synth):
    """The image runs as root by default, as SageMaker's container contract requires; the ECS task is where
    non-root is chosen (the image's user, whose home holds the Triton cache)."""
    from model_server.contract import IMAGE_USER

    assert _container(default_synth)["User"] == IMAGE_USER
