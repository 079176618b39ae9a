"""aihf: joint reward and policy learning from demonstrations and preferences (AIHF, ICLR 2025).

Reproduces "Joint Reward and Policy Learning with Demonstrations and Human Feedback Improves Alignment"
(Li et al., ICLR 2025, arXiv 2406.06874): the bi-level objective (demonstration likelihood of the
reward's soft-optimal policy + λ x Bradley–Terry likelihood of the preferences) solved by alternating
policy and reward steps, with the RLHF, ML-IRL and BC baselines, exact on the package's tabular gymnasium
env ``aihf/FeatureGrid-v0`` (registered on import) and with a reward MLP + SAC on MuJoCo Reacher-v5.

The public names are listed once, as the ``if TYPE_CHECKING:`` imports, and imported on first use, so that
``import aihf`` and the CLI start without torch.
"""

from typing import TYPE_CHECKING

import paperkit

from aihf.envs import ENV_ID, register_envs

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
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
    from aihf.data import (
        PreferencePair,
        Trajectory,
        bt_label,
        collect_preferences,
        collect_trajectories,
        pair_returns,
    )
    from aihf.envs import FeatureGridEnv, grid_layout
    from aihf.envs.reacher import mixed_policy, noisy, reacher_pd_expert, zero_torque
    from aihf.experiment import TABULAR_METHODS, TabularSetting, run_tabular
    from aihf.sac import SAC, TanhGaussianActor
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


__getattr__, __dir__, __all__ = paperkit.public_api(
    __name__, eager=("ENV_ID", "__version__", "register_envs")
)

register_envs()  # so that gymnasium.make("aihf/FeatureGrid-v0") works after `import aihf`

__version__ = paperkit.package_version("iclr25-aihf")
