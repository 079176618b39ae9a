"""Claims on synthetic records (they can pass and fail), the config's checks and the smoke run."""

from __future__ import annotations

import numpy as np
import pytest
from deep_fourier.reproduce import Config, run
from deep_fourier.reproduce.claims import claims
from deep_fourier.training import History


def _history(train, online=None, test=None):
    train = np.asarray(train, dtype=float)
    T = len(train)
    online = train if online is None else np.asarray(online, dtype=float)
    test = np.full(T, np.nan) if test is None else np.asarray(test, dtype=float)
    z = np.zeros(T)
    return History(online, train, test, z, z, z, z, z, np.tile(online[:, None], (1, 5)), 10)


def _records(relu_last, dff_last):
    up = [0.6, 0.8, 0.8, 0.7, 0.6]
    return {
        "random_labels": {
            "relu": [_history(up + [relu_last] * 5) for _ in range(3)],
            "dff": [_history([0.4] * 5 + [dff_last] * 5) for _ in range(3)],
            "crelu": [_history([0.5] * 5 + [(relu_last + dff_last) / 2] * 5) for _ in range(3)],
        }
    }


def test_probe_claims_pass_on_plasticity_loss_and_fail_without_it():
    cl, _ = claims(_records(0.25, 1.0), Config(perm_tasks=0, noise_tasks=0), (0, 1, 2))
    assert {c.name: c.passed for c in cl} == {
        "gate-relu-learns": True, "relu-loses-plasticity": True, "dff-sustains-trainability": True,
        "dff-beats-relu-trainability": True, "crelu-between": True,
    }  # fmt: skip
    cl, _ = claims(_records(0.75, 0.9), Config(perm_tasks=0, noise_tasks=0), (0, 1, 2))
    failed = {c.name for c in cl if not c.passed}
    assert failed == {"relu-loses-plasticity", "dff-sustains-trainability", "dff-beats-relu-trainability"}


def test_continual_claims_use_paired_differences():
    rec = _records(0.25, 1.0)
    first, last = [0.9] * 5, [0.6] * 25
    rec["permuted"] = {
        "relu": [_history([1.0] * 30, online=first + last) for _ in range(3)],
        "dff+l2init": [_history([1.0] * 30, online=[0.9] * 30) for _ in range(3)],
    }
    cl = {c.name: c for c in claims(rec, Config(noise_tasks=0), (0, 1, 2))[0]}
    assert cl["gate-relu-decays-permuted"].passed
    assert cl["dff-reg-beats-relu-permuted"].observed == pytest.approx(0.25)
    assert "dff-reg-beats-relu-reg-permuted" not in cl  # only when ReLU+L2-Init ran


def test_config_checks():
    with pytest.raises(ValueError, match="rl_methods"):
        Config(rl_methods=("relu", "gelu"))
    with pytest.raises(ValueError, match="perm_tasks"):
        Config(perm_tasks=3)
    assert Config.quick().n_seeds == 1 and Config.full().perm_tasks == 30


def test_smoke_run_reports_every_claim():
    tiny = Config.at_scale("smoke", rl_steps=2, perm_steps=2, noise_steps=2, rl_n=16)
    report = run(tiny, seed=0)
    names = {c.name for c in report.claims}
    assert {"dff-beats-relu-trainability", "dff-reg-beats-relu-permuted", "dff-reg-beats-relu-noise"} <= names
    lam = report.metrics["lambda"]
    assert lam["permuted"] == {"dff+l2init": 1e-3} and "relu" not in lam["random_labels"]
