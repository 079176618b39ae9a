"""The tabular experiment of the spec: regimes (clean / noisy demonstrations) x (scarce / rich preferences).

For one seed and one regime: the expert is the soft-optimal policy of θ* (β = 0.1); D = ``n_demos``
trajectories of the expert mixed with uniformly random actions at rate ``demo_noise`` (0: regime A,
0.3: regime B); P = ``n_pairs`` pairs of trajectories, each from the expert mixed with random actions at
its own rate ε ~ U(0, 1), labelled by Bradley–Terry on true returns. Every method sees the same D and P.
Scores are exact: normalised score = (J(π) − J(random)) / (J(expert) − J(random)), true reward, exact
occupancies from the evaluation start distribution.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray

from aihf.data import collect_preferences, collect_trajectories
from aihf.envs.feature_grid import ENV_ID
from aihf.tabular import (
    TabularMDP,
    aihf_tabular,
    behaviour_cloning,
    ml_irl_tabular,
    policy_return,
    rlhf_tabular,
    soft_value_iteration,
    tabular_policy,
)

__all__ = ["TABULAR_METHODS", "TabularSetting", "run_tabular"]

TABULAR_METHODS = ("BC", "ML-IRL", "RLHF", "RLHF (uniform ref)", "AIHF")


@dataclass(frozen=True)
class TabularSetting:
    """One cell of the tabular experiment.

    Attributes:
        n_demos, demo_noise: |D| and the demonstrations' random-action rate (regime A: 0, B: 0.3).
        n_pairs: |P| (spec: 10 scarce, 200 rich).
        lam, beta: λ and β (spec pilot: 20 and 0.1).
        steps, lr: reward steps and Adam step size (spec pilot: 300 steps).
        one_hot: one-hot state reward (64 parameters) instead of the 3 features; demos from the corner,
            evaluation from a uniform start (the spec's variant).
    """

    n_demos: int = 20
    demo_noise: float = 0.0
    n_pairs: int = 10
    lam: float = 20.0
    beta: float = 0.1
    steps: int = 300
    lr: float = 0.05
    one_hot: bool = False


def run_tabular(setting: TabularSetting, seed: int) -> dict[str, float]:
    """Normalised true score of every method in ``TABULAR_METHODS`` for one seed; also the label noise."""
    env = gym.make(ENV_ID)
    base = env.unwrapped
    mdp = TabularMDP.from_env(env)
    r = base.true_reward()  # type: ignore[attr-defined]
    expert = soft_value_iteration(mdp.P, r, setting.beta, mdp.horizon).policy
    uniform = np.full_like(expert, 1.0 / mdp.n_actions)

    def mix(eps: float) -> NDArray[np.float64]:
        return (1.0 - eps) * expert + eps * uniform

    # D depends on (seed, |D|, noise) and P on (seed, |P|) only, so regimes A and B share their pairs.
    s_demo = int(
        np.random.SeedSequence([seed, 1, setting.n_demos, round(1000 * setting.demo_noise)]).generate_state(
            1
        )[0]
    )
    s_pref = int(np.random.SeedSequence([seed, 2, setting.n_pairs]).generate_state(1)[0])
    demos = collect_trajectories(env, tabular_policy(mix(setting.demo_noise)), setting.n_demos, s_demo)
    pairs = collect_preferences(
        env, lambda g: tabular_policy(mix(float(g.uniform()))), setting.n_pairs, s_pref
    )
    if setting.one_hot:
        mdp = TabularMDP(mdp.P, np.eye(mdp.n_states), np.full(mdp.n_states, 1.0 / mdp.n_states), mdp.horizon)
    kw: dict[str, Any] = {"beta": setting.beta, "steps": setting.steps, "lr": setting.lr}
    policies = {
        "BC": behaviour_cloning(mdp, demos),
        "ML-IRL": ml_irl_tabular(mdp, demos, **kw).policy,
        "RLHF": rlhf_tabular(mdp, demos, pairs, **kw).policy,
        "RLHF (uniform ref)": rlhf_tabular(mdp, demos, pairs, sft=False, **kw).policy,
        "AIHF": aihf_tabular(mdp, demos, pairs, setting.lam, **kw).policy,
    }
    j_e, j_r = (policy_return(mdp.P, p, mdp.rho0, r) for p in (expert, uniform))
    out = {k: (policy_return(mdp.P, p, mdp.rho0, r) - j_r) / (j_e - j_r) for k, p in policies.items()}
    ret = np.array([[p[0].true_return, p[1].true_return] for p in pairs])
    out["label_flip_rate"] = float(np.mean(ret[:, 0] < ret[:, 1]))
    return out
