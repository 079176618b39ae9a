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
  :func:`bucketed_batches`, :func:`train_causal_lm` (SFT; ``forward="lean"``: :mod:`paperkit.lm.lean`'s
  leaner GPT-2 loss, the same up to float rounding).
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

from paperkit.exports import public_api

if TYPE_CHECKING:  # the public names, once: type checkers read them, public_api parses them
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


_lazy_getattr, __dir__, __all__ = public_api(__name__, eager=())


def __getattr__(name: str) -> Any:
    try:
        return _lazy_getattr(name)
    except ModuleNotFoundError as err:
        if err.name and err.name.split(".")[0] in ("torch", "transformers", "tokenizers", "openai"):
            raise ImportError(
                f"paperkit.lm.{name} needs the 'lm' extra ({err.name} is not installed): "
                "pip install 'iclr25-paperkit[lm]'"
            ) from err
        raise
