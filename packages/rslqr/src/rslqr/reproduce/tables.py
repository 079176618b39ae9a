"""The results table, from records only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rslqr.reproduce.config import Config
    from rslqr.reproduce.run import Records


def regret_table(records: Records, config: Config) -> list[dict[str, Any]]:
    """One row per case: divergent seeds, final regret, growth statistics and estimation error."""
    rows = []
    for case, r in records.cases.items():
        g = r.growth
        rows.append(
            {
                "system": case.system,
                "γ": case.gamma,
                "learner": case.algorithm,
                "infinite-regret seeds": f"{g.seeds_with_infinite_regret}/{config.n_seeds}",
                f"median regret at N={config.n_episodes}": g.regret_at_N_median,
                "median log-log slope": g.slope_median,
                "slope of mean curve": g.slope_of_mean_curve,
                "doubling ratio (last 3)": g.doubling_ratio_last3,
                "median final ‖θ̂−θ‖": r.final_theta_error_median,
            }
        )
    return rows
