"""Scaling-law fits on synthetic errors; claims recomputed from the records at smoke scale."""

from __future__ import annotations

import numpy as np
import pytest
from compositional_dnn.analysis import decay_exponent, exponents_over_seeds
from compositional_dnn.reproduce import Config, run
from compositional_dnn.reproduce.claims import summaries
from compositional_dnn.reproduce.run import run_grid


def test_decay_exponent_recovers_a_power_law():
    Ns = np.array([100, 200, 500, 1000, 2000])
    alpha, se = decay_exponent(Ns, 3.0 * Ns**-0.37)
    assert alpha == pytest.approx(0.37, abs=1e-12) and se == pytest.approx(0.0, abs=1e-12)
    noisy = 3.0 * Ns**-0.37 * np.exp(np.array([0.05, -0.05, 0.02, 0.0, -0.02]))
    a2, se2 = decay_exponent(Ns, noisy)
    (slope, icpt), cov = np.polyfit(np.log(Ns), np.log(noisy), 1, cov="unscaled")
    resid = np.log(noisy) - (slope * np.log(Ns) + icpt)
    assert a2 == pytest.approx(-slope) and se2 == pytest.approx(np.sqrt(cov[0, 0] * (resid**2).sum() / 3))
    np.testing.assert_allclose(exponents_over_seeds(Ns, np.stack([Ns**-0.2, Ns**-0.5])), [0.2, 0.5])


def test_decay_exponent_refuses_bad_input():
    with pytest.raises(ValueError, match="errors"):
        decay_exponent(np.array([1.0, 2.0]), np.array([1.0]))
    with pytest.raises(ValueError, match="> 0"):
        decay_exponent(np.array([1.0, 2.0]), np.array([1.0, 0.0]))


def test_smoke_claims_follow_the_records():
    cfg = Config.smoke()
    report = run(cfg, seed=0)
    names = {c.name for c in report.claims}
    assert {"gate-substrate", "h-hard-ratio", "h-hard-exponent", "regime-contrast"} <= names
    rec = run_grid(cfg, 0, "cpu")  # recomputed from the core: the same seeds give the same numbers
    summ = summaries(rec, cfg)
    h = "nu_g=inf,nu_h=0.5"
    rho = rec.test_mse[h]["accnet"][:, -1] / rec.test_mse[h]["shallow"][:, -1]
    np.testing.assert_allclose(summ[h]["rho"], rho)
    ratio = next(c for c in report.claims if c.name == "h-hard-ratio")
    assert ratio.details["estimate"] == pytest.approx(rho.mean())
    assert rec.test_mse[h]["oracle"].shape == (cfg.n_seeds, len(cfg.Ns))


def test_config_refuses_bad_scales():
    with pytest.raises(ValueError, match="nu_g"):
        Config(cells=((0.0, 1.5),))
    with pytest.raises(ValueError, match="input dimension"):
        Config(Ns=(10, 100))
