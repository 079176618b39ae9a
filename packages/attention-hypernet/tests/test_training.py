"""The schedule, the optimiser, the probe's ridge regression, and that training learns."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from attention_hypernet.logic import FuzzyLogic
from attention_hypernet.probe import ridge_r2
from attention_hypernet.sraven import SRaven
from attention_hypernet.training import AdamW, TrainConfig, build_model, decay_mask, evaluate, lr_at, train


def assert_close(a, b, rtol=0.0, atol=1e-12):
    """max |a - b| <= atol + rtol |b| (torch.testing's first use imports seconds of torch internals)."""
    a, b = torch.as_tensor(a), torch.as_tensor(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    bad = (a - b).abs() > atol + rtol * b.abs()
    assert not bad.any(), f"max |a - b| = {(a - b).abs().max().item():.3g}"


def test_schedule_is_optax_warmup_cosine_with_decay_steps_minus_warmup():
    lr, w, S = 1e-3, 10, 100
    assert lr_at(0, lr=lr, warmup=w, steps=S) == 0.0
    assert lr_at(5, lr=lr, warmup=w, steps=S) == pytest.approx(5e-4)
    assert lr_at(10, lr=lr, warmup=w, steps=S) == pytest.approx(lr)
    # optax: cosine over decay_steps - warmup = (S - w) - w = 80 steps; halfway at step 50
    assert lr_at(50, lr=lr, warmup=w, steps=S) == pytest.approx(0.1 * lr + 0.9 * lr * 0.5)
    assert lr_at(90, lr=lr, warmup=w, steps=S) == pytest.approx(0.1 * lr)
    assert lr_at(99, lr=lr, warmup=w, steps=S) == pytest.approx(0.1 * lr)
    t = 17 / 80
    assert lr_at(27, lr=lr, warmup=w, steps=S) == pytest.approx(
        0.1 * lr + 0.45 * lr * (1 + math.cos(math.pi * t))
    )


def test_adamw_matches_the_closed_form_first_step():
    p = torch.tensor([1.0, -2.0], requires_grad=True)
    opt = AdamW([p], [True], weight_decay=0.1)
    (3 * p).sum().backward()
    opt.step(0.01)
    # first step: m_hat = g, v_hat = g^2, so the Adam part is lr * sign(g) (up to eps)
    want = torch.tensor([1.0, -2.0]) * (1 - 0.01 * 0.1) - 0.01 * 3 / (3 + 1e-8)
    assert_close(p.detach(), want, rtol=0, atol=1e-7)


@pytest.mark.slow  # constructing torch.optim.AdamW imports torch._dynamo (seconds of CPU)
def test_adamw_matches_torch():
    torch.manual_seed(0)
    ps = [torch.randn(3, 4, requires_grad=True), torch.randn(4, requires_grad=True)]
    qs = [p.detach().clone().requires_grad_(True) for p in ps]
    ours = AdamW(ps, [True, False], weight_decay=0.1)
    ref = torch.optim.AdamW(
        [{"params": [qs[0]], "weight_decay": 0.1}, {"params": [qs[1]], "weight_decay": 0.0}]
    )
    for step in range(5):
        for group in ref.param_groups:
            group["lr"] = 0.01 * (step + 1)
        for P in (ps, qs):
            sum((p**3).sum() for p in P).backward()
        ours.step(0.01 * (step + 1))
        ref.step()
        ours.zero_grad()
        ref.zero_grad()
    for a, b in zip(ps, qs, strict=True):
        assert_close(a, b, rtol=1e-6, atol=1e-7)


def test_decay_mask_follows_flax_ndim():
    model = build_model(
        FuzzyLogic(), TrainConfig(d_model=16, d_mlp=16, n_heads=4, d_qk=8, d_v=8), "hyla", seed=0
    )
    mask = dict(zip((n for n, _ in model.named_parameters()), decay_mask(model), strict=True))
    assert (
        mask["blocks.0.attn.query.bias"] and mask["blocks.0.attn.query.weight"] and mask["blocks.0.rel.table"]
    )
    assert not mask["blocks.0.attn.out.bias"] and not mask["blocks.0.norm1.weight"] and not mask["embed.bias"]


def test_ridge_r2_against_numpy_lstsq():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((200, 5))
    y = np.column_stack(
        [x @ rng.standard_normal(5) + 0.1 * rng.standard_normal(200), rng.standard_normal(200)]
    )
    r2 = ridge_r2(x[:100], y[:100], x[100:], y[100:], l2=1e-9)
    X = np.column_stack([x[:100], np.ones(100)])
    w = np.linalg.lstsq(X, y[:100], rcond=None)[0]
    pred = np.column_stack([x[100:], np.ones(100)]) @ w
    want = 1 - ((y[100:] - pred) ** 2).sum(0) / ((y[100:] - y[100:].mean(0)) ** 2).sum(0)
    np.testing.assert_allclose(r2, want, atol=1e-8)
    assert r2[0] > 0.95 and r2[1] < 0.1
    with pytest.raises(ValueError, match="x_test"):
        ridge_r2(x[:10], y[:10], x[:10, :3], y[:10])


def test_training_lowers_the_logic_loss():
    cfg = TrainConfig(
        d_model=16, n_layers=1, n_heads=4, d_qk=8, d_v=8, d_mlp=16, steps=60, batch_size=32, lr=3e-3, warmup=3
    )
    task = FuzzyLogic(num_vars=3)
    model = build_model(task, cfg, "hyla", seed=0)
    before = evaluate(model, task, "train", n=256, seed=1)["mse"]
    losses = train(model, task, cfg, seed=0)
    assert losses[-10:].mean() < 0.5 * losses[:5].mean()
    assert evaluate(model, task, "train", n=256, seed=1)["mse"] < 0.5 * before


@pytest.mark.slow  # ~1-2 min of CPU: spec "overfit test"
def test_hyla_memorises_64_sraven_problems():
    task = SRaven(num_features=2)
    batch = task.sample(64, "train", np.random.default_rng(0))
    cfg = TrainConfig(
        d_model=64,
        n_layers=2,
        n_heads=8,
        d_qk=32,
        d_v=32,
        d_mlp=128,
        steps=600,
        batch_size=64,
        lr=3e-3,
        warmup=20,
        weight_decay=0.0,
    )
    model = build_model(task, cfg, "hyla", seed=0)
    x, y = torch.from_numpy(batch.x), torch.from_numpy(batch.y)
    opt = AdamW(list(model.parameters()), decay_mask(model), weight_decay=0.0)
    for step in range(cfg.steps):
        loss = torch.nn.functional.cross_entropy(model(x)[:, -2:].reshape(-1, 8), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step(lr_at(step, lr=cfg.lr, warmup=cfg.warmup, steps=cfg.steps))
    with torch.no_grad():
        assert (model(x)[:, -2:].argmax(-1) == y).all()


def test_bad_train_config():
    with pytest.raises(ValueError, match="warmup"):
        TrainConfig(steps=10, warmup=5)
    with pytest.raises(ValueError, match="lr"):
        TrainConfig(lr=0.0)
    with pytest.raises(TypeError, match="steps"):
        TrainConfig(steps=1.5)
