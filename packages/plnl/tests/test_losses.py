"""Each CLL loss against its closed form on hand-made batches, gradients, and K = 2 (supervised)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from plnl.losses import (
    consistency_kl,
    consistency_target,
    forward_loss,
    free_loss,
    nn_loss,
    pc_loss,
    scl_exp,
    scl_log,
    supervised_bce,
    ub_exp,
    ub_log,
)

F_ = torch.tensor([[2.0, 0.0, -1.0], [0.5, 1.5, 0.0]], dtype=torch.float64)
C_ = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]], dtype=torch.float64)


def _p(row: int) -> list[float]:
    e = [math.exp(v) for v in F_[row].tolist()]
    return [v / sum(e) for v in e]


def test_scl_losses_closed_form():
    p0, p1 = _p(0), _p(1)
    log = -(math.log(1 - p0[1] + 1e-8) + math.log(1 - p1[0] + 1e-8) + math.log(1 - p1[2] + 1e-8)) / 2
    assert float(scl_log(F_, C_)) == pytest.approx(log, rel=1e-12)
    exp = (math.exp(p0[1]) + math.exp(p1[0]) + math.exp(p1[2])) / 2
    assert float(scl_exp(F_, C_)) == pytest.approx(exp, rel=1e-12)


def test_ub_losses_closed_form():
    p0, p1 = _p(0), _p(1)
    # K = 3: (K-1)/|C_i| = 2 for row 0, 1 for row 1
    ul = -(2 * math.log(p0[0] + p0[2] + 1e-8) + 1 * math.log(p1[1] + 1e-8)) / 2
    assert float(ub_log(F_, C_)) == pytest.approx(ul, rel=1e-12)
    ue = (2 * math.exp(-(p0[0] + p0[2])) + math.exp(-p1[1])) / 2
    assert float(ub_exp(F_, C_)) == pytest.approx(ue, rel=1e-12)


def test_pc_and_forward_closed_form():
    sig = lambda z: 1 / (1 + math.exp(-z))  # noqa: E731
    f = F_.tolist()
    r0 = sum(sig(f[0][1] - f[0][k]) for k in range(3))
    r1 = (sum(sig(f[1][0] - f[1][k]) for k in range(3)) + sum(sig(f[1][2] - f[1][k]) for k in range(3))) / 2
    assert float(pc_loss(F_, C_)) == pytest.approx(2 * (r0 + r1) / 2 - 3 + 2, rel=1e-12)
    # descent lowers the complementary logit (the PLNL repository's sign would raise it)
    f = F_.clone().requires_grad_(True)
    pc_loss(f, C_).backward()
    assert f.grad[0, 1] > 0 and f.grad[1, 0] > 0
    # uniform Q: (pQ)_k = (1 - p_k) / (K - 1)
    p0, p1 = _p(0), _p(1)
    fw = -(math.log((1 - p0[1]) / 2) + math.log((1 - p1[0]) / 2) + math.log((1 - p1[2]) / 2)) / 2
    assert float(forward_loss(F_, C_)) == pytest.approx(fw, rel=1e-12)


def test_nn_and_free_closed_form():
    f = torch.tensor([[1.0, 0.0, -1.0], [0.0, 2.0, 0.5], [0.3, 0.1, 0.0]], dtype=torch.float64)
    C = torch.tensor([[0.0, 1, 0], [1.0, 0, 0], [0.0, 1, 0]], dtype=torch.float64)  # cbar = 1, 0, 1
    prior = torch.tensor([0.2, 0.5, 0.3], dtype=torch.float64)
    nl = (-F.log_softmax(f, 1)).tolist()
    m1 = [(nl[0][j] + nl[2][j]) / 2 for j in range(3)]  # examples with cbar = 1
    m0 = nl[1]  # cbar = 0
    R = [0.2 * m0[j] + 0.5 * m1[j] for j in range(3)]
    R[0] -= 2 * 0.2 * m0[0]
    R[1] -= 2 * 0.5 * m1[1]  # class 2 has no example with cbar = 2: no second term
    assert float(free_loss(f, C, prior)) == pytest.approx(sum(R), rel=1e-12)
    assert float(nn_loss(f, C, prior)) == pytest.approx(sum(max(r, 0.0) for r in R), rel=1e-12)


def test_scl_log_gradient_pushes_the_complementary_logit_down_and_vanishes_when_p_is_zero():
    f = F_.clone().requires_grad_(True)
    scl_log(f, C_).backward()
    assert f.grad[0, 1] > 0 and f.grad[1, 0] > 0 and f.grad[1, 2] > 0  # descent lowers them
    g = torch.tensor([[50.0, -50.0, -50.0]], dtype=torch.float64, requires_grad=True)
    value = scl_log(g, torch.tensor([[0.0, 1.0, 1.0]], dtype=torch.float64))
    value.backward()
    assert float(value.detach()) == pytest.approx(0.0, abs=1e-7) and float(g.grad.abs().max()) < 1e-12


def test_k2_scl_log_is_cross_entropy_on_the_determined_label():
    f = torch.tensor([[0.3, -0.2], [1.0, 2.0], [-0.5, 0.5]], dtype=torch.float64)
    C = torch.tensor([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]], dtype=torch.float64)
    y = (1 - C).argmax(1)
    assert float(scl_log(f, C)) == pytest.approx(float(F.cross_entropy(f, y)), rel=1e-6)


def test_supervised_bce_is_binary_not_softmax_and_zero_on_an_empty_batch():
    f = torch.tensor([[2.0, -1.0, 0.0]], dtype=torch.float64)
    want = -(math.log(1 / (1 + math.exp(-2))) + math.log(1 - 1 / (1 + math.exp(1))) + math.log(0.5)) / 3
    assert float(supervised_bce(f, torch.tensor([0]))) == pytest.approx(want, rel=1e-12)
    assert float(supervised_bce(f[:0], torch.tensor([], dtype=torch.int64))) == 0.0


def test_consistency_target_sums_to_one_and_is_zero_on_complementary_classes():
    q = consistency_target(F_, C_)
    assert torch.allclose(q.sum(1), torch.ones(2, dtype=torch.float64))
    assert float((q * C_).abs().max()) == 0.0
    kl = consistency_kl(F_ * 0.5, q)
    t = q + 1e-8
    want = (t * (t.log() - F.log_softmax(F_ * 0.5, 1))).sum() / 2
    assert float(kl) == pytest.approx(float(want), rel=1e-12)
