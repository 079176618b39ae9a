"""The results tables and the run's notes, from records only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ols_certify.reproduce.config import Config
    from ols_certify.reproduce.run import Records


def _k(x: int | None) -> int | str:
    return "none ≤ k_max" if x is None else x


def certificate_table(records: Records) -> list[dict[str, Any]]:
    """One row per audited regression: the fit, τ, every method's k and the seconds all methods took."""
    return [
        {
            "case": str(case),
            "n": c.n,
            "d": c.d,
            "β_e": c.beta_e,
            "SE": c.se_e,
            "τ": c.tau,
            "k_LB ACRE": f"{c.k_lb}" + ("+" if c.exhausted else ""),
            "k_LB ACRE+spectral": "-" if c.k_lb_spectral is None else c.k_lb_spectral,
            "k_LB FH23": c.k_fh,
            "k AMIP": _k(c.k_amip),
            "k KZC21": _k(c.k_kzc),
            "k_singular": c.k_singular if c.k_singular is not None else "-",
            "seconds (all methods)": records.seconds[case],
        }
        for case, c in records.cases.items()
    ]


def tiny_table(records: Records, config: Config) -> list[dict[str, Any]]:
    """One row: the tiny instances' soundness count and how often k_LB >= 2 and k_LB = k_true."""
    tiny = records.tiny
    return [
        {
            "instances": config.n_tiny,
            "sound": tiny.n_sound,
            "k_LB ≥ 2": f"{tiny.fraction_k_lb_ge_2:.0%}",
            f"k_true ≤ {config.tiny_k_max} found": f"{tiny.fraction_k_true_found:.0%}",
            "k_LB = k_true (when found)": f"{tiny.exact_when_found:.0%}",
            "min U(k) − brute force": min(r.min_slack for r in tiny.instances),
        }
    ]


def notes(records: Records, config: Config) -> list[str]:
    """What k_LB and the finders' k mean, the timing caveat, and the fixed-effects design's limit."""
    out = [
        "k_LB: no set of fewer removals moves β_e by τ toward zero (certified); k AMIP / k KZC21: "
        "removal sets "
        "found whose exact refit reaches τ (so the truth lies in [k_LB, min(k AMIP, k KZC21)]). '+' marks a "
        "certificate that reached k_max. A removal making XᵀX singular counts as reaching τ.",
        "Timings are wall-clock on a 2-core machine shared with other jobs.",
    ]
    fe = next((r for c, r in records.cases.items() if c.kind == "fixed_effects"), None)
    if fe is not None:
        out.append(
            f"Fixed effects (d): the smallest group has {records.smallest_group} rows and ACRE's bound "
            "becomes +inf "
            f"at k = {fe.k_singular} (removing that group makes XᵀX singular), "
            f"so k_LB ≤ {records.smallest_group}"
            " whatever the data: the case OHARE (Section 4, not implemented) is for."
        )
    return out
