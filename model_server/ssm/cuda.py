"""The Mamba-2 mixer's math through the mamba-ssm (and causal-conv1d, when present) CUDA/Triton kernels.

Imported lazily: this machine class has no CUDA and mamba-ssm cannot be installed without it, so nothing
here is touched unless a tensor is on a CUDA device. Same parameters and state layout as
`model_server.ssm.mamba2.Mamba2`, which calls `forward` automatically for CUDA inputs when `available()`.
Set STATESPEAK_DISABLE_MAMBA_SSM=1 to force the pure torch path (for comparisons). `unavailable_reason()`
says why the kernels are not used; the server refuses readiness on it when STATESPEAK_DEVICE=cuda.

Training takes this path too, with gradients: the sequence path (any call but a one-frame step with a state)
uses `mamba_chunk_scan_combined` and `rmsnorm_fn`, which are torch.autograd.Functions with Triton backward
kernels (mamba_ssm's MambaChunkScanCombinedFn and LayerNormFn), and the depthwise conv (causal-conv1d's
autograd op, or F.conv1d). Training only ever calls the sequence path (the decoder sees whole crops from a
zero state); the one-frame step (`selective_state_update`) has no backward and serves inference only.
tools/gpu_train.py checks the gradients of this path against the torch path on the device.
"""

from __future__ import annotations

import functools
import os

import torch
import torch.nn.functional as F

DISABLE_ENV = "STATESPEAK_DISABLE_MAMBA_SSM"


@functools.lru_cache(maxsize=1)
def _load() -> tuple[tuple | None, str]:
    """((chunk_scan, state_update, rmsnorm_fn, conv_fn, conv_update), "") or (None, why not)."""
    if os.environ.get(DISABLE_ENV) == "1":
        return None, f"disabled by {DISABLE_ENV}=1"
    if not torch.cuda.is_available():
        return None, f"torch {torch.__version__} sees no CUDA device (built for CUDA {torch.version.cuda})"
    try:
        from mamba_ssm.ops.triton.layernorm_gated import rmsnorm_fn
        from mamba_ssm.ops.triton.selective_state_update import selective_state_update
        from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined
    except ImportError as exc:
        return None, f"mamba_ssm's Triton kernels do not import: {type(exc).__name__}: {exc}"
    try:
        from causal_conv1d import causal_conv1d_fn, causal_conv1d_update
    except ImportError:  # the depthwise conv is cheap in plain torch; the scan is what matters
        causal_conv1d_fn, causal_conv1d_update = None, None
    kernels = (
        mamba_chunk_scan_combined,
        selective_state_update,
        rmsnorm_fn,
        causal_conv1d_fn,
        causal_conv1d_update,
    )
    return kernels, ""


def _kernels():
    """(chunk_scan, state_update, rmsnorm_fn, conv_fn, conv_update), or None when unavailable."""
    return _load()[0]


def reset() -> None:
    """Forget the cached reading (after flipping DISABLE_ENV, as tools/gpu_bench.py does)."""
    _load.cache_clear()


def available() -> bool:
    return _kernels() is not None


def unavailable_reason() -> str:
    """Why the kernels are not used ("" when they are): no CUDA, disabled, or the import error."""
    return _load()[1]


def kernel_path() -> str:
    """The Mamba-2 path CUDA tensors take: "triton" (mamba-ssm's Triton kernels, with causal-conv1d's
    CUDA conv when installed: "triton+causal_conv1d") or "torch" (the pure torch fallback)."""
    kernels = _kernels()
    if kernels is None:
        return "torch"
    return "triton+causal_conv1d" if kernels[3] is not None else "triton"


def forward(mod, u: torch.Tensor, conv_state: torch.Tensor | None, ssm_state: torch.Tensor | None):
    """Mamba2.forward on CUDA kernels. The given states are not modified (they are cloned first)."""
    kernels = _kernels()
    if kernels is None:
        raise RuntimeError(
            "mamba_ssm CUDA kernels are not available (no CUDA device or mamba_ssm not installed)"
        )
    chunk_scan, state_update, rmsnorm_fn, conv_fn, conv_update = kernels
    batch, seqlen, _ = u.shape
    weight = mod.conv1d.weight[:, 0]  # [conv_dim, d_conv]
    A = -torch.exp(mod.A_log.float())
    z, xBC, dt = mod._split(mod.in_proj(u))

    if seqlen == 1 and conv_state is not None and ssm_state is not None:
        conv_state = conv_state.clone()
        ssm_state = ssm_state.clone()
        if conv_update is not None:
            xBC1 = conv_update(xBC[:, 0].to(conv_state.dtype), conv_state, weight, mod.conv1d.bias, "silu")
        else:
            conv_state.copy_(
                torch.cat([conv_state[:, :, 1:], xBC[:, 0, :, None].to(conv_state.dtype)], dim=-1)
            )
            xBC1 = F.silu((conv_state * weight).sum(-1) + mod.conv1d.bias)
        x, B, C = torch.split(xBC1, [mod.d_inner, mod.d_state, mod.d_state], dim=-1)
        h, p, n = mod.nheads, mod.headdim, mod.d_state
        y = state_update(
            ssm_state,
            x.reshape(batch, h, p),
            dt[:, 0, :, None].expand(batch, h, p),
            A[:, None, None].expand(h, p, n).float(),
            B.reshape(batch, 1, n),
            C.reshape(batch, 1, n),
            mod.D[:, None].expand(h, p),
            z=None,
            dt_bias=mod.dt_bias[:, None].expand(h, p),
            dt_softplus=True,
        )
        y = rmsnorm_fn(
            y.reshape(batch, 1, mod.d_inner),
            mod.norm.weight,
            None,
            z=z,
            eps=mod.norm.eps,
            group_size=mod.d_inner,
            norm_before_gate=False,
        )
        return mod.out_proj(y), (conv_state, ssm_state)

    xBC_t = xBC.transpose(1, 2)
    if conv_state is None:
        conv_state = xBC_t.new_zeros(batch, mod.conv_dim, mod.d_conv)
    # Prepend the previous d_conv-1 inputs and drop their outputs: a causal conv carried across calls.
    full = torch.cat([conv_state.to(xBC_t.dtype), xBC_t], dim=-1)
    new_conv_state = full[:, :, -mod.d_conv :].contiguous()
    prefix = full[:, :, 1:]
    if conv_fn is not None:
        conv_out = conv_fn(prefix.contiguous(), weight, mod.conv1d.bias, activation="silu")[
            :, :, mod.d_conv - 1 :
        ]
    else:
        conv_out = F.silu(F.conv1d(prefix, mod.conv1d.weight, mod.conv1d.bias, groups=mod.conv_dim))
    xBC = conv_out.transpose(1, 2)
    x, B, C = torch.split(xBC, [mod.d_inner, mod.d_state, mod.d_state], dim=-1)
    y, final_state = chunk_scan(
        x.reshape(batch, seqlen, mod.nheads, mod.headdim),
        dt,
        A,
        B.reshape(batch, seqlen, 1, mod.d_state),
        C.reshape(batch, seqlen, 1, mod.d_state),
        chunk_size=mod.chunk_size,
        D=mod.D,
        z=None,
        dt_bias=mod.dt_bias,
        initial_states=None if ssm_state is None else ssm_state.float(),
        dt_softplus=True,
        return_final_states=True,
    )
    y = rmsnorm_fn(
        y.reshape(batch, seqlen, mod.d_inner),
        mod.norm.weight,
        None,
        z=z,
        eps=mod.norm.eps,
        group_size=mod.d_inner,
        norm_before_gate=False,
    )
    out_dtype = ssm_state.dtype if ssm_state is not None else torch.float32
    return mod.out_proj(y), (new_conv_state, final_state.to(out_dtype))
