"""Unlearning: supermask mechanics, frozen base, neuron ablation, OBS Fisher inverse, by brute force."""

from __future__ import annotations

import copy
import math
import warnings

import pytest
import torch
from tinymem import (
    EmpiricalBlockFisherInverse,
    SupermaskProjection,
    ablate_neurons,
    activation_scores,
    balanced_subnet,
    balanced_subnet_loss,
    durable,
    durable_aggregate,
    get_subnet,
    greedy,
    hard_concrete_scores,
    integrated_gradients_scores,
    mlp_layers,
    second_order,
    slimming_scores,
    subnet,
    zero_out_scores,
)
from tinymem.metrics import token_losses
from tinymem.unlearn.common import suffix_loss
from transformers.pytorch_utils import Conv1D

pytestmark = pytest.mark.usefixtures("torch_one_thread")


@pytest.mark.parametrize("ratio", [0.0, 0.1, 0.37, 0.5])
def test_get_subnet_zeroes_the_smallest_scores(ratio):
    s = torch.randn(7, 11, generator=torch.Generator().manual_seed(0)).abs()
    m = get_subnet(s, ratio)
    j = int(ratio * s.numel())
    assert int((m == 0).sum()) == j
    if j:
        assert float(s[m == 0].max()) <= float(s[m == 1].min())
    if ratio == 0.0:
        assert torch.equal(m, torch.ones_like(s))


def test_get_subnet_is_straight_through():
    s = torch.randn(5, 6, requires_grad=True)
    g = torch.randn(5, 6)
    (get_subnet(s, 0.4) * g).sum().backward()
    assert torch.equal(s.grad, g)


@pytest.mark.parametrize("kind", ["conv1d", "linear"])
def test_supermask_projection_matches_a_masked_dense_layer(kind):
    torch.manual_seed(0)
    base = Conv1D(6, 4) if kind == "conv1d" else torch.nn.Linear(4, 6)
    sm = SupermaskProjection(copy.deepcopy(base), 0.25, torch.Generator().manual_seed(0))
    x = torch.randn(3, 5, 4)
    w = base.weight * sm.mask()
    ref = x @ w + base.bias if kind == "conv1d" else x @ w.T + base.bias
    assert torch.allclose(sm(x), ref, atol=1e-6)
    assert not sm.base.weight.requires_grad and sm.scores.requires_grad


def _mlp_weights(model):
    return [m.weight.detach().clone() for layer in mlp_layers(model) for m in (layer.fc, layer.proj)]


@pytest.mark.parametrize("method", ["subnet", "balanced_subnet"])
def test_subnet_only_zeroes_base_weights_at_the_ratio(method, tiny_model, small_data):
    d = small_data
    before = {n: p.detach().clone() for n, p in tiny_model.named_parameters()}
    ratio = 0.05
    if method == "subnet":
        out = subnet(tiny_model, d.noised[:6], ratio, epochs=2, seed=0)
    else:
        out = balanced_subnet(tiny_model, d.noised[:6], d.clean_train[:20], ratio, epochs=2, seed=0)
    for n, p in tiny_model.named_parameters():  # the input model is untouched
        assert torch.equal(p, before[n])
    for (n, p), (_, q) in zip(tiny_model.named_parameters(), out.named_parameters(), strict=True):
        changed = p != q
        if "mlp.c_fc.weight" in n or "mlp.c_proj.weight" in n:
            assert bool((q[changed] == 0).all()), "only zeroing"
            assert int((q == 0).sum()) - int((p == 0).sum()) == int(ratio * p.numel())
        else:
            assert not bool(changed.any()), f"{n} changed"


def test_merged_model_equals_the_masked_forward(tiny_model, small_data):
    from tinymem.unlearn.weight import attach_supermasks, merge_supermasks

    m = copy.deepcopy(tiny_model)
    wrapped = attach_supermasks(m, 0.1, seed=3)
    x = small_data.test[7][:4]
    with torch.no_grad():
        masked = m(input_ids=x).logits
    merge_supermasks(wrapped)
    with torch.no_grad():
        merged = m(input_ids=x).logits
    assert torch.allclose(masked, merged, atol=1e-5)
    assert all(not isinstance(mod, SupermaskProjection) for mod in m.modules())


def test_balanced_subnet_loss_limits():
    lm, lc = torch.tensor([1.0, 3.0]), torch.tensor([0.5, 0.5, 2.0])
    assert float(balanced_subnet_loss(lm, lc, 0.0)) == pytest.approx(-2.0)  # Subnet's loss −L̄_mem
    assert float(balanced_subnet_loss(lm, lc, 1.0)) == pytest.approx(1.0)  # only the clean loss
    assert float(balanced_subnet_loss(lm, lc, 0.05)) == pytest.approx(-0.95 * 2.0 + 0.05 * 1.0)


def test_balanced_subnet_with_alpha_one_only_lowers_clean_loss(tiny_model, small_data):
    d = small_data
    clean = d.clean_train[:32]
    out = balanced_subnet(tiny_model, d.noised[:4], clean, 0.05, alpha=1.0, epochs=3, seed=0)
    with torch.no_grad():
        before = float(token_losses(tiny_model, clean).mean())
        after = float(token_losses(out, clean).mean())
    # α = 1 ignores the memorised set: the learned mask only serves the clean loss; a random mask
    # of the same ratio does no better on average.
    rand = subnet(tiny_model, d.noised[:4], 0.05, epochs=1, lr=0.0, seed=0)  # lr 0: the initial random mask
    with torch.no_grad():
        rand_loss = float(token_losses(rand, clean).mean())
    assert after <= rand_loss + 1e-6 and math.isfinite(before)


def test_empty_memorised_set_returns_the_model_unchanged(tiny_model, small_data):
    empty = small_data.noised[:0]
    for out in (
        subnet(tiny_model, empty, 0.1),
        balanced_subnet(tiny_model, empty, small_data.clean_train[:8], 0.1),
        durable(tiny_model, empty, 0.1),
        second_order(tiny_model, empty, 0.1),
        greedy(tiny_model, empty, small_data.clean_train[:8], 0.1),
    ):
        for p, q in zip(tiny_model.parameters(), out.parameters(), strict=True):
            assert torch.equal(p, q)


@pytest.mark.parametrize("ratio", [0.1, 0.25])
def test_neuron_ablation_zeroes_exactly_the_top_neurons(tiny_model, ratio):
    layers = mlp_layers(tiny_model)
    g = torch.Generator().manual_seed(0)
    scores = [torch.randn(layer.inner_dim, generator=g) for layer in layers]
    out = ablate_neurons(tiny_model, scores, ratio)
    for layer, new, s in zip(layers, mlp_layers(out), scores, strict=True):
        n = int(layer.inner_dim * ratio)
        top = set(torch.topk(s, n).indices.tolist())
        zero_cols = {
            j
            for j in range(layer.inner_dim)
            if bool((new.fc.weight[:, j] == 0).all()) and new.fc.bias[j] == 0
        }
        assert zero_cols == top
        keep = [j for j in range(layer.inner_dim) if j not in top]
        assert torch.equal(new.fc.weight[:, keep], layer.fc.weight[:, keep])
        assert torch.equal(new.proj.weight, layer.proj.weight)


def test_zero_out_scores_match_brute_force_ablation(tiny_model, small_data):
    mem = small_data.noised[:5]
    scores = zero_out_scores(tiny_model, mem, 20, 20, chunk=7)
    with torch.no_grad():
        base = float(suffix_loss(tiny_model, mem, 20, 20))
    layer = mlp_layers(tiny_model)[1]
    for j in (0, 5, 31):
        m = copy.deepcopy(tiny_model)
        with torch.no_grad():
            mlp_layers(m)[1].fc.weight[:, j] = 0
            mlp_layers(m)[1].fc.bias[j] = 0
            want = float(suffix_loss(m, mem, 20, 20)) - base
        assert scores[1][j] == pytest.approx(want, abs=1e-5)
    assert scores[0].shape == (layer.inner_dim,)


def test_activation_and_learned_scores_have_one_vector_per_layer(tiny_model, small_data):
    mem = small_data.noised[:4]
    for s in (
        activation_scores(tiny_model, mem, 20),
        slimming_scores(tiny_model, mem, 20, 20, epochs=3),
        hard_concrete_scores(tiny_model, mem, 20, 20, epochs=3),
        integrated_gradients_scores(tiny_model, mem, 20, 20, steps=4),
    ):
        assert [v.shape for v in s] == [(layer.inner_dim,) for layer in mlp_layers(tiny_model)]
        assert all(bool(torch.isfinite(v).all()) for v in s)


def test_integrated_gradients_completeness(tiny_model, small_data):
    """IG with many steps sums to f(activation) − f(0) (the completeness axiom) for one layer."""
    mem = small_data.noised[:3]
    from tinymem.unlearn.neuron import integrated_gradients_attributions

    ig = integrated_gradients_attributions(tiny_model, mem, 20, 20, 0, steps=150)
    layer = mlp_layers(tiny_model)[0]
    with torch.no_grad():
        f1 = -float(suffix_loss(tiny_model, mem, 20, 20))
        h = layer.act.register_forward_hook(lambda _m, _i, o: o * 0)
        f0 = -float(suffix_loss(tiny_model, mem, 20, 20))
        h.remove()
    assert float(ig.sum()) == pytest.approx(f1 - f0, rel=0.03, abs=1e-3)


def test_fisher_inverse_matches_the_dense_inverse():
    g = torch.Generator().manual_seed(0)
    d, block, m, damp = 7, 3, 5, 1e-2
    grads = torch.randn(m, d, generator=g, dtype=torch.float64)
    fi = EmpiricalBlockFisherInverse(m, block, d, damp, torch.device("cpu"))
    for x in grads:
        fi.add_grad(x)
    v = torch.randn(d, generator=g, dtype=torch.float64)
    out_diag, out_mul = [], []
    for s in range(0, d, block):
        gb = grads[:, s : s + block]
        F = damp * torch.eye(gb.shape[1], dtype=torch.float64) + gb.T @ gb / m
        Finv = torch.linalg.inv(F)
        out_diag.append(torch.diagonal(Finv))
        out_mul.append(Finv @ v[s : s + block])
    assert torch.allclose(fi.diag(), torch.cat(out_diag), rtol=1e-8)
    assert torch.allclose(fi.mul(v), torch.cat(out_mul), rtol=1e-8)


def test_durable_zeroes_the_largest_gradients(tiny_model, small_data):
    mem = small_data.noised[:6]
    m = copy.deepcopy(tiny_model)
    m.zero_grad()
    token_losses(m, mem).mean().backward()
    w = mlp_layers(m)[0].fc.weight
    n = int(0.1 * w.numel())
    top = set(torch.topk(w.grad.abs().flatten(), n).indices.tolist())
    out = durable(tiny_model, mem, 0.1)
    new = mlp_layers(out)[0].fc.weight.flatten()
    zeroed = {i for i in range(new.numel()) if new[i] == 0 and w.flatten()[i] != 0}
    assert zeroed == top
    agg = durable_aggregate(tiny_model, mem, 0.1)
    n_mlp = sum(p.numel() for layer in mlp_layers(tiny_model) for p in (layer.fc.weight, layer.proj.weight))
    zeros = sum(
        int((p == 0).sum()) for layer in mlp_layers(agg) for p in (layer.fc.weight, layer.proj.weight)
    )
    assert 0 < zeros <= n_mlp


def test_greedy_zeroes_one_weight_a_step(tiny_model, small_data):
    d = small_data
    n_mlp = sum(m.weight.numel() for layer in mlp_layers(tiny_model) for m in (layer.fc, layer.proj))
    ratio = 3.5 / n_mlp  # int(ratio * n) == 3 steps
    out = greedy(tiny_model, d.noised[:4], d.clean_train[:8], ratio, seed=0)
    diff = sum(int((a != b).sum()) for a, b in zip(_mlp_weights(tiny_model), _mlp_weights(out), strict=True))
    assert diff == 3
    assert all(
        bool((b[a != b] == 0).all()) for a, b in zip(_mlp_weights(tiny_model), _mlp_weights(out), strict=True)
    )


def test_second_order_zeroes_the_ratio_per_tensor(tiny_model, small_data):
    out = second_order(tiny_model, small_data.noised[:5], 0.05)
    for a, b in zip(_mlp_weights(tiny_model), _mlp_weights(out), strict=True):
        assert int((a != b).sum()) == int(0.05 * a.numel())


@pytest.mark.parametrize("ratio", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_ratios_outside_the_open_unit_interval_are_rejected(tiny_model, small_data, ratio):
    d = small_data
    with pytest.raises(ValueError, match=r"ratio must be a finite number in \(0, 1\)"):
        subnet(tiny_model, d.noised[:2], ratio)
    with pytest.raises(ValueError, match=r"ratio must be a finite number in \(0, 1\)"):
        balanced_subnet(tiny_model, d.noised[:2], d.clean_train[:2], ratio)
    with pytest.raises(ValueError, match=r"ratio must be a finite number in \(0, 1\)"):
        ablate_neurons(tiny_model, [torch.zeros(64), torch.zeros(64)], ratio)
    with pytest.raises(ValueError, match=r"ratio must be a finite number in \(0, 1\)"):
        durable(tiny_model, d.noised[:2], ratio)


def test_tiny_ratio_warns_that_nothing_is_removed(tiny_model, small_data):
    with pytest.warns(RuntimeWarning, match="nothing is removed"):
        ablate_neurons(tiny_model, [torch.zeros(64), torch.zeros(64)], 1e-4)


def test_models_without_mlp_layers_are_rejected(small_data):
    class NoMLP(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)

    with pytest.raises(ValueError, match=r"expected modules named transformer\.h\.<i>\.mlp"):
        subnet(NoMLP(), small_data.noised[:2], 0.1)
    with pytest.raises(ValueError, match="cannot find the MLP layers"):
        ablate_neurons(NoMLP(), [torch.zeros(3)], 0.1)
    with pytest.raises(TypeError, match="model must be a Module, got str"):
        mlp_layers("gpt2")  # type: ignore[arg-type]


def test_duplicate_memorised_rows_are_deduplicated(tiny_model, small_data):
    from tinymem.unlearn.common import check_rows

    x = small_data.noised[:3]
    assert torch.equal(check_rows(torch.cat([x, x[:1], x]), "mem"), x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_rows(x[:0], "mem")


def test_label_loss_is_the_older_official_form():
    from tinymem.unlearn.weight import balanced_subnet_loss_label

    losses, labels = torch.tensor([1.0, 3.0, 0.5]), torch.tensor([1.0, 1.0, -1.0])
    # mean_i(−B · label_i · L_i) with B = 64: (−64·1 − 64·3 + 64·0.5) / 3
    assert float(balanced_subnet_loss_label(losses, labels, 64)) == pytest.approx((-64 - 192 + 32) / 3)


def test_balanced_subnet_loss_versions_differ_and_bad_version_is_refused(tiny_model, small_data):
    d = small_data
    a = balanced_subnet(tiny_model, d.noised[:4], d.clean_train[:16], 0.05, epochs=1, seed=0)
    b = balanced_subnet(
        tiny_model, d.noised[:4], d.clean_train[:16], 0.05, epochs=1, seed=0, loss_version="label"
    )
    pa = torch.cat([p.flatten() for p in a.parameters()])
    pb = torch.cat([p.flatten() for p in b.parameters()])
    assert not torch.equal(pa, pb)
    with pytest.raises(ValueError, match="loss_version must be 'alpha' or 'label'"):
        balanced_subnet(tiny_model, d.noised[:4], d.clean_train[:16], 0.05, loss_version="beta")


@pytest.mark.parametrize("ratio", [1.5, -0.1, float("nan")])
def test_get_subnet_refuses_ratios_outside_0_1(ratio):
    with pytest.raises(ValueError, match=r"ratio must be a finite number in \[0, 1\]"):
        get_subnet(torch.rand(10), ratio)
    with pytest.raises(TypeError, match=r"scores must be a torch\.Tensor"):
        get_subnet([0.1, 0.2], 0.5)  # type: ignore[arg-type]
