"""Statespeak bundled model server: streaming Mamba-2 speech synthesis.

Kept import-light on purpose: the CDK app imports `model_server.contract` for shared names and must
not pull in torch.
"""
