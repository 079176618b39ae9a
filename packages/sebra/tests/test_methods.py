"""The shared method battery over the registry, and what distinguishes the baselines."""

from __future__ import annotations

import pytest
import torch
from sebra.data import make_digit_urbancars
from sebra.debias import DebiasConfig
from sebra.methods import METHODS, MethodConfig, run_method
from sebra.ranking import RankConfig
from shared_testing.battery import MethodBattery, MethodCase

TINY = MethodConfig(epochs=1, batch_size=32, rank=RankConfig(max_epochs=2, batch_size=32),
                    debias=DebiasConfig(epochs=1, batch_size=32))  # fmt: skip
_DATA = make_digit_urbancars(48, 8, 8, seed=0)


def inputs():
    return {"train": _DATA["train"], "val": _DATA["val"], "config": TINY}


BAD = {"train": "images", "val": None, "config": {"epochs": 1}}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(name, call=info.call, inputs=inputs, bad_inputs=BAD, device_arg="device")
            for name, info in METHODS.items()
        ]


def test_only_groupdro_reads_group_labels_and_the_ranking_methods_return_ranks():
    assert [m for m, i in METHODS.items() if i.uses_group_labels] == ["groupdro"]
    fit = run_method("sebra", **inputs(), seed=0)
    assert fit.ranks is not None and fit.ranks.shape == (48,) and int(fit.ranks.min()) >= 1
    assert run_method("erm", **inputs(), seed=0).ranks is None


def test_erm_ignores_the_bias_labels_groupdro_does_not():
    tr = _DATA["train"]
    flipped = type(tr)(tr.x, tr.y, 1 - tr.s1, tr.s2, tr.digit)
    a = run_method("erm", tr, _DATA["val"], TINY, seed=1).val_proba
    b = run_method("erm", flipped, _DATA["val"], TINY, seed=1).val_proba
    assert torch.equal(a, b)
    c = run_method("groupdro", tr, _DATA["val"], TINY, seed=1).val_proba
    d = run_method("groupdro", flipped, _DATA["val"], TINY, seed=1).val_proba
    assert not torch.equal(c, d)


def test_unknown_method_lists_the_registry():
    with pytest.raises(ValueError, match="sebra"):
        run_method("lff", **inputs(), seed=0)
