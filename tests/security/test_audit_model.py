"""The audit's reading of templates on small hand-written ones: the cases the kit's own stacks never show."""

from __future__ import annotations

from tools.audit.model import Boundary


def _template(**resources) -> dict:
    return {"Resources": {name: {"Type": t, "Properties": p} for name, (t, p) in resources.items()}}


def _vpc_with_route(target_type: str, target_key: str) -> dict:
    return _template(
        Vpc=("AWS::EC2::VPC", {"CidrBlock": "10.0.0.0/16"}),
        Gw=(target_type, {}),
        Sub=("AWS::EC2::Subnet", {"CidrBlock": "10.0.0.0/24", "VpcId": {"Ref": "Vpc"}, "MapPublicIpOnLaunch": True}),
        Rt=("AWS::EC2::RouteTable", {"VpcId": {"Ref": "Vpc"}}),
        Assoc=("AWS::EC2::SubnetRouteTableAssociation", {"RouteTableId": {"Ref": "Rt"}, "SubnetId": {"Ref": "Sub"}}),
        Out=("AWS::EC2::Route", {"RouteTableId": {"Ref": "Rt"}, "DestinationCidrBlock": "0.0.0.0/0",
                                 target_key: {"Ref": "Gw"}}),
    )  # fmt: skip


def test_nat_route_and_public_ip_subnet_are_findings():
    b = Boundary.from_templates(
        "t", {"S-Net": _vpc_with_route("AWS::EC2::NatGateway", "NatGatewayId")}, "us-east-1"
    )
    assert [r.target_kind for r in b.internet_routes] == ["nat-gateway"]
    assert b.internet_routes[0].subnets == ["Sub"]
    findings = "\n".join(b.findings())
    assert "NAT route 0.0.0.0/0 from Sub" in findings
    assert "subnet Net/Sub (assigns public IPs on launch)" in findings


def test_internet_gateway_without_a_public_load_balancer_is_a_finding():
    b = Boundary.from_templates(
        "t", {"S-Net": _vpc_with_route("AWS::EC2::InternetGateway", "GatewayId")}, "us-east-1"
    )
    assert [r.target_kind for r in b.internet_routes] == ["internet-gateway"]
    assert any("no internet-facing load balancer uses them" in f for f in b.findings())


def test_open_ingress_outside_a_load_balancer_and_open_resource_policy_are_not_accepted():
    template = _template(
        Sg=("AWS::EC2::SecurityGroup", {"GroupDescription": "hosts", "SecurityGroupIngress": [
            {"CidrIp": "0.0.0.0/0", "IpProtocol": "tcp", "FromPort": 22, "ToPort": 22}]}),
        Bucket=("AWS::S3::Bucket", {}),
        Policy=("AWS::S3::BucketPolicy", {"Bucket": {"Ref": "Bucket"}, "PolicyDocument": {"Statement": [
            {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "*"}]}}),
    )  # fmt: skip
    b = Boundary.from_templates("t", {"S-App": template}, "us-east-1")
    rejected = {e.what for e in b.exposure if not e.acceptable}
    assert "security group Sg tcp/22" in rejected
    assert any(w.startswith("App/Policy") for w in rejected), rejected
    encryption = {e.res.logical_id: e for e in b.encryption}
    assert not encryption["Bucket"].ok and "not enforced" in encryption["Bucket"].in_transit


def test_cross_stack_import_resolves_to_the_exporting_resource():
    producer = _template(Sg=("AWS::EC2::SecurityGroup", {"GroupDescription": "shared"}))
    producer["Outputs"] = {"X": {"Value": {"Fn::GetAtt": ["Sg", "GroupId"]}, "Export": {"Name": "P:SgId"}}}
    consumer = _template(
        Fn=("AWS::Lambda::Function", {"VpcConfig": {"SecurityGroupIds": [{"Fn::ImportValue": "P:SgId"}]}}),
        In=("AWS::EC2::SecurityGroupIngress", {"GroupId": {"Fn::ImportValue": "P:SgId"}, "IpProtocol": "tcp",
                                               "FromPort": 443, "ToPort": 443, "CidrIp": "10.1.0.0/16"}),
    )  # fmt: skip
    b = Boundary.from_templates("t", {"S-P": producer, "S-C": consumer}, "us-east-1")
    (group,) = b.groups
    assert [r.name for r in group.attached_to] == ["C/Fn"]
    assert [(r.direction, r.ports, r.peer) for r in group.rules] == [("in", "443", "10.1.0.0/16")]


def test_wildcards_are_flagged_only_on_allow_statements():
    template = _template(
        Role=("AWS::IAM::Role", {"AssumeRolePolicyDocument": {"Statement": [
            {"Effect": "Allow", "Principal": {"Service": "ecs-tasks.amazonaws.com"}, "Action": "sts:AssumeRole"}]}}),
        Pol=("AWS::IAM::Policy", {"Roles": [{"Ref": "Role"}], "PolicyDocument": {"Statement": [
            {"Effect": "Allow", "Action": "s3:Get*", "Resource": "arn:aws:s3:::b/k"},
            {"Effect": "Deny", "Action": "*", "Resource": "*"},
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/k"}]}}),
    )  # fmt: skip
    b = Boundary.from_templates("t", {"S-Iam": template}, "us-east-1")
    (role,) = b.roles
    assert role.trust == ["Service: ecs-tasks.amazonaws.com"]
    assert [s.actions for _, s in b.wildcards] == [["s3:Get*"]]
