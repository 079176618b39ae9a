"""Reward tables against an independent transcription of the paper's Table 1 (exhaustive), and bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from moral_rewards.games import PAYOFFS
from moral_rewards.rewards import (
    deontological,
    game_plus_deontological,
    game_reward,
    reward,
    utilitarian,
)

IPD = {("C", "C"): (3, 3), ("C", "D"): (0, 4), ("D", "C"): (4, 0), ("D", "D"): (1, 1)}
CODE = {"C": 0, "D": 1, "X": 2}


def table1(kind: str, m: str, o: str, prev: str) -> float:
    """Table 1 of the paper (xi = 3, R_illegal = -6), written out case by case from the official code."""
    if m == "X":
        return -6.0
    if kind == "de":
        return -3.0 if (m == "D" and prev == "C") else 0.0
    if o == "X":
        return 0.0 if kind == "ut" else -6.0
    pm, po = IPD[(m, o)]
    if kind == "game":
        return pm
    if kind == "ut":
        return pm + po
    return pm - (3.0 if (m == "D" and prev == "C") else 0.0)


@pytest.mark.parametrize("kind", ["game", "de", "ut", "game+de"])
def test_every_case_matches_table_1(kind):
    cases = list(itertools.product("CDX", "CDX", "CDX"))
    m, o, prev = (np.array([CODE[c[i]] for c in cases]) for i in range(3))
    got = reward(kind, m, o, prev, PAYOFFS["IPD"])
    want = np.array([table1(kind, *c) for c in cases])
    np.testing.assert_array_equal(got, want)


def test_spec_examples():
    ipd = PAYOFFS["IPD"]
    assert deontological(1, 0) == -3.0 and deontological(1, 1) == 0.0
    assert utilitarian(0, 0, ipd) == 6.0
    assert game_plus_deontological(1, 0, 0, ipd) == 1.0  # 4 - 3
    assert game_reward(2, 0, ipd) == -6.0
    assert deontological(1, 0, xi=5.0, r_illegal=-1.0) == -5.0 and deontological(2, 0, r_illegal=-1.0) == -1.0


def test_bad_payoff_shape_and_unknown_reward():
    with pytest.raises(ValueError, match="payoff must be an array of shape"):
        game_reward(0, 0, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="payoff must be an array of shape"):
        utilitarian(0, 0, np.zeros((3, 2, 2)))
    with pytest.raises(ValueError, match="reward"):
        reward("selfish", 0, 0, 0, PAYOFFS["IPD"])
    with pytest.raises(ValueError, match="a_m must hold moves"):
        game_reward(3, 0, PAYOFFS["IPD"])
    with pytest.raises(TypeError, match="a_m"):
        game_reward(0.5, 0, PAYOFFS["IPD"])
