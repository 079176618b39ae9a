"""The synthetic environments: shared randomness, BTL labels, regret definitions, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from bandit_neural.envs import ContextualBinaryEnv, ContextualDuelingEnv, sigmoid


def test_contexts_are_unit_vectors_and_utilities_follow_the_definitions():
    for name in ("square", "cosine", "linear"):
        env = ContextualDuelingEnv(5, 10, name, seed=3)
        x = env.contexts(7)
        assert x.shape == (10, 5)
        np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0, rtol=1e-12)
        u = x @ env.theta
        expected = {"square": 10 * u**2, "cosine": np.cos(3 * u), "linear": u}[name]
        np.testing.assert_allclose(env.utilities(7), expected, rtol=1e-12)
    assert np.linalg.norm(env.theta) == pytest.approx(1.0)


def test_same_seed_same_rounds_in_any_order_and_other_seeds_differ():
    a, b = ContextualDuelingEnv(seed=11), ContextualDuelingEnv(seed=11)
    xs = [a.contexts(t) for t in range(5)]
    for t in (4, 0, 3):  # random access: round t depends on (seed, t) only
        np.testing.assert_array_equal(b.contexts(t), xs[t])
    np.testing.assert_array_equal(a.theta, b.theta)
    # The label of a duel depends on (seed, t, pair) only: every algorithm sees the same draw.
    assert [a.duel(t, 1, 2) for t in range(50)] == [b.duel(t, 1, 2) for t in range(50)]
    c = ContextualDuelingEnv(seed=12)
    assert not np.array_equal(c.contexts(0), xs[0])
    # Binary env with the same seed shows the same contexts and θ*.
    np.testing.assert_array_equal(ContextualBinaryEnv(seed=11).contexts(2), xs[2])


def test_btl_labels_are_calibrated():
    # Over 10⁴ rounds, Σ (y_t − P_t) is within 3 standard errors of 0, and the duel is antisymmetric in law.
    env = ContextualDuelingEnv(5, 4, "square", seed=0)
    n = 10_000
    p = np.array([env.duel_probability(t, 0, 1) for t in range(n)])
    y = np.array([env.duel(t, 0, 1) for t in range(n)])
    se = np.sqrt(np.sum(p * (1 - p)))
    assert abs(np.sum(y - p)) < 3 * se
    f = [env.utilities(t) for t in range(3)]
    for t in range(3):
        assert env.duel_probability(t, 0, 1) == pytest.approx(float(sigmoid(f[t][0] - f[t][1])))
        assert env.duel_probability(t, 0, 1) + env.duel_probability(t, 1, 0) == pytest.approx(1.0)
    binary = ContextualBinaryEnv(5, 4, "cosine", seed=1)
    q = np.array([binary.probability(t, 2) for t in range(n)])
    z = np.array([binary.pull(t, 2) for t in range(n)])
    assert abs(np.sum(z - q)) < 3 * np.sqrt(np.sum(q * (1 - q)))


def test_regret_is_zero_for_the_best_pair_and_never_negative():
    env = ContextualDuelingEnv(5, 6, "cosine", seed=2)
    for t in range(20):
        best = env.best_arm(t)
        assert env.regret(t, best, best) == (0.0, 0.0)
        f = env.utilities(t)
        for i in range(6):
            for j in range(6):
                avg, weak = env.regret(t, i, j)
                assert avg >= 0 and weak >= 0 and weak <= avg + 1e-15
                assert avg == pytest.approx(f.max() - (f[i] + f[j]) / 2)
    binary = ContextualBinaryEnv(5, 6, "square", seed=2)
    assert binary.regret(0, binary.best_arm(0)) == 0.0
    assert min(binary.regret(0, i) for i in range(6)) == 0.0


def test_custom_utility_and_theta():
    theta = np.array([1.0, 0, 0])
    env = ContextualDuelingEnv(3, 4, lambda x: x[:, 0] ** 3, seed=0, theta=theta)
    np.testing.assert_allclose(env.utilities(1), env.contexts(1)[:, 0] ** 3)
    assert env.utility_name == "<lambda>"


def test_sigmoid_does_not_overflow():
    assert sigmoid(1000.0) == 1.0 and sigmoid(-1000.0) == 0.0
    assert sigmoid(0.0) == 0.5


@pytest.mark.parametrize(
    ("make", "exc", "match"),
    [
        (lambda: ContextualDuelingEnv(5, 1), ValueError, "K >= 2"),
        (lambda: ContextualBinaryEnv(5, 0), ValueError, "K >= 1"),
        (lambda: ContextualDuelingEnv(0, 5), ValueError, "d must be an integer >= 1"),
        (lambda: ContextualDuelingEnv(5, 5.0), TypeError, "K must be an int"),
        (lambda: ContextualDuelingEnv(5, 5, "quartic"), ValueError, "utility must be one of"),
        (lambda: ContextualDuelingEnv(5, 5, seed=-1), ValueError, "seed must be an integer in"),
        (lambda: ContextualDuelingEnv(3, 5, theta=[1.0, 0.0]), ValueError, "theta must be"),
        (lambda: ContextualDuelingEnv(3, 5, theta=[np.nan, 0.0, 1.0]), ValueError, "theta must be"),
        (
            lambda: ContextualDuelingEnv(5, 3).duel(0, 0, 3),
            ValueError,
            r"arm index j \(for K = 3 arms\) must be",
        ),
        (lambda: ContextualDuelingEnv(5, 3).duel(0, 0.0, 1), TypeError, "must be an int"),
        (lambda: ContextualDuelingEnv(5, 3).contexts(-1), ValueError, "round t"),
        (lambda: ContextualDuelingEnv(5, 3, lambda x: x).contexts(0), ValueError, "utility must map"),
    ],
)
def test_bad_input(make, exc, match):
    with pytest.raises(exc, match=match):
        make()
