"""TPO's loss, λ-weights, ASR and the baselines against brute force, closed forms and finite differences."""

from __future__ import annotations

import math
import warnings

import pytest
import scipy.stats
import torch
import torch.nn.functional as F
from tpo.losses import (
    adaptive_step_weights,
    best_index,
    clamp_step_ids,
    dpo_loss,
    dpo_pl_loss,
    lambda_weights,
    plr_loss,
    predicted_ranks,
    relevance_labels,
    sample_pairs,
    step_embeddings,
    tpo_loss,
    weighted_rewards,
)
from tpo.metrics import kendall_tau, mean_kendall_tau

F64 = torch.float64


def _random_case(
    gen: torch.Generator, b: int = 3, n: int = 5, t: int = 12, h: int = 6, k: int = 3, device="cpu"
):
    ell = torch.randn(b, n, t, generator=gen, dtype=F64).to(device)
    step_ids = torch.randint(0, k + 1, (b, n, t), generator=gen).to(device)
    hidden = torch.randn(b, n, t, h, generator=gen, dtype=F64).to(device)
    scores = torch.randint(0, 4, (b, n), generator=gen).to(F64).to(device)
    scores[:, 0] = 10.0  # a unique best in every list, so the ASR reference is well defined
    return ell, step_ids, hidden, scores


# ---------------------------------------------------------------- brute force references (loops)


def _brute_lambda(scores: list[float], rewards: list[float], label: str = "rank") -> list[list[float]]:
    n = len(scores)
    if label == "rank":
        psi = [sum(scores[i] > s for s in scores) for i in range(n)]
    else:
        lo, hi = min(scores), max(scores)
        psi = [(s - lo) / (hi - lo) if hi > lo else 0.0 for s in scores]
    gain = [2.0**p - 1.0 for p in psi]
    order = sorted(range(n), key=lambda i: (-rewards[i], i))
    tau = [0] * n
    for pos, i in enumerate(order, start=1):
        tau[i] = pos
    out = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if scores[i] > scores[j]:
                out[i][j] = abs(gain[i] - gain[j]) * abs(
                    1 / math.log2(1 + tau[i]) - 1 / math.log2(1 + tau[j])
                )
    return out


def _brute_plr(scores, rewards, use_lambda=True, label="rank", normalize="pairs") -> float | None:
    n = len(scores)
    delta = _brute_lambda(scores, rewards, label)
    total, z, pairs = 0.0, 0.0, 0
    for i in range(n):
        for j in range(n):
            if scores[i] > scores[j]:
                w = delta[i][j] if use_lambda else 1.0
                total += -w * math.log(1 / (1 + math.exp(-(rewards[i] - rewards[j]))))
                z += w
                pairs += 1
    if pairs == 0:
        return None
    return total / {"pairs": pairs, "lambda": z, "none": 1.0}[normalize]


# ---------------------------------------------------------------- λ-weights


def test_lambda_weights_by_hand_on_three_members():
    scores = torch.tensor([[3.0, 2.0, 1.0]], dtype=F64)
    rewards = torch.tensor([[0.3, 0.2, 0.1]], dtype=F64)  # predicted ranks 1, 2, 3
    d = lambda_weights(scores, rewards)[0]
    # labels 2, 1, 0 -> gains 3, 1, 0; 1/D = 1, 1/log2(3), 1/2
    inv3 = 1 / math.log2(3)
    expected = torch.tensor([[0, 2 * (1 - inv3), 3 * 0.5], [0, 0, 1 * (inv3 - 0.5)], [0, 0, 0]], dtype=F64)
    torch.testing.assert_close(d, expected, rtol=0, atol=1e-12)
    # the ranks come from the current rewards, not from the scores
    d2 = lambda_weights(scores, torch.tensor([[0.1, 0.2, 0.3]], dtype=F64))[0]
    assert d2[0, 2] == pytest.approx(3 * 0.5) and d2[0, 1] == pytest.approx(2 * (inv3 - 0.5))


@pytest.mark.parametrize("label", ["rank", "minmax"])
def test_lambda_weights_match_a_double_loop(label, torch_gen):
    scores = torch.randint(0, 3, (20, 6), generator=torch_gen).to(F64)  # many ties
    rewards = torch.randn(20, 6, generator=torch_gen, dtype=F64)
    got = lambda_weights(scores, rewards, label=label)
    for b in range(20):
        ref = torch.tensor(_brute_lambda(scores[b].tolist(), rewards[b].tolist(), label), dtype=F64)
        torch.testing.assert_close(got[b], ref, rtol=1e-12, atol=1e-12)


def test_lambda_weights_vanish_on_ties_and_carry_no_gradient():
    scores = torch.tensor([[1.0, 1.0, 0.0, 0.0]], dtype=F64)
    rewards = torch.randn(1, 4, dtype=F64, requires_grad=True)
    d = lambda_weights(scores, rewards)
    assert not d.requires_grad
    assert d[0, 0, 1] == 0 and d[0, 1, 0] == 0 and d[0, 2, 3] == 0 and d[0, 3, 2] == 0
    assert (d[0, :2, 2:] > 0).all()  # every strictly ordered pair has a positive weight


def test_relevance_labels_are_bounded_ranks_and_minmax():
    scores = torch.tensor([[100.0, 95.0, 95.0, -100.0], [0.2, 0.2, 0.2, 0.2]])
    torch.testing.assert_close(relevance_labels(scores), torch.tensor([[3.0, 1.0, 1.0, 0.0], [0.0] * 4]))
    mm = relevance_labels(scores, label="minmax")
    torch.testing.assert_close(mm, torch.tensor([[1.0, 0.975, 0.975, 0.0], [0.0] * 4]))
    # raw judge scores of 100 never overflow the gain
    assert torch.isfinite(lambda_weights(scores, torch.zeros_like(scores))).all()


def test_predicted_ranks_are_stable_and_put_padding_last():
    r = torch.tensor([[0.5, 0.9, 0.5, 2.0]])
    assert predicted_ranks(r).tolist() == [[3, 2, 4, 1]]
    assert predicted_ranks(r, torch.tensor([[True, True, True, False]])).tolist() == [[2, 1, 3, 4]]


# ---------------------------------------------------------------- the ranking loss


@pytest.mark.parametrize(
    ("use_lambda", "normalize"), [(True, "pairs"), (True, "lambda"), (False, "pairs"), (True, "none")]
)
def test_plr_loss_matches_a_double_loop(use_lambda, normalize, torch_gen):
    scores = torch.randint(0, 4, (16, 5), generator=torch_gen).to(F64)
    scores[3] = 2.0  # a list of ties only: left out of the mean
    rewards = torch.randn(16, 5, generator=torch_gen, dtype=F64)
    got = plr_loss(rewards, scores, use_lambda=use_lambda, normalize=normalize)
    per = [
        _brute_plr(scores[b].tolist(), rewards[b].tolist(), use_lambda, "rank", normalize) for b in range(16)
    ]
    vals = [p for p in per if p is not None]
    assert len(vals) == 15
    assert float(got) == pytest.approx(sum(vals) / len(vals), rel=1e-12)


def test_two_member_lists_give_exactly_the_dpo_loss(torch_gen, device):
    ell, _, _, _ = _random_case(torch_gen, b=7, n=2, device=device)
    scores = torch.tensor([[1.0, 0.0]] * 4 + [[0.0, 1.0]] * 3, dtype=F64, device=device)
    beta = 0.1
    lr = ell.sum(-1)
    w = torch.where(scores[:, 0] > scores[:, 1], 0, 1)
    dpo = dpo_loss(lr[torch.arange(7), w], lr[torch.arange(7), 1 - w], beta)
    zeros = torch.zeros(7, 2, 12, dtype=torch.long, device=device)
    for kw in ({"use_lambda": False}, {"use_lambda": True, "normalize": "lambda"}):
        loss, _ = tpo_loss(ell, zeros, None, scores, beta, use_asr=False, **kw)
        torch.testing.assert_close(loss, dpo, rtol=0, atol=1e-12)
    # with the default normalisation the λ-weight of a 2-list is the constant 1 - 1/log2(3)
    loss, _ = tpo_loss(ell, zeros, None, scores, beta, use_asr=False)
    torch.testing.assert_close(loss, (1 - 1 / math.log2(3)) * dpo, rtol=1e-12, atol=1e-12)


def test_lowering_the_best_reward_raises_the_loss():
    scores = torch.tensor([[1.0, 0.5, 0.0]], dtype=F64)
    base = torch.tensor([[0.2, 0.1, -0.1]], dtype=F64)
    low = base.clone()
    low[0, 0] -= 0.5
    for use_lambda in (True, False):
        assert plr_loss(low, scores, use_lambda=use_lambda) > plr_loss(base, scores, use_lambda=use_lambda)
    assert dpo_loss(torch.tensor([0.0]), torch.tensor([1.0]), 0.1) > dpo_loss(
        torch.tensor([1.0]), torch.tensor([0.0]), 0.1
    )


def test_loss_at_the_reference_point_is_log2_times_the_weights(torch_gen):
    _, step_ids, hidden, scores = _random_case(torch_gen)
    ell = torch.zeros(3, 5, 12, dtype=F64)  # θ = θ_ref: every implicit reward is 0
    loss, extras = tpo_loss(ell, step_ids, hidden, scores, 0.1)
    assert (extras["rewards"] == 0).all()
    d = lambda_weights(scores, torch.zeros_like(scores))
    n_pairs = (scores[:, :, None] > scores[:, None, :]).sum((1, 2))
    expected = (math.log(2) * d.sum((1, 2)) / n_pairs).mean()
    torch.testing.assert_close(loss, expected, rtol=1e-12, atol=1e-12)


def test_loss_is_invariant_to_the_order_of_list_members(torch_gen, device):
    ell, step_ids, hidden, scores = _random_case(torch_gen, device=device)
    base, _ = tpo_loss(ell, step_ids, hidden, scores, 0.1)
    for _ in range(3):
        perm = torch.randperm(5, generator=torch_gen).to(device)
        shuffled, _ = tpo_loss(ell[:, perm], step_ids[:, perm], hidden[:, perm], scores[:, perm], 0.1)
        torch.testing.assert_close(shuffled, base, rtol=1e-12, atol=1e-12)


def test_tie_only_batch_gives_zero_with_a_warning_not_nan():
    ell = torch.randn(2, 3, 4, dtype=F64, requires_grad=True)
    scores = torch.full((2, 3), 0.5, dtype=F64)
    with pytest.warns(RuntimeWarning, match="different scores"):
        loss, _ = tpo_loss(ell, torch.zeros(2, 3, 4, dtype=torch.long), None, scores, 0.1, use_asr=False)
    assert float(loss.detach()) == 0.0
    loss.backward()
    assert ell.grad is not None and (ell.grad == 0).all()


def test_tie_only_lists_do_not_dilute_the_others():
    ell = torch.randn(2, 3, 4, dtype=F64)
    scores = torch.tensor([[1.0, 0.0, 0.5], [0.3, 0.3, 0.3]], dtype=F64)
    ids = torch.zeros(2, 3, 4, dtype=torch.long)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        both, _ = tpo_loss(ell, ids, None, scores, 0.1, use_asr=False)
    one, _ = tpo_loss(ell[:1], ids[:1], None, scores[:1], 0.1, use_asr=False)
    torch.testing.assert_close(both, one)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_scores_are_refused(bad):
    scores = torch.tensor([[1.0, bad]])
    with pytest.raises(ValueError, match="finite"):
        tpo_loss(
            torch.zeros(1, 2, 3), torch.zeros(1, 2, 3, dtype=torch.long), None, scores, 0.1, use_asr=False
        )


def test_bad_shapes_and_beta_are_refused():
    with pytest.raises(ValueError, match="beta"):
        tpo_loss(torch.zeros(1, 2, 3), torch.zeros(1, 2, 3, dtype=torch.long), None, torch.zeros(1, 2), 0.0)
    with pytest.raises(ValueError, match=r"\(B, N, T\)"):
        tpo_loss(torch.zeros(1, 3, 3), torch.zeros(1, 3, 3, dtype=torch.long), None, torch.zeros(1, 2), 0.1)
    with pytest.raises(ValueError, match="hidden"):
        tpo_loss(
            torch.zeros(1, 2, 3),
            torch.zeros(1, 2, 3, dtype=torch.long),
            None,
            torch.tensor([[1.0, 0.0]]),
            0.1,
        )
    with pytest.raises(ValueError, match="at least one pair"):
        dpo_loss(torch.zeros(0), torch.zeros(0), 0.1)


def test_gradcheck_through_log_ratios_and_hidden_states(torch_gen):
    ell, step_ids, hidden, scores = _random_case(torch_gen, b=2, n=4, t=8, h=4, k=3)
    ell.requires_grad_(True)
    hidden.requires_grad_(True)

    def f(e, h):
        return tpo_loss(e, step_ids, h, scores, 0.7)[0]

    assert torch.autograd.gradcheck(f, (ell, hidden), eps=1e-6, atol=1e-7)
    # with detached step embeddings the hidden states get no gradient at all
    loss, _ = tpo_loss(ell, step_ids, hidden, scores, 0.7, detach_step_embeddings=True)
    g = torch.autograd.grad(loss, hidden, allow_unused=True)[0]
    assert g is None or (g == 0).all()


# ---------------------------------------------------------------- Adaptive Step Reward


def test_identical_trajectories_get_weight_two_and_double_reward(torch_gen):
    h = torch.randn(1, 1, 9, 5, generator=torch_gen, dtype=F64).expand(1, 3, 9, 5)
    ids = torch.tensor([0, 0, 1, 1, 1, 2, 2, 3, 3]).expand(1, 3, 9)
    w = adaptive_step_weights(h, ids, torch.tensor([1]), reference_weight="one")
    torch.testing.assert_close(w[0, 1], torch.ones(3, dtype=F64))  # the spec's reading: reference w = 1
    torch.testing.assert_close(w[0, [0, 2]], torch.full((2, 3), 2.0, dtype=F64))
    ell = torch.randn(1, 1, 9, generator=torch_gen, dtype=F64).expand(1, 3, 9).clone()
    ell[..., :2] = 0.0  # prompt tokens: no log-ratio
    r = weighted_rewards(ell, ids, w, 0.1)
    assert float(r[0, 0]) == pytest.approx(2 * float(r[0, 1]), rel=1e-12)
    # default (official loss.py): the reference's own steps get 1 + cos(h, h) = 2 like any identical step,
    # so identical members get identical rewards
    w_code = adaptive_step_weights(h, ids, torch.tensor([1]))
    torch.testing.assert_close(w_code, torch.full((1, 3, 3), 2.0, dtype=F64))
    r_code = weighted_rewards(ell, ids, w_code, 0.1)
    torch.testing.assert_close(r_code[0, 0], r_code[0, 1], rtol=1e-12, atol=0)
    w_minus = adaptive_step_weights(h, ids, torch.tensor([1]), mode="one_minus_cos")
    torch.testing.assert_close(w_minus[0, 0], torch.zeros(3, dtype=F64), atol=1e-12, rtol=0)


def test_orthogonal_step_embeddings_give_weight_one():
    h = torch.zeros(1, 2, 4, 2, dtype=F64)
    h[0, 0, :, 0] = 1.0  # the reference's steps point along e1
    h[0, 1, :, 1] = 3.0  # the other member's along e2
    ids = torch.tensor([[1, 1, 2, 2], [1, 1, 2, 2]])[None]
    w = adaptive_step_weights(h, ids, torch.tensor([0]))
    torch.testing.assert_close(w[0, 1], torch.ones(2, dtype=F64))
    torch.testing.assert_close(w[0, 0], torch.full((2,), 2.0, dtype=F64))  # the reference's own: cos = 1


def test_steps_missing_from_the_reference_keep_weight_one(torch_gen):
    h = torch.randn(1, 2, 6, 3, generator=torch_gen, dtype=F64)
    h[0, 1] = h[0, 0]
    ids = torch.tensor([[1, 1, 2, 2, 0, 0], [1, 1, 2, 2, 3, 3]])[None]  # the reference has 2 steps, y_2 has 3
    w = adaptive_step_weights(h, ids, torch.tensor([0]))
    torch.testing.assert_close(w[0, 1], torch.tensor([2.0, 2.0, 1.0], dtype=F64))


def test_step_embeddings_are_means_over_step_tokens(torch_gen):
    h = torch.randn(2, 3, 7, 4, generator=torch_gen, dtype=F64)
    ids = torch.randint(0, 4, (2, 3, 7), generator=torch_gen)
    emb, present = step_embeddings(h, ids, n_steps=3)
    for b in range(2):
        for n in range(3):
            for k in range(1, 4):
                sel = ids[b, n] == k
                assert bool(present[b, n, k - 1]) == bool(sel.any())
                if sel.any():
                    torch.testing.assert_close(emb[b, n, k - 1], h[b, n][sel].mean(0))


def test_tokens_outside_steps_and_masked_tokens_count_once_or_not_at_all():
    ell = torch.tensor([[[0.0, 0.5, 1.0, 2.0, 0.0]]], dtype=F64)  # a padded position carries ell = 0
    ids = torch.tensor([[[0, 0, 1, 1, 0]]])
    w = torch.tensor([[[3.0]]], dtype=F64)
    assert float(weighted_rewards(ell, ids, w, 1.0)) == pytest.approx(0.5 + 3 * (1.0 + 2.0))
    assert float(weighted_rewards(ell, ids, None, 1.0)) == pytest.approx(3.5)


def test_clamp_step_ids_to_the_shortest_member():
    ids = torch.tensor([[[1, 2, 3, 4], [1, 1, 2, 0], [1, 2, 3, 0]]])
    out = clamp_step_ids(ids, torch.tensor([[True, True, True]]))
    assert out.tolist() == [[[1, 2, 2, 2], [1, 1, 2, 0], [1, 2, 2, 0]]]


def test_best_index_takes_the_first_of_equal_best():
    s = torch.tensor([[0.1, 0.9, 0.9], [5.0, 1.0, 7.0]])
    assert best_index(s).tolist() == [1, 2]
    assert best_index(s, torch.tensor([[True, True, True], [True, True, False]])).tolist() == [1, 0]


# ---------------------------------------------------------------- baselines


def test_dpo_matches_its_formula(torch_gen):
    w, l_ = torch.randn(9, generator=torch_gen, dtype=F64), torch.randn(9, generator=torch_gen, dtype=F64)
    expected = torch.mean(torch.log1p(torch.exp(-0.3 * (w - l_))))
    torch.testing.assert_close(dpo_loss(w, l_, 0.3), expected)


def test_dpo_pl_reduces_to_dpo_on_pairs_and_matches_brute_force(torch_gen):
    r = torch.randn(4, 2, generator=torch_gen, dtype=F64)
    s = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [1.0, 3.0]], dtype=F64)
    w = torch.where(s[:, 0] > s[:, 1], 0, 1)
    i = torch.arange(4)
    torch.testing.assert_close(dpo_pl_loss(r, s), dpo_loss(r[i, w], r[i, 1 - w], 1.0))
    r3 = torch.randn(1, 3, generator=torch_gen, dtype=F64)
    s3 = torch.tensor([[0.0, 2.0, 1.0]], dtype=F64)  # order: member 1, member 2, member 0
    a, b, c = r3[0, 1], r3[0, 2], r3[0, 0]
    brute = (
        -(a - torch.logsumexp(torch.stack([a, b, c]), 0) + b - torch.logsumexp(torch.stack([b, c]), 0)) / 2
    )
    torch.testing.assert_close(dpo_pl_loss(r3, s3), brute)


def test_sample_pairs_modes(torch_gen):
    scores = torch.tensor([[0.5, 1.0, 0.0, 0.5], [0.2, 0.2, 0.2, 0.2], [3.0, 2.0, 1.0, 0.0]])
    bw = sample_pairs(scores, "best_vs_worst")
    assert bw.tolist() == [[0, 1, 2], [2, 0, 3]]
    each = sample_pairs(scores, "best_vs_each")
    assert {tuple(r) for r in each.tolist()} == {
        (0, 1, 0),
        (0, 1, 2),
        (0, 1, 3),
        (2, 0, 1),
        (2, 0, 2),
        (2, 0, 3),
    }
    gen = torch.Generator().manual_seed(0)
    seen = set()
    for _ in range(200):
        rows = sample_pairs(scores, "random", gen)
        assert len(rows) == 2
        for li, ci, ri in rows.tolist():
            assert scores[li, ci] > scores[li, ri]
            seen.add((li, ci, ri))
    assert len(seen) == 5 + 6  # every strictly ordered pair of both informative lists turns up
    with pytest.raises(ValueError, match="pair_sampling"):
        sample_pairs(scores, "all")  # type: ignore[arg-type]


# ---------------------------------------------------------------- Kendall τ


def test_kendall_tau_matches_scipy_with_ties_and_masks(torch_gen):
    x = torch.randint(0, 4, (30, 6), generator=torch_gen).to(F64)
    y = torch.randn(30, 6, generator=torch_gen, dtype=F64).round(decimals=0)
    mask = torch.rand(30, 6, generator=torch_gen) > 0.2
    tau = kendall_tau(x, y, mask)
    for b in range(30):
        m = mask[b]
        ref = scipy.stats.kendalltau(x[b][m].numpy(), y[b][m].numpy()).statistic
        if math.isnan(ref):
            assert math.isnan(float(tau[b]))
        else:
            assert float(tau[b]) == pytest.approx(ref, abs=1e-12)
    assert float(kendall_tau(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([3.0, 2.0, 1.0]))) == -1.0
    ok = torch.isfinite(tau)
    assert mean_kendall_tau(x, y, mask) == pytest.approx(float(tau[ok].mean()))


def test_kendall_tau_is_nan_for_a_constant_side():
    assert math.isnan(float(kendall_tau(torch.zeros(4), torch.arange(4.0))))
    assert math.isnan(mean_kendall_tau(torch.zeros(2, 3), torch.ones(2, 3)))


def test_logsigmoid_is_the_stable_form():
    # the pairwise term uses logsigmoid, finite for large margins
    r = torch.tensor([[500.0, -500.0]], dtype=F64)
    loss = plr_loss(r, torch.tensor([[0.0, 1.0]], dtype=F64), use_lambda=False)
    assert math.isfinite(float(loss)) and float(loss) == pytest.approx(1000.0)
    assert float(F.logsigmoid(torch.tensor(-1000.0))) == -1000.0
