"""The shared method battery over the attack registry, and the one-batch entry's specifics."""

from __future__ import annotations

import pytest
import torch
from paperkit.vision import load_digits, small_cnn
from shared_testing.battery import MethodBattery, MethodCase
from tta_attack.methods import METHODS, run_attack


def tiny_cnn(seed: int = 0) -> torch.nn.Sequential:
    return small_cnn(1, 10, channels=(4, 8), image_size=16, seed=seed)


SPLIT = load_digits(16, seed=0, test_fraction=0.3)
SOURCE = tiny_cnn()


def small_inputs():
    return {"x": SPLIT.x_test[:20].clone(), "y": SPLIT.y_test[:20].clone(), "source": SOURCE, "steps": 3}


NO_BN = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(256, 10))
BAD = {"eps": -0.1, "malicious": 1.0, "source": NO_BN, "steps": -1, "method": "bn-adapt"}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(name, call=info.call, inputs=small_inputs, bad_inputs=BAD, device_arg="device")
            for name, info in METHODS.items()
        ]


def test_registry_declares_label_use():
    assert [n for n, i in METHODS.items() if not i.label_free] == ["dia"]
    assert [n for n, i in METHODS.items() if i.paper] == ["fca"]


def test_none_and_zero_eps_leave_the_batch_and_errors_unchanged():
    kw = small_inputs()
    base = run_attack("none", **kw)
    assert torch.equal(base.x, kw["x"]) and base.benign_error == base.clean_benign_error
    for name in ("fca", "dia", "random"):
        out = run_attack(name, **kw, eps=0.0, alpha=0.0)
        assert torch.equal(out.x, kw["x"]) and out.benign_error == base.benign_error


@pytest.mark.parametrize("share", [0.0, 1.0, -0.2])
def test_malicious_share_outside_the_open_interval_is_refused(share):
    with pytest.raises(ValueError, match="malicious"):
        run_attack("fca", **small_inputs(), malicious=share)
