"""The shared method battery over rslqr's registry, and the registry's declared metadata."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from rslqr.env import EpisodicLEQREnv
from rslqr.methods import ALGORITHM_NAMES, METHODS
from rslqr.systems import system_a
from shared_testing.battery import MethodBattery, MethodCase


def _call(name: str):
    def call(*, n_episodes: int, theta_init: np.ndarray, seed: int) -> Any:
        env = EpisodicLEQREnv(system_a(gamma=0.05, T=5))
        return METHODS[name].factory().run(env, n_episodes, theta_init=theta_init, seed=seed)

    return call


def _inputs() -> dict[str, Any]:
    theta = system_a(gamma=0.05, T=5).theta + 0.05 * np.random.default_rng(0).standard_normal((2, 3))
    return {"n_episodes": 12, "theta_init": theta}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls) -> list[MethodCase]:
        return [
            MethodCase(
                name,
                call=_call(name),
                inputs=_inputs,
                bad_inputs={"n_episodes": 0, "theta_init": np.zeros((3, 3))},
            )
            for name in ALGORITHM_NAMES
            if name != "oracle"  # the oracle ignores theta_init (below)
        ] + [
            MethodCase("oracle", call=_call("oracle"), inputs=_inputs, bad_inputs={"n_episodes": 0}),
        ]


def test_registry_metadata_matches_what_the_learners_do() -> None:
    assert ALGORITHM_NAMES[:2] == ("alg1", "alg2")
    for name, info in METHODS.items():
        learner = info.factory()
        assert learner.name == info.name == name
        assert info.explores == (learner.sigma0 > 0)
        assert info.risk_sensitive == (not learner.risk_neutral)
        assert info.estimates == (learner.refit != "never" and not learner.known_theta)
        assert info.label and info.source
    assert {n for n, i in METHODS.items() if i.role == "paper"} == {"alg1", "alg2"}


def test_oracle_has_zero_regret_in_the_battery_setting() -> None:
    log = _call("oracle")(**_inputs(), seed=0)
    np.testing.assert_allclose(log.regret, 0.0, atol=1e-9)


def test_make_learner_names_the_argument() -> None:
    from rslqr.methods import make_learner

    with pytest.raises(ValueError, match=r"^name must be one of 'alg1', 'alg2'"):
        make_learner("alg3")
