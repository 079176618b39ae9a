"""The results table and the run's notes, from records only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bandit_neural.reproduce.config import Config
    from bandit_neural.reproduce.run import Records


def regret_table(records: Records) -> list[dict[str, Any]]:
    """One row per case: final regret (mean, std), weak regret, half ratio, self-duels, seconds a run."""
    rows = []
    for c, r in records.cases.items():
        rows.append(
            {
                "feedback": "binary" if c.binary else "duel",
                "utility": c.utility,
                "algorithm": c.algorithm
                + (f" (ν={c.nu:g})" if c.nu is not None else "")
                + (" (diagonal V)" if c.diagonal else ""),
                "R_T mean": r.R_T_mean,
                "R_T std": r.R_T_std,
                "weak R_T": r.weak_R_T_mean,
                "2nd/1st half": r.half_ratio_of_mean,
                "self-duels": "-" if c.binary else r.self_duel_fraction,
                "s/run": records.seconds[c],
            }
        )
    return rows


def notes(config: Config, *, all_claims: bool) -> list[str]:
    """What the results mean: common random numbers, the regret asserted on, the network's size."""
    m, L = config.width, config.depth
    out = [
        "Every algorithm sees the same θ*, contexts and label draws for a seed (common random numbers).",
        "Average regret f(x*) − (f(x₁) + f(x₂))/2 is asserted on; weak regret f(x*) − max(f(x₁), f(x₂)) is "
        "reported. A duel of an arm with itself is allowed by the rule and carries no information.",
        f"Network: depth L = {L}, width m = {m}, p = {m * config.d + (L - 2) * m * m + m} parameters; "
        "V⁻¹ updated by Sherman–Morrison in float64.",
    ]
    if not all_claims:
        out.append(
            "This scale checks the Cosine claims only (the spec's quick plan); the Square, Linear-utility "
            "and binary-feedback claims are checked by the full run."
        )
    return out
