"""The user entry: give X, y, the coefficient of interest and the threshold; get the certificate, the
candidate removal sets and a plot of the bounds against k (statsmodels-like: one call, a result object with
``summary()`` and ``plot()``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ols_certify._problem import prepare, resolve_k_max
from ols_certify._validate import as_design, column_names
from ols_certify.acre import Certificate, Threshold, certificate_from_problem
from ols_certify.baselines import (
    Candidates,
    FreundHopkins,
    amip_problem,
    freund_hopkins_problem,
    kzc21_problem,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Audit:
    """The result of :func:`audit`.

    Attributes:
        names: column names; coef: the name of the coefficient of interest.
        certificate: ACRE's certificate (``certificate.k_lb``: no fewer removals can reach τ).
        amip, kzc21: candidate removal sets (``.k`` and ``.removal_set``: upper bounds on the true number).
        freund_hopkins: the FH23 certificate (None when not requested).
    """

    names: tuple[str, ...]
    coef: str
    certificate: Certificate
    amip: Candidates
    kzc21: Candidates
    freund_hopkins: FreundHopkins | None

    @property
    def k_upper(self) -> int | None:
        """The fewest removals found that reach τ (min over the candidate finders), or None."""
        ks = [k for k in (self.amip.k, self.kzc21.k) if k is not None]
        return min(ks) if ks else None

    def summary(self) -> str:
        """A short text report (returned, not printed)."""
        c = self.certificate
        lines = [
            f"coefficient {self.coef!r}: β = {c.beta_e:.6g} (SE {c.se_e:.4g}), threshold: {c.threshold}, "
            f"τ = {c.tau:.6g}",
        ]
        if c.k_lb == 0:
            lines.append("the conclusion already fails without removals (τ ≤ 0)")
        elif c.exhausted:
            lines.append(f"certified: no set of up to {c.k_lb - 1} removals reaches τ (k_max reached)")
        else:
            lines.append(
                f"certified: no set of fewer than {c.k_lb} removals reaches τ (ACRE k_LB = {c.k_lb})"
            )
        if self.freund_hopkins is not None:
            lines.append(f"Freund–Hopkins certificate: k_LB = {self.freund_hopkins.k_lb}")
        for name, cand in (("AMIP", self.amip), ("KZC21", self.kzc21)):
            if cand.k is None:
                lines.append(f"{name}: no candidate set of up to {cand.order.size} removals reaches τ")
            else:
                rows = ", ".join(map(str, cand.removal_set.tolist()[:20]))  # type: ignore[union-attr]
                more = ", ..." if cand.k > 20 else ""
                lines.append(f"{name}: removing {cand.k} rows reaches τ (rows {rows}{more})")
        k_up = self.k_upper
        if k_up is not None and c.k_lb > 0:
            lines.append(f"so the exact number of removals needed lies in [{c.k_lb}, {k_up}]")
        return "\n".join(lines)

    def plot(self, ax: Axes | None = None) -> Figure:
        """Bounds against k on log-log axes: ACRE U(k), FH23, the exact effects of the AMIP and KZC21 sets,
        the threshold τ and k_LB (the official synthetic figure)."""
        return plot_bounds(
            self.certificate,
            self.amip,
            self.kzc21,
            self.freund_hopkins,
            ax=ax,
            title=f"coefficient {self.coef}",
        )


def plot_bounds(
    cert: Certificate,
    amip: Candidates | None,
    kzc: Candidates | None,
    fh: FreundHopkins | None,
    *,
    ax: Axes | None = None,
    title: str = "",
) -> Figure:
    """Draw the removal-effect bounds of one regression (see :meth:`Audit.plot`)."""
    return plot_curves(
        cert.bounds.total,
        cert.tau,
        cert.k_lb,
        cert.threshold.split(":")[0],
        amip=None if amip is None else amip.effects,
        kzc=None if kzc is None else kzc.effects,
        fh=None if fh is None else fh.total,
        ax=ax,
        title=title,
    )


def plot_curves(
    U: np.ndarray,
    tau: float,
    k_lb: int,
    rule: str,
    *,
    amip: np.ndarray | None = None,
    kzc: np.ndarray | None = None,
    fh: np.ndarray | None = None,
    ax: Axes | None = None,
    title: str = "",
) -> Figure:
    """:func:`plot_bounds` from plain arrays indexed by k − 1 (U, FH23 bound, candidate effects)."""
    if ax is None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(7, 4.8))
        ax = fig.add_subplot()
    U = np.asarray(U, dtype=float)
    k = np.arange(1, U.size + 1)
    ok = np.isfinite(U) & (U > 0)
    ax.loglog(k[ok], U[ok], "r-", lw=2, label="ACRE upper bound U(k)")
    if fh is not None:
        fh = np.asarray(fh, dtype=float)
        ok = np.isfinite(fh) & (fh > 0)
        ax.loglog(np.arange(1, fh.size + 1)[ok], fh[ok], "g-", lw=1.5, label="Freund & Hopkins (FH23) bound")
    for eff, style, label in (
        (kzc, "--", "KZC21 greedy sets (exact effect)"),
        (amip, ":", "AMIP sets (exact effect)"),
    ):
        if eff is not None:
            eff = np.asarray(eff, dtype=float)
            ok = np.isfinite(eff) & (eff > 0)
            ax.loglog(np.arange(1, eff.size + 1)[ok], eff[ok], style, color="tab:blue", lw=1.5, label=label)
    if tau > 0:
        ax.axhline(tau, color="k", lw=1, label=f"threshold τ = {tau:.3g} ({rule})")
        ax.set_ylim(top=50 * tau)
    if 0 < k_lb <= U.size:
        ax.axvline(k_lb, color="k", ls="--", lw=1, label=f"certified k_LB = {k_lb}")
    ax.set_xlabel("number of removed samples k")
    ax.set_ylabel("move of β_e toward zero (units of β_e)")
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig_out = ax.get_figure()
    assert fig_out is not None
    return fig_out  # type: ignore[return-value]


def audit(
    X: Any,
    y: Any,
    coef: Any,
    threshold: Threshold = "sign",
    *,
    k_max: int | None = None,
    add_intercept: bool = False,
    names: Sequence[str] | None = None,
    freund_hopkins: bool = True,
    block: int = 512,
) -> Audit:
    """Audit the OLS conclusion about one coefficient against the removal of samples.

    Args:
        X: (n, d) design; y: (n,) response (finite; X of full column rank; n > d).
        coef: the coefficient of interest, a column index or a name from ``names``.
        threshold: ``"sign"`` (a sign flip), ``("se", c)`` (a move of c standard errors toward zero),
            ``("significance", c)`` (|β_e| falls below c standard errors) or a number τ.
        k_max: the largest number of removals considered (default ``min(n − 1, max(n // 10, 10))``).
        add_intercept: prepend a column of ones named ``"const"`` (then an int ``coef`` indexes the new X).
        names: column names of X (before the intercept is added).
        freund_hopkins: also compute the FH23 certificate.
    Example::

        res = audit(X, y, coef="bmi", names=cols, add_intercept=True)
        text = res.summary()
        res.plot().savefig("bounds.png")
    """
    Xa: Any = X
    nm = list(names) if names is not None else None
    if add_intercept:
        Xa, _ = as_design(X, y)  # validated before the intercept is prepended
        nm = ["const", *column_names(Xa.shape[1], nm)]
        Xa = np.column_stack([np.ones(Xa.shape[0]), Xa])
    p = prepare(Xa, y, coef, nm, conclusion=True)
    k = resolve_k_max(k_max, p.n)
    cert = certificate_from_problem(p, threshold, k, block=block)
    fh = freund_hopkins_problem(p, k, cert.tau) if freund_hopkins else None
    return Audit(
        p.fit.names,
        p.fit.names[p.e],
        cert,
        amip_problem(p, k, cert.tau),
        kzc21_problem(p, k, cert.tau),
        fh,
    )
