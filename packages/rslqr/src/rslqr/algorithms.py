"""The online learner of the episodic LEQR behind the paper's Algorithms 1 and 2 and the baselines.

(The named methods and their registry are in ``rslqr.methods``.) All learners are certainty-equivalent:
in episode k they play the LEQR-optimal gains of their current
estimate θ̂_k (u_t = K_t x_t, plus Gaussian exploration noise η_t for Algorithm 2) and re-estimate θ by
least squares on a schedule. One frozen dataclass, :class:`Learner`, covers them all; the named
factories of ``rslqr.methods`` fix the paper's / spec's settings:

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

from dataclasses import dataclass
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from numpy.typing import ArrayLike, NDArray
from paperkit.validation import check_array, check_choice, check_int, check_positive

from rslqr._linalg import FloatArray
from rslqr.env import EpisodicLEQREnv
from rslqr.estimate import LSStatistics, solve_least_squares
from rslqr.riccati import RiccatiBreakdown, leqr_gains_kernel, policy_value_kernel
from rslqr.systems import LEQRSystem

__all__ = ["Learner", "RunLog"]

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
        check_choice(self.refit, "refit", ("doubling", "every", "never"))
        check_choice(self.data, "data", ("epoch", "all"))
        for name in ("ridge", "sigma0", "noise_decay"):
            check_positive(getattr(self, name), name, strict=False)
        check_int(self.refit_every, "refit_every", low=1)
        check_int(self.first_epoch, "first_epoch", low=1)

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
        N = check_int(n_episodes, "n_episodes", low=1)
        n, m, T = system.n, system.m, system.T
        d = n + m
        theta_hat = self._initial_theta(system, theta_init)
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        env_seed = int(rng.integers(0, 2**63 - 1))
        plan_gamma = 0.0 if self.risk_neutral else system.gamma
        K, n_fallbacks = _initial_gains(system, theta_hat, plan_gamma)
        regret_of = _ExactRegret(system)
        out = _LogArrays.empty(N, n)
        stats = LSStatistics.empty(n, d)
        n_rank_def = n_refits = n_nonfinite = 0
        gains_version = 0  # bumped whenever K changes; with σ_k it keys the cached (P0, c0)
        history = [K]
        Z = np.empty((T, d))
        Y = np.empty((T, n))
        err = float(np.linalg.norm(theta_hat - system.theta))
        reset, step = env.reset, env.step

        for k in range(1, N + 1):
            sigma_k = self.sigma(k)
            x, _ = reset(seed=env_seed if k == 1 else None)
            eta = sigma_k * rng.standard_normal((T, m)) if sigma_k > 0.0 else None
            _rollout(step, K, x, eta, Z, Y)
            x0 = Z[0, :n]
            out.record(k - 1, regret_of(K, gains_version, sigma_k, x0), x0, err, gains_version, sigma_k)

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
                err = float(np.linalg.norm(theta_hat - system.theta))
                K_new = _plan(system, theta_hat, plan_gamma)
                if K_new is None:
                    n_fallbacks += 1
                else:
                    K = K_new
                    gains_version += 1
                    history.append(K)

        return RunLog(
            algorithm=self.name,
            regret=out.regret,
            expected_regret=out.expected,
            theta_error=out.theta_error,
            sigma=out.sigma,
            x0=out.x0,
            n_fallbacks=n_fallbacks,
            n_rank_deficient=n_rank_def,
            n_refits=n_refits,
            n_nonfinite_episodes=n_nonfinite,
            gain_history=np.stack(history),
            gain_index=out.gain_index,
        )

    def _initial_theta(self, system: LEQRSystem, theta_init: ArrayLike | None) -> FloatArray:
        """θ̂^(1): the true θ for the oracle, else the validated ``theta_init`` (a float64 copy)."""
        if self.known_theta:
            return system.theta
        n, d = system.n, system.n + system.m
        if theta_init is None:
            raise ValueError(f"learner {self.name!r} needs theta_init of shape ({n}, {d})")
        return np.array(check_array(theta_init, "theta_init", shape=(n, d), kind="fiu"), dtype=np.float64)


def _plan(system: LEQRSystem, theta: FloatArray, gamma: float) -> FloatArray | None:
    """Certainty-equivalent gains of θ = [A B] at risk level γ, or None when they do not exist."""
    n = system.n
    try:
        K = leqr_gains_kernel(
            theta[:, :n], theta[:, n:], system.Q, system.R, system.QT, system.W_sqrt, system.T, gamma
        )[0]
    except (RiccatiBreakdown, np.linalg.LinAlgError):
        return None
    return K if np.all(np.isfinite(K)) else None


def _initial_gains(system: LEQRSystem, theta_hat: FloatArray, gamma: float) -> tuple[FloatArray, int]:
    """(gains of θ̂^(1), fallbacks used): with no previous gains to keep yet, a failed plan falls back to
    the risk-neutral gains of θ̂^(1), which always exist, and as a last resort to u = 0."""
    K = _plan(system, theta_hat, gamma)
    if K is not None:
        return K, 0
    zeros = np.zeros((system.T, system.m, system.n))
    try:
        n = system.n
        K = leqr_gains_kernel(
            theta_hat[:, :n], theta_hat[:, n:], system.Q, system.R, system.QT, system.W_sqrt, system.T, 0.0
        )[0]
    except (RiccatiBreakdown, np.linalg.LinAlgError):
        return zeros, 1
    return (K if np.all(np.isfinite(K)) else zeros), 1


def _rollout(
    step: Any, K: FloatArray, x: FloatArray, eta: FloatArray | None, Z: FloatArray, Y: FloatArray
) -> None:
    """One episode of u_t = K_t x_t (+ η_t) through ``env.step``: fills Z = [x_t u_t] and Y = x_{t+1}."""
    n = x.shape[0]
    for t in range(K.shape[0]):
        u = K[t] @ x if eta is None else K[t] @ x + eta[t]
        Z[t, :n] = x
        Z[t, n:] = u
        x = step(u)[0]
        Y[t] = x


class _ExactRegret:
    """Exact regret J^π(x0) − J*(x0) of the played policy; (P0, c0) is recomputed only when the gains'
    version or σ changes."""

    def __init__(self, system: LEQRSystem) -> None:
        self.system = system
        s = system
        K_star = leqr_gains_kernel(s.A, s.B, s.Q, s.R, s.QT, s.W_sqrt, s.T, s.gamma)[0]
        self.P_star, self.c_star = policy_value_kernel(
            s.A, s.B, s.Q, s.R, s.QT, s.W_sqrt, K_star, s.gamma, 0.0
        )
        self.key: tuple[int, float] | None = None
        self.dP = np.zeros((s.n, s.n))
        self.dc = 0.0

    def __call__(self, K: FloatArray, version: int, sigma: float, x0: FloatArray) -> tuple[float, float]:
        """(regret at x0, regret averaged over x0 ~ N(0, x0_cov)); +inf for a divergent criterion."""
        if (version, sigma) != self.key:
            s = self.system
            P_k, c_k = policy_value_kernel(s.A, s.B, s.Q, s.R, s.QT, s.W_sqrt, K, s.gamma, sigma)
            self.dP, self.dc = P_k - self.P_star, c_k - self.c_star
            self.key = (version, sigma)
        if not np.isfinite(self.dc):
            return np.inf, np.inf
        return float(x0 @ self.dP @ x0) + self.dc, float(np.sum(self.dP * self.system.x0_cov)) + self.dc


@dataclass(frozen=True, eq=False)
class _LogArrays:
    """The per-episode arrays of a RunLog, filled in place."""

    regret: FloatArray
    expected: FloatArray
    theta_error: FloatArray
    sigma: FloatArray
    x0: FloatArray
    gain_index: NDArray[np.int64]

    @classmethod
    def empty(cls, N: int, n: int) -> _LogArrays:
        return cls(
            np.empty(N), np.empty(N), np.empty(N), np.empty(N), np.empty((N, n)), np.empty(N, dtype=np.int64)
        )

    def record(
        self, i: int, regrets: tuple[float, float], x0: FloatArray, err: float, version: int, sigma: float
    ) -> None:
        self.regret[i], self.expected[i] = regrets
        self.x0[i] = x0
        self.theta_error[i] = err
        self.gain_index[i] = version
        self.sigma[i] = sigma
