"""moral_rewards: intrinsic moral rewards for LLM agents in iterated matrix games, PPO on a tiny LM.

Reproduces "Moral Alignment for LLM Agents" (Tennant, Hailes, Musolesi; ICLR 2025; arXiv 2410.01639).
Importing the package registers the Gymnasium environments ``moral_rewards/<GAME>-v0`` and
``moral_rewards/Text<GAME>-v0``.
"""

from typing import TYPE_CHECKING

import paperkit

from moral_rewards.env import register_envs

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from moral_rewards.env import ENV_IDS, IteratedMatrixGameEnv, TextGameEnv, parse_action
    from moral_rewards.evaluate import (
        GameLog,
        action_type_table,
        moral_regret,
        p_action,
        p_defect_after,
    )
    from moral_rewards.games import (
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
    from moral_rewards.methods import METHODS, MethodInfo, run_method, summarise
    from moral_rewards.ppo import PPOConfig, PPOResult, PPOState, play, ppo_step, train_ppo
    from moral_rewards.prompts import PROMPT_VARIANTS, build_prompt
    from moral_rewards.rewards import (
        R_ILLEGAL,
        REWARDS,
        XI,
        deontological,
        game_plus_deontological,
        game_reward,
        reward,
        utilitarian,
    )
    from moral_rewards.tabular import RunningMoments, TabularResult, train_tabular
    from moral_rewards.tiny import (
        ACTION_TOKENS,
        PretrainConfig,
        build_tiny_lm,
        build_tokenizer,
        pretrain,
        pretraining_corpus,
    )

__getattr__, __dir__, __all__ = paperkit.public_api(__name__, eager=("__version__", "register_envs"))

__version__ = paperkit.package_version("iclr25-moral-rewards")
register_envs()  # so that gymnasium.make("moral_rewards/IPD-v0") works after `import moral_rewards`
