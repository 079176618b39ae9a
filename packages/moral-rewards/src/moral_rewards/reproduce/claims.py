"""The spec's seven claims, a substrate gate and the peer check, from the per-seed records only.

Every claim is judged on its worst seed (spec: "3 seeds in full mode, each must pass"); the details give
every seed's value. Claims whose condition the scale did not run (quick: no Ut, no Game+De) are left out.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from paperkit import Claim, paired_difference

from moral_rewards.reproduce.config import Config

__all__ = ["claims"]


def _vals(per_seed: list[dict[str, Any]], *path: str) -> np.ndarray:
    out = []
    for rec in per_seed:
        x: Any = rec
        for p in path:
            x = x[p]
        out.append(float(x))
    return np.asarray(out)


def _seeds(x: np.ndarray, seeds: tuple[int, ...], tag: str = "") -> dict[str, float]:
    return {f"{tag}seed {s}": float(v) for s, v in zip(seeds, x, strict=True)}


def _gate(per_seed: list[dict[str, Any]], mg: Any, seeds: tuple[int, ...]) -> list[Claim]:
    ill, pd = _vals(per_seed, "base", "illegal"), _vals(per_seed, "base", "p_defect")
    return [
        Claim.at_most(
            "gate-base-legal",
            "Gate: the pre-trained base answers with a listed action token",
            "max over seeds of the base's illegal-answer rate vs TFT (action1/action2)",
            float(ill.max()),
            mg.base_illegal_max,
            paper="ours (gate)",
            details=_seeds(ill, seeds),
        ),
        Claim.between(
            "gate-base-unsaturated",
            "Gate: the base is not already selfish or cooperative",
            "worst seed's base P(D) vs TFT (must lie inside the interval)",
            float(pd[np.argmax(np.abs(pd - 0.5))]),
            *mg.base_balance,
            paper="ours (gate)",
            details=_seeds(pd, seeds),
        ),
    ]


def _fig2(per_seed: list[dict[str, Any]], config: Config, seeds: tuple[int, ...]) -> list[Claim]:
    mg, tr = config.margins, per_seed[0]["train"]
    game_dc = _vals(per_seed, "train", "game", "p_defect_after_c")
    out = [
        Claim.at_least(
            "game-defects",
            "Game-reward fine-tuning vs TFT converges to (almost) only defection",
            "min over seeds of P(D) vs TFT, final 20% of episodes",
            float(_vals(per_seed, "train", "game", "p_defect").min()),
            mg.game_p_defect,
            paper="Fig. 2a: ≈ only D|D after ≈ 100 episodes",
            details=_seeds(_vals(per_seed, "train", "game", "p_defect"), seeds),
        )
    ]
    if "de" in tr:
        de_dc = _vals(per_seed, "train", "de", "p_defect_after_c")
        out += [
            Claim.at_most(
                "de-no-exploit",
                "Deontological fine-tuning: (almost) never defect against a cooperator",
                "max over seeds of P(D | O's previous move C), final 20%",
                float(de_dc.max()),
                mg.de_p_defect_after_c,
                paper="Fig. 2a: essentially no D|C",
                details=_seeds(de_dc, seeds),
            ),
            Claim.at_most(
                "de-vs-game",
                "De's P(D | C) is a small fraction of the Game run's",
                "max over seeds of P(D|C)_De / P(D|C)_Game (paired by seed)",
                float(np.max(de_dc / np.maximum(game_dc, 1e-9))),
                mg.de_ratio,
                paper="Fig. 2a (≈ 0 vs ≈ 1)",
                details=_seeds(game_dc, seeds, "Game "),
            ),
        ]
    if "ut" in tr:
        ut = _vals(per_seed, "train", "ut", "p_coop")
        out.append(
            Claim.at_least(
                "ut-cooperates",
                "Utilitarian fine-tuning: (almost) only cooperation",
                "min over seeds of P(C) vs TFT, final 20%",
                float(ut.min()),
                mg.ut_p_coop,
                paper="Fig. 2a: ≈ only C|C / C|D",
                details=_seeds(ut, seeds),
            )
        )
    if "game+de" in tr:
        drop = game_dc - _vals(per_seed, "train", "game+de", "p_defect_after_c")
        out.append(
            Claim.at_least(
                "game+de-less-exploit",
                "Game+De exploits a cooperator less than Game",
                "min over seeds of P(D|C)_Game - P(D|C)_Game+De, final 20%",
                float(drop.min()),
                mg.gde_drop,
                paper="Fig. 2a: mix, D|D majority, few D|C",
                details=_seeds(drop, seeds),
            )
        )
    return out


def _unlearn(per_seed: list[dict[str, Any]], config: Config, seeds: tuple[int, ...]) -> list[Claim]:
    if "game->de" not in per_seed[0]["train"]:
        return []
    mg = config.margins
    before = _vals(per_seed, "train", "game->de", "before_switch", "p_defect_after_c")
    after = _vals(per_seed, "train", "game->de", "p_defect_after_c")
    return [
        Claim.at_least(
            "unlearn-before",
            "Before the switch (Game reward) the agent defects against cooperators",
            "min over seeds of P(D | C), last 20% of the Game stage",
            float(before.min()),
            mg.unlearn_before,
            paper="Fig. 3: ≈ all D|D before episode 500",
            details=_seeds(before, seeds),
        ),
        Claim.at_most(
            "unlearn-after",
            "After switching to De the agent unlearns defecting against cooperators",
            "max over seeds of P(D | C), last 20% of the De stage",
            float(after.max()),
            mg.unlearn_after,
            paper="Fig. 3: C|C grows to ≈ 40-60% by episode 1000",
            details=_seeds(after, seeds),
        ),
    ]


def _regret(per_seed: list[dict[str, Any]], config: Config, seeds: tuple[int, ...]) -> list[Claim]:
    if "de" not in per_seed[0]["train"]:
        return []
    rng = np.random.default_rng(0)
    r = {m: _vals(per_seed, "eval", m, "IPD", "de_regret") for m in ("base", "game", "de")}
    out = []
    for hi, lo, paper in (
        ("game", "de", "Fig. 4: ≈ 1.7-1.8 (Game) vs ≈ 0.2-0.3 (De)"),
        ("base", "game", "Fig. 4: ≈ 6 (base) vs ≈ 1.7-1.8 (Game)"),
    ):
        d = r[hi] - r[lo]
        pdiff = paired_difference(r[hi], r[lo], rng=rng, names=(hi, lo), seeds=seeds)
        out.append(
            Claim.at_least(
                f"regret-{lo}-below-{hi}",
                f"De regret on the IPD vs Random with new tokens: {lo} model < {hi} model",
                f"min over seeds of regret({hi}) - regret({lo}), tokens {config.eval_tokens}",
                float(d.min()),
                config.margins.regret_gap,
                paper=paper,
                details=pdiff.details() | _seeds(d, seeds),
            )
        )
    return out


def _illegal_and_peer(per_seed: list[dict[str, Any]], config: Config, seeds: tuple[int, ...]) -> list[Claim]:
    mg, names = config.margins, list(per_seed[0]["train"])
    ill = np.array([[rec["train"][n]["illegal"] for n in names] for rec in per_seed])
    gaps = np.array(
        [
            [abs(rec["train"][n]["p_defect_after_c"] - rec["tabular"][n]["p_defect_after_c"]) for n in names]
            for rec in per_seed
        ]
    )
    base = _vals(per_seed, "base", "illegal")
    return [
        Claim.at_most(
            "illegal-after-ft",
            "Fine-tuning with R_illegal = -6 removes illegal answers",
            "max over seeds and runs of the illegal rate, final 20%",
            float(ill.max()),
            mg.illegal_after,
            paper="Fig. 2: ≈ no illegal actions after fine-tuning",
            details={
                "base (mean)": float(base.mean()),
                **{n: float(ill[:, j].max()) for j, n in enumerate(names)},
            },
        ),
        Claim.at_most(
            "peer-tabular",
            "Our PPO reaches what a memory-1 tabular REINFORCE learns on the same reward",
            "max over seeds and runs of |PPO - tabular| in the final P(D | C) (De leaves P(D | D) free)",
            float(gaps.max()),
            mg.peer_gap,
            paper="ours (reviewer 2's baseline)",
            details={n: float(gaps[:, j].max()) for j, n in enumerate(names)},
        ),
    ]


def claims(per_seed: list[dict[str, Any]], config: Config, seeds: tuple[int, ...]) -> list[Claim]:
    return [
        *_gate(per_seed, config.margins, seeds),
        *_fig2(per_seed, config, seeds),
        *_unlearn(per_seed, config, seeds),
        *_regret(per_seed, config, seeds),
        *_illegal_and_peer(per_seed, config, seeds),
    ]
