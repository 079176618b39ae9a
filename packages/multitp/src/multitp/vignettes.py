"""Vignettes that vary one Moral Machine dimension at a time (the official ``gen_prompts_df`` scheme).

- species: Dog/Cat on one side, humans on the other, equal counts n ~ U{1..max_chars};
- gender: the female list against the male list, matched index by index;
- age / fitness: young|fit vs adult vs elderly|unfit, three pairings, matched by index (gender held fixed);
- social: low vs neutral vs high pools, three pairings, equal counts (drawn independently per side);
- number: both sides from all 20 characters, sizes n1 < n2 <= max_chars.

The favoured side (humans, female, younger, fitter, higher status, more) is placed left or right at
random; with ``both_orders`` every vignette is followed by its mirror (same ``pair_id``), so a position
bias cancels in the estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from paperkit import check_bool, check_choice, check_int, check_seed

from multitp.characters import ANIMALS, CHARACTERS, DIMENSIONS, HUMANS, POOLS

__all__ = ["Vignette", "generate", "generate_all"]

_PAIRINGS = {
    "age": (("adult", "young"), ("elderly", "young"), ("elderly", "adult")),
    "fitness": (("neutral", "fit"), ("unfit", "fit"), ("unfit", "neutral")),
    "social": (("low", "neutral"), ("low", "high"), ("neutral", "high")),
}  # (disfavoured pool, favoured pool)


@dataclass(frozen=True)
class Vignette:
    """One dilemma: the car kills ``left`` or ``right``; ``favoured_side`` is 0 (left) or 1 (right)."""

    dim: str
    left: tuple[str, ...]
    right: tuple[str, ...]
    favoured_side: int
    pair_id: int

    @property
    def favoured(self) -> tuple[str, ...]:
        return self.right if self.favoured_side else self.left

    @property
    def disfavoured(self) -> tuple[str, ...]:
        return self.left if self.favoured_side else self.right

    def swapped(self) -> Vignette:
        return Vignette(self.dim, self.right, self.left, 1 - self.favoured_side, self.pair_id)


def _draw(dim: str, rng: np.random.Generator, max_chars: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(disfavoured, favoured) sides of one vignette."""

    def pick(pool: tuple[str, ...], k: int) -> tuple[str, ...]:
        return tuple(pool[int(i)] for i in rng.integers(0, len(pool), size=k))

    n = int(rng.integers(1, max_chars + 1))
    if dim == "species":
        return pick(ANIMALS, n), pick(HUMANS, n)
    if dim == "gender":
        idx = rng.integers(0, len(POOLS["female"]), n)
        return tuple(POOLS["male"][i] for i in idx), tuple(POOLS["female"][i] for i in idx)
    if dim == "number":
        n1, n2 = (int(k) for k in sorted(rng.choice(np.arange(1, max_chars + 1), 2, replace=False)))
        return pick(CHARACTERS, n1), pick(CHARACTERS, n2)
    lo, hi = _PAIRINGS[dim][int(rng.integers(0, 3))]
    if dim == "social":
        return pick(POOLS[lo], n), pick(POOLS[hi], n)
    idx = rng.integers(0, 2, n)  # age, fitness: index-matched, so the gender mix is the same
    return tuple(POOLS[lo][i] for i in idx), tuple(POOLS[hi][i] for i in idx)


def generate(
    dim: str, n: int, seed: int, *, max_chars: int = 5, both_orders: bool = True, first_id: int = 0
) -> list[Vignette]:
    """``n`` vignettes of dimension ``dim`` (``2 n`` with ``both_orders``), deterministic in ``seed``."""
    check_choice(dim, "dim", DIMENSIONS)
    check_int(n, "n", low=1)
    check_int(max_chars, "max_chars", low=2 if dim == "number" else 1, high=20)
    check_bool(both_orders, "both_orders")
    rng = np.random.default_rng([check_seed(seed), DIMENSIONS.index(dim)])
    out: list[Vignette] = []
    for k in range(n):
        dis, fav = _draw(dim, rng, max_chars)
        side = int(rng.integers(0, 2))
        v = (
            Vignette(dim, fav, dis, 0, first_id + k)
            if side == 0
            else Vignette(dim, dis, fav, 1, first_id + k)
        )
        out.extend((v, v.swapped()) if both_orders else (v,))
    return out


def generate_all(
    n_per_dim: int, seed: int, *, max_chars: int = 5, both_orders: bool = True
) -> list[Vignette]:
    """``n_per_dim`` vignettes of every dimension, pair ids unique across dimensions."""
    out: list[Vignette] = []
    for i, d in enumerate(DIMENSIONS):
        out += generate(
            d, n_per_dim, seed, max_chars=max_chars, both_orders=both_orders, first_id=i * n_per_dim
        )
    return out
