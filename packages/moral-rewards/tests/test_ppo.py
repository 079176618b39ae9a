"""PPO sanity on a one-state bandit, the KL penalty's effect, and the LM path (left padding, sampling)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from moral_rewards.ppo import LMAgent, PPOConfig, PPOState, encode_queries, ppo_step, sample_responses
from moral_rewards.tiny import build_tiny_lm, build_tokenizer


def _bandit(kl_coef: float, steps: int, seed: int = 0, lr: float = 3e-3, device: str = "cpu"):
    """Reward +1 for answering action1 to a fixed prompt (other answers 0); returns (P(action1), KL)."""
    torch.manual_seed(seed)
    tok = build_tokenizer()
    agent = LMAgent(build_tiny_lm(tok, n_layer=1, d_model=32, seed=seed, device=device))
    ref = build_tiny_lm(tok, n_layer=1, d_model=32, seed=seed, device=device).requires_grad_(False)
    cfg = PPOConfig(lr=lr, kl_coef=kl_coef, adaptive_kl=False)
    state = PPOState(torch.optim.Adam(agent.parameters(), lr=lr), kl_coef)
    target = tok.convert_tokens_to_ids("action1")
    q = encode_queries(tok, ["Answer exactly action1 or action2 :"] * 16, device)
    gen = torch.Generator().manual_seed(seed)
    kls = []
    for _ in range(steps):
        resp = sample_responses(agent, q, 1, gen)
        scores = (resp[:, 0] == target).double().cpu().numpy()
        kls.append(ppo_step(agent, ref, q, resp, scores, cfg, state)["kl"])
    with torch.no_grad():
        p = torch.softmax(agent.model(**q).logits[0, -1], -1)[target]
    return float(p), float(np.mean(kls[-5:]))


def test_bandit_learns_and_kl_penalty_binds(device):
    p_free, kl_free = _bandit(0.0, 40, device=device)
    assert p_free > 0.95  # from ~1/59 at initialisation
    _p_tied, kl_tied = _bandit(5.0, 40, device=device)
    assert kl_free > 1.0 and kl_tied < 0.3 * kl_free


def test_left_padding_matches_unpadded(device):
    tok = build_tokenizer()
    model = build_tiny_lm(tok, seed=1, device=device)
    prompts = ["Answer exactly action1 or action2 :", "Points :"]
    batch = encode_queries(tok, prompts, device)
    with torch.no_grad():
        padded = model(**batch).logits[:, -1]
        for i, p in enumerate(prompts):
            alone = model(**encode_queries(tok, [p], device)).logits[0, -1]
            torch.testing.assert_close(padded[i], alone, atol=1e-4, rtol=1e-4)


def test_ppo_config_refuses_bad_values():
    with pytest.raises(ValueError, match="epochs"):
        PPOConfig(epochs=0)
    with pytest.raises(ValueError, match="lr"):
        PPOConfig(lr=-1.0)
