"""Mamba-2 mixer: pure torch (`mamba2`) and the mamba-ssm CUDA kernels (`cuda`), one parameter layout."""

from model_server.ssm.mamba2 import Mamba2

__all__ = ["Mamba2"]
