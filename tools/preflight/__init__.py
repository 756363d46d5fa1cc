"""`make preflight` / `python -m tools.preflight`: read-only checks of an AWS account before `cdk deploy`.

Same context as the CDK app (cdk.json, CDK_CONTEXT_JSON, `-c key=value`); see docs/operations.md.
"""
