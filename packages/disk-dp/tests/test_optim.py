"""DP-SGD and DiSK: noise scale, the filter algebra on a quadratic, the one/two-gradient paths, kappa = 1,
exact restoration of the parameters, the official-code switches, empty batches and bad input."""

from __future__ import annotations

import math

import pytest
import torch
from disk_dp import optim as O
from disk_dp.models import mlp
from disk_dp.quadratic import linear_model, noisy_quadratic_problem, squared_error
from disk_dp.training import cross_entropy
from torch import nn

pytestmark = pytest.mark.usefixtures("torch_one_thread")


class Point(nn.Module):
    """A bare parameter vector x; the closures below supply per-sample gradients of F(x) = x^T A x / 2."""

    def __init__(self, x0: torch.Tensor) -> None:
        super().__init__()
        self.x = nn.Parameter(x0.clone())


def _quadratic_setup(device, kappa=0.7, gamma=0.5, **kw):
    gen = torch.Generator(device=device).manual_seed(3)
    m = torch.randn(4, 4, generator=gen, device=device, dtype=torch.float64)
    a = m @ m.T + torch.eye(4, device=device, dtype=torch.float64)
    model = Point(torch.randn(4, generator=gen, device=device, dtype=torch.float64))
    calls = []

    def closure():
        calls.append(model.x.detach().clone())
        return {"x": (a @ model.x.detach())[None]}  # one "example" whose gradient is A x

    opt = O.DiSK(
        model,
        torch.optim.SGD(model.parameters(), lr=0.1),
        noise_multiplier=0.0,
        max_grad_norm=math.inf,
        expected_batch_size=1,
        kappa=kappa,
        gamma=gamma,
        **kw,
    )
    return model, a, opt, closure, calls


def test_noise_std_is_sigma_c_over_b(device):
    model = nn.Linear(1000, 100, bias=False).to(device)  # 1e5 noise draws
    opt = O.make_dp_sgd(model, 0.1, noise_multiplier=2.0, max_grad_norm=1.0, expected_batch_size=64, seed=0)
    zero = {"weight": torch.zeros(1, 100, 1000, device=device)}
    noise = opt.privatize(zero)["weight"]
    assert noise.std().item() == pytest.approx(2.0 * 1.0 / 64, rel=0.01)
    assert abs(noise.mean().item()) < 4 * 2.0 / 64 / math.sqrt(1e5)


def test_privatize_is_clipped_sum_over_expected_batch_size(device):
    model = nn.Linear(3, 1, bias=False).to(device)
    opt = O.make_dp_sgd(model, 0.1, noise_multiplier=0.0, max_grad_norm=1.0, expected_batch_size=10)
    u = {"weight": torch.tensor([[[3.0, 4.0, 0.0]], [[0.1, 0.0, 0.0]]], device=device)}
    out = opt.privatize(u)["weight"]
    torch.testing.assert_close(out, torch.tensor([[0.6 + 0.1, 0.8, 0.0]], device=device) / 10)


@pytest.mark.parametrize("gamma", [0.5, 0.2, 3 / 7])
def test_filter_algebra_on_a_quadratic(device, gamma):
    kappa = 0.7
    model, a, opt, closure, _ = _quadratic_setup(device, kappa, gamma)
    opt.step(closure)  # t = 0: g_0 = A x_0, d_1 = x_1 - x_0
    for _ in range(3):
        g_prev, d = opt.g_prev["x"].clone(), opt.d["x"].clone()
        x = model.x.detach().clone()
        c = opt.c
        opt.step(closure)
        g = opt.g_prev["x"]
        # ReadMe form
        expected = (1 - kappa) * g_prev + kappa * (c * a @ (x + opt.gamma * d) + (1 - c) * a @ x)
        torch.testing.assert_close(g, expected, rtol=1e-12, atol=1e-12)
        # predict/update form: the new observation A x_t gets weight kappa
        torch.testing.assert_close(g, (1 - kappa) * (g_prev + a @ d) + kappa * a @ x, rtol=1e-12, atol=1e-12)
        torch.testing.assert_close(model.x.detach(), x - 0.1 * g, rtol=1e-14, atol=1e-14)
        torch.testing.assert_close(opt.d["x"], model.x.detach() - x, rtol=0, atol=0)


def test_first_step_uses_x0_only_and_g0_is_the_observation(device):
    model, a, opt, closure, calls = _quadratic_setup(device)
    x0 = model.x.detach().clone()
    opt.step(closure)
    assert len(calls) == 1 and torch.equal(calls[0], x0)
    torch.testing.assert_close(opt.g_prev["x"], a @ x0, rtol=0, atol=0)


def test_one_gradient_path(device):
    kappa = 0.7
    model, a, opt, closure, calls = _quadratic_setup(
        device, kappa, gamma=3 / 7 + 5e-4
    )  # within 1e-3: snapped
    assert (
        opt.c == 1.0
        and opt.gamma == pytest.approx((1 - kappa) / kappa, rel=1e-15)
        and opt.gradients_per_step == 1
    )
    opt.step(closure)
    calls.clear()
    x, d, g_prev = model.x.detach().clone(), opt.d["x"].clone(), opt.g_prev["x"].clone()
    opt.step(closure)
    assert len(calls) == 1  # one gradient evaluation, at x_t + gamma d_t
    torch.testing.assert_close(calls[0], x + opt.gamma * d, rtol=0, atol=1e-15)
    # equals the two-gradient formula with c = 1
    torch.testing.assert_close(opt.g_prev["x"], (1 - kappa) * g_prev + kappa * a @ (x + opt.gamma * d))


def test_two_gradient_path_evaluates_twice(device):
    model, _, opt, closure, calls = _quadratic_setup(device, 0.7, 0.5)
    assert opt.gradients_per_step == 2 and opt.c == pytest.approx(0.3 / 0.35)
    opt.step(closure)
    calls.clear()
    x, d = model.x.detach().clone(), opt.d["x"].clone()
    opt.step(closure)
    assert len(calls) == 2
    assert torch.equal(calls[0], x)
    torch.testing.assert_close(calls[1], x + 0.5 * d, rtol=0, atol=1e-15)


def test_parameters_restored_exactly_after_lookahead(device):
    model = mlp(6, 5, 3, seed=0, device=device)
    gen = torch.Generator(device=device).manual_seed(0)
    x = torch.randn(8, 6, generator=gen, device=device)
    y = torch.randint(0, 3, (8,), generator=gen, device=device)
    opt = O.make_disk_sgd(
        model, 0.37, noise_multiplier=1.0, max_grad_norm=1.0, expected_batch_size=8, gamma=0.123
    )
    closure = O.make_closure(model, cross_entropy, x, y)
    opt.step(closure)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    opt.combined_per_sample(closure)
    for n, p in model.named_parameters():
        assert torch.equal(p.detach(), before[n])


@pytest.mark.parametrize("base", ["sgd", "adam"])
def test_kappa_one_is_the_base_optimizer_bit_for_bit(device, base):
    def run(make):
        model = mlp(6, 5, 3, seed=0, device=device)
        opt = make(model)
        gen = torch.Generator(device=device).manual_seed(1)
        for _ in range(5):
            x = torch.randn(8, 6, generator=gen, device=device)
            y = torch.randint(0, 3, (8,), generator=gen, device=device)
            opt.step(O.make_closure(model, cross_entropy, x, y))
        return [p.detach() for p in model.parameters()]

    dp = {"noise_multiplier": 1.3, "max_grad_norm": 0.5, "expected_batch_size": 8, "seed": 4}
    plain, disk = (O.make_dp_sgd, O.make_disk_sgd) if base == "sgd" else (O.make_dp_adam, O.make_disk_adam)
    a = run(lambda m: plain(m, 0.05, **dp))
    b = run(lambda m: disk(m, 0.05, kappa=1.0, gamma=0.5, **dp))
    for pa, pb in zip(a, b, strict=True):
        assert torch.equal(pa, pb)


def test_ema_ablation_is_disk_with_c_zero(device):
    model, a, opt, closure, calls = _quadratic_setup(device, 0.6, 0.5, finite_difference=False)
    opt.step(closure)
    g_prev, x = opt.g_prev["x"].clone(), model.x.detach().clone()
    calls.clear()
    opt.step(closure)
    assert len(calls) == 1 and torch.equal(calls[0], x)
    torch.testing.assert_close(opt.g_prev["x"], 0.4 * g_prev + 0.6 * a @ x)


def test_least_squares_gradients_make_one_and_two_gradient_paths_agree(device):
    # the gradient is affine in w:
    # c grad f(w + gamma d) + (1 - c) grad f(w) = grad f(w + (1-kappa)/kappa d) for every gamma
    prob = noisy_quadratic_problem(200, 5, 10.0, seed=0)
    x = torch.as_tensor(prob.x[:16], device=device)
    y = torch.as_tensor(prob.y[:16], device=device)
    outs = []
    for gamma in (0.5, 3 / 7, 2.0):
        model = linear_model(5, device=device)
        opt = O.make_disk_sgd(
            model, 0.3, noise_multiplier=0.0, max_grad_norm=1.0, expected_batch_size=16, gamma=gamma
        )
        closure = O.make_closure(model, squared_error, x, y)
        opt.step(closure)
        outs.append(opt.combined_per_sample(closure)["weight"])
    torch.testing.assert_close(outs[0], outs[1], rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(outs[0], outs[2], rtol=1e-10, atol=1e-12)


def test_official_code_switches(device):
    model, a, opt, closure, _ = _quadratic_setup(device, 0.7, 0.5, legacy_weight=True)
    opt.step(closure)
    g_prev, x, d = opt.g_prev["x"].clone(), model.x.detach().clone(), opt.d["x"].clone()
    opt.step(closure)
    u = opt.c * a @ (x + 0.5 * d) + (1 - opt.c) * a @ x
    torch.testing.assert_close(opt.g_prev["x"], 0.7 * g_prev + 0.3 * u)  # new observation weighted 1 - kappa
    m2 = mlp(3, 3, 2)
    scaled = O.DiSK(
        m2,
        torch.optim.SGD(m2.parameters(), lr=0.1),
        noise_multiplier=1.0,
        max_grad_norm=1.0,
        expected_batch_size=4,
        official_noise_scaling=True,
    )
    c = 0.3 / 0.35
    assert scaled.effective_noise_multiplier == pytest.approx(1.0 / math.sqrt(c**2 + (1 - c) ** 2))
    assert scaled.effective_noise_multiplier == pytest.approx(1.1507, abs=1e-4)


def test_empty_batch_is_a_noise_only_step(device):
    model = mlp(4, 3, 2, seed=0, device=device)
    empty_x, empty_y = torch.zeros(0, 4, device=device), torch.zeros(0, dtype=torch.long, device=device)
    before = [p.detach().clone() for p in model.parameters()]
    quiet = O.make_disk_sgd(model, 0.1, noise_multiplier=0.0, max_grad_norm=1.0, expected_batch_size=4)
    quiet.step(O.make_closure(model, cross_entropy, empty_x, empty_y))
    assert quiet.steps == 1 and all(
        torch.equal(p, b) for p, b in zip(model.parameters(), before, strict=True)
    )
    noisy = O.make_dp_sgd(model, 0.1, noise_multiplier=1.0, max_grad_norm=1.0, expected_batch_size=4)
    noisy.step(O.make_closure(model, cross_entropy, empty_x, empty_y))
    assert noisy.steps == 1 and not torch.equal(next(model.parameters()).detach(), before[0])


def test_bad_input():
    model = mlp(3, 3, 2)
    dp = {"noise_multiplier": 1.0, "max_grad_norm": 1.0, "expected_batch_size": 4}
    for kappa in (0.0, -0.1, 1.01):
        with pytest.raises(
            ValueError, match=r"kappa \(the Kalman gain\) must be a finite number in \(0, 1\]"
        ):
            O.make_disk_sgd(model, 0.1, kappa=kappa, **dp)
    for gamma in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="gamma must be a finite number > 0"):
            O.make_disk_sgd(model, 0.1, gamma=gamma, **dp)
    with pytest.raises(TypeError, match=r"kappa \(the Kalman gain\) must be a finite number"):
        O.make_disk_sgd(model, 0.1, kappa="0.7", **dp)  # type: ignore[arg-type]
    with pytest.warns(UserWarning, match="amplifies the gradient difference"):
        O.make_disk_sgd(model, 0.1, kappa=0.5, gamma=0.1, **dp)  # c = 10
    with pytest.raises(ValueError, match="noise_multiplier must be a finite number >= 0"):
        O.make_dp_sgd(model, 0.1, noise_multiplier=-1.0, max_grad_norm=1.0, expected_batch_size=4)
    with pytest.raises(ValueError, match="max_grad_norm = inf is only allowed with noise_multiplier = 0"):
        O.make_dp_sgd(model, 0.1, noise_multiplier=1.0, max_grad_norm=math.inf, expected_batch_size=4)
    with pytest.raises(ValueError, match="expected_batch_size must be a finite number > 0"):
        O.make_dp_sgd(model, 0.1, noise_multiplier=1.0, max_grad_norm=1.0, expected_batch_size=0)
    with pytest.raises(ValueError, match="lr must be a finite number > 0"):
        O.make_dp_adam(model, -0.1, **dp)
    with pytest.raises(TypeError, match=r"generator must be a torch.Generator"):
        O.make_dp_sgd(model, 0.1, generator=3, **dp)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="exactly the model's trainable parameters"):
        O.DPOptimizer(model, torch.optim.SGD(mlp(3, 3, 2).parameters(), lr=0.1), **dp)
    with pytest.raises(TypeError, match=r"base must be a torch.optim.Optimizer"):
        O.DPOptimizer(model, "sgd", **dp)  # type: ignore[arg-type]
    bn = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
    with pytest.raises(ValueError, match="GroupNorm"):
        O.make_disk_adam(bn, 0.1, **dp)


def test_nonfinite_per_sample_gradients_are_refused_or_dropped_and_counted():
    """One NaN example in 8 used to make every parameter NaN after one step (clipping cannot bound a NaN)."""
    from disk_dp import make_closure, make_dp_sgd, mlp
    from disk_dp.training import cross_entropy

    x = torch.randn(8, 4, generator=torch.Generator().manual_seed(0))
    x[3, 1] = float("nan")
    y = torch.zeros(8, dtype=torch.long)
    dp = {"noise_multiplier": 1.0, "max_grad_norm": 1.0, "expected_batch_size": 8.0}
    model = mlp(4, 3, 2, seed=0)
    before = [p.detach().clone() for p in model.parameters()]
    opt = make_dp_sgd(model, 0.1, **dp)
    with pytest.raises(ValueError, match="1 of 8 per-sample gradients have NaN or inf"):
        opt.step(make_closure(model, cross_entropy, x, y))
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))  # no step taken
    dropped = make_dp_sgd(model, 0.1, nonfinite="drop", seed=5, **dp)
    dropped.step(make_closure(model, cross_entropy, x, y))
    assert dropped.nonfinite_dropped == 1 and all(torch.isfinite(p).all() for p in model.parameters())
    # dropping equals stepping on the 7 finite examples with the same noise
    ref_model = mlp(4, 3, 2, seed=0)
    ref = make_dp_sgd(ref_model, 0.1, seed=5, **dp)
    keep = torch.arange(8) != 3
    ref.step(make_closure(ref_model, cross_entropy, x[keep], y[keep]))
    for a, b in zip(model.parameters(), ref_model.parameters(), strict=True):
        torch.testing.assert_close(a, b)
    with pytest.raises(ValueError, match="nonfinite must be 'raise' or 'drop'"):
        make_dp_sgd(model, 0.1, nonfinite="skip", **dp)
