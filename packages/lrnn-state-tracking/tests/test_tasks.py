"""Task generators against brute-force labels (Python's own evaluator for the arithmetic)."""

from __future__ import annotations

import numpy as np
import pytest
from lrnn_state_tracking.tasks import (
    S3_ELEMENTS,
    count_mod,
    get_task,
    mod_arith,
    parity,
    s3_compose,
    s3_word,
)


def _answer_positions(batch):
    return np.flatnonzero(batch.mask[0])


def test_parity_and_count_mod_labels_are_bit_counts(rng):
    for m, gen in ((2, parity), (3, lambda *a: count_mod(*a, m=3))):
        b = gen(200, 1, 30, rng)
        for i in range(200):
            n = b.lengths[i]
            toks = b.tokens[i]
            assert np.all(toks[:n] > 0) and np.all(toks[n:] == 0)  # pad only after the end
            ones = int(np.sum(toks[:n] == 2))
            assert b.mask[i].sum() == 1 and b.mask[i, n - 1]  # only the answer position is scored
            assert b.targets[i, n - 1] == ones % m
        assert set(np.unique(b.lengths)) <= set(range(1, 31)) and b.lengths.min() < 5 and b.lengths.max() > 25


def test_pad_is_never_counted(rng):
    b = parity(100, 3, 10, rng)
    after_end = np.arange(b.tokens.shape[1])[None, :] >= b.lengths[:, None]
    assert after_end.any() and np.all(b.tokens[after_end] == 0) and np.all(b.tokens[~after_end] > 0)
    padded = np.pad(b.tokens, ((0, 0), (0, 7)))
    assert np.all(padded[:, 10:] == 0)
    assert np.array_equal(np.sum(padded == 2, 1) % 2, b.targets[np.arange(100), b.lengths - 1])


def test_mod_arith_labels_match_python_eval_with_precedence(rng):
    b = mod_arith(300, 3, 40, rng)
    inv = {1: "+", 2: "-", 3: "*"}
    for i in range(300):
        n = b.lengths[i]
        toks = b.tokens[i, :n]
        assert n % 2 == 0 and toks[-1] == 4 and np.all(b.tokens[i, n:] == 0)
        expr = "".join(str(t - 5) if k % 2 == 0 else inv[int(t)] for k, t in enumerate(toks[:-1]))
        assert b.targets[i, n - 1] == eval(expr) % 5, expr  # Python honours × precedence
        assert b.mask[i].sum() == 1 and b.mask[i, n - 1]
    assert b.lengths.min() >= 4 and b.lengths.max() <= 40


def test_mod_arith_single_operand_and_bad_ranges(rng):
    b = mod_arith(5, 2, 2, rng)
    assert np.all(b.lengths == 2) and np.all(b.targets[:, 1] == b.tokens[:, 0] - 5)
    with pytest.raises(ValueError, match="no even length"):
        mod_arith(5, 3, 3, rng)
    with pytest.raises(ValueError, match="modulus must be 5"):
        mod_arith(5, 2, 10, rng, modulus=7)


def test_s3_word_labels_are_running_products(rng):
    b = s3_word(50, 1, 20, rng)
    for i in range(50):
        state = (0, 1, 2)
        for t in range(b.lengths[i]):
            state = s3_compose(S3_ELEMENTS[b.tokens[i, t] - 1], state)
            assert S3_ELEMENTS[b.targets[i, t]] == state
        assert b.mask[i].sum() == b.lengths[i]
    assert len(set(S3_ELEMENTS)) == 6


def test_s3_is_not_commutative():
    a, c = S3_ELEMENTS[1], S3_ELEMENTS[3]
    assert s3_compose(a, c) != s3_compose(c, a)


def test_same_seed_same_batch(deterministic):
    b = deterministic(lambda: parity(8, 3, 40, np.random.default_rng(5)))
    assert not np.array_equal(b.tokens, parity(8, 3, 40, np.random.default_rng(6)).tokens)


def test_bad_generator_inputs(rng):
    with pytest.raises(ValueError, match="min_len must be an integer >= 1"):
        parity(4, 0, 5, rng)
    with pytest.raises(ValueError, match="max_len"):
        parity(4, 6, 5, rng)
    with pytest.raises(ValueError, match="batch must be an integer >= 1"):
        parity(0, 1, 5, rng)
    with pytest.raises(TypeError, match="Generator"):
        parity(4, 1, 5, 0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="min_len must be an integer"):
        parity(4, 1.5, 5, rng)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown task"):
        get_task("dyck")
    assert get_task("mod_arith").vocab_size == 10 and get_task("parity").n_classes == 2
