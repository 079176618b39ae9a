"""Layers: eigenvalue ranges, parallel = sequential, the positive-eigenvalue limitation, gradients."""

from __future__ import annotations

import pytest
import torch
from lrnn_state_tracking.householder import gh
from lrnn_state_tracking.layers import DeltaNet, DiagonalLRNN, GHProductRNN, eig_low

F64 = torch.float64

pytestmark = pytest.mark.usefixtures("torch_one_thread")


def _u(gen, b=2, t=23, d=8, device="cpu", dtype=F64):
    return torch.randn(b, t, d, generator=gen, dtype=dtype).to(device)


@pytest.mark.parametrize(("eig", "lo"), [("01", 0.0), ("pm1", -1.0), ((-0.5, 1.0), -0.5)])
def test_diagonal_decays_lie_in_the_range(eig, lo, torch_gen):
    torch.manual_seed(0)
    layer = DiagonalLRNN(8, d_state=4, eig_range=eig).double()
    with torch.no_grad():
        layer.dt_proj.bias.add_(torch.linspace(-3, 3, layer.d_inner, dtype=F64))  # spread Δ widely
        decay, *_ = layer.transitions(5 * _u(torch_gen, t=200))
    assert float(decay.min()) > lo - 1e-12 and float(decay.max()) < 1.0
    assert float(decay.min()) < lo + 0.5  # the range is used, not just its top


@pytest.mark.parametrize(("eig", "lo"), [("01", 0.0), ("pm1", -1.0)])
def test_deltanet_transition_eigenvalues_lie_in_the_range(eig, lo, torch_gen):
    torch.manual_seed(1)
    layer = DeltaNet(8, n_heads=2, eig_range=eig).double()
    with torch.no_grad():
        layer.b_proj.weight.mul_(6)  # push β towards both ends of its range
        _, k, _, beta = layer.qkvb(_u(torch_gen, t=50))
    assert float(beta.min()) > 0 and float(beta.max()) < 1.0 - lo, (beta.min(), beta.max())
    assert float(beta.max()) > 0.9 * (1.0 - lo)
    mats = gh(beta.reshape(-1), k.reshape(-1, k.shape[-1]))  # explicit I − β k kᵀ per step
    eig_vals = torch.linalg.eigvalsh(mats)
    assert float(eig_vals.min()) >= lo - 1e-9 and float(eig_vals.max()) <= 1.0 + 1e-9
    if lo < 0:
        assert float(eig_vals.min()) < -0.5  # negative eigenvalues actually occur


@pytest.mark.parametrize(
    "layer",
    [
        lambda: DiagonalLRNN(8, d_state=3, eig_range="pm1", chunk=8),
        lambda: DiagonalLRNN(8, d_state=3, eig_range="01", conv=0),
        lambda: DeltaNet(8, n_heads=2, eig_range="pm1", chunk=8),
        lambda: DeltaNet(8, n_heads=2, eig_range="01", conv=0, chunk=5),
        lambda: GHProductRNN(8, n_heads=2, n_householder=3, eig_range="pm1", chunk=8),
    ],
)
def test_parallel_form_equals_the_sequential_recurrence(layer, torch_gen, device):
    torch.manual_seed(2)
    mod = layer().double().to(device)
    u = _u(torch_gen, device=device)
    torch.testing.assert_close(mod(u, mode="parallel"), mod(u, mode="sequential"), atol=1e-10, rtol=1e-10)


def test_gh_product_layer_applies_the_product_of_its_factors(torch_gen):
    """Independent check: the state after each token is Π_m (I − β_m k_m k_mᵀ) S + writes, built with gh()."""
    torch.manual_seed(3)
    mod = GHProductRNN(4, n_heads=1, n_householder=2, conv=0, eig_range="pm1").double()
    u = _u(torch_gen, b=1, t=5, d=4)
    v = mod.v_proj(u).reshape(1, 5, 2, 4)[0]
    beta = 2 * torch.sigmoid(mod.b_proj(u))[0]  # (T, m)
    q = torch.nn.functional.normalize(torch.nn.functional.silu(mod.q_proj(u)), dim=-1)[0] * 0.5
    k = torch.nn.functional.normalize(torch.nn.functional.silu(mod.k_proj(u)).reshape(5, 2, 4), dim=-1)
    s = torch.zeros(4, 4, dtype=F64)
    outs = []
    for t in range(5):
        for j in range(2):
            s = gh(beta[t, j], k[t, j]) @ s + beta[t, j] * torch.outer(k[t, j], v[t, j])
        outs.append(s.T @ q[t])
    o = mod.o_proj(mod.norm(torch.stack(outs)))
    torch.testing.assert_close(mod(u)[0], o, atol=1e-10, rtol=1e-10)


def _constant_input_readout(layer, n, d):
    with torch.no_grad():
        x = torch.ones(1, n, d, dtype=F64)
        return layer(x, mode="parallel")[0]


@pytest.mark.parametrize(
    "make",
    [
        lambda: DiagonalLRNN(6, d_state=4, conv=0, eig_range="01"),
        lambda: DeltaNet(6, n_heads=2, conv=0, eig_range="01"),
    ],
)
def test_positive_eigenvalue_models_converge_on_a_repeated_token(make):
    """Empirical form of the parity theorem: with transitions in [0,1], the readout on 1ⁿ converges, so it
    cannot alternate with the parity of n."""
    for s in range(3):
        torch.manual_seed(s)
        out = _constant_input_readout(make().double(), 600, 6)
        steps = (out[1:] - out[:-1]).norm(dim=-1)
        assert float(steps[-50:].max()) < 1e-3 * max(float(steps[:5].max()), 1e-6) + 1e-6


def test_negative_eigenvalue_construction_alternates_forever():
    """The pm1 diagonal layer with Δ forced large realises λ' = −1 and alternates on 1ⁿ (no convergence)."""
    torch.manual_seed(0)
    layer = DiagonalLRNN(6, d_state=4, conv=0, eig_range="pm1").double()
    with torch.no_grad():
        layer.dt_proj.bias.fill_(60.0)  # Δ ≈ 60: exp(Δa) = 0, λ' = −1 exactly
        layer.dt_proj.weight.zero_()
    out = _constant_input_readout(layer, 601, 6)
    steps = (out[1:] - out[:-1]).norm(dim=-1)
    assert float(steps[-50:].min()) > 1e-3
    torch.testing.assert_close(out[-1], out[-3], atol=1e-9, rtol=0)  # period 2


def test_layer_gradients_match_finite_differences_in_float64(torch_gen):
    torch.manual_seed(4)
    for mod in (DiagonalLRNN(4, d_state=2, eig_range="pm1", chunk=4), DeltaNet(4, n_heads=2, chunk=4)):
        mod = mod.double()
        u = _u(torch_gen, b=1, t=6, d=4).requires_grad_()
        assert torch.autograd.gradcheck(lambda x, m=mod: m(x), (u,))


def test_bad_layer_arguments():
    with pytest.raises(ValueError, match=r"must lie in \[-1, 1\]"):
        DiagonalLRNN(8, eig_range=(-2.0, 1.0))
    with pytest.raises(ValueError, match=r"must lie in \[-1, 1\]"):
        DeltaNet(8, eig_range=(0.0, 1.5))
    with pytest.raises(ValueError, match="'01', 'pm1'"):
        eig_low("m11")
    with pytest.raises(TypeError, match="pair"):
        eig_low(-1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="divisible"):
        DeltaNet(10, n_heads=4)
    with pytest.raises(ValueError, match="mode must be"):
        DeltaNet(8)(torch.zeros(1, 3, 8), mode="fast")
    with pytest.raises(ValueError, match="n_householder"):
        GHProductRNN(8, n_householder=0)
    assert eig_low("pm1") == -1.0 and eig_low((-0.25, 1)) == -0.25
