"""paperkit.lm: tiny, locally built Hugging Face language models for papers about LLMs.

Installed with the extra ``paperkit[lm]``.

No weights are downloaded: tokenizers are built from an alphabet or trained on your texts, models are
initialised from a config with an explicit seed, fine-tuned in a few hundred steps, and served over an
OpenAI-compatible API when a method talks to "an LLM endpoint".

- Tokenizers: :func:`char_tokenizer`, :func:`word_tokenizer` (:func:`word_pieces`),
  :func:`train_bpe_tokenizer`
  (``full_bytes=True``: all 256 bytes; specials ``<pad>`` ``<bos>`` ``<eos>`` ``<unk>``).
- Models: :func:`tiny_causal_lm` (GPT-2 or Llama), :func:`save_model`, :func:`load_model`.
- Scoring: :func:`encode_prompt_response`, :func:`sequence_logprobs`
  (the log-probabilities DPO-style losses use).
- Preference losses (pure torch): :func:`dpo_loss` (margin, label smoothing), :func:`ipo_loss`,
  :func:`orpo_loss`, :func:`simpo_loss`, :func:`dpo_pl_loss`.
- RL (:mod:`paperkit.lm.rl`): :func:`sample_k` (K completions a prompt with their log-probs, a
  :class:`Rollout`; :func:`concat_rollouts` joins them), :func:`rloo_advantages`, :func:`sequence_kl`,
  :func:`rloo_loss`, and PPO with a value head: :class:`ValueHeadLM`, :class:`PPOConfig`,
  :func:`ppo_step` (:func:`token_rewards`, :func:`gae`, :func:`ppo_policy_loss`, :func:`ppo_value_loss`,
  :func:`adaptive_kl_coef`, :func:`episode_returns`).
- Training: :class:`TrainConfig`, :func:`optimizer_and_schedule`, :func:`index_batches`,
  :func:`bucketed_batches`, :func:`train_causal_lm` (SFT).
- Generation: :func:`generate` (greedy or seeded sampling, top-k / top-p, stop strings),
  :func:`generate_completions`, :func:`filter_logits`.
- Model cache: :func:`cached_model` (train once, reuse: keyed by :func:`cache_key` of config, seed and
  package version; atomic writes, ``torch.load(weights_only=True)``), :class:`CachedModel`,
  :func:`default_cache_dir` (``$PAPERKIT_MODEL_CACHE``).
- Chat: the :class:`ChatModel` protocol, :class:`HFChatModel` (in process), :class:`OpenAIChatModel`
  (any OpenAI-compatible endpoint), :class:`ChatTemplate`.
- Serving: :func:`serve` (an OpenAI-compatible HTTP server in a background thread); ``paperkit-lm serve``.

The names are imported on first use, so ``import paperkit.lm`` (and the ``paperkit-lm`` command line) does
not load torch; using any of them without the extra raises an ImportError that says what to install.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paperkit.exports import lazy_exports

if TYPE_CHECKING:
    from paperkit.lm.cache import CachedModel, cache_key, cached_model, default_cache_dir
    from paperkit.lm.chat import ChatModel, ChatTemplate, HFChatModel, OpenAIChatModel
    from paperkit.lm.generation import Completion, filter_logits, generate, generate_completions
    from paperkit.lm.models import load_model, save_model, tiny_causal_lm
    from paperkit.lm.preference import dpo_loss, dpo_pl_loss, ipo_loss, orpo_loss, simpo_loss
    from paperkit.lm.rl import (
        PPOConfig,
        Rollout,
        ValueHeadLM,
        adaptive_kl_coef,
        concat_rollouts,
        episode_returns,
        gae,
        ppo_policy_loss,
        ppo_step,
        ppo_value_loss,
        reinforce_loss,
        rloo_advantages,
        rloo_loss,
        sample_k,
        sequence_kl,
        token_rewards,
        whiten,
    )
    from paperkit.lm.scoring import encode_prompt_response, sequence_logprobs
    from paperkit.lm.server import LMServer, serve
    from paperkit.lm.tokenization import (
        SPECIAL_TOKENS,
        char_tokenizer,
        train_bpe_tokenizer,
        word_pieces,
        word_tokenizer,
    )
    from paperkit.lm.training import (
        TrainConfig,
        bucketed_batches,
        index_batches,
        lr_factor,
        optimizer_and_schedule,
        train_causal_lm,
    )

_WHERE = {
    "CachedModel": "cache",
    "cache_key": "cache",
    "cached_model": "cache",
    "default_cache_dir": "cache",
    "ChatModel": "chat",
    "ChatTemplate": "chat",
    "HFChatModel": "chat",
    "OpenAIChatModel": "chat",
    "Completion": "generation",
    "filter_logits": "generation",
    "generate": "generation",
    "generate_completions": "generation",
    "load_model": "models",
    "save_model": "models",
    "tiny_causal_lm": "models",
    "dpo_loss": "preference",
    "dpo_pl_loss": "preference",
    "ipo_loss": "preference",
    "orpo_loss": "preference",
    "simpo_loss": "preference",
    "PPOConfig": "rl",
    "Rollout": "rl",
    "ValueHeadLM": "rl",
    "adaptive_kl_coef": "rl",
    "concat_rollouts": "rl",
    "episode_returns": "rl",
    "gae": "rl",
    "ppo_policy_loss": "rl",
    "ppo_step": "rl",
    "ppo_value_loss": "rl",
    "reinforce_loss": "rl",
    "rloo_advantages": "rl",
    "rloo_loss": "rl",
    "sample_k": "rl",
    "sequence_kl": "rl",
    "token_rewards": "rl",
    "whiten": "rl",
    "encode_prompt_response": "scoring",
    "sequence_logprobs": "scoring",
    "LMServer": "server",
    "serve": "server",
    "SPECIAL_TOKENS": "tokenization",
    "char_tokenizer": "tokenization",
    "train_bpe_tokenizer": "tokenization",
    "word_pieces": "tokenization",
    "word_tokenizer": "tokenization",
    "TrainConfig": "training",
    "bucketed_batches": "training",
    "index_batches": "training",
    "lr_factor": "training",
    "optimizer_and_schedule": "training",
    "train_causal_lm": "training",
}

__all__ = [
    "SPECIAL_TOKENS",
    "CachedModel",
    "ChatModel",
    "ChatTemplate",
    "Completion",
    "HFChatModel",
    "LMServer",
    "OpenAIChatModel",
    "PPOConfig",
    "Rollout",
    "TrainConfig",
    "ValueHeadLM",
    "adaptive_kl_coef",
    "bucketed_batches",
    "cache_key",
    "cached_model",
    "char_tokenizer",
    "concat_rollouts",
    "default_cache_dir",
    "dpo_loss",
    "dpo_pl_loss",
    "encode_prompt_response",
    "episode_returns",
    "filter_logits",
    "gae",
    "generate",
    "generate_completions",
    "index_batches",
    "ipo_loss",
    "load_model",
    "lr_factor",
    "optimizer_and_schedule",
    "orpo_loss",
    "ppo_policy_loss",
    "ppo_step",
    "ppo_value_loss",
    "reinforce_loss",
    "rloo_advantages",
    "rloo_loss",
    "sample_k",
    "save_model",
    "sequence_kl",
    "sequence_logprobs",
    "serve",
    "simpo_loss",
    "tiny_causal_lm",
    "token_rewards",
    "train_bpe_tokenizer",
    "train_causal_lm",
    "whiten",
    "word_pieces",
    "word_tokenizer",
]
assert set(__all__) == set(_WHERE)


_lazy_getattr, __dir__ = lazy_exports(__name__, _WHERE)


def __getattr__(name: str) -> Any:
    try:
        return _lazy_getattr(name)
    except ModuleNotFoundError as err:
        if err.name and err.name.split(".")[0] in ("torch", "transformers", "tokenizers", "openai"):
            raise ImportError(
                f"paperkit.lm.{name} needs the 'lm' extra ({err.name} is not installed): "
                "pip install 'paperkit[lm]'"
            ) from err
        raise
