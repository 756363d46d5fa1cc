#!/usr/bin/env python3
"""CDK entry point: `python app.py` and `cdk synth` build the same app from the same context.

Context (cdk.json defaults, `-c key=value` overrides, CDK_CONTEXT_JSON) is validated once by
`stacks.config`; the chosen deployment decides which service stacks exist next to the foundation stack.
cdk-nag validates every stack at synthesis with the AwsSolutions, NIST 800-53 R5 and HIPAA Security packs and
the kit's own Statespeak pack (statespeak_constructs/nag_rules.py): an unacknowledged finding fails the synth.
"""

from __future__ import annotations

import sys
from typing import Any

import aws_cdk as cdk

from stacks.config import ConfigError, StatespeakConfig, load_context
from stacks.ecs_service import EcsServiceStack
from stacks.foundation import FoundationStack
from statespeak_constructs.nag_rules import add_rule_packs

STACK_TAG = "statespeak:stack"  # on every resource: the stack it belongs to


def build_app(
    overrides: dict[str, Any] | None = None, outdir: str | None = None
) -> tuple[cdk.App, StatespeakConfig]:
    """The whole app, not yet synthesized. `overrides` win over cdk.json and CDK_CONTEXT_JSON."""
    context = load_context(overrides)
    config = StatespeakConfig.from_context(context)
    # Hand the merged context to the App too, so CDK feature flags from cdk.json apply under `python app.py`.
    app = cdk.App(outdir=outdir, context=context) if outdir else cdk.App(context=context)
    # Account stays unresolved (no lookups, no credentials at synth); the region is concrete because ALB
    # access logging and endpoint service names need it. `cdk deploy` sets CDK_DEFAULT_ACCOUNT from the
    # credentials, and taking it made every account-scoped ARN concrete: the acknowledged cdk-nag findings,
    # written with the account's token, no longer matched, and synthesis failed in every real account.
    env = cdk.Environment(region=config.region)
    # Tags name the stack a resource belongs to, never the `deployment` setting: a route switch must leave
    # the stacks that stay up unchanged, and a tag that named the setting updated every resource in them.
    cdk.Tags.of(app).add("project", "statespeak")

    foundation = FoundationStack(
        app,
        config.stack_name("Foundation"),
        config=config,
        env=env,
        description="Statespeak: VPC with endpoints, weights bucket, server image",
    )
    if config.deploy_ecs:
        EcsServiceStack(
            app,
            config.stack_name("Ecs"),
            config=config,
            foundation=foundation,
            env=env,
            description="Statespeak: streaming TTS on a GPU ECS cluster behind an ALB",
        )
    if config.deploy_sagemaker:
        # Imported here: the ECS-only app does not depend on the SageMaker modules.
        from stacks.sagemaker_endpoint import SageMakerEndpointStack

        SageMakerEndpointStack(
            app,
            config.stack_name("SageMaker"),
            config=config,
            network=foundation.network,
            image=foundation.image,
            weights_bucket=foundation.weights.bucket,
            weights_prefix=foundation.weights.version_prefix(config.weights_version),
            env=env,
            description="Statespeak: streaming TTS on a SageMaker real-time endpoint",
        )
    for stack in app.node.children:
        if isinstance(stack, cdk.Stack):  # "foundation", "ecs", "sagemaker": the part after the kit's name
            cdk.Tags.of(stack).add(STACK_TAG, stack.node.id.split("-")[-1].lower())
    add_rule_packs(app)
    return app, config


def main() -> int:
    try:
        app, _ = build_app()
    except ConfigError as exc:
        print(f"statespeak: invalid configuration: {exc}", file=sys.stderr)
        return 2
    app.synth()
    return 0


if __name__ == "__main__":
    sys.exit(main())
