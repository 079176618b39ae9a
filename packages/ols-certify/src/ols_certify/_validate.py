"""Input checks at the public boundary: design matrices, responses, coefficient indices, k."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from paperkit.validation import check_int

# Relative size |R_jj| / max|R_ii| of the pivoted-QR diagonal (columns scaled to unit norm) below which a
# column counts as a linear combination of the previous ones. 1e-10 ~ condition number 1e10: beyond it the
# float64 whitening loses most of its digits, so such designs are refused rather than certified on noise.
RANK_TOL = 1e-10


def column_names(d: int, names: Sequence[str] | None) -> list[str]:
    if names is None:
        return [f"x{j}" for j in range(d)]
    names = [str(s) for s in names]
    if len(names) != d:
        raise ValueError(f"names has {len(names)} entries, expected one per column of X ({d})")
    return names


def as_design(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate and convert ``X: (n, d)`` and ``y: (n,)`` to float64 arrays (copies)."""
    try:
        Xa = np.array(X, dtype=np.float64)
        ya = np.array(y, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"X and y must be numeric arrays: {e}") from None
    if Xa.ndim != 2:
        raise ValueError(f"X must be 2-D (n samples, d columns), got shape {Xa.shape}")
    if ya.ndim == 2 and ya.shape[1] == 1:
        ya = ya[:, 0]
    if ya.ndim != 1:
        raise ValueError(f"y must be 1-D (n,), got shape {ya.shape}")
    n, d = Xa.shape
    if ya.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {ya.shape[0]} entries")
    if d < 1:
        raise ValueError("X has no columns")
    if n <= d:
        raise ValueError(f"need more samples than columns for OLS with residuals: n = {n} <= d = {d}")
    for name, arr in (("X", Xa), ("y", ya)):
        bad = ~np.isfinite(arr)
        if bad.any():
            rows = np.unique(np.nonzero(bad)[0])
            shown = ", ".join(map(str, rows[:10])) + (", ..." if rows.size > 10 else "")
            raise ValueError(f"{name} contains NaN or inf in {rows.size} row(s): {shown}")
    return Xa, ya


#: Residuals whose norm is below this fraction of ‖y‖ count as zero: y is then (to float64 rounding) a linear
#: combination of X's columns, the standard errors are zero or rounding noise, and β_e's "conclusion" (e.g.
#: a sign of -1.8e-16) is not one the data support, so there is nothing to audit.
RESID_TOL = 1e-10


def check_not_response(X: np.ndarray, y: np.ndarray, names: Sequence[str]) -> None:
    """Raise ValueError naming a column of X (n, d) that equals y (n,): the design contains the response."""
    same = np.nonzero(np.all(y[:, None] == X, axis=0))[0]
    if same.size:
        j = int(same[0])
        raise ValueError(
            f"X column {names[j]!r} (index {j}) equals y: the design contains the response, which it then "
            "fits exactly; remove that column"
        )


def check_residuals(resid: np.ndarray, y: np.ndarray) -> None:
    """Raise ValueError when the residuals (n,) are zero relative to y: a perfect fit has nothing to audit."""
    scale = float(np.linalg.norm(y))
    if float(np.linalg.norm(resid)) <= RESID_TOL * scale or scale == 0:
        raise ValueError(
            "the residuals are zero: y is an exact linear combination of X's columns (or all zero), so the "
            "standard errors vanish and no conclusion about a coefficient can be audited"
        )


def check_rank(X: np.ndarray, names: Sequence[str]) -> None:
    """Raise ValueError naming the collinear columns when X (n, d) is (numerically) rank-deficient."""
    norms = np.linalg.norm(X, axis=0)
    zero = np.nonzero(norms == 0)[0]
    if zero.size:
        cols = ", ".join(f"{names[j]!r} (index {j})" for j in zero.tolist())
        raise ValueError(f"X is rank-deficient: column(s) {cols} are all zeros")
    import scipy.linalg  # here, not at import: the console script starts faster

    Xs = X / norms
    _, R, piv = scipy.linalg.qr(Xs, mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > RANK_TOL * diag[0]))
    if rank == X.shape[1]:
        return
    basis = np.sort(piv[:rank])
    parts = []
    for j in sorted(piv[rank:]):
        coef, *_ = np.linalg.lstsq(Xs[:, basis], Xs[:, j], rcond=None)
        used = basis[np.abs(coef) > 1e-8 * max(1.0, float(np.abs(coef).max()))]
        combo = ", ".join(f"{names[i]!r}" for i in used)
        parts.append(f"column {names[j]!r} (index {j}) is a linear combination of {combo}")
    raise ValueError(
        f"X is rank-deficient (numerical rank {rank} < {X.shape[1]} columns; collinear columns): "
        + "; ".join(parts)
        + ". Drop one column of each collinear group (e.g. one dummy per categorical, or the intercept)."
    )


def coef_index(coef: Any, d: int, names: Sequence[str]) -> int:
    """The column index of the coefficient of interest, given as an int index or a column name."""
    if isinstance(coef, str):
        if coef not in names:
            raise ValueError(f"coef {coef!r} is not a column name; names are {list(names)}")
        return list(names).index(coef)
    if isinstance(coef, bool) or not isinstance(coef, (int, np.integer)):
        raise TypeError(f"coef must be an int column index or a column name, got {type(coef).__name__}")
    if not -d <= int(coef) < d:
        raise ValueError(f"coef index {coef} is out of range for X with {d} columns")
    return int(coef) % d


def check_k_max(k_max: Any, n: int) -> int:
    """``k_max`` as an int in [1, n − 1]."""
    k_max = check_int(k_max, "k_max", low=1)
    if k_max >= n:
        raise ValueError(
            f"k_max must be < n = {n} (removing every sample leaves nothing to fit), got {k_max}"
        )
    return int(k_max)
