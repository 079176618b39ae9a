"""Claims recomputed from the core at smoke scale, and the claim logic on synthetic records."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from attention_hypernet.methods import MixerRun
from attention_hypernet.reproduce import Config
from attention_hypernet.reproduce.claims import claims
from attention_hypernet.reproduce.run import exactness_errors


def fake(r2_ood: float, probe: float) -> MixerRun:
    m = {"train": {"r2": 0.99}, "test": {"r2": 0.95}, "ood": {"r2": r2_ood}}
    return MixerRun(np.zeros(10), m, probe, 0.0)


def test_claims_on_synthetic_records_follow_the_numbers():
    exact = {"f64": {"a": 1e-14}, "f32": {"a": 1e-7}}
    logic = {
        "softmax": [fake(0.5, 0.1)] * 3,
        "linear": [fake(0.5 + 0.01 * i, 0.1) for i in range(3)],
        "hyla": [fake(0.8 + 0.01 * i, 0.6) for i in range(3)],
        "linear_rms_head": [fake(0.79, 0.2)] * 3,
    }
    out = {c.name: c for c in claims(exact, logic, {}, Config(), (0, 1, 2))}
    assert out["exact-f64"].passed and out["exact-f32"].passed and out["gate-substrate"].passed
    assert out["hyla-ood-vs-linear"].passed and out["hyla-ood-vs-linear"].details["mean_difference"] > 0.29
    assert out["latent-probe"].passed and out["latent-probe"].observed == 0.6
    assert not out["ablation-nonlinearity"].passed or out["ablation-nonlinearity"].observed > 0
    logic["hyla"] = [fake(0.3, 0.1)] * 3
    out = {c.name: c for c in claims(exact, logic, {}, Config(), (0, 1, 2))}
    assert not out["hyla-ood-vs-linear"].passed and not out["latent-probe"].passed


def test_exactness_errors_are_at_rounding_level():
    errs = exactness_errors(torch.float64, seed=3, device="cpu")
    assert len(errs) == 3 * 3 * 2 * 2 and max(errs.values()) < 1e-12


def test_config_scales_and_validation():
    assert Config.quick().logic_train.steps < Config.full().logic_train.steps
    assert Config.full().n_seeds >= 3 and "linear_rms_head" in Config.full().logic_mixers
    with pytest.raises(ValueError, match="logic_mixers"):
        Config(logic_mixers=("softmax",))
