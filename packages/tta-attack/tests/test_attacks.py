"""Attacks against independent references: closed forms, brute-force loops, exact zero coupling."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from paperkit.vision import small_cnn
from torch import nn
from tta_attack.attacks import (
    AttackConfig,
    centroid_update,
    craft,
    fca_loss,
    malicious_count,
    sign_pgd,
)
from tta_attack.models import features_logits
from tta_attack.tta import Adapter

EPS = 16 / 255


def tiny_cnn(seed: int = 0) -> torch.nn.Sequential:
    return small_cnn(1, 10, channels=(4, 8), image_size=16, seed=seed)


def cfg(**kw):
    return AttackConfig(**{"eps": EPS, "alpha": EPS / 4, "steps": 5, **kw})


class Untouchable(torch.Tensor):
    """A label tensor that fails on any use: a label-free attack never reads it."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise AssertionError("the labels were read")


def victim(model):
    return Adapter("tebn", model).model


@pytest.mark.parametrize("name", ["random", "dia", "dia_pseudo", "fca"])
def test_projection_box_and_untouched_benign_rows(name, digits_batch, cnn):
    x, y = digits_batch
    out = craft(name, victim(cnn), x, cfg(), labels=y, generator=torch.Generator().manual_seed(0))
    m = malicious_count(len(x), 0.2)
    assert m == 4
    assert torch.equal(out.x[:-m], x[:-m])
    assert (out.x - x).abs().max() <= EPS + 1e-6
    assert out.x.min() >= 0 and out.x.max() <= 1
    if name != "random":  # PGD from the grey start moves every malicious image
        assert (out.x[-m:] - x[-m:]).abs().amax(dim=(1, 2, 3)).min() > EPS / 2


def test_label_free_attacks_never_read_labels_and_dia_does(digits_batch, cnn):
    x, y = digits_batch
    bad = y.as_subclass(Untouchable)
    for name in ("fca", "dia_pseudo", "random", "none"):
        craft(name, victim(cnn), x, cfg(), labels=bad, generator=torch.Generator().manual_seed(0))
    with pytest.raises(AssertionError, match="read"):
        craft("dia", victim(cnn), x, cfg(), labels=bad)


def test_batch_coupling_train_bn_nonzero_eval_bn_exactly_zero(digits_batch, cnn):
    x, _ = digits_batch
    for model, zero in ((victim(cnn), False), (cnn.eval(), True)):
        xm = x[-4:].clone().requires_grad_(True)
        logits = model(torch.cat([x[:-4], xm]))[:-4]
        (g,) = torch.autograd.grad(logits.square().sum(), xm)
        assert (g.abs().max() == 0) == zero
    clean = cnn.eval()(x)
    for name in ("dia_pseudo", "fca"):
        adv = craft(name, cnn.eval(), x, cfg()).x
        assert torch.equal(cnn(adv)[:-4], clean[:-4])


def test_sign_pgd_constant_gradient_closed_form():
    """With L = sum(w * x_M) the sign is constant: delta_T = clip(s * min(T alpha, eps) sign w) from 0."""
    x = torch.full((5, 1, 2, 2), 0.5)
    w = torch.tensor([1.0, -1.0, 1.0, -1.0]).view(1, 1, 2, 2)
    for steps, acc in ((3, True), (3, False), (10, True)):
        c = AttackConfig(eps=0.2, alpha=0.05, steps=steps, init="zero")
        out = sign_pgd(lambda xt: (xt[-2:] * w).sum(), x, 2, c, ascend=True, accumulate=acc)
        want = 0.5 + min(steps * 0.05, 0.2) * w.expand(2, 1, 2, 2)
        assert torch.allclose(out[-2:], want, atol=1e-6) and torch.equal(out[:3], x[:3])


def test_accumulated_gradient_differs_from_current_gradient(digits_batch, cnn):
    x, _ = digits_batch
    a = craft("fca", victim(cnn), x, cfg(steps=8, accumulate_grad=True)).x
    b = craft("fca", victim(cnn), x, cfg(steps=8, accumulate_grad=False)).x
    assert not torch.equal(a, b)


def test_centroid_update_matches_a_loop():
    rng = np.random.default_rng(0)
    feats, labels = rng.normal(size=(30, 6)), rng.integers(0, 4, size=30)
    labels[labels == 2] = 1  # class 2 absent: its centroid stays
    c0 = rng.normal(size=(5, 6))
    want = c0.copy()
    for k in range(5):
        if (labels == k).any():
            want[k] = 0.6 * c0[k] + 0.4 * feats[labels == k].mean(0)
    got = centroid_update(torch.tensor(c0), torch.tensor(feats), torch.tensor(labels))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_fca_loss_terms_at_their_extremes():
    z = torch.tensor([[1.0, 2.0, 0.5]]).repeat(4, 1) * torch.tensor([[1.0], [2.0], [3.0], [0.5]])
    labels = torch.tensor([0, 0, 1, 1])
    cents = torch.stack([z[0], z[2]])
    loss, t = fca_loss(z, z.clone(), cents, labels)
    assert t["collapse"].item() == pytest.approx(1.0)  # all benign features parallel: collapse maximal
    assert t["scatter"].item() == pytest.approx(1.0)  # unchanged features
    assert t["centroid"].item() == pytest.approx(1.0)  # every feature on its centroid's direction
    assert loss.item() == pytest.approx(1.0)
    z2 = torch.eye(3)[[0, 1, 2, 0]]
    _, t2 = fca_loss(z2, -z2, -torch.eye(3)[:2], torch.tensor([0, 1, 1, 0]))
    assert t2["scatter"].item() == pytest.approx(-1.0)
    assert t2["centroid"].item() == pytest.approx(-0.75)


def test_every_fca_term_has_gradient_wrt_the_malicious_pixels(digits_batch, cnn):
    x, _ = digits_batch
    model = victim(cnn)
    with torch.no_grad():
        f0, lg = features_logits(model, x)
    xm = x[-4:].clone().requires_grad_(True)
    z = features_logits(model, torch.cat([x[:-4], xm]))[0][:-4]
    yhat = lg.argmax(1)
    cents = centroid_update(torch.zeros(10, f0.shape[1]), f0, yhat)
    _, terms = fca_loss(z, f0[:-4], cents, yhat[:-4])
    for name, term in terms.items():
        (g,) = torch.autograd.grad(term, xm, retain_graph=True)
        assert g.abs().sum() > 0, name


def test_dia_with_labels_at_least_dia_pseudo_on_average(digits_batch):
    model = victim(tiny_cnn(1))
    x, y = digits_batch
    errs = {}
    for name in ("dia", "dia_pseudo"):
        adv = craft(name, model, x, cfg(steps=10), labels=y).x
        with torch.no_grad():
            errs[name] = float(nn.functional.cross_entropy(model(adv)[:-4], y[:-4]))
    assert errs["dia"] >= errs["dia_pseudo"] - 1e-6


@pytest.mark.parametrize(
    ("kw", "exc", "fragment"),
    [({"eps": -0.1}, ValueError, "eps"), ({"malicious": 0.0}, ValueError, "malicious"),
     ({"malicious": 1.0}, ValueError, "malicious"), ({"malicious": 1.5}, ValueError, "malicious"),
     ({"init": "black"}, ValueError, "init")],
)  # fmt: skip
def test_attack_config_refuses(kw, exc, fragment):
    with pytest.raises(exc, match=fragment):
        AttackConfig(**kw)


def test_craft_refuses_a_model_without_batchnorm_and_missing_inputs(digits_batch):
    x, _y = digits_batch
    mlp = nn.Sequential(nn.Flatten(), nn.Linear(256, 10))
    with pytest.raises(ValueError, match="no BatchNorm"):
        craft("fca", mlp, x, cfg())
    with pytest.raises(ValueError, match="labels"):
        craft("dia", victim(tiny_cnn()), x, cfg())
    with pytest.raises(ValueError, match="attack"):
        craft("pgd", victim(tiny_cnn()), x, cfg())
    with pytest.raises(ValueError, match="no benign slot"):
        malicious_count(2, 0.9)
