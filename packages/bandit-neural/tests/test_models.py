"""Losses, the hand-written trainer vs autograd + torch.optim.Adam, the linear MLE vs sklearn, V⁻¹."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from bandit_neural.confidence import GramInverse
from bandit_neural.models import LinearUtility, NeuralUtility, binary_loss, preference_loss
from bandit_neural.nets import values_and_grads


def assert_close(a, b, rtol: float = 1e-7, atol: float = 1e-7) -> None:
    """torch.testing.assert_close without its ~2 s first-call import cost."""
    np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy(), rtol=rtol, atol=atol)


def _data(n: int, d: int, seed: int, device: str = "cpu"):
    gen = torch.Generator().manual_seed(seed)
    x1 = torch.randn(n, d, generator=gen, dtype=torch.float64)
    x2 = torch.randn(n, d, generator=gen, dtype=torch.float64)
    x1, x2 = x1 / x1.norm(dim=1, keepdim=True), x2 / x2.norm(dim=1, keepdim=True)
    y = (torch.rand(n, generator=gen) < 0.5).double()
    return x1.to(device), x2.to(device), y.to(device)


def test_losses_equal_the_log_likelihood_written_out():
    h1, h2 = (
        torch.tensor([0.3, -2.0, 5.0], dtype=torch.float64),
        torch.tensor([0.1, 1.0, -4.0], dtype=torch.float64),
    )
    y = torch.tensor([1.0, 0.0, 1.0], dtype=torch.float64)
    mu = torch.sigmoid(h1 - h2)
    expected = -(y * torch.log(mu) + (1 - y) * torch.log1p(-mu)).sum()
    assert float(preference_loss(h1, h2, y)) == pytest.approx(float(expected), rel=1e-6)
    assert float(binary_loss(h1, y)) == pytest.approx(
        float(-(y * torch.log(torch.sigmoid(h1)) + (1 - y) * torch.log(torch.sigmoid(-h1))).sum()), rel=1e-6
    )
    # Stable for saturated logits (Square utilities reach 10): no inf, no NaN.
    assert torch.isfinite(preference_loss(torch.tensor([500.0]), torch.tensor([-500.0]), torch.tensor([0.0])))


def test_preference_gradient_is_the_analytic_form(device):
    # ∇_θ of −log-likelihood = Σ_s (μ(Δh_s) − y_s)(g(x_{s,1}) − g(x_{s,2})), plus the pull m·reg(θ − θ_0).
    model = NeuralUtility(5, 16, reg=0.5, seed=1, device=device)
    x1, x2, y = _data(20, 5, 2, device)
    model.fit(x1, x2, y)  # move θ away from θ_0
    model.net.zero_grad()
    model.loss(x1, x2, y).backward()
    auto = torch.cat([w.grad.reshape(-1) for w in model.net.weights])
    h1, g1 = values_and_grads(model.net, x1)
    h2, g2 = values_and_grads(model.net, x2)
    analytic = ((torch.sigmoid(h1 - h2) - y)[:, None] * (g1 - g2)).sum(0)
    analytic += model.m * model.reg * (model.net.flat_params() - model.theta0_flat)
    assert_close(auto, analytic, rtol=1e-10, atol=1e-10)


def _fit_reference(model: NeuralUtility, x1, x2, y, adam) -> None:
    """The fit by autograd on ``model.loss``, stepped by ``adam(params) -> step()``."""
    if not model.warm_start:
        model._set_params(model.theta0_flat)
    step = adam(list(model.net.parameters()))
    for _ in range(model.train_steps):
        model.net.zero_grad(set_to_none=True)
        model.loss(x1, x2, y).backward()
        step()


def _textbook_adam(params, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8):
    # Kingma & Ba (2015), Algorithm 1, written out independently of both implementations under test.
    state = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]
    t = [0]

    def step() -> None:
        t[0] += 1
        with torch.no_grad():
            for k, p in enumerate(params):
                m, v = state[k]
                m = b1 * m + (1 - b1) * p.grad
                v = b2 * v + (1 - b2) * p.grad**2
                state[k] = (m, v)
                p -= lr * (m / (1 - b1 ** t[0])) / (torch.sqrt(v / (1 - b2 ** t[0])) + eps)

    return step


def _torch_adam(params):
    return torch.optim.Adam(params, lr=1e-2).step


def _compare_fits(adam, pairs: bool, warm_start: bool, device: str, rtol: float) -> None:
    kw = {"depth": 3, "train_steps": 25, "reg": 0.3, "warm_start": warm_start, "seed": 4, "device": device}
    a, b = NeuralUtility(5, 16, **kw), NeuralUtility(5, 16, **kw)
    x1, x2, y = _data(30, 5, 3, device)
    for n in (10, 30):  # two successive fits: warm start continues from θ, cold start from θ_0
        a.fit(x1[:n], x2[:n] if pairs else None, y[:n])
        _fit_reference(b, x1[:n], x2[:n] if pairs else None, y[:n], adam)
    assert_close(a.net.flat_params(), b.net.flat_params(), rtol=rtol, atol=1e-11)
    assert not torch.allclose(a.net.flat_params(), a.theta0_flat)


@pytest.mark.parametrize("pairs", [True, False])
@pytest.mark.parametrize("warm_start", [True, False])
def test_hand_written_trainer_equals_autograd_with_textbook_adam(pairs, warm_start, device):
    _compare_fits(_textbook_adam, pairs, warm_start, device, rtol=1e-8)


@pytest.mark.slow  # the first torch.optim.Adam costs ~4 s of imports
@pytest.mark.parametrize("pairs", [True, False])
@pytest.mark.parametrize("warm_start", [True, False])
def test_hand_written_trainer_equals_autograd_with_torch_adam(pairs, warm_start, device):
    _compare_fits(_torch_adam, pairs, warm_start, device, rtol=1e-9)


def test_training_fits_a_separable_preference_signal():
    # Preferences from a known utility; after training the network ranks held-out pairs correctly.
    theta = torch.tensor([1.0, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64)
    x1, x2, _ = _data(300, 5, 5)
    f = lambda x: torch.cos(3 * x @ theta)  # noqa: E731
    y = (f(x1) > f(x2)).double()
    model = NeuralUtility(5, 32, train_steps=300, reg=0.01, seed=0)
    model.fit(x1, x2, y)
    t1, t2, _ = _data(300, 5, 6)
    with torch.no_grad():
        agree = ((model.net(t1) > model.net(t2)) == (f(t1) > f(t2))).double().mean()
    assert agree > 0.85, float(agree)


@pytest.mark.slow  # ~5 CPU-s, most of it importing scikit-learn (issue 17: the default run's 30 s budget)
def test_linear_mle_matches_scikit_learn():
    sklearn = pytest.importorskip("sklearn.linear_model")
    x1, x2, _ = _data(200, 5, 8)
    w_true = torch.tensor([2.0, -1.0, 0.5, 0.0, 1.5], dtype=torch.float64)
    p = torch.sigmoid((x1 - x2) @ w_true)
    y = (torch.rand(200, generator=torch.Generator().manual_seed(1), dtype=torch.float64) < p).double()
    for lam in (1.0, 0.1):
        model = LinearUtility(5, lam=lam)
        model.fit(x1, x2, y)
        ref = sklearn.LogisticRegression(C=1.0 / lam, fit_intercept=False, tol=1e-12, max_iter=10_000)
        ref.fit((x1 - x2).numpy(), y.numpy())
        np.testing.assert_allclose(model.w.numpy(), ref.coef_[0], atol=1e-5)
        # Binary feedback: the MLE on x1 itself.
        model.fit(x1, None, y)
        ref.fit(x1.numpy(), y.numpy())
        np.testing.assert_allclose(model.w.numpy(), ref.coef_[0], atol=1e-5)


def test_sherman_morrison_equals_direct_inverse_after_50_updates(device):
    gen = torch.Generator().manual_seed(0)
    p, reg = 40, 10.0
    gram = GramInverse(p, reg, device=device)
    us = torch.randn(50, p, generator=gen, dtype=torch.float64).to(device)
    for u in us:
        gram.update(u)
    direct = torch.linalg.inv(reg * torch.eye(p, dtype=torch.float64, device=device) + us.T @ us)
    assert_close(gram.inverse(), direct, rtol=0, atol=1e-8)
    q = torch.randn(6, p, generator=gen, dtype=torch.float64).to(device)
    assert_close(gram.quad(q), ((q @ direct) * q).sum(1), rtol=1e-8, atol=1e-10)
    assert gram.n_updates == 50


def test_diagonal_gram_keeps_the_diagonal_of_v(device):
    gen = torch.Generator().manual_seed(1)
    gram = GramInverse(12, 2.0, diagonal=True, device=device)
    us = torch.randn(30, 12, generator=gen, dtype=torch.float64).to(device)
    for u in us:
        gram.update(u)
    diag = 2.0 + (us**2).sum(0)
    assert_close(gram.inverse(), torch.diag(1.0 / diag))
    q = us[:3]
    assert_close(gram.quad(q), (q**2 / diag).sum(1))


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((0, 1.0), {}, "p must be"),
        ((5, 0.0), {}, r"reg \(the prior precision\) must be a finite number > 0"),
        ((6000, 1.0), {}, "too large"),
    ],
)
def test_gram_bad_arguments(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        GramInverse(*args, **kwargs)
    GramInverse(6000, 1.0, diagonal=True)  # the diagonal mode has no size limit


def test_model_bad_arguments():
    with pytest.raises(ValueError, match="lam must be a finite number > 0"):
        LinearUtility(5, lam=0.0)
    with pytest.raises(ValueError, match="reg must be"):
        NeuralUtility(5, reg=float("nan"))
    with pytest.raises(ValueError, match="lr must be a finite number > 0"):
        NeuralUtility(5, lr=0.0)
    with pytest.raises(ValueError, match="train_steps must be an integer >= 1"):
        NeuralUtility(5, train_steps=0)
