"""The shared method battery over the registry, plus the bad inputs the issue names at every entry."""

from __future__ import annotations

import pytest
import torch
from plnl.labels import uniform_complementary
from plnl.methods import METHODS, run_method
from shared_testing.battery import MethodBattery, MethodCase

N, K = 16, 4


def small_inputs():
    g = torch.Generator().manual_seed(0)
    y = torch.arange(N) % K
    x = torch.rand(N, 1, 4, 4, generator=g) + y[:, None, None, None] * 0.3
    C = torch.as_tensor(uniform_complementary(y.numpy(), K, seed=0))
    return {"x": x, "C": C, "x_eval": x[:6].clone(), "epochs": 2, "pre_epochs": 1, "y_true": y}


def plnl_inputs():
    return small_inputs() | {"k": 3, "weps": 0, "qs": 1, "lam": 0.5}


BAD = {"epochs": 0, "pre_epochs": -1, "lr": -0.1, "x": torch.zeros(3, 16), "x_eval": "images"}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(name, call=info.call, inputs=plnl_inputs if info.family == "plnl" else small_inputs,
                       bad_inputs=BAD, device_arg="device")
            for name, info in METHODS.items()
        ]  # fmt: skip


@pytest.mark.parametrize("name", ["plnl", "scl_log", "nn"])
def test_bad_label_matrices_are_refused_at_the_entry(name):
    kw = small_inputs()
    C = kw.pop("C").clone()
    C[0] = 1.0  # the complementary set equals the label set
    with pytest.raises(ValueError, match="C row 0 marks all 4 classes complementary"):
        run_method(name, C=C, seed=0, **kw)
    C[0] = 0.0
    with pytest.raises(ValueError, match="C row 0 has no complementary label"):
        run_method(name, C=C, seed=0, **kw)
    C = small_inputs()["C"]
    y = kw["y_true"].clone()
    y[0] = int(C[0].argmax())
    with pytest.raises(ValueError, match="C row 0 marks its true label"):
        run_method(name, C=C, seed=0, **(kw | {"y_true": y}))


def test_nn_and_free_need_one_label_per_row_and_unknown_names_list_the_registry():
    kw = small_inputs()
    C = kw.pop("C").clone()
    y = kw.pop("y_true")
    C[1, (int(y[1]) + 2) % K] = 1.0
    C[1, (int(y[1]) + 1) % K] = 1.0
    with pytest.raises(ValueError, match="exactly one complementary label per row for the nn loss"):
        run_method("nn", C=C, seed=0, **kw)
    with pytest.raises(ValueError, match="scl_log_ens"):
        run_method("svm", seed=0, **small_inputs())


def test_same_seed_pairs_the_first_network_across_baselines_and_ensembles_average():
    kw = small_inputs()
    one = run_method("scl_log", seed=2, **kw)
    two = run_method("scl_log_ens", seed=2, **kw)
    assert one.n_networks == 1 and two.n_networks == 2
    assert two.history["loss0"] == one.history["loss0"]  # network 0 of the ensemble is the single one
