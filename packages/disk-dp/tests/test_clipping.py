"""Per-sample gradients against a loop of single-example autograd, clipping invariants, refused models."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from disk_dp.clipping import check_dp_compatible, clip_flat, per_sample_grads
from disk_dp.models import mlp
from disk_dp.training import cross_entropy
from torch import nn

pytestmark = pytest.mark.usefixtures("torch_one_thread")


class Tied(nn.Module):
    """An autoencoder-like model whose decoder reuses the encoder weight (tied), plus a frozen bias."""

    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Linear(5, 3, bias=False)
        self.scale = nn.Parameter(torch.tensor(1.5), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.enc(x)) @ self.enc.weight * self.scale


def _loop_grads(model, loss_fn, x, y):
    params = {n: p for n, p in model.named_parameters() if p.requires_grad}
    out = {n: [] for n in params}
    for i in range(x.shape[0]):
        loss = loss_fn(model(x[i : i + 1]), y[i : i + 1])
        gs = torch.autograd.grad(loss, list(params.values()))
        for n, g in zip(params, gs, strict=True):
            out[n].append(g)
    return {n: torch.stack(v) for n, v in out.items()}


def test_per_sample_grads_equal_a_loop_of_single_example_grads(device):
    torch.manual_seed(0)
    model = mlp(8, 6, 3, seed=1, device=device).double()
    x = torch.randn(7, 8, dtype=torch.float64, device=device)
    y = torch.randint(0, 3, (7,), device=device)
    ours = per_sample_grads(model, cross_entropy, x, y)
    ref = _loop_grads(model, cross_entropy, x, y)
    assert set(ours) == set(ref) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    for n in ref:
        assert ours[n].shape == (7, *dict(model.named_parameters())[n].shape)
        torch.testing.assert_close(ours[n], ref[n], rtol=1e-12, atol=1e-14)


def test_tied_and_frozen_parameters(device):
    torch.manual_seed(0)
    model = Tied().double().to(device)
    x = torch.randn(4, 5, dtype=torch.float64, device=device)

    def mse(out, target):
        return ((out - target) ** 2).sum()

    ours = per_sample_grads(model, mse, x, x)
    assert set(ours) == {"enc.weight"}  # frozen scale excluded; tied weight appears once
    torch.testing.assert_close(
        ours["enc.weight"], _loop_grads(model, mse, x, x)["enc.weight"], rtol=1e-12, atol=0
    )


def test_loss_reduction_does_not_rescale(device):
    # one example at a time: mean- and sum-reduced cross-entropy give identical per-sample gradients
    model = mlp(4, 5, 3, seed=0, device=device).double()
    x = torch.randn(6, 4, dtype=torch.float64, device=device)
    y = torch.randint(0, 3, (6,), device=device)
    a = per_sample_grads(model, cross_entropy, x, y)
    b = per_sample_grads(model, lambda o, t: F.cross_entropy(o, t), x, y)
    for n in a:
        torch.testing.assert_close(a[n], b[n], rtol=0, atol=0)


def test_empty_batch_gives_empty_gradients(device):
    model = mlp(4, 5, 3, seed=0, device=device)
    g = per_sample_grads(
        model,
        cross_entropy,
        torch.zeros(0, 4, device=device),
        torch.zeros(0, dtype=torch.long, device=device),
    )
    assert g["0.weight"].shape == (0, 5, 4)


def test_clipping_bounds_norms_and_keeps_small_vectors(device):
    gen = torch.Generator(device=device).manual_seed(0)
    grads = {
        "a": torch.randn(50, 3, 4, generator=gen, device=device, dtype=torch.float64),
        "b": torch.randn(50, 5, generator=gen, device=device, dtype=torch.float64),
    }
    grads["a"][:10] *= 0.01
    grads["b"][:10] *= 0.01
    clipped, norms = clip_flat(grads, 1.0)
    flat = torch.cat([g.reshape(50, -1) for g in grads.values()], 1)
    torch.testing.assert_close(norms, flat.norm(dim=1))
    new = torch.cat([g.reshape(50, -1) for g in clipped.values()], 1).norm(dim=1)
    assert torch.all(new <= 1.0 + 1e-6)
    small = norms < 1.0
    assert small.sum() >= 10
    for n in grads:
        assert torch.equal(clipped[n][small], grads[n][small])
    big = ~small
    torch.testing.assert_close(new[big], torch.ones_like(new[big]))
    # direction preserved
    torch.testing.assert_close(clipped["b"][big] * norms[big, None], grads["b"][big], rtol=1e-12, atol=1e-12)


def test_batchnorm_is_refused():
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    with pytest.raises(ValueError, match=r"BatchNorm1d.*GroupNorm"):
        check_dp_compatible(model)


def test_model_that_vmap_cannot_handle_is_a_clear_error():
    class Itemy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(3, 2)

        def forward(self, x):
            return self.lin(x) * float(x.sum().item() > 0)

    x, y = torch.randn(4, 3), torch.tensor([0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"per-sample gradients with torch.func.vmap failed for Itemy"):
        per_sample_grads(Itemy(), cross_entropy, x, y)


def test_bad_inputs():
    with pytest.raises(TypeError, match=r"must be a torch.nn.Module"):
        check_dp_compatible("not a model")  # type: ignore[arg-type]
    frozen = nn.Linear(2, 2).requires_grad_(False)
    with pytest.raises(ValueError, match="no trainable parameter"):
        check_dp_compatible(frozen)
    model = mlp(3, 4, 2)
    with pytest.raises(ValueError, match="inputs have 3 examples but targets have 2"):
        per_sample_grads(model, cross_entropy, torch.zeros(3, 3), torch.zeros(2, dtype=torch.long))
    with pytest.raises(ValueError, match="max_grad_norm must be a number > 0"):
        clip_flat({"a": torch.ones(2, 2)}, 0.0)


def test_clipped_mean_matches_opacus():
    """Independent implementation: Opacus' hook-based per-sample clipping, sigma = 0, same model and batch."""
    pytest.importorskip("opacus")
    import warnings

    from disk_dp.optim import make_dp_sgd
    from opacus import GradSampleModule
    from opacus.optimizers import DPOptimizer as OpacusDPOptimizer

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(16, 6, generator=gen) * 3
    y = torch.randint(0, 3, (16,), generator=gen)
    ours_model = mlp(6, 5, 3, seed=0)
    ours = make_dp_sgd(ours_model, 0.1, noise_multiplier=0.0, max_grad_norm=0.5, expected_batch_size=20)
    mine = ours.privatize(per_sample_grads(ours_model, cross_entropy, x, y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer_model = GradSampleModule(mlp(6, 5, 3, seed=0))
        peer = OpacusDPOptimizer(
            torch.optim.SGD(peer_model.parameters(), lr=0.1),
            noise_multiplier=0.0,
            max_grad_norm=0.5,
            expected_batch_size=20,
        )
        F.cross_entropy(peer_model(x), y).backward()
        peer.pre_step()
    for name, p in peer_model._module.named_parameters():
        torch.testing.assert_close(mine[name], p.grad, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("summed", [False, True])
@pytest.mark.parametrize("method", ["auto", "vmap"])
def test_both_paths_equal_the_loop_on_chains_with_sequence_inputs(device, method, summed):
    """The closed-form chain path (Linear + element-wise) and the vmap path agree with the loop, also for
    (B, T, d) inputs where a Linear's per-sample gradient sums outer products over T."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2, bias=False)).to(device).double()
    x = torch.randn(6, 3, 4, dtype=torch.float64, device=device)
    y = torch.randn(6, 3, 2, dtype=torch.float64, device=device)

    def mse_sum(out, target):
        return ((out - target) ** 2).sum()

    ours = per_sample_grads(model, mse_sum, x, y, method=method, summed=summed)
    ref = _loop_grads(model, mse_sum, x, y)
    for n in ref:
        torch.testing.assert_close(ours[n], ref[n], rtol=1e-12, atol=1e-13)


def test_chain_detection():
    from disk_dp.clipping import linear_chain

    assert linear_chain(mlp(3, 4, 2)) is not None and linear_chain(nn.Linear(3, 2)) is not None
    assert linear_chain(Tied()) is None  # a custom forward takes the vmap path
    frozen = mlp(3, 4, 2)
    frozen[0].bias.requires_grad_(False)
    assert linear_chain(frozen) is None
    assert linear_chain(nn.Sequential(nn.Linear(3, 3), nn.LayerNorm(3))) is None
    with pytest.raises(ValueError, match="method must be 'auto' or 'vmap'"):
        per_sample_grads(
            mlp(3, 4, 2), cross_entropy, torch.zeros(1, 3), torch.zeros(1, dtype=torch.long), method="x"
        )
