r"""Policy-gradient fine-tuning of a causal LM on scalar rewards: K samples a prompt with their log-probs,
REINFORCE / RLOO with a KL penalty to a reference, and PPO with a value head.

Shapes: N sampled sequences (B prompts × K samples, row ``b * K + k``), L token positions. Per-token arrays
are aligned with :func:`paperkit.lm.sequence_logprobs`: position ``i`` holds the log-probability of token
``i`` given tokens ``< i`` (and a value head's estimate made from the same prefix), ``mask`` (N, L) bool is
True on the completion tokens.

- REINFORCE leave-one-out (RLOO, Ahmadian et al. 2024): reward r = score − β KL(π‖π_ref) per sequence,
  advantage A_i = r_i − mean_{j≠i} r_j over the K samples of one prompt, loss −mean A · log π(y).
- PPO (Schulman et al. 2017, as TRL's PPOTrainer applies it to LMs): per-token reward −β (log π_old −
  log π_ref) with the score added on the last completion token; advantages by GAE(γ, λ) over the tokens
  (or the reward-to-go, λ = 1); clipped ratio objective and clipped value loss over a few epochs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import Tensor
from transformers import PreTrainedTokenizerBase

from paperkit.lm.generation import generate_completions, prompt_ids
from paperkit.lm.models import check_device, special_ids
from paperkit.lm.scoring import sequence_logprobs
from paperkit.optim import Adam

Advantage = Literal["gae", "returns"]
KLEstimator = Literal["k1", "k3"]


@dataclass(frozen=True)
class Rollout:
    """K sampled completions of each of B prompts, as one right-padded batch of N = B·K rows.

    Attributes:
        input_ids: (N, L) int64 ``[bos] + prompt + completion tokens`` then pad.
        attention_mask: (N, L) int64, 1 on real tokens.
        response_mask: (N, L) bool, True on the completion tokens (a final eos included).
        prompt_index: (N,) int64, the prompt each row completes (``b`` of row ``b * K + k``).
        texts: the N completions as :func:`paperkit.lm.generate` returns them.
        logprobs: (N,) float, Σ over the completion of log π(token | prefix) under the sampling model at
            temperature 1, without gradient (the "old" policy of PPO).
        token_logprobs: (N, L) those per-token terms, 0 off the completion.
        k: samples a prompt.
    """

    input_ids: Tensor
    attention_mask: Tensor
    response_mask: Tensor
    prompt_index: Tensor
    texts: tuple[str, ...]
    logprobs: Tensor
    token_logprobs: Tensor
    k: int

    def batch(self) -> dict[str, Tensor]:
        """The rows as the batch :func:`paperkit.lm.sequence_logprobs` scores (ids and both masks)."""
        return {
            "input_ids": self.input_ids,
            "attention_mask": self.attention_mask,
            "response_mask": self.response_mask,
        }


def _check_int(name: str, value: Any, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return value


def sample_k(
    model: torch.nn.Module,
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[str],
    k: int,
    *,
    max_new_tokens: int,
    seed: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    stop: Sequence[str] = (),
    device: str = "cpu",
) -> Rollout:
    """Sample ``k`` completions of every prompt (seeded) and score them under ``model``.

    The completions come from :func:`paperkit.lm.generate_completions` (``temperature`` > 0, optional
    ``top_k``/``top_p``, the stop strings); the rows keep every generated token, stop-string tokens and a
    final eos included, since those are the actions taken. ``logprobs`` are recomputed by one forward pass
    of the full rows at temperature 1 (the policy's own distribution, which PPO's ratio needs).
    """
    _check_int("k", k, 1)
    _check_int("seed", seed, 0)
    if not isinstance(temperature, (int, float)) or isinstance(temperature, bool) or not temperature > 0:
        raise ValueError(f"temperature must be a number > 0 (sample_k samples), got {temperature!r}")
    if isinstance(prompts, str) or not len(prompts):
        raise ValueError("prompts must be a non-empty sequence of strings")
    dev = check_device(model, device)
    repeated = [p for p in prompts for _ in range(k)]
    done = generate_completions(
        model,
        tokenizer,
        repeated,
        max_new_tokens=max_new_tokens,
        temperature=temperature,
        top_k=top_k,
        top_p=top_p,
        stop=stop,
        seed=seed,
        batch_size=max(len(repeated), 1),
        device=device,
    )
    _, _, pad = special_ids(tokenizer)
    rows = [[*p, *c.token_ids] for p, c in zip(prompt_ids(tokenizer, repeated), done, strict=True)]
    width = max(map(len, rows))
    ids = torch.full((len(rows), width), pad, dtype=torch.long)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    response = torch.zeros((len(rows), width), dtype=torch.bool)
    for b, (row, c) in enumerate(zip(rows, done, strict=True)):
        ids[b, : len(row)] = torch.tensor(row, dtype=torch.long)
        attention[b, : len(row)] = 1
        response[b, len(row) - len(c.token_ids) : len(row)] = True
    batch = {"input_ids": ids.to(dev), "attention_mask": attention.to(dev), "response_mask": response.to(dev)}
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            total, per_token = sequence_logprobs(model, batch)
    finally:
        model.train(was_training)
    index = torch.arange(len(prompts), device=dev).repeat_interleave(k)
    return Rollout(
        batch["input_ids"],
        batch["attention_mask"],
        batch["response_mask"],
        index,
        tuple(c.text for c in done),
        total,
        per_token,
        k,
    )


def concat_rollouts(rollouts: Sequence[Rollout], *, pad_id: int) -> Rollout:
    """One :class:`Rollout` of the rows of several, in order (e.g. the rounds of a game, sampled one at a
    time because each prompt depends on the previous answer, then updated by one :func:`ppo_step`).

    Rows are right-padded with ``pad_id`` (the tokenizer's pad id) to the widest; ``prompt_index`` of the
    j-th rollout is shifted by the number of prompts before it. All must share ``k`` and a device.
    """
    if isinstance(rollouts, Rollout) or not len(rollouts):
        raise ValueError("rollouts must be a non-empty sequence of Rollout")
    for i, r in enumerate(rollouts):
        if not isinstance(r, Rollout):
            raise TypeError(f"rollouts[{i}] must be a Rollout, got {type(r).__name__}")
    _check_int("pad_id", pad_id, 0)
    ks = {r.k for r in rollouts}
    if len(ks) > 1:
        raise ValueError(f"rollouts must share k (samples a prompt), got {sorted(ks)}")
    width = max(r.input_ids.shape[1] for r in rollouts)

    def pad(t: Tensor, value: float | bool) -> Tensor:
        return torch.nn.functional.pad(t, (0, width - t.shape[1]), value=value)

    offsets, total = [], 0
    for r in rollouts:
        offsets.append(total)
        total += int(r.prompt_index.max()) + 1 if r.prompt_index.numel() else 0
    return Rollout(
        torch.cat([pad(r.input_ids, pad_id) for r in rollouts]),
        torch.cat([pad(r.attention_mask, 0) for r in rollouts]),
        torch.cat([pad(r.response_mask, False) for r in rollouts]),
        torch.cat([r.prompt_index + o for r, o in zip(rollouts, offsets, strict=True)]),
        tuple(t for r in rollouts for t in r.texts),
        torch.cat([r.logprobs for r in rollouts]),
        torch.cat([pad(r.token_logprobs, 0.0) for r in rollouts]),
        ks.pop(),
    )


# ---------------------------------------------------------------- REINFORCE / RLOO


def rloo_advantages(rewards: Tensor) -> Tensor:
    """(B, K) leave-one-out advantages r_i − mean_{j≠i} r_j of K >= 2 rewards per prompt."""
    if rewards.dim() != 2 or rewards.shape[1] < 2:
        raise ValueError(f"rewards must be (B, K) with K >= 2 samples a prompt, got {tuple(rewards.shape)}")
    k = rewards.shape[1]
    others = (rewards.sum(-1, keepdim=True) - rewards) / (k - 1)
    return rewards - others


def sequence_kl(logp: Tensor, ref_logp: Tensor, mask: Tensor, estimator: KLEstimator = "k1") -> Tensor:
    """(N,) per-sequence KL(π‖π_ref) estimated from the sampled tokens' (N, L) log-probs on ``mask``.

    ``"k1"``: Σ_t (log π − log π_ref) (unbiased, can be negative); ``"k3"``: Σ_t (ρ − 1 − log ρ) with
    ρ = π_ref/π (unbiased and >= 0, Schulman's estimator)."""
    if logp.shape != ref_logp.shape or logp.shape != mask.shape:
        raise ValueError(
            f"logp {tuple(logp.shape)}, ref_logp {tuple(ref_logp.shape)} and mask {tuple(mask.shape)} differ"
        )
    diff = torch.where(mask, logp - ref_logp, torch.zeros_like(logp))
    if estimator == "k1":
        return diff.sum(-1)
    if estimator == "k3":
        return torch.where(mask, torch.expm1(-diff) + diff, torch.zeros_like(diff)).sum(-1)
    raise ValueError(f"unknown estimator {estimator!r}; expected 'k1' or 'k3'")


def reinforce_loss(logprobs: Tensor, advantages: Tensor) -> Tensor:
    """−mean(A · log π(y)) over sequences; the advantages carry no gradient."""
    if logprobs.shape != advantages.shape:
        raise ValueError(f"logprobs {tuple(logprobs.shape)} and advantages {tuple(advantages.shape)} differ")
    return -(advantages.detach() * logprobs).mean()


def rloo_loss(logprobs: Tensor, scores: Tensor, kl: Tensor, kl_coef: float) -> Tensor:
    """RLOO on (B, K) sequence log-probs: reward = score − ``kl_coef`` · KL (both without gradient),
    leave-one-out advantages, then :func:`reinforce_loss`."""
    if not (math.isfinite(kl_coef) and kl_coef >= 0):
        raise ValueError(f"kl_coef must be a finite number >= 0, got {kl_coef}")
    if scores.shape != logprobs.shape or kl.shape != logprobs.shape:
        raise ValueError(
            f"logprobs {tuple(logprobs.shape)}, scores {tuple(scores.shape)} and kl {tuple(kl.shape)} differ"
        )
    rewards = (scores - kl_coef * kl).detach()
    return reinforce_loss(logprobs, rloo_advantages(rewards))


# ---------------------------------------------------------------- PPO


class ValueHeadLM(torch.nn.Module):
    """A causal LM with a scalar value head on its last hidden state (as TRL's value-head models).

    ``forward`` returns ``(per_token_logp, values)``, both (N, L) and aligned as the module docstring
    says: ``values[:, i]`` is the head applied to the hidden state at ``i − 1`` (0 at i = 0). The head is a
    ``Linear(d_model, 1)`` initialised to zero (a value of 0 everywhere at the start), so it draws no
    random numbers and the language model's own weights are untouched.
    """

    def __init__(self, lm: torch.nn.Module) -> None:
        super().__init__()
        d_model = getattr(getattr(lm, "config", None), "hidden_size", None)
        if not isinstance(d_model, int):
            raise TypeError("lm must be a Hugging Face causal LM whose config has hidden_size")
        self.lm = lm
        param = next(lm.parameters())
        self.value_head = torch.nn.Linear(d_model, 1, device=param.device, dtype=param.dtype)
        torch.nn.init.zeros_(self.value_head.weight)
        torch.nn.init.zeros_(self.value_head.bias)

    def forward(self, batch: dict[str, Tensor]) -> tuple[Tensor, Tensor]:
        ids, attention, mask = batch["input_ids"], batch["attention_mask"], batch["response_mask"]
        out = self.lm(input_ids=ids, attention_mask=attention, output_hidden_states=True)
        dtype = torch.promote_types(out.logits.dtype, torch.float32)  # as sequence_logprobs
        logp = (
            torch.log_softmax(out.logits[:, :-1].to(dtype), dim=-1).gather(-1, ids[:, 1:, None]).squeeze(-1)
        )
        v = self.value_head(out.hidden_states[-1][:, :-1]).squeeze(-1).to(dtype)
        zero = torch.zeros_like(logp[:, :1])
        logp = torch.cat([zero, torch.where(mask[:, 1:], logp, torch.zeros_like(logp))], dim=1)
        values = torch.cat([zero, torch.where(mask[:, 1:], v, torch.zeros_like(v))], dim=1)
        return logp, values


def token_rewards(scores: Tensor, logp: Tensor, ref_logp: Tensor, mask: Tensor, kl_coef: float) -> Tensor:
    """(N, L) PPO rewards: −kl_coef (log π − log π_ref) on every completion token, plus the sequence's
    score (N,) on its last completion token."""
    if scores.shape != logp.shape[:1]:
        raise ValueError(f"scores must be (N,) = ({logp.shape[0]},), got {tuple(scores.shape)}")
    kl = torch.where(mask, logp - ref_logp, torch.zeros_like(logp))
    last = mask.long().cumsum(-1).argmax(-1)  # the last True position of each row
    bonus = torch.zeros_like(logp).scatter(-1, last[:, None], scores[:, None].to(logp.dtype))
    return -kl_coef * kl + torch.where(mask, bonus, torch.zeros_like(bonus))


def gae(rewards: Tensor, values: Tensor, mask: Tensor, gamma: float, lam: float) -> tuple[Tensor, Tensor]:
    """Generalised advantage estimation over the completion tokens of each row: ``(advantages, returns)``.

    δ_t = r_t + γ V_{t+1} − V_t and A_t = δ_t + γ λ A_{t+1}, where t+1 is the next completion token (none
    after the last: V = A = 0 there); returns = A + V. Both (N, L), 0 off ``mask``. λ = 1 gives the
    discounted reward-to-go minus V."""
    if not (rewards.shape == values.shape == mask.shape):
        raise ValueError(
            f"rewards {tuple(rewards.shape)}, values {tuple(values.shape)}, mask {tuple(mask.shape)} differ"
        )
    adv = torch.zeros_like(rewards)
    next_v = torch.zeros_like(rewards[:, 0])
    next_a = torch.zeros_like(rewards[:, 0])
    cols = torch.nonzero(mask.any(0)).flatten().tolist()  # only columns holding completion tokens
    # a loop over those positions (a completion's few tokens); every row at once
    for t in range(cols[-1] if cols else -1, (cols[0] if cols else 0) - 1, -1):
        on = mask[:, t]
        delta = rewards[:, t] + gamma * next_v - values[:, t]
        a = delta + gamma * lam * next_a
        adv[:, t] = torch.where(on, a, torch.zeros_like(a))
        next_v = torch.where(on, values[:, t], next_v)
        next_a = torch.where(on, a, next_a)
    returns = torch.where(mask, adv + values, torch.zeros_like(adv))
    return adv, returns


def episode_returns(step_rewards: Tensor, gamma: float) -> Tensor:
    """(E, S) discounted returns G_s = Σ_{s' >= s} γ^(s' − s) r_s' of E episodes of S steps (prompt/answer
    rounds of a game): pass them, flattened, as :func:`ppo_step`'s ``scores`` to credit a round with what
    follows it; γ = 0 keeps each round's own reward (TRL's per-step PPO, the paper's setting)."""
    if step_rewards.dim() != 2:
        raise ValueError(f"step_rewards must be (E, S), got shape {tuple(step_rewards.shape)}")
    if not 0 <= gamma <= 1:
        raise ValueError(f"gamma must be in [0, 1], got {gamma!r}")
    out = torch.zeros_like(step_rewards)
    running = torch.zeros_like(step_rewards[:, 0])
    for s in range(step_rewards.shape[1] - 1, -1, -1):  # S rounds, every episode at once
        running = step_rewards[:, s] + gamma * running
        out[:, s] = running
    return out


def _same_shape(clip: float, **tensors: Tensor) -> None:
    if not (isinstance(clip, (int, float)) and clip > 0):
        raise ValueError(f"clip must be a number > 0, got {clip!r}")
    shapes = {name: tuple(t.shape) for name, t in tensors.items()}
    if len(set(shapes.values())) > 1:
        raise ValueError(f"these must share one (N, L) shape: {shapes}")


def whiten(x: Tensor, mask: Tensor) -> Tensor:
    """(x − mean) / std over the masked entries (0 elsewhere); std with Bessel's correction, floored."""
    _same_shape(1.0, x=x, mask=mask)
    n = mask.sum()
    mean = (x * mask).sum() / n
    var = (((x - mean) * mask) ** 2).sum() / (n - 1).clamp(min=1)
    return torch.where(mask, (x - mean) / torch.sqrt(var + 1e-8), torch.zeros_like(x))


def ppo_policy_loss(
    logp: Tensor, old_logp: Tensor, advantages: Tensor, mask: Tensor, clip: float
) -> tuple[Tensor, Tensor]:
    """PPO's clipped surrogate over masked tokens: ``(loss, clip_fraction)``.

    loss = mean_t max(−A ρ, −A clip(ρ, 1 − ε, 1 + ε)), ρ = exp(log π − log π_old); clip_fraction is the
    share of tokens where the clipped term is the larger (the gradient is cut)."""
    _same_shape(clip, logp=logp, old_logp=old_logp, advantages=advantages, mask=mask)
    ratio = torch.exp(logp - old_logp)
    plain = -advantages * ratio
    clipped = -advantages * ratio.clamp(1.0 - clip, 1.0 + clip)
    n = mask.sum().clamp(min=1)
    loss = (torch.maximum(plain, clipped) * mask).sum() / n
    frac = ((clipped > plain) & mask).sum() / n
    return loss, frac.detach()


def ppo_value_loss(values: Tensor, old_values: Tensor, returns: Tensor, mask: Tensor, clip: float) -> Tensor:
    """½ mean_t max((V − R)², (clip(V, V_old ± ε) − R)²) over masked tokens (TRL's clipped value loss)."""
    _same_shape(clip, values=values, old_values=old_values, returns=returns, mask=mask)
    clipped = old_values + (values - old_values).clamp(-clip, clip)
    worst = torch.maximum((values - returns) ** 2, (clipped - returns) ** 2)
    return 0.5 * (worst * mask).sum() / mask.sum().clamp(min=1)


def adaptive_kl_coef(coef: float, kl: float, *, target: float, horizon: float, n_steps: int) -> float:
    """Ziegler et al.'s adaptive KL controller (TRL's AdaptiveKLController): the next coefficient.

    coef · (1 + clip(kl / target − 1, −0.2, 0.2) · n_steps / horizon)."""
    if not (target > 0 and horizon > 0):
        raise ValueError(f"target and horizon must be > 0, got {target}, {horizon}")
    error = min(max(kl / target - 1.0, -0.2), 0.2)
    return coef * (1.0 + error * n_steps / horizon)


@dataclass(frozen=True)
class PPOConfig:
    """One PPO update on a rollout (TRL PPOTrainer's defaults where the paper gives none).

    Attributes:
        epochs: passes over the rollout (>= 1).
        minibatches: equal parts the rollout is cut into each epoch (>= 1; rows shuffled when > 1).
        clip: ε of the ratio clip; value_clip: ε of the value clip.
        vf_coef: weight of the value loss.
        gamma, lam: discount and GAE λ over the completion tokens.
        kl_coef: β of the per-token KL penalty to the reference (>= 0).
        advantage: ``"gae"`` (GAE(γ, λ)) or ``"returns"`` (reward-to-go − V, i.e. λ = 1).
        whiten_advantages: normalise advantages over the rollout's tokens.
        grad_clip: the largest global gradient norm (``math.inf``: off).
    """

    epochs: int = 4
    minibatches: int = 1
    clip: float = 0.2
    value_clip: float = 0.2
    vf_coef: float = 0.1
    gamma: float = 1.0
    lam: float = 0.95
    kl_coef: float = 0.2
    advantage: Advantage = "gae"
    whiten_advantages: bool = True
    grad_clip: float = 1.0

    def __post_init__(self) -> None:
        for name in ("epochs", "minibatches"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"PPOConfig.{name} must be an int >= 1, got {value!r}")
        for name in ("clip", "value_clip", "grad_clip"):
            if not getattr(self, name) > 0:
                raise ValueError(f"PPOConfig.{name} must be > 0, got {getattr(self, name)!r}")
        for name in ("vf_coef", "kl_coef"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"PPOConfig.{name} must be a finite number >= 0, got {value!r}")
        for name in ("gamma", "lam"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"PPOConfig.{name} must be in [0, 1], got {getattr(self, name)!r}")
        if self.advantage not in ("gae", "returns"):
            raise ValueError(f"PPOConfig.advantage must be 'gae' or 'returns', got {self.advantage!r}")


def _optimizer_params(optimizer: torch.optim.Optimizer | Adam) -> list[Tensor]:
    """The tensors ``optimizer`` updates: a torch optimiser's param groups, or ``paperkit.optim.Adam``'s."""
    if isinstance(optimizer, Adam):
        return optimizer.params
    if isinstance(optimizer, torch.optim.Optimizer):
        return [p for group in optimizer.param_groups for p in group["params"]]
    raise TypeError(
        f"optimizer must be a torch.optim.Optimizer or paperkit.optim.Adam, got {type(optimizer).__name__}"
    )


def ppo_step(
    policy: ValueHeadLM,
    reference: torch.nn.Module,
    rollout: Rollout,
    scores: Tensor,
    optimizer: torch.optim.Optimizer | Adam,
    config: PPOConfig,
    *,
    generator: torch.Generator | None = None,
) -> dict[str, float]:
    """One PPO update of ``policy`` (in place) on ``rollout`` scored by ``scores`` (N,).

    Old log-probs and values come from ``policy`` before the update, reference log-probs from
    ``reference`` (frozen); ``optimizer`` is a ``torch.optim`` optimiser or ``paperkit.optim.Adam``
    (the same arithmetic without torch.optim's ~2-4 CPU-s first-use import); rewards are
    :func:`token_rewards`, advantages :func:`gae` (optionally whitened); then ``config.epochs`` passes of
    :func:`ppo_policy_loss` + vf_coef · :func:`ppo_value_loss` with gradient clipping, over
    ``config.minibatches`` parts (shuffled with ``generator``, a CPU ``torch.Generator``, needed when
    there is more than one part).

    Returns the step's means: ``score``, ``kl`` (per sequence, k1), ``policy_loss``, ``value_loss``,
    ``clip_fraction`` (last epoch) and ``kl_coef``.
    """
    if not isinstance(policy, ValueHeadLM):
        raise TypeError(f"policy must be a ValueHeadLM, got {type(policy).__name__}")
    if not isinstance(config, PPOConfig):
        raise TypeError(f"config must be a PPOConfig, got {type(config).__name__}")
    n = rollout.input_ids.shape[0]
    scores = torch.as_tensor(scores, dtype=torch.float32, device=rollout.input_ids.device)
    if scores.shape != (n,):
        raise ValueError(f"scores must be ({n},), one per rollout row, got {tuple(scores.shape)}")
    if not bool(torch.isfinite(scores).all()):
        raise ValueError("scores must be finite")
    if config.minibatches > 1 and generator is None:
        raise ValueError("minibatches > 1 shuffles rows: pass a generator")
    batch, mask = rollout.batch(), rollout.response_mask
    with torch.no_grad():
        old_logp, old_values = policy(batch)
        _, ref_logp = sequence_logprobs(reference, batch)
        rewards = token_rewards(scores, old_logp, ref_logp, mask, config.kl_coef)
        lam = 1.0 if config.advantage == "returns" else config.lam
        adv, returns = gae(rewards, old_values, mask, config.gamma, lam)
        if config.whiten_advantages:
            adv = whiten(adv, mask)
    params = _optimizer_params(optimizer)
    was_training = policy.training
    policy.train()
    stats: dict[str, list[float]] = {"policy_loss": [], "value_loss": [], "clip_fraction": []}
    try:
        for _ in range(config.epochs):
            order = torch.randperm(n, generator=generator) if config.minibatches > 1 else torch.arange(n)
            for part in order.to(mask.device).chunk(config.minibatches):
                sub = {key: value[part] for key, value in batch.items()}
                logp, values = policy(sub)
                pg, frac = ppo_policy_loss(logp, old_logp[part], adv[part], mask[part], config.clip)
                vf = ppo_value_loss(values, old_values[part], returns[part], mask[part], config.value_clip)
                optimizer.zero_grad()
                (pg + config.vf_coef * vf).backward()
                torch.nn.utils.clip_grad_norm_(params, config.grad_clip)
                optimizer.step()
                stats["policy_loss"].append(float(pg.detach()))
                stats["value_loss"].append(float(vf.detach()))
                stats["clip_fraction"].append(float(frac))
    finally:
        policy.train(was_training)
        optimizer.zero_grad()
    last = stats["clip_fraction"][-config.minibatches :]
    return {
        "score": float(scores.mean()),
        "kl": float(sequence_kl(old_logp, ref_logp, mask).mean()),
        "policy_loss": sum(stats["policy_loss"]) / len(stats["policy_loss"]),
        "value_loss": sum(stats["value_loss"]) / len(stats["value_loss"]),
        "clip_fraction": sum(last) / len(last),
        "kl_coef": config.kl_coef,
    }
