"""Poisson sampling, the data sets, the noisy quadratic's closed forms and the training loop."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from disk_dp.data import load
from disk_dp.models import logistic, mlp
from disk_dp.quadratic import noisy_quadratic_problem
from disk_dp.sampling import PoissonSampler, poisson_batch
from disk_dp.training import evaluate, steps_for_epochs, train

pytestmark = pytest.mark.usefixtures("torch_one_thread")


def test_poisson_batch_sizes_are_binomial(device):
    gen = torch.Generator(device=device).manual_seed(0)
    n, q = 1000, 0.05
    sizes = np.array([len(b) for b in PoissonSampler(n, q, 2000, gen)])
    assert sizes.mean() == pytest.approx(n * q, rel=0.02)
    assert sizes.var() == pytest.approx(n * q * (1 - q), rel=0.1)
    idx = poisson_batch(n, q, gen)
    assert idx.dtype == torch.int64 and torch.all(idx[1:] > idx[:-1]) and (idx.numel() == 0 or idx.max() < n)


def test_poisson_batches_can_be_empty_and_are_reproducible(device):
    a = [b.tolist() for b in PoissonSampler(50, 0.01, 200, torch.Generator(device=device).manual_seed(1))]
    b = [b.tolist() for b in PoissonSampler(50, 0.01, 200, torch.Generator(device=device).manual_seed(1))]
    assert a == b
    assert any(len(x) == 0 for x in a)


def test_sampler_bad_input():
    gen = torch.Generator()
    with pytest.raises(ValueError, match=r"sampling rate q must be a finite number in \(0, 1\]"):
        PoissonSampler(10, 0.0, 5, gen)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        PoissonSampler(0, 0.5, 5, gen)
    with pytest.raises(TypeError, match=r"generator must be a Generator"):
        PoissonSampler(10, 0.5, 5, 0)  # type: ignore[arg-type]


def test_digits_split_is_standardised_and_stratified():
    ds = load("digits")
    assert ds.n + ds.x_test.shape[0] == 1797 and abs(ds.n - 1437) <= 2 and ds.n_classes == 10
    mean = ds.x_train.mean(0)
    assert float(mean.abs().max()) < 1e-5
    val = load("digits", validation=True)
    assert val.n + val.x_test.shape[0] == ds.n
    bc = load("breast_cancer")
    assert bc.d == 30 and bc.n_classes == 2 and bc.n + bc.x_test.shape[0] == 569
    with pytest.raises(ValueError, match="name must be one of 'digits', 'breast_cancer', got 'mnist'"):
        load("mnist")


def test_quadratic_closed_forms():
    prob = noisy_quadratic_problem(400, 10, 100.0, seed=0)
    w = np.random.default_rng(1).standard_normal(10)
    assert prob.excess(w) == pytest.approx(prob.loss(w) - prob.f_opt, rel=1e-9)
    eig = np.linalg.eigvalsh(prob.hessian)
    assert 40 < eig.max() / eig.min() < 250  # population condition number 100
    grad = prob.x.T @ (prob.x @ prob.w_opt - prob.y) / 400
    assert np.abs(grad).max() < 1e-10
    with pytest.raises(ValueError, match="need n >= d >= 1"):
        noisy_quadratic_problem(5, 10)


def test_non_private_training_learns_digits(device):
    ds = load("digits", device=device)
    model = mlp(64, 64, 10, seed=0, device=device)
    h = train(
        model,
        ds,
        torch.optim.SGD(model.parameters(), lr=0.5),
        q=64 / ds.n,
        epochs=2,
        generator=torch.Generator(device=device).manual_seed(0),
    )
    assert h.steps == steps_for_epochs(2, 64 / ds.n) == 45
    assert h.test_acc.shape == (3,) and h.test_acc[0] < 0.3 and h.final_acc > 0.9
    assert h.epsilon == float("inf") and h.train_loss[-1] < h.train_loss[0]
    # T = 45 is not a multiple of the evaluation interval 22: the last entry is measured after step 45
    assert (h.final_acc, float(h.train_loss[-1])) == evaluate(model, ds)


@pytest.mark.slow
def test_dp_training_reports_the_accountant_epsilon(device):
    from disk_dp.accounting import epsilon, noise_for_epsilon
    from disk_dp.optim import make_disk_sgd

    ds = load("breast_cancer", device=device)
    q = 64 / ds.n
    steps = steps_for_epochs(2, q)
    sigma = noise_for_epsilon(4.0, 1e-5, q, steps)
    model = logistic(ds.d, 2, seed=0, device=device)
    opt = make_disk_sgd(model, 0.5, noise_multiplier=sigma, max_grad_norm=1.0, expected_batch_size=64)
    h = train(model, ds, opt, q=q, epochs=2, generator=torch.Generator(device=device).manual_seed(0))
    assert h.epsilon == pytest.approx(epsilon(q, sigma, steps, 1e-5)) and h.epsilon <= 4.0
    assert h.final_acc > 0.8
    with pytest.warns(UserWarning, match="permits releasing a record"):
        train(model, ds, opt, q=q, epochs=1, generator=torch.Generator(device=device), delta=0.01)
