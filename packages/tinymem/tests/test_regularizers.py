"""Regularizers against closed forms and brute force; training and fine-tuning behave."""

from __future__ import annotations

import math

import pytest
import torch
from tinymem import (
    ExampleTiedDropout,
    LossTruncation,
    TrainSpec,
    finalize_example_tied,
    finetune,
    mlp_layers,
    spectral_norm,
    spectral_norm_penalty,
    train_lm,
)
from tinymem.metrics import token_losses

pytestmark = pytest.mark.usefixtures("torch_one_thread")


@pytest.mark.parametrize("shape", [(5, 5), (16, 64), (64, 16)])
def test_spectral_norm_equals_the_largest_singular_value(shape):
    w = torch.randn(*shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    est = spectral_norm(w, n_iter=500, generator=torch.Generator().manual_seed(0))
    assert float(est) == pytest.approx(float(torch.linalg.svdvals(w)[0]), rel=1e-3)


def test_spectral_norm_gradient_is_u_v_outer():
    w = torch.randn(6, 4, generator=torch.Generator().manual_seed(2), dtype=torch.float64, requires_grad=True)
    spectral_norm(w, n_iter=500).backward()
    u, _, vh = torch.linalg.svd(w.detach())
    assert torch.allclose(w.grad.abs(), torch.outer(u[:, 0], vh[0]).abs(), atol=1e-6)


def test_spectral_penalty_sums_the_block_matrices(tiny_model):
    pen = spectral_norm_penalty(tiny_model, n_iter=300)
    want = sum(
        float(torch.linalg.svdvals(p.detach())[0])
        for n, p in tiny_model.named_parameters()
        if p.ndim == 2 and ".h." in n
    )
    assert float(pen) == pytest.approx(want, rel=1e-3)


@pytest.mark.parametrize(("frac", "batch"), [(0.0, 8), (0.1, 10), (0.25, 8), (0.5, 7)])
def test_loss_truncation_drops_the_highest_losses(frac, batch):
    losses = torch.randn(batch, generator=torch.Generator().manual_seed(0))
    n_drop = math.floor(frac * batch)
    kept = torch.sort(losses).values[: batch - n_drop]
    assert float(LossTruncation(frac)(losses)) == pytest.approx(float(kept.mean()))
    with pytest.raises(ValueError, match="drop_frac"):
        LossTruncation(1.0)


def test_example_tied_masks_are_fixed_per_example():
    etd = ExampleTiedDropout(p_gen=0.25, p_mem=0.5, seed=3)
    a = etd.masks(torch.tensor([4, 9, 4]), 40)
    assert torch.equal(a[0], a[2]) and not torch.equal(a[0], a[1])
    assert bool((a[:, :10] == 1).all())  # generalisation neurons always on
    with pytest.raises(ValueError, match="p_gen"):
        ExampleTiedDropout(p_gen=1.0)


def test_finalize_example_tied_drops_memorisation_neurons(tiny_model):
    etd = ExampleTiedDropout(p_gen=0.5, p_mem=0.1)
    finalize_example_tied(tiny_model, etd)
    for layer in mlp_layers(tiny_model):
        half = layer.inner_dim // 2
        assert bool((layer.fc.weight[:, half:] == 0).all()) and bool((layer.fc.bias[half:] == 0).all())
        assert bool((layer.fc.weight[:, :half] != 0).any())


@pytest.mark.parametrize(
    "extra",
    [{}, {"loss_truncation": 0.2}, {"spectral_coef": 0.01}, {"example_tied": ExampleTiedDropout()}],
    ids=["plain", "truncation", "spectral", "example-tied"],
)
def test_training_lowers_the_loss(tiny_model, small_data, device, extra):
    rows = small_data.train[:64]
    with torch.no_grad():
        before = float(token_losses(tiny_model, rows.to(device)).mean())
    losses = train_lm(tiny_model, rows, TrainSpec(epochs=3, batch_size=32, lr=1e-2, **extra), device=device)
    with torch.no_grad():
        after = float(token_losses(tiny_model, rows.to(device)).mean())
    assert len(losses) == 6 and after < before


def test_finetune_runs_its_callback(tiny_model, small_data, device):
    seen = []
    finetune(
        tiny_model,
        small_data.clean_train[:40],
        epochs=2,
        batch_size=20,
        device=device,
        callback=lambda s, m: seen.append(s),
        callback_every=2,
    )
    assert seen == [2, 4]


def test_train_spec_bad_inputs():
    with pytest.raises(ValueError, match="epochs"):
        TrainSpec(epochs=0)
    with pytest.raises(ValueError, match="lr"):
        TrainSpec(epochs=1, lr=-1.0)
    with pytest.raises(ValueError, match="drop_frac"):
        TrainSpec(epochs=1, loss_truncation=1.5)
