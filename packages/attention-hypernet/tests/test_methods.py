"""The shared method battery over the registry, and what distinguishes the mixers."""

from __future__ import annotations

import numpy as np
import pytest
from attention_hypernet.logic import FuzzyLogic
from attention_hypernet.methods import METHODS, run_method
from attention_hypernet.sraven import SRaven
from attention_hypernet.training import TrainConfig
from shared_testing.battery import MethodBattery, MethodCase

TINY = TrainConfig(
    d_model=16, n_layers=1, n_heads=4, d_qk=8, d_v=8, d_mlp=16, steps=4, batch_size=8, warmup=1
)


def small_inputs():
    return {"task": FuzzyLogic(num_vars=3), "config": TINY, "eval_n": 16}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(
                name,
                call=info.call,
                inputs=small_inputs,
                device_arg="device",
                bad_inputs={"eval_n": 0, "task": "logic", "config": {"steps": 4}},
            )
            for name, info in METHODS.items()
        ]


def test_registry_flags_the_nonlinear_value_networks():
    assert {m for m, i in METHODS.items() if i.nonlinear_value_net} == {"hyla", "hyla_no_rms_head"}
    assert (METHODS["hyla"].norm, METHODS["hyla"].value_net) == ("rms_head", "relu_mlp")
    assert (METHODS["linear_rms_head"].norm, METHODS["linear_rms_head"].value_net) == ("rms_head", "linear")


def test_same_seed_pairs_the_mixers_on_data_and_untrained_probe_inputs():
    """Same seed: same split, training problems and test problems, so the training losses start alike."""
    a = run_method("linear", FuzzyLogic(num_vars=3), TINY, seed=5, eval_n=16)
    b = run_method("linear_rms_head", FuzzyLogic(num_vars=3), TINY, seed=5, eval_n=16)
    c = run_method("linear", FuzzyLogic(num_vars=3), TINY, seed=6, eval_n=16)
    assert a.losses[0] != b.losses[0]  # different mixers from the same draws
    assert a.losses[0] != c.losses[0]
    np.testing.assert_array_equal(
        run_method("linear", FuzzyLogic(num_vars=3), TINY, seed=5, eval_n=16).losses, a.losses
    )


def test_sraven_runs_report_accuracies_and_no_probe():
    run = run_method("hyla", SRaven(num_features=2), TINY, seed=0, eval_n=16, splits=("ood",))
    acc = run.metrics["ood"]
    assert 0 <= acc["acc"] <= acc["acc_per_feature"] <= 1 and np.isnan(run.probe_r2)


def test_unknown_method_lists_the_registry():
    with pytest.raises(ValueError, match="hyla"):
        run_method("mamba", FuzzyLogic(), TINY, seed=0)
