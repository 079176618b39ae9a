"""The paper's Gaussian-mixture model of synthetic-data generation (official ``synthetic_gmm.py``).

1. Target task D: K + J equal-weight components, means ~ U[0, 10]^d (+ ``gap`` * index), covariances
   A A^T with A ~ U[0, 1]^{d x d}.
2. Anchor data S_anchor: N_k draws from each of the first K components, labels kept.
3. Generator M (the strong model): K + J + L equal-weight components: K fitted to the anchor data
   (sample mean, sample covariance + 1e-6 I), J copied exactly from D (the knowledge M adds: the
   information gain), L random spurious components (hallucination).
4. S_gen: ``n_samples`` draws of M (optionally + eps ~ N(0, noise^2 I), the curation/revision noise of
   S_gen = M(p) + eps, and optionally curated: the ``curate`` fraction least likely under M dropped).
5. W' = a K-component EM fit on S_anchor; W = a (K + J + L)-component EM fit on S_gen.
6. KL gap = KL(W' || D) - KL(W || D): positive when the synthetic-trained model is closer to the target.

Randomness: world ``(seed, repeat)`` draws every ingredient from its own child of
``SeedSequence([seed, repeat])``, from pools sized for the largest sweep value, so a sweep over J (or K,
L) changes only what J changes (common random numbers; the official code draws every point afresh).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from paperkit import (
    check_array,
    check_bool,
    check_choice,
    check_instance,
    check_int,
    check_number,
    check_seed,
)

from synthdata_ggmi.checks import check_rng
from synthdata_ggmi.divergence import ESTIMATORS, MAX_HIST_DIM, histogram_kl, mc_kl
from synthdata_ggmi.gmm import GMMSpec, fit_gmm, gmm_log_pdf, sample_gmm

__all__ = [
    "PARAMS",
    "Protocol",
    "Sweep",
    "World",
    "anchor_samples",
    "draw_world",
    "fit_model",
    "fit_models",
    "generator_m",
    "ground_truth",
    "kl_gaps",
    "random_components",
    "sweep",
]

PARAMS = ("K", "J", "L")
MAX_COND = 1e8  # spec: reject near-singular A A^T (condition number > 1e8) and redraw


@dataclass(frozen=True)
class Protocol:
    """One point of the simulation. Defaults: the official sweeps' fixed values (``test_ave_kl.py``)."""

    K: int = 2  # anchor (observed) components
    J: int = 2  # true components M knows but the anchor data misses (information gain)
    L: int = 2  # spurious components of M
    N_k: int = 50  # anchor draws per observed component
    d: int = 2
    n_samples: int = 200  # |S_gen|
    gap: float = 0.0  # mean offset per ground-truth component index (official default 0)
    noise: float = 0.0  # sd of the generation noise eps (official: none)
    curate: float = 0.0  # fraction of S_gen dropped by likelihood under M (official: none)
    copy_gain: bool = True  # False: M gets no copy of the J components (the no-information-gain baseline)

    def __post_init__(self) -> None:
        check_int(self.K, "K", low=1)  # K = 0: no anchor data, no anchor model
        check_int(self.J, "J", low=0)
        check_int(self.L, "L", low=0)
        check_int(self.N_k, "N_k", low=2)  # a sample covariance needs two draws
        check_int(self.d, "d", low=1)
        check_int(self.n_samples, "n_samples", low=1)
        check_number(self.gap, "gap", low=0.0)
        check_number(self.noise, "noise", low=0.0)
        check_number(self.curate, "curate", low=0.0, high=0.9)
        check_bool(self.copy_gain, "copy_gain")
        if self.n_samples < self.K + self.J + self.L:
            raise ValueError(
                f"n_samples={self.n_samples} < K + J + L = {self.K + self.J + self.L}: the synthetic EM fit "
                "needs at least one sample per component"
            )


@dataclass(frozen=True)
class World:
    """One draw of the pipeline: D, S_anchor (with labels), M and S_gen."""

    truth: GMMSpec
    anchor: np.ndarray
    labels: np.ndarray
    generator: GMMSpec
    synthetic: np.ndarray

    def __post_init__(self) -> None:
        check_instance(self.truth, "truth", GMMSpec)
        check_instance(self.generator, "generator", GMMSpec)
        for name in ("anchor", "synthetic"):
            check_array(getattr(self, name), name, shape=(None, self.truth.dim), kind="fiu")
        check_array(self.labels, "labels", shape=(len(self.anchor),), kind="iu")


def random_components(m: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(means (m, d), covs (m, d, d))``: means ~ U[0, 10]^d, covs A A^T, A ~ U[0, 1]^{d x d}, redrawn
    while the condition number exceeds 1e8."""
    m, d = check_int(m, "m", low=0), check_int(d, "d", low=1)
    check_rng(rng)
    means = rng.random((m, d)) * 10
    covs = np.empty((m, d, d))
    for i in range(m):  # the rejection loop is per component; m is at most a few dozen
        while True:
            A = rng.random((d, d))
            c = A @ A.T
            if np.linalg.cond(c) <= MAX_COND:
                covs[i] = c
                break
    return means, covs


def ground_truth(means: np.ndarray, covs: np.ndarray, gap: float = 0.0) -> GMMSpec:
    """D: equal weights over the given components, mean of component i shifted by ``gap * i``."""
    means = np.asarray(check_array(means, "means", ndim=2, kind="fiu"), dtype=float)
    gap = check_number(gap, "gap")
    m = means.shape[0]
    if m < 1:
        raise ValueError("means must have at least one component, got 0 rows")
    return GMMSpec(means + gap * np.arange(m)[:, None], covs, np.full(m, 1.0 / m))


def anchor_samples(truth: GMMSpec, K: int, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(X (K N_k, d), labels)``: ``mu_k + C_k z`` for the first K components, ``z (K, N_k, d)``."""
    check_instance(truth, "truth", GMMSpec)
    K = check_int(K, "K", low=1, high=truth.n_components)
    z = np.asarray(check_array(z, "z", ndim=3, kind="f"))
    if z.shape[0] < K or z.shape[2] != truth.dim:
        raise ValueError(f"z must have shape (>= K={K}, N_k, d={truth.dim}), got {z.shape}")
    X = truth.means[:K, None, :] + np.einsum("kij,knj->kni", truth.chol[:K], z[:K])
    n_k = z.shape[1]
    return X.reshape(-1, truth.dim), np.repeat(np.arange(K), n_k)


def generator_m(
    truth: GMMSpec,
    X: np.ndarray,
    labels: np.ndarray,
    *,
    K: int,
    J: int,
    spurious: tuple[np.ndarray, np.ndarray],
) -> GMMSpec:
    """M: K components fitted to the anchor data, the J components D has beyond them copied exactly,
    and the given spurious ``(means (L, d), covs (L, d, d))``; equal weights 1 / (K + J + L)."""
    check_instance(truth, "truth", GMMSpec)
    d = truth.dim
    K = check_int(K, "K", low=1)
    J = check_int(J, "J", low=0, high=truth.n_components - K)
    X = np.asarray(check_array(X, "X", shape=(None, d), kind="fiu"), dtype=float)
    labels = np.asarray(check_array(labels, "labels", shape=(X.shape[0],), kind="iu"))
    if np.bincount(labels, minlength=K)[:K].min() < 2:
        raise ValueError(f"labels must give every one of the K={K} components at least 2 rows of X")
    sm = check_array(spurious[0], "spurious[0]", shape=(None, d), kind="fiu")
    check_array(spurious[1], "spurious[1]", shape=(sm.shape[0], d, d), kind="fiu")
    fm = np.stack([X[labels == k].mean(axis=0) for k in range(K)])
    fc = np.stack([np.atleast_2d(np.cov(X[labels == k], rowvar=False)) + 1e-6 * np.eye(d) for k in range(K)])
    means = np.concatenate([fm, truth.means[K : K + J], spurious[0]])
    covs = np.concatenate([fc, truth.covs[K : K + J], spurious[1]])
    m = means.shape[0]
    return GMMSpec(means, covs, np.full(m, 1.0 / m))


def draw_world(
    protocol: Protocol, *, seed: int, repeat: int, pool: tuple[int, int, int] | None = None
) -> World:
    """World ``(seed, repeat)`` of ``protocol``; ``pool = (K_max, J_max, L_max)`` sizes the shared draws."""
    p = check_instance(protocol, "protocol", Protocol)
    if pool is not None and (len(pool) != 3 or not all(isinstance(v, int | np.integer) for v in pool)):
        raise TypeError(f"pool must be a tuple of three ints (K_max, J_max, L_max), got {pool!r}")
    K_max, J_max, L_max = pool if pool is not None else (p.K, p.J, p.L)
    if K_max < p.K or J_max < p.J or L_max < p.L:
        raise ValueError(f"pool {pool} must be at least (K, J, L) = {(p.K, p.J, p.L)}")
    ss = np.random.SeedSequence([check_seed(seed), check_int(repeat, "repeat", low=0)])
    r_anchor, r_extra, r_spur, r_z, r_gen = (np.random.default_rng(s) for s in ss.spawn(5))
    am, ac = random_components(K_max, p.d, r_anchor)
    em, ec = random_components(J_max, p.d, r_extra)
    sm, sc = random_components(L_max, p.d, r_spur)
    truth = ground_truth(
        np.concatenate([am[: p.K], em[: p.J]]), np.concatenate([ac[: p.K], ec[: p.J]]), p.gap
    )
    X, labels = anchor_samples(truth, p.K, r_z.standard_normal((K_max, p.N_k, p.d)))
    M = generator_m(truth, X, labels, K=p.K, J=p.J if p.copy_gain else 0, spurious=(sm[: p.L], sc[: p.L]))
    n_draw = int(np.ceil(p.n_samples / (1.0 - p.curate)))
    S, _ = sample_gmm(M, n_draw, r_gen)
    if p.noise > 0:
        S = S + p.noise * r_gen.standard_normal(S.shape)
    if p.curate > 0:  # keep the n_samples most likely under M (curation lowers the generation divergence)
        S = S[np.argsort(-gmm_log_pdf(M, S), kind="stable")[: p.n_samples]]
    return World(truth, X, labels, M, S)


def kl_gaps(
    world: World,
    protocol: Protocol,
    *,
    seed: int,
    repeat: int,
    methods: tuple[str, ...] = ("mc",),
    n_eval: int = 1000,
    rounds: int = 100,
    mc_draws: int | None = None,
    bins: int = 50,
    eps: float = 1e-10,
) -> dict[str, tuple[float, float]]:
    """``{method: (KL(W' || D), KL(W || D))}`` for the EM fits W' (anchor) and W (synthetic) of ``world``.

    MC: ``mc_draws`` (default ``n_eval * rounds``) draws of each model. Histograms: ``rounds`` rounds,
    each drawing ``n_eval`` points of D, W' and W and sharing D's draw between the two KLs (as
    ``one_round_KL_test``), all rounds binned at once.
    """
    check_instance(world, "world", World)
    check_instance(protocol, "protocol", Protocol)
    check_instance(methods, "methods", tuple)
    for m in methods:
        check_choice(m, "methods", ESTIMATORS)
    n_eval, rounds = check_int(n_eval, "n_eval", low=2), check_int(rounds, "rounds", low=1)
    if mc_draws is not None:
        check_int(mc_draws, "mc_draws", low=2)
    if protocol.d > MAX_HIST_DIM and set(methods) - {"mc"}:
        raise ValueError(
            f"histogram methods need d <= {MAX_HIST_DIM}, got d={protocol.d}; use methods=('mc',)"
        )
    W_a, W_s = fit_models(world, protocol, seed=seed, repeat=repeat)
    ss = np.random.SeedSequence([seed, repeat, 8])
    r_eval = [np.random.default_rng(s) for s in ss.spawn(len(ESTIMATORS))]
    out: dict[str, tuple[float, float]] = {}
    for m in methods:
        rng = r_eval[ESTIMATORS.index(m)]  # each estimator its own stream: adding one leaves the others
        if m == "mc":
            n_mc = n_eval * rounds if mc_draws is None else mc_draws
            out[m] = (mc_kl(W_a, world.truth, n_mc, rng).value, mc_kl(W_s, world.truth, n_mc, rng).value)
            continue
        shape, shared = (rounds, n_eval, protocol.d), m == "histogram_shared"
        gt, xa, xs = (sample_gmm(g, n_eval * rounds, rng)[0].reshape(shape) for g in (world.truth, W_a, W_s))
        ka = histogram_kl(xa, gt, bins=bins, eps=eps, shared=shared)[0]
        ks = histogram_kl(xs, gt, bins=bins, eps=eps, shared=shared)[0]
        out[m] = (float(ka.mean()), float(ks.mean()))
    return out


def fit_model(world: World, protocol: Protocol, *, synthetic: bool, seed: int, repeat: int) -> GMMSpec:
    """W (``synthetic=True``: K + J + L components on S_gen) or W' (K components on S_anchor); the EM
    seeds come from (seed, repeat), so W and W' of a world are the same whichever is fitted first."""
    check_instance(world, "world", World)
    check_instance(protocol, "protocol", Protocol)
    seed, repeat = check_seed(seed), check_int(repeat, "repeat", low=0)
    r_fit = np.random.default_rng(np.random.SeedSequence([seed, repeat, 7]))
    fit_seeds = r_fit.integers(0, 2**31 - 1, size=2)
    if synthetic:
        return fit_gmm(world.synthetic, protocol.K + protocol.J + protocol.L, seed=int(fit_seeds[1]))
    return fit_gmm(world.anchor, protocol.K, seed=int(fit_seeds[0]))


def fit_models(world: World, protocol: Protocol, *, seed: int, repeat: int) -> tuple[GMMSpec, GMMSpec]:
    """``(W', W)``: EM fits of K components on S_anchor and K + J + L on S_gen (seeds from (seed, repeat))."""
    kw = {"seed": seed, "repeat": repeat}
    return fit_model(world, protocol, synthetic=False, **kw), fit_model(world, protocol, synthetic=True, **kw)


@dataclass(frozen=True)
class Sweep:
    """KLs over a sweep of one parameter: ``kl_anchor[m]``, ``kl_synthetic[m]`` are ``(values, repeats)``."""

    param: str
    values: tuple[int, ...]
    kl_anchor: dict[str, np.ndarray]
    kl_synthetic: dict[str, np.ndarray]

    def __post_init__(self) -> None:
        check_choice(self.param, "param", PARAMS)
        if set(self.kl_anchor) != set(self.kl_synthetic):
            raise ValueError("kl_anchor and kl_synthetic must have the same methods")

    def gap(self, method: str) -> np.ndarray:
        """``(values, repeats)`` KL gap KL(W' || D) - KL(W || D)."""
        check_choice(method, "method", tuple(self.kl_anchor))
        return self.kl_anchor[method] - self.kl_synthetic[method]


def sweep(
    param: str,
    values: tuple[int, ...],
    *,
    repeats: int,
    protocol: Protocol | None = None,
    seed: int = 0,
    methods: tuple[str, ...] = ("mc",),
    n_eval: int = 1000,
    rounds: int = 100,
    mc_draws: int | None = None,
) -> Sweep:
    """Vary ``param`` (K, J or L) over ``values`` with the others fixed at ``protocol``; ``repeats`` worlds
    per value, repeat r sharing its draws across values (paired)."""
    param = check_choice(param, "param", PARAMS)
    if not isinstance(values, tuple | list) or not values:
        raise ValueError(f"values must be a non-empty tuple of ints, got {values!r}")
    values = tuple(check_int(v, "values", low=0) for v in values)
    repeats = check_int(repeats, "repeats", low=1)
    base = check_instance(protocol, "protocol", Protocol) if protocol is not None else Protocol()
    pool = tuple(max(values) if name == param else getattr(base, name) for name in PARAMS)
    ka = {m: np.empty((len(values), repeats)) for m in methods}
    ks = {m: np.empty((len(values), repeats)) for m in methods}
    for i, v in enumerate(values):
        proto = replace(base, **{param: int(v)})  # type: ignore[arg-type]
        for r in range(repeats):  # each world is an EM fit or two: the cost is inside sklearn
            w = draw_world(proto, seed=seed, repeat=r, pool=(pool[0], pool[1], pool[2]))
            res = kl_gaps(
                w,
                proto,
                seed=seed,
                repeat=r,
                methods=methods,
                n_eval=n_eval,
                rounds=rounds,
                mc_draws=mc_draws,
            )
            for m in methods:
                ka[m][i, r], ks[m][i, r] = res[m]
    return Sweep(param, tuple(int(v) for v in values), ka, ks)
