"""PPO (paperkit.lm.ppo_step driven round by round) on a one-state bandit, the KL penalty's effect, the score
normalisation and adaptive KL of the trainer state, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from moral_rewards.ppo import PPOConfig, PPOState, play, ppo_step, train_ppo
from moral_rewards.tiny import build_tiny_lm, build_tokenizer
from paperkit.lm import ValueHeadLM, concat_rollouts, sample_k
from paperkit.optim import Adam

PROMPT = "Answer exactly action1 or action2 :"


def _sample(agent, tok, seed):
    return sample_k(agent.lm, tok, [PROMPT], 1, max_new_tokens=1, seed=seed)


def _bandit(kl_coef: float, steps: int, seed: int = 0, lr: float = 1e-2, device: str = "cpu"):
    """Reward +1 for answering action1 to a fixed prompt (other answers 0); returns (P(action1), KL)."""
    torch.manual_seed(seed)
    tok = build_tokenizer()
    agent = ValueHeadLM(build_tiny_lm(tok, n_layer=1, d_model=32, seed=seed, device=device))
    ref = build_tiny_lm(tok, n_layer=1, d_model=32, seed=seed, device=device).requires_grad_(False)
    cfg = PPOConfig(lr=lr, kl_coef=kl_coef, adaptive_kl=False)
    state = PPOState(Adam(agent.parameters(), lr=lr), kl_coef)
    target = tok.convert_tokens_to_ids("action1")
    kls = []
    for step in range(steps):
        ro = sample_k(agent.lm, tok, [PROMPT], 16, max_new_tokens=1, seed=step)  # 16 answers, one batch
        scores = np.array([1.0 if t == "action1" else 0.0 for t in ro.texts])
        kls.append(ppo_step(agent, ref, ro, scores, cfg, state)["kl"])
    ids = torch.tensor([[tok.bos_token_id, *tok(PROMPT)["input_ids"]]], device=device)
    with torch.no_grad():
        p = torch.softmax(agent.lm(ids).logits[0, -1], -1)[target]
    return float(p), float(np.mean(kls[-5:]))


def test_bandit_learns_and_kl_penalty_binds(device):
    p_free, kl_free = _bandit(0.0, 20, device=device)
    assert p_free > 0.95  # from ~1/59 at initialisation (0.996 measured)
    _p_tied, kl_tied = _bandit(5.0, 20, device=device)  # KL 0.03 vs 3.97 free, measured
    assert kl_free > 1.0 and kl_tied < 0.3 * kl_free


def test_trainer_state_normalises_scores_and_adapts_beta():
    tok = build_tokenizer()
    agent = ValueHeadLM(build_tiny_lm(tok, n_layer=1, d_model=16, seed=0))
    ref = build_tiny_lm(tok, n_layer=1, d_model=16, seed=0).requires_grad_(False)
    cfg = PPOConfig(horizon=10.0, target_kl=6.0)
    state = PPOState(Adam(agent.parameters(), lr=1e-4), 0.2)
    ro = concat_rollouts([_sample(agent, tok, i) for i in range(5)], pad_id=0)
    stats = ppo_step(agent, ref, ro, np.array([3.0, 0.0, 3.0, -6.0, 5.0]), cfg, state)
    assert state.moments.mean == pytest.approx(1.0)  # the running moments saw the raw scores
    assert stats["beta"] == 0.2 and stats["kl"] == pytest.approx(0.0, abs=1e-6)  # policy == reference
    assert state.beta == pytest.approx(0.2 * (1 - 0.2 * 5 / 10))  # KL 0 << target: the controller's floor


def test_ppo_config_refuses_bad_values():
    with pytest.raises(ValueError, match="epochs"):
        PPOConfig(epochs=0)
    with pytest.raises(ValueError, match="lr"):
        PPOConfig(lr=-1.0)


def test_train_ppo_refuses_bad_input():
    tok = build_tokenizer()
    model = build_tiny_lm(tok, n_layer=1, d_model=16, seed=0)
    with pytest.raises(TypeError, match=r"agent must be a paperkit\.lm\.ValueHeadLM"):
        train_ppo(model, tok, (("game", 1),))
    with pytest.raises(ValueError, match="opponent"):
        train_ppo(ValueHeadLM(model), tok, (("game", 1),), opponent="GrimTrigger")
    with pytest.raises(ValueError, match="reward"):
        train_ppo(ValueHeadLM(model), tok, (("game", 1), ("selfless", 1)))
    with pytest.raises(TypeError, match=r"agent must be a paperkit\.lm\.ValueHeadLM"):
        play(model, tok)
    with pytest.raises(ValueError, match="opponent"):
        play(ValueHeadLM(model), tok, opponent="GrimTrigger")
    with pytest.raises(ValueError, match="n_games"):
        play(ValueHeadLM(model), tok, n_games=0)
