"""Rows for results.md, from the per-seed records only."""

from __future__ import annotations

from typing import Any

import numpy as np

from moral_rewards.reproduce.config import Config

__all__ = ["tables"]


def _ms(x: list[float]) -> str:
    return f"{np.mean(x):.3f} ± {np.std(x):.2f}"


def tables(per_seed: list[dict[str, Any]], costs: list[dict[str, Any]], config: Config) -> dict[str, list]:
    names = list(per_seed[0]["train"])
    keys = ("p_defect", "p_coop", "p_defect_after_c", "p_defect_after_d", "illegal")
    train = [{"run": "base (no fine-tuning)"} | {k: _ms([r["base"][k] for r in per_seed]) for k in keys}]
    train += [
        {"run": f"PPO {n}"} | {k: _ms([r["train"][n][k] for r in per_seed]) for k in keys} for n in names
    ]
    train += [
        {"run": f"tabular {n}"} | {k: _ms([r["tabular"][n][k] for r in per_seed]) for k in keys}
        for n in names
    ]
    models = ["base", *names]
    regret = [
        {"model": m, "game": g}
        | {
            k: _ms([r["eval"][m][g][k] for r in per_seed])
            for k in ("de_regret", "ut_regret", "illegal", "p_coop")
        }
        for m in models
        for g in config.eval_games
    ]
    cost = [
        {
            "pretrain tokens": per_seed[0]["pretrain"]["tokens"],
            "pretrain tokens/s (CPU)": _ms([c["pretrain_tokens_per_s"] for c in costs]),
            "pretrain CPU s": _ms([c["pretrain_cpu_s"] for c in costs]),
            "PPO episodes/s (CPU)": _ms([e for c in costs for e in c["ppo_episodes_per_s"]]),
        }
    ]
    return {
        f"Final {config.final_fraction:.0%} of training vs {config.opponent} (mean ± sd over seeds)": train,
        f"Moral regret vs Random, tokens {config.eval_tokens} (mean ± sd over seeds)": regret,
        "Cost (one thread)": cost,
    }
