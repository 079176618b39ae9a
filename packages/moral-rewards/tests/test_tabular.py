"""The memory-1 REINFORCE baseline reaches the analytic myopic optimum of each reward (spec)."""

from __future__ import annotations

import numpy as np
from moral_rewards.evaluate import p_action, p_defect_after
from moral_rewards.tabular import RunningMoments, train_tabular


def _final(sched, opponent="TFT"):
    res = train_tabular(sched, opponent=opponent, n_runs=8, seed=0)
    return res, res.log.last_fraction(0.2)


def test_myopic_optima():
    _, g = _final((("game", 300),))
    assert p_action(g, 1, axis=None) > 0.9  # D dominates the per-step game payoff
    res, de = _final((("de", 300),))
    assert p_defect_after(de, 0, axis=None) < 0.05  # never D after O's C
    assert (res.theta[:, [0, 2]] < -2).all()  # the logits of the two "O played C" states
    _, ut = _final((("ut", 300),), opponent="Random")
    assert p_action(ut, 0, axis=None) > 0.9  # C adds 2 to the collective payoff whatever O plays
    res, _gde = _final((("game+de", 300),))
    assert (res.theta[:, [0, 2]] < 0).all() and (res.theta[:, [1, 3]] > 0).all()  # TFT-like


def test_running_moments_match_numpy():
    rng = np.random.default_rng(0)
    x = rng.normal(3, 2, size=(2, 40))
    m = RunningMoments((2,))
    for chunk in np.split(x, 8, axis=1):
        m.update(chunk)
    np.testing.assert_allclose(m.mean, x.mean(1))
    np.testing.assert_allclose(m.var, x.var(1))
