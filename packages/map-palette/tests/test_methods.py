"""The shared method battery over the registry, and what distinguishes the baselines."""

from __future__ import annotations

import numpy as np
import pytest
from map_palette.data import GAUSSIAN_MU, gaussian_rewards
from map_palette.methods import METHODS, run_method
from shared_testing.battery import MethodBattery, MethodCase


def small_inputs() -> dict[str, object]:
    return {"R": gaussian_rewards(400, seed=2), "c": GAUSSIAN_MU + np.array([0.4, 0.3, -0.1])}


BAD = {"R": np.full((3, 400), np.nan), "c": np.zeros(2)}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(name, call=info.call, inputs=small_inputs, bad_inputs=BAD)
            for name, info in METHODS.items()
        ]


def test_constraint_solvers_meet_the_palette_and_baselines_do_not_all() -> None:
    kw = small_inputs()
    out = {name: run_method(name, seed=0, **kw) for name in METHODS}
    assert out["map"].meets.all()
    assert out["sequential-5"].realized == pytest.approx(
        out["map"].realized, abs=5e-3
    )  # converging, not exact
    assert out["map-adam"].realized[:2] == pytest.approx(out["map"].realized[:2], abs=5e-3)  # λ_3 > 0 there
    assert out["equal-weight"].lam.sum() == pytest.approx(out["map"].lam.sum())
    assert not out["reference"].meets[:2].any() and out["reference"].kl == pytest.approx(0.0, abs=1e-12)
    assert out["map"].kl <= min(o.kl for n, o in out.items() if o.meets.all()) + 1e-9
    assert out["best-of-k"].ess == pytest.approx(1.0, abs=1e-6)


def test_per_prompt_methods_take_prompt_ids() -> None:
    kw = small_inputs()
    ids = np.repeat(np.arange(40), 10)
    ch = run_method("map", seed=0, normalization="per_prompt", prompt_ids=ids, **kw)
    assert ch.meets.all() and 1.0 <= ch.ess <= 10.0


def test_unknown_method_lists_the_registry() -> None:
    with pytest.raises(ValueError, match="map"):
        run_method("morl", seed=0, **small_inputs())
