"""The kit's reusable L3 constructs, shared by the ECS and SageMaker stacks.

Named `statespeak_constructs`, not `constructs`: a top-level package called `constructs` would shadow the
`constructs` library that aws-cdk-lib itself imports.
"""
