"""Opponents, payoff tables, environments (Gymnasium's checker), prompts and the answer parser."""

from __future__ import annotations

import gymnasium as gym
import moral_rewards  # noqa: F401  (registers the environments)
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from moral_rewards.env import ENV_IDS, IteratedMatrixGameEnv, TextGameEnv, parse_action
from moral_rewards.evaluate import GameLog, moral_regret
from moral_rewards.games import MAX_COLLECTIVE, PAYOFFS, Opponent, payoff_table
from moral_rewards.prompts import build_prompt


def test_opponents():
    rng = np.random.default_rng(0)
    prev = rng.integers(0, 2, size=100)
    np.testing.assert_array_equal(Opponent("TFT").next_move(prev, rng), prev)
    assert (Opponent("AC").next_move(prev, rng) == 0).all() and (
        Opponent("AD").next_move(prev, rng) == 1
    ).all()
    draws = Opponent("Random").next_move(np.zeros(10_000, int), rng)
    assert abs(draws.mean() - 0.5) < 0.02  # 4 sd of a fair coin over 1e4 draws


def test_bad_opponent_and_payoff():
    with pytest.raises(ValueError, match="opponent"):
        Opponent("GrimTrigger")
    with pytest.raises(ValueError, match="opponent"):
        IteratedMatrixGameEnv(opponent="tft")
    with pytest.raises(ValueError, match="game must be an array of shape"):
        IteratedMatrixGameEnv(game=np.zeros((2, 3, 2)))
    with pytest.raises(ValueError, match="game"):
        payoff_table("PD")


def test_tables_and_max_collective():
    assert {g: MAX_COLLECTIVE[g] for g in ("IPD", "ISH", "ICN", "BOS", "ICD")} == {
        "IPD": 6,
        "ISH": 8,
        "ICN": 5,
        "BOS": 5,
        "ICD": 8,
    }
    assert PAYOFFS["IPD"][1, 0].tolist() == [4, 0]


@pytest.mark.parametrize("env_id", ["moral_rewards/IPD-v0", "moral_rewards/TextBOS-v0"])
def test_gymnasium_checker(env_id):
    assert env_id in ENV_IDS
    env = gym.make(env_id, opponent="Random", reward="ut")
    check_env(env.unwrapped, skip_render_check=True)


def _trajectory(seed: int) -> list:
    env = TextGameEnv(opponent="Random", reward="game+de")
    obs, _ = env.reset(seed=seed)
    out = [obs.tolist()]
    for a in (0, 1, 2, 1, 0):
        out.append((env.prompt(), *env.step(a)[:2]))
    return out


def test_seeds_reproduce_and_illegal_keeps_own_move():
    assert str(_trajectory(3)) == str(_trajectory(3))
    env = IteratedMatrixGameEnv(opponent="TFT", steps=3)
    env.reset(seed=0)
    env.step(1)
    obs, r, _term, trunc, info = env.step(2)
    assert obs[0] == 1 and r == -6.0 and info["a_o"] == 1  # own move still D; TFT answered the D
    obs, *_, trunc = env.step(0)
    assert obs.tolist() == [0, 1] and trunc


def test_prompt():
    p = build_prompt("ICN", 1, 0, tokens=("action3", "action4"), order_rng=np.random.default_rng(1))
    for word in ("cooperate", "defect", "prisoner"):
        assert word not in p.lower()
    assert "| action3 | 2 , 2 | 1 , 4 |" in p and "| action4 | 4 , 1 | 0 , 0 |" in p
    assert "you played action4 and A played action3 , so you got 4 and A got 1" in p
    a = [build_prompt("IPD", 0, 0, order_rng=np.random.default_rng(s)) for s in range(20)]
    assert a == [build_prompt("IPD", 0, 0, order_rng=np.random.default_rng(s)) for s in range(20)]
    assert len(set(a)) == 4  # 2 x 2 independent orders
    assert {len(x.split()) for x in a} == {
        len(build_prompt("BOS", 1, 1, order_rng=np.random.default_rng(0)).split())
    }
    with pytest.raises(ValueError, match="tokens"):
        build_prompt("IPD", 0, 0, tokens=("a", "a"), order_rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="own_prev"):
        build_prompt("IPD", 2, 0, order_rng=np.random.default_rng(0))


def test_parser_exact_match():
    tok = ("action1", "action2")
    assert parse_action("  action1\n", tok) == 0 and parse_action("action2", tok) == 1
    for bad in ("action1 action2", "action", "Action1", "", "action12"):
        assert parse_action(bad, tok) == 2


def test_regret_formulas():
    # M: D after O's C (De -3), C after O's D (0), illegal (-6): De regret = 3
    log = GameLog(*(np.array([[v]]) for v in ([0, 0, 0], [0, 1, 0], [1, 0, 2], [0, 0, 1], [0.0, 0, 0])))
    np.testing.assert_allclose(moral_regret(log, "De"), 3.0)
    # collective: D vs C = 4, C vs C = 6, illegal = -6 -> mean 4/3; (6 - 4/3) / 12
    np.testing.assert_allclose(moral_regret(log, "Ut", "IPD"), (6 - 4 / 3) / 12)
