"""PGD and APGD-CE: the eps-ball, the pixel range, loss ascent, an independent PGD (paperkit.vision)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from arat.attacks import apgd_ce, apgd_checkpoints, pgd
from arat.evaluate import EvalConfig, robust_accuracy
from arat.models import backbone
from paperkit.vision import pgd_linf


@pytest.fixture(scope="module")
def problem():
    g = torch.Generator().manual_seed(0)
    model = backbone(channels=(4, 4, 4, 4), split_bn=False, seed=0).eval()
    x = torch.rand(32, 1, 8, 8, generator=g)
    y = torch.randint(0, 10, (32,), generator=g)
    return model, x, y


@pytest.mark.parametrize("loss", ["ce", "cw", "kl"])
def test_pgd_stays_in_the_ball_and_pixel_range(problem, loss):
    model, x, y = problem
    adv = pgd(model, x, y, eps=0.2, steps=5, loss=loss, generator=torch.Generator().manual_seed(1))
    assert float((adv - x).abs().max()) <= 0.2 + 1e-6 and float(adv.min()) >= 0 and float(adv.max()) <= 1


def test_pgd_raises_the_loss_over_its_random_start(problem):
    model, x, y = problem
    start = pgd(model, x, y, eps=0.3, steps=0, generator=torch.Generator().manual_seed(2))
    adv = pgd(model, x, y, eps=0.3, steps=10, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        assert float(F.cross_entropy(model(adv), y)) > float(F.cross_entropy(model(start), y))


def test_pgd_zero_steps_without_start_returns_x(problem):
    model, x, y = problem
    assert torch.equal(pgd(model, x, y, eps=0.3, steps=0, start="none"), x)


def test_pgd_matches_paperkit_vision_pgd_linf(problem):
    """Same start draw, same steps, eval mode: our PGD-CE equals paperkit.vision's independent one."""
    model, x, y = problem
    ours = pgd(model, x, y, eps=0.25, alpha=0.05, steps=6, generator=torch.Generator().manual_seed(4))
    ref = pgd_linf(model, x, y, eps=0.25, alpha=0.05, steps=6, seed=4)
    torch.testing.assert_close(ours, ref, rtol=0, atol=1e-6)


def test_pgd_train_mode_updates_bn_statistics_and_restores_mode(problem):
    _, x, y = problem
    model = backbone(channels=(8, 8, 8, 8), split_bn=False, seed=0).eval()
    bn = model[1]
    before = bn.running_mean.clone()
    pgd(model, x, y, eps=0.2, steps=2, train_mode=False)
    assert torch.equal(before, bn.running_mean) and not model.training
    pgd(model, x, y, eps=0.2, steps=2, train_mode=True)
    assert not torch.equal(before, bn.running_mean) and not model.training


def test_apgd_checkpoints_follow_croce_hein():
    assert apgd_checkpoints(100) == [22, 41, 57, 70, 80, 87, 93, 99]


def test_apgd_is_at_least_as_strong_as_its_start_and_in_the_ball(problem):
    model, x, y = problem
    adv = apgd_ce(model, x, y, eps=0.3, steps=10, generator=torch.Generator().manual_seed(5))
    assert float((adv - x).abs().max()) <= 0.3 + 1e-6 and float(adv.min()) >= 0 and float(adv.max()) <= 1
    with torch.no_grad():
        fooled_apgd = (model(adv).argmax(1) != y).float().mean()
        fooled_clean = (model(x).argmax(1) != y).float().mean()
    assert float(fooled_apgd) >= float(fooled_clean)


def test_robust_accuracy_worst_is_below_each_attack(problem):
    model, x, y = problem
    r = robust_accuracy(model, x, y, EvalConfig(eps=0.1, steps=3, restarts=1, apgd_steps=5), seed=0)
    assert r["worst"] <= min(r["pgd_ce"], r["pgd_cw"], r["apgd_ce"]) <= r["clean"]


def test_attack_bad_inputs(problem):
    model, x, y = problem
    with pytest.raises(ValueError, match="eps"):
        pgd(model, x, y, eps=-0.1)
    with pytest.raises(ValueError, match="steps"):
        pgd(model, x, y, eps=0.1, steps=-1)
    with pytest.raises(ValueError, match="steps"):
        apgd_ce(model, x, y, eps=0.1, steps=0)
    with pytest.raises(ValueError, match="eps"):
        apgd_ce(model, x, y, eps=-0.1)
    with pytest.raises(ValueError, match="x must hold pixels"):
        pgd(model, x + 2, y, eps=0.1)
    with pytest.raises(ValueError, match="loss"):
        pgd(model, x, y, eps=0.1, loss="mse")
    with pytest.raises(ValueError, match="eps"):
        EvalConfig(eps=-1.0)
    with pytest.raises(ValueError, match="steps"):
        EvalConfig(steps=0)
