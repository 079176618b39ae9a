"""The network and its gradient features: autograd, torch.func and finite differences agree."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from bandit_neural.nets import MLP, flat_grad, values_and_grads
from shared_testing import assert_gradient


def assert_close(a, b, rtol: float = 1e-7, atol: float = 1e-7) -> None:
    """torch.testing.assert_close without its ~2 s first-call import cost."""
    np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy(), rtol=rtol, atol=atol)


def _unit_rows(k: int, d: int, gen: torch.Generator, device: str) -> torch.Tensor:
    x = torch.randn(k, d, generator=gen, dtype=torch.float64).to(device)
    return x / x.norm(dim=1, keepdim=True)


def _trained(model: MLP, gen: torch.Generator) -> MLP:
    # Move θ away from the symmetric θ_0 so that every layer's gradient is non-trivial.
    with torch.no_grad():
        for w in model.weights:
            w.add_(0.3 * torch.randn(w.shape, generator=gen, dtype=w.dtype).to(w.device) / w.shape[1] ** 0.5)
    return model


@pytest.mark.parametrize("depth", [2, 3])
def test_symmetric_init_gives_zero_output_and_right_parameter_count(depth, device):
    model = MLP(5, 32, depth, generator=torch.Generator().manual_seed(1), device=device)
    asym = MLP(5, 32, depth, symmetric=False, generator=torch.Generator().manual_seed(1), device=device)
    x = _unit_rows(50, 5, torch.Generator().manual_seed(2), device)
    with torch.no_grad():
        assert float(model(x).abs().max()) < 1e-13  # exactly 0 up to the summation order of ±w·a
        assert float(asym(x).abs().max()) > 1e-3
    assert model.num_params == 32 * 5 + (depth - 2) * 32 * 32 + 32
    assert model.flat_params().shape == (model.num_params,)


def test_init_scale_gives_order_one_tangent_features(device):
    # ‖g(x; θ_0)‖²/m = O(1) is what the (1/m)-scaled Gram matrix of the paper assumes.
    gen = torch.Generator().manual_seed(0)
    x = _unit_rows(200, 5, gen, device)
    for m in (32, 256):
        g = flat_grad(MLP(5, m, generator=torch.Generator().manual_seed(3), device=device), x)
        per_m = float((g.norm(dim=1) ** 2 / m).mean())
        assert 1.0 < per_m < 3.0, (m, per_m)


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_batched_gradients_equal_autograd_row_by_row(depth, device):
    gen = torch.Generator().manual_seed(depth)
    model = _trained(MLP(4, 16, depth, generator=gen, device=device), gen)
    x = _unit_rows(7, 4, gen, device)
    h, g = values_and_grads(model, x)
    assert torch.allclose(h, model(x), atol=1e-12)
    for k in range(len(x)):
        model.zero_grad()
        model(x[k]).backward()
        ref = torch.cat([w.grad.reshape(-1) for w in model.weights])
        assert_close(g[k], ref, rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # the first torch.func call imports ~4 s of torch._dynamo
def test_batched_gradients_equal_torch_func_vmap(device):
    gen = torch.Generator().manual_seed(5)
    model = _trained(MLP(5, 24, 3, generator=gen, device=device), gen)
    x = _unit_rows(10, 5, gen, device)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def h(p: dict, xi: torch.Tensor) -> torch.Tensor:
        return torch.func.functional_call(model, p, (xi,))

    per = torch.func.vmap(torch.func.grad(h), in_dims=(None, 0))(params, x)
    ref = torch.cat([per[k].reshape(len(x), -1) for k, _ in model.named_parameters()], dim=1)
    assert_close(flat_grad(model, x), ref, rtol=1e-12, atol=1e-12)


def test_gradient_matches_finite_differences():
    gen = torch.Generator().manual_seed(9)
    model = _trained(MLP(3, 8, 3, generator=gen), gen)
    x = _unit_rows(1, 3, gen, "cpu")
    theta = model.flat_params().numpy()
    shapes = [w.shape for w in model.weights]

    def f(flat: np.ndarray) -> float:
        torch.nn.utils.vector_to_parameters(torch.from_numpy(flat.copy()), model.parameters())
        with torch.no_grad():
            return float(model(x)[0])

    grad = flat_grad(model, x)[0].numpy()
    assert_gradient(f, grad, theta, eps=1e-6, rtol=1e-5, atol=1e-7)
    assert [tuple(w.shape) for w in model.weights] == [tuple(s) for s in shapes]


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"width": 15}, ValueError, "even"),
        ({"width": 1, "symmetric": False}, ValueError, "width m"),
        ({"depth": 1}, ValueError, "depth"),
        ({"width": 16.0}, TypeError, "width must be an int"),
    ],
)
def test_bad_network_shapes_are_refused(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        MLP(5, **kwargs)
