"""The kit's compliance gate: cdk-nag rule packs, the kit's own rules, and its reviewed exceptions.

- `add_rule_packs(app)` registers AwsSolutions, NIST 800-53 R5, HIPAA Security and `StatespeakChecks`
  (rules for what those packs do not check) and the kit-wide acknowledgements below. Any finding left
  unacknowledged fails `python app.py` / `cdk synth`.
- `StatespeakChecks` rules (ids `Statespeak-<Rule>[<finding>]`):
  - SageMakerModelIsolated: a SageMaker model has a VpcConfig and network isolation;
  - FileSystemEncrypted: EFS encrypted at rest, FSx for Lustre not SCRATCH_1 (the one deployment type
    without in-transit encryption), ECS EFS volumes mounted with TLS;
  - EcsTaskIsolated: no ECS task runs privileged or shares the host's network, PID or IPC namespace;
  - PublicIngress: no security-group ingress from 0.0.0.0/0 or ::/0 except on an internet-facing load
    balancer's TLS (HTTPS/TLS) listener port;
  - PublicHttpListener: no HTTP listener on an internet-facing load balancer unless every action it can
    take (default actions and listener rules) redirects to HTTPS.
- `KIT_EXCEPTIONS`: findings the packs raise on purpose-made choices of the kit, each with the
  condition under which it applies (checked on the resolved resource, so a changed resource loses its
  acknowledgement) and the reason a reviewer can check.

Rules read resolved CloudFormation properties (camelCase, as `CfnResource.cfnProperties` holds them),
and look across resources of the same stack through a per-stack index (load balancer scheme, listeners,
security group attachments).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import jsii
from aws_cdk import Acknowledgment, CfnResource, Stack, Validations
from cdk_nag import (
    AwsSolutionsChecks,
    HIPAASecurityChecks,
    IApplyRule,
    NagMessageLevel,
    NagPack,
    NagRuleCompliance,
    NIST80053R5Checks,
)
from constructs import IConstruct, IValidation

PACK_NAME = "Statespeak"
NIST_PACK = "NIST.800.53.R5"
HIPAA_PACK = "HIPAA.Security"
OPEN_CIDRS = frozenset({"0.0.0.0/0", "::/0"})
TLS_PROTOCOLS = frozenset({"HTTPS", "TLS"})
# Deployment types of FSx for Lustre that encrypt in transit (SCRATCH_1 does not); at rest every FSx
# file system is encrypted (KMS for persistent types, FSx-managed keys for scratch).
LUSTRE_IN_TRANSIT = frozenset({"SCRATCH_2", "PERSISTENT_1", "PERSISTENT_2"})


# --------------------------------------------------------------------------------------------- index


@dataclass(frozen=True)
class Resource:
    """One CfnResource of a stack with its resolved (camelCase) properties."""

    logical_id: str
    type: str
    props: Mapping[str, Any]
    path: str
    construct: CfnResource


class StackIndex:
    """Every CfnResource of one stack by logical id, resolved once (rules look across resources)."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.by_id: dict[str, Resource] = {}
        for child in stack.node.find_all():
            if not CfnResource.is_cfn_resource(child) or Stack.of(child) is not stack:
                continue
            logical_id = stack.resolve(stack.get_logical_id(child))
            props = stack.resolve(child._cfn_properties) or {}
            self.by_id[logical_id] = Resource(
                logical_id, child.cfn_resource_type, props, child.node.path, child
            )

    def of_type(self, type_name: str) -> list[Resource]:
        return [r for r in self.by_id.values() if r.type == type_name]

    def referenced(self, value: Any, type_name: str) -> Resource | None:
        """The resource of `type_name` that `{"Ref": id}` or `{"Fn::GetAtt": [id, ...]}` points at."""
        logical_id = ref_id(value)
        found = self.by_id.get(logical_id) if logical_id else None
        return found if found is not None and found.type == type_name else None

    def load_balancers_of_group(self, group_logical_id: str) -> list[Resource]:
        return [
            lb
            for lb in self.of_type("AWS::ElasticLoadBalancingV2::LoadBalancer")
            if group_logical_id in {ref_id(g) for g in as_list(lb.props.get("securityGroups"))}
        ]

    def listeners_of(self, load_balancer: Resource) -> list[Resource]:
        return [
            listener
            for listener in self.of_type("AWS::ElasticLoadBalancingV2::Listener")
            if ref_id(listener.props.get("loadBalancerArn")) == load_balancer.logical_id
        ]

    def rules_of(self, listener: Resource) -> list[Resource]:
        return [
            rule
            for rule in self.of_type("AWS::ElasticLoadBalancingV2::ListenerRule")
            if ref_id(rule.props.get("listenerArn")) == listener.logical_id
        ]


def ref_id(value: Any) -> str | None:
    """Logical id behind a resolved Ref / Fn::GetAtt, else None."""
    if isinstance(value, Mapping):
        if "Ref" in value and isinstance(value["Ref"], str):
            return value["Ref"]
        if "Fn::GetAtt" in value:
            target = value["Fn::GetAtt"]
            return target[0] if isinstance(target, list) else str(target).split(".", 1)[0]
    return None


def as_list(value: Any) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def is_true(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def is_internet_facing(load_balancer: Resource) -> bool:
    # CloudFormation's default scheme is internet-facing: only an explicit "internal" is internal.
    return load_balancer.props.get("scheme", "internet-facing") != "internal"


def redirects_to_https(actions: Any) -> bool:
    """True when there is at least one action and every one is a redirect whose protocol is HTTPS."""
    actions = as_list(actions)
    return bool(actions) and all(
        a.get("type") == "redirect" and (a.get("redirectConfig") or {}).get("protocol") == "HTTPS"
        for a in actions
    )


class _IndexCache:
    """One StackIndex per stack, built on first use by a pack or the exceptions (one app per instance)."""

    def __init__(self) -> None:
        self._indexes: dict[str, StackIndex] = {}

    def of(self, construct: IConstruct) -> StackIndex:
        stack = Stack.of(construct)
        key = stack.node.path
        if key not in self._indexes:
            self._indexes[key] = StackIndex(stack)
        return self._indexes[key]


# --------------------------------------------------------------------------------------------- rules

RuleResult = NagRuleCompliance | list[str]


def sagemaker_model_isolated(resource: Resource, index: StackIndex) -> RuleResult:
    if resource.type != "AWS::SageMaker::Model":
        return NagRuleCompliance.NOT_APPLICABLE
    findings = []
    vpc = resource.props.get("vpcConfig") or {}
    if not as_list(vpc.get("subnets")) or not as_list(vpc.get("securityGroupIds")):
        findings.append("VpcConfig")
    if not is_true(resource.props.get("enableNetworkIsolation")):
        findings.append("NetworkIsolation")
    return findings or NagRuleCompliance.COMPLIANT


def file_system_encrypted(resource: Resource, index: StackIndex) -> RuleResult:
    props = resource.props
    if resource.type == "AWS::EFS::FileSystem":
        return NagRuleCompliance.COMPLIANT if is_true(props.get("encrypted")) else ["AtRest"]
    if resource.type == "AWS::FSx::FileSystem":
        if props.get("fileSystemType") != "LUSTRE":
            return NagRuleCompliance.COMPLIANT  # Windows, ONTAP, OpenZFS: always encrypted at rest
        # CloudFormation's default Lustre deployment type is SCRATCH_1.
        deployment = (props.get("lustreConfiguration") or {}).get("deploymentType", "SCRATCH_1")
        return NagRuleCompliance.COMPLIANT if deployment in LUSTRE_IN_TRANSIT else ["InTransit"]
    if resource.type == "AWS::ECS::TaskDefinition":
        findings = [
            f"EfsVolume:{volume.get('name')}:InTransit"
            for volume in as_list(props.get("volumes"))
            if volume.get("efsVolumeConfiguration") is not None
            and volume["efsVolumeConfiguration"].get("transitEncryption") != "ENABLED"
        ]
        return findings or NagRuleCompliance.COMPLIANT
    return NagRuleCompliance.NOT_APPLICABLE


def ecs_task_isolated(resource: Resource, index: StackIndex) -> RuleResult:
    if resource.type != "AWS::ECS::TaskDefinition":
        return NagRuleCompliance.NOT_APPLICABLE
    props = resource.props
    findings = [
        f"{name}Host"
        for name, key in (("Network", "networkMode"), ("Pid", "pidMode"), ("Ipc", "ipcMode"))
        if props.get(key) == "host"
    ]
    findings += [
        f"Privileged:{container.get('name')}"
        for container in as_list(props.get("containerDefinitions"))
        if is_true(container.get("privileged"))
    ]
    return findings or NagRuleCompliance.COMPLIANT


def _open_ingress(rule: Mapping[str, Any]) -> str | None:
    """`proto:from-to:cidr` of an ingress entry open to the whole internet, else None."""
    cidr = rule.get("cidrIp") if rule.get("cidrIp") in OPEN_CIDRS else rule.get("cidrIpv6")
    if cidr not in OPEN_CIDRS:
        return None
    protocol = str(rule.get("ipProtocol", "-1"))
    protocol = "all" if protocol == "-1" else protocol
    low, high = rule.get("fromPort"), rule.get("toPort")
    ports = (
        "all" if protocol == "all" or low in (None, -1) else (f"{low}" if low == high else f"{low}-{high}")
    )
    return f"{protocol}:{ports}:{cidr}"


def _tls_listener_ports(group_logical_id: str, index: StackIndex) -> set[int]:
    """Ports of TLS listeners on internet-facing load balancers that use this security group."""
    ports: set[int] = set()
    for lb in index.load_balancers_of_group(group_logical_id):
        if is_internet_facing(lb):
            ports |= {
                int(listener.props["port"])
                for listener in index.listeners_of(lb)
                if listener.props.get("protocol") in TLS_PROTOCOLS
                and isinstance(listener.props.get("port"), int)
            }
    return ports


def _ingress_findings(
    group_logical_id: str | None, rules: Iterable[Mapping[str, Any]], index: StackIndex
) -> list[str]:
    allowed = _tls_listener_ports(group_logical_id, index) if group_logical_id else set()
    findings = []
    for rule in rules:
        finding = _open_ingress(rule)
        if finding is None:
            continue
        port = rule.get("fromPort")
        if str(rule.get("ipProtocol")) == "tcp" and port == rule.get("toPort") and port in allowed:
            continue
        findings.append(finding)
    return findings


def public_ingress(resource: Resource, index: StackIndex) -> RuleResult:
    if resource.type == "AWS::EC2::SecurityGroup":
        findings = _ingress_findings(
            resource.logical_id, as_list(resource.props.get("securityGroupIngress")), index
        )
    elif resource.type == "AWS::EC2::SecurityGroupIngress":
        findings = _ingress_findings(ref_id(resource.props.get("groupId")), [resource.props], index)
    else:
        return NagRuleCompliance.NOT_APPLICABLE
    return findings or NagRuleCompliance.COMPLIANT


def public_http_listener(resource: Resource, index: StackIndex) -> RuleResult:
    if resource.type != "AWS::ElasticLoadBalancingV2::Listener" or resource.props.get("protocol") != "HTTP":
        return NagRuleCompliance.NOT_APPLICABLE
    lb = index.referenced(resource.props.get("loadBalancerArn"), "AWS::ElasticLoadBalancingV2::LoadBalancer")
    if lb is not None and not is_internet_facing(lb):
        return NagRuleCompliance.NOT_APPLICABLE
    # Unknown load balancer (another stack, imported): treated as internet-facing, the stricter reading.
    actions = [resource.props.get("defaultActions")] + [
        r.props.get("actions") for r in index.rules_of(resource)
    ]
    return (
        NagRuleCompliance.COMPLIANT
        if all(redirects_to_https(a) for a in actions)
        else NagRuleCompliance.NON_COMPLIANT
    )


@dataclass(frozen=True)
class Rule:
    suffix: str
    info: str
    explanation: str
    check: Callable[[Resource, StackIndex], RuleResult]


RULES: tuple[Rule, ...] = (
    Rule(
        "SageMakerModelIsolated",
        "The SageMaker model lacks a VpcConfig (subnets and security groups) or network isolation.",
        "Without VpcConfig the container's S3 and ECR traffic leaves through SageMaker's network, and without "
        "network isolation the container itself can call out: text and audio could leave the account.",
        sagemaker_model_isolated,
    ),
    Rule(
        "FileSystemEncrypted",
        "A file system or an ECS EFS volume is not encrypted at rest or in transit.",
        "Model weights are read by every task; EFS must be encrypted at rest and mounted with TLS, and FSx "
        "for Lustre SCRATCH_1 is the only deployment type that does not encrypt traffic to its clients.",
        file_system_encrypted,
    ),
    Rule(
        "EcsTaskIsolated",
        "An ECS task runs privileged or shares the host's network, PID or IPC namespace.",
        "A privileged container or one in the host's namespaces can reach the instance role's credentials, "
        "the GPU host's other tasks and the ECS agent; one compromised stream handler becomes the host.",
        ecs_task_isolated,
    ),
    Rule(
        "PublicIngress",
        "A security group admits 0.0.0.0/0 or ::/0 on something other than an internet-facing load "
        "balancer's TLS listener port.",
        "The only thing the internet may reach is a TLS listener of an internet-facing load balancer; any "
        "other open ingress exposes a host, task, endpoint or file system directly.",
        public_ingress,
    ),
    Rule(
        "PublicHttpListener",
        "An internet-facing load balancer has an HTTP listener that does not only redirect to HTTPS.",
        "Text and audio on a plain HTTP listener cross the internet unencrypted and API keys travel in clear.",
        public_http_listener,
    ),
)


@jsii.implements(IApplyRule)
class _AppliedRule:
    """The jsii callback object cdk-nag's applyRule expects (properties must live on the class)."""

    def __init__(self, rule: Rule, node: CfnResource, resource: Resource, index: StackIndex) -> None:
        self._rule, self._node, self._resource, self._index = rule, node, resource, index

    @property
    def node(self) -> CfnResource:
        return self._node

    @property
    def rule_suffix_override(self) -> str:
        return self._rule.suffix

    @property
    def info(self) -> str:
        return self._rule.info

    @property
    def explanation(self) -> str:
        return self._rule.explanation

    @property
    def level(self) -> NagMessageLevel:
        return NagMessageLevel.ERROR

    def rule(self, node: CfnResource) -> RuleResult:
        return self._rule.check(self._resource, self._index)


class StatespeakChecks(NagPack):
    """The kit's own cdk-nag rules (see the module docstring). One instance validates one app."""

    def __init__(self, *, verbose: bool = False) -> None:
        super().__init__(verbose=verbose)
        self._pack_name = PACK_NAME
        self._indexes = _IndexCache()

    @property
    def name(self) -> str:
        return PACK_NAME

    @property
    def rule_ids(self) -> list[str]:
        return [f"{PACK_NAME}-{rule.suffix}" for rule in RULES]

    def _check_resource(self, node: CfnResource) -> None:
        index = self._indexes.of(node)
        stack = index.stack
        resource = index.by_id.get(stack.resolve(stack.get_logical_id(node)))
        if resource is None:  # a resource added after the index was built: index it on its own
            resource = Resource(
                stack.resolve(stack.get_logical_id(node)),
                node.cfn_resource_type,
                stack.resolve(node._cfn_properties) or {},
                node.node.path,
                node,
            )
        for rule in RULES:
            self._apply_rule(_AppliedRule(rule, node, resource, index))


# ------------------------------------------------------------------------------------ kit exceptions


@dataclass(frozen=True)
class KitException:
    """A pack finding the kit accepts, where `applies` holds, for `reason`."""

    rule: str
    """Rule id without the pack prefix, e.g. "IAMNoInlinePolicy" or "PublicIngress[tcp:80:0.0.0.0/0]"."""
    packs: tuple[str, ...]
    applies: Callable[[Resource, StackIndex], bool]
    reason: str


def _is_type(type_name: str) -> Callable[[Resource, StackIndex], bool]:
    return lambda r, _: r.type == type_name


def _path_has(type_name: str, *fragments: str) -> Callable[[Resource, StackIndex], bool]:
    return lambda r, _: r.type == type_name and any(f in r.path for f in fragments)


def _listener_lb(resource: Resource, index: StackIndex) -> Resource | None:
    return index.referenced(
        resource.props.get("loadBalancerArn"), "AWS::ElasticLoadBalancingV2::LoadBalancer"
    )


def _internal_plain_http_listener(resource: Resource, index: StackIndex) -> bool:
    if resource.type != "AWS::ElasticLoadBalancingV2::Listener" or resource.props.get("protocol") != "HTTP":
        return False
    lb = _listener_lb(resource, index)
    return lb is not None and not is_internet_facing(lb)


def _redirect_only_http_listener(resource: Resource, index: StackIndex) -> bool:
    return (
        resource.type == "AWS::ElasticLoadBalancingV2::Listener"
        and resource.props.get("protocol") == "HTTP"
        and redirects_to_https(resource.props.get("defaultActions"))
        and not index.rules_of(resource)
    )


def _load_balancer(internet_facing: bool) -> Callable[[Resource, StackIndex], bool]:
    return lambda r, _: (
        r.type == "AWS::ElasticLoadBalancingV2::LoadBalancer" and is_internet_facing(r) == internet_facing
    )


def _redirect_port_open_to_all(port: int, cidr: str) -> Callable[[Resource, StackIndex], bool]:
    """A security group of an internet-facing load balancer whose listener on `port` only redirects."""

    def applies(resource: Resource, index: StackIndex) -> bool:
        if resource.type != "AWS::EC2::SecurityGroup":
            return False
        for lb in index.load_balancers_of_group(resource.logical_id):
            for listener in index.listeners_of(lb):
                if listener.props.get("port") == port and _redirect_only_http_listener(listener, index):
                    return is_internet_facing(lb)
        return False

    return applies


def _alarm_without_actions(resource: Resource, index: StackIndex) -> bool:
    props = resource.props
    return resource.type == "AWS::CloudWatch::Alarm" and not any(
        as_list(props.get(k)) for k in ("alarmActions", "okActions", "insufficientDataActions")
    )


def _vpc_default_group_unused(resource: Resource, index: StackIndex) -> bool:
    """The VPC's default security group is referenced by no resource of its stack."""
    if resource.type != "AWS::EC2::VPC":
        return False
    needle = repr({"Fn::GetAtt": [resource.logical_id, "DefaultSecurityGroup"]})
    return not any(needle in repr(other.props) for other in index.by_id.values())


def _role_only_policy(resource: Resource, index: StackIndex) -> bool:
    props = resource.props
    return (
        resource.type == "AWS::IAM::Policy"
        and bool(as_list(props.get("roles")))
        and not as_list(props.get("users"))
        and not as_list(props.get("groups"))
    )


def _route_to_igw_from_entry_subnet(resource: Resource, index: StackIndex) -> bool:
    """A default route to the internet gateway in a public `entry` subnet (internet-facing ALB only)."""
    if resource.type != "AWS::EC2::Route" or ref_id(resource.props.get("gatewayId")) is None:
        return False
    gateway = index.by_id.get(ref_id(resource.props.get("gatewayId")) or "")
    return (
        gateway is not None
        and gateway.type == "AWS::EC2::InternetGateway"
        and "/entrySubnet" in resource.path
    )


CDK_DEPLOY_TIME_FUNCTIONS = ("Custom::CDKBucketDeployment", "/framework-onEvent/")
BOTH = (NIST_PACK, HIPAA_PACK)

KIT_EXCEPTIONS: tuple[KitException, ...] = (
    KitException(
        "IAMNoInlinePolicy",
        BOTH,
        _role_only_policy,
        "CDK writes each role's grants as an AWS::IAM::Policy attached to that one role and deleted with it; "
        "a managed policy would let the grants be attached to other principals. AwsSolutions-IAM5 and "
        "`make audit` list every statement.",
    ),
    KitException(
        "VPCDefaultSecurityGroupClosed",
        BOTH,
        _vpc_default_group_unused,
        "No resource uses the VPC's default security group (checked: nothing references it); every ENI gets "
        "a kit group. Closing it needs a CDK custom-resource Lambda with ec2:Revoke* rights outside the VPC.",
    ),
    KitException(
        "ELBDeletionProtectionEnabled",
        BOTH,
        _is_type("AWS::ElasticLoadBalancingV2::LoadBalancer"),
        "The ALB holds no data and is recreated by `cdk deploy`; deletion protection would make `cdk destroy` "
        "fail half-way. Its access logs stay in the retained access-log bucket.",
    ),
    KitException(
        "ALBWAFEnabled",
        (NIST_PACK,),
        _load_balancer(internet_facing=False),
        "Internal ALB: only the VPC range can connect (security group), clients are the operator's own voice "
        "agents inside the VPC; WAF would inspect trusted traffic only.",
    ),
    KitException(
        "ALBWAFEnabled",
        (NIST_PACK,),
        _load_balancer(internet_facing=True),
        "The kit ships no WebACL: TLS-only entry, API keys checked by the server and per-task admission "
        "limits are its controls; attach the organisation's WebACL (rate-based rule) as docs/security.md says.",
    ),
    KitException(
        "ELBv2ACMCertificateRequired",
        BOTH,
        _internal_plain_http_listener,
        "certificate_arn is empty and the ALB is internal: plain HTTP inside the VPC between the operator's "
        "clients and tasks; setting certificate_arn turns on HTTPS with an HTTP->HTTPS redirect.",
    ),
    KitException(
        "ELBv2ACMCertificateRequired",
        BOTH,
        _redirect_only_http_listener,
        "This HTTP listener only answers with a permanent redirect to the HTTPS listener (which uses the ACM "
        "certificate); it serves no content, so there is nothing to encrypt.",
    ),
    KitException(
        "ALBHttpToHttpsRedirection",
        BOTH,
        _internal_plain_http_listener,
        "Internal ALB without certificate_arn: HTTP is the only listener (no HTTPS to redirect to), reachable "
        "only from the VPC range; with a certificate the kit redirects HTTP to HTTPS.",
    ),
    KitException(
        "CloudWatchAlarmAction",
        BOTH,
        _alarm_without_actions,
        "Neither alarm_email nor alarm_topic_arn is configured, so alarms show on the dashboard only; setting "
        "either adds an SNS action to every alarm (the packs then pass without this acknowledgement).",
    ),
    KitException(
        "LambdaConcurrency",
        BOTH,
        _path_has("AWS::Lambda::Function", *CDK_DEPLOY_TIME_FUNCTIONS),
        "CDK deploy-time function (BucketDeployment / custom-resource Provider): CloudFormation invokes it "
        "once per resource change, so concurrency is bounded by the deployment itself.",
    ),
    KitException(
        "LambdaDLQ",
        BOTH,
        _path_has("AWS::Lambda::Function", *CDK_DEPLOY_TIME_FUNCTIONS),
        "CDK deploy-time function invoked synchronously by CloudFormation: a failure fails and rolls back the "
        "deployment, and there is no asynchronous event to dead-letter.",
    ),
    KitException(
        "LambdaDLQ",
        BOTH,
        _path_has("AWS::Lambda::Function", "/Weights/SyncFunction/"),
        "Weights sync: EventBridge retries a failed sync 4 times and the deploy-time sync fails the deployment; "
        "a lost event leaves the previous weights on EFS, and re-running the sync is idempotent.",
    ),
    KitException(
        "LambdaConcurrency",
        BOTH,
        _path_has("AWS::Lambda::Function", "/Weights/SyncFunction/"),
        "No reserved concurrency on purpose: a new account has 10 concurrent executions in all and Lambda "
        "refuses a reservation that leaves fewer than 10 unreserved, so a reservation fails the first deploy. "
        "Concurrent weights syncs each write their own temporary files and rename complete copies into place.",
    ),
    # The GPU capacity release (gpu_cluster.py) and the SageMaker scaling handover (sagemaker_scaling.py)
    # acknowledge their functions' findings themselves, like the canary: the constructs are a library, and
    # an app names them as it likes, so a path here would miss them there.
    KitException(
        "LambdaInsideVPC",
        BOTH,
        _path_has("AWS::Lambda::Function", *CDK_DEPLOY_TIME_FUNCTIONS),
        "CDK deploy-time function: it copies the bundled weights from the CDK asset bucket or answers "
        "CloudFormation, talks only to S3/CloudFormation/Lambda APIs and reaches no resource inside the VPC.",
    ),
    KitException(
        "S3BucketReplicationEnabled",
        BOTH,
        _path_has("AWS::S3::Bucket", "/Weights/Bucket/"),
        "Weights are build artifacts reproducible from the repo or training run; the bucket is versioned "
        "(30-day noncurrent history) and retained on stack deletion. Cross-region copies are the operator's call.",
    ),
    KitException(
        "S3BucketReplicationEnabled",
        BOTH,
        _path_has("AWS::S3::Bucket", "/AccessLogs/Bucket/"),
        "Access logs are retained in this account for the configured period; shipping them to a log-archive "
        "account or region belongs to the organisation's logging setup, not to a service kit.",
    ),
    KitException(
        "S3DefaultEncryptionKMS",
        BOTH,
        _path_has("AWS::S3::Bucket", "/Weights/Bucket/"),
        "SSE-S3 (AES-256) on model weights, not customer data: FSx data repository associations and SageMaker "
        "model downloads read it without a key policy; TLS is enforced by the bucket policy.",
    ),
    KitException(
        "S3DefaultEncryptionKMS",
        BOTH,
        _path_has("AWS::S3::Bucket", "/AccessLogs/Bucket/"),
        "ALB access logs can only be delivered to an SSE-S3 bucket (ELB does not support SSE-KMS targets); the "
        "bucket is SSE-S3 (AES-256), private and TLS-only.",
    ),
    KitException(
        "EFSInBackupPlan",
        BOTH,
        _is_type("AWS::EFS::FileSystem"),
        "The EFS file system is a read cache of the weights bucket (the source of truth, versioned); the sync "
        "function rebuilds it, so a backup would duplicate the bucket.",
    ),
    KitException(
        "VPCNoUnrestrictedRouteToIGW",
        BOTH,
        _route_to_igw_from_entry_subnet,
        "internet_facing=true: only the public `entry` subnets, which hold nothing but the ALB's nodes, route "
        "to the internet gateway; data subnets (tasks, hosts, file systems) have no route out.",
    ),
    KitException(
        "SecretsManagerRotationEnabled",
        BOTH,
        _path_has("AWS::SecretsManager::Secret", "/ApiKey/"),
        "The secret is the API key clients present; a scheduled rotation would lock out every voice agent "
        "holding the old key. Operators rotate by hand: add a second key, roll clients, remove the first.",
    ),
    KitException(
        "PublicIngress[tcp:80:0.0.0.0/0]",
        (PACK_NAME,),
        _redirect_port_open_to_all(80, "0.0.0.0/0"),
        "Port 80 of the internet-facing ALB only answers with a redirect to HTTPS (Statespeak-PublicHttpListener "
        "verifies it); clients that start with http:// are sent to TLS instead of failing to connect.",
    ),
)


@jsii.implements(IValidation)
class _AcknowledgeKitExceptions:
    """Applies KIT_EXCEPTIONS at synthesis (construct validation runs before the rule packs), when every
    resource exists and its properties are final."""

    def __init__(self, scope: IConstruct, exceptions: Iterable[KitException]) -> None:
        self._scope = scope
        self._exceptions = tuple(exceptions)

    def validate(self) -> list[str]:
        acknowledge_kit_exceptions(self._scope, self._exceptions)
        return []


def acknowledge_kit_exceptions(scope: IConstruct, exceptions: Iterable[KitException] = KIT_EXCEPTIONS) -> int:
    """Acknowledge each exception on every resource it applies to; returns how many were made."""
    exceptions = tuple(exceptions)
    indexes = _IndexCache()
    count = 0
    for construct in scope.node.find_all():
        if not Stack.is_stack(construct):
            continue
        index = indexes.of(construct)
        for resource in index.by_id.values():
            for exc in exceptions:
                if exc.applies(resource, index):
                    for pack in exc.packs:
                        Validations.of(resource.construct).acknowledge(
                            Acknowledgment(id=f"{pack}-{exc.rule}", reason=exc.reason)
                        )
                        count += 1
    return count


def rule_packs() -> list[NagPack]:
    """Fresh instances of every pack the kit is checked against (a pack instance validates one app)."""
    return [AwsSolutionsChecks(), NIST80053R5Checks(), HIPAASecurityChecks(), StatespeakChecks()]


def add_rule_packs(app: IConstruct) -> list[NagPack]:
    """Register the packs on `app` and the kit's exceptions; unacknowledged findings fail synthesis."""
    packs = rule_packs()
    Validations.of(app).add_plugins(*packs)
    app.node.add_validation(_AcknowledgeKitExceptions(app, KIT_EXCEPTIONS))
    return packs


def pack_of(rule_id: str) -> str:
    """`NIST.800.53.R5-IAMNoInlinePolicy[x]` -> `NIST.800.53.R5`."""
    match = re.match(r"^(?:[^:]+::)?(.+?)-[A-Za-z0-9]+(\[.*\])?$", rule_id)
    return match.group(1) if match else ""
