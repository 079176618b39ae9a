"""State-tracking tasks generated on the fly (numpy), as in the xLSTM formal-language harness.

Every generator returns a :class:`Batch` of right-padded sequences (pad id 0, never counted): a causal
model's prediction at position t depends on tokens ≤ t only, so padding after the answer is inert.
- ``parity``: vocab 3 (pad, bit 0 → 1, bit 1 → 2); label = (number of 1-bits) mod 2 at the last token.
- ``count_mod``: same vocabulary; label = (number of 1-bits) mod m at the last token (m = 3: the paper's
  "counting modulo 3").
- ``mod_arith``: vocab 10 (pad 0, + 1, − 2, × 3, = 4, digits 0..4 → 5..9); ``d op d op … d =``, label
  = value mod 5 with × binding tighter than + and −, read at the ``=`` token. Lengths are even (2·operands).
- ``s3_word``: vocab 7 (pad, the 6 permutations of S3 → 1..6); label at every position = index of the
  running product g_t ∘ ⋯ ∘ g_1 (Merrill et al. 2024 word problems).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from paperkit.validation import check_instance, check_int

__all__ = [
    "S3_ELEMENTS",
    "TASKS",
    "Batch",
    "Task",
    "count_mod",
    "eval_mod_arith",
    "get_task",
    "mod_arith",
    "parity",
    "s3_compose",
    "s3_word",
]

PAD = 0
MOD_TOKENS = {"+": 1, "-": 2, "*": 3, "=": 4}
DIGIT0 = 5  # digit d has id 5 + d


class Batch(NamedTuple):
    """tokens ``(B, T)`` int64; targets ``(B, T)`` int64 (0 where unmasked); mask ``(B, T)`` bool
    (positions that are scored); lengths ``(B,)`` int64 (unpadded lengths)."""

    tokens: np.ndarray
    targets: np.ndarray
    mask: np.ndarray
    lengths: np.ndarray


def _check(batch: int, min_len: int, max_len: int, rng: np.random.Generator) -> None:
    check_int(batch, "batch", low=1)
    check_int(max_len, "max_len", low=check_int(min_len, "min_len", low=1))
    check_instance(rng, "rng", np.random.Generator)


def _bits(batch: int, min_len: int, max_len: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    lengths = rng.integers(min_len, max_len + 1, size=batch)
    bits = rng.integers(0, 2, size=(batch, int(lengths.max())))
    bits[np.arange(bits.shape[1])[None, :] >= lengths[:, None]] = 0
    return bits, lengths


def _final_answer(tokens: np.ndarray, labels: np.ndarray, lengths: np.ndarray) -> Batch:
    b = np.arange(len(lengths))
    targets = np.zeros_like(tokens)
    mask = np.zeros(tokens.shape, dtype=bool)
    targets[b, lengths - 1] = labels
    mask[b, lengths - 1] = True
    return Batch(tokens.astype(np.int64), targets.astype(np.int64), mask, lengths.astype(np.int64))


def count_mod(batch: int, min_len: int, max_len: int, rng: np.random.Generator, m: int = 3) -> Batch:
    """Bit strings of lengths uniform in [min_len, max_len]; label = count of 1-bits mod m."""
    _check(batch, min_len, max_len, rng)
    if m < 2:
        raise ValueError(f"m must be >= 2, got {m}")
    bits, lengths = _bits(batch, min_len, max_len, rng)
    valid = np.arange(bits.shape[1])[None, :] < lengths[:, None]
    tokens = np.where(valid, bits + 1, PAD)
    return _final_answer(tokens, bits.sum(1) % m, lengths)


def parity(batch: int, min_len: int, max_len: int, rng: np.random.Generator) -> Batch:
    """Parity of bit strings: :func:`count_mod` with m = 2."""
    return count_mod(batch, min_len, max_len, rng, m=2)


def eval_mod_arith(digits: np.ndarray, ops: np.ndarray, modulus: int = 5) -> np.ndarray:
    """Value mod ``modulus`` of d₀ op₀ d₁ op₁ … with × before + and −, vectorised over rows.

    Args:
        digits: ``(B, n)`` ints; ops: ``(B, n − 1)`` in {'+': 1, '−': 2, '×': 3}; rows may use fewer
        operands when padded with ops = 0 (then the rest of the row is ignored).
    """
    total = np.zeros(len(digits), dtype=np.int64)
    term = digits[:, 0].astype(np.int64) % modulus
    sign = np.ones(len(digits), dtype=np.int64)
    live = np.ones(len(digits), dtype=bool)
    for i in range(ops.shape[1]):
        op, d = ops[:, i], digits[:, i + 1].astype(np.int64)
        live &= op != 0
        mul = live & (op == MOD_TOKENS["*"])
        add = live & ~mul
        total = np.where(add, (total + sign * term) % modulus, total)
        sign = np.where(add, np.where(op == MOD_TOKENS["-"], -1, 1), sign)
        term = np.where(mul, (term * d) % modulus, np.where(add, d % modulus, term))
    return (total + sign * term) % modulus


def mod_arith(batch: int, min_len: int, max_len: int, rng: np.random.Generator, modulus: int = 5) -> Batch:
    """Modular arithmetic without brackets: n operands (digits 0..modulus−1), n − 1 operators uniform in
    {+, −, ×}, then ``=``; length 2n with n uniform in [⌈min_len/2⌉, ⌊max_len/2⌋]."""
    _check(batch, min_len, max_len, rng)
    if modulus != 5:
        raise ValueError("the vocabulary has digits 0..4 only: modulus must be 5")
    lo_n, hi_n = max(1, (min_len + 1) // 2), max_len // 2
    if hi_n < lo_n:
        raise ValueError(f"no even length in [{min_len}, {max_len}] (sequences are 2·operands long)")
    n = rng.integers(lo_n, hi_n + 1, size=batch)
    width = int(n.max())
    digits = rng.integers(0, modulus, size=(batch, width))
    ops = rng.integers(1, 4, size=(batch, max(width - 1, 0)))
    ops[np.arange(width - 1)[None, :] >= (n - 1)[:, None]] = 0
    labels = eval_mod_arith(digits, ops, modulus) if width > 1 else digits[:, 0] % modulus
    lengths = 2 * n
    tokens = np.zeros((batch, 2 * width), dtype=np.int64)
    tokens[:, 0::2] = DIGIT0 + digits
    tokens[:, 1:-1:2] = ops
    tokens[np.arange(batch), lengths - 1] = MOD_TOKENS["="]
    tokens[np.arange(2 * width)[None, :] >= lengths[:, None]] = PAD
    return _final_answer(tokens, labels, lengths)


S3_ELEMENTS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(3)))


def s3_compose(g: tuple[int, ...], h: tuple[int, ...]) -> tuple[int, ...]:
    """(g ∘ h)(i) = g(h(i)): h acts first."""
    return tuple(g[h[i]] for i in range(len(h)))


_S3_INDEX = {p: i for i, p in enumerate(S3_ELEMENTS)}
_S3_TABLE = np.array([[_S3_INDEX[s3_compose(g, h)] for h in S3_ELEMENTS] for g in S3_ELEMENTS])


def s3_word(batch: int, min_len: int, max_len: int, rng: np.random.Generator) -> Batch:
    """S3 word problem: tokens are group elements (ids 1..6 = index in :data:`S3_ELEMENTS` + 1), the
    label at position t is the index of g_t ∘ ⋯ ∘ g_1; every non-pad position is scored."""
    _check(batch, min_len, max_len, rng)
    lengths = rng.integers(min_len, max_len + 1, size=batch)
    width = int(lengths.max())
    g = rng.integers(0, 6, size=(batch, width))
    valid = np.arange(width)[None, :] < lengths[:, None]
    state = np.zeros((batch, width), dtype=np.int64)
    cur = np.full(batch, _S3_INDEX[(0, 1, 2)])
    for t in range(width):
        cur = _S3_TABLE[g[:, t], cur]
        state[:, t] = cur
    tokens = np.where(valid, g + 1, PAD).astype(np.int64)
    return Batch(tokens, np.where(valid, state, 0), valid, lengths.astype(np.int64))


@dataclass(frozen=True)
class Task:
    """A task's vocabulary, label count and generator ``generate(batch, min_len, max_len, rng) -> Batch``."""

    name: str
    vocab_size: int
    n_classes: int
    generate: Callable[[int, int, int, np.random.Generator], Batch]


def _mod3(batch: int, min_len: int, max_len: int, rng: np.random.Generator) -> Batch:
    return count_mod(batch, min_len, max_len, rng, m=3)


TASKS: dict[str, Task] = {
    "parity": Task("parity", 3, 2, parity),
    "count_mod3": Task("count_mod3", 3, 3, _mod3),
    "mod_arith": Task("mod_arith", 10, 5, mod_arith),
    "s3": Task("s3", 7, 6, s3_word),
}


def get_task(name: str) -> Task:
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; expected one of {sorted(TASKS)}")
    return TASKS[name]
