"""MAP and its baselines as λ-choosers, behind one registry.

Every method is ``call(R, c, *, seed, normalization="joint", prompt_ids=None) -> Choice``: it picks the
weights λ of the tilt p0·exp(λᵀr) from the reference sample ``R`` (m, n) and the palette ``c`` (m,).

- ``map``: λ* of the dual by L-BFGS-B (exact; the package default).
- ``map-adam``: the official solver, Adam on τ = log λ, lr 0.1, 150 steps, from λ = 1.
- ``sequential-5`` / ``sequential-1``: cyclic one-value-at-a-time alignment, 5 rounds (the official
  default) or a single pass.
- ``equal-weight``: λ ∝ 1 with the same ‖λ‖₁ as MAP's λ* (spec claim 5's baseline).
- ``random-lambda``: the official random-λ Monte Carlo (``assess_postalignment_multivalue`` with
  scaling < 0): 200 draws λ = U(0, s_max)·Dirichlet(1), s_max = 2‖λ*‖₁; keeps the draw that meets the
  palette on R with the smallest KL, else the one with the largest worst-case slack (in sd units).
- ``best-of-k``: keep the best candidate of each prompt on the first value (λ_1 → ∞; represented by
  λ_1 = 1000 / sd(r_1), the others 0).
- ``reference``: λ = 0, no alignment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from paperkit import check_choice, check_seed

from map_palette.dual import Groups, check_problem, ess_kernel, kl_kernel, tilt_kernel
from map_palette.solvers import sequential_lambda, solve_lambda

__all__ = ["METHODS", "Choice", "MethodInfo", "run_method"]


@dataclass(frozen=True)
class Choice:
    """A method's weights and what they realise on the sample it was chosen on.

    Attributes:
        lam: (m,) λ ≥ 0.
        realized: (m,) E_{p_λ} r on R (self-normalised IS).
        kl: empirical KL(p_λ ‖ p0).
        ess: effective sample size of the weights.
        meets: (m,) bool, realized ≥ c − 1e-9.
    """

    lam: np.ndarray
    realized: np.ndarray
    kl: float
    ess: float
    meets: np.ndarray


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: does it solve the constraints, is it the paper's method, the entry point."""

    solves_constraints: bool
    paper_method: bool
    call: Callable[..., Choice]


def _choice(lam: np.ndarray, R: np.ndarray, c: np.ndarray, groups: Groups | None) -> Choice:
    w = tilt_kernel(lam, R, groups)
    real = R @ w
    return Choice(lam, real, kl_kernel(lam, R, groups), ess_kernel(lam, R, groups), real >= c - 1e-9)


def _prep(
    R: object, c: object, normalization: str, prompt_ids: object, seed: int
) -> tuple[np.ndarray, np.ndarray, Groups | None]:
    check_seed(seed)
    R_arr, c_arr, groups = check_problem(R, c, prompt_ids, normalization=normalization)
    assert c_arr is not None
    return R_arr, c_arr, groups


def _map(solver: str) -> Callable[..., Choice]:
    def call(
        R: object, c: object, *, seed: int, normalization: str = "joint", prompt_ids: object = None
    ) -> Choice:
        R_, c_, g = _prep(R, c, normalization, prompt_ids, seed)
        sol = solve_lambda(R_, c_, solver=solver, normalization=normalization, prompt_ids=prompt_ids)
        return _choice(sol.lam, R_, c_, g)

    return call


def _sequential(rounds: int) -> Callable[..., Choice]:
    def call(
        R: object, c: object, *, seed: int, normalization: str = "joint", prompt_ids: object = None
    ) -> Choice:
        R_, c_, g = _prep(R, c, normalization, prompt_ids, seed)
        lam, _ = sequential_lambda(R_, c_, rounds=rounds, normalization=normalization, prompt_ids=prompt_ids)
        return _choice(lam, R_, c_, g)

    return call


def _equal(
    R: object, c: object, *, seed: int, normalization: str = "joint", prompt_ids: object = None
) -> Choice:
    R_, c_, g = _prep(R, c, normalization, prompt_ids, seed)
    star = solve_lambda(R_, c_, normalization=normalization, prompt_ids=prompt_ids).lam
    return _choice(np.full(R_.shape[0], star.sum() / R_.shape[0]), R_, c_, g)


def _random(
    R: object, c: object, *, seed: int, normalization: str = "joint", prompt_ids: object = None
) -> Choice:
    R_, c_, g = _prep(R, c, normalization, prompt_ids, seed)
    m = R_.shape[0]
    s_max = 2.0 * solve_lambda(R_, c_, normalization=normalization, prompt_ids=prompt_ids).lam.sum()
    rng = np.random.default_rng(seed)
    lams = rng.uniform(0.0, s_max, size=(200, 1)) * rng.dirichlet(np.ones(m), size=200)
    sd = np.where(R_.std(axis=1) > 0, R_.std(axis=1), 1.0)
    choices = [_choice(lam, R_, c_, g) for lam in lams]
    slack = np.array([np.min((ch.realized - c_) / sd) for ch in choices])
    kl = np.array([ch.kl for ch in choices])
    ok = slack >= -1e-9
    k = int(np.flatnonzero(ok)[np.argmin(kl[ok])]) if ok.any() else int(np.argmax(slack))
    return choices[k]


def _best_of_k(
    R: object, c: object, *, seed: int, normalization: str = "joint", prompt_ids: object = None
) -> Choice:
    R_, c_, g = _prep(R, c, normalization, prompt_ids, seed)
    lam = np.zeros(R_.shape[0])
    sd = R_[0].std()
    lam[0] = 1000.0 / sd if sd > 0 else 0.0
    return _choice(lam, R_, c_, g)


def _reference(
    R: object, c: object, *, seed: int, normalization: str = "joint", prompt_ids: object = None
) -> Choice:
    R_, c_, g = _prep(R, c, normalization, prompt_ids, seed)
    return _choice(np.zeros(R_.shape[0]), R_, c_, g)


METHODS: dict[str, MethodInfo] = {
    "map": MethodInfo(True, True, _map("lbfgsb")),
    "map-adam": MethodInfo(True, True, _map("adam_log")),
    "sequential-5": MethodInfo(True, True, _sequential(5)),
    "sequential-1": MethodInfo(True, False, _sequential(1)),
    "equal-weight": MethodInfo(False, False, _equal),
    "random-lambda": MethodInfo(False, False, _random),
    "best-of-k": MethodInfo(False, False, _best_of_k),
    "reference": MethodInfo(False, False, _reference),
}


def run_method(name: str, R: object, c: object, **kw: object) -> Choice:
    """Run the registry method ``name`` (one of :data:`METHODS`)."""
    return METHODS[check_choice(name, "name", tuple(METHODS))].call(R, c, **kw)
