"""The pure torch Mamba-2 mixer: recurrence == chunked scan, chunked streaming == one scan, layout."""

import random

import pytest
import torch
import torch.nn.functional as F

from model_server.ssm import cuda as cuda_path
from model_server.ssm.mamba2 import Mamba2, causal_depthwise_conv


def _mixer(seed=0, **kw):
    torch.manual_seed(seed)
    cfg = dict(d_model=32, d_state=16, headdim=16, chunk_size=8)
    cfg.update(kw)
    m = Mamba2(**cfg).double()
    # Larger dt and random D/norm so the test exercises decay and every parameter.
    with torch.no_grad():
        m.dt_bias.uniform_(-1.0, 1.0)
        m.D.uniform_(0.5, 1.5)
        m.norm.weight.uniform_(0.5, 1.5)
    return m


def test_step_recurrence_matches_chunked_scan():
    m = _mixer()
    u = torch.randn(3, 21, 32, dtype=torch.float64)
    y_scan, (conv_s, ssm_s) = m.scan(u)
    conv, ssm = m.allocate_state(3, dtype=torch.float64)
    ys = []
    for t in range(u.shape[1]):
        y, (conv, ssm) = m.step(u[:, t : t + 1], conv, ssm)
        ys.append(y)
    torch.testing.assert_close(torch.cat(ys, 1), y_scan, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(conv, conv_s)
    torch.testing.assert_close(ssm, ssm_s, rtol=1e-9, atol=1e-9)


def test_random_chunks_with_carried_state_match_one_scan():
    m = _mixer(seed=1)
    u = torch.randn(2, 57, 32, dtype=torch.float64)
    y_full, (conv_f, ssm_f) = m(u)
    rng = random.Random(3)
    conv, ssm = m.allocate_state(2, dtype=torch.float64)
    pos, ys = 0, []
    while pos < u.shape[1]:
        n = rng.randint(1, 13)  # includes L=1 (recurrence) and L spanning several scan chunks
        y, (conv, ssm) = m(u[:, pos : pos + n], conv, ssm)
        ys.append(y)
        pos += n
    torch.testing.assert_close(torch.cat(ys, 1), y_full, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(ssm, ssm_f, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(conv, conv_f)


def test_state_is_not_modified_in_place():
    m = _mixer()
    conv, ssm = m.allocate_state(1, dtype=torch.float64)
    m(torch.randn(1, 5, 32, dtype=torch.float64), conv, ssm)
    m(torch.randn(1, 1, 32, dtype=torch.float64), conv, ssm)
    assert conv.abs().sum() == 0 and ssm.abs().sum() == 0


def test_state_size_independent_of_sequence_length():
    m = _mixer()
    shapes = set()
    for n in (1, 7, 64, 300):
        _, (conv, ssm) = m(torch.randn(2, n, 32, dtype=torch.float64))
        shapes.add((tuple(conv.shape), tuple(ssm.shape)))
    assert shapes == {((2, 32 * 2 + 2 * 16, 4), (2, 4, 16, 16))}


def test_scan_is_causal():
    m = _mixer()
    u = torch.randn(1, 20, 32, dtype=torch.float64)
    y1, _ = m(u)
    u2 = u.clone()
    u2[:, 12:] += 5.0
    y2, _ = m(u2)
    torch.testing.assert_close(y1[:, :12], y2[:, :12])
    assert not torch.allclose(y1[:, 12:], y2[:, 12:])


def test_bad_inputs_raise():
    m = _mixer()
    with pytest.raises(ValueError, match="expected u"):
        m(torch.randn(2, 5, 31, dtype=torch.float64))
    with pytest.raises(ValueError, match="headdim"):
        Mamba2(d_model=30, headdim=16)
    with pytest.raises(ValueError, match="ngroups"):
        Mamba2(d_model=32, headdim=16, ngroups=2)


# mamba_ssm.modules.mamba2.Mamba2(d_model=192, d_state=32, headdim=48) (expand=2, d_conv=4, ngroups=1,
# rmsnorm=True, bias=False, conv_bias=True): its state_dict, in order.
MAMBA_SSM_LAYOUT_192 = [
    # torch lists a module's own parameters before its submodules' ones.
    ("dt_bias", (8,)),
    ("A_log", (8,)),
    ("D", (8,)),
    ("in_proj.weight", (840, 192)),  # 2*384 (z, x) + 2*32 (B, C) + 8 heads (dt)
    ("conv1d.weight", (448, 1, 4)),
    ("conv1d.bias", (448,)),
    ("norm.weight", (384,)),
    ("out_proj.weight", (192, 384)),
]


def test_state_dict_layout_matches_mamba_ssm():
    m = Mamba2(d_model=192, d_state=32, headdim=48)
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == MAMBA_SSM_LAYOUT_192
    # mamba_ssm's init: A in [1, 16], dt in [1e-3, 0.1], D = 1, norm weight = 1.
    A = torch.exp(m.A_log)
    assert torch.all((A >= 1) & (A <= 16))
    dt = torch.nn.functional.softplus(m.dt_bias)
    assert torch.all((dt >= 1e-4) & (dt <= 0.1 + 1e-6))
    assert torch.all(m.D == 1) and torch.all(m.norm.weight == 1)


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_path.available(), reason="needs CUDA and mamba_ssm")
def test_cuda_path_matches_torch_path():
    torch.manual_seed(0)
    m = Mamba2(d_model=192, d_state=32, headdim=48, chunk_size=64).cuda()
    u = torch.randn(4, 100, 192, device="cuda")
    conv, ssm = m.allocate_state(4)
    conv.normal_()
    ssm.normal_()
    y_ref, (c_ref, s_ref) = m.scan(u, conv, ssm)
    y, (c, s) = cuda_path.forward(m, u, conv, ssm)
    torch.testing.assert_close(y, y_ref, rtol=2e-3, atol=2e-3)
    torch.testing.assert_close(s, s_ref, rtol=2e-3, atol=2e-3)
    torch.testing.assert_close(c, c_ref)
    y1_ref, (_, s1_ref) = m.step(u[:, :1], conv, ssm)
    y1, (_, s1) = cuda_path.forward(m, u[:, :1], conv, ssm)
    torch.testing.assert_close(y1, y1_ref, rtol=2e-3, atol=2e-3)
    torch.testing.assert_close(s1, s1_ref, rtol=2e-3, atol=2e-3)


def test_scan_after_inference_mode_still_trains():
    """The CPU mask cache must not hand inference tensors to a later autograd call (server then training)."""
    from model_server.ssm import mamba2

    mamba2._masks.cache_clear()
    x = torch.randn(2, 7)
    with torch.inference_mode():
        mamba2._segsum(x)
    x.requires_grad_(True)
    out = mamba2._segsum(x)
    out.masked_fill(torch.isinf(out), 0.0).sum().backward()
    assert x.grad is not None and torch.isfinite(x.grad).all()


@pytest.mark.parametrize("length", [1, 3, 8, 40])
def test_causal_depthwise_conv_equals_grouped_conv1d(length):
    """The channels-last multiply-add form gives conv1d's output (groups = channels), gradients included."""
    gen = torch.Generator().manual_seed(length)
    channels, k = 6, 4
    x = torch.randn(2, k - 1 + length, channels, generator=gen, requires_grad=True)
    weight = torch.randn(channels, 1, k, generator=gen, requires_grad=True)
    bias = torch.randn(channels, generator=gen)
    out = causal_depthwise_conv(x, weight, bias)
    ref = F.conv1d(x.transpose(1, 2), weight, bias, groups=channels).transpose(1, 2)
    assert out.shape == (2, length, channels)
    assert torch.allclose(out, ref, atol=1e-5)
    grads = torch.autograd.grad(out.square().sum(), (x, weight))
    ref_grads = torch.autograd.grad(ref.square().sum(), (x, weight))
    assert all(torch.allclose(a, b, atol=1e-4) for a, b in zip(grads, ref_grads, strict=True))
