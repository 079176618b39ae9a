"""Rényi-DP accountant for the Poisson-subsampled Gaussian mechanism (numpy/scipy, no torch).

One step of DP-SGD (and of DiSK: the Kalman filter is post-processing) releases
``M(D) = sum_{i in B} clip_C(u_i) + N(0, sigma^2 C^2 I)`` with ``B`` Poisson-sampled at rate ``q``. Its
Rényi divergence of order ``alpha`` is bounded by that of the one-dimensional pair
``mu = (1 - q) N(0, sigma^2) + q N(1, sigma^2)`` against ``mu0 = N(0, sigma^2)`` (Mironov, Talwar, Zhang
2019, "Rényi Differential Privacy of the Sampled Gaussian Mechanism"):

    RDP(alpha) = log(A_alpha) / (alpha - 1),   A_alpha = E_{z ~ mu0}[(mu(z) / mu0(z))^alpha].

For integer ``alpha`` the binomial expansion of ``((1 - q) + q exp((2z - 1) / (2 sigma^2)))^alpha`` is
finite: ``A = sum_k C(alpha, k) (1-q)^(alpha-k) q^k exp((k^2 - k) / (2 sigma^2))``. For fractional
``alpha`` we split the integral at ``z0 = sigma^2 log(1/q - 1) + 1/2`` (where both mixture terms are equal)
and expand each side in the convergent direction; each term integrates to a Gaussian tail (erfc). The
independent check :func:`rdp_by_integration` integrates the density ratio numerically.

RDP composes additively over steps; :func:`eps_from_rdp` converts to (epsilon, delta) with the conversion
of Balle et al. 2020 (Proposition 12 of "Hypothesis testing interpretations and Rényi DP"), the one
Opacus' ``RDPAccountant`` uses, minimised over the orders.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from paperkit.validation import check_int, check_positive, check_probability
from scipy import integrate, special

# Opacus' default orders (opacus/accountants/rdp.py): 1.1, 1.2, ..., 10.9 and 12, 13, ..., 63.
DEFAULT_ORDERS: tuple[float, ...] = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))

_FRAC_TERMS = 2000  # series length for fractional orders; terms decay like i^-(alpha+2) (tail < 1e-7)


def _check_q_sigma(q: float, sigma: float) -> None:
    check_probability(q, "sampling rate q")
    check_positive(sigma, "noise multiplier sigma", strict=False)


def _orders_array(orders: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.atleast_1d(np.asarray(orders, dtype=np.float64))
    if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a <= 1.0):
        raise ValueError("Rényi orders must be finite numbers > 1")
    return a


def _log_a_int(q: float, sigma: float, alpha: int) -> float:
    k = np.arange(alpha + 1, dtype=np.float64)
    log_terms = (
        special.gammaln(alpha + 1)
        - special.gammaln(k + 1)
        - special.gammaln(alpha - k + 1)
        + k * math.log(q)
        + (alpha - k) * math.log1p(-q)
        + (k * k - k) / (2.0 * sigma**2)
    )
    return float(special.logsumexp(log_terms))


def _log_a_frac(q: float, sigma: float, alphas: np.ndarray) -> np.ndarray:
    """log A_alpha for fractional orders ``alphas`` (m,), all at once: an (m, terms) series."""
    a = alphas[:, None]
    i = np.arange(_FRAC_TERMS, dtype=np.float64)[None, :]
    j = a - i
    coef = special.binom(a, i)
    with np.errstate(divide="ignore"):
        log_abs = np.log(np.abs(coef))  # -inf where a coefficient is exactly 0 (term dropped)
    z0 = sigma**2 * math.log(1.0 / q - 1.0) + 0.5
    # left of z0 expand in powers of q * ratio, right of z0 in powers of (1 - q):
    # int_{-inf}^{z0} N(z; i, sigma^2) dz = Phi((z0 - i)/sigma);
    # int_{z0}^{inf} N(z; j, sigma^2) dz = Phi((j - z0)/sigma)
    left = (
        log_abs
        + i * math.log(q)
        + j * math.log1p(-q)
        + (i * i - i) / (2 * sigma**2)
        + special.log_ndtr((z0 - i) / sigma)
    )
    right = (
        log_abs
        + j * math.log(q)
        + i * math.log1p(-q)
        + (j * j - j) / (2 * sigma**2)
        + special.log_ndtr((j - z0) / sigma)
    )
    sign = np.sign(coef)
    lse, sgn = special.logsumexp(
        np.concatenate([left, right], axis=1),
        b=np.concatenate([sign, sign], axis=1),
        axis=1,
        return_sign=True,
    )
    if np.any(sgn <= 0):  # cannot happen for a valid (q, sigma); guards against silent nonsense
        raise FloatingPointError(f"RDP series lost precision at q={q}, sigma={sigma}")
    return np.asarray(lse, dtype=np.float64)


def rdp_subsampled_gaussian(q: float, sigma: float, orders: Sequence[float] | np.ndarray) -> np.ndarray:
    """RDP of one step of the Poisson-subsampled Gaussian mechanism (sensitivity 1, noise std ``sigma``).

    Args:
        q: Poisson sampling rate in [0, 1].
        sigma: noise multiplier (noise std / clipping norm) >= 0; 0 gives infinite RDP.
        orders: Rényi orders alpha > 1, shape (m,).

    Returns:
        (m,) float64 array of RDP values (nats) at each order.
    """
    _check_q_sigma(q, sigma)
    a = _orders_array(orders)
    if q == 0.0:
        return np.zeros_like(a)
    if sigma == 0.0:
        return np.full_like(a, np.inf)
    if q == 1.0:
        return a / (2.0 * sigma**2)
    log_a = np.empty_like(a)
    integer = a == np.round(a)
    for n in np.flatnonzero(integer):
        log_a[n] = _log_a_int(q, sigma, int(a[n]))
    if np.any(~integer):
        log_a[~integer] = _log_a_frac(q, sigma, a[~integer])
    return log_a / (a - 1.0)


def rdp_by_integration(q: float, sigma: float, alpha: float) -> float:
    """Independent reference: RDP(alpha) of the subsampled Gaussian by adaptive quadrature.

    Integrates ``mu0(z) (mu(z)/mu0(z))^alpha`` over the real line (scipy.integrate.quad, split at the
    peak of the integrand), then returns ``log(A) / (alpha - 1)``. Slow (milliseconds an order); for tests
    and for the privacy claim when Opacus is absent.
    """
    _check_q_sigma(q, sigma)
    if not alpha > 1.0:
        raise ValueError(f"order alpha must be > 1, got {alpha!r}")
    if q == 0.0:
        return 0.0
    if sigma == 0.0:
        return math.inf

    log_keep = math.log1p(-q) if q < 1.0 else -math.inf
    log_norm = math.log(sigma * math.sqrt(2 * math.pi))

    def log_integrand(z: np.ndarray | float) -> np.ndarray:
        # log[ mu0(z) * ((1 - q) + q * mu1(z)/mu0(z))^alpha ],  mu1/mu0 = exp((2z - 1) / (2 sigma^2))
        log_mix = np.logaddexp(log_keep, math.log(q) + (2.0 * np.asarray(z) - 1.0) / (2.0 * sigma**2))
        return np.asarray(-0.5 * (np.asarray(z) / sigma) ** 2 - log_norm + alpha * log_mix)

    # One peak: locate it on a grid, integrate exp(log f - log f(peak)) piecewise around it.
    zs = np.linspace(-20 * sigma, 20 * sigma + alpha, 4001)
    vals = log_integrand(zs)
    peak = float(zs[int(np.argmax(vals))])
    ref = float(vals.max())
    width = sigma * 40 + alpha

    def f(z: float) -> float:
        return math.exp(float(log_integrand(z)) - ref)

    total = 0.0
    for lo, hi in (
        (-np.inf, peak - width),
        (peak - width, peak),
        (peak, peak + width),
        (peak + width, np.inf),
    ):
        val, _ = integrate.quad(f, lo, hi, epsabs=0.0, epsrel=1e-11, limit=400)
        total += val
    return (math.log(total) + ref) / (alpha - 1.0)


def eps_from_rdp(
    rdp: Sequence[float] | np.ndarray, orders: Sequence[float] | np.ndarray, delta: float
) -> tuple[float, float]:
    """(epsilon, best order) for a composed RDP curve at failure probability ``delta``.

    ``eps(alpha) = rdp(alpha) + log((alpha - 1) / alpha) - (log delta + log alpha) / (alpha - 1)``
    (Balle et al. 2020), minimised over the orders; never negative.

    Args:
        rdp: (m,) total RDP at each order (nats).
        orders: (m,) the orders.
        delta: in (0, 1).
    """
    check_delta(delta)
    a = _orders_array(orders)
    r = np.atleast_1d(np.asarray(rdp, dtype=np.float64))
    if r.shape != a.shape:
        raise ValueError(f"rdp has shape {r.shape} but orders has shape {a.shape}")
    with np.errstate(invalid="ignore"):
        eps = r - (math.log(delta) + np.log(a)) / (a - 1.0) + np.log((a - 1.0) / a)
    eps = np.where(np.isnan(eps), np.inf, eps)
    k = int(np.argmin(eps))
    return max(0.0, float(eps[k])), float(a[k])


def check_delta(delta: float) -> None:
    if not (isinstance(delta, (int, float)) and 0.0 < delta < 1.0):
        raise ValueError(f"delta must be a number in (0, 1), got {delta!r}")


def epsilon(
    q: float,
    sigma: float,
    steps: int,
    delta: float,
    orders: Sequence[float] | np.ndarray = DEFAULT_ORDERS,
) -> float:
    """Epsilon after ``steps`` compositions of the subsampled Gaussian (rate ``q``, noise ``sigma``).

    ``sigma == 0`` (non-private debugging) gives ``inf``.
    """
    check_int(steps, "steps", low=0)
    check_delta(delta)
    if q == 0.0 or steps == 0:
        return 0.0  # nothing released (the RDP -> DP conversion alone would add a small positive slack)
    rdp = rdp_subsampled_gaussian(q, sigma, orders) * steps
    return eps_from_rdp(rdp, orders, delta)[0]


def noise_for_epsilon(
    eps: float,
    delta: float,
    q: float,
    steps: int,
    orders: Sequence[float] | np.ndarray = DEFAULT_ORDERS,
    *,
    tol: float = 1e-4,
) -> float:
    """The smallest noise multiplier sigma whose ``epsilon(q, sigma, steps, delta) <= eps``, by bisection.

    epsilon is decreasing in sigma, so bisection on [lo, hi] (hi doubled until feasible) converges; the
    returned sigma is the upper end, so its epsilon is at most ``eps``. ``tol``: relative width at stop.
    """
    check_positive(eps, "target epsilon")
    check_delta(delta)
    _check_q_sigma(q, 1.0)
    if q == 0.0 or steps == 0:
        return 0.0
    lo, hi = 0.0, 1.0
    while epsilon(q, hi, steps, delta, orders) > eps:
        lo, hi = hi, 2.0 * hi
        if hi > 1e6:
            raise ValueError(f"no noise multiplier up to 1e6 reaches epsilon = {eps} (delta = {delta})")
    while hi - lo > tol * hi:
        mid = 0.5 * (lo + hi)
        if epsilon(q, mid, steps, delta, orders) > eps:
            lo = mid
        else:
            hi = mid
    return hi


__all__ = [
    "DEFAULT_ORDERS",
    "eps_from_rdp",
    "epsilon",
    "noise_for_epsilon",
    "rdp_by_integration",
    "rdp_subsampled_gaussian",
]
