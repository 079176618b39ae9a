"""Choosers: the model under test and the spec's baselines, as ``call(vignettes, *, seed, **kw) -> p_left``.

- ``respondent``: a :class:`~multitp.toy.SyntheticRespondent`'s sampled answers (the oracle / "humans");
- ``random``: P(left) = 0.5 (m = 0, so MIS = ||h||);
- ``always-left``: pure position bias (m = 0 once both orders are asked);
- ``utilitarian``: saves the larger group, a seeded coin on ties;
- ``species-only``: saves humans over animals, a seeded coin otherwise.
The tiny LM (:class:`multitp.query.LogitChooser`) and the English-pivot baseline need a trained model
and live in the experiment (:mod:`multitp.reproduce`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from paperkit import check_seed

from multitp.characters import ANIMALS
from multitp.toy import SyntheticRespondent
from multitp.vignettes import Vignette

__all__ = ["METHODS", "MethodInfo", "choose"]


def _check(vignettes: Sequence[Vignette]) -> None:
    if isinstance(vignettes, (str, bytes)) or len(vignettes) == 0:
        raise ValueError("vignettes must be a non-empty sequence of Vignette")
    if not all(isinstance(v, Vignette) for v in vignettes):
        raise TypeError("vignettes must hold only Vignette objects")


def respondent(
    vignettes: Sequence[Vignette], *, seed: int, beta: Sequence[float], gamma: float = 0.0
) -> np.ndarray:
    _check(vignettes)
    return SyntheticRespondent(tuple(float(b) for b in beta), float(gamma)).sample(
        vignettes, check_seed(seed)
    )


def random_chooser(vignettes: Sequence[Vignette], *, seed: int) -> np.ndarray:
    _check(vignettes)
    check_seed(seed)
    return np.full(len(vignettes), 0.5)


def always_left(vignettes: Sequence[Vignette], *, seed: int) -> np.ndarray:
    _check(vignettes)
    check_seed(seed)
    return np.ones(len(vignettes))


def _rule(vignettes: Sequence[Vignette], seed: int, score: Callable[[tuple[str, ...]], float]) -> np.ndarray:
    _check(vignettes)
    coin = np.random.default_rng(check_seed(seed)).random(len(vignettes)) < 0.5
    d = np.array([score(v.left) - score(v.right) for v in vignettes])
    return np.where(d > 0, 1.0, np.where(d < 0, 0.0, coin.astype(float)))


def utilitarian(vignettes: Sequence[Vignette], *, seed: int) -> np.ndarray:
    return _rule(vignettes, seed, lambda side: float(len(side)))


def species_only(vignettes: Sequence[Vignette], *, seed: int) -> np.ndarray:
    return _rule(vignettes, seed, lambda side: float(sum(c not in ANIMALS for c in side)))


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: the call, what it stands for, and whether it is a baseline."""

    call: Callable[..., np.ndarray]
    description: str
    baseline: bool = True


METHODS = {
    "respondent": MethodInfo(respondent, "logistic respondent (oracle / synthetic humans)", baseline=False),
    "random": MethodInfo(random_chooser, "P(left) = 0.5"),
    "always-left": MethodInfo(always_left, "always saves the left group (position bias)"),
    "utilitarian": MethodInfo(utilitarian, "saves the larger group; coin on ties"),
    "species-only": MethodInfo(species_only, "saves humans over animals; coin otherwise"),
}


def choose(name: str, vignettes: Sequence[Vignette], *, seed: int, **kw: object) -> np.ndarray:
    """``(N,)`` P(save left) of method ``name``."""
    if name not in METHODS:
        raise ValueError(f"name must be one of {sorted(METHODS)}, got {name!r}")
    return METHODS[name].call(vignettes, seed=seed, **kw)
