"""The shared method battery over the attack registry (scripted bracketing backbones: no model time)."""

from __future__ import annotations

import pytest
from asb import DEFENSE_TARGETS, METHODS, evaluate_attack
from shared_testing.battery import MethodBattery, MethodCase

BAD = {"n_agents": 0, "n_attackers": -1, "defense": "firewall", "backbone": "gpt-5"}
NAMES = ["none", "dpi-naive", "opi-fake_completion", "mp", "pot", "pot-clean", "dpi+opi+mp"]


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(name, call=lambda n=name, **kw: evaluate_attack(n, **kw), inputs=dict, bad_inputs=BAD)
            for name in NAMES
        ]


@pytest.mark.parametrize("name", sorted(METHODS))
def test_brackets_for_every_attack(name: str) -> None:
    obey = evaluate_attack(name, backbone="always-obey")
    never = evaluate_attack(name, backbone="never-deviate")
    uses_tool = METHODS[name].attack.uses_attacker_tool and not METHODS[name].attack.pot_clean
    assert obey["asr"] == (1.0 if uses_tool else 0.0)
    assert never["asr"] == 0.0 and never["success"] == 1.0


def test_defense_targets_name_real_channels() -> None:
    channels = {c for m in METHODS.values() for c in m.channels}
    assert all(set(t) <= channels for t in DEFENSE_TARGETS.values())
    assert sum(len(t) for t in DEFENSE_TARGETS.values()) == 8  # defense x attack pairs shipped
