"""Split BN isolation, feature taps and the predictor (the spec's "Tests that would catch ...")."""

from __future__ import annotations

import pytest
import torch
from arat.features import tapped_forward
from arat.layers import SplitBatchNorm2d, branch_of, set_branch, split_batchnorm, use_branch
from arat.models import backbone, default_layers
from arat.predictor import Predictor
from paperkit.vision import mlp
from torch import nn


def _state(bn: nn.BatchNorm2d) -> list[torch.Tensor]:
    return [t.detach().clone() for t in (bn.running_mean, bn.running_var, bn.weight, bn.bias)]


def test_a_forward_in_one_branch_leaves_the_other_bit_identical():
    model = backbone(channels=(4, 4, 4, 4), seed=0)
    split = next(m for m in model.modules() if isinstance(m, SplitBatchNorm2d))
    x = torch.rand(16, 1, 8, 8, generator=torch.Generator().manual_seed(0))
    for active, other in (("clean", "adv"), ("adv", "clean")):
        before, before_active = _state(split.bns[other]), _state(split.bns[active])
        model.train()
        with use_branch(model, active):
            model(x).sum().backward()
        assert all(torch.equal(a, b) for a, b in zip(before, _state(split.bns[other]), strict=True))
        assert not torch.equal(before_active[0], split.bns[active].running_mean)  # the active one moved
        assert split.bns[other].weight.grad is None or split.bns[other].weight.grad.abs().sum() == 0
        model.zero_grad(set_to_none=True)


def test_shared_weights_are_the_same_tensors_in_both_branches():
    model = backbone(channels=(4, 4, 4, 4), seed=0)
    convs_adv = [m.weight for m in model.modules() if isinstance(m, nn.Conv2d)]
    set_branch(model, "clean")
    convs_clean = [m.weight for m in model.modules() if isinstance(m, nn.Conv2d)]
    assert all(a is b for a, b in zip(convs_adv, convs_clean, strict=True))
    assert branch_of(model) == "clean"


def test_branches_start_from_the_same_bn_and_same_seed_gives_same_shared_weights():
    plain, split = (
        backbone(channels=(4, 4, 4, 4), split_bn=False, seed=3),
        backbone(channels=(4, 4, 4, 4), seed=3),
    )
    x = torch.rand(8, 1, 8, 8, generator=torch.Generator().manual_seed(1))
    plain.eval(), split.eval()
    for b in ("adv", "clean"):
        with use_branch(split, b):
            torch.testing.assert_close(split(x), plain(x), rtol=0, atol=0)


def test_use_branch_restores_and_rejects_unknown_branch():
    model = backbone(channels=(4, 4, 4, 4), seed=0)
    with use_branch(model, "clean"):
        assert branch_of(model) == "clean"
    assert branch_of(model) == "adv"
    with pytest.raises(ValueError, match="branch"):
        set_branch(model, "noisy")


def test_split_bn_of_a_model_without_batchnorm_is_an_error():
    with pytest.raises(ValueError, match="no"):
        split_batchnorm(mlp(64, [8], 10))
    with pytest.raises(TypeError, match="model"):
        split_batchnorm("cnn")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="already"):
        split_batchnorm(backbone(channels=(4, 4, 4, 4)))


def test_feature_tap_names_shapes_and_relu_gap():
    model = backbone(channels=(4, 5, 6, 7), split_bn=False, seed=0).eval()
    layers = default_layers(model)
    x = torch.rand(3, 1, 8, 8, generator=torch.Generator().manual_seed(2))
    logits, feats = tapped_forward(model, x, layers)
    assert (
        list(feats) == list(layers) and feats[layers[0]].shape == (3, 6) and feats[layers[1]].shape == (3, 7)
    )
    torch.testing.assert_close(logits, model(x))
    raw = {}
    dict(model.named_modules())[layers[1]].register_forward_hook(lambda m, i, o: raw.setdefault("o", o))
    model(x)
    torch.testing.assert_close(feats[layers[1]], torch.relu(raw["o"]).mean(dim=(2, 3)))
    _, no_relu = tapped_forward(model, x, layers, relu=False, avg_pool=False)
    assert no_relu[layers[1]].shape == (3, 7 * 4 * 4)


def test_feature_tap_unknown_layer_lists_the_available_names():
    model = backbone(channels=(4, 4, 4, 4), seed=0)
    with pytest.raises(ValueError, match="available"):
        tapped_forward(model, torch.zeros(2, 1, 8, 8), ["layer4.0.bn1"])


def test_predictor_shape_ratio_and_batch_one():
    p = Predictor(64, 0.25)
    assert p[0].weight.shape == (16, 64) and p[0].bias is None and p(torch.randn(5, 64)).shape == (5, 64)
    with pytest.raises(ValueError, match="batch of at least 2"):
        p(torch.randn(1, 64))
    assert p.eval()(torch.randn(1, 64)).shape == (1, 64)
