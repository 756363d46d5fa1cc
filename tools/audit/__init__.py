"""Security boundary report of the synthesized CDK app (`make audit`).

For each deployment choice (ecs, sagemaker, both; internal and internet-facing entry) the app is
synthesized in-process, or an existing `cdk.out` is read, and the templates are turned into:
- `audit-out/boundary-<choice>.md`: network paths into and out of the VPC (security-group rules with
  peers, VPC endpoints, load-balancer listeners and schemes, routes to internet/NAT gateways), every IAM
  role with trust policy, actions and resources (wildcards flagged), resource policies, encryption at
  rest and in transit per resource, what is publicly reachable, where text/audio/logs/weights flow;
- `audit-out/boundary-<choice>.svg` and `.png`: the boundary drawn with graphviz.
`--update-docs` refreshes the committed copies of the default choice under docs/security/.
"""

from tools.audit.model import Boundary, load_templates
from tools.audit.render import diagram, markdown

__all__ = ["Boundary", "diagram", "load_templates", "markdown"]
