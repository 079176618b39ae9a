"""The shared method battery over the registry, plus what distinguishes the methods."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from arat.evaluate import accuracy, gradient_conflict
from arat.layers import has_split_bn
from arat.methods import METHODS, fit, method_config
from arat.models import default_layers
from arat.training import TrainConfig, eps_at, lr_at
from shared_testing.battery import MethodBattery, MethodCase

G = torch.Generator().manual_seed(0)
X = torch.rand(32, 1, 8, 8, generator=G)
Y = torch.arange(32) % 10


def small_inputs():
    return {
        "x": X.clone(),
        "y": Y.clone(),
        "channels": (4, 4, 4, 4),
        "epochs": 1,
        "batch_size": 16,
        "steps": 1,
    }


def call(**kw):
    """fit without the wall-clock field (CPU seconds are not a deterministic output)."""
    out = fit(**kw)
    return dataclasses.replace(out, cpu_seconds=np.zeros(0))


BAD = {"eps": -0.1, "steps": 0, "epochs": -1, "lr": 0.0}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(
                name,
                call=lambda name=name, **kw: call(name=name, **kw),
                inputs=small_inputs,
                bad_inputs=BAD,
                device_arg="device",
            )
            for name in METHODS
        ]


def test_registry_declares_split_bn_and_builds_it():
    for name, info in METHODS.items():
        out = fit(name, X, Y, channels=(4, 4, 4, 4), epochs=0, seed=0)
        assert has_split_bn(out.model) == info.split_bn, name
        assert (out.heads is not None) == (name in ("arat", "asym")), name


def test_same_seed_same_init_for_every_method():
    a = fit("at", X, Y, channels=(4, 4, 4, 4), epochs=0, seed=3)
    b = fit("arat", X, Y, channels=(4, 4, 4, 4), epochs=0, seed=3)
    for pa, (name, pb) in zip(
        a.model.parameters(),
        ((n, p) for n, p in b.model.named_parameters() if ".bns.clean." not in n),
        strict=True,
    ):
        assert torch.equal(pa, pb), name


def test_evaluation_uses_the_adv_branch():
    """Guard against silently evaluating the auxiliary branch: the two branches give different numbers."""
    out = fit("arat", X, Y, channels=(8, 8, 8, 8), epochs=2, batch_size=24, steps=1, seed=0)
    xb = torch.rand(64, 1, 8, 8, generator=torch.Generator().manual_seed(1))
    yb = torch.arange(64) % 10
    with torch.no_grad():
        logits_adv = out.model(xb)
    assert accuracy(out.model, xb, yb) == pytest.approx(float((logits_adv.argmax(1) == yb).float().mean()))
    from arat.layers import use_branch

    with use_branch(out.model, "clean"), torch.no_grad():
        logits_clean = out.model(xb)
    assert not torch.allclose(logits_adv, logits_clean)


def test_auto_balance_weights_are_logged_and_sum_to_one():
    out = fit("arat", X, Y, channels=(4, 4, 4, 4), epochs=2, batch_size=16, steps=1, seed=0)
    np.testing.assert_allclose(out.w_adv + out.w_clean, 1.0)
    at = fit("at", X, Y, channels=(4, 4, 4, 4), epochs=2, batch_size=16, steps=1, seed=0)
    np.testing.assert_array_equal(at.w_adv, [1.0, 1.0])


def test_lr_schedule_matches_the_official_shape():
    c = TrainConfig(epochs=100, lr=0.1)
    got = [lr_at(c, e) for e in (0, 1, 74, 75, 89, 90, 99)]
    assert got == pytest.approx([0.02, 0.1, 0.1, 0.01, 0.01, 0.001, 0.001])


def test_eps_warmup_ramps_linearly_then_holds_and_zero_is_the_official_constant():
    c = TrainConfig(epochs=15, eps=0.35, eps_warmup=4)
    got = [eps_at(c, e) for e in range(7)]
    assert got == pytest.approx([0.07, 0.14, 0.21, 0.28, 0.35, 0.35, 0.35])
    assert [eps_at(TrainConfig(eps=0.35), e) for e in (0, 1, 9)] == [0.35, 0.35, 0.35]
    # the ramp changes the training attack (and so the model); warm-up 0 is bit-identical to the default
    kw = {"channels": (4, 4, 4, 4), "epochs": 2, "batch_size": 16, "steps": 1, "seed": 0, "eps": 0.3}
    plain, zero, ramp = (fit("at", X, Y, **kw, **w) for w in ({}, {"eps_warmup": 0}, {"eps_warmup": 2}))
    assert np.array_equal(plain.loss, zero.loss) and not np.allclose(plain.loss, ramp.loss)


def test_eps_zero_runs_and_split_bn_mismatch_is_an_error():
    fit("at", X, Y, channels=(4, 4, 4, 4), epochs=1, batch_size=16, steps=1, eps=0.0)
    from arat.models import backbone
    from arat.training import train

    plain = backbone(channels=(4, 4, 4, 4), split_bn=False)
    with pytest.raises(ValueError, match="split BatchNorm"):
        train(plain, X, Y, method_config("arat", epochs=1))
    with pytest.raises(ValueError, match="layers"):
        train(backbone(channels=(4, 4, 4, 4)), X, Y, method_config("arat", epochs=1, layers=("nope",)))
    with pytest.raises(TypeError, match="config"):
        train(plain, X, Y, {"epochs": 1})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="name"):
        method_config("madry")


def test_gradient_conflict_reports_fractions_and_cosines():
    out = fit("naive", X, Y, channels=(4, 4, 4, 4), epochs=1, batch_size=16, steps=1, seed=0)
    r = gradient_conflict(out.model, X[:16], Y[:16], layers=default_layers(out.model), eps=0.3, steps=2)
    assert set(r) == {"conflict_a", "conflict_b", "cosine_a", "cosine_b"}
    assert 0 <= r["conflict_a"] <= 1 and 0 <= r["conflict_b"] <= 1 and -1 <= r["cosine_b"] <= 1
    with pytest.raises(ValueError, match="eps"):
        gradient_conflict(out.model, X[:16], Y[:16], layers=default_layers(out.model), eps=-0.3)
    with pytest.raises(ValueError, match="steps"):
        gradient_conflict(out.model, X[:16], Y[:16], layers=default_layers(out.model), eps=0.3, steps=0)


def test_sgd_matches_the_heavy_ball_update_with_weight_decay():
    from arat.training import SGD

    p = torch.tensor([1.0, -2.0], requires_grad=True)
    opt = SGD([p], lr=0.1, momentum=0.9, weight_decay=0.5)
    grads = [torch.tensor([0.3, 0.1]), torch.tensor([-0.2, 0.4])]
    ref, buf = torch.tensor([1.0, -2.0]), None
    for g in grads:
        p.grad = g.clone()
        opt.step()
        d = g + 0.5 * ref
        buf = d if buf is None else 0.9 * buf + d
        ref = ref - 0.1 * buf
    torch.testing.assert_close(p.detach(), ref)


def test_train_config_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="eps"):
        TrainConfig(eps=-0.1)
    with pytest.raises(ValueError, match="steps"):
        TrainConfig(steps=0)
    with pytest.raises(ValueError, match="objective"):
        TrainConfig(objective="mart")
