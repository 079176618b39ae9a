"""The paper's methods and the spec's baselines, and their registry with typed metadata.

Every method is a :class:`~rslqr.algorithms.Learner` with fixed settings; :data:`METHODS` maps its name to
a :class:`MethodInfo` (factory, label, source and declared capabilities), so callers select methods by what
they are (``info.role``, ``info.explores``), never by probing attributes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from paperkit.validation import check_choice

from rslqr.algorithms import Learner

__all__ = [
    "ALGORITHM_NAMES",
    "METHODS",
    "MethodInfo",
    "algorithm1",
    "algorithm2",
    "ce_lqr",
    "constant_noise",
    "fixed_initial",
    "greedy_every_episode",
    "make_learner",
    "oracle",
]

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


Role = Literal["paper", "baseline", "ablation", "reference"]


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry.

    Attributes:
        name: registry name (also the Learner's ``name`` and the RunLog's ``algorithm``).
        factory: builds the Learner with its default settings.
        label: the legend text of plots and tables.
        role: "paper" (the paper's algorithms), "baseline", "ablation" or "reference" (oracle).
        source: where the method comes from (paper section or the spec).
        explores: injects exploration noise η_t.
        risk_sensitive: plans with the LEQR (γ) gains of its estimate; False: risk-neutral LQR gains.
        estimates: re-estimates θ from its data (False: plays one fixed controller).
    """

    name: str
    factory: Callable[[], Learner]
    label: str
    role: Role
    source: str
    explores: bool
    risk_sensitive: bool = True
    estimates: bool = True


_INFOS = (
    MethodInfo("alg1", algorithm1, "Algorithm 1 (greedy LS, doubling epochs)", "paper", "Algorithm 1", False),
    MethodInfo(
        "alg2", algorithm2, "Algorithm 2 (ridge LS + exploration noise)", "paper", "Algorithm 2", True
    ),
    MethodInfo("oracle", oracle, "oracle", "reference", "spec baseline", False, estimates=False),
    MethodInfo(
        "ce_lqr",
        ce_lqr,
        "CE-LQR (risk-neutral gains)",
        "baseline",
        "spec baseline",
        False,
        risk_sensitive=False,
    ),
    MethodInfo(
        "fixed_initial",
        fixed_initial,
        "fixed initial estimate",
        "baseline",
        "spec baseline",
        False,
        estimates=False,
    ),
    MethodInfo(
        "greedy_every_episode",
        greedy_every_episode,
        "greedy, refit every episode",
        "ablation",
        "spec ablation",
        False,
    ),
    MethodInfo(
        "constant_noise", constant_noise, "constant exploration noise", "ablation", "spec ablation", True
    ),
)
METHODS: Mapping[str, MethodInfo] = MappingProxyType({info.name: info for info in _INFOS})
ALGORITHM_NAMES: tuple[str, ...] = tuple(METHODS)


def make_learner(name: str, **overrides: Any) -> Learner:
    """The named learner (one of ``ALGORITHM_NAMES``) with optional field overrides, e.g. ridge=0.1."""
    check_choice(name, "name", ALGORITHM_NAMES)
    learner = METHODS[name].factory()
    if overrides:
        fields = {f.name for f in dataclasses.fields(Learner)}
        unknown = sorted(set(overrides) - fields)
        if unknown:
            raise ValueError(f"unknown Learner field(s) {unknown}; valid fields are {sorted(fields)}")
        learner = dataclasses.replace(learner, **overrides)
    return learner
