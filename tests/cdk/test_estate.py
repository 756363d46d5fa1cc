"""Your own estate: the whole app in an existing VPC, named clients, a private name with internal TLS.

The `estate` context of tests/conftest.py (both routes, imported VPC, some endpoints already there,
client ranges and groups, `tts.internal.example` with a certificate) is synthesized once; the compliance
gate (cdk-nag packs, cfn-lint in test_quality_gates.py, checkov in tests/security) runs on it like on the
default context, which keeps creating its own VPC.
"""

from __future__ import annotations

import json

import pytest

from stacks.config import VPC_ENDPOINT_SERVICES, ConfigError, StatespeakConfig, load_context
from tests.conftest import VARIANTS

ESTATE = VARIANTS["estate"]
FOUNDATION, ECS, SM = "Foundation", "Ecs", "SageMaker"


@pytest.fixture(scope="module")
def estate(synth):
    result = synth(**ESTATE)
    assert result.error is None, result.error
    return result


def test_endpoint_names_in_config_are_the_ones_the_network_creates():
    from statespeak_constructs.network import ENDPOINT_SERVICES

    assert set(VPC_ENDPOINT_SERVICES) == set(ENDPOINT_SERVICES)


def test_synthesis_needs_no_lookup(estate):
    manifest = json.loads((estate.outdir / "manifest.json").read_text())
    assert not manifest.get("missing"), manifest.get("missing")


def test_the_vpc_is_imported_not_created(estate, default_synth):
    for part in (FOUNDATION, ECS, SM):
        for kind in (
            "AWS::EC2::VPC",
            "AWS::EC2::Subnet",
            "AWS::EC2::RouteTable",
            "AWS::EC2::InternetGateway",
        ):
            assert not estate.resources(part, kind), f"{part} creates {kind} in an existing VPC"
    assert default_synth.resources(FOUNDATION, "AWS::EC2::VPC"), "the default still creates its own VPC"
    groups = [g["Properties"] for g in estate.resources(FOUNDATION, "AWS::EC2::SecurityGroup").values()]
    assert groups and all(g["VpcId"] == ESTATE["vpc_id"] for g in groups)


def test_only_the_missing_endpoints_are_added(estate):
    # The foundation's endpoints and the SageMaker route's own (in its stack, so switching routes leaves
    # the foundation as it is).
    endpoints = [
        e["Properties"]
        for part in (FOUNDATION, SM)
        for e in estate.resources(part, "AWS::EC2::VPCEndpoint").values()
    ]
    short = [str(e["ServiceName"]).removeprefix("com.amazonaws.us-east-1.") for e in endpoints]
    assert len(short) == len(set(short)), f"created twice: {sorted(short)}"
    short = set(short)
    existing = set(ESTATE["existing_vpc_endpoints"].split(","))
    assert not short & existing, f"created again: {short & existing}"
    assert {"ecr.api", "ecr.dkr", "logs", "sagemaker.runtime", "secretsmanager"} <= short, short
    assert all(e["VpcId"] == ESTATE["vpc_id"] for e in endpoints)
    (gateway,) = [e for e in endpoints if e.get("VpcEndpointType") == "Gateway"]
    assert sorted(gateway["RouteTableIds"]) == sorted(ESTATE["data_route_table_ids"].split(","))
    interfaces = [e for e in endpoints if e.get("VpcEndpointType") == "Interface"]
    assert all(sorted(e["SubnetIds"]) == sorted(ESTATE["data_subnet_ids"].split(",")) for e in interfaces)


def test_gpu_hosts_and_fsx_use_the_named_gpu_subnet(estate):
    fsx = estate.only(ECS, "AWS::FSx::FileSystem")
    assert fsx["SubnetIds"] == [ESTATE["gpu_subnet_id"]]
    (group,) = estate.resources(ECS, "AWS::AutoScaling::AutoScalingGroup").values()
    assert group["Properties"]["VPCZoneIdentifier"] == [ESTATE["gpu_subnet_id"]]


def _ingress(result, part: str, group_logical_id: str) -> list[dict]:
    resources = result.templates[result.stack_name(part)]["Resources"]
    inline = resources[group_logical_id]["Properties"].get("SecurityGroupIngress", [])
    separate = [
        r["Properties"]
        for r in resources.values()
        if r["Type"] == "AWS::EC2::SecurityGroupIngress"
        and r["Properties"].get("GroupId") == {"Fn::GetAtt": [group_logical_id, "GroupId"]}
    ]
    return inline + separate


def test_alb_admits_exactly_the_named_clients_and_the_canary(estate):
    lb = next(iter(estate.resources(ECS, "AWS::ElasticLoadBalancingV2::LoadBalancer").values()))
    assert lb["Properties"]["Scheme"] == "internal"
    (sg_ref,) = lb["Properties"]["SecurityGroups"]
    rules = _ingress(estate, ECS, sg_ref["Fn::GetAtt"][0])
    peers = {(r.get("CidrIp") or json.dumps(r.get("SourceSecurityGroupId")), r["FromPort"]) for r in rules}
    canary_sg = next(k for k in estate.resources(ECS, "AWS::EC2::SecurityGroup") if k.startswith("Canary"))
    expected = set()
    for port in (443, 80):  # 80 only answers with a redirect to 443
        expected |= {
            ("10.30.0.0/16", port),
            (json.dumps("sg-0ccccccccccccccc1"), port),
        }
    expected.add((json.dumps({"Fn::GetAtt": [canary_sg, "GroupId"]}), 443))
    assert peers == expected
    assert not any(r.get("CidrIp") == ESTATE["vpc_cidr"] for r in rules), (
        "named clients replace the VPC range"
    )


def test_runtime_endpoint_admits_exactly_the_named_clients_and_the_canary(estate):
    runtime = next(
        e["Properties"]
        for e in estate.resources(SM, "AWS::EC2::VPCEndpoint").values()
        if str(e["Properties"]["ServiceName"]).endswith("sagemaker.runtime")
    )
    (sg_ref,) = runtime["SecurityGroupIds"]
    group_id = sg_ref["Fn::GetAtt"][0]
    rules = _ingress(estate, SM, group_id)
    canary_sg = next(k for k in estate.resources(SM, "AWS::EC2::SecurityGroup") if k.startswith("Canary"))
    peers = {(r.get("CidrIp"), json.dumps(r.get("SourceSecurityGroupId")), r["FromPort"]) for r in rules}
    assert peers == {
        ("10.30.0.0/16", "null", 443),
        (None, json.dumps("sg-0ccccccccccccccc1"), 443),
        (None, json.dumps({"Fn::GetAtt": [canary_sg, "GroupId"]}), 443),  # the kit's canary
    }


def test_a_vpc_with_its_own_runtime_endpoint_gets_no_second_one(synth):
    """A VPC holds one private-DNS endpoint per service: with `sagemaker.runtime` in
    existing_vpc_endpoints the SageMaker stack adds none, and the canary and the invoke policy use the VPC's."""
    existing = ESTATE["existing_vpc_endpoints"] + ",sagemaker.runtime"
    context = {k: v for k, v in ESTATE.items() if k not in ("dns_name", "certificate_arn")}  # ALB keys
    result = synth(**{**context, "deployment": "sagemaker", "existing_vpc_endpoints": existing})
    assert result.error is None, result.error
    services = [
        str(e["Properties"]["ServiceName"])
        for part in (FOUNDATION, SM)
        for e in result.resources(part, "AWS::EC2::VPCEndpoint").values()
    ]
    assert not [s for s in services if s.endswith("sagemaker.runtime")], services
    canary = next(
        g for k, g in result.resources(SM, "AWS::EC2::SecurityGroup").items() if k.startswith("Canary")
    )
    egress = canary["Properties"]["SecurityGroupEgress"]
    assert ESTATE["existing_endpoints_security_group_id"] in {
        r.get("DestinationSecurityGroupId") for r in egress
    }
    (policy,) = result.resources(SM, "AWS::IAM::ManagedPolicy").values()
    (statement,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Condition"] == {"StringEquals": {"aws:SourceVpc": ESTATE["vpc_id"]}}


def test_private_name_with_tls_on_the_internal_alb(estate):
    zone = estate.only(ECS, "AWS::Route53::HostedZone")
    assert zone["Name"] == "internal.example."
    assert zone["VPCs"] == [{"VPCId": ESTATE["vpc_id"], "VPCRegion": "us-east-1"}]
    record = estate.only(ECS, "AWS::Route53::RecordSet")
    assert (record["Name"], record["Type"]) == ("tts.internal.example.", "A")
    assert "AliasTarget" in record
    listeners = [
        r["Properties"] for r in estate.resources(ECS, "AWS::ElasticLoadBalancingV2::Listener").values()
    ]
    https = [listener for listener in listeners if listener["Protocol"] == "HTTPS"]
    assert https and https[0]["Certificates"] == [{"CertificateArn": ESTATE["certificate_arn"]}]
    outputs = estate.templates[estate.stack_name(ECS)]["Outputs"]
    assert outputs["Url"]["Value"] == "https://tts.internal.example"


def test_canary_calls_the_private_name_and_checks_the_certificate(estate):
    functions = estate.resources(ECS, "AWS::Lambda::Function")
    canary = next(f["Properties"] for k, f in functions.items() if k.startswith("Canary"))
    env = canary["Environment"]["Variables"]
    assert env["CANARY_TARGET_URL"] == "https://tts.internal.example"
    assert env.get("CANARY_TLS_CHECK_HOSTNAME", "true") == "true"
    assert sorted(canary["VpcConfig"]["SubnetIds"]) == sorted(ESTATE["data_subnet_ids"].split(","))


def test_existing_zone_is_used_not_created(synth):
    result = synth(deployment="ecs", dns_name="tts.voice.corp", private_zone_id="Z0123456789ABCDEFGHIJ")
    assert result.error is None, result.error
    assert not result.resources(ECS, "AWS::Route53::HostedZone")
    record = result.only(ECS, "AWS::Route53::RecordSet")
    assert record["HostedZoneId"] == "Z0123456789ABCDEFGHIJ" and record["Name"] == "tts.voice.corp."
    env = next(
        f["Properties"]["Environment"]["Variables"]
        for k, f in result.resources(ECS, "AWS::Lambda::Function").items()
        if k.startswith("Canary")
    )
    assert env["CANARY_TARGET_URL"] == "http://tts.voice.corp"  # no certificate: plain HTTP on the name


BYO = {
    k: ESTATE[k]
    for k in ("vpc_id", "vpc_cidr", "availability_zones", "data_subnet_ids", "data_route_table_ids")
}


@pytest.mark.parametrize(
    ("context", "names"),
    [
        ({"data_subnet_ids": "subnet-0aaaaaaaaaaaaaaa1"}, "data_subnet_ids"),
        ({**BYO, "vpc_id": "vpc-xyz"}, "vpc_id"),
        ({**BYO, "data_subnet_ids": "subnet-0aaaaaaaaaaaaaaa1"}, "data_subnet_ids"),
        ({**BYO, "availability_zones": "us-east-1a,us-east-1b,us-east-1c"}, "availability_zones"),
        ({**BYO, "data_route_table_ids": ""}, "data_route_table_ids"),
        ({**BYO, "gpu_subnet_id": "subnet-0ddddddddddddddd1"}, "gpu_subnet_id"),
        ({"existing_vpc_endpoints": "ecr.api,bogus"}, "existing_vpc_endpoints"),
        ({"existing_vpc_endpoints": "ecr.api"}, "existing_endpoints_security_group_id"),
        ({"client_cidrs": "10.0.0.0/33"}, "client_cidrs"),
        ({"client_cidrs": "0.0.0.0/0"}, "client_cidrs"),
        ({"client_security_group_ids": "web"}, "client_security_group_ids"),
        ({"dns_name": "TTS!"}, "dns_name"),
        ({"dns_name": "tts.a.example", "private_zone_name": "b.example"}, "dns_name"),
        ({"private_zone_id": "Z123"}, "private_zone_id"),
        ({"dns_name": "tts.a.example", "deployment": "sagemaker"}, "dns_name"),
    ],
)
def test_bad_estate_keys_fail_with_the_key_named(context, names):
    with pytest.raises(ConfigError, match=names):
        StatespeakConfig.from_context(load_context(context))


def test_good_estate_keys_are_accepted():
    config = StatespeakConfig.from_context(load_context(ESTATE))
    assert config.byo_vpc and config.zone_domain == "internal.example"
    assert config.existing_endpoint_set == {"sts", "ecs-telemetry", "sagemaker.api"}
    s3_existing = {**BYO, "data_route_table_ids": "", "existing_vpc_endpoints": "s3"}
    assert StatespeakConfig.from_context(load_context(s3_existing)).data_route_table_list == []


def test_audit_report_and_diagram_show_the_named_clients_and_the_name(estate):
    from tools.audit.model import Boundary
    from tools.audit.render import diagram, markdown

    boundary = Boundary.from_templates("estate", estate.templates, "us-east-1")
    report = markdown(boundary, ESTATE)
    section = report.split("## Who may call the service", 1)[1].split("## Network paths", 1)[0]
    for entry in ("load balancer", "SageMaker runtime endpoint"):
        for client in ("10.30.0.0/16", "sg-0ccccccccccccccc1"):
            assert any(entry in line and f"| {client} |" in line for line in section.splitlines()), (
                entry,
                client,
            )
    assert "tts.internal.example." in section
    graph = diagram(boundary).source
    assert "clients\\n10.30.0.0/16" in graph and "clients\\nsg-0ccccccccccccccc1" in graph
