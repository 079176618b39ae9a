"""The shared method battery over the registry, and the baselines' defining properties."""

from __future__ import annotations

import numpy as np
import pytest
from multitp.methods import METHODS, choose
from multitp.preferences import preference_vector, records
from multitp.vignettes import generate_all
from shared_testing.battery import MethodBattery, MethodCase


def small_inputs(name):
    def inputs():
        kw = {"vignettes": generate_all(3, seed=0)}
        if name == "respondent":
            kw |= {"beta": (1.0, 0.2, 0.3, 0.2, 0.2, 0.4), "gamma": 0.1}
        return kw

    return inputs


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(name, call=info.call, inputs=small_inputs(name), bad_inputs={"vignettes": []})
            for name, info in METHODS.items()
        ]


def test_baseline_vectors():
    vig = generate_all(100, seed=1)
    m = {
        name: preference_vector(records(vig, choose(name, vig, seed=0)))
        for name in ("random", "always-left", "utilitarian", "species-only")
    }
    assert np.all(m["random"] == 0) and np.all(m["always-left"] == 0)
    assert m["utilitarian"][5] == 1.0 and m["species-only"][0] == 1.0
    assert abs(m["species-only"][1]) < 0.2  # a coin elsewhere
    with pytest.raises(ValueError, match="name"):
        choose("oracle", vig, seed=0)
