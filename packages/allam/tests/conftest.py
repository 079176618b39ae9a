"""Shared small fixtures: one world, its tokenizers and a tiny untrained GPT-2 (built once a session)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def sub():
    from allam.data import WorldConfig
    from allam.methods import make_substrate

    return make_substrate(WorldConfig(n_entities=12), seed=3, vocab_a=400, vocab_b=400)


@pytest.fixture(scope="session")
def tiny(sub):
    from paperkit.lm import tiny_causal_lm

    return tiny_causal_lm(sub.tok_a, n_layer=1, n_head=2, d_model=16, max_positions=128, seed=0)
