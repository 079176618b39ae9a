"""paperkit.lm.rl: RLOO, KL, GAE and the PPO clip against hand computations and brute-force loops; PPO and
RLOO learn a 2-armed token bandit."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from paperkit.lm import char_tokenizer, sequence_logprobs, tiny_causal_lm  # noqa: E402
from paperkit.lm.rl import (  # noqa: E402
    PPOConfig,
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

F64 = torch.float64
pytestmark = pytest.mark.usefixtures("torch_one_thread")


def test_rloo_advantages_are_leave_one_out_means():
    r = torch.tensor([[1.0, 0.0, 2.0, 5.0], [3.0, 3.0, 3.0, 3.0]], dtype=F64)
    got = rloo_advantages(r)
    for b in range(2):
        for i in range(4):
            others = [float(r[b, j]) for j in range(4) if j != i]
            assert float(got[b, i]) == pytest.approx(float(r[b, i]) - sum(others) / 3, abs=1e-12)
    with pytest.raises(ValueError, match="K >= 2"):
        rloo_advantages(torch.zeros(3, 1))


def test_rloo_loss_is_reinforce_on_kl_penalised_leave_one_out_advantages():
    logp = torch.tensor([[-1.0, -2.0, -0.5]], dtype=F64, requires_grad=True)
    scores = torch.tensor([[1.0, 0.0, 0.0]], dtype=F64)
    kl = torch.tensor([[0.5, 0.0, 1.0]], dtype=F64)
    loss = rloo_loss(logp, scores, kl, 0.2)
    r = [1.0 - 0.1, 0.0, -0.2]
    adv = [r[i] - (sum(r) - r[i]) / 2 for i in range(3)]
    assert float(loss.detach()) == pytest.approx(
        -sum(a * lp for a, lp in zip(adv, [-1.0, -2.0, -0.5], strict=True)) / 3
    )
    (g,) = torch.autograd.grad(loss, logp)
    torch.testing.assert_close(g, -torch.tensor([adv], dtype=F64) / 3)
    with pytest.raises(ValueError, match="kl_coef"):
        rloo_loss(logp, scores, kl, -1.0)
    with pytest.raises(ValueError, match="differ"):
        reinforce_loss(logp, torch.zeros(2))


def test_sequence_kl_estimators():
    logp = torch.tensor([[-1.0, -0.5, -9.0]], dtype=F64)
    ref = torch.tensor([[-1.5, -0.25, 0.0]], dtype=F64)
    mask = torch.tensor([[True, True, False]])
    assert float(sequence_kl(logp, ref, mask)) == pytest.approx(0.5 - 0.25)
    k3 = sum(math.exp(r - lp) - 1 - (r - lp) for lp, r in [(-1.0, -1.5), (-0.5, -0.25)])
    assert float(sequence_kl(logp, ref, mask, "k3")) == pytest.approx(k3)
    with pytest.raises(ValueError, match="estimator"):
        sequence_kl(logp, ref, mask, "k2")  # type: ignore[arg-type]


def _brute_gae(r, v, m, gamma, lam):
    adv = [[0.0] * len(row) for row in r]
    for b in range(len(r)):
        steps = [t for t in range(len(r[b])) if m[b][t]]
        a_next, v_next = 0.0, 0.0
        for t in reversed(steps):
            delta = r[b][t] + gamma * v_next - v[b][t]
            a_next = delta + gamma * lam * a_next
            adv[b][t], v_next = a_next, v[b][t]
    return adv


@pytest.mark.parametrize(("gamma", "lam"), [(1.0, 0.95), (0.9, 0.5), (1.0, 1.0)])
def test_gae_matches_a_per_row_loop(gamma, lam, torch_gen):
    r = torch.randn(4, 7, generator=torch_gen, dtype=F64).cpu()
    v = torch.randn(4, 7, generator=torch_gen, dtype=F64).cpu()
    m = torch.zeros(4, 7, dtype=torch.bool)
    for b, (lo, hi) in enumerate([(2, 7), (3, 5), (1, 2), (0, 7)]):  # contiguous completions, padded rows
        m[b, lo:hi] = True
    adv, ret = gae(r, v, m, gamma, lam)
    expected = torch.tensor(_brute_gae(r.tolist(), v.tolist(), m.tolist(), gamma, lam), dtype=F64)
    torch.testing.assert_close(adv, expected, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(ret, torch.where(m, expected + v, 0.0), rtol=1e-12, atol=1e-12)
    if lam == 1.0 and gamma == 1.0:  # reward-to-go minus V
        rtg = torch.where(m, r, 0.0).flip(-1).cumsum(-1).flip(-1)
        torch.testing.assert_close(adv, torch.where(m, rtg - v, 0.0), rtol=1e-12, atol=1e-12)


def test_episode_returns_are_discounted_sums_of_later_rounds():
    r = torch.tensor([[1.0, 0.0, 2.0, -1.0], [0.5, 0.5, 0.5, 0.5]], dtype=F64)
    g = episode_returns(r, 0.9)
    for e in range(2):
        for s in range(4):
            expected = sum(0.9 ** (t - s) * float(r[e, t]) for t in range(s, 4))
            assert float(g[e, s]) == pytest.approx(expected, abs=1e-12)
    torch.testing.assert_close(episode_returns(r, 0.0), r)
    with pytest.raises(ValueError, match="gamma must be in"):
        episode_returns(r, 1.5)
    with pytest.raises(ValueError, match=r"\(E, S\)"):
        episode_returns(r[0], 0.9)


def test_shape_mismatches_are_refused():
    z, m = torch.zeros(2, 3), torch.ones(2, 3, dtype=torch.bool)
    with pytest.raises(ValueError, match="differ"):
        gae(z, torch.zeros(2, 4), m, 1.0, 0.95)
    with pytest.raises(ValueError, match=r"scores must be \(N,\) = \(2,\)"):
        token_rewards(torch.zeros(3), z, z, m, 0.1)
    with pytest.raises(ValueError, match="differ"):
        sequence_kl(z, z, torch.ones(2, 2, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"share one \(N, L\) shape.*'advantages': \(2, 4\)"):
        ppo_policy_loss(z, z, torch.zeros(2, 4), m, 0.2)
    with pytest.raises(ValueError, match="clip must be a number > 0"):
        ppo_value_loss(z, z, z, m, 0.0)
    with pytest.raises(ValueError, match="share one"):
        whiten(z, torch.ones(3, dtype=torch.bool))


def test_ppo_clip_matches_a_hand_computation():
    ratio = torch.tensor([[0.5, 0.5, 1.5, 1.5, 1.1]], dtype=F64)
    adv = torch.tensor([[1.0, -1.0, 1.0, -1.0, 2.0]], dtype=F64)
    old = torch.zeros_like(ratio)
    logp = ratio.log().requires_grad_(True)
    mask = torch.ones_like(ratio, dtype=torch.bool)
    loss, frac = ppo_policy_loss(logp, old, adv, mask, 0.2)
    # per token max(-A r, -A clip(r, 0.8, 1.2)): -0.5, 0.8 (clipped), -1.2 (clipped), 1.5, -2.2
    assert float(loss.detach()) == pytest.approx((-0.5 + 0.8 - 1.2 + 1.5 - 2.2) / 5)
    assert float(frac) == pytest.approx(2 / 5)
    (g,) = torch.autograd.grad(loss, logp)
    # d/dlogp of -A r is -A r; the clipped tokens get none
    expected = torch.tensor([[-0.5, 0.0, 0.0, 1.5, -2.2]], dtype=F64) / 5
    torch.testing.assert_close(g, expected)
    # masked tokens count nowhere
    loss2, _ = ppo_policy_loss(logp, old, adv, torch.tensor([[True, False, False, False, True]]), 0.2)
    assert float(loss2.detach()) == pytest.approx((-0.5 - 2.2) / 2)


def test_value_loss_and_token_rewards_by_hand():
    v = torch.tensor([[0.0, 1.0, 3.0]], dtype=F64)
    old = torch.tensor([[0.0, 0.5, 1.0]], dtype=F64)
    ret = torch.tensor([[9.0, 2.0, 1.5]], dtype=F64)
    mask = torch.tensor([[False, True, True]])
    # token 1: max((1-2)^2, (0.7-2)^2) = 1.69; token 2: max((3-1.5)^2, (1.2-1.5)^2) = 2.25
    assert float(ppo_value_loss(v, old, ret, mask, 0.2)) == pytest.approx(0.5 * (1.69 + 2.25) / 2)
    logp = torch.tensor([[0.0, -1.0, -2.0, 0.0]], dtype=F64)
    ref = torch.tensor([[0.0, -1.5, -1.0, 0.0]], dtype=F64)
    m = torch.tensor([[False, True, True, False]])
    r = token_rewards(torch.tensor([4.0], dtype=F64), logp, ref, m, 0.2)
    torch.testing.assert_close(r, torch.tensor([[0.0, -0.1, 0.2 + 4.0, 0.0]], dtype=F64))


def test_adaptive_kl_coef_follows_the_controller():
    assert adaptive_kl_coef(0.2, 12.0, target=6.0, horizon=10000, n_steps=5) == pytest.approx(
        0.2 * (1 + 0.2 * 5e-4)
    )
    assert adaptive_kl_coef(0.2, 5.4, target=6.0, horizon=100, n_steps=10) == pytest.approx(0.2 * (1 - 0.01))
    with pytest.raises(ValueError, match="target and horizon"):
        adaptive_kl_coef(0.2, 1.0, target=0.0, horizon=1, n_steps=1)


@pytest.fixture(scope="module")
def tok():
    return char_tokenizer("ab")


def _tiny(tok, seed=0):
    return tiny_causal_lm(tok, n_layer=1, n_head=2, d_model=16, max_positions=16, seed=seed)


def test_sample_k_rows_hold_the_sampled_tokens_and_their_log_probs(tok):
    model = _tiny(tok)
    ro = sample_k(model, tok, ["a", "ba"], 3, max_new_tokens=4, seed=0)
    assert ro.input_ids.shape[0] == 6 and ro.prompt_index.tolist() == [0, 0, 0, 1, 1, 1]
    again = sample_k(model, tok, ["a", "ba"], 3, max_new_tokens=4, seed=0)
    assert torch.equal(again.input_ids, ro.input_ids) and again.texts == ro.texts
    for i in range(6):
        real = ro.input_ids[i][ro.attention_mask[i].bool()].tolist()
        prompt = [tok.bos_token_id, *tok(["a", "ba"][i // 3])["input_ids"]]
        completion = real[len(prompt) :]
        assert real[: len(prompt)] == prompt
        assert ro.input_ids[i][ro.response_mask[i]].tolist() == completion
        assert tok.decode(completion, skip_special_tokens=True) == ro.texts[i]
        with torch.no_grad():  # the oracle: one unpadded forward, log-softmax, pick
            logits = model(torch.tensor([real])).logits[0].double()
        lp = sum(float(torch.log_softmax(logits[t - 1], -1)[real[t]]) for t in range(len(prompt), len(real)))
        assert float(ro.logprobs[i]) == pytest.approx(lp, abs=1e-4)
    _, per_token = sequence_logprobs(model, ro.batch())
    torch.testing.assert_close(per_token.detach(), ro.token_logprobs)
    with pytest.raises(ValueError, match="k must be an int >= 1"):
        sample_k(model, tok, ["a"], 0, max_new_tokens=1, seed=0)
    with pytest.raises(ValueError, match="temperature must be a number > 0"):
        sample_k(model, tok, ["a"], 2, max_new_tokens=1, seed=0, temperature=0.0)


def test_concat_rollouts_equals_one_sample_of_all_rows(tok):
    model = _tiny(tok)
    parts = [sample_k(model, tok, [p], 2, max_new_tokens=3, seed=i) for i, p in enumerate(["a", "bab", "b"])]
    joined = concat_rollouts(parts, pad_id=tok.pad_token_id)
    assert joined.k == 2 and joined.prompt_index.tolist() == [0, 0, 1, 1, 2, 2]
    assert joined.texts == tuple(t for r in parts for t in r.texts)
    for j, r in enumerate(parts):  # every row is the part's row, right-padded with pad
        for i in range(2):
            row, width = joined.input_ids[2 * j + i], r.input_ids.shape[1]
            assert torch.equal(row[:width], r.input_ids[i]) and (row[width:] == tok.pad_token_id).all()
            assert not joined.response_mask[2 * j + i, width:].any()
    total, per_token = sequence_logprobs(model, joined.batch())  # the padded batch scores the same
    torch.testing.assert_close(total.detach(), joined.logprobs)
    torch.testing.assert_close(per_token.detach(), joined.token_logprobs)
    with pytest.raises(ValueError, match="share k"):
        concat_rollouts([parts[0], sample_k(model, tok, ["a"], 3, max_new_tokens=1, seed=0)], pad_id=0)
    with pytest.raises(ValueError, match="non-empty sequence"):
        concat_rollouts([], pad_id=0)
    with pytest.raises(TypeError, match=r"rollouts\[1\] must be a Rollout"):
        concat_rollouts([parts[0], "x"], pad_id=0)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="pad_id must be an int >= 0"):
        concat_rollouts(parts, pad_id=-1)


def test_value_head_starts_at_zero_and_keeps_the_lm_log_probs(tok):
    model = _tiny(tok)
    ro = sample_k(model, tok, ["a"], 4, max_new_tokens=3, seed=1)
    logp, values = ValueHeadLM(model)(ro.batch())
    torch.testing.assert_close(logp.detach(), ro.token_logprobs)
    assert (values == 0).all()


def _bandit_scores(texts):
    return torch.tensor([1.0 if t == "a" else 0.0 for t in texts])


def _p_arm(model, tok, token="a"):
    with torch.no_grad():
        logits = model(torch.tensor([[tok.bos_token_id]])).logits[0, -1]
    return float(torch.softmax(logits, -1)[tok.convert_tokens_to_ids(token)])


def test_ppo_learns_a_two_armed_token_bandit(tok):
    model = _tiny(tok)
    reference = _tiny(tok)
    policy = ValueHeadLM(model)
    start = _p_arm(model, tok)
    optimizer = torch.optim.Adam(policy.parameters(), lr=2e-2)
    config = PPOConfig(kl_coef=0.01)
    for step in range(12):
        ro = sample_k(model, tok, [""], 16, max_new_tokens=1, seed=step)
        stats = ppo_step(policy, reference, ro, _bandit_scores(ro.texts), optimizer, config)
    assert start < 0.3 and _p_arm(model, tok) > 0.9
    assert stats["kl"] > 0 and 0 <= stats["clip_fraction"] <= 1


def test_rloo_learns_the_same_bandit(tok):
    model = _tiny(tok, seed=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-2)
    start = _p_arm(model, tok)
    for step in range(12):
        ro = sample_k(model, tok, [""], 16, max_new_tokens=1, seed=step)
        total, _ = sequence_logprobs(model, ro.batch())
        scores = _bandit_scores(ro.texts)[None]
        loss = rloo_loss(total[None], scores, torch.zeros_like(scores), 0.0)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert start < 0.3 and _p_arm(model, tok) > 0.9


def test_ppo_rejects_bad_input(tok):
    for kw, match in [
        ({"epochs": 0}, "epochs must be an int >= 1"),
        ({"clip": 0.0}, "clip must be > 0"),
        ({"kl_coef": -1.0}, "kl_coef must be a finite number >= 0"),
        ({"lam": 1.5}, r"lam must be in \[0, 1\]"),
        ({"advantage": "td"}, "advantage must be 'gae' or 'returns'"),
    ]:
        with pytest.raises(ValueError, match=match):
            PPOConfig(**kw)
    model = _tiny(tok)
    policy = ValueHeadLM(model)
    ro = sample_k(model, tok, [""], 2, max_new_tokens=1, seed=0)
    opt = torch.optim.SGD(policy.parameters(), lr=0.0)
    with pytest.raises(ValueError, match=r"scores must be \(2,\)"):
        ppo_step(policy, model, ro, torch.zeros(3), opt, PPOConfig())
    with pytest.raises(ValueError, match="finite"):
        ppo_step(policy, model, ro, torch.tensor([0.0, math.nan]), opt, PPOConfig())
    with pytest.raises(TypeError, match="policy must be a ValueHeadLM"):
        ppo_step(model, model, ro, torch.zeros(2), opt, PPOConfig())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pass a generator"):
        ppo_step(policy, model, ro, torch.zeros(2), opt, PPOConfig(minibatches=2))


def test_whiten_normalises_the_masked_entries_only():
    x = torch.tensor([[1.0, 2.0, 3.0, 100.0], [4.0, 5.0, 6.0, -50.0]], dtype=F64)
    m = torch.tensor([[True, True, True, False], [True, True, True, False]])
    w = whiten(x, m)
    vals = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    mean = sum(vals) / 6
    std = math.sqrt(sum((v - mean) ** 2 for v in vals) / 5 + 1e-8)
    torch.testing.assert_close(w[m], torch.tensor([(v - mean) / std for v in vals], dtype=F64))
    assert (w[~m] == 0).all()
