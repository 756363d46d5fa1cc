"""Mamba-2 mixer in pure torch, laid out exactly like `mamba_ssm.modules.mamba2.Mamba2`.

Parameter names, shapes, registration order and initialization follow mamba_ssm (ngroups=1,
rmsnorm=True, norm_before_gate=False, no D_has_hdim, no d_ssm/MLP split), so a state dict moves between
this module and the CUDA one unchanged. The forward pass is the SSD chunked scan (Mamba-2 paper, "minimal
SSD") and takes/returns the recurrent state, so a stream can be decoded in chunks of any length with
a state whose size does not depend on how much has been decoded:

    conv_state: [batch, conv_dim, d_conv]   the last d_conv inputs of the depthwise conv (mamba_ssm's layout)
    ssm_state:  [batch, nheads, headdim, d_state]

On CUDA with mamba_ssm importable the same math runs through its kernels (`model_server.ssm.cuda`).
"""

from __future__ import annotations

import functools
import math

import torch
import torch.nn.functional as F
from torch import nn


class GatedRMSNorm(nn.Module):
    """mamba_ssm's `RMSNormGated` with norm_before_gate=False and one group: norm(x * silu(z)) * weight."""

    def __init__(self, hidden_size: int, eps: float = 1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        ct = _compute_dtype(x)  # upcast like mamba_ssm's kernel
        x = x.to(ct) * F.silu(z.to(ct))
        x = x * torch.rsqrt(x.square().mean(dim=-1, keepdim=True) + self.eps)
        return (x * self.weight.to(ct)).to(dtype)


def _compute_dtype(u: torch.Tensor) -> torch.dtype:
    """The SSM recurrence runs in float32 at least (half precision drifts over long streams)."""
    return torch.float64 if u.dtype == torch.float64 else torch.float32


def _segsum(x: torch.Tensor) -> torch.Tensor:
    """[..., T] -> [..., T, T] with out[i, j] = sum(x[j+1..i]) for j <= i, -inf above the diagonal.

    Built from a masked cumsum rather than cumsum differences, which lose precision (the SSD reference)."""
    t = x.shape[-1]
    x = x.unsqueeze(-1).expand(*x.shape, t)
    # the cached CPU masks for eager calls; a compiled graph (train --compile) builds them itself
    cached = x.device.type == "cpu" and not torch.compiler.is_compiling()
    not_strict, not_keep = _masks(t) if cached else _make_masks(t, x.device)
    out = torch.cumsum(x.masked_fill(not_strict, 0.0), dim=-2)
    return out.masked_fill(not_keep, -math.inf)


def _make_masks(t: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    ones = torch.ones(t, t, dtype=torch.bool, device=device)
    return ~torch.tril(ones, diagonal=-1), ~torch.tril(ones, diagonal=0)


@functools.lru_cache(maxsize=64)
def _masks(t: int) -> tuple[torch.Tensor, torch.Tensor]:
    """CPU masks, cached: streaming calls many small scans (not on CUDA, where a tensor first made
    during graph capture would live in the graph's private memory pool). Made outside inference mode:
    a cached inference tensor would break a later autograd (training) call in the same process."""
    with torch.inference_mode(False):
        return _make_masks(t, "cpu")


def causal_depthwise_conv(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Depthwise causal convolution, channels last: x [b, k - 1 + l, c] (the k - 1 inputs before the l new
    ones first), weight [c, 1, k], bias [c] -> [b, l, c], the same as conv1d with groups=c.

    k multiply-adds over [b, l, c] views: on a CPU 3-6x faster than conv1d at streaming lengths (4-16
    frames, where it was mostly overhead) and 2.5x at training length (400), and no transposes around it."""
    k = weight.shape[-1]
    length = x.shape[1] - (k - 1)
    taps = weight[:, 0].t().contiguous()  # [k, c]
    out = torch.addcmul(bias, x[:, :length], taps[0])
    for i in range(1, k):
        out = out.addcmul_(x[:, i : i + length], taps[i])
    return out


def ssd_chunk_scan(
    x: torch.Tensor,
    dt: torch.Tensor,
    A: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    chunk_size: int,
    initial_state: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Chunked SSD scan (no D skip). x [b,l,h,p], dt [b,l,h] (already softplus'ed), A [h] (negative),
    B/C [b,l,n], initial_state [b,h,p,n] -> (y [b,l,h,p], final_state [b,h,p,n])."""
    if torch.is_autocast_enabled(x.device.type):
        # Mixed precision covers the projections; the scan's decays and state sums stay in x's dtype.
        with torch.autocast(x.device.type, enabled=False):
            return ssd_chunk_scan(x, dt, A, B, C, chunk_size, initial_state)
    b, seqlen, h, p = x.shape
    n = B.shape[-1]
    q = max(1, min(chunk_size, seqlen))
    pad = (-seqlen) % q
    if pad:
        # dt = 0 on padded steps: no decay and no input, so the final state is unaffected.
        x = F.pad(x, (0, 0, 0, 0, 0, pad))
        dt = F.pad(dt, (0, 0, 0, pad))
        B = F.pad(B, (0, 0, 0, pad))
        C = F.pad(C, (0, 0, 0, pad))
    c = x.shape[1] // q
    # Layout [b, c, h, ...] so that every contraction is one batched matmul (einsum with three operands
    # made torch build large intermediates and was ~5x slower on CPU).
    xdt = (x * dt.unsqueeze(-1)).reshape(b, c, q, h, p).permute(0, 1, 3, 2, 4)  # [b,c,h,q,p]
    a = (dt * A).reshape(b, c, q, h).permute(0, 1, 3, 2)  # [b,c,h,q]
    Bc = B.reshape(b, c, 1, q, n)
    Cc = C.reshape(b, c, 1, q, n)
    a_cum = torch.cumsum(a, dim=-1)

    # 1. within each chunk: the quadratic (attention-like) form
    scores = Cc @ Bc.transpose(-1, -2)  # [b,c,1,q,q]
    y = (scores * torch.exp(_segsum(a))) @ xdt  # [b,c,h,q,p]

    # 2. state contributed by each chunk at its end
    decay_states = torch.exp(a_cum[..., -1:] - a_cum)  # [b,c,h,q]
    states = (xdt * decay_states.unsqueeze(-1)).transpose(-1, -2) @ Bc  # [b,c,h,p,n]

    # 3. carry states across chunks, starting from the initial state
    if initial_state is None:
        initial_state = torch.zeros(b, h, p, n, dtype=x.dtype, device=x.device)
    if c == 1:
        init = initial_state.to(states.dtype)
        decay = torch.exp(a_cum[:, 0, :, -1])[..., None, None]
        final_state = torch.addcmul(states[:, 0], init, decay)  # one pass
        entering = init.unsqueeze(1)  # [b,1,h,p,n]
    else:
        states = torch.cat([initial_state.unsqueeze(1).to(states.dtype), states], dim=1)  # [b,c+1,h,p,n]
        chunk_a = F.pad(a_cum[..., -1], (0, 0, 1, 0)).transpose(1, 2)  # [b,h,c+1]
        decay_chunk = torch.exp(_segsum(chunk_a))  # [b,h,c+1,c+1]
        flat = states.permute(0, 2, 1, 3, 4).reshape(b, h, c + 1, p * n)
        new_states = (decay_chunk @ flat).reshape(b, h, c + 1, p, n).permute(0, 2, 1, 3, 4)
        entering, final_state = new_states[:, :-1], new_states[:, -1]

    # 4. output contributed by the state entering each chunk
    y = y + (Cc @ entering.transpose(-1, -2)) * torch.exp(a_cum).unsqueeze(-1)  # [b,c,h,q,p]
    y = y.permute(0, 1, 3, 2, 4).reshape(b, c * q, h, p)[:, :seqlen]
    return y, final_state


class Mamba2(nn.Module):
    """Mamba-2 mixer: u [b, l, d_model] (+ states) -> (y [b, l, d_model], (conv_state, ssm_state))."""

    def __init__(
        self,
        d_model: int,
        d_state: int = 128,
        d_conv: int = 4,
        expand: int = 2,
        headdim: int = 64,
        ngroups: int = 1,
        A_init_range: tuple[float, float] = (1.0, 16.0),
        dt_min: float = 0.001,
        dt_max: float = 0.1,
        dt_init_floor: float = 1e-4,
        chunk_size: int = 256,
        device=None,
        dtype=None,
    ):
        super().__init__()
        if ngroups != 1:
            raise ValueError(f"ngroups must be 1 (got {ngroups})")
        if (expand * d_model) % headdim:
            raise ValueError(f"expand*d_model={expand * d_model} is not a multiple of headdim={headdim}")
        fk = {"device": device, "dtype": dtype}
        self.d_model = d_model
        self.d_state = d_state
        self.d_conv = d_conv
        self.expand = expand
        self.d_inner = expand * d_model
        self.headdim = headdim
        self.ngroups = ngroups
        self.nheads = self.d_inner // headdim
        self.chunk_size = chunk_size
        self.conv_dim = self.d_inner + 2 * ngroups * d_state

        # Order of the projection's outputs: [z, x, B, C, dt] (mamba_ssm).
        d_in_proj = 2 * self.d_inner + 2 * ngroups * d_state + self.nheads
        self.in_proj = nn.Linear(d_model, d_in_proj, bias=False, **fk)
        self.conv1d = nn.Conv1d(
            self.conv_dim,
            self.conv_dim,
            kernel_size=d_conv,
            groups=self.conv_dim,
            padding=d_conv - 1,
            bias=True,
            **fk,
        )
        self.act = nn.SiLU()
        # dt initialised log-uniformly in [dt_min, dt_max]; dt_bias stores softplus^-1(dt).
        dt = torch.exp(
            torch.rand(self.nheads, **fk) * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min)
        )
        dt = torch.clamp(dt, min=dt_init_floor)
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))
        self.dt_bias._no_weight_decay = True
        A = torch.empty(self.nheads, dtype=torch.float32, device=device).uniform_(*A_init_range)
        self.A_log = nn.Parameter(torch.log(A).to(dtype=dtype))
        self.A_log._no_weight_decay = True
        self.D = nn.Parameter(torch.ones(self.nheads, device=device))
        self.D._no_weight_decay = True
        self.norm = GatedRMSNorm(self.d_inner, eps=1e-5, **fk)
        self.out_proj = nn.Linear(self.d_inner, d_model, bias=False, **fk)

    # -- state ------------------------------------------------------------------------------------
    def state_shapes(self, batch: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return (batch, self.conv_dim, self.d_conv), (batch, self.nheads, self.headdim, self.d_state)

    def allocate_state(
        self, batch: int, device=None, dtype=torch.float32
    ) -> tuple[torch.Tensor, torch.Tensor]:
        conv_shape, ssm_shape = self.state_shapes(batch)
        device = device if device is not None else self.out_proj.weight.device
        return torch.zeros(conv_shape, device=device, dtype=dtype), torch.zeros(
            ssm_shape, device=device, dtype=dtype
        )

    # -- forward ----------------------------------------------------------------------------------
    def forward(
        self,
        u: torch.Tensor,
        conv_state: torch.Tensor | None = None,
        ssm_state: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """Advance by u.shape[1] steps from (conv_state, ssm_state) (zeros when None).

        Returns the output and the new states; the given state tensors are not modified."""
        if u.dim() != 3 or u.shape[-1] != self.d_model:
            raise ValueError(f"expected u of shape [batch, length, {self.d_model}], got {tuple(u.shape)}")
        if u.is_cuda:
            from model_server.ssm import cuda as cuda_path

            if cuda_path.available():
                return cuda_path.forward(self, u, conv_state, ssm_state)
        if u.shape[1] == 1 and conv_state is not None and ssm_state is not None:
            return self.step(u, conv_state, ssm_state)
        return self.scan(u, conv_state, ssm_state)

    def _split(self, zxbcdt: torch.Tensor):
        return torch.split(zxbcdt, [self.d_inner, self.conv_dim, self.nheads], dim=-1)

    def scan(self, u, conv_state=None, ssm_state=None):
        """Sequence path: causal depthwise conv over [previous inputs, u] then the chunked SSD scan."""
        batch, seqlen, _ = u.shape
        z, xBC, dt = self._split(self.in_proj(u))
        if conv_state is None:
            conv_state = xBC.new_zeros(batch, self.conv_dim, self.d_conv)
        # The conv state holds the last d_conv inputs; the first d_conv-1 outputs need only its tail.
        full = torch.cat([conv_state.to(xBC.dtype).transpose(1, 2), xBC], dim=1)  # [b, d_conv + l, conv_dim]
        new_conv_state = full[:, -self.d_conv :].transpose(1, 2)
        xBC = self.act(
            causal_depthwise_conv(full[:, 1:], self.conv1d.weight, self.conv1d.bias)
        )  # [b, l, conv_dim]
        x, B, C = torch.split(xBC, [self.d_inner, self.d_state, self.d_state], dim=-1)
        ct = _compute_dtype(u)
        A = -torch.exp(self.A_log.to(ct))
        dt = F.softplus(dt.to(ct) + self.dt_bias.to(ct))
        xh = x.to(ct).reshape(batch, seqlen, self.nheads, self.headdim)
        init = None if ssm_state is None else ssm_state.to(ct)
        y, new_ssm_state = ssd_chunk_scan(xh, dt, A, B.to(ct), C.to(ct), self.chunk_size, init)
        y = y + xh * self.D.to(ct)[:, None]
        y = y.reshape(batch, seqlen, self.d_inner).to(u.dtype)
        y = self.norm(y, z)
        state_dtype = ssm_state.dtype if ssm_state is not None else ct
        return self.out_proj(y), (new_conv_state, new_ssm_state.to(state_dtype))

    def step(self, u, conv_state, ssm_state):
        """One-step recurrence (u [b, 1, d_model]): the same math as `scan` with length 1."""
        if u.shape[1] != 1:
            raise ValueError(f"step takes one frame, got {u.shape[1]}")
        z, xBC, dt = self._split(self.in_proj(u[:, 0]))
        new_conv_state = torch.cat([conv_state[:, :, 1:], xBC.unsqueeze(-1).to(conv_state.dtype)], dim=-1)
        xBC = (new_conv_state * self.conv1d.weight[:, 0]).sum(-1) + self.conv1d.bias
        xBC = self.act(xBC)
        x, B, C = torch.split(xBC, [self.d_inner, self.d_state, self.d_state], dim=-1)
        ct = _compute_dtype(u)
        A = -torch.exp(self.A_log.to(ct))
        dt = F.softplus(dt.to(ct) + self.dt_bias.to(ct))  # [b, h]
        dA = torch.exp(dt * A)
        xh = x.to(ct).reshape(-1, self.nheads, self.headdim)
        dBx = torch.einsum("bh,bn,bhp->bhpn", dt, B.to(ct), xh)
        new_ssm_state = ssm_state.to(ct) * dA[:, :, None, None] + dBx
        y = torch.einsum("bhpn,bn->bhp", new_ssm_state, C.to(ct)) + xh * self.D.to(ct)[:, None]
        y = self.norm(y.reshape(-1, self.d_inner).to(u.dtype), z)
        return self.out_proj(y).unsqueeze(1), (new_conv_state, new_ssm_state.to(ssm_state.dtype))
