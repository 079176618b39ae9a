"""NDB-UCB / NDB-TS and their linear and binary-feedback versions: the selection rules, V, bad input."""

from __future__ import annotations

import itertools

import bandit_neural as bn
import numpy as np
import pytest
import torch
from bandit_neural.algorithms import (
    DuelingBandit,
    LinearDuelingTS,
    LinearDuelingUCB,
    LinearGLMUCB,
    NeuralDuelingGreedy,
    NeuralDuelingTS,
    NeuralDuelingUCB,
    NeuralGLMTS,
    NeuralGLMUCB,
    RandomPair,
)
from bandit_neural.envs import ContextualBinaryEnv, ContextualDuelingEnv
from bandit_neural.run import run_binary, run_dueling

SMALL = {"width": 16, "train_steps": 20}


def assert_close(a, b, rtol: float = 1e-7, atol: float = 1e-7) -> None:
    """torch.testing.assert_close without its ~2 s first-call import cost."""
    np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy(), rtol=rtol, atol=atol)


def _played(algo, env, rounds):
    for t in range(rounds):
        x = env.contexts(t)
        i, j = algo.select(x)
        algo.update(x, i, j, env.duel(t, i, j))
    return algo


def test_confidence_width_is_zero_on_the_diagonal_symmetric_and_shrinks(device):
    env = ContextualDuelingEnv(5, 6, "cosine", seed=0)
    algo = _played(NeuralDuelingUCB(5, seed=0, device=device, **SMALL), env, 15)
    x = env.contexts(100)
    assert algo.confidence_width(x, 2, 2) == 0.0
    assert algo.confidence_width(x, 1, 4) == pytest.approx(algo.confidence_width(x, 4, 1), rel=1e-12)
    # Adding the same difference to V again and again makes σ of that pair decrease monotonically.
    _, phi = algo.model.features(algo._contexts(x))
    widths = [algo.confidence_width(x, 1, 4)]
    for _ in range(5):
        algo.gram.update(phi[1] - phi[4])
        algo._cache = None
        widths.append(algo.confidence_width(x, 1, 4))
    assert all(b < a for a, b in itertools.pairwise(widths))


def test_width_is_the_paper_formula_with_a_directly_built_v(device):
    # σ²(x, x') = (λ/κ_μ) Δφᵀ V⁻¹ Δφ with V = (λ/κ_μ) I + Σ_s Δφ_s Δφ_sᵀ over the informative duels.
    env = ContextualDuelingEnv(4, 5, "linear", seed=1)
    algo = LinearDuelingUCB(4, lam=2.0, kappa_mu=0.5, device=device)
    diffs = []
    for t in range(30):
        x = env.contexts(t)
        i, j = algo.select(x)
        if i != j:
            diffs.append(x[i] - x[j])
        algo.update(x, i, j, env.duel(t, i, j))
    D = torch.tensor(np.array(diffs), dtype=torch.float64)
    V = 4.0 * torch.eye(4, dtype=torch.float64) + D.T @ D
    x = env.contexts(99)
    u = torch.tensor(x[0] - x[3], dtype=torch.float64)
    expected = float(torch.sqrt(4.0 * u @ torch.linalg.solve(V, u)))
    assert algo.confidence_width(x, 0, 3) == pytest.approx(expected, rel=1e-10)
    assert algo.gram.n_updates == len(diffs) == algo.data.n


def test_first_arm_is_greedy_and_huge_nu_picks_the_widest_second_arm(device):
    env = ContextualDuelingEnv(5, 8, "cosine", seed=3)
    algo = _played(NeuralDuelingUCB(5, seed=3, nu=1e9, device=device, **SMALL), env, 12)
    x = env.contexts(50)
    h, _ = algo.model.features(algo._contexts(x))
    i, j = algo.select(x)
    assert i == int(torch.argmax(h))
    widths = [algo.confidence_width(x, k, i) for k in range(8)]
    assert j == int(np.argmax(widths)) and j != i


def test_thompson_sampling_with_vanishing_nu_is_greedy(device):
    env = ContextualDuelingEnv(5, 8, "cosine", seed=4)
    ts = NeuralDuelingTS(5, seed=5, nu=1e-12, device=device, **SMALL)
    greedy = NeuralDuelingGreedy(5, seed=5, device=device, **SMALL)
    x1 = torch.tensor(np.stack([env.contexts(t)[0] for t in range(40)]), dtype=torch.float64)
    x2 = torch.tensor(np.stack([env.contexts(t)[1] for t in range(40)]), dtype=torch.float64)
    y = torch.tensor([float(env.duel(t, 0, 1)) for t in range(40)], dtype=torch.float64)
    for algo in (ts, greedy):  # the same θ for both (same seed, same data)
        algo.model.fit(x1.to(device), x2.to(device), y.to(device))
    for t in range(100, 120):
        x = env.contexts(t)
        i, j = ts.select(x)
        assert (i, j) == greedy.select(x) == (i, i)


def test_thompson_sampling_explores_with_positive_nu(device):
    env = ContextualDuelingEnv(5, 8, "cosine", seed=4)
    ts = NeuralDuelingTS(5, seed=5, nu=3.0, device=device, **SMALL)
    pairs = [ts.select(env.contexts(t)) for t in range(30)]
    assert sum(i != j for i, j in pairs) > 10


def test_a_self_duel_adds_no_information():
    env = ContextualDuelingEnv(5, 4, "cosine", seed=0)
    algo = NeuralDuelingUCB(5, seed=0, **SMALL)
    x = env.contexts(0)
    before = algo.gram.inverse()
    algo.update(x, 2, 2, 1)
    assert algo.data.n == 0 and algo.gram.n_updates == 0
    assert_close(algo.gram.inverse(), before)
    algo.update(x, 2, 3, 1)
    assert algo.data.n == 1 and algo.gram.n_updates == 1 and algo.model.n_fits == 1


def test_no_p_by_p_inversion_per_round(monkeypatch):
    # The rank-one Sherman–Morrison update is what the method needs; inverting V each round is O(p³).
    def refuse(*args, **kwargs):
        raise AssertionError("a matrix inversion was called in a bandit round")

    for name in ("inv", "pinv", "inv_ex", "solve"):
        monkeypatch.setattr(torch.linalg, name, refuse)
    monkeypatch.setattr(torch, "inverse", refuse)
    env = ContextualDuelingEnv(5, 6, "cosine", seed=0)
    log = run_dueling(env, NeuralDuelingUCB(5, seed=0, **SMALL), 25)
    assert log.regret.shape == (25,)
    run_binary(ContextualBinaryEnv(5, 6, "cosine", seed=0), NeuralGLMTS(5, seed=0, **SMALL), 10)


def test_diagonal_mode_keeps_diag_v(device):
    env = ContextualDuelingEnv(5, 6, "cosine", seed=0)
    algo = _played(NeuralDuelingUCB(5, seed=0, diagonal=True, device=device, **SMALL), env, 10)
    inv = algo.gram.inverse()
    assert torch.count_nonzero(inv - torch.diag(torch.diagonal(inv))) == 0


def test_same_seed_same_run(deterministic, device):
    def once():
        env = ContextualDuelingEnv(5, 6, "square", seed=1)
        return run_dueling(env, NeuralDuelingTS(5, seed=1, device=device, **SMALL), 30).regret

    regret = deterministic(once)
    env = ContextualDuelingEnv(5, 6, "square", seed=1)
    other = run_dueling(env, NeuralDuelingTS(5, seed=2, device=device, **SMALL), 30).regret
    assert not np.array_equal(regret, other)


def test_neural_ucb_learns_a_cosine_utility_better_than_random_pairs():
    env = ContextualDuelingEnv(5, 10, "cosine", seed=0)
    neural = run_dueling(env, NeuralDuelingUCB(5, seed=0, width=32, train_steps=50), 200)
    rand = run_dueling(env, RandomPair(5, seed=0), 200)
    assert neural.total < 0.8 * rand.total, (neural.total, rand.total)
    assert neural.regret[100:].sum() < neural.regret[:100].sum()


def test_binary_feedback_rules(device):
    env = ContextualBinaryEnv(5, 7, "cosine", seed=2)
    ucb = NeuralGLMUCB(5, seed=2, nu=1e9, device=device, **SMALL)
    for t in range(10):
        x = env.contexts(t)
        i = ucb.select(x)
        ucb.update(x, i, env.pull(t, i))
    x = env.contexts(20)
    xt = ucb._contexts(x)
    _, phi = ucb.model.features(xt)
    widths = ucb.gram.quad(phi)
    assert ucb.select(x) == int(torch.argmax(widths))
    assert ucb.gram.n_updates == 10 == ucb.data.n
    log = run_binary(env, LinearGLMUCB(5, device=device), 40)
    assert np.all(log.regret >= 0) and np.array_equal(log.regret, log.weak_regret)


ALGOS = [
    lambda **kw: NeuralDuelingUCB(5, **SMALL, **kw),
    lambda **kw: NeuralDuelingTS(5, **SMALL, **kw),
    lambda **kw: LinearDuelingUCB(5, **kw),
    lambda **kw: LinearDuelingTS(5, **kw),
]


@pytest.mark.parametrize("make", ALGOS)
def test_bad_contexts_are_refused(make):
    algo = make()
    good = ContextualDuelingEnv(5, 4, seed=0).contexts(0)
    with pytest.raises(ValueError, match="needs K >= 2 arms, got K = 1"):
        algo.select(good[:1])
    with pytest.raises(ValueError, match="dimension 3, but the bandit was built for d = 5"):
        algo.select(good[:, :3])
    bad = good.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        algo.select(bad)
    bad[1, 2] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        algo.update(bad, 0, 1, 1)
    with pytest.raises(ValueError, match="2-D"):
        algo.select(good[0])
    with pytest.raises(TypeError, match="array of numbers"):
        algo.select([["a"] * 5] * 4)
    with pytest.raises(ValueError, match=r"arm index j \(for K = 4 arms\) must be an integer in \[0, 3\]"):
        algo.update(good, 0, 4, 1)
    with pytest.raises(TypeError, match="must be an int"):
        algo.update(good, 0, 1.0, 1)
    with pytest.raises(ValueError, match="must be 0 or 1"):
        algo.update(good, 0, 1, 0.5)
    with pytest.raises(ValueError, match="must be 0 or 1"):
        algo.update(good, 0, 1, float("nan"))
    with pytest.raises(TypeError, match="must be 0 or 1"):
        algo.update(good, 0, 1, "yes")


@pytest.mark.parametrize("make", ALGOS)
@pytest.mark.parametrize("nu", [0.0, -1.0, float("nan"), float("inf")])
def test_nonpositive_or_nonfinite_nu_is_refused(make, nu):
    with pytest.raises(ValueError, match="nu must be a finite number > 0"):
        make(nu=nu)


def test_other_bad_hyper_parameters():
    with pytest.raises(TypeError, match="nu must be a finite number > 0"):
        NeuralDuelingUCB(5, nu="3")
    with pytest.raises(ValueError, match="kappa_mu must be a finite number > 0"):
        LinearDuelingUCB(5, kappa_mu=0.0)
    with pytest.raises(ValueError, match="lam must be a finite number > 0"):
        NeuralGLMUCB(5, lam=-1.0)
    with pytest.raises(ValueError, match="d must be an integer >= 1"):
        LinearDuelingTS(0)
    with pytest.raises(TypeError, match="d must be an int"):
        NeuralDuelingUCB(5.0)
    with pytest.raises(ValueError, match="rule must be one of"):
        DuelingBandit(NeuralDuelingUCB(5).model, rule="eps-greedy")
    with pytest.raises(ValueError, match="K >= 2"):
        RandomPair(5).select(np.ones((1, 5)))
    with pytest.raises(ValueError, match="d = 5, the environment has d = 4"):
        run_dueling(ContextualDuelingEnv(4, 5), NeuralDuelingUCB(5, **SMALL), 3)
    with pytest.raises(ValueError, match="T must be an integer >= 1"):
        run_dueling(ContextualDuelingEnv(5, 5), LinearDuelingUCB(5), 0)


@pytest.mark.parametrize(
    "make",
    [
        lambda dev: bn.NeuralDuelingUCB(5, device=dev),
        lambda dev: bn.LinearDuelingTS(5, device=dev),
        lambda dev: bn.NeuralGLMUCB(5, device=dev),
        lambda dev: bn.MLP(5, device=dev),
        lambda dev: bn.GramInverse(4, 1.0, device=dev),
        lambda dev: bn.LinearUtility(5, device=dev),
    ],
)
def test_an_unavailable_device_is_refused_naming_it(make, monkeypatch):
    """Issue 23: ``device="cuda"`` without a GPU gave torch's raw driver error at the first tensor."""
    import paperkit.runtime

    monkeypatch.setattr(paperkit.runtime, "cuda_available", lambda: False)  # as on a CPU-only machine
    with pytest.raises(paperkit.DeviceError, match=r"device 'cuda' is not available.*no CUDA GPU"):
        make("cuda")
    with pytest.raises(paperkit.DeviceError, match="unknown device 'tpu'"):
        make("tpu")
    with pytest.raises(TypeError, match=r"device must be a str or torch\.device"):
        make(3)
    assert bn.torch_device(torch.device("cpu")) == torch.device("cpu")
