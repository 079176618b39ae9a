"""The per-batch protocol: what "no attack" must reproduce, continual vs per-batch restarts."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from paperkit.vision import small_cnn
from tta_attack.attacks import AttackConfig
from tta_attack.data import corrupted_stream, digits_split
from tta_attack.evaluate import run_stream

CFG = AttackConfig(eps=16 / 255, alpha=4 / 255, steps=2)


@pytest.fixture(scope="module")
def stream():
    split = digits_split(seed=0, test_fraction=0.3)
    return corrupted_stream(split.x_test, split.y_test, "contrast", batch=20, n_batches=3, seed=0)


def test_no_attack_is_the_clean_trajectory_in_both_modes(stream):
    src = small_cnn(1, 10, channels=(4, 8), image_size=16, seed=0)
    for continual in (False, True):
        res = run_stream("tent", src, stream, ("none", "fca"), attack_config=CFG, continual=continual)
        np.testing.assert_array_equal(res.benign["none"], res.clean_benign)
        assert res.benign["fca"].shape == (3,) and res.malicious["fca"].shape == (3,)


def test_continual_and_per_batch_agree_on_the_first_batch(stream):
    src = small_cnn(1, 10, channels=(4, 8), image_size=16, seed=0)
    kw = {"attack_config": AttackConfig(eps=64 / 255, alpha=16 / 255, steps=3)}
    a = run_stream("tent", src, stream, ("dia",), **kw)
    b = run_stream("tent", src, stream, ("dia",), continual=True, **kw)
    assert a.benign["dia"][0] == b.benign["dia"][0]  # the first batch: both start from theta_0
    assert a.malicious["dia"][0] == b.malicious["dia"][0]


def test_stream_and_protocol_refuse_bad_arguments(stream):
    split = digits_split(seed=0, test_fraction=0.3)
    with pytest.raises(ValueError, match="corruption"):
        corrupted_stream(split.x_test, split.y_test, "fog")
    with pytest.raises(ValueError, match="batch"):
        corrupted_stream(split.x_test[:10], split.y_test[:10], "contrast", batch=20)
    src = small_cnn(1, 10, channels=(4, 8), image_size=16, seed=0)
    with pytest.raises(ValueError, match="attack"):
        run_stream("tent", src, stream, ("pgd",))
    with pytest.raises(ValueError, match="no BatchNorm"):
        run_stream(
            "tent", torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(256, 10)), stream, ("none",)
        )
