"""NDB-UCB and NDB-TS (Algorithms 1 and 2), their linear versions, and the binary-feedback variants.

Dueling round t (Algorithms 1-2):
1. compute h(x; θ_t) and φ(x) = g(x; θ_t)/√m for the K arms;
2. first arm, greedy: x_{t,1} = argmax_x h(x; θ_t);
3. second arm, optimistic relative to the first:
     UCB: x_{t,2} = argmax_x h(x; θ_t) + ν σ_{t−1}(x, x_{t,1}),
     TS:  x_{t,2} = argmax_x r̃(x),  r̃(x) ~ N(h(x; θ_t), ν² σ²_{t−1}(x, x_{t,1})) independently,
   with σ²_{t−1}(x, x') = (λ/κ_μ) (φ(x) − φ(x'))ᵀ V_{t−1}⁻¹ (φ(x) − φ(x'));
   x_{t,2} may equal x_{t,1} (then σ = 0 and the duel carries no information);
4. observe y_t = 1[x_{t,1} ≻ x_{t,2}]; V_t = V_{t−1} + Δφ Δφᵀ (Sherman–Morrison on V⁻¹), V_0 = (λ/κ_μ) I;
5. refit θ on all duels.
The linear versions (LinDB-UCB/TS) are the same rules with h(x) = xᵀw and φ(x) = x.

Binary feedback (neural / linear GLM bandit): one arm a round, x_t = argmax_x h(x) + ν σ(x) (UCB) or
argmax of r̃ ~ N(h, ν²σ²) (TS), σ²(x) = (λ/κ_μ) φ(x)ᵀ V⁻¹ φ(x), y_t ~ Bernoulli(μ(f(x_t))),
V_t = V_{t−1} + φ(x_t) φ(x_t)ᵀ.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import torch
from paperkit import torch_threads  # tiny per-round ops: extra threads only add synchronisation
from paperkit.validation import check_int, check_positive

from bandit_neural.confidence import GramInverse
from bandit_neural.models import LinearUtility, NeuralUtility
from bandit_neural.nets import torch_device

RULES = ("ucb", "ts", "greedy")


class UtilityModel(Protocol):
    d: int
    p: int

    def features(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]: ...

    def should_fit(self, n_rounds: int) -> bool: ...

    def fit(self, x1: torch.Tensor, x2: torch.Tensor | None, y: torch.Tensor) -> None: ...


def _positive(name: str, value: float) -> float:
    return float(check_positive(value, name))


class _Data:
    """Growing on-device buffer of (x1, x2, y) duels or (x, y) binary observations."""

    def __init__(self, d: int, pairs: bool, device: torch.device, dtype: torch.dtype) -> None:
        self.n, self.pairs = 0, pairs
        self._x = torch.empty(64, 2 if pairs else 1, d, device=device, dtype=dtype)
        self._y = torch.empty(64, device=device, dtype=dtype)

    def append(self, x: torch.Tensor, y: float) -> None:
        if self.n == len(self._y):
            self._x = torch.cat([self._x, torch.empty_like(self._x)])
            self._y = torch.cat([self._y, torch.empty_like(self._y)])
        self._x[self.n] = x
        self._y[self.n] = y
        self.n += 1

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
        x = self._x[: self.n]
        return x[:, 0], (x[:, 1] if self.pairs else None), self._y[: self.n]


class _Bandit:
    """Shared state of every bandit here: the utility model, V⁻¹, the data, input checks."""

    min_arms = 1
    pairs = False

    def __init__(
        self,
        model: UtilityModel,
        *,
        rule: str = "ucb",
        nu: float = 3.0,
        lam: float = 1.0,
        kappa_mu: float = 0.1,
        diagonal: bool = False,
        seed: int = 0,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float64,
    ) -> None:
        if rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
        self.rule = rule
        self.nu = _positive("nu", nu) if rule != "greedy" else 0.0
        self.lam = _positive("lam", lam)
        self.kappa_mu = _positive("kappa_mu", kappa_mu)
        self.model = model
        self.d = model.d
        self.device, self.dtype = torch_device(device), dtype
        self.gram = GramInverse(
            model.p, self.lam / self.kappa_mu, diagonal=diagonal, device=self.device, dtype=torch.float64
        )
        self._gen = torch.Generator(device=self.device).manual_seed(int(seed))
        self.n_rounds = 0
        self.data = _Data(self.d, self.pairs, self.device, dtype)
        self._cache: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None

    def _contexts(self, contexts: Any) -> torch.Tensor:
        """Validate and convert contexts to a (K, d) tensor on the bandit's device."""
        if isinstance(contexts, torch.Tensor):
            x = contexts.to(device=self.device, dtype=self.dtype)
        else:
            try:
                arr = np.asarray(contexts, dtype=np.float64)
            except (TypeError, ValueError) as e:
                raise TypeError(f"contexts must be a (K, d) array of numbers, got {type(contexts)}") from e
            x = torch.as_tensor(arr, device=self.device, dtype=self.dtype)
        if x.ndim != 2:
            raise ValueError(f"contexts must be a 2-D (K, d) array, got shape {tuple(x.shape)}")
        k, d = x.shape
        if d != self.d:
            raise ValueError(f"contexts have dimension {d}, but the bandit was built for d = {self.d}")
        if k < self.min_arms:
            raise ValueError(f"{type(self).__name__} needs K >= {self.min_arms} arms, got K = {k}")
        if not bool(torch.isfinite(x).all()):
            raise ValueError("contexts contain NaN or infinite values")
        return x

    def _features(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(h, φ) of x, reusing the last select's computation when update sees the same contexts."""
        if self._cache is not None and self._cache[0].shape == x.shape and torch.equal(self._cache[0], x):
            return self._cache[1], self._cache[2]
        h, phi = self.model.features(x)
        self._cache = (x, h, phi)
        return h, phi

    def _widths(self, u: torch.Tensor) -> torch.Tensor:
        """σ for rows u = φ(x) − φ(x') (or φ(x)): sqrt((λ/κ_μ) uᵀV⁻¹u), (K,)."""
        return torch.sqrt(self.gram.reg * self.gram.quad(u)).to(self.dtype)

    def _optimistic(self, h: torch.Tensor, sigma: torch.Tensor) -> int:
        if self.rule == "ucb":
            score = h + self.nu * sigma
        elif self.rule == "ts":
            noise = torch.randn(h.shape, generator=self._gen, device=self.device, dtype=self.dtype)
            score = h + self.nu * sigma * noise
        else:
            score = h
        return int(torch.argmax(score))

    def _label(self, y: Any) -> float:
        if isinstance(y, torch.Tensor):
            y = y.item()
        if isinstance(y, (bool, np.bool_)):
            return float(y)
        if not isinstance(y, (int, float, np.integer, np.floating)):
            raise TypeError(f"feedback y must be 0 or 1, got {type(y).__name__}")
        if y not in (0, 1):
            raise ValueError(f"feedback y must be 0 or 1, got {y}")
        return float(y)

    @staticmethod
    def _arm(name: str, a: Any, k: int) -> int:
        return check_int(a, f"arm index {name} (for K = {k} arms)", low=0, high=k - 1)

    def _refit(self) -> None:
        self.n_rounds += 1
        if self.data.n and self.model.should_fit(self.n_rounds):
            self.model.fit(*self.data.tensors())
        self._cache = None  # θ changed (or may have): features must be recomputed


class DuelingBandit(_Bandit):
    """A contextual dueling bandit: first arm greedy, second arm optimistic (UCB/TS) relative to it.

    Use the named constructors :class:`NeuralDuelingUCB`, :class:`NeuralDuelingTS`,
    :class:`LinearDuelingUCB`, :class:`LinearDuelingTS` or pass any utility model.

    Args:
        model: a utility model (:class:`NeuralUtility` or :class:`LinearUtility`).
        rule: ``"ucb"``, ``"ts"`` or ``"greedy"`` (second arm = first arm; the ν → 0 limit).
        nu: ν > 0, the exploration scale.
        lam, kappa_mu: λ and κ_μ of V_0 = (λ/κ_μ) I and σ² = (λ/κ_μ) ΔφᵀV⁻¹Δφ.
        diagonal: the diagonal approximation of V (NeuralUCB's practice for large p).
        seed: the Thompson-sampling draws.
    """

    min_arms = 2
    pairs = True

    @torch_threads(1)
    def select(self, contexts: Any) -> tuple[int, int]:
        """contexts: (K, d) numpy array or tensor, K >= 2 → (i, j), the arms to duel (j may equal i)."""
        x = self._contexts(contexts)
        h, phi = self._features(x)
        first = int(torch.argmax(h))
        if self.rule == "greedy":
            return first, first
        sigma = self._widths(phi - phi[first])
        return first, self._optimistic(h, sigma)

    @torch_threads(1)
    def confidence_width(self, contexts: Any, i: int, j: int) -> float:
        """σ_{t−1}(x_i, x_j) at the current θ and V (for inspection and tests)."""
        x = self._contexts(contexts)
        k = x.shape[0]
        i, j = self._arm("i", i, k), self._arm("j", j, k)
        _, phi = self._features(x)
        return float(self._widths((phi[i] - phi[j])[None])[0])

    @torch_threads(1)
    def update(self, contexts: Any, i: int, j: int, y: Any) -> None:
        """Record the duel (x_i, x_j) with y = 1[x_i ≻ x_j]; update V⁻¹ and refit on schedule."""
        x = self._contexts(contexts)
        k = x.shape[0]
        i, j, label = self._arm("i", i, k), self._arm("j", j, k), self._label(y)
        if i != j:  # a duel of an arm with itself has Δφ = 0 and a constant loss: no information
            _, phi = self._features(x)
            self.gram.update(phi[i] - phi[j])
            self.data.append(torch.stack([x[i], x[j]]), label)
        self._refit()


class GLMBandit(_Bandit):
    """A contextual bandit with binary feedback y ~ Bernoulli(μ(f(x))) (the paper's extension).

    Args: as :class:`DuelingBandit`; one arm a round, σ²(x) = (λ/κ_μ) φ(x)ᵀ V⁻¹ φ(x).
    """

    @torch_threads(1)
    def select(self, contexts: Any) -> int:
        """contexts: (K, d), K >= 1 → the arm to play."""
        x = self._contexts(contexts)
        h, phi = self._features(x)
        return self._optimistic(h, self._widths(phi))

    @torch_threads(1)
    def update(self, contexts: Any, i: int, y: Any) -> None:
        """Record arm i's binary reward y ∈ {0, 1}; update V⁻¹ and refit on schedule."""
        x = self._contexts(contexts)
        i, label = self._arm("i", i, x.shape[0]), self._label(y)
        _, phi = self._features(x)
        self.gram.update(phi[i])
        self.data.append(x[i : i + 1], label)
        self._refit()


# ----------------------------------------------------------------------------- named constructors


def _check_d(d: Any) -> int:
    return check_int(d, "d", low=1)


def _make_neural(
    cls: type[_Bandit],
    rule: str,
    d: int,
    *,
    width: int = 64,  # spec defaults (pilot): one hidden layer of width 64, p = 384 for d = 5
    depth: int = 2,
    lam: float = 1.0,
    kappa_mu: float = 0.1,
    nu: float = 3.0,
    reg: float | None = None,  # None: λ, the loss (mλ/2)‖θ − θ_0‖² as the spec writes it
    lr: float = 1e-2,
    train_steps: int = 100,
    train_every: int = 10,
    dense_rounds: int = 200,
    warm_start: bool = True,
    diagonal: bool = False,
    seed: int = 0,
    device: str | torch.device = "cpu",
    dtype: torch.dtype = torch.float64,
) -> Any:
    _positive("lam", lam)
    device = torch_device(device)
    model = NeuralUtility(
        _check_d(d),
        width,
        depth,
        reg=lam if reg is None else reg,
        lr=lr,
        train_steps=train_steps,
        train_every=train_every,
        dense_rounds=dense_rounds,
        warm_start=warm_start,
        seed=seed,
        device=device,
        dtype=dtype,
    )
    return cls(
        model,
        rule=rule,
        nu=nu,
        lam=lam,
        kappa_mu=kappa_mu,
        diagonal=diagonal,
        seed=seed,
        device=device,
        dtype=dtype,
    )


def _make_linear(
    cls: type[_Bandit],
    rule: str,
    d: int,
    *,
    lam: float = 1.0,
    kappa_mu: float = 0.1,
    nu: float = 3.0,
    seed: int = 0,
    device: str | torch.device = "cpu",
    dtype: torch.dtype = torch.float64,
) -> Any:
    device = torch_device(device)
    model = LinearUtility(_check_d(d), lam=_positive("lam", lam), device=device, dtype=dtype)
    return cls(
        model,
        rule=rule,
        nu=nu,
        lam=lam,
        kappa_mu=kappa_mu,
        diagonal=False,
        seed=seed,
        device=device,
        dtype=dtype,
    )


def NeuralDuelingUCB(d: int, **kw: Any) -> DuelingBandit:
    """NDB-UCB (Algorithm 1). Keywords: width, depth, lam, kappa_mu, nu, reg, lr, train_steps,
    train_every, dense_rounds, warm_start, diagonal, seed, device, dtype (defaults: the spec's)."""
    return _make_neural(DuelingBandit, "ucb", d, **kw)


def NeuralDuelingTS(d: int, **kw: Any) -> DuelingBandit:
    """NDB-TS (Algorithm 2); keywords as :func:`NeuralDuelingUCB`."""
    return _make_neural(DuelingBandit, "ts", d, **kw)


def NeuralDuelingGreedy(d: int, **kw: Any) -> DuelingBandit:
    """The ν → 0 limit: duels the greedy arm with itself (learns nothing; a sanity floor)."""
    kw.pop("nu", None)
    return _make_neural(DuelingBandit, "greedy", d, nu=1.0, **kw)


def LinearDuelingUCB(d: int, **kw: Any) -> DuelingBandit:
    """LinDB-UCB: Algorithm 1 with h(x) = xᵀw (logistic MLE) and φ(x) = x. Keywords: lam, kappa_mu, nu,
    seed, device, dtype."""
    return _make_linear(DuelingBandit, "ucb", d, **kw)


def LinearDuelingTS(d: int, **kw: Any) -> DuelingBandit:
    """LinDB-TS: Algorithm 2 with the linear model; keywords as :func:`LinearDuelingUCB`."""
    return _make_linear(DuelingBandit, "ts", d, **kw)


def NeuralGLMUCB(d: int, **kw: Any) -> GLMBandit:
    """Neural GLM-UCB for binary feedback; keywords as :func:`NeuralDuelingUCB`."""
    return _make_neural(GLMBandit, "ucb", d, **kw)


def NeuralGLMTS(d: int, **kw: Any) -> GLMBandit:
    """Neural GLM-TS for binary feedback; keywords as :func:`NeuralDuelingUCB`."""
    return _make_neural(GLMBandit, "ts", d, **kw)


def LinearGLMUCB(d: int, **kw: Any) -> GLMBandit:
    """Linear logistic UCB (GLM-UCB) for binary feedback; keywords as :func:`LinearDuelingUCB`."""
    return _make_linear(GLMBandit, "ucb", d, **kw)


def LinearGLMTS(d: int, **kw: Any) -> GLMBandit:
    """Linear logistic TS for binary feedback; keywords as :func:`LinearDuelingUCB`."""
    return _make_linear(GLMBandit, "ts", d, **kw)


class RandomPair:
    """Uniformly random pair of distinct arms each round (a sanity floor). ``select``/``update`` as above."""

    def __init__(self, d: int, *, seed: int = 0) -> None:
        self.d = _check_d(d)
        self._rng = np.random.default_rng(seed)

    def select(self, contexts: Any) -> tuple[int, int]:
        x = np.asarray(contexts, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.d:
            raise ValueError(f"contexts must have shape (K, {self.d}), got {x.shape}")
        if x.shape[0] < 2:
            raise ValueError(f"RandomPair needs K >= 2 arms, got K = {x.shape[0]}")
        i, j = self._rng.choice(x.shape[0], size=2, replace=False)
        return int(i), int(j)

    def update(self, contexts: Any, i: int, j: int, y: Any) -> None:
        """Random play learns nothing."""


ALGORITHMS: dict[str, Any] = {
    "NDB-UCB": NeuralDuelingUCB,
    "NDB-TS": NeuralDuelingTS,
    "LinDB-UCB": LinearDuelingUCB,
    "LinDB-TS": LinearDuelingTS,
    "NDB-greedy": NeuralDuelingGreedy,
    "random-pair": RandomPair,
}
GLM_ALGORITHMS: dict[str, Any] = {
    "NeuralGLM-UCB": NeuralGLMUCB,
    "NeuralGLM-TS": NeuralGLMTS,
    "LinearGLM-UCB": LinearGLMUCB,
    "LinearGLM-TS": LinearGLMTS,
}
