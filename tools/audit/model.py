"""Read synthesized CloudFormation templates into the facts of the security boundary.

Everything here is derived from the templates alone (no AWS calls, no construct tree): the same
function reads an in-process synthesis or a `cdk.out` someone hands a reviewer. Cross-stack references
(`Fn::ImportValue` of a CDK export) are followed back to the exporting stack's resource.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

INTERNET_CIDRS = frozenset({"0.0.0.0/0", "::/0"})
# CDK's placeholder egress rule meaning "no egress at all" (allow_all_outbound=False with no rules).
CDK_NO_EGRESS = {"CidrIp": "255.255.255.255/32", "IpProtocol": "icmp", "FromPort": 252, "ToPort": 86}
API_KEY_ENV = ("STATESPEAK_API_KEYS", "STATESPEAK_API_KEYS_FILE")
_HASH_SUFFIX = re.compile(r"[0-9A-F]{8}$")
PSEUDO = {"AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com", "AWS::AccountId": "<account>",
          "AWS::StackName": "<stack>", "AWS::NoValue": ""}  # fmt: skip


def load_templates(outdir: Path) -> dict[str, dict]:
    """{stack name: template} of every CloudFormation stack in a cloud assembly directory."""
    manifest_path = Path(outdir) / "manifest.json"
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{outdir} is not a cloud assembly (no manifest.json); synthesize first")
    manifest = json.loads(manifest_path.read_text())
    templates = {}
    for name, artifact in manifest.get("artifacts", {}).items():
        if artifact.get("type") == "aws:cloudformation:stack":
            display = artifact.get("displayName") or name
            templates[display] = json.loads(
                (Path(outdir) / artifact["properties"]["templateFile"]).read_text()
            )
    if not templates:
        raise ValueError(f"{outdir} holds no CloudFormation stack")
    return templates


def short(logical_id: str) -> str:
    """`EntrySg28FB33AF` -> `EntrySg`: the construct path part of a CDK logical id."""
    return _HASH_SUFFIX.sub("", logical_id) or logical_id


def as_list(value: Any) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


@dataclass(frozen=True)
class Res:
    stack: str
    logical_id: str
    type: str
    props: Mapping[str, Any]

    @property
    def key(self) -> tuple[str, str]:
        return (self.stack, self.logical_id)

    @property
    def name(self) -> str:
        return f"{self.stack.split('-', 1)[-1]}/{short(self.logical_id)}"


@dataclass
class Templates:
    """All resources of one deployment choice, with cross-stack references resolved."""

    templates: dict[str, dict]
    region: str
    resources: dict[tuple[str, str], Res] = field(default_factory=dict)
    exports: dict[str, tuple[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for stack, template in self.templates.items():
            for logical_id, body in template.get("Resources", {}).items():
                res = Res(stack, logical_id, body.get("Type", ""), body.get("Properties") or {})
                self.resources[res.key] = res
            for output in template.get("Outputs", {}).values():
                export = (output.get("Export") or {}).get("Name")
                if isinstance(export, str):
                    self.exports[export] = (stack, output.get("Value"))

    def of_type(self, *types: str) -> list[Res]:
        return [r for r in self.resources.values() if r.type in types]

    def target(self, stack: str, value: Any) -> Res | None:
        """The resource a Ref / Fn::GetAtt / Fn::ImportValue (of a CDK export) points at."""
        if isinstance(value, Mapping):
            if isinstance(value.get("Ref"), str):
                return self.resources.get((stack, value["Ref"]))
            if "Fn::GetAtt" in value:
                target = value["Fn::GetAtt"]
                logical = target[0] if isinstance(target, list) else str(target).split(".")[0]
                return self.resources.get((stack, logical))
            if isinstance(value.get("Fn::ImportValue"), str) and value["Fn::ImportValue"] in self.exports:
                src_stack, src_value = self.exports[value["Fn::ImportValue"]]
                return self.target(src_stack, src_value)
        return None

    def text(self, stack: str, value: Any) -> str:
        """A readable rendering of a property value with intrinsics: `<Foundation/WeightsBucket.Arn>`."""
        if value is None:
            return ""
        if isinstance(value, str | int | float | bool):
            return str(value).lower() if isinstance(value, bool) else str(value)
        if isinstance(value, list):
            return ", ".join(self.text(stack, v) for v in value)
        if isinstance(value, Mapping):
            if isinstance(value.get("Ref"), str):
                ref = value["Ref"]
                if ref == "AWS::Region":
                    return self.region
                if ref in PSEUDO:
                    return PSEUDO[ref]
                res = self.resources.get((stack, ref))
                return f"<{res.name}>" if res else f"<{ref}>"
            if "Fn::GetAtt" in value:
                target = value["Fn::GetAtt"]
                logical, attr = (
                    (target[0], target[1]) if isinstance(target, list) else str(target).split(".", 1)
                )
                res = self.resources.get((stack, logical))
                return f"<{res.name if res else logical}.{attr}>"
            if "Fn::ImportValue" in value:
                name = value["Fn::ImportValue"]
                if isinstance(name, str) and name in self.exports:
                    return self.text(*self.exports[name])
                return f"<import {self.text(stack, name)}>"
            if "Fn::Join" in value:
                sep, parts = value["Fn::Join"]
                return sep.join(self.text(stack, p) for p in as_list(parts))
            if "Fn::Sub" in value:
                body = value["Fn::Sub"]
                body = body[0] if isinstance(body, list) else body
                text = str(body).replace("${AWS::Region}", self.region)
                for pseudo, rendered in PSEUDO.items():
                    text = text.replace("${" + pseudo + "}", rendered)
                return text
            if "Fn::Select" in value:
                return "<selected part>"
            # Plain mappings (IAM conditions): `ArnEquals ecs:cluster=<Ecs/GpuCluster.Arn>`.
            return "; ".join(
                f"{k} {self.text(stack, v)}" if isinstance(v, Mapping) else f"{k}={self.text(stack, v)}"
                for k, v in value.items()
            )
        return str(value)

    def references(self, res: Res) -> Iterator[Res]:
        """Every resource that mentions `res` (Ref/GetAtt/ImportValue) anywhere in its properties."""
        for other in self.resources.values():
            if other.key != res.key and self._mentions(other.stack, other.props, res):
                yield other

    def _mentions(self, stack: str, value: Any, res: Res) -> bool:
        if isinstance(value, Mapping):
            if any(k in value for k in ("Ref", "Fn::GetAtt", "Fn::ImportValue")):
                found = self.target(stack, value)
                if found is not None and found.key == res.key:
                    return True
            return any(self._mentions(stack, v, res) for v in value.values())
        if isinstance(value, list):
            return any(self._mentions(stack, v, res) for v in value)
        return False


# ------------------------------------------------------------------------------------------- network


@dataclass(frozen=True)
class Rule:
    direction: str  # "in" | "out"
    group: Res
    protocol: str
    ports: str
    peer: str  # readable peer
    peer_kind: str  # internet | vpc | cidr | group | prefix-list
    peer_group: Res | None
    description: str

    @property
    def is_internet(self) -> bool:
        return self.peer_kind == "internet"


@dataclass
class SecurityGroup:
    res: Res
    description: str
    attached_to: list[Res]
    rules: list[Rule]
    no_egress: bool

    @property
    def label(self) -> str:
        return short(self.res.logical_id)


def _ports(rule: Mapping[str, Any]) -> tuple[str, str]:
    protocol = str(rule.get("IpProtocol", "-1"))
    if protocol == "-1":
        return "all", "all"
    low, high = rule.get("FromPort"), rule.get("ToPort")
    if low in (None, -1):
        return protocol, "all"
    return protocol, str(low) if low == high else f"{low}-{high}"


def vpc_cidrs(t: Templates) -> set[str]:
    return {str(v.props.get("CidrBlock")) for v in t.of_type("AWS::EC2::VPC") if v.props.get("CidrBlock")}


def _rule(t: Templates, direction: str, group: Res, body: Mapping[str, Any], stack: str) -> Rule:
    protocol, ports = _ports(body)
    cidr = body.get("CidrIp") or body.get("CidrIpv6")
    peer_ref = (
        body.get("SourceSecurityGroupId") if direction == "in" else body.get("DestinationSecurityGroupId")
    )
    peer_group = t.target(stack, peer_ref) if peer_ref is not None else None
    if cidr in INTERNET_CIDRS:
        peer, kind = f"internet ({cidr})", "internet"
    elif cidr and cidr in vpc_cidrs(t):
        peer, kind = f"VPC range ({cidr})", "vpc"
    elif cidr:
        peer, kind = str(cidr), "cidr"
    elif peer_group is not None:
        peer, kind = f"group {short(peer_group.logical_id)}", "group"
    elif body.get("SourcePrefixListId") or body.get("DestinationPrefixListId"):
        pl = body.get("SourcePrefixListId") or body.get("DestinationPrefixListId")
        peer, kind = f"prefix list {t.text(stack, pl)}", "prefix-list"
    else:
        peer, kind = t.text(stack, peer_ref), "group"
    return Rule(direction, group, protocol, ports, peer, kind, peer_group, str(body.get("Description", "")))


def security_groups(t: Templates) -> list[SecurityGroup]:
    groups: dict[tuple[str, str], SecurityGroup] = {}
    for res in t.of_type("AWS::EC2::SecurityGroup"):
        rules = [_rule(t, "in", res, b, res.stack) for b in as_list(res.props.get("SecurityGroupIngress"))]
        egress = as_list(res.props.get("SecurityGroupEgress"))
        no_egress = any(all(b.get(k) == v for k, v in CDK_NO_EGRESS.items()) for b in egress)
        rules += [_rule(t, "out", res, b, res.stack) for b in egress
                  if not all(b.get(k) == v for k, v in CDK_NO_EGRESS.items())]  # fmt: skip
        attached = [
            r for r in t.references(res)
            if r.type not in ("AWS::EC2::SecurityGroupIngress", "AWS::EC2::SecurityGroupEgress", "AWS::EC2::SecurityGroup")
            and not r.type.startswith("AWS::IAM::")  # a policy condition naming the group is not an attachment
        ]  # fmt: skip
        groups[res.key] = SecurityGroup(
            res, str(res.props.get("GroupDescription", "")), attached, rules, no_egress
        )
    for res in t.of_type("AWS::EC2::SecurityGroupIngress", "AWS::EC2::SecurityGroupEgress"):
        group = t.target(res.stack, res.props.get("GroupId"))
        if group is None or group.key not in groups:
            continue
        direction = "in" if res.type.endswith("Ingress") else "out"
        groups[group.key].rules.append(_rule(t, direction, group, res.props, res.stack))
    return sorted(groups.values(), key=lambda g: g.res.name)


@dataclass
class Endpoint:
    res: Res
    service: str
    kind: str  # Gateway | Interface
    private_dns: bool
    has_policy: bool
    groups: list[str]
    statements: list[Statement] = field(default_factory=list)  # the endpoint policy, when it has one


def vpc_endpoints(t: Templates) -> list[Endpoint]:
    out = []
    for res in t.of_type("AWS::EC2::VPCEndpoint"):
        service = t.text(res.stack, res.props.get("ServiceName")).replace(f"com.amazonaws.{t.region}.", "")
        groups = [
            short(g.logical_id)
            for g in (t.target(res.stack, s) for s in as_list(res.props.get("SecurityGroupIds")))
            if g
        ]
        out.append(
            Endpoint(
                res,
                service,
                str(res.props.get("VpcEndpointType", "Gateway")),
                bool(res.props.get("PrivateDnsEnabled")),
                res.props.get("PolicyDocument") is not None,
                groups,
                _statements(t, res.stack, res.props.get("PolicyDocument"), "endpoint policy"),
            )
        )
    return sorted(out, key=lambda e: (e.kind, e.service))


@dataclass
class Listener:
    res: Res
    port: int
    protocol: str
    tls_policy: str
    action: str

    @property
    def redirects_to_https(self) -> bool:
        return self.action.startswith("redirect to HTTPS")


@dataclass
class LoadBalancer:
    res: Res
    scheme: str
    subnets: list[str]
    groups: list[str]
    listeners: list[Listener]
    access_logs: str

    @property
    def internet_facing(self) -> bool:
        return self.scheme != "internal"


def _action(t: Templates, stack: str, actions: Any) -> str:
    parts = []
    for action in as_list(actions):
        kind = action.get("Type")
        if kind == "redirect":
            cfg = action.get("RedirectConfig") or {}
            parts.append(f"redirect to {cfg.get('Protocol', '#{protocol}')}:{cfg.get('Port', '#{port}')}")
        elif kind == "forward":
            target = t.target(stack, action.get("TargetGroupArn"))
            parts.append(f"forward to {target.name if target else 'target group'}")
        else:
            parts.append(str(kind))
    return "; ".join(parts)


def load_balancers(t: Templates) -> list[LoadBalancer]:
    out = []
    for res in t.of_type("AWS::ElasticLoadBalancingV2::LoadBalancer"):
        attrs = {a.get("Key"): a.get("Value") for a in as_list(res.props.get("LoadBalancerAttributes"))}
        logs = ""
        if str(attrs.get("access_logs.s3.enabled")) == "true":
            logs = f"{t.text(res.stack, attrs.get('access_logs.s3.bucket'))}/{attrs.get('access_logs.s3.prefix', '')}"
        listeners = []
        for lis in t.of_type("AWS::ElasticLoadBalancingV2::Listener"):
            if t.target(lis.stack, lis.props.get("LoadBalancerArn")) is res:
                listeners.append(
                    Listener(
                        lis,
                        int(lis.props.get("Port", 0)),
                        str(lis.props.get("Protocol")),
                        str(lis.props.get("SslPolicy", "")),
                        _action(t, lis.stack, lis.props.get("DefaultActions")),
                    )
                )
        subnets = [
            short(s.logical_id)
            for s in (t.target(res.stack, x) for x in as_list(res.props.get("Subnets")))
            if s
        ]
        groups = [
            short(g.logical_id)
            for g in (t.target(res.stack, x) for x in as_list(res.props.get("SecurityGroups")))
            if g
        ]
        out.append(
            LoadBalancer(
                res,
                str(res.props.get("Scheme", "internet-facing")),
                subnets,
                groups,
                sorted(listeners, key=lambda x: x.port),
                logs,
            )
        )
    return out


@dataclass
class Route:
    res: Res
    destination: str
    target_kind: str  # internet-gateway | nat-gateway | other
    target: str
    subnets: list[str]


def routes(t: Templates) -> list[Route]:
    associations: dict[tuple[str, str], list[str]] = {}
    for assoc in t.of_type("AWS::EC2::SubnetRouteTableAssociation"):
        table = t.target(assoc.stack, assoc.props.get("RouteTableId"))
        subnet = t.target(assoc.stack, assoc.props.get("SubnetId"))
        if table and subnet:
            associations.setdefault(table.key, []).append(short(subnet.logical_id))
    out = []
    for res in t.of_type("AWS::EC2::Route"):
        dest = str(res.props.get("DestinationCidrBlock") or res.props.get("DestinationIpv6CidrBlock") or "")
        gateway = t.target(res.stack, res.props.get("GatewayId"))
        if gateway is not None and gateway.type == "AWS::EC2::InternetGateway":
            kind, target = "internet-gateway", short(gateway.logical_id)
        elif res.props.get("NatGatewayId") is not None:
            kind, target = "nat-gateway", t.text(res.stack, res.props.get("NatGatewayId"))
        elif res.props.get("EgressOnlyInternetGatewayId") is not None:
            kind, target = "internet-gateway", "egress-only IGW"
        else:
            kind, target = "other", t.text(res.stack, res.props)
        table = t.target(res.stack, res.props.get("RouteTableId"))
        out.append(Route(res, dest, kind, target, associations.get(table.key, []) if table else []))
    return out


@dataclass
class Subnet:
    res: Res
    cidr: str
    public_ip_on_launch: bool
    routes_out: list[str]


def subnets(t: Templates) -> list[Subnet]:
    by_subnet: dict[str, list[str]] = {}
    for route in routes(t):
        for name in route.subnets:
            by_subnet.setdefault(name, []).append(f"{route.destination} -> {route.target_kind}")
    return [
        Subnet(s, str(s.props.get("CidrBlock", "")), bool(s.props.get("MapPublicIpOnLaunch")),
               by_subnet.get(short(s.logical_id), []))
        for s in t.of_type("AWS::EC2::Subnet")
    ]  # fmt: skip


# ----------------------------------------------------------------------------------------------- IAM


@dataclass
class Statement:
    effect: str
    actions: list[str]
    resources: list[str]
    conditions: str
    source: str  # which policy

    @property
    def wildcard_actions(self) -> list[str]:
        return [a for a in self.actions if "*" in a]

    @property
    def wildcard_resources(self) -> list[str]:
        return [r for r in self.resources if "*" in r]

    @property
    def has_wildcard(self) -> bool:
        return self.effect == "Allow" and bool(self.wildcard_actions or self.wildcard_resources)


@dataclass
class Role:
    res: Res
    trust: list[str]
    managed: list[str]
    statements: list[Statement]


def _statements(t: Templates, stack: str, document: Any, source: str) -> list[Statement]:
    out = []
    for st in as_list((document or {}).get("Statement")):
        actions = [t.text(stack, a) for a in as_list(st.get("Action") or st.get("NotAction"))]
        if st.get("NotAction"):
            actions = [f"NOT {a}" for a in actions]
        resources = [t.text(stack, r) for r in as_list(st.get("Resource") or st.get("NotResource"))]
        conditions = t.text(stack, st.get("Condition")) if st.get("Condition") else ""
        out.append(Statement(str(st.get("Effect")), actions, resources, conditions, source))
    return out


def _principals(t: Templates, stack: str, principal: Any) -> list[str]:
    if principal == "*":
        return ["* (anyone)"]
    out = []
    for kind, values in (principal or {}).items():
        for value in as_list(values):
            out.append(f"{kind}: {'* (anyone)' if value == '*' else t.text(stack, value)}")
    return out


def roles(t: Templates) -> list[Role]:
    out = []
    for res in t.of_type("AWS::IAM::Role"):
        trust = []
        for st in as_list((res.props.get("AssumeRolePolicyDocument") or {}).get("Statement")):
            cond = f" if {t.text(res.stack, st['Condition'])}" if st.get("Condition") else ""
            trust += [f"{p}{cond}" for p in _principals(t, res.stack, st.get("Principal"))]
        managed = [
            t.text(res.stack, m).split(":policy/")[-1] for m in as_list(res.props.get("ManagedPolicyArns"))
        ]
        statements = []
        for inline in as_list(res.props.get("Policies")):
            statements += _statements(
                t, res.stack, inline.get("PolicyDocument"), f"inline {inline.get('PolicyName')}"
            )
        for pol in t.of_type("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
            if any(t.target(pol.stack, r) is res for r in as_list(pol.props.get("Roles"))):
                statements += _statements(
                    t, pol.stack, pol.props.get("PolicyDocument"), short(pol.logical_id)
                )
        out.append(Role(res, trust, managed, statements))
    return sorted(out, key=lambda r: r.res.name)


def unattached_policies(t: Templates) -> list[tuple[Res, list[Statement]]]:
    """Managed policies the kit creates for others to attach (e.g. the SageMaker invoke policy)."""
    return [
        (pol, _statements(t, pol.stack, pol.props.get("PolicyDocument"), short(pol.logical_id)))
        for pol in t.of_type("AWS::IAM::ManagedPolicy")
        if not as_list(pol.props.get("Roles")) and not as_list(pol.props.get("Users"))
        and not as_list(pol.props.get("Groups"))
    ]  # fmt: skip


RESOURCE_POLICY_TYPES = {
    "AWS::S3::BucketPolicy": ("PolicyDocument", "Bucket"),
    "AWS::SNS::TopicPolicy": ("PolicyDocument", "Topics"),
    "AWS::KMS::Key": ("KeyPolicy", None),
    "AWS::EFS::FileSystem": ("FileSystemPolicy", None),
    "AWS::ECR::Repository": ("RepositoryPolicyText", None),
}


@dataclass
class ResourcePolicyStatement:
    res: Res
    on: str
    effect: str
    principals: list[str]
    actions: list[str]
    conditions: str

    @property
    def open_to_anyone(self) -> bool:
        """An Allow to `*` with no condition: readable by any AWS principal."""
        return (
            self.effect == "Allow" and any("* (anyone)" in p for p in self.principals) and not self.conditions
        )


def resource_policies(t: Templates) -> list[ResourcePolicyStatement]:
    out = []
    for type_name, (doc_key, on_key) in RESOURCE_POLICY_TYPES.items():
        for res in t.of_type(type_name):
            doc = res.props.get(doc_key)
            if not doc:
                continue
            on = t.text(res.stack, res.props.get(on_key)) if on_key else f"<{res.name}>"
            for st in as_list(doc.get("Statement")):
                out.append(ResourcePolicyStatement(
                    res, on, str(st.get("Effect")), _principals(t, res.stack, st.get("Principal")),
                    [t.text(res.stack, a) for a in as_list(st.get("Action"))],
                    t.text(res.stack, st.get("Condition")) if st.get("Condition") else "",
                ))  # fmt: skip
    for res in t.of_type("AWS::Lambda::Permission"):
        out.append(ResourcePolicyStatement(
            res, t.text(res.stack, res.props.get("FunctionName")), "Allow",
            [t.text(res.stack, res.props.get("Principal"))], [str(res.props.get("Action"))],
            t.text(res.stack, res.props.get("SourceArn")) and f"SourceArn {t.text(res.stack, res.props.get('SourceArn'))}",
        ))  # fmt: skip
    return out


# ---------------------------------------------------------------------------------------- encryption


@dataclass
class Encryption:
    res: Res
    at_rest: str
    in_transit: str
    ok: bool


def _key(t: Templates, stack: str, value: Any) -> str:
    return f"KMS key {t.text(stack, value)}" if value else ""


def _bucket_tls_enforced(t: Templates, bucket: Res) -> bool:
    for pol in t.of_type("AWS::S3::BucketPolicy"):
        if t.target(pol.stack, pol.props.get("Bucket")) is bucket:
            for st in as_list((pol.props.get("PolicyDocument") or {}).get("Statement")):
                if st.get("Effect") == "Deny" and "aws:SecureTransport" in json.dumps(
                    st.get("Condition", {})
                ):
                    return True
    return False


def encryption(t: Templates) -> list[Encryption]:
    out: list[Encryption] = []
    for res in t.of_type("AWS::S3::Bucket"):
        rules = as_list((res.props.get("BucketEncryption") or {}).get("ServerSideEncryptionConfiguration"))
        algo = ((rules[0] if rules else {}).get("ServerSideEncryptionByDefault") or {}).get("SSEAlgorithm")
        at_rest = {"AES256": "SSE-S3 (AES-256)", "aws:kms": "SSE-KMS", "aws:kms:dsse": "DSSE-KMS"}.get(
            algo, "SSE-S3 (S3 default since 2023)"
        )
        tls = _bucket_tls_enforced(t, res)
        out.append(
            Encryption(res, at_rest, "TLS enforced by bucket policy" if tls else "TLS not enforced", tls)
        )
    for res in t.of_type("AWS::Logs::LogGroup"):
        key = _key(t, res.stack, res.props.get("KmsKeyId"))
        days = res.props.get("RetentionInDays")
        out.append(
            Encryption(
                res,
                (key or "CloudWatch Logs service key") + f"; retention {days or 'never expires'} d",
                "TLS (Logs API via VPC endpoint or AWS service)",
                bool(days),
            )
        )
    for res in t.of_type("AWS::EFS::FileSystem"):
        enc = bool(res.props.get("Encrypted"))
        policy = json.dumps(res.props.get("FileSystemPolicy") or {})
        tls = "aws:SecureTransport" in policy
        out.append(
            Encryption(
                res,
                (_key(t, res.stack, res.props.get("KmsKeyId")) or "AWS managed key aws/elasticfilesystem")
                if enc
                else "NOT encrypted",
                "TLS required by file system policy" if tls else "TLS optional",
                enc and tls,
            )
        )
    for res in t.of_type("AWS::FSx::FileSystem"):
        cfg = res.props.get("LustreConfiguration") or {}
        deployment = cfg.get("DeploymentType", "SCRATCH_1")
        key = _key(t, res.stack, res.props.get("KmsKeyId")) or "AWS managed key aws/fsx"
        in_transit = ("automatic (Lustre on Nitro clients)" if deployment != "SCRATCH_1"
                      else "NOT encrypted (SCRATCH_1)")  # fmt: skip
        out.append(Encryption(res, f"{key} ({deployment})", in_transit, deployment != "SCRATCH_1"))
    for res in t.of_type("AWS::SecretsManager::Secret"):
        key = _key(t, res.stack, res.props.get("KmsKeyId"))
        rotation = any(t.target(r.stack, r.props.get("SecretId")) is res
                       for r in t.of_type("AWS::SecretsManager::RotationSchedule"))  # fmt: skip
        out.append(
            Encryption(
                res,
                (key or "AWS managed key aws/secretsmanager")
                + ("; rotated" if rotation else "; no rotation schedule"),
                "TLS (Secrets Manager API)",
                bool(key),
            )
        )
    for res in t.of_type("AWS::SNS::Topic"):
        key = _key(t, res.stack, res.props.get("KmsMasterKeyId"))
        out.append(Encryption(res, key or "NOT encrypted", "TLS (SNS API)", bool(key)))
    for res in t.of_type("AWS::SageMaker::EndpointConfig"):
        key = _key(t, res.stack, res.props.get("KmsKeyId"))
        out.append(
            Encryption(
                res,
                key or "instance-store NVMe, hardware-encrypted by the host (no KmsKeyId)",
                "TLS (SageMaker runtime API via VPC endpoint)",
                True,
            )
        )
    for res in t.of_type("AWS::ECR::Repository"):
        cfg = res.props.get("EncryptionConfiguration") or {}
        out.append(
            Encryption(
                res,
                "KMS" if cfg.get("EncryptionType") == "KMS" else "AES-256 (ECR default)",
                "TLS (ECR API / endpoints)",
                True,
            )
        )
    for res in t.of_type("AWS::KMS::Key"):
        rotation = bool(res.props.get("EnableKeyRotation"))
        out.append(
            Encryption(res, "key material in KMS; rotation " + ("on" if rotation else "OFF"), "n/a", rotation)
        )
    for res in t.of_type("AWS::EC2::LaunchTemplate"):
        data = res.props.get("LaunchTemplateData") or {}
        volumes = [b.get("Ebs") or {} for b in as_list(data.get("BlockDeviceMappings")) if b.get("Ebs")]
        enc = bool(volumes) and all(v.get("Encrypted") for v in volumes)
        out.append(
            Encryption(
                res,
                "EBS volumes encrypted" if enc else "EBS encryption not set (account default)",
                "n/a",
                enc,
            )
        )
    for res in t.of_type("AWS::ElasticLoadBalancingV2::Listener"):
        proto = str(res.props.get("Protocol"))
        actions = as_list(res.props.get("DefaultActions"))
        redirect = actions and all(a.get("Type") == "redirect" for a in actions)
        tls = proto in ("HTTPS", "TLS")
        transit = (f"TLS ({res.props.get('SslPolicy')})" if tls
                   else "plain HTTP, redirect only" if redirect else "plain HTTP")  # fmt: skip
        lb = t.target(res.stack, res.props.get("LoadBalancerArn"))
        internal = lb is not None and lb.props.get("Scheme") == "internal"
        out.append(
            Encryption(
                res, "n/a", transit + (" (internal)" if internal else ""), tls or bool(redirect) or internal
            )
        )
    for res in t.of_type("AWS::ECS::TaskDefinition"):
        for vol in as_list(res.props.get("Volumes")):
            efs = vol.get("EFSVolumeConfiguration")
            if efs:
                on = efs.get("TransitEncryption") == "ENABLED"
                out.append(
                    Encryption(
                        res,
                        f"volume {vol.get('Name')}: see file system",
                        "EFS mount over TLS" if on else "EFS mount WITHOUT TLS",
                        on,
                    )
                )
    return out


# ------------------------------------------------------------------------------------------- exposure


@dataclass
class Exposure:
    what: str
    how: str
    acceptable: bool
    note: str


def task_auth(t: Templates) -> list[tuple[Res, bool]]:
    """Each ECS task definition and whether its server container gets API keys (env or secret)."""
    out = []
    for res in t.of_type("AWS::ECS::TaskDefinition"):
        names = set()
        for container in as_list(res.props.get("ContainerDefinitions")):
            names |= {e.get("Name") for e in as_list(container.get("Environment"))}
            names |= {s.get("Name") for s in as_list(container.get("Secrets"))}
        out.append((res, any(n in names for n in API_KEY_ENV)))
    return out


def exposure(t: Templates) -> list[Exposure]:
    out = []
    authed = all(ok for _, ok in task_auth(t))
    for lb in load_balancers(t):
        if not lb.internet_facing:
            continue
        for lis in lb.listeners:
            tls = lis.protocol in ("HTTPS", "TLS")
            note = (
                ""
                if lis.redirects_to_https
                else (
                    "server API keys configured"
                    if authed
                    else "no STATESPEAK_API_KEYS in the task definition: the API answers anyone who reaches it"
                )
            )
            out.append(
                Exposure(
                    f"{lb.res.name} listener {lis.protocol}:{lis.port}",
                    f"internet-facing ALB, {lis.action}",
                    tls or lis.redirects_to_https,
                    note,
                )
            )
    for group in security_groups(t):
        for rule in group.rules:
            if rule.direction == "in" and rule.is_internet:
                behind_lb = any(
                    a.type == "AWS::ElasticLoadBalancingV2::LoadBalancer"
                    and a.props.get("Scheme", "internet-facing") != "internal"
                    for a in group.attached_to
                )
                out.append(
                    Exposure(
                        f"security group {group.label} {rule.protocol}/{rule.ports}",
                        rule.peer,
                        behind_lb,
                        "attached to the internet-facing ALB" if behind_lb else "NOT behind a load balancer",
                    )
                )
    for subnet in subnets(t):
        if subnet.public_ip_on_launch:
            out.append(Exposure(f"subnet {subnet.res.name}", "assigns public IPs on launch", False, ""))
    for st in resource_policies(t):
        if st.open_to_anyone:
            out.append(
                Exposure(
                    f"{st.res.name} ({st.on})", f"resource policy allows * {', '.join(st.actions)}", False, ""
                )
            )
    for res in t.of_type("AWS::Lambda::Url"):
        auth = res.props.get("AuthType")
        out.append(Exposure(f"function URL {res.name}", f"auth {auth}", auth == "AWS_IAM", ""))
    for res in t.of_type("AWS::SageMaker::Endpoint"):
        out.append(Exposure(
            f"SageMaker endpoint {t.text(res.stack, res.props.get('EndpointName'))}",
            "SageMaker runtime API (IAM-authenticated AWS API, no network path into the VPC)", True,
            "callers need sagemaker:InvokeEndpoint; the kit's invoke policy pins aws:SourceVpce to the VPC endpoint",
        ))  # fmt: skip
    return out


@dataclass(frozen=True)
class Acknowledged:
    """A cdk-nag finding acknowledged in the construct tree (only known from an in-process synthesis)."""

    path: str
    rule: str
    reason: str


@dataclass
class Boundary:
    """Everything the report and the diagram show, for one deployment choice."""

    name: str
    t: Templates
    groups: list[SecurityGroup] = field(default_factory=list)
    endpoints: list[Endpoint] = field(default_factory=list)
    lbs: list[LoadBalancer] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    subnets: list[Subnet] = field(default_factory=list)
    roles: list[Role] = field(default_factory=list)
    shared_policies: list[tuple[Res, list[Statement]]] = field(default_factory=list)
    resource_policies: list[ResourcePolicyStatement] = field(default_factory=list)
    encryption: list[Encryption] = field(default_factory=list)
    exposure: list[Exposure] = field(default_factory=list)
    acknowledged: list[Acknowledged] | None = None
    """None when the report was made from a cloud assembly alone (acknowledgements are not in templates)."""

    @classmethod
    def from_templates(cls, name: str, templates: dict[str, dict], region: str) -> Boundary:
        t = Templates(templates, region)
        return cls(
            name,
            t,
            security_groups(t),
            vpc_endpoints(t),
            load_balancers(t),
            routes(t),
            subnets(t),
            roles(t),
            unattached_policies(t),
            resource_policies(t),
            encryption(t),
            exposure(t),
        )

    @property
    def internet_routes(self) -> list[Route]:
        return [r for r in self.routes if r.target_kind in ("internet-gateway", "nat-gateway")]

    @property
    def wildcards(self) -> list[tuple[Role, Statement]]:
        return [(role, st) for role in self.roles for st in role.statements if st.has_wildcard]

    @property
    def public(self) -> list[Exposure]:
        return self.exposure

    def findings(self) -> list[str]:
        """Plain statements a reviewer should look at (also printed by the CLI)."""
        out = []
        for e in self.exposure:
            if not e.acceptable or "no STATESPEAK_API_KEYS" in e.note:
                out.append(f"publicly reachable: {e.what} ({e.how}){': ' + e.note if e.note else ''}")
        igw_routes = [r for r in self.routes if r.target_kind == "internet-gateway"]
        if igw_routes and not any(lb.internet_facing for lb in self.lbs):
            subnets = sorted({s for r in igw_routes for s in r.subnets})
            out.append(
                f"internet gateway routes from {', '.join(subnets)} but no internet-facing load balancer "
                "uses them: public subnets with nothing to serve"
            )
        for route in self.routes:
            if route.target_kind == "nat-gateway":
                out.append(
                    f"NAT route {route.destination} from {', '.join(route.subnets)}: data plane can reach the internet"
                )
        for group in self.groups:
            for rule in group.rules:
                if rule.direction == "out" and rule.is_internet:
                    out.append(
                        f"security group {group.label} allows egress to {rule.peer} {rule.protocol}/{rule.ports} "
                        "(bounded by routes: the data subnets have none to the internet)"
                    )
        for enc in self.encryption:
            if not enc.ok:
                out.append(f"encryption: {enc.res.name} at rest: {enc.at_rest}; in transit: {enc.in_transit}")
        for role, st in self.wildcards:
            cond = f" if {st.conditions}" if st.conditions else ""
            out.append(
                f"wildcard: {role.res.name} may {', '.join(st.actions)} on {', '.join(st.resources)}{cond}"
            )
        return out
