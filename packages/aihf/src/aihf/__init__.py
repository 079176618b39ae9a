"""aihf: joint reward and policy learning from demonstrations and preferences (AIHF, ICLR 2025).

Reproduces "Joint Reward and Policy Learning with Demonstrations and Human Feedback Improves Alignment"
(Li et al., ICLR 2025, arXiv 2406.06874): the bi-level objective (demonstration likelihood of the
reward's soft-optimal policy + λ x Bradley–Terry likelihood of the preferences) solved by alternating
policy and reward steps, with the RLHF, ML-IRL and BC baselines, exact on the package's tabular gymnasium
env ``aihf/FeatureGrid-v0`` (registered on import) and with a reward MLP + SAC on MuJoCo Reacher-v5.

The torch-based names (``SAC``, ``MLPReward``, ``train_continuous``, ...) are imported on first use, so
that ``import aihf`` and the CLI start without torch.
"""

from typing import TYPE_CHECKING

import paperkit

from aihf.data import (
    PreferencePair,
    Trajectory,
    bt_label,
    collect_preferences,
    collect_trajectories,
    pair_returns,
)
from aihf.envs import ENV_ID, FeatureGridEnv, grid_layout, register_envs
from aihf.envs.reacher import mixed_policy, noisy, reacher_pd_expert, zero_torque
from aihf.experiment import TABULAR_METHODS, TabularSetting, run_tabular
from aihf.tabular import (
    FitResult,
    SoftVI,
    TabularMDP,
    aihf_objective,
    aihf_tabular,
    behaviour_cloning,
    bt_reward,
    demo_log_likelihood,
    feature_expectation,
    hard_value_iteration,
    ml_irl_tabular,
    policy_return,
    rlhf_tabular,
    soft_value_iteration,
    state_occupancy,
    tabular_policy,
)

if TYPE_CHECKING:
    from aihf.continuous import (
        CONTINUOUS_METHODS,
        REFERENCE_METHODS,
        ContinuousConfig,
        MLPReward,
        evaluate_actor,
        fit_bt_reward,
        reward_prefers_expert,
        train_continuous,
    )
    from aihf.sac import SAC, TanhGaussianActor

register_envs()  # so that gymnasium.make("aihf/FeatureGrid-v0") works after `import aihf`

__version__ = paperkit.package_version("iclr25-aihf")

_LAZY = {
    "SAC": "sac",
    "TanhGaussianActor": "sac",
    "CONTINUOUS_METHODS": "continuous",
    "ContinuousConfig": "continuous",
    "MLPReward": "continuous",
    "evaluate_actor": "continuous",
    "train_continuous": "continuous",
    "REFERENCE_METHODS": "continuous",
    "fit_bt_reward": "continuous",
    "reward_prefers_expert": "continuous",
}


__all__ = [
    "CONTINUOUS_METHODS",
    "ENV_ID",
    "REFERENCE_METHODS",
    "SAC",
    "TABULAR_METHODS",
    "ContinuousConfig",
    "FeatureGridEnv",
    "FitResult",
    "MLPReward",
    "PreferencePair",
    "SoftVI",
    "TabularMDP",
    "TabularSetting",
    "TanhGaussianActor",
    "Trajectory",
    "__version__",
    "aihf_objective",
    "aihf_tabular",
    "behaviour_cloning",
    "bt_label",
    "bt_reward",
    "collect_preferences",
    "collect_trajectories",
    "demo_log_likelihood",
    "evaluate_actor",
    "feature_expectation",
    "fit_bt_reward",
    "grid_layout",
    "hard_value_iteration",
    "mixed_policy",
    "ml_irl_tabular",
    "noisy",
    "pair_returns",
    "policy_return",
    "reacher_pd_expert",
    "register_envs",
    "reward_prefers_expert",
    "rlhf_tabular",
    "run_tabular",
    "soft_value_iteration",
    "state_occupancy",
    "tabular_policy",
    "train_continuous",
    "zero_torque",
]

__getattr__, __dir__ = paperkit.lazy_exports(__name__, _LAZY)
