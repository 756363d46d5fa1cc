"""The boundary as Markdown (tables a reviewer can diff) and as a graphviz diagram."""

from __future__ import annotations

from dataclasses import dataclass

import graphviz

from tools.audit.model import Boundary, Res, SecurityGroup, as_list, short

WARN = "**wildcard**"


def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ") or "-"


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    if not rows:
        return ["(none)", ""]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    return lines + [""]


def _attached(group: SecurityGroup) -> str:
    return (
        ", ".join(sorted({f"{short(r.logical_id)} ({r.type.split('::')[-1]})" for r in group.attached_to}))
        or "nothing"
    )


@dataclass(frozen=True)
class Flow:
    data: str
    path: str
    protection: str
    rests: str
    leaves_account: str


def flows(b: Boundary) -> list[Flow]:
    """Where text, audio, logs and weights travel and rest, from what the templates contain."""
    t = b.t
    out: list[Flow] = []
    for lb in b.lbs:
        listeners = ", ".join(f"{lis.protocol}:{lis.port}" for lis in lb.listeners)
        entry = "internet" if lb.internet_facing else "clients inside the VPC"
        out.append(Flow(
            "text in, audio out (ECS)", f"{entry} -> ALB {lb.res.name} ({listeners}) -> task :8080 (HTTP inside the VPC)",
            "TLS to the ALB" if any(lis.protocol == "HTTPS" for lis in lb.listeners) else "VPC-only, plain HTTP",
            "nowhere: server memory for the stream's life; the server logs request ids, not text", "no",
        ))  # fmt: skip
    for res in t.of_type("AWS::SageMaker::Endpoint"):
        out.append(
            Flow(
                "text in, audio out (SageMaker)",
                "client in the VPC -> sagemaker.runtime interface endpoint -> SageMaker endpoint "
                f"{t.text(res.stack, res.props.get('EndpointName'))} -> network-isolated container",
                "TLS + SigV4 (IAM); container has network isolation",
                "nowhere (streamed response)",
                "no",
            )
        )
    for lb in b.lbs:
        if lb.access_logs:
            out.append(
                Flow(
                    "ALB access logs (client IP, method, path and query string)",
                    f"ALB {lb.res.name} -> s3://{lb.access_logs}",
                    "SSE-S3; bucket TLS-only",
                    f"bucket {lb.access_logs.rsplit('/', 1)[0]}",
                    "no",
                )
            )
    for group in t.of_type("AWS::Logs::LogGroup"):
        name = t.text(group.stack, group.props.get("LogGroupName")) or group.name
        key = "KMS" if group.props.get("KmsKeyId") else "service key"
        out.append(
            Flow(
                f"logs: {short(group.logical_id)}",
                f"-> CloudWatch Logs {name}",
                f"TLS; at rest {key}",
                f"{group.props.get('RetentionInDays', 'forever')} days",
                "no",
            )
        )
    for bucket in t.of_type("AWS::S3::Bucket"):
        if "Weights" in bucket.logical_id:
            readers = []
            if t.of_type("AWS::FSx::FileSystem"):
                readers.append(
                    "FSx for Lustre (data repository association) -> GPU hosts -> tasks (read-only)"
                )
            if t.of_type("AWS::EFS::FileSystem"):
                readers.append("sync Lambda -> EFS (TLS) -> tasks (read-only access point)")
            if t.of_type("AWS::SageMaker::Model"):
                readers.append("SageMaker (S3 gateway endpoint) -> /opt/ml/model")
            out.append(
                Flow(
                    "model weights",
                    f"{bucket.name} -> " + "; ".join(readers or ["(no reader)"]),
                    "SSE-S3, TLS-only bucket, S3 gateway endpoint",
                    "weights bucket (versioned) + file system cache",
                    "no",
                )
            )
    for secret in t.of_type("AWS::SecretsManager::Secret"):
        readers = [
            task.name
            for task in t.of_type("AWS::ECS::TaskDefinition")
            if secret.logical_id in str(task.props)
        ]
        out.append(Flow(f"API key ({short(secret.logical_id)})",
                        f"Secrets Manager -> ECS agent (execution role) -> {', '.join(readers) or 'no task'} environment",
                        "TLS; KMS at rest", "Secrets Manager; task memory", "no"))  # fmt: skip
    for sub in t.of_type("AWS::SNS::Subscription"):
        if sub.props.get("Protocol") == "email":
            out.append(
                Flow(
                    "alarm notifications (alarm name, metric, threshold; no text or audio)",
                    f"SNS -> e-mail {t.text(sub.stack, sub.props.get('Endpoint'))}",
                    "SNS topic encryption",
                    "the recipient's mailbox",
                    "yes: alarm e-mails",
                )
            )
    return out


def _client_rows(b: Boundary) -> list[list[str]]:
    """(entry, ports, client, description) of every inbound rule on an entry clients call."""
    entries: dict[str, str] = {}
    for lb in b.lbs:
        for group in lb.groups:
            entries[group] = f"load balancer {lb.res.name} ({lb.scheme})"
    for ep in b.endpoints:
        if ep.service.endswith("sagemaker.runtime"):
            for group in ep.groups:
                entries[group] = "SageMaker runtime endpoint"
    return [
        [entries[g.label], f"{rule.protocol}/{rule.ports}", rule.peer, rule.description]
        for g in b.groups
        if g.label in entries
        for rule in g.rules
        if rule.direction == "in"
    ]


def markdown(b: Boundary, context: dict) -> str:
    t = b.t
    lines = [f"# Security boundary: {b.name}", ""]
    lines += [
        "Generated by `make audit` (`python -m tools.audit`) from the synthesized CloudFormation templates: "
        "every row below is read from them. Do not edit by hand.", "",
        f"- Stacks: {', '.join(sorted(t.templates))}; region {t.region}",
        f"- Context overrides: `{context or 'none (cdk.json defaults)'}`",
        f"- Security groups {len(b.groups)}, VPC endpoints {len(b.endpoints)}, load balancers {len(b.lbs)}, "
        f"IAM roles {len(b.roles)}, routes to internet/NAT gateways {len(b.internet_routes)}",
        "",
    ]  # fmt: skip
    findings = b.findings()
    lines += ["## Findings to review", ""]
    lines += [f"- {f}" for f in findings] or ["- none"]
    lines += [""]

    lines += ["## Publicly reachable", ""]
    lines += _table(
        ["what", "how", "accepted", "note"],
        [[e.what, e.how, "yes" if e.acceptable else "NO", e.note] for e in b.exposure],
    )

    lines += ["## Who may call the service", ""]
    lines += [
        "Inbound rules of the entries clients call: the load balancer, and the SageMaker runtime interface "
        "endpoint (context `client_cidrs` / `client_security_group_ids`; default: the VPC range).",
        "",
    ]
    lines += _table(["entry", "proto/ports", "client", "description"], _client_rows(b))
    names = [
        [
            str(r.props.get("Name")),
            str(r.props.get("Type")),
            t.text(r.stack, (r.props.get("AliasTarget") or {}).get("DNSName")),
        ]
        for r in t.of_type("AWS::Route53::RecordSet")
    ]
    if names:
        lines += ["Names inside the VPC (private hosted zone records):", ""]
        lines += _table(["name", "type", "alias of"], names)

    lines += ["## Network paths", "", "### Load balancers", ""]
    lines += _table(["load balancer", "scheme", "subnets", "security groups", "access logs"],
                    [[lb.res.name, lb.scheme, ", ".join(lb.subnets), ", ".join(lb.groups), lb.access_logs or "off"]
                     for lb in b.lbs])  # fmt: skip
    lines += _table(["listener", "protocol:port", "TLS policy", "default action"],
                    [[lis.res.name, f"{lis.protocol}:{lis.port}", lis.tls_policy, lis.action]
                     for lb in b.lbs for lis in lb.listeners])  # fmt: skip
    lines += ["### Security groups", "", "Every rule into and out of every group, with its peer.", ""]
    rows = []
    for g in b.groups:
        for rule in g.rules:
            rows.append(
                [
                    g.res.name,
                    _attached(g),
                    rule.direction,
                    f"{rule.protocol}/{rule.ports}",
                    rule.peer,
                    rule.description,
                ]
            )
        if g.no_egress:
            rows.append([g.res.name, _attached(g), "out", "-", "no egress (CDK's deny-all placeholder)", ""])
        if not g.rules and not g.no_egress:
            rows.append([g.res.name, _attached(g), "-", "-", "no rules", ""])
    lines += _table(["group", "attached to", "dir", "proto/ports", "peer", "description"], rows)
    lines += ["### VPC endpoints", ""]
    lines += _table(["service", "type", "private DNS", "security groups", "endpoint policy"],
                    [[e.service, e.kind, "yes" if e.private_dns else "no", ", ".join(e.groups),
                      "custom" if e.has_policy else "AWS default (full access for VPC principals)"]
                     for e in b.endpoints])  # fmt: skip
    policy_rows = [[e.service, s.effect, ", ".join(s.actions), ", ".join(s.resources), s.conditions]
                   for e in b.endpoints for s in e.statements]  # fmt: skip
    if policy_rows:
        lines += ["#### Endpoint policies (the data perimeter)", ""]
        lines += _table(["endpoint", "effect", "actions", "resources", "conditions"], policy_rows)
    lines += ["### Subnets and routes out of the VPC", ""]
    lines += _table(["subnet", "CIDR", "public IP on launch", "routes beyond local"],
                    [[s.res.name, s.cidr, "yes" if s.public_ip_on_launch else "no",
                      "; ".join(s.routes_out) or "none (isolated)"] for s in b.subnets])  # fmt: skip
    gateways = t.of_type(
        "AWS::EC2::InternetGateway", "AWS::EC2::NatGateway", "AWS::EC2::EgressOnlyInternetGateway"
    )
    lines += [f"Internet/NAT gateways: {', '.join(g.name + ' (' + g.type.split('::')[-1] + ')' for g in gateways) or 'none'}.",
              ""]  # fmt: skip

    lines += ["## IAM roles", "", f"Statements whose actions or resources contain `*` are marked {WARN}.", ""]
    for role in b.roles:
        lines += [
            f"### {role.res.name}",
            "",
            f"- Trusted by: {'; '.join(role.trust) or '-'}",
            f"- AWS managed policies: {', '.join(role.managed) or 'none'}",
            "",
        ]
        lines += _table(["effect", "actions", "resources", "condition", "policy", "flag"],
                        [[s.effect, ", ".join(s.actions), ", ".join(s.resources), s.conditions, s.source,
                          WARN if s.has_wildcard else ""] for s in role.statements])  # fmt: skip
    if b.shared_policies:
        lines += ["### Policies the kit creates for callers", ""]
        for pol, statements in b.shared_policies:
            lines += [f"{pol.name}:", ""]
            lines += _table(
                ["effect", "actions", "resources", "condition"],
                [[s.effect, ", ".join(s.actions), ", ".join(s.resources), s.conditions] for s in statements],
            )
    lines += ["### Resource policies", ""]
    lines += _table(["resource", "on", "effect", "principals", "actions", "condition"],
                    [[p.res.name, p.on, p.effect, "; ".join(p.principals), ", ".join(p.actions), p.conditions]
                     for p in b.resource_policies])  # fmt: skip

    lines += ["## Encryption at rest and in transit", ""]
    lines += _table(["resource", "type", "at rest", "in transit", "ok"],
                    [[e.res.name, e.res.type, e.at_rest, e.in_transit, "yes" if e.ok else "REVIEW"]
                     for e in b.encryption])  # fmt: skip

    lines += ["## Where data flows and rests", ""]
    lines += _table(
        ["data", "path", "protected by", "rests in", "leaves the account"],
        [[f.data, f.path, f.protection, f.rests, f.leaves_account] for f in flows(b)],
    )
    lines += ["## Acknowledged rule findings", ""]
    if b.acknowledged is None:
        lines += [
            "(not available: acknowledgements live in the construct tree; run the audit without --cdk-out)",
            "",
        ]
    else:
        lines += [f"{len(b.acknowledged)} acknowledgements; each names the resource and the reason a reviewer can check.",
                  ""]  # fmt: skip
        lines += _table(
            ["rule", "resource", "reason"],
            [[a.rule, a.path, a.reason] for a in sorted(b.acknowledged, key=lambda a: (a.rule, a.path))],
        )
    lines += ["## Diagram", "", f"![boundary]({diagram_basename(b.name)}.svg)", ""]
    return "\n".join(lines)


def diagram_basename(name: str) -> str:
    return f"boundary-{name}"


def _node_id(res: Res) -> str:
    return f"{res.stack}.{res.logical_id}".replace("-", "_").replace(":", "_")


def _group_label(g: SecurityGroup) -> str:
    kinds = sorted({r.type.split("::")[-1] for r in g.attached_to})
    members = sorted({short(r.logical_id) for r in g.attached_to})[:4]
    own = sorted(
        {
            f"{r.protocol}/{r.ports}"
            for r in g.rules
            if r.peer_group is not None and r.peer_group.key == g.res.key
        }
    )
    within = f"\\nwithin the group: {', '.join(own)}" if own else ""
    return f"{g.label}\\n[{', '.join(kinds) or 'unused'}]\\n{', '.join(members)}{within}"


def diagram(b: Boundary) -> graphviz.Digraph:
    """Internet, VPC (entry / data), AWS services: security groups as nodes, rules as edges."""
    t = b.t
    dot = graphviz.Digraph(name=diagram_basename(b.name), graph_attr={
        "rankdir": "LR", "fontname": "Helvetica", "fontsize": "11", "label": f"Statespeak boundary: {b.name}",
        "labelloc": "t", "compound": "true", "nodesep": "0.3", "ranksep": "0.8"},
        node_attr={"fontname": "Helvetica", "fontsize": "9", "shape": "box", "style": "rounded,filled",
                   "fillcolor": "white"},
        edge_attr={"fontname": "Helvetica", "fontsize": "8"})  # fmt: skip
    public_lbs = {g for lb in b.lbs if lb.internet_facing for g in lb.groups}
    reachable = any(r.is_internet for g in b.groups for r in g.rules if r.direction == "in")
    # An existing VPC (vpc_id) is not in the templates: its range is the one the endpoints' group admits.
    cidr = ", ".join(sorted({str(v.props.get("CidrBlock")) for v in t.of_type("AWS::EC2::VPC")})) or ", ".join(
        sorted({r.peer for g in b.groups for r in g.rules if "interface endpoints" in g.description.lower()
                and r.direction == "in" and r.peer_kind == "cidr"})
    )  # fmt: skip

    with dot.subgraph(
        name="cluster_internet",
        graph_attr={
            "label": "Internet" if reachable else "Internet (no path in)",
            "style": "dashed",
            "color": "red",
        },
    ) as c:
        c.node("internet", "any address\\n0.0.0.0/0, ::/0", shape="ellipse", fillcolor="#ffe5e5")
    with dot.subgraph(
        name="cluster_vpc", graph_attr={"label": f"VPC {cidr}", "style": "rounded", "color": "blue"}
    ) as vpc:
        vpc.node(
            "vpc_clients", f"VPC range {cidr}\\n(clients, hosts, tasks)", shape="ellipse", fillcolor="#e5f0ff"
        )
        with vpc.subgraph(
            name="cluster_entry", graph_attr={"label": "entry subnets (public, ALB only)", "color": "orange"}
        ) as entry:
            for g in b.groups:
                if g.label in public_lbs:
                    entry.node(_node_id(g.res), _group_label(g), fillcolor="#fff0d9")
            for gw in t.of_type("AWS::EC2::InternetGateway"):
                entry.node(_node_id(gw), "internet gateway", shape="cds", fillcolor="#ffe5e5")
        with vpc.subgraph(
            name="cluster_data",
            graph_attr={"label": "data subnets (isolated: no route out)", "color": "darkgreen"},
        ) as data:
            for g in b.groups:
                if g.label not in public_lbs:
                    data.node(_node_id(g.res), _group_label(g), fillcolor="#e9f7e9")
            for ep in b.endpoints:
                if ep.kind == "Gateway":
                    data.node(
                        _node_id(ep.res), f"{ep.service} gateway endpoint\\n(route table entry)", shape="cds"
                    )
    services = sorted(e.service for e in b.endpoints if e.kind == "Interface")
    with dot.subgraph(
        name="cluster_aws",
        graph_attr={"label": f"AWS services, this account ({t.region})", "style": "dashed"},
    ) as aws:
        aws.node(
            "aws_apis", "AWS APIs via interface endpoints\\n" + "\\n".join(services), fillcolor="#f2f2f2"
        )
        for bucket in t.of_type("AWS::S3::Bucket"):
            aws.node(
                _node_id(bucket), f"S3 {short(bucket.logical_id)}", shape="cylinder", fillcolor="#f2f2f2"
            )
        if t.of_type("AWS::SageMaker::Endpoint"):
            aws.node("sagemaker_runtime", "SageMaker runtime\\n(IAM-authenticated)", fillcolor="#f2f2f2")

    drawn: set[tuple[str, str, str]] = set()
    # Inbound rules first (solid), then egress rules to other groups that no inbound rule already shows
    # (dashed); a group's rules naming itself are in its label instead of a loop.
    for direction in ("in", "out"):
        for g in b.groups:
            for rule in g.rules:
                if rule.direction != direction or (
                    rule.peer_group is not None and rule.peer_group.key == g.res.key
                ):
                    continue
                label = f"{rule.protocol}/{rule.ports}"
                if direction == "in":
                    if rule.peer_kind == "internet":
                        src = "internet"
                    elif rule.peer_kind == "vpc" or (rule.peer_kind == "cidr" and rule.peer in cidr):
                        src = "vpc_clients"
                    elif rule.peer_group is not None:
                        src = _node_id(rule.peer_group)
                    elif rule.peer_kind in ("cidr", "group"):
                        # Named clients (client_cidrs / client_security_group_ids): one node each.
                        src = "client_" + "".join(ch if ch.isalnum() else "_" for ch in rule.peer)
                        dot.node(src, f"clients\\n{rule.peer}", shape="ellipse", fillcolor="#e5f0ff")
                    else:
                        continue
                    key = (src, _node_id(g.res), label)
                elif rule.peer_group is not None:
                    key = (_node_id(g.res), _node_id(rule.peer_group), label)
                else:
                    continue
                if key in drawn:
                    continue
                drawn.add(key)
                internet = key[0] == "internet"
                dot.edge(
                    key[0],
                    key[1],
                    label=label,
                    color="red" if internet else "black",
                    penwidth="2" if internet else "1",
                    style="solid" if direction == "in" else "dashed",
                )
    for gw in t.of_type("AWS::EC2::InternetGateway"):
        dot.edge("internet", _node_id(gw), color="red", label="routes of the entry subnets")
    for g in b.groups:
        if any(r.type == "AWS::EC2::VPCEndpoint" for r in g.attached_to):
            dot.edge(_node_id(g.res), "aws_apis", label="PrivateLink", style="dotted")
    for ep in b.endpoints:
        if ep.kind == "Gateway":
            for bucket in t.of_type("AWS::S3::Bucket"):
                if (
                    "Weights" in bucket.logical_id
                ):  # the access-log bucket is written by ELB/S3, not from the VPC
                    dot.edge(
                        _node_id(ep.res), _node_id(bucket), style="dotted", label="weights (and ECR layers)"
                    )
    for lb in b.lbs:
        for bucket in t.of_type("AWS::S3::Bucket"):
            for group in b.groups:
                if lb.access_logs and f"<{bucket.name}>" in lb.access_logs and group.label in lb.groups:
                    dot.edge(_node_id(group.res), _node_id(bucket), label="access logs", style="dotted")
    if t.of_type("AWS::SageMaker::Endpoint"):
        dot.edge("aws_apis", "sagemaker_runtime", label="InvokeEndpoint (TLS)", style="dotted")
        for model in t.of_type("AWS::SageMaker::Model"):
            for sg in as_list((model.props.get("VpcConfig") or {}).get("SecurityGroupIds")):
                group = t.target(model.stack, sg)
                if group is not None:
                    dot.edge(
                        "sagemaker_runtime",
                        _node_id(group),
                        label="to the isolated container",
                        style="dotted",
                    )
    return dot
