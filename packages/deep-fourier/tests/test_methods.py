"""The shared method battery over the registry, and pairing across methods."""

from __future__ import annotations

import numpy as np
import torch
from deep_fourier.methods import METHODS, run_method
from deep_fourier.streams import Task
from shared_testing.battery import MethodBattery, MethodCase


def small_inputs():
    g = torch.Generator().manual_seed(0)
    x = torch.rand(40, 8, generator=g)
    y = torch.randint(0, 10, (40,), generator=g)
    tasks = [Task(x, y, x[:10], y[:10]), Task(x, (y + 3) % 10, x[:10], (y[:10] + 3) % 10)]
    return {"tasks": tasks, "widths": (8, 8), "steps_per_task": 6, "batch_size": 8, "lr": 1e-2, "lam": 1e-3}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(
                name, call=lambda name=name, **kw: run_method(name, **kw), inputs=small_inputs,
                bad_inputs={"steps_per_task": 0, "lr": -1.0, "lam": -1.0}
                | ({"widths": (8, 7)} if name.startswith(("dff", "crelu")) else {}),
                device_arg="device",
            )
            for name in METHODS
        ]  # fmt: skip


def test_regulariser_with_lambda_zero_is_the_plain_method():
    kw = small_inputs()
    kw["lam"] = 0.0
    a, b = run_method("dff", seed=1, **kw), run_method("dff+l2init", seed=1, **kw)
    np.testing.assert_array_equal(a.train_accuracy, b.train_accuracy)
    np.testing.assert_array_equal(a.distance_from_init, b.distance_from_init)


def test_unknown_method_lists_the_registry():
    import pytest

    with pytest.raises(ValueError, match="dff"):
        run_method("gelu", small_inputs()["tasks"], steps_per_task=1, seed=0)
