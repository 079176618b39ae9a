"""Run the experiment: typed records of every case and seed, no claims, no rendering.

Tabular (quick and full): ``aihf/FeatureGrid-v0``, exact scores per regime and seed
(:func:`aihf.experiment.run_tabular`).

Reacher-v5 (full): per paired seed s, D = 20 PD-expert episodes with N(0, 0.3²) noise (fixed across |P|);
P = 300 BT-labelled pairs from expert/random mixtures, of which the first 30 are the scarce set. Policies:
BC, ML-IRL, RLHF and AIHF at |P| = 30, AIHF at |P| = 300 and the Oracle (SAC on the true reward), all from
the same BC actor with the same budget. Scores are normalised so that zero torque is 0 and the noiseless
expert 1, on 20 seeded evaluation episodes; the uniform random policy is reported on that scale. Rewards:
on ``reward_targets`` held-out targets, whether each learned reward ranks the expert's episode above the
zero-torque episode from the same reset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import gymnasium as gym
import numpy as np
from paperkit import torch_threads, track

from aihf.continuous import (
    CONTINUOUS_METHODS,
    evaluate_actor,
    fit_bt_reward,
    reward_prefers_expert,
    train_continuous,
)
from aihf.data import collect_preferences, collect_trajectories
from aihf.envs.reacher import mixed_policy, noisy, zero_torque
from aihf.experiment import TABULAR_METHODS, TabularSetting, run_tabular
from aihf.reproduce.config import REGIMES, Config

__all__ = ["REACHER_POLICIES", "REWARDS", "ReacherSeed", "Records", "TabularCase", "run_records"]

# policy-level rows: the four methods at the scarce |P|, AIHF at the rich |P|, the true-reward oracle
REACHER_POLICIES = (*CONTINUOUS_METHODS, "AIHF (rich P)", "Oracle")
REWARDS = ("BT", "AIHF", "ML-IRL")  # learned rewards of the reward-level claim (BT = RLHF's reward model)
TARGET_SEED = 20_000  # held-out targets: resets 20_000 + i, the same for every seed (training uses others)


@dataclass(frozen=True)
class TabularCase:
    """One tabular case: ``scores[method]`` per seed (normalised, exact), the BT label-flip rate per seed."""

    case: str
    regime: str
    seeds: tuple[int, ...]
    scores: dict[str, list[float]]
    label_flips: list[float]


@dataclass(frozen=True)
class ReacherSeed:
    """One paired Reacher-v5 seed.

    Attributes:
        J_expert, J_zero, J_random: true returns of the noiseless PD expert, zero torque and uniform random.
        returns, scores: per policy of ``REACHER_POLICIES`` (and "BC"), raw and zero-torque-normalised.
        ranks: ``ranks[f"{reward}@{n}"]`` = per held-out target (the same targets for every seed, so seeds
            and targets are crossed), 1.0 when that learned reward ranks the expert's episode above zero
            torque's, else 0.0 (rewards of ``REWARDS``; n of ``Config.reacher_pairs``).
        label_flips: fraction of the rich pairs whose BT label goes against the true returns.
    """

    seed: int
    J_expert: float
    J_zero: float
    J_random: float
    returns: dict[str, float]
    scores: dict[str, float]
    ranks: dict[str, list[float]]
    label_flips: float


@dataclass(frozen=True)
class Records:
    """Everything a run measured."""

    seed: int
    tabular: dict[str, TabularCase]
    reacher: list[ReacherSeed] = field(default_factory=list)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Records:
        """Inverse of ``paperkit.results.to_jsonable``: the records stored in a results.json's metrics, so
        claims and tables can be re-rendered from a finished run without rerunning it."""
        tabular = {
            k: TabularCase(
                v["case"], v["regime"], tuple(v["seeds"]), dict(v["scores"]), list(v["label_flips"])
            )
            for k, v in d["tabular"].items()
        }
        return cls(int(d["seed"]), tabular, [ReacherSeed(**r) for r in d["reacher"]])


def _setting(config: Config, regime: str, **kw: object) -> TabularSetting:
    noise, n_pairs = REGIMES[regime]
    base = TabularSetting(config.n_demos, noise, n_pairs, config.lam, config.beta, config.steps, config.lr)
    return replace(base, **kw)  # type: ignore[arg-type]


def _tabular_cases(config: Config) -> list[tuple[str, str, TabularSetting, int]]:
    cases = [(r, r, _setting(config, r), config.n_seeds) for r in config.regimes]
    cases += [
        (f"{r}/lam={lam:g}", r, _setting(config, r, lam=lam), config.n_seeds)
        for lam in config.lam_sweep
        for r in ("A/scarce", "A/rich")
    ]
    if config.one_hot:
        one_hot = _setting(config, "A/scarce", n_demos=5, one_hot=True)
        cases.append(("one-hot/A/scarce5", "A/scarce", one_hot, config.n_seeds))
    if config.robust_seeds:
        robust = _setting(config, "A/scarce")
        cases.append((f"A/scarce/{config.robust_seeds}-seeds", "A/scarce", robust, config.robust_seeds))
    return cases


def run_tabular_cases(config: Config, seed: int) -> dict[str, TabularCase]:
    """Every tabular case of ``config`` on seeds seed, seed + 1, ..."""
    out: dict[str, TabularCase] = {}
    for key, regime, setting, n in track(_tabular_cases(config), desc="aihf tabular"):
        seeds = tuple(range(seed, seed + n))
        rows = [run_tabular(setting, s) for s in seeds]
        scores = {m: [r[m] for r in rows] for m in TABULAR_METHODS}
        out[key] = TabularCase(key, regime, seeds, scores, [r["label_flip_rate"] for r in rows])
    return out


def _mean_return(env: gym.Env, policy, n: int, seed: int) -> float:  # type: ignore[no-untyped-def]
    return float(np.mean([collect_trajectories(env, policy, 1, seed + i)[0].true_return for i in range(n)]))


def run_reacher_seed(config: Config, seed: int, device: str = "cpu") -> ReacherSeed:
    """One paired seed of the Reacher-v5 part (see the module docstring)."""
    train = config.reacher
    env = gym.make(train.env_id)
    scarce, rich = config.reacher_pairs
    demos = collect_trajectories(env, noisy(0.3), config.n_demos, 1000 + seed)
    pairs = collect_preferences(env, lambda g: mixed_policy(float(g.uniform())), rich, 2000 + seed)
    by_n = {scarce: pairs[:scarce], rich: pairs}
    eval_seed, n_eval = 10_000 + 100 * seed, 20
    j_exp = _mean_return(env, noisy(0.0), n_eval, eval_seed)
    j_zero = _mean_return(env, zero_torque(), n_eval, eval_seed)
    j_rand = _mean_return(env, mixed_policy(0.0), n_eval, eval_seed)
    returns: dict[str, float] = {}
    rewards = {}
    runs = [(m, m, scarce) for m in CONTINUOUS_METHODS] + [
        ("AIHF (rich P)", "AIHF", rich),
        ("Oracle", "Oracle", 0),
    ]
    for name, method, n in runs:
        actor, log = train_continuous(method, demos, by_n.get(n, []), train, seed, device)
        returns[name] = evaluate_actor(actor, train.env_id, n_eval, eval_seed, device)
        if method in ("AIHF", "ML-IRL", "RLHF"):
            rewards[f"{'BT' if method == 'RLHF' else method}@{n}"] = log["reward"]
    obs_dim, act_dim = env.observation_space.shape[0], env.action_space.shape[0]  # type: ignore[index]
    rewards[f"BT@{rich}"] = fit_bt_reward(pairs, obs_dim, act_dim, train, seed, device)
    rewards[f"ML-IRL@{rich}"] = rewards[f"ML-IRL@{scarce}"]  # ML-IRL never sees P
    ranks = {
        k: reward_prefers_expert(r, train.env_id, config.reward_targets, TARGET_SEED, device)
        .astype(float)
        .tolist()
        for k, r in rewards.items()
    }
    flips = float(np.mean([p[0].true_return < p[1].true_return for p in pairs]))
    scores = {k: (v - j_zero) / (j_exp - j_zero) for k, v in returns.items()}
    return ReacherSeed(seed, j_exp, j_zero, j_rand, returns, scores, ranks, flips)


def run_records(config: Config, *, seed: int = 0, device: str = "cpu") -> Records:
    """All tabular cases and (if ``config.reacher_seeds``) the paired Reacher seeds."""
    tabular = run_tabular_cases(config, seed)
    reacher: list[ReacherSeed] = []
    if config.reacher_seeds:
        with torch_threads(1):  # tiny nets: one thread is fastest, and the machine is shared
            seeds = list(range(seed, seed + config.reacher_seeds))
            reacher = [run_reacher_seed(config, s, device) for s in track(seeds, desc="aihf reacher")]
    return Records(seed, tabular, reacher)
