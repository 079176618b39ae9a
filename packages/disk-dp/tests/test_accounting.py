"""The RDP accountant against closed forms, numerical integration and (when installed) Opacus."""

from __future__ import annotations

import math

import numpy as np
import pytest
from disk_dp.accounting import (
    DEFAULT_ORDERS,
    eps_from_rdp,
    epsilon,
    noise_for_epsilon,
    rdp_by_integration,
    rdp_subsampled_gaussian,
)


def test_default_orders_are_opacus_defaults():
    assert len(DEFAULT_ORDERS) == 99 + 52
    assert DEFAULT_ORDERS[0] == pytest.approx(1.1) and DEFAULT_ORDERS[98] == pytest.approx(10.9)
    assert DEFAULT_ORDERS[99] == 12 and DEFAULT_ORDERS[-1] == 63


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
def test_unsubsampled_gaussian_is_alpha_over_two_sigma_squared(sigma):
    orders = np.array([1.5, 2.0, 3.7, 10.0, 40.0])
    np.testing.assert_allclose(
        rdp_subsampled_gaussian(1.0, sigma, orders), orders / (2 * sigma**2), rtol=1e-15
    )


@pytest.mark.parametrize(("q", "sigma"), [(0.01, 1.0), (0.05, 2.9), (0.3, 0.7), (0.001, 4.0)])
def test_order_two_closed_form(q, sigma):
    # A_2 = (1-q)^2 + 2q(1-q) + q^2 e^{1/sigma^2} = 1 + q^2 (e^{1/sigma^2} - 1)
    expected = math.log1p(q * q * math.expm1(1 / sigma**2))
    assert rdp_subsampled_gaussian(q, sigma, [2.0])[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("q", "sigma"), [(0.0445, 2.9), (0.01, 0.8), (0.2, 0.6), (0.5, 1.5)])
@pytest.mark.parametrize("alpha", [1.1, 1.5, 2.0, 3.3, 7.9, 12.0, 32.0])
def test_series_matches_numerical_integration(q, sigma, alpha):
    ours = rdp_subsampled_gaussian(q, sigma, [alpha])[0]
    assert ours == pytest.approx(rdp_by_integration(q, sigma, alpha), rel=1e-6)


def test_epsilon_monotone_in_sigma_steps_and_rate():
    base = epsilon(0.05, 1.5, 200, 1e-5)
    assert epsilon(0.05, 2.0, 200, 1e-5) < base
    assert epsilon(0.05, 1.5, 400, 1e-5) > base
    assert epsilon(0.1, 1.5, 200, 1e-5) > base
    assert epsilon(0.05, 1.5, 200, 1e-3) < base


def test_zero_noise_is_infinite_epsilon_and_zero_rate_is_free():
    assert epsilon(0.05, 0.0, 10, 1e-5) == math.inf
    assert epsilon(0.0, 1.0, 10, 1e-5) == 0.0


def test_conversion_is_balle_et_al_2020():
    orders = np.array([2.0, 8.0, 32.0])
    rdp = np.array([0.3, 0.9, 4.0])
    delta = 1e-5
    eps = rdp + np.log((orders - 1) / orders) - (np.log(delta) + np.log(orders)) / (orders - 1)
    got, best = eps_from_rdp(rdp, orders, delta)
    assert got == pytest.approx(eps.min(), rel=1e-14) and best == orders[np.argmin(eps)]


@pytest.mark.slow
def test_noise_for_epsilon_is_the_smallest_feasible_sigma():
    q, steps, delta = 64 / 1437, 225, 1e-5
    sigma = noise_for_epsilon(1.0, delta, q, steps)
    assert epsilon(q, sigma, steps, delta) <= 1.0
    assert epsilon(q, sigma * (1 - 1e-3), steps, delta) > 1.0


def test_matches_opacus_rdp_accountant_on_a_grid():
    pytest.importorskip("opacus")
    from opacus.accountants import RDPAccountant

    for q, sigma, steps in [(0.0445, 2.9, 225), (0.01, 0.8, 1000), (0.1, 2.0, 100), (0.2, 0.6, 50)]:
        acc = RDPAccountant()
        acc.history = [(sigma, q, steps)]
        ref = acc.get_epsilon(1e-5)
        assert epsilon(q, sigma, steps, 1e-5) == pytest.approx(ref, rel=1e-3)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: noise_for_epsilon(0.0, 1e-5, 0.1, 10), "target epsilon must be a finite number > 0"),
        (lambda: noise_for_epsilon(-1.0, 1e-5, 0.1, 10), "target epsilon must be a finite number > 0"),
        (lambda: noise_for_epsilon(1.0, 0.0, 0.1, 10), r"delta must be a number in \(0, 1\)"),
        (lambda: noise_for_epsilon(1.0, 1.0, 0.1, 10), r"delta must be a number in \(0, 1\)"),
        (lambda: epsilon(0.1, 1.0, 10, 1.5), r"delta must be a number in \(0, 1\)"),
        (lambda: epsilon(1.5, 1.0, 10, 1e-5), r"sampling rate q must be a finite number in \[0, 1\]"),
        (lambda: epsilon(0.1, -1.0, 10, 1e-5), "noise multiplier sigma must be a finite number >= 0"),
        (lambda: epsilon(0.1, 1.0, -3, 1e-5), "steps must be an integer >= 0"),
        (lambda: rdp_subsampled_gaussian(0.1, 1.0, [1.0]), "orders must be finite numbers > 1"),
        (lambda: eps_from_rdp([1.0, 2.0], [2.0], 1e-5), "rdp has shape"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
