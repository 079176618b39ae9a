"""Online learners for the episodic LEQR: the paper's Algorithms 1 and 2 and the spec's baselines.

All learners are certainty-equivalent: in episode k they play the LEQR-optimal gains of their current
estimate θ̂_k (u_t = K_t x_t, plus Gaussian exploration noise η_t for Algorithm 2) and re-estimate θ by
least squares on a schedule. One frozen dataclass, :class:`Learner`, covers them all; the named
factories fix the paper's / spec's settings:

==========================  ==========  =========  =====  ==============  ===============
name                        refit       data       ridge  noise σ_k²      gains
==========================  ==========  =========  =====  ==============  ===============
``alg1`` (Algorithm 1)      doubling    epoch      0      0               LEQR(θ̂)
``alg2`` (Algorithm 2)      every       all        1      σ0² k^(-1/2)    LEQR(θ̂)
``oracle``                  never       -          -      0               LEQR(θ*)
``ce_lqr``                  doubling    epoch      0      0               LQR(θ̂), γ = 0
``fixed_initial``           never       -          -      0               LEQR(θ̂^(1))
``greedy_every_episode``    every       all        0      0               LEQR(θ̂)
``constant_noise``          every       all        1      σ0²             LEQR(θ̂)
==========================  ==========  =========  =====  ==============  ===============

"doubling": epoch l = 1, 2, … has 2^(l-1) episodes and θ̂^(l+1) is fitted at its end; with
data="epoch" only that epoch's transitions are used (Algorithm 1: "only data from epoch l-1").

Regret of episode k is exact: J^{π_k}(x_0^k) - J*(x_0^k) with both criteria from the Riccati-type
recursion of ``rslqr.riccati`` (no Monte Carlo), where π_k = (K^{(k)}, σ_k) is what was played.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from numpy.typing import ArrayLike, NDArray

from rslqr._linalg import FloatArray
from rslqr.env import EpisodicLEQREnv
from rslqr.estimate import LSStatistics, solve_least_squares
from rslqr.riccati import RiccatiBreakdown, _leqr_gains, _policy_value
from rslqr.systems import LEQRSystem

__all__ = [
    "ALGORITHM_NAMES",
    "Learner",
    "RunLog",
    "algorithm1",
    "algorithm2",
    "ce_lqr",
    "constant_noise",
    "fixed_initial",
    "greedy_every_episode",
    "make_learner",
    "oracle",
]

RefitSchedule = Literal["doubling", "every", "never"]
DataWindow = Literal["epoch", "all"]


@dataclass(frozen=True, eq=False)
class RunLog:
    """Outcome of one learner run of N episodes.

    Attributes:
        algorithm: the learner's name.
        regret: (N,) exact per-episode regret J^{π_k}(x_0^k) - J*(x_0^k) at the realised x_0^k
            (cost units; +inf if the played controller's criterion diverges).
        expected_regret: (N,) the same averaged over x_0 ~ N(0, x0_cov): tr(ΔP_0 x0_cov) + Δc_0.
        theta_error: (N,) Frobenius error ‖θ̂_k - θ*‖ of the latest estimate at the start of episode k.
        sigma: (N,) exploration-noise standard deviation σ_k used in episode k.
        x0: (N, n) realised initial states.
        n_fallbacks: refits whose Riccati broke down or gave non-finite gains, so that the previous
            gains were kept (spec's practical guard; also counts a failing initial estimate).
        n_rank_deficient: refits with a numerically singular Gram matrix (pseudo-inverse used).
        n_refits: number of least-squares refits.
        n_nonfinite_episodes: episodes whose states overflowed; their data were not used.
        gain_history: (G, T, m, n) the distinct gain sequences played, in order.
        gain_index: (N,) episode k played gain_history[gain_index[k]] (with noise sigma[k]).
    """

    algorithm: str
    regret: FloatArray
    expected_regret: FloatArray
    theta_error: FloatArray
    sigma: FloatArray
    x0: FloatArray
    n_fallbacks: int
    n_rank_deficient: int
    n_refits: int
    n_nonfinite_episodes: int
    gain_history: FloatArray
    gain_index: NDArray[np.int64]

    @property
    def cumulative_regret(self) -> FloatArray:
        """(N,) Σ_{j<=k} regret_j."""
        return np.cumsum(self.regret)

    @property
    def n_infinite(self) -> int:
        """Episodes whose played controller has a divergent (+inf) criterion on the true system."""
        return int(np.sum(np.isinf(self.regret)))


def _unwrap_system(env: gym.Env[Any, Any]) -> LEQRSystem:
    base = env.unwrapped
    if not isinstance(base, EpisodicLEQREnv):
        raise TypeError(f"env must be (a wrapper of) EpisodicLEQREnv, got {type(base).__name__}")
    return base.system


@dataclass(frozen=True)
class Learner:
    """Certainty-equivalent least-squares learner (Algorithms 1, 2 and baselines; see module doc).

    Attributes:
        name: label stored in the RunLog.
        refit: "doubling" (end of each doubling epoch), "every" (every ``refit_every`` episodes) or
            "never".
        data: "epoch" (only transitions since the last refit) or "all" (all past transitions).
        ridge: λ >= 0 of the regularised least squares (0 = OLS, pseudo-inverse if singular).
        sigma0: exploration-noise scale σ_0 >= 0.
        noise_decay: variance schedule exponent a in σ_k² = σ_0² k^(-a) (k = 1, 2, …); 0.5 is the
            spec's best reading of Algorithm 2, 0 gives constant noise.
        refit_every: period of refits when refit == "every".
        first_epoch: m_0, the episodes played on the initial estimate before the first refit. With
            "doubling", epoch l = 1, 2, … has m_0·2^(l-1) episodes (Basei et al. 2022's m_l = 2^l m_0);
            with "every", refits start after episode m_0.
        risk_neutral: use γ = 0 (LQR) gains of θ̂ instead of LEQR gains (ce_lqr baseline).
        known_theta: play the gains of the true θ (oracle baseline; no estimation).

    The learner knows Q, R, QT, W, T and γ (read from the environment's system, as in the paper);
    the true θ is read only to evaluate regret/estimation error and by the oracle.
    """

    name: str
    refit: RefitSchedule = "doubling"
    data: DataWindow = "epoch"
    ridge: float = 0.0
    sigma0: float = 0.0
    noise_decay: float = 0.5
    refit_every: int = 1
    risk_neutral: bool = False
    known_theta: bool = False
    first_epoch: int = 1

    def __post_init__(self) -> None:
        if self.refit not in ("doubling", "every", "never"):
            raise ValueError(f"refit must be 'doubling', 'every' or 'never', got {self.refit!r}")
        if self.data not in ("epoch", "all"):
            raise ValueError(f"data must be 'epoch' or 'all', got {self.data!r}")
        if not (np.isfinite(self.ridge) and self.ridge >= 0.0):
            raise ValueError(f"ridge must be finite and >= 0, got {self.ridge}")
        if not (np.isfinite(self.sigma0) and self.sigma0 >= 0.0):
            raise ValueError(f"sigma0 must be finite and >= 0, got {self.sigma0}")
        if not (np.isfinite(self.noise_decay) and self.noise_decay >= 0.0):
            raise ValueError(f"noise_decay must be finite and >= 0, got {self.noise_decay}")
        if (
            isinstance(self.refit_every, bool)
            or not isinstance(self.refit_every, int)
            or self.refit_every < 1
        ):
            raise ValueError(f"refit_every must be an integer >= 1, got {self.refit_every!r}")
        if (
            isinstance(self.first_epoch, bool)
            or not isinstance(self.first_epoch, int)
            or self.first_epoch < 1
        ):
            raise ValueError(f"first_epoch must be an integer >= 1, got {self.first_epoch!r}")

    def sigma(self, k: int) -> float:
        """Exploration std of episode k (1-based): σ_k = σ_0 k^(-a/2)."""
        return float(self.sigma0 * k ** (-0.5 * self.noise_decay)) if self.sigma0 > 0.0 else 0.0

    def _refit_after(self, k: int) -> bool:
        """Whether to refit after episode k (1-based)."""
        if self.known_theta or self.refit == "never":
            return False
        if k < self.first_epoch:
            return False
        if self.refit == "every":
            return (k - self.first_epoch) % self.refit_every == 0
        q, r = divmod(k, self.first_epoch)
        return r == 0 and (q & (q + 1)) == 0  # k = m_0 (2^l - 1): the end of doubling epoch l

    def run(
        self,
        env: gym.Env[Any, Any],
        n_episodes: int,
        *,
        theta_init: ArrayLike | None = None,
        seed: int | np.random.Generator | None = None,
    ) -> RunLog:
        """Play ``n_episodes`` episodes on ``env`` through reset/step and return the exact-regret log.

        Args:
            env: an :class:`~rslqr.env.EpisodicLEQREnv` (possibly wrapped); it is the simulator.
            n_episodes: N >= 1.
            theta_init: (n, n + m) initial estimate θ̂^(1) (required unless ``known_theta``).
            seed: int or Generator; the only randomness. The environment is reset with a seed drawn
                from it before the first episode, and exploration noise is drawn from it afterwards,
                so the same seed gives identical arrays.
        """
        system = _unwrap_system(env)
        if isinstance(n_episodes, bool) or not isinstance(n_episodes, (int, np.integer)) or n_episodes < 1:
            raise ValueError(f"n_episodes must be an integer >= 1, got {n_episodes!r}")
        N = int(n_episodes)
        n, m, T = system.n, system.m, system.T
        d = n + m
        A, B, Q, R, QT, Wh = system.A, system.B, system.Q, system.R, system.QT, system.W_sqrt
        gamma = system.gamma
        theta_true = system.theta
        if self.known_theta:
            theta_hat = theta_true
        else:
            if theta_init is None:
                raise ValueError(f"learner {self.name!r} needs theta_init of shape ({n}, {d})")
            theta_hat = np.array(theta_init, dtype=np.float64)
            if theta_hat.shape != (n, d) or not np.all(np.isfinite(theta_hat)):
                raise ValueError(f"theta_init must be a finite ({n}, {d}) array, got shape {theta_hat.shape}")
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        env_seed = int(rng.integers(0, 2**63 - 1))
        plan_gamma = 0.0 if self.risk_neutral else gamma

        def plan(theta: FloatArray) -> FloatArray | None:
            try:
                K_new = _leqr_gains(theta[:, :n], theta[:, n:], Q, R, QT, Wh, T, plan_gamma)[0]
            except (RiccatiBreakdown, np.linalg.LinAlgError):
                return None
            return K_new if np.all(np.isfinite(K_new)) else None

        n_fallbacks = 0
        K = plan(theta_hat)
        if K is None:
            # No previous gains to keep yet: fall back to the risk-neutral gains of θ̂^(1), which
            # always exist, and as a last resort to u = 0.
            n_fallbacks += 1
            try:
                K = _leqr_gains(theta_hat[:, :n], theta_hat[:, n:], Q, R, QT, Wh, T, 0.0)[0]
            except (RiccatiBreakdown, np.linalg.LinAlgError):
                K = np.zeros((T, m, n))
            if not np.all(np.isfinite(K)):
                K = np.zeros((T, m, n))

        K_star = _leqr_gains(A, B, Q, R, QT, Wh, T, gamma)[0]
        P_star, c_star = _policy_value(A, B, Q, R, QT, Wh, K_star, gamma, 0.0)
        x0_cov = system.x0_cov

        regret = np.empty(N)
        expected = np.empty(N)
        theta_err = np.empty(N)
        sigmas = np.empty(N)
        x0s = np.empty((N, n))
        stats = LSStatistics.empty(n, d)
        n_rank_def = n_refits = n_nonfinite = 0
        gains_version = 0  # bumped whenever K changes; with σ_k it keys the cached (P0, c0)
        history = [K]
        gain_index = np.empty(N, dtype=np.int64)
        value_key: tuple[int, float] | None = None
        dP = np.zeros((n, n))
        dc = 0.0
        Z = np.empty((T, d))
        Y = np.empty((T, n))
        err = float(np.linalg.norm(theta_hat - theta_true))
        reset, step = env.reset, env.step

        for k in range(1, N + 1):
            sigma_k = self.sigma(k)
            x, _ = reset(seed=env_seed if k == 1 else None)
            eta = sigma_k * rng.standard_normal((T, m)) if sigma_k > 0.0 else None
            for t in range(T):
                u = K[t] @ x if eta is None else K[t] @ x + eta[t]
                Z[t, :n] = x
                Z[t, n:] = u
                x = step(u)[0]
                Y[t] = x

            # Exact regret; (P0, c0) only changes when the gains or σ change.
            key = (gains_version, sigma_k)
            if key != value_key:
                P_k, c_k = _policy_value(A, B, Q, R, QT, Wh, K, gamma, sigma_k)
                dP, dc = P_k - P_star, c_k - c_star
                value_key = key
            x0 = Z[0, :n]
            x0s[k - 1] = x0
            if np.isfinite(dc):
                regret[k - 1] = float(x0 @ dP @ x0) + dc
                expected[k - 1] = float(np.sum(dP * x0_cov)) + dc
            else:
                regret[k - 1] = expected[k - 1] = np.inf
            theta_err[k - 1] = err
            gain_index[k - 1] = gains_version
            sigmas[k - 1] = sigma_k

            if np.all(np.isfinite(Z)) and np.all(np.isfinite(Y)):
                stats = stats.add(Z, Y)
            else:
                n_nonfinite += 1
            if self._refit_after(k):
                fit = solve_least_squares(stats, self.ridge)
                n_refits += 1
                n_rank_def += int(fit.rank_deficient)
                if self.data == "epoch":
                    stats = LSStatistics.empty(n, d)
                theta_hat = fit.theta
                err = float(np.linalg.norm(theta_hat - theta_true))
                K_new = plan(theta_hat)
                if K_new is None:
                    n_fallbacks += 1
                else:
                    K = K_new
                    gains_version += 1
                    history.append(K)

        return RunLog(
            algorithm=self.name,
            regret=regret,
            expected_regret=expected,
            theta_error=theta_err,
            sigma=sigmas,
            x0=x0s,
            n_fallbacks=n_fallbacks,
            n_rank_deficient=n_rank_def,
            n_refits=n_refits,
            n_nonfinite_episodes=n_nonfinite,
            gain_history=np.stack(history),
            gain_index=gain_index,
        )


# Defaults: ridge λ = 1 and σ_0 = 1 are the spec's pilot choices (the paper's values were not available).


def algorithm1() -> Learner:
    """Algorithm 1: greedy LEQR on doubling epochs, OLS on the previous epoch's data only, no noise."""
    return Learner(name="alg1", refit="doubling", data="epoch", ridge=0.0)


def algorithm2(
    ridge: float = 1.0, sigma0: float = 1.0, noise_decay: float = 0.5, refit_every: int = 1
) -> Learner:
    """Algorithm 2: ridge LS on all past data + exploration noise σ_k² = σ_0² k^(-noise_decay)."""
    return Learner(
        name="alg2",
        refit="every",
        data="all",
        ridge=ridge,
        sigma0=sigma0,
        noise_decay=noise_decay,
        refit_every=refit_every,
    )


def oracle() -> Learner:
    """LEQR gains of the true θ (zero regret)."""
    return Learner(name="oracle", refit="never", known_theta=True)


def ce_lqr() -> Learner:
    """Algorithm 1's estimator with risk-neutral (γ = 0) certainty-equivalent gains."""
    return Learner(name="ce_lqr", refit="doubling", data="epoch", ridge=0.0, risk_neutral=True)


def fixed_initial() -> Learner:
    """LEQR gains of θ̂^(1), never re-estimated."""
    return Learner(name="fixed_initial", refit="never")


def greedy_every_episode() -> Learner:
    """Algorithm 1 without epochs: OLS on all past data after every episode, no noise (ablation)."""
    return Learner(name="greedy_every_episode", refit="every", data="all", ridge=0.0)


def constant_noise(ridge: float = 1.0, sigma0: float = 1.0) -> Learner:
    """Algorithm 2 with σ_k ≡ σ_0 (pays a constant exploration cost per episode)."""
    return Learner(
        name="constant_noise", refit="every", data="all", ridge=ridge, sigma0=sigma0, noise_decay=0.0
    )


_FACTORIES = {
    "alg1": algorithm1,
    "alg2": algorithm2,
    "oracle": oracle,
    "ce_lqr": ce_lqr,
    "fixed_initial": fixed_initial,
    "greedy_every_episode": greedy_every_episode,
    "constant_noise": constant_noise,
}
ALGORITHM_NAMES: tuple[str, ...] = tuple(_FACTORIES)


def make_learner(name: str, **overrides: Any) -> Learner:
    """The named learner (one of ``ALGORITHM_NAMES``) with optional field overrides, e.g. ridge=0.1."""
    if name not in _FACTORIES:
        raise ValueError(f"unknown algorithm {name!r}; expected one of {', '.join(ALGORITHM_NAMES)}")
    learner = _FACTORIES[name]()
    if overrides:
        fields = {f.name for f in dataclasses.fields(Learner)}
        unknown = sorted(set(overrides) - fields)
        if unknown:
            raise ValueError(f"unknown Learner field(s) {unknown}; valid fields are {sorted(fields)}")
        learner = dataclasses.replace(learner, **overrides)
    return learner
