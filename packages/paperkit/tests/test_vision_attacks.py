"""pgd_linf against closed forms and a brute force over the vertices of the box."""

from __future__ import annotations

import itertools

import pytest

torch = pytest.importorskip("torch")

from paperkit.vision import pgd_linf  # noqa: E402


def _linear(w, b):
    model = torch.nn.Linear(w.shape[1], w.shape[0]).double()
    with torch.no_grad():
        model.weight.copy_(w)
        model.bias.copy_(b)
    return model


def test_two_class_linear_model_reaches_the_closed_form_optimum():
    """For 2 classes CE is monotone in the margin (w_y - w_o).x, so the optimum is x - eps sign(w_y - w_o)."""
    g = torch.Generator().manual_seed(0)
    w = torch.randn(2, 6, generator=g, dtype=torch.float64)
    b = torch.randn(2, generator=g, dtype=torch.float64)
    x = torch.rand(5, 6, generator=g, dtype=torch.float64) * 0.5 + 0.25
    y = torch.tensor([0, 1, 0, 1, 1])
    eps = 0.1
    adv = pgd_linf(_linear(w, b), x, y, eps=eps, alpha=0.03, steps=10, random_start=True, seed=2)
    d = w[y] - w[1 - y]
    torch.testing.assert_close(adv, x - eps * d.sign())


def test_pgd_matches_brute_force_over_the_clipped_box_vertices():
    """A linear model's CE is convex in x, so its max over the box [x-eps, x+eps] n [0, 1] is at a vertex."""
    g = torch.Generator().manual_seed(1)
    w, b = torch.randn(2, 4, generator=g, dtype=torch.float64), torch.zeros(2, dtype=torch.float64)
    x = torch.tensor([[0.05, 0.5, 0.97, 0.3]], dtype=torch.float64)
    y = torch.tensor([1])
    eps = 0.2
    model = _linear(w, b)
    adv = pgd_linf(model, x, y, eps=eps, steps=20, random_start=False)
    lo, hi = (x - eps).clamp(0, 1), (x + eps).clamp(0, 1)
    best = max(
        torch.nn.functional.cross_entropy(model(torch.where(torch.tensor(v)[None].bool(), hi, lo)), y).item()
        for v in itertools.product([0, 1], repeat=4)
    )
    got = torch.nn.functional.cross_entropy(model(adv), y).item()
    assert got == pytest.approx(best, rel=1e-9)
    assert (adv - x).abs().max() <= eps + 1e-12 and adv.min() >= 0 and adv.max() <= 1


def test_targeted_zero_steps_and_mode_restored(device):
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.BatchNorm1d(3)).to(device)
    x = torch.rand(4, 3, device=device)
    y = torch.zeros(4, dtype=torch.int64, device=device)
    assert torch.equal(pgd_linf(model, x, y, eps=0.1, steps=0, random_start=False), x)
    before = torch.nn.functional.cross_entropy(model.eval()(x), y).item()
    model.train()
    adv = pgd_linf(model, x, y, eps=0.1, steps=5, random_start=False, targeted=True)
    assert model.training
    assert torch.nn.functional.cross_entropy(model.eval()(adv), y).item() < before


def test_pgd_rejects_bad_arguments():
    model, x, y = torch.nn.Linear(2, 2), torch.rand(3, 2), torch.zeros(3, dtype=torch.int64)
    with pytest.raises(ValueError, match="eps"):
        pgd_linf(model, x, y, eps=-0.1)
    with pytest.raises(ValueError, match="y must"):
        pgd_linf(model, x, y[:2], eps=0.1)
    with pytest.raises(ValueError, match="clip"):
        pgd_linf(model, x, y, eps=0.1, clip=(1.0, 0.0))


@pytest.mark.slow
def test_pgd_matches_torchattacks_without_random_start():
    """Bench group: the same iterates as torchattacks.PGD (random_start=False) on a small CNN."""
    torchattacks = pytest.importorskip("torchattacks")
    from paperkit.vision import load_digits, small_cnn

    split = load_digits(8, seed=0)
    model = small_cnn(channels=(8, 16), seed=0).eval()
    x, y = split.x_test[:64], split.y_test[:64]
    ref = torchattacks.PGD(model, eps=0.1, alpha=0.02, steps=10, random_start=False)(x, y)
    ours = pgd_linf(model, x, y, eps=0.1, alpha=0.02, steps=10, random_start=False)
    torch.testing.assert_close(ours, ref, atol=1e-6, rtol=0)
