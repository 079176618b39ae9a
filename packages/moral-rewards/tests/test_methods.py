"""The shared method battery over the registry, and what distinguishes the baselines."""

from __future__ import annotations

import numpy as np
import pytest
from moral_rewards.methods import METHODS, fixed, run_method
from shared_testing.battery import MethodBattery, MethodCase

LM_SMALL = {"d_model": 32, "n_layer": 1, "pretrain_steps": 1}
INPUTS = {
    "ppo-lm": lambda: {"reward_schedule": (("de", 2),), **LM_SMALL},
    "base-lm": lambda: {"n_games": 4, **LM_SMALL},
    "tabular-reinforce": lambda: {"reward_schedule": (("ut", 20),)},
    "fixed": lambda: {"strategy": "TFT", "episodes": 10},
}
BAD = {"opponent": "GrimTrigger", "game": np.zeros((2, 2))}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(
                name,
                call=info.call,
                inputs=INPUTS[name],
                bad_inputs=BAD,
                device_arg="device" if info.takes_device else None,
            )
            for name, info in METHODS.items()
        ]


def test_fixed_strategy_action_tables():
    tft = fixed("TFT", opponent="AD", episodes=200, seed=0)["action_types"]
    assert tft["D|D"] > 0.75 and tft["C|C"] == 0.0  # copies AD's D after the first round
    ad = fixed("AD", opponent="Random", episodes=200, seed=0)
    assert ad["final"]["p_defect"] == 1.0 and abs(ad["action_types"]["D|C"] - 0.5) < 0.1


def test_unknown_method():
    with pytest.raises(ValueError, match="unknown method"):
        run_method("dpo")
