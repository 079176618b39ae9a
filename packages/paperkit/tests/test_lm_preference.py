"""paperkit.lm preference losses against their formulas written out per pair in plain Python floats."""

from __future__ import annotations

import itertools
import math

import pytest

torch = pytest.importorskip("torch")

from paperkit.lm.preference import dpo_loss, dpo_pl_loss, ipo_loss, orpo_loss, simpo_loss  # noqa: E402

F64 = torch.float64
W = [-3.0, -1.5, -7.25, -0.5]  # chosen (summed log-probs or log-ratios)
L = [-4.0, -1.0, -2.0, -6.5]  # rejected
NW = [3.0, 2.0, 5.0, 1.0]  # response lengths
NL = [4.0, 1.0, 2.0, 7.0]
ROWS = list(zip(W, L, NW, NL, strict=True))


def _t(xs: list[float]):
    return torch.tensor(xs, dtype=F64)


def _logsig(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _mean(xs) -> float:
    xs = list(xs)
    return sum(xs) / len(xs)


@pytest.mark.parametrize(("beta", "margin", "eps"), [(0.1, 0.0, 0.0), (0.5, 0.3, 0.0), (2.0, -1.0, 0.2)])
def test_dpo_with_margin_and_label_smoothing_matches_the_formula(beta, margin, eps):
    def one(w, l_):
        z = beta * (w - l_) - margin
        return -(1 - eps) * _logsig(z) - eps * _logsig(-z)

    got = dpo_loss(_t(W), _t(L), beta, margin=margin, label_smoothing=eps)
    assert float(got) == pytest.approx(_mean(map(one, W, L)), rel=1e-12)
    per_pair = dpo_loss(_t(W), _t(L), beta, margin=torch.full((4,), margin, dtype=F64), label_smoothing=eps)
    assert float(per_pair) == pytest.approx(float(got), rel=1e-12)


def test_dpo_at_zero_log_ratio_is_log_two():
    assert float(dpo_loss(torch.zeros(3), torch.zeros(3), 0.1)) == pytest.approx(math.log(2))


def test_ipo_matches_the_formula_and_is_zero_at_its_target():
    tau = 0.25
    got = ipo_loss(_t(W), _t(L), tau)
    expected = _mean((w - l_ - 1 / (2 * tau)) ** 2 for w, l_, _, _ in ROWS)
    assert float(got) == pytest.approx(expected, rel=1e-12)
    assert float(ipo_loss(_t([2.0]), _t([0.0]), tau)) == 0.0  # h = 1/(2τ) exactly


def test_orpo_matches_the_formula():
    lam = 0.1

    def log_odds(lp, n):
        p = math.exp(lp / n)
        return math.log(p / (1 - p))

    nll = _mean(-w / n for w, n in zip(W, NW, strict=True))
    ratio = _mean(_logsig(log_odds(w, nw) - log_odds(l_, nl)) for w, l_, nw, nl in ROWS)
    got = orpo_loss(_t(W), _t(L), _t(NW), _t(NL), lam)
    assert float(got) == pytest.approx(nll - lam * ratio, rel=1e-12)
    # near p = 1 the log-odds stay finite (expm1 form)
    assert math.isfinite(float(orpo_loss(_t([-1e-9]), _t([-3.0]), _t([1.0]), _t([1.0]), lam)))


def test_simpo_matches_the_formula():
    beta, gamma = 2.0, 0.5
    expected = _mean(-_logsig(beta * (w / nw - l_ / nl) - gamma) for w, l_, nw, nl in ROWS)
    got = simpo_loss(_t(W), _t(L), _t(NW), _t(NL), beta, gamma=gamma)
    assert float(got) == pytest.approx(expected, rel=1e-12)


def test_dpo_pl_matches_a_brute_force_plackett_luce():
    rewards = [[0.3, -1.0, 2.0, 0.5], [1.0, 0.0, -0.5, 9.0]]
    scores = [[1.0, 3.0, 0.0, 2.0], [0.0, 2.0, 1.0, 5.0]]
    mask = [[True] * 4, [True, True, True, False]]

    def one(r, s, m):
        idx = sorted((i for i in range(4) if m[i]), key=lambda i: (-s[i], i))
        terms = [-(r[idx[k]] - math.log(sum(math.exp(r[j]) for j in idx[k:]))) for k in range(len(idx) - 1)]
        return _mean(terms)

    got = dpo_pl_loss(torch.tensor(rewards, dtype=F64), torch.tensor(scores, dtype=F64), torch.tensor(mask))
    assert float(got) == pytest.approx(_mean(map(one, rewards, scores, mask)), rel=1e-12)
    # a two-member list is DPO with beta 1
    two = dpo_pl_loss(_t([0.4, -0.2])[None], _t([1.0, 0.0])[None])
    assert float(two) == pytest.approx(float(dpo_loss(_t([0.4]), _t([-0.2]), 1.0)), rel=1e-12)


def test_gradients_flow_and_losses_fall_as_chosen_rises():
    w = _t(W).requires_grad_(True)
    for f in (
        lambda a: dpo_loss(a, _t(L), 0.1),
        lambda a: simpo_loss(a, _t(L), _t(NW), _t(NL), 2.0),
        lambda a: orpo_loss(a, _t(L), _t(NW), _t(NL), 0.1),
    ):
        (g,) = torch.autograd.grad(f(w), w)
        assert bool((g < 0).all())  # raising the chosen log-prob lowers the loss
    # IPO regresses h onto 1/(2τ): past the target, raising the chosen side raises the loss
    (g,) = torch.autograd.grad(ipo_loss(w, _t(L), 1.0), w)
    assert torch.equal(g > 0, (w - _t(L) > 0.5).detach())


@pytest.mark.parametrize(
    ("call", "err", "match"),
    [
        (lambda: dpo_loss(_t([1.0]), _t([1.0]), 0.0), ValueError, "beta must be a positive"),
        (lambda: dpo_loss(_t([1.0]), _t([1.0]), "0.1"), TypeError, "beta must be a number"),
        (lambda: dpo_loss(_t([1.0]), _t([1.0, 2.0]), 0.1), ValueError, "differ"),
        (lambda: dpo_loss(_t([]), _t([]), 0.1), ValueError, "at least one pair"),
        (lambda: dpo_loss(_t([1.0]), _t([1.0]), 0.1, label_smoothing=0.5), ValueError, "label_smoothing"),
        (lambda: dpo_loss(_t([1.0]), _t([1.0]), 0.1, margin=_t([1.0, 2.0])), ValueError, "margin has shape"),
        (lambda: dpo_loss([1.0], _t([1.0]), 0.1), TypeError, "must be tensors"),
        (lambda: ipo_loss(_t([1.0]), _t([1.0]), -1.0), ValueError, "tau must be"),
        (lambda: orpo_loss(_t([-1.0]), _t([-1.0]), _t([0.0]), _t([1.0]), 0.1), ValueError, "length_chosen"),
        (lambda: orpo_loss(_t([-1.0]), _t([-1.0]), _t([1.0]), _t([1.0, 1.0]), 0.1), ValueError, "shape"),
        (
            lambda: simpo_loss(_t([-1.0]), _t([-1.0]), _t([1.0]), _t([1.0]), 2.0, gamma=-1),
            ValueError,
            "gamma",
        ),
        (lambda: dpo_pl_loss(_t([1.0, 0.0])[None], _t([1.0, math.nan])[None]), ValueError, "finite"),
        (lambda: dpo_pl_loss(_t([1.0])[None], _t([1.0])[None]), ValueError, "at least two members"),
    ],
    ids=itertools.count(),
)
def test_bad_input_is_refused(call, err, match):
    with pytest.raises(err, match=match):
        call()
