"""TTA victims and MedBN against manual computations."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from paperkit.vision import small_cnn
from torch.nn import functional as F
from tta_attack.models import MedianBatchNorm2d, check_bn_model, with_median_bn
from tta_attack.tta import Adapter, TTAConfig, fisher_diagonal, hus_insert, norm_params


def tiny_cnn(seed: int = 0) -> torch.nn.Sequential:
    return small_cnn(1, 10, channels=(4, 8), image_size=16, seed=seed)


def _changed(before, model):
    return {k for k, v in model.state_dict().items() if not torch.equal(v, before[k])}


def test_tent_changes_only_bn_affine_and_load_restores_exactly(digits_batch):
    x, _ = digits_batch
    ad = Adapter("tent", tiny_cnn())
    before = {k: v.clone() for k, v in ad.model.state_dict().items()}
    s0 = ad.state()
    logits = ad.step(x)
    changed = _changed(before, ad.model)
    assert changed and all(k.startswith(("1.", "5.")) for k in changed)  # the two BatchNorm2d layers
    assert changed <= {k for k in before if k.endswith(("weight", "bias")) and k.split(".")[0] in ("1", "5")}
    assert torch.equal(logits, Adapter("tebn", tiny_cnn()).predict(x))  # the pre-update forward
    ad.load(s0)
    assert not _changed(before, ad.model)


def test_tebn_normalises_with_the_batch_statistics(digits_batch):
    x, _ = digits_batch
    ad = Adapter("tebn", tiny_cnn())
    conv, bn = ad.model[0], ad.model[1]
    h = conv(x)
    mean, var = h.mean((0, 2, 3)), h.var((0, 2, 3), unbiased=False)
    want = (h - mean[None, :, None, None]) / torch.sqrt(var[None, :, None, None] + bn.eps)
    want = want * bn.weight[None, :, None, None] + bn.bias[None, :, None, None]
    torch.testing.assert_close(bn(h), want, rtol=1e-5, atol=1e-5)
    before = {k: v.clone() for k, v in ad.model.state_dict().items()}
    ad.step(x)
    assert not _changed(before, ad.model)  # TeBN never updates


@pytest.mark.parametrize("method", ["eata", "sar", "sotta"])
def test_methods_update_and_predict_equals_the_step_output(method, digits_batch):
    x, _ = digits_batch
    src = tiny_cnn()
    fisher = fisher_diagonal(src, x) if method == "eata" else None
    cfg = TTAConfig(confidence=0.0) if method == "sotta" else None  # untrained net: admit every sample
    ad = Adapter(method, src, cfg, fisher)
    before = [p.detach().clone() for p in ad.params]
    pre = ad.predict(x)
    assert torch.equal(ad.step(x), pre)
    assert any(not torch.equal(p, b) for p, b in zip(ad.params, before, strict=True)), method


def test_eata_filter_and_fisher_regulariser(digits_batch):
    x, _ = digits_batch
    src = tiny_cnn()
    fisher = fisher_diagonal(src, x)
    assert all((f >= 0).all() for f in fisher) and any(f.sum() > 0 for f in fisher)
    ad = Adapter("eata", src, TTAConfig(eata_margin=1e-6), fisher)  # no sample below the margin
    before = [p.detach().clone() for p in ad.params]
    ad.step(x)
    assert all(torch.equal(p, b) for p, b in zip(ad.params, before, strict=True))
    with pytest.raises(ValueError, match="fisher"):
        Adapter("eata", src)


def test_hus_memory_is_class_balanced_and_bounded():
    cfg = TTAConfig(memory=6, confidence=0.9)
    probs = F.one_hot(torch.tensor([0, 0, 0, 0, 0, 1, 2, 1]), 3).float()
    x = torch.arange(8.0).view(8, 1, 1, 1)
    mx, my = hus_insert(None, None, x, probs, cfg)
    assert my.tolist() == [0, 0, 0, 1, 2, 1] and mx.flatten().tolist() == [2, 3, 4, 5, 6, 7]
    low = torch.full((2, 3), 1 / 3)
    assert hus_insert(None, None, x[:2], low, cfg) == (None, None)


def test_median_bn_against_numpy_and_robust_to_one_outlier():
    rng = np.random.default_rng(0)
    h = rng.normal(size=(9, 2, 3, 3)).astype(np.float32)
    med = MedianBatchNorm2d(2)
    flat = h.transpose(1, 0, 2, 3).reshape(2, -1)
    m = np.median(flat, axis=1)  # odd count: torch's lower median is the median
    v = np.median((flat - m[:, None]) ** 2, axis=1)
    want = (h - m[None, :, None, None]) / np.sqrt(v[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(med(torch.tensor(h)).detach().numpy(), want, rtol=1e-5, atol=1e-5)
    poisoned = h.copy()
    poisoned[-1] = 50.0
    shift_med = np.abs(med(torch.tensor(poisoned))[:-1].detach().numpy() - want[:-1]).max()
    bn = torch.nn.BatchNorm2d(2).train()
    shift_bn = np.abs(
        bn(torch.tensor(poisoned))[:-1].detach().numpy() - bn(torch.tensor(h))[:-1].detach().numpy()
    )
    assert shift_med < 0.5 * shift_bn.max()


def test_with_median_bn_keeps_affine_and_refuses_models_without_bn():
    src = tiny_cnn()
    med = with_median_bn(src)
    layers = [m for m in med.modules() if isinstance(m, MedianBatchNorm2d)]
    assert len(layers) == 2 and torch.equal(layers[0].weight, src[1].weight)
    assert len(norm_params(med)) == 4
    with pytest.raises(ValueError, match="no BatchNorm"):
        check_bn_model(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(4, 2)))
    with pytest.raises(ValueError, match="method"):
        Adapter("bn-adapt", src)
