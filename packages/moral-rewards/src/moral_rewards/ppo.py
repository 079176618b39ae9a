"""PPO fine-tuning of an LM agent that answers in action tokens, on a per-step scalar reward (TRL-0.7 style).

One *episode* = ``batch_size`` (official: 5) consecutive one-shot rounds against the opponent, each a
(query, response, score) triple; then one PPO step on the batch, as the official ``ppo_trainer.step``:

- score normalisation: running mean / std over all scores so far (``use_score_scaling``, ``use_score_norm``);
- per-token reward r_t = -beta (log pi(y_t) - log pi_ref(y_t)), plus the score on the last response token;
- GAE over the response tokens with gamma = 1, lambda = 0.95, values from a linear value head on the
  final hidden state; advantages whitened over the batch;
- ``epochs`` = 4 passes over the batch (one minibatch = the batch): clipped surrogate (clip 0.2) plus
  ``vf_coef`` = 0.1 x the clipped value loss (clip 0.2), Adam;
- adaptive KL (Ziegler et al.): beta *= 1 + clip(KL / target - 1, -0.2, 0.2) * batch / horizon, with
  target 6 and horizon 10000 (TRL's defaults; the official run sets init_kl_coef 0.2, adap_kl_ctrl).

Responses are sampled with pure sampling (top_k 0, top_p 1) for exactly ``len(tokenize(action))`` tokens
(the longest action string), decoded, stripped and compared with the action strings. Prompts of one batch
are left-padded (explicit position ids), so any HF causal LM with a tokenizer can be the agent.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from paperkit import check_int, check_number, check_seed

from moral_rewards.env import parse_action
from moral_rewards.evaluate import GameLog
from moral_rewards.games import ILLEGAL, C, Opponent, initial_state, payoff_table
from moral_rewards.prompts import build_prompt, check_tokens
from moral_rewards.rewards import R_ILLEGAL, XI, reward
from moral_rewards.tabular import RunningMoments

__all__ = ["LMAgent", "PPOConfig", "PPOResult", "PPOState", "encode_queries", "play", "ppo_step", "train_ppo"]


@dataclass(frozen=True)
class PPOConfig:
    """Defaults: the official job file / TRL 0.7 defaults, except ``lr`` (spec: 1e-4 for the tiny model)."""

    lr: float = 1e-4  # spec (official: 1.41e-5 with LoRA on a 2B model)
    kl_coef: float = 0.2  # official --init_kl_coef 0.2
    adaptive_kl: bool = True  # official --adap_kl_ctrl True
    target_kl: float = 6.0  # TRL default
    horizon: float = 10_000.0  # TRL default
    epochs: int = 4  # TRL default ppo_epochs
    clip: float = 0.2  # TRL default cliprange
    clip_value: float = 0.2  # TRL default cliprange_value
    gamma: float = 1.0  # TRL default
    lam: float = 0.95  # TRL default
    vf_coef: float = 0.1  # TRL default
    score_norm: bool = True  # official use_score_scaling + use_score_norm (score_clip never set: a typo)

    def __post_init__(self) -> None:
        check_number(self.lr, "lr", low=0.0)
        check_number(self.kl_coef, "kl_coef", low=0.0)
        check_int(self.epochs, "epochs", low=1)
        check_number(self.clip, "clip", low=0.0)


class LMAgent(torch.nn.Module):
    """A causal LM with a scalar value head on its last hidden state (as TRL's value-head model)."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model
        hidden = int(model.config.hidden_size)  # type: ignore[union-attr,arg-type]
        self.value_head = torch.nn.Linear(hidden, 1, device=next(model.parameters()).device)
        torch.nn.init.zeros_(self.value_head.weight)
        torch.nn.init.zeros_(self.value_head.bias)

    def forward(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits (B, T, V), values (B, T)) of a left-padded batch."""
        out = self.model(**batch, output_hidden_states=True)
        return out.logits, self.value_head(out.hidden_states[-1]).squeeze(-1)


def encode_queries(
    tokenizer: Any, prompts: Sequence[str], device: torch.device | str
) -> dict[str, torch.Tensor]:
    """Left-padded ``<bos> prompt`` ids with attention mask and position ids (B, T)."""
    ids = [[tokenizer.bos_token_id, *tokenizer(p, add_special_tokens=False)["input_ids"]] for p in prompts]
    width = max(map(len, ids))
    pad = tokenizer.pad_token_id
    rows = torch.tensor([[pad] * (width - len(r)) + r for r in ids], device=device)
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in ids], device=device)
    return {"input_ids": rows, "attention_mask": mask, "position_ids": (mask.cumsum(-1) - 1).clamp(min=0)}


def _extend(batch: dict[str, torch.Tensor], tokens: torch.Tensor) -> dict[str, torch.Tensor]:
    """The batch with ``tokens`` (B, L) appended."""
    ones = torch.ones_like(tokens)
    last = batch["position_ids"][:, -1:]
    pos = last + torch.arange(1, tokens.shape[1] + 1, device=tokens.device)
    return {
        "input_ids": torch.cat([batch["input_ids"], tokens], 1),
        "attention_mask": torch.cat([batch["attention_mask"], ones], 1),
        "position_ids": torch.cat([batch["position_ids"], pos], 1),
    }


@torch.no_grad()
def sample_responses(
    agent: LMAgent, query: dict[str, torch.Tensor], n_tokens: int, gen: torch.Generator
) -> torch.Tensor:
    """(B, n_tokens) ids drawn by pure sampling (temperature 1, no top-k / top-p)."""
    out = torch.empty((query["input_ids"].shape[0], 0), dtype=torch.long, device=query["input_ids"].device)
    for _ in range(n_tokens):
        logits = agent.model(**_extend(query, out)).logits[:, -1].float()
        nxt = torch.multinomial(torch.softmax(logits, -1).cpu(), 1, generator=gen).to(out.device)
        out = torch.cat([out, nxt], 1)
    return out


def _response_logp_values(
    agent: LMAgent, full: dict[str, torch.Tensor], n: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probs (B, n) of the last n tokens and the values (B, n) at the positions predicting them."""
    logits, values = agent(full)
    logits, values = logits[:, -n - 1 : -1], values[:, -n - 1 : -1]
    logp = torch.log_softmax(logits.float(), -1).gather(-1, full["input_ids"][:, -n:, None]).squeeze(-1)
    return logp, values


@dataclass
class PPOState:
    """The trainer's state across steps: the optimiser, the KL coefficient beta and the score moments."""

    optimizer: torch.optim.Optimizer
    beta: float
    moments: RunningMoments = field(default_factory=RunningMoments)


def _whiten(x: torch.Tensor) -> torch.Tensor:
    return (x - x.mean()) * torch.rsqrt(x.var(unbiased=False) + 1e-8)  # TRL's whiten(shift_mean=True)


def ppo_step(
    agent: LMAgent,
    ref: torch.nn.Module,
    query: dict[str, torch.Tensor],
    response: torch.Tensor,
    scores: np.ndarray,
    cfg: PPOConfig,
    state: PPOState,
) -> dict[str, float]:
    """One PPO step on a batch of (query, response, score); returns its statistics (KL, beta, losses)."""
    full, n = _extend(query, response), response.shape[1]
    if cfg.score_norm:
        state.moments.update(scores)
        scores = state.moments.normalise(scores)
    with torch.no_grad():
        old_logp, old_values = _response_logp_values(agent, full, n)
        ref_logits = ref(**full).logits[:, -n - 1 : -1].float()
        ref_logp = torch.log_softmax(ref_logits, -1).gather(-1, response[..., None]).squeeze(-1)
        kl = old_logp - ref_logp
        rewards = -state.beta * kl
        rewards[:, -1] += torch.as_tensor(scores, dtype=rewards.dtype, device=rewards.device)
        adv, last = torch.zeros_like(rewards), torch.zeros_like(rewards[:, 0])
        for t in reversed(range(n)):
            nxt = old_values[:, t + 1] if t + 1 < n else torch.zeros_like(last)
            last = rewards[:, t] + cfg.gamma * nxt - old_values[:, t] + cfg.gamma * cfg.lam * last
            adv[:, t] = last
        returns = adv + old_values
        adv = _whiten(adv)
    for _ in range(cfg.epochs):
        logp, values = _response_logp_values(agent, full, n)
        v_clip = old_values + (values - old_values).clamp(-cfg.clip_value, cfg.clip_value)
        vf_loss = 0.5 * torch.max((values - returns) ** 2, (v_clip - returns) ** 2).mean()
        ratio = torch.exp(logp - old_logp)
        pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
        loss = pg_loss + cfg.vf_coef * vf_loss
        state.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        state.optimizer.step()
    mean_kl = float(kl.sum(-1).mean())
    beta = state.beta
    if cfg.adaptive_kl:
        err = float(np.clip(mean_kl / cfg.target_kl - 1, -0.2, 0.2))
        state.beta *= 1 + err * response.shape[0] / cfg.horizon
    return {
        "kl": mean_kl,
        "beta": beta,
        "pg_loss": float(pg_loss.detach()),
        "vf_loss": float(vf_loss.detach()),
    }


def response_length(tokenizer: Any, tokens: Sequence[str]) -> int:
    """The number of tokens to generate: the longest tokenisation of an action string (official gen_len)."""
    return max(len(tokenizer(" " + t, add_special_tokens=False)["input_ids"]) for t in tokens)


@torch.no_grad()
def play(
    agent: LMAgent,
    tokenizer: Any,
    *,
    game: str = "IPD",
    opponent: str = "Random",
    tokens: Sequence[str] = ("action3", "action4"),
    n_games: int = 50,
    steps: int = 5,
    variant: str = "structured",
    seed: int = 0,
) -> GameLog:
    """Evaluation: ``n_games`` independent games of ``steps`` rounds, batched: one forward per round.

    Returns a ``GameLog`` of shape (n_games, 1, steps) (each game one "episode").
    """
    rng = np.random.default_rng(check_seed(seed))
    gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
    tokens, table, opp = check_tokens(tokens, "tokens"), payoff_table(game), Opponent(opponent)
    check_int(n_games, "n_games", low=1)
    dev = next(agent.parameters()).device
    n_tok = response_length(tokenizer, tokens)
    own, prev_opp = initial_state(opp, rng, size=n_games)
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("prev_own", "prev_opp", "a_m", "a_o", "reward")}
    for _ in range(check_int(steps, "steps", low=1)):
        prompts = [
            build_prompt(table, int(o), int(p), tokens=tokens, order_rng=rng, variant=variant)
            for o, p in zip(own, prev_opp, strict=True)
        ]
        resp = sample_responses(agent, encode_queries(tokenizer, prompts, dev), n_tok, gen)
        a = np.array([parse_action(tokenizer.decode(r), tokens) for r in resp.tolist()], dtype=np.int64)
        a_o = opp.next_move(own, rng)
        r = reward("game", a, a_o, prev_opp, table)
        for k, v in (("prev_own", own), ("prev_opp", prev_opp), ("a_m", a), ("a_o", a_o), ("reward", r)):
            cols[k].append(np.asarray(v))
        own, prev_opp = np.where(a == ILLEGAL, own, a), a_o
    return GameLog(**{k: np.stack(v, axis=-1)[:, None, :] for k, v in cols.items()})


@dataclass(frozen=True)
class PPOResult:
    """The training play ``log`` (1, episodes, batch) and per-episode PPO statistics (``kl``, ``beta``)."""

    log: GameLog
    kl: np.ndarray
    beta: np.ndarray


def train_ppo(
    agent: LMAgent,
    tokenizer: Any,
    reward_schedule: Sequence[tuple[str, int]] = (("game", 300),),
    *,
    config: PPOConfig = PPOConfig(),
    game: str = "IPD",
    opponent: str = "TFT",
    tokens: Sequence[str] = ("action1", "action2"),
    batch_size: int = 5,
    xi: float = XI,
    r_illegal: float = R_ILLEGAL,
    ref_model: torch.nn.Module | None = None,
    seed: int = 0,
) -> PPOResult:
    """Fine-tune ``agent`` in place by PPO on ``reward_schedule`` = ((reward, episodes), ...).

    The reference is a frozen copy of ``agent.model`` taken now (or ``ref_model``). Each stage keeps the
    optimiser, the KL coefficient and the score statistics (the official unlearning runs one trainer).
    """
    rng = np.random.default_rng(check_seed(seed))
    gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
    tokens, table, opp = check_tokens(tokens, "tokens"), payoff_table(game), Opponent(opponent)
    check_int(batch_size, "batch_size", low=1)
    stages = [(k, check_int(e, "episodes", low=1)) for k, e in reward_schedule]
    if not stages:
        raise ValueError("reward_schedule must list at least one (reward, episodes) stage")
    ref = ref_model if ref_model is not None else copy.deepcopy(agent.model)
    ref.eval().requires_grad_(False)
    dev = next(agent.parameters()).device
    n_tok = response_length(tokenizer, tokens)
    state = PPOState(torch.optim.Adam(agent.parameters(), lr=config.lr), config.kl_coef)
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("prev_own", "prev_opp", "a_m", "a_o", "reward")}
    kls, betas = [], []
    for kind, episodes in stages:
        reward(kind, C, C, C, table)  # validates the name before any training
        for _ in range(episodes):
            own, prev_opp = initial_state(opp, rng)
            ep: dict[str, list] = {k: [] for k in cols}
            queries, responses = [], []
            for _ in range(batch_size):
                prompt = build_prompt(table, own, prev_opp, tokens=tokens, order_rng=rng)
                q = encode_queries(tokenizer, [prompt], dev)
                resp = sample_responses(agent, q, n_tok, gen)
                a = parse_action(tokenizer.decode(resp[0].tolist()), tokens)
                a_o = int(opp.next_move(own, rng))
                r = float(reward(kind, a, a_o, prev_opp, table, xi=xi, r_illegal=r_illegal))
                for k, v in (
                    ("prev_own", own),
                    ("prev_opp", prev_opp),
                    ("a_m", a),
                    ("a_o", a_o),
                    ("reward", r),
                ):
                    ep[k].append(v)
                queries.append(prompt)
                responses.append(resp[0])
                own, prev_opp = (own if a == ILLEGAL else a), a_o
            stats = ppo_step(
                agent,
                ref,
                encode_queries(tokenizer, queries, dev),
                torch.stack(responses),
                np.asarray(ep["reward"], dtype=float),
                config,
                state,
            )
            kls.append(stats["kl"])
            betas.append(stats["beta"])
            for k in cols:
                cols[k].append(np.asarray(ep[k]))
    log = GameLog(**{k: np.stack(v)[None] for k, v in cols.items()})
    return PPOResult(log=log, kl=np.asarray(kls), beta=np.asarray(betas))
