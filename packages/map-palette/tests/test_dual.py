"""The dual against finite differences, closed forms and the identities the spec lists."""

from __future__ import annotations

import numpy as np
import pytest
from map_palette.dual import (
    Groups,
    dual_gradient,
    dual_objective,
    effective_sample_size,
    empirical_kl,
    realized_levels,
    tilt_weights,
)
from map_palette.solvers import solve_lambda


def _R(m: int = 3, n: int = 400, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, m)) @ rng.standard_normal((m, n)) + rng.uniform(-1, 1, size=(m, 1))


@pytest.mark.parametrize("normalization", ["joint", "per_prompt"])
def test_dual_is_concave_and_its_gradient_is_c_minus_realized(normalization: str) -> None:
    R, rng = _R(), np.random.default_rng(1)
    c = R.mean(axis=1) + 0.2
    ids = np.repeat(np.arange(40), 10)
    kw = {"normalization": normalization, "prompt_ids": ids}
    for _ in range(20):
        a, b = rng.uniform(0, 2, size=3), rng.uniform(0, 2, size=3)
        mid = dual_objective((a + b) / 2, R, c, **kw)
        assert mid >= 0.5 * (dual_objective(a, R, c, **kw) + dual_objective(b, R, c, **kw)) - 1e-12
    lam, h = rng.uniform(0, 1, size=3), 1e-6
    fd = np.array(
        [
            (dual_objective(lam + h * e, R, c, **kw) - dual_objective(lam - h * e, R, c, **kw)) / (2 * h)
            for e in np.eye(3)
        ]
    )
    assert fd == pytest.approx(c - realized_levels(lam, R, **kw), abs=1e-6)


def test_bernoulli_reward_closed_form() -> None:
    """r ∈ {0, 1} with mean ρ: λ* = logit(c) − logit(ρ) for ρ < c < 1."""
    R = np.r_[np.ones(300), np.zeros(700)][None]
    rho, c = 0.3, 0.55
    sol = solve_lambda(R, [c])
    logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    assert sol.lam[0] == pytest.approx(logit(c) - logit(rho), rel=1e-6)
    assert sol.realized[0] == pytest.approx(c, abs=1e-8)
    with pytest.raises(ValueError, match="c\\[0\\]"):
        solve_lambda(R, [1.2])
    assert solve_lambda(R, [1.0]).status == "boundary"


def test_satisfied_palette_needs_no_tilt() -> None:
    R = _R()
    sol = solve_lambda(R, R.mean(axis=1) - 0.1)
    assert (
        np.all(sol.lam == 0)
        and sol.kl == pytest.approx(0.0, abs=1e-14)
        and sol.ess == pytest.approx(R.shape[1])
    )


def test_shift_and_scale_invariances() -> None:
    R = _R()
    c = R.mean(axis=1) + np.array([0.3, 0.2, 0.1])
    base = solve_lambda(R, c).lam
    shift = np.array([[5.0], [-2.0], [0.5]])
    assert solve_lambda(R + shift, c + shift[:, 0]).lam == pytest.approx(base, rel=1e-6, abs=1e-9)
    s = np.array([2.0, 0.5, 3.0])
    assert solve_lambda(R * s[:, None], c * s).lam == pytest.approx(base / s, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("normalization", ["joint", "per_prompt"])
def test_strong_duality(normalization: str) -> None:
    R = _R(n=600)
    ids = np.repeat(np.arange(60), 10)
    c = R.mean(axis=1) + np.array([0.4, 0.3, -0.5])
    sol = solve_lambda(R, c, normalization=normalization, prompt_ids=ids)
    assert sol.feasible and sol.kl == pytest.approx(sol.g, abs=1e-9)
    w = tilt_weights(sol.lam, R, Groups.of(ids) if normalization == "per_prompt" else None)
    if normalization == "joint":
        assert sol.kl == pytest.approx(float(np.sum(w * np.log(R.shape[1] * w))), abs=1e-12)


def test_per_prompt_equals_joint_when_every_prompt_has_the_same_samples() -> None:
    base = _R(n=12)
    R = np.tile(base, (1, 25))
    ids = np.repeat(np.arange(25), 12)
    c = base.mean(axis=1) + 0.2
    joint = solve_lambda(R, c)
    per = solve_lambda(R, c, normalization="per_prompt", prompt_ids=ids)
    assert per.lam == pytest.approx(joint.lam, rel=1e-7, abs=1e-9)
    assert per.kl == pytest.approx(joint.kl, abs=1e-10)
    lam = np.array([0.3, 0.1, 0.7])
    assert realized_levels(lam, R, normalization="per_prompt", prompt_ids=ids) == pytest.approx(
        realized_levels(lam, R)
    )


def test_log_sum_exp_keeps_huge_tilts_finite() -> None:
    R = _R() * 1e3
    lam = np.full(3, 50.0)
    w = tilt_weights(lam, R)
    assert np.isfinite(w).all() and w.sum() == pytest.approx(1.0) and w.max() > 0
    assert np.isfinite(dual_gradient(lam, R, R.mean(axis=1))).all()
    assert effective_sample_size(lam, R) == pytest.approx(1.0, abs=1e-6)
    assert empirical_kl(lam, R) == pytest.approx(np.log(R.shape[1]), abs=1e-6)


def test_bad_inputs_name_the_argument() -> None:
    R = _R()
    with pytest.raises(ValueError, match="R must be finite"):
        dual_objective(np.zeros(3), np.where(R > 1, np.nan, R), R.mean(axis=1))
    with pytest.raises(ValueError, match="no samples"):
        dual_objective(np.zeros(3), np.zeros((3, 0)), np.zeros(3))
    with pytest.raises(ValueError, match="c must have one target per value"):
        dual_objective(np.zeros(3), R, np.zeros(2))
    with pytest.raises(ValueError, match="at least one value"):
        dual_objective(np.zeros(0), np.zeros((0, 5)), np.zeros(0))
    with pytest.raises(ValueError, match="prompt_ids"):
        realized_levels(np.zeros(3), R, normalization="per_prompt")
    with pytest.raises(ValueError, match="normalization"):
        realized_levels(np.zeros(3), R, normalization="global")
    with pytest.raises(ValueError, match="lam must have one weight"):
        realized_levels(np.zeros(2), R)
