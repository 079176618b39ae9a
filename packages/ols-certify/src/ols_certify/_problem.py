"""A validated regression problem shared by the certificate and the baselines (internal)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ols_certify._validate import (
    as_design,
    check_k_max,
    check_not_response,
    check_rank,
    check_residuals,
    coef_index,
    column_names,
)
from ols_certify.ols import OLSFit, fit_kernel
from ols_certify.whiten import Whitened, whiten


@dataclass(frozen=True)
class Problem:
    X: np.ndarray  # (n, d) float64
    y: np.ndarray  # (n,)
    fit: OLSFit
    e: int
    w: Whitened

    @property
    def n(self) -> int:
        return self.fit.n

    @property
    def se_e(self) -> float:
        return float(self.fit.se[self.e])


def prepare(
    X: Any, y: Any, coef: Any, names: Sequence[str] | None = None, *, conclusion: bool = False
) -> Problem:
    """The validated problem. With ``conclusion`` (certify, audit: the caller draws a conclusion about β_e)
    an exact fit is refused too: its standard errors vanish and its β_e is rounding noise."""
    Xa, ya = as_design(X, y)
    nm = column_names(Xa.shape[1], names)
    e = coef_index(coef, Xa.shape[1], nm)
    check_not_response(Xa, ya, nm)
    check_rank(Xa, nm)
    fit = fit_kernel(Xa, ya, nm)
    if conclusion:
        check_residuals(fit.resid, ya)
    return Problem(Xa, ya, fit, e, whiten(Xa, fit.resid, e, float(fit.beta[e])))


def default_k_max(n: int) -> int:
    """The official code's k_max_factor = 0.1 (k ≤ n/10), but at least 10 and at most n − 1."""
    return min(n - 1, max(n // 10, 10))


def resolve_k_max(k_max: Any, n: int) -> int:
    return default_k_max(n) if k_max is None else check_k_max(k_max, n)
