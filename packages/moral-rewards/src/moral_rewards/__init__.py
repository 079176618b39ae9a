"""moral_rewards: intrinsic moral rewards for LLM agents in iterated matrix games, PPO on a tiny LM.

Reproduces "Moral Alignment for LLM Agents" (Tennant, Hailes, Musolesi; ICLR 2025; arXiv 2410.01639).
Importing the package registers the Gymnasium environments ``moral_rewards/<GAME>-v0`` and
``moral_rewards/Text<GAME>-v0``.
"""

from typing import TYPE_CHECKING

import paperkit

from moral_rewards.env import register_envs

PUBLIC = {
    "C": "games",
    "D": "games",
    "ILLEGAL": "games",
    "GAMES": "games",
    "PAYOFFS": "games",
    "OPPONENTS": "games",
    "MAX_COLLECTIVE": "games",
    "Opponent": "games",
    "payoff_table": "games",
    "check_payoff": "games",
    "initial_state": "games",
    "REWARDS": "rewards",
    "R_ILLEGAL": "rewards",
    "XI": "rewards",
    "game_reward": "rewards",
    "deontological": "rewards",
    "utilitarian": "rewards",
    "game_plus_deontological": "rewards",
    "reward": "rewards",
    "ENV_IDS": "env",
    "IteratedMatrixGameEnv": "env",
    "TextGameEnv": "env",
    "parse_action": "env",
    "PROMPT_VARIANTS": "prompts",
    "build_prompt": "prompts",
    "GameLog": "evaluate",
    "action_type_table": "evaluate",
    "moral_regret": "evaluate",
    "p_action": "evaluate",
    "p_defect_after": "evaluate",
    "RunningMoments": "tabular",
    "TabularResult": "tabular",
    "train_tabular": "tabular",
    "ACTION_TOKENS": "tiny",
    "PretrainConfig": "tiny",
    "build_tokenizer": "tiny",
    "build_tiny_lm": "tiny",
    "pretraining_corpus": "tiny",
    "pretrain": "tiny",
    "PPOState": "ppo",
    "PPOConfig": "ppo",
    "PPOResult": "ppo",
    "ppo_step": "ppo",
    "train_ppo": "ppo",
    "play": "ppo",
    "METHODS": "methods",
    "MethodInfo": "methods",
    "run_method": "methods",
    "summarise": "methods",
}
__getattr__, __dir__, __all__ = paperkit.public_api(
    __name__, PUBLIC, eager=("PUBLIC", "__version__", "register_envs")
)

if TYPE_CHECKING:
    from moral_rewards.env import ENV_IDS, IteratedMatrixGameEnv, TextGameEnv, parse_action  # noqa: F401
    from moral_rewards.evaluate import (  # noqa: F401
        GameLog,
        action_type_table,
        moral_regret,
        p_action,
        p_defect_after,
    )
    from moral_rewards.games import (  # noqa: F401
        GAMES,
        ILLEGAL,
        MAX_COLLECTIVE,
        OPPONENTS,
        PAYOFFS,
        C,
        D,
        Opponent,
        check_payoff,
        initial_state,
        payoff_table,
    )
    from moral_rewards.methods import METHODS, MethodInfo, run_method, summarise  # noqa: F401
    from moral_rewards.ppo import PPOConfig, PPOResult, PPOState, play, ppo_step, train_ppo  # noqa: F401
    from moral_rewards.prompts import PROMPT_VARIANTS, build_prompt  # noqa: F401
    from moral_rewards.rewards import (  # noqa: F401
        R_ILLEGAL,
        REWARDS,
        XI,
        deontological,
        game_plus_deontological,
        game_reward,
        reward,
        utilitarian,
    )
    from moral_rewards.tabular import RunningMoments, TabularResult, train_tabular  # noqa: F401
    from moral_rewards.tiny import (  # noqa: F401
        ACTION_TOKENS,
        PretrainConfig,
        build_tiny_lm,
        build_tokenizer,
        pretrain,
        pretraining_corpus,
    )

__version__ = paperkit.package_version("iclr25-moral-rewards")
register_envs()  # so that gymnasium.make("moral_rewards/IPD-v0") works after `import moral_rewards`
