"""Solving MAP: the feasibility LP, the dual by L-BFGS-B or by the official Adam on log λ, and
sequential alignment.

- Feasibility (spec step 6): the palette is reachable by reweighting the sample iff some w in the simplex
  (per prompt: w_x in the simplex of prompt x, each prompt weighted 1/P) has R w ≥ c. The LP
  ``max_{w, t} t  s.t.  (R w − c)_i / sd_i ≥ t`` gives the margin t* in units of each value's standard
  deviation: t* > 0 strictly feasible (finite λ*), t* = 0 boundary (λ* = ∞), t* < 0 infeasible.
- ``solver="lbfgsb"`` maximises g_n over the box λ ≥ 0 with its analytic gradient (returns exact zeros).
- ``solver="adam_log"`` is the official recipe (``AlignValues.optimize_lambda``): τ = log λ, τ_0 = 0
  (λ = 1), Adam(lr 0.1, betas (0.9, 0.999), eps 1e-8) for 150 steps on −g, failure when λ is NaN/Inf.
- Sequential alignment (spec step 8; ``sequential_optimize_lambda_multiround``): cyclic coordinate ascent
  on g from λ = 0, value by value, for ``rounds`` rounds; each coordinate step maximises g in λ_i alone
  (exactly with ``"lbfgsb"``; with ``"adam_log"`` as the official code: λ_i reset to 1, 150 Adam steps).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from paperkit import check_choice, check_int, check_number, check_positive
from scipy.optimize import linprog, minimize

from map_palette.dual import (
    Groups,
    check_problem,
    dual_gradient,
    dual_value,
    ess_kernel,
    kl_ceiling,
    kl_kernel,
    tilt_kernel,
)

__all__ = [
    "SOLVERS",
    "Solution",
    "adam_log_ascent",
    "box_ascent",
    "feasibility_margin",
    "is_feasible",
    "lbfgsb_ascent",
    "newton_polish",
    "sequential_lambda",
    "solve_lambda",
]

SOLVERS = ("lbfgsb", "adam_log")
BOUNDARY_TOL = 1e-6  # LP margins within this band (in sd units) are reported as "boundary"
LOW_ESS = 10.0  # below this effective sample size the realised levels are unreliable (spec edge cases)


@dataclass(frozen=True)
class Solution:
    """The solved dual.

    Attributes:
        lam: (m,) λ* ≥ 0 (for an infeasible palette: the solver's last iterate).
        status: ``"feasible"``, ``"boundary"`` or ``"infeasible"`` (from the LP oracle).
        feasible: status == "feasible".
        g: g_n(λ) at ``lam``.
        realized: (m,) E_{p_λ} r by self-normalised importance sampling.
        kl: empirical KL(p_λ ‖ p0).
        ess: effective sample size of the weights.
        iterations: optimiser iterations used.
        lp_margin: the LP margin t* (sd units; > 0 strictly feasible).
        dual_exceeded_ceiling: the dual alone certified infeasibility (g rose above :func:`kl_ceiling`) or
            the official NaN/Inf rule fired.
    """

    lam: np.ndarray
    status: str
    feasible: bool
    g: float
    realized: np.ndarray
    kl: float
    ess: float
    iterations: int
    lp_margin: float
    dual_exceeded_ceiling: bool


def _sd(R: np.ndarray) -> np.ndarray:
    sd = R.std(axis=1)
    return np.where(sd > 0, sd, 1.0)


def _margin(R: np.ndarray, c: np.ndarray, groups: Groups | None) -> float:
    m, n = R.shape
    D = (R - c[:, None]) / _sd(R)[:, None]  # (m, n) standardised slacks
    if groups is None:
        # LP duality: max_{w∈Δ_n} min_i (D w)_i = min_{μ∈Δ_m} max_k μᵀD_k (m + 1 variables, faster).
        A_ub = np.hstack([D.T, -np.ones((n, 1))])
        res = linprog(
            np.r_[np.zeros(m), 1.0],
            A_ub=A_ub,
            b_ub=np.zeros(n),
            A_eq=np.r_[np.ones(m), 0.0][None],
            b_eq=[1.0],
            bounds=[(0, None)] * m + [(None, None)],
            method="highs",
        )
        if res.status != 0:  # pragma: no cover - the LP is always feasible and bounded
            raise RuntimeError(f"feasibility LP failed: {res.message}")
        return float(res.fun)
    # per prompt: variables (w_1..w_n, t); max t s.t. D w >= t, each prompt's weights sum to 1/P
    A_ub = np.hstack([-D, np.ones((m, 1))])
    A_eq = sp.csr_matrix((np.ones(n), (groups.inverse, np.arange(n))), shape=(groups.n_prompts, n + 1))
    cost = np.zeros(n + 1)
    cost[-1] = -1.0
    res = linprog(
        cost,
        A_ub=A_ub,
        b_ub=np.zeros(m),
        A_eq=A_eq,
        b_eq=np.full(groups.n_prompts, 1.0 / groups.n_prompts),
        bounds=[(0, None)] * n + [(None, None)],
        method="highs",
    )
    if res.status != 0:  # pragma: no cover
        raise RuntimeError(f"feasibility LP failed: {res.message}")
    return float(-res.fun)


def _max_achievable(R: np.ndarray, groups: Groups | None) -> np.ndarray:
    if groups is None:
        return R.max(axis=1)
    return np.maximum.reduceat(R[:, groups.order], groups.starts, axis=1).mean(axis=1)


def _check_reachable(R: np.ndarray, c: np.ndarray, groups: Groups | None) -> None:
    top = _max_achievable(R, groups)
    bad = np.flatnonzero(c > top + 1e-12 * np.maximum(1.0, np.abs(top)))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"c[{i}] = {c[i]:.6g} is above the largest achievable value {top[i]:.6g} of value {i} "
            "(its maximum reward on the sample): no reweighting reaches it; lower the target"
        )


def feasibility_margin(
    R: object, c: object, *, normalization: str = "joint", prompt_ids: object | None = None
) -> float:
    """The LP margin t* (module docstring): > 0 strictly feasible, 0 boundary, < 0 infeasible."""
    R_arr, c_arr, groups = check_problem(R, c, prompt_ids, normalization=normalization)
    assert c_arr is not None
    return _margin(R_arr, c_arr, groups)


def is_feasible(
    R: object, c: object, *, normalization: str = "joint", prompt_ids: object | None = None
) -> bool:
    """Does some reweighting of the sample reach the palette strictly (LP margin > 1e-6)?"""
    return feasibility_margin(R, c, normalization=normalization, prompt_ids=prompt_ids) > BOUNDARY_TOL


def lbfgsb_ascent(
    R: np.ndarray,
    c: np.ndarray,
    groups: Groups | None,
    *,
    lam0: np.ndarray,
    free: np.ndarray,
    max_iter: int,
    stop_above: float = np.inf,
) -> tuple[np.ndarray, int, float]:
    """Maximise g over λ_free ≥ 0 (others fixed) by L-BFGS-B: (λ, iterations, the largest g seen)."""

    def value_and_grad(x: np.ndarray) -> tuple[float, np.ndarray]:
        lam = lam0.copy()
        lam[free] = x
        return dual_value(lam, R, c, groups), dual_gradient(lam, R, c, groups)[free]

    x, nit, best = box_ascent(value_and_grad, lam0[free], max_iter=max_iter, stop_above=stop_above)
    lam = lam0.copy()
    lam[free] = x
    return lam, nit, best


def newton_polish(
    lam: np.ndarray, R: np.ndarray, c: np.ndarray, groups: Groups | None, *, steps: int = 5
) -> np.ndarray:
    """A few Newton steps on the positive coordinates of λ (∇²g = −Cov_w(r), within prompts for the
    per-prompt dual): takes L-BFGS-B's answer to machine precision; a step is kept only if it shrinks
    the gradient and keeps λ ≥ 0."""
    lam = lam.copy()
    for _ in range(steps):
        act = np.flatnonzero(lam > 0)
        if act.size == 0:
            break
        w = tilt_kernel(lam, R, groups)
        if groups is None:
            centred = R - (R @ w)[:, None]
        else:
            means = np.add.reduceat((R * w)[:, groups.order], groups.starts, axis=1) * groups.n_prompts
            centred = R - means[:, groups.inverse]
        H = (centred[act] * w) @ centred[act].T
        grad = (c - R @ w)[act]
        try:
            step = np.linalg.solve(H, grad)
        except np.linalg.LinAlgError:
            break
        new = lam.copy()
        new[act] = lam[act] + step
        new_grad = dual_gradient(new, R, c, groups)[act]
        if np.any(new[act] < 0) or np.linalg.norm(new_grad) >= np.linalg.norm(grad):
            break
        lam = new
    return lam


def box_ascent(
    value_and_grad: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0: np.ndarray,
    *,
    max_iter: int,
    stop_above: float = np.inf,
) -> tuple[np.ndarray, int, float]:
    """Maximise a concave ``value_and_grad`` over x ≥ 0 by L-BFGS-B: (x, iterations, the largest value
    seen); stops early once the value exceeds ``stop_above`` (a certificate of unboundedness)."""
    best = [-np.inf]

    def f(x: np.ndarray) -> tuple[float, np.ndarray]:
        val, grad = value_and_grad(x)
        best[0] = max(best[0], val)
        return -val, -grad

    def stop(intermediate_result: object) -> None:
        if best[0] > stop_above:
            raise StopIteration

    res = minimize(
        f,
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * int(x0.size),
        callback=stop,
        options={"maxiter": max_iter, "ftol": 1e-15, "gtol": 1e-10, "maxls": 50},
    )
    return np.asarray(res.x, dtype=float), int(res.nit), best[0]


def adam_log_ascent(
    R: np.ndarray,
    c: np.ndarray,
    groups: Groups | None,
    *,
    lam0: np.ndarray,
    free: np.ndarray,
    max_iter: int,
    lr: float,
) -> tuple[np.ndarray, int, float, bool]:
    """The official optimiser: λ_free = exp(τ), τ_0 = log 1, Adam on −g; (λ, steps, max g, diverged)."""
    tau = np.zeros(free.size)
    m1, m2 = np.zeros_like(tau), np.zeros_like(tau)
    b1, b2, eps = 0.9, 0.999, 1e-8  # torch.optim.Adam defaults, as in the official code
    lam, best = lam0.copy(), -np.inf
    for step in range(1, max_iter + 1):
        with np.errstate(over="ignore", invalid="ignore"):
            lam[free] = np.exp(tau)
        if not np.all(np.isfinite(lam)):
            return lam, step, np.inf, True
        best = max(best, dual_value(lam, R, c, groups))
        grad = -dual_gradient(lam, R, c, groups)[free] * lam[free]  # d(−g)/dτ
        m1 = b1 * m1 + (1 - b1) * grad
        m2 = b2 * m2 + (1 - b2) * grad**2
        tau = tau - lr * (m1 / (1 - b1**step)) / (np.sqrt(m2 / (1 - b2**step)) + eps)
    lam[free] = np.exp(tau)
    return lam, max_iter, best, not np.all(np.isfinite(lam))


def _split_constant(R: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Indices of the rows with spread; a constant row already meets its target (else it was refused)."""
    return np.flatnonzero(R.max(axis=1) > R.min(axis=1))


def solve_lambda(
    R: object,
    c: object,
    *,
    solver: str = "lbfgsb",
    normalization: str = "joint",
    prompt_ids: object | None = None,
    max_iter: int | None = None,
    lr: float = 0.1,
    lp_margin: float | None = None,
) -> Solution:
    """λ* = argmax_{λ≥0} g_n(λ) for the palette ``c`` on the reward sample ``R`` (m, n).

    ``max_iter`` defaults to 150 for ``"adam_log"`` (the official steps) and 1000 for ``"lbfgsb"``; ``lr``
    is Adam's (official 0.1). ``lp_margin``: the :func:`feasibility_margin` of this problem when the caller
    already ran the LP (it is not re-run). A constant reward row gets λ_i = 0 (it meets its target or
    was refused).
    Raises ValueError when some c_i is above the largest value of r_i on the sample (no reweighting
    reaches it), or R/c are malformed; warns when n < m + 1 (degenerate hull) or the ESS is below 10.
    """
    R_arr, c_arr, groups = check_problem(R, c, prompt_ids, normalization=normalization)
    assert c_arr is not None
    check_choice(solver, "solver", SOLVERS)
    lr = check_positive(lr, "lr")
    iters = check_int(
        max_iter if max_iter is not None else (150 if solver == "adam_log" else 1000), "max_iter", low=1
    )
    m, n = R_arr.shape
    if n < m + 1:
        warnings.warn(f"only n = {n} samples for m = {m} values: the sample hull is degenerate", stacklevel=2)
    _check_reachable(R_arr, c_arr, groups)
    margin = _margin(R_arr, c_arr, groups) if lp_margin is None else check_number(lp_margin, "lp_margin")
    status = (
        "feasible" if margin > BOUNDARY_TOL else ("boundary" if margin >= -BOUNDARY_TOL else "infeasible")
    )
    free = _split_constant(R_arr, c_arr)
    lam0 = np.zeros(m)
    diverged = False
    ceiling = kl_ceiling(n, groups)
    if solver == "lbfgsb":
        lam, nit, best = lbfgsb_ascent(
            R_arr, c_arr, groups, lam0=lam0, free=free, max_iter=iters, stop_above=ceiling + 1.0
        )
        if status == "feasible":
            lam = newton_polish(lam, R_arr, c_arr, groups)
    else:
        lam, nit, best, diverged = adam_log_ascent(
            R_arr, c_arr, groups, lam0=lam0, free=free, max_iter=iters, lr=lr
        )
    exceeded = diverged or best > ceiling + 1e-9
    if diverged or not np.all(np.isfinite(lam)):
        return Solution(lam, status, False, np.inf, np.full(m, np.nan), np.nan, np.nan, nit, margin, True)
    ess = ess_kernel(lam, R_arr, groups)
    total = ess if groups is None else ess * groups.n_prompts
    if status == "feasible" and total < LOW_ESS:
        warnings.warn(
            f"effective sample size {total:.3g} < {LOW_ESS:g}: realised levels are unreliable; "
            "draw more samples",
            stacklevel=2,
        )
    return Solution(
        lam=lam,
        status=status,
        feasible=status == "feasible",
        g=dual_value(lam, R_arr, c_arr, groups),
        realized=R_arr @ tilt_kernel(lam, R_arr, groups),
        kl=kl_kernel(lam, R_arr, groups),
        ess=ess,
        iterations=nit,
        lp_margin=margin,
        dual_exceeded_ceiling=exceeded,
    )


def sequential_lambda(
    R: object,
    c: object,
    *,
    rounds: int = 5,
    solver: str = "lbfgsb",
    normalization: str = "joint",
    prompt_ids: object | None = None,
    max_iter: int | None = None,
    lr: float = 0.1,
) -> tuple[np.ndarray, np.ndarray]:
    """Cyclic one-value-at-a-time alignment from λ = 0: ``(λ, history)`` with history (rounds, m), λ after
    each round. Each step maximises g in one λ_i (see the module docstring for the two solvers)."""
    R_arr, c_arr, groups = check_problem(R, c, prompt_ids, normalization=normalization)
    assert c_arr is not None
    check_choice(solver, "solver", SOLVERS)
    rounds = check_int(rounds, "rounds", low=1)
    lr = check_positive(lr, "lr")
    iters = check_int(
        max_iter if max_iter is not None else (150 if solver == "adam_log" else 1000), "max_iter", low=1
    )
    _check_reachable(R_arr, c_arr, groups)
    lam = np.zeros(R_arr.shape[0])
    history = []
    for _ in range(rounds):
        for i in _split_constant(R_arr, c_arr):
            free = np.array([i])
            if solver == "lbfgsb":
                lam, _, _ = lbfgsb_ascent(R_arr, c_arr, groups, lam0=lam, free=free, max_iter=iters)
            else:
                lam, _, _, _ = adam_log_ascent(
                    R_arr, c_arr, groups, lam0=lam, free=free, max_iter=iters, lr=lr
                )
        history.append(lam.copy())
    return lam, np.stack(history)
