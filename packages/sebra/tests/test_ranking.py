"""Stage 1: the up-weighted loss against autograd and closed forms; the steered-ERM ranking's invariants."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sebra.ranking import RankConfig, erm_rank, sebra_rank, upweighted_ce
from sebra.training import draw_indices


def test_upweighted_ce_is_detached_confidence_times_ce():
    g = torch.Generator().manual_seed(0)
    logits, y = torch.randn(7, 3, generator=g), torch.randint(0, 3, (7,), generator=g)
    p_y = torch.softmax(logits, 1)[torch.arange(7), y]
    ce = -torch.log(p_y)
    assert upweighted_ce(logits, y, 0.7) == pytest.approx((p_y**0.7 * ce).numpy(), rel=1e-6)
    assert upweighted_ce(logits, y, 0.0) == pytest.approx(ce.numpy(), rel=1e-6)


def test_upweighted_ce_gradient_is_weight_times_ce_gradient():
    """2-class toy: d/dz [p^b CE] with p detached = p^b (softmax(z) - onehot(y)), no product-rule term."""
    z = torch.tensor([[1.5, -0.5], [0.2, 0.9]], requires_grad=True)
    y = torch.tensor([0, 0])
    upweighted_ce(z, y, 0.7).sum().backward()
    p = torch.softmax(z.detach(), 1)
    onehot = torch.nn.functional.one_hot(y, 2).float()
    expected = p[torch.arange(2), y, None] ** 0.7 * (p - onehot)
    assert z.grad.numpy() == pytest.approx(expected.numpy(), rel=1e-5)


def _linear_toy(n=400, seed=0):
    """x1 = core (weak), x2 = spurious (strong, 90% aligned with y)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    aligned = rng.random(n) < 0.9
    s = np.where(aligned, y, 1 - y)
    x = np.stack([(2 * y - 1) * 0.5 + rng.normal(0, 1, n), (2 * s - 1) * 3.0 + rng.normal(0, 0.3, n)], 1)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y), torch.tensor(aligned)


def _linear(seed):
    torch.manual_seed(seed)
    return torch.nn.Linear(2, 2)


def test_linear_toy_aligned_samples_are_ranked_first():
    x, y, aligned = _linear_toy()
    cfg = RankConfig(lr=0.05, batch_size=32, max_epochs=30)
    res = sebra_rank(x, y, cfg, seed=0, model=_linear(0))
    r = res.ranks.double()
    assert r[aligned].mean() + 2 < r[~aligned].mean()


def test_selection_is_monotone_and_each_sample_gets_one_rank():
    x, y, _ = _linear_toy(200, seed=1)
    cfg = RankConfig(lr=0.05, batch_size=32, max_epochs=12)
    res = sebra_rank(x, y, cfg, seed=1, model=_linear(1))
    rem = res.remaining
    assert np.all(np.diff(rem) <= 0) and len(rem) <= 12
    epochs = len(rem)
    # samples removed at epoch t are exactly the drop in the remaining count: one rank per sample
    counts = [int((res.ranks[res.ranked] == t).sum()) for t in range(1, epochs + 1)]
    before = np.r_[len(x), rem[:-1]]
    assert counts == (before - rem).tolist()
    assert int(res.ranks[res.ranked].min()) >= 1
    assert torch.all(res.ranks[~res.ranked] == cfg.max_epochs + 1)


def test_sampler_never_draws_removed_samples():
    w = torch.tensor([1.0, 0.0, 1.0, 0.0, 1.0])
    idx = draw_indices(5, w, torch.Generator().manual_seed(0))
    assert len(idx) == 5 and set(idx.tolist()) <= {0, 2, 4}
    perm = draw_indices(5, None, torch.Generator().manual_seed(0))
    assert sorted(perm.tolist()) == [0, 1, 2, 3, 4]


def test_p_crit_zero_ranks_everything_at_epoch_one_and_one_ranks_nothing():
    x, y, _ = _linear_toy(64, seed=2)
    all_one = sebra_rank(x, y, RankConfig(p_crit=0.0, max_epochs=3), seed=0, model=_linear(0))
    assert torch.all(all_one.ranks == 1) and all_one.n_buckets == 1 and all_one.remaining.tolist() == [0]
    none = sebra_rank(x, y, RankConfig(p_crit=1.0, max_epochs=3), seed=0, model=_linear(0))
    assert torch.all(none.ranks == 4) and not bool(none.ranked.any())
    code = sebra_rank(x, y, RankConfig(p_crit=1.0, max_epochs=2, unranked="code"), seed=0, model=_linear(0))
    assert torch.all(code.ranks == -1)


def test_erm_rank_is_first_correct_epoch():
    x, y, aligned = _linear_toy(300, seed=3)
    res = erm_rank(x, y, RankConfig(lr=0.05, batch_size=32, max_epochs=20), seed=0, model=_linear(0))
    assert res.ranks[aligned].double().mean() < res.ranks[~aligned].double().mean()
    assert np.all(np.diff(res.remaining) <= 0)


@pytest.mark.parametrize(
    ("kw", "fragment"),
    [({"p_crit": 1.5}, "p_crit"), ({"beta_inv": -0.1}, "beta_inv"), ({"max_epochs": 0}, "max_epochs"),
     ({"unranked": "first"}, "unranked")],
)  # fmt: skip
def test_bad_rank_config(kw, fragment):
    with pytest.raises(ValueError, match=fragment):
        RankConfig(**kw)


def test_single_class_and_tiny_classes_are_refused():
    x = torch.zeros(6, 1, 16, 16)
    with pytest.raises(ValueError, match="single class"):
        sebra_rank(x, torch.zeros(6, dtype=torch.int64), seed=0)
    with pytest.raises(ValueError, match="smaller than its rank buckets"):
        erm_rank(x, torch.tensor([0, 0, 0, 0, 0, 1]), seed=0)
    with pytest.raises(ValueError, match="beta_inv"):
        upweighted_ce(torch.zeros(2, 2), torch.zeros(2, dtype=torch.int64), -1.0)
