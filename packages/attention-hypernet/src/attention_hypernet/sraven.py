"""Symbolic Raven's Progressive Matrices, sraven (official ``hyla/data/raven.py``, ``configs/raven.py``).

A ``g x g`` grid of panels; each panel has ``F`` features with values in ``{0..V-1}``. Each feature
follows one of 8 rules along every row (rows are independent draws of the rule):

    0 constant, 1-4 progression +1, +2, -1, -2 (mod V), 5 addition (last = sum of the others mod V),
    6 subtraction (last = first - the others mod V), 7 distribute-three (every row a permutation of the
    same g distinct values).

A task is a multiset of rules over the F features: ``C(8 + F - 1, F)`` of them (330 for F = 4); a
fixed random ``floor(frac_ood * n)`` are held out (OOD); train and in-distribution test draw from the
rest. With ``permute`` each panel column gets its own feature permutation, shared by the rows.
Sequence: the first ``g^2 - 1`` panels as ``F`` one-hot tokens each, then ``F`` all-zero query tokens
(36 tokens for the official 3 x 3, F = 4); targets are the last panel's ``F`` features.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement, permutations, product

import numpy as np
from paperkit import check_bool, check_choice, check_int, check_probability, check_seed

from attention_hypernet._checks import check_ndarray, check_rng

__all__ = ["RULES", "SPLITS", "SRaven", "SRavenBatch", "ambiguity_count", "rule_answers", "rule_grids"]

RULES = (
    "constant",
    "progression+1",
    "progression+2",
    "progression-1",
    "progression-2",
    "addition",
    "subtraction",
    "distribute_three",
)
SPLITS = ("train", "test", "ood")
_INC = {1: 1, 2: 2, 3: -1, 4: -2}


def rule_grids(rules: np.ndarray, *, num_values: int, grid: int, rng: np.random.Generator) -> np.ndarray:
    """Instances ``(..., g, g)`` (rows x columns) of the rules ``rules (...)``; every rule is drawn for every
    entry and the right one selected (8 cheap draws beat a Python loop over problems)."""
    rules = check_ndarray(rules, "rules", ndim=None, kind="iu")
    if rules.size and (rules.min() < 0 or rules.max() >= len(RULES)):
        raise ValueError(f"rules must be rule indices in [0, {len(RULES)}), got {rules.min()}..{rules.max()}")
    V, g = check_int(num_values, "num_values", low=3), check_int(grid, "grid", low=3)
    if g > V:
        raise ValueError(f"num_values must be >= grid = {g} for distribute-three, got {V}")
    check_rng(rng)
    shape = rules.shape
    out = np.empty((8, *shape, g, g), dtype=np.int64)
    start = rng.integers(V, size=(*shape, g, 1))
    out[0] = np.broadcast_to(start, (*shape, g, g))
    for r, inc in _INC.items():
        out[r] = (start + inc * np.arange(g)) % V
    xs = rng.integers(V, size=(*shape, g, g - 1))
    out[5] = np.concatenate([xs, xs.sum(-1, keepdims=True) % V], axis=-1)
    sub = (xs[..., :1] - xs[..., 1:].sum(-1, keepdims=True)) % V
    out[6] = np.concatenate([xs, sub], axis=-1)
    symbols = np.argsort(rng.random((*shape, 1, V)), axis=-1)[..., :g]  # g distinct values
    order = np.argsort(rng.random((*shape, g, g)), axis=-1)  # a permutation per row
    out[7] = np.take_along_axis(np.broadcast_to(symbols, (*shape, g, g)), order, axis=-1)
    return np.take_along_axis(out, rules[None, ..., None, None], axis=0)[0]


@dataclass(frozen=True)
class SRavenBatch:
    """``x (n, g^2 F, V)`` float32 one-hot tokens (last F zero), ``y (n, F)`` int64 answers,
    ``rules (n, F)`` each feature's rule, ``perms (n, g, F)`` each column's feature permutation,
    ``panels (n, g, g, F)`` the grid as shown (after permutation)."""

    x: np.ndarray
    y: np.ndarray
    rules: np.ndarray
    perms: np.ndarray
    panels: np.ndarray


@dataclass(frozen=True)
class SRaven:
    """The task family; ``seed`` fixes which rule combinations are held out."""

    num_features: int = 4
    num_values: int = 8
    grid: int = 3
    frac_ood: float = 0.25
    permute: bool = True
    seed: int = 2024  # official configs/raven.py

    def __post_init__(self) -> None:
        check_int(self.num_features, "num_features", low=1)
        check_int(self.grid, "grid", low=3)
        check_int(self.num_values, "num_values", low=3)
        if self.num_values < self.grid:
            raise ValueError(
                f"num_values must be >= grid = {self.grid} for distribute-three, got {self.num_values}"
            )
        check_probability(self.frac_ood, "frac_ood", allow_one=False)
        check_bool(self.permute, "permute")
        check_seed(self.seed)
        n_ood = len(self.combinations("ood"))
        if n_ood == len(self.all_combinations()) or (self.frac_ood > 0 and n_ood == 0):
            raise ValueError(f"frac_ood = {self.frac_ood} leaves the in-distribution or OOD split empty")

    @property
    def seq_len(self) -> int:
        return self.grid**2 * self.num_features

    def all_combinations(self) -> np.ndarray:
        """``(C(8 + F - 1, F), F)`` rule multisets in ``combinations_with_replacement`` order."""
        return np.array(
            list(combinations_with_replacement(range(len(RULES)), self.num_features)), dtype=np.int64
        )

    def combinations(self, split: str) -> np.ndarray:
        """The rule combinations of ``split`` (train and test share the in-distribution ones)."""
        split = check_choice(split, "split", SPLITS)
        combos = self.all_combinations()
        idx = np.random.default_rng(self.seed).permutation(len(combos))
        n_ood = int(len(combos) * self.frac_ood)
        return combos[idx[:n_ood]] if split == "ood" else combos[idx[n_ood:]]

    def sample(
        self, n: int, split: str, rng: np.random.Generator, *, permute: bool | None = None
    ) -> SRavenBatch:
        """``n`` problems of ``split``; ``permute=False`` gives the unpermuted data of the latent probes."""
        n = check_int(n, "n", low=1)
        check_rng(rng)
        F, V, g = self.num_features, self.num_values, self.grid
        combos = self.combinations(split)
        rules = combos[rng.integers(len(combos), size=n)]
        inst = np.moveaxis(rule_grids(rules, num_values=V, grid=g, rng=rng), 1, -1)  # (n, g, g, F)
        do_perm = self.permute if permute is None else check_bool(permute, "permute")
        perms = (
            np.argsort(rng.random((n, g, F)), axis=-1)
            if do_perm
            else np.broadcast_to(np.arange(F), (n, g, F))
        )
        panels = np.take_along_axis(inst, perms[:, None, :, :], axis=-1)
        seq = panels.reshape(n, g * g, F)
        x = np.zeros((n, g * g * F, V), dtype=np.float32)
        ctx = seq[:, :-1].reshape(n, -1)
        x[np.arange(n)[:, None], np.arange(ctx.shape[1]), ctx] = 1.0
        return SRavenBatch(x, seq[:, -1].copy(), rules, np.ascontiguousarray(perms), panels)


def rule_answers(seq: np.ndarray, *, num_values: int, grid: int) -> tuple[np.ndarray, np.ndarray]:
    """For feature sequences ``seq (..., g^2 - 1)`` (raster order, answer missing), which of the rule
    families (constant, progression, addition, subtraction, distribute-three) fit the context and what
    each predicts: ``(fits (..., 5) bool, answers (..., 5) int)`` (the official ambiguity checker's rules)."""
    V, g = check_int(num_values, "num_values", low=3), check_int(grid, "grid", low=3)
    seq = check_ndarray(seq, "seq", ndim=None, kind="iu")
    if seq.ndim < 1 or seq.shape[-1] != g * g - 1:
        raise ValueError(f"seq must be an array of shape (..., {g * g - 1}), got shape {seq.shape}")
    if seq.size and (seq.min() < 0 or seq.max() >= V):
        raise ValueError(f"seq must hold values in [0, num_values = {V}), got {seq.min()}..{seq.max()}")
    rows, last = seq[..., : g * (g - 1)].reshape(*seq.shape[:-1], g - 1, g), seq[..., g * (g - 1) :]
    const = (rows == rows[..., :1]).all((-1, -2)) & (last == last[..., :1]).all(-1)
    d = np.diff(seq, axis=-1) % V
    within = d[..., (np.arange(seq.shape[-1] - 1) + 1) % g != 0]
    step = within[..., 0]
    prog = (within == step[..., None]).all(-1) & np.isin(step, [1, 2, V - 1, V - 2])
    add = ((rows[..., :-1].sum(-1) % V) == rows[..., -1]).all(-1)
    sub = (((rows[..., 0] - rows[..., 1:-1].sum(-1)) % V) == rows[..., -1]).all(-1)
    srt = np.sort(rows, axis=-1)
    vals = srt[..., 0, :]
    in_set = (last[..., :, None] == vals[..., None, :]).any(-1).all(-1)
    dist = (srt == vals[..., None, :]).all((-1, -2)) & in_set
    counts = (last[..., :, None] == vals[..., None, :]).sum(-2)  # the value the last row lacks
    dist_answer = np.take_along_axis(vals, counts.argmin(-1)[..., None], axis=-1)[..., 0]
    fits = np.stack([const, prog, add, sub, dist], axis=-1)
    answers = np.stack(
        [
            last[..., 0],
            (seq[..., -1] + step) % V,
            last.sum(-1) % V,
            (last[..., 0] - last[..., 1:].sum(-1)) % V,
            dist_answer,
        ],
        axis=-1,
    )
    return fits, answers


def ambiguity_count(panels: np.ndarray, *, num_values: int) -> np.ndarray:
    """For each problem ``panels (n, g, g, F)``, over how many column-wise feature permutations every
    feature admits a fitting rule whose answer differs from the true one (official ``check_is_ambiguous``).

    Zero means unambiguous. The loop runs over ``(F!)^g`` permutations, so keep F small.
    """
    panels = check_ndarray(panels, "panels", ndim=4, kind="iu")
    n, g, g2, F = panels.shape
    if g != g2 or g < 3 or n == 0 or F == 0:
        raise ValueError(
            f"panels must be an array of shape (n >= 1, g, g, F >= 1) with g >= 3, got {panels.shape}"
        )
    V = check_int(num_values, "num_values", low=3)
    if panels.min() < 0 or panels.max() >= V:
        raise ValueError(
            f"panels must hold values in [0, num_values = {V}), got {panels.min()}..{panels.max()}"
        )
    count = np.zeros(n, dtype=np.int64)
    for perm in product(permutations(range(F)), repeat=g):
        p = np.asarray(perm)  # (g columns, F)
        shown = np.take_along_axis(panels, np.broadcast_to(p[None, None], (n, g, g, F)), axis=-1)
        seq = np.moveaxis(shown.reshape(n, g * g, F), 1, -1)  # (n, F, g^2)
        fits, answers = rule_answers(seq[..., :-1], num_values=V, grid=g)
        wrong = fits & (answers != seq[..., -1:])
        count += wrong.any(-1).all(-1)
    return count
