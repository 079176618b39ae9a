"""The shared method battery over the registry, and what distinguishes the baselines."""

from __future__ import annotations

import numpy as np
import pytest
from shared_testing.battery import MethodBattery, MethodCase
from synthdata_ggmi.methods import METHODS, run_method


def small_inputs():
    return {"K": 2, "J": 2, "L": 1, "n_samples": 30, "n_eval": 100}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(name, call=info.call, inputs=small_inputs, bad_inputs={"K": 0, "N_k": 1, "n_eval": 1})
            for name, info in METHODS.items()
        ]


def test_methods_share_the_target_and_differ_in_training_data():
    fits = {name: run_method(name, seed=4, **small_inputs()) for name in METHODS}
    target = fits["anchor"].target
    for f in fits.values():
        assert np.array_equal(f.target.means, target.means)  # paired: one world for every method
    assert fits["anchor"].model.n_components == 2 and fits["synthetic"].model.n_components == 5
    assert not np.array_equal(fits["synthetic"].model.means, fits["synthetic-no-gain"].model.means)


def test_unknown_method_lists_the_registry():
    with pytest.raises(ValueError, match="synthetic-no-gain"):
        run_method("oracle", seed=0, **small_inputs())


def test_registry_fits_are_the_worlds_fits():
    from synthdata_ggmi.simulation import Protocol, draw_world, fit_models

    kw = small_inputs()
    p = Protocol(K=kw["K"], J=kw["J"], L=kw["L"], n_samples=kw["n_samples"])
    W_a, W_s = fit_models(draw_world(p, seed=2, repeat=0), p, seed=2, repeat=0)
    assert np.array_equal(run_method("anchor", seed=2, **kw).model.means, W_a.means)
    assert np.array_equal(run_method("synthetic", seed=2, **kw).model.means, W_s.means)
