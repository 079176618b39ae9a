"""The stacked trainer: many models as one equal the models trained alone (to float rounding)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from attention_hypernet.logic import FuzzyLogic
from attention_hypernet.methods import run_method, run_methods
from attention_hypernet.sraven import SRaven
from attention_hypernet.stacked import StackedTransformer
from attention_hypernet.training import TrainConfig, build_model, train, train_stacked

CFG = TrainConfig(d_model=16, n_layers=2, n_heads=4, d_qk=8, d_v=8, d_mlp=16, steps=4, batch_size=8, warmup=1)
MIXERS = ("softmax", "hyla", "hyla", "linear", "linear_rms_head", "hyla_no_rms_head")


def _models(task=None):
    task = task or FuzzyLogic(num_vars=3)
    return [build_model(task, CFG, m, seed=i % 2) for i, m in enumerate(MIXERS)]


def test_stacked_forward_equals_each_model():
    models = _models()
    for m in models:  # nonzero biases and LayerNorm affines, so every parameter enters the comparison
        with torch.no_grad():
            for p in m.parameters():
                p.add_(0.1 * torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())))
    x = torch.rand(len(models), 5, 9, 4)
    out = StackedTransformer(models)(x)
    for i, m in enumerate(models):
        want = m(x[i])
        assert (out[i] - want).abs().max() <= 1e-5 * want.abs().max().clamp(min=1)


def _params_equal_but_softmax_key_bias(a, b, mixer):
    for (name, p), q in zip(a.named_parameters(), b.parameters(), strict=True):
        if mixer == "softmax" and name.endswith("attn.key.bias"):
            # softmax over keys ignores q . b_k (constant over k): its gradient is 0 in exact arithmetic,
            # rounding noise in float32, which Adam scales to lr-sized steps; the outputs stay equal
            continue
        assert (p - q).abs().max() <= 1e-5, (mixer, name)


@pytest.mark.parametrize("task", [FuzzyLogic(num_vars=3), SRaven(num_features=2)], ids=["logic", "sraven"])
def test_train_stacked_equals_separate_training(task):
    tasks = [
        task if isinstance(task, SRaven) else FuzzyLogic(num_vars=3, seed=i % 2) for i in range(len(MIXERS))
    ]
    seeds = [i % 2 for i in range(len(MIXERS))]
    single = [build_model(t, CFG, m, seed=s) for t, m, s in zip(tasks, MIXERS, seeds, strict=True)]
    stacked = [copy.deepcopy(m) for m in single]
    want = np.stack([train(m, t, CFG, seed=s) for m, t, s in zip(single, tasks, seeds, strict=True)])
    got = train_stacked(stacked, tasks, CFG, seeds=seeds)
    assert got.shape == (len(MIXERS), CFG.steps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    x = torch.rand(3, 9, single[0].embed.in_features)
    for a, b, mixer in zip(single, stacked, MIXERS, strict=True):
        _params_equal_but_softmax_key_bias(a, b, mixer)
        assert (a(x) - b(x)).abs().max() <= 1e-4


def test_run_methods_equals_run_method():
    task = FuzzyLogic(num_vars=3, seed=1)
    jobs = [("hyla", task, 1), ("linear", FuzzyLogic(num_vars=3, seed=2), 2)]
    got = run_methods(jobs, CFG, eval_n=16)
    for (name, t, s), run in zip(jobs, got, strict=True):
        ref = run_method(name, t, CFG, seed=s, eval_n=16)
        np.testing.assert_allclose(run.losses, ref.losses, rtol=1e-5, atol=1e-6)
        for split in ("train", "test", "ood"):
            assert run.metrics[split]["r2"] == pytest.approx(ref.metrics[split]["r2"], abs=1e-4)
        assert run.probe_r2_init == ref.probe_r2_init
        assert run.probe_r2 == pytest.approx(ref.probe_r2, abs=1e-4)


def test_stacked_bad_input():
    models = _models()
    with pytest.raises(ValueError, match="models must be a non-empty"):
        StackedTransformer([])
    with pytest.raises(TypeError, match=r"models\[1\]"):
        StackedTransformer([models[0], "model"])
    other = build_model(FuzzyLogic(num_vars=4), CFG, "hyla", seed=0)
    with pytest.raises(ValueError, match=r"models\[1\] has other parameter"):
        StackedTransformer([models[0], other])
    with pytest.raises(ValueError, match="x must be"):
        StackedTransformer(models[:2])(torch.rand(3, 2, 9, 4))
    with pytest.raises(ValueError, match="one length"):
        train_stacked(models[:2], [FuzzyLogic(num_vars=3)], CFG, seeds=[0, 1])
    with pytest.raises(ValueError, match="seeds must be a non-empty"):
        train_stacked(models[:1], [FuzzyLogic(num_vars=3)], CFG, seeds=[])
    with pytest.raises(ValueError, match="jobs must be"):
        run_methods([], CFG)
    with pytest.raises(ValueError, match=r"jobs\[0\] name"):
        run_methods([("lstm", FuzzyLogic(), 0)], CFG)
    with pytest.raises(TypeError, match=r"jobs\[0\] must be"):
        run_methods(["hyla"], CFG)
