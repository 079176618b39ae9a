"""Parallel forms against the sequential references; the delta rule against explicit GH matrices;
the oracles at length 10,000."""

from __future__ import annotations

import pytest
import torch
from lrnn_state_tracking.householder import gh
from lrnn_state_tracking.oracles import parity_deltanet_oracle, parity_diag_oracle
from lrnn_state_tracking.scan import (
    delta_rule_chunked,
    delta_rule_sequential,
    scan_diagonal,
    scan_diagonal_sequential,
)

F64 = torch.float64

pytestmark = pytest.mark.usefixtures("torch_one_thread")


@pytest.mark.parametrize("chunk", [1, 5, 16, 64, 200])
def test_associative_scan_equals_the_sequential_loop(chunk, torch_gen, device):
    a = torch.rand(3, 77, 4, 2, generator=torch_gen, device=device, dtype=F64) * 2 - 1  # decays in (-1, 1)
    a[:, 10] = 0.0  # exact resets and sign flips are handled without division
    a[:, 11] = -1.0
    b = torch.randn(3, 77, 4, 2, generator=torch_gen, device=device, dtype=F64)
    h0 = torch.randn(3, 4, 2, generator=torch_gen, device=device, dtype=F64)
    ref = scan_diagonal_sequential(a, b, h0)
    torch.testing.assert_close(scan_diagonal(a, b, h0, chunk=chunk), ref, atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(
        scan_diagonal(a, b, chunk=chunk), scan_diagonal_sequential(a, b), atol=1e-12, rtol=1e-12
    )


def test_sequential_scan_against_a_hand_computed_case():
    a = torch.tensor([[[0.5], [-1.0], [2.0]]], dtype=F64)
    b = torch.tensor([[[1.0], [1.0], [1.0]]], dtype=F64)
    # h1 = 1, h2 = -1 + 1 = 0, h3 = 0 + 1 = 1
    assert scan_diagonal_sequential(a, b)[0, :, 0].tolist() == [1.0, 0.0, 1.0]


def _delta_inputs(gen, device, dtype=F64, b=2, h=3, t=45, dk=4, dv=5):
    q = torch.randn(b, h, t, dk, generator=gen, device=device, dtype=dtype)
    k = torch.nn.functional.normalize(
        torch.randn(b, h, t, dk, generator=gen, device=device, dtype=dtype), dim=-1
    )
    v = torch.randn(b, h, t, dv, generator=gen, device=device, dtype=dtype)
    beta = 2 * torch.rand(b, h, t, generator=gen, device=device, dtype=dtype)
    return q, k, v, beta


def test_delta_rule_update_form_equals_the_generalised_householder_form(torch_gen, device):
    q, k, v, beta = _delta_inputs(torch_gen, device, b=1, h=1, t=12)
    s = torch.zeros(4, 5, dtype=F64, device=device)
    outs = []
    for t in range(12):
        kt, vt = k[0, 0, t], v[0, 0, t]
        s = gh(beta[0, 0, t], kt) @ s + beta[0, 0, t] * torch.outer(kt, vt)  # (I − βkkᵀ)S + βkvᵀ
        outs.append(s.T @ q[0, 0, t])
    o, s_seq = delta_rule_sequential(q, k, v, beta)
    torch.testing.assert_close(o[0, 0], torch.stack(outs), atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(s_seq[0, 0], s, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("chunk", [1, 4, 16, 32, 64])
def test_chunked_wy_form_equals_the_sequential_loop_float64(chunk, torch_gen, device):
    q, k, v, beta = _delta_inputs(torch_gen, device)
    s0 = torch.randn(2, 3, 4, 5, generator=torch_gen, device=device, dtype=F64)
    o1, s1 = delta_rule_sequential(q, k, v, beta, s0)
    o2, s2 = delta_rule_chunked(q, k, v, beta, s0, chunk=chunk)
    torch.testing.assert_close(o2, o1, atol=1e-10, rtol=1e-10)
    torch.testing.assert_close(s2, s1, atol=1e-10, rtol=1e-10)


def test_chunked_wy_form_equals_the_sequential_loop_float32(torch_gen, device):
    q, k, v, beta = _delta_inputs(torch_gen, device, dtype=torch.float32, t=128)
    o1, _ = delta_rule_sequential(q, k, v, beta)
    o2, _ = delta_rule_chunked(q, k, v, beta, chunk=32)
    torch.testing.assert_close(o2, o1, atol=1e-5, rtol=1e-5)


def test_beta_zero_is_the_identity_and_beta_two_a_reflection(torch_gen, device):
    q, k, v, _ = _delta_inputs(torch_gen, device, t=20)
    o, s = delta_rule_chunked(q, k, v, torch.zeros(2, 3, 20, dtype=F64, device=device), chunk=8)
    assert float(o.abs().max()) == 0.0 and float(s.abs().max()) == 0.0
    # β = 2 with the same key twice: the second reflection undoes the first's erase: kᵀS = 2v − 2v + 2v...
    k1 = k[:, :, :1].expand(-1, -1, 20, -1)
    v1 = torch.ones(2, 3, 20, 1, dtype=F64, device=device)
    o, _ = delta_rule_chunked(k1, k1, v1, torch.full((2, 3, 20), 2.0, dtype=F64, device=device), chunk=8)
    expected = torch.tensor([2.0, 0.0] * 10, dtype=F64, device=device)
    torch.testing.assert_close(o[0, 0, :, 0], expected, atol=1e-9, rtol=0)
    assert torch.isfinite(o).all()


def test_gradients_of_both_parallel_forms_match_finite_differences(torch_gen, device):
    a = (torch.rand(1, 9, 2, generator=torch_gen, device=device, dtype=F64) * 2 - 1).requires_grad_()
    b = torch.randn(1, 9, 2, generator=torch_gen, device=device, dtype=F64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b: scan_diagonal(a, b, chunk=4), (a, b))
    q, k, v, beta = (x.requires_grad_() for x in _delta_inputs(torch_gen, device, b=1, h=1, t=6, dk=3, dv=2))
    assert torch.autograd.gradcheck(
        lambda q, k, v, beta: delta_rule_chunked(q, k, v, beta, chunk=4)[0], (q, k, v, beta)
    )


def test_bad_kernel_inputs():
    with pytest.raises(ValueError, match="same shape"):
        scan_diagonal(torch.ones(1, 3, 2), torch.ones(1, 4, 2))
    with pytest.raises(ValueError, match="T >= 1"):
        scan_diagonal(torch.ones(1, 0, 2), torch.ones(1, 0, 2))
    with pytest.raises(ValueError, match="T must be >= 1"):
        delta_rule_sequential(*(torch.ones(1, 1, 0, 2),) * 3, torch.ones(1, 1, 0))
    with pytest.raises(ValueError, match="beta must be"):
        delta_rule_chunked(*(torch.ones(1, 1, 3, 2),) * 3, torch.ones(1, 3))


def test_oracles_are_exact_at_length_ten_thousand_in_float32(device):
    gen = torch.Generator().manual_seed(1)
    bits = torch.randint(0, 2, (2, 10_000), generator=gen).to(device)
    truth = bits.cumsum(1) % 2
    assert torch.equal(parity_diag_oracle(bits), truth)
    assert torch.equal(parity_deltanet_oracle(bits, seed=3), truth)
    # the sequential recurrence gives the same on a prefix
    assert torch.equal(parity_deltanet_oracle(bits[:, :2000], chunked=False, seed=3), truth[:, :2000])


def test_oracles_refuse_non_bits():
    with pytest.raises(ValueError, match="only 0 and 1"):
        parity_diag_oracle(torch.tensor([[0, 2, 1]]))
    with pytest.raises(ValueError, match="T >= 1"):
        parity_deltanet_oracle(torch.zeros(1, 0, dtype=torch.long))
