"""The utility network h(x; θ) and its gradient (neural-tangent) features g(x; θ) = ∇_θ h(x; θ).

NeuralUCB conventions (Zhou et al., 2020), which the paper follows: a bias-free ReLU network of depth L
(L weight matrices) and width m,

    h(x; θ) = √m · W_L σ(W_{L−1} σ(… σ(W_1 x))),   W_1 ∈ R^{m×d}, W_l ∈ R^{m×m}, W_L ∈ R^{1×m},

with the symmetric initialisation θ_0 that makes h(·; θ_0) ≡ 0: the hidden units come in two identical
halves (W_1 = [W; W], hidden W_l = diag(W, W)) and the output weights are W_L = [w, −w]. Variances are
chosen so that hidden activations have O(1) norm and ‖g(x; θ_0)‖² / m = O(1) for ‖x‖ = 1, which is what
the (1/m)-scaled Gram matrix of the paper assumes.
"""

from __future__ import annotations

import math

import torch
from paperkit import DeviceError, resolve_device
from paperkit.validation import check_int
from torch import nn


def torch_device(device: str | torch.device) -> torch.device:
    """``device`` as a ``torch.device``, refused in one sentence (``paperkit.DeviceError``, a ValueError)
    when it is not cpu / cuda / cuda:N or when CUDA is asked for and no GPU is visible, instead of torch's
    driver error at the first tensor."""
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"device must be a str or torch.device, got {type(device).__name__}")
    try:
        return torch.device(resolve_device(str(device)))
    except DeviceError as e:
        raise DeviceError(f"device {str(device)!r} is not available: {e}") from None


def _check_width_depth(d: int, width: int, depth: int, symmetric: bool) -> None:
    check_int(d, "d", low=1)
    check_int(width, "width")
    check_int(depth, "depth (number of weight layers L)", low=2)
    if width < 2 or (symmetric and width % 2):
        raise ValueError(f"width m must be an even integer >= 2 for the symmetric init, got {width}")


class MLP(nn.Module):
    """Bias-free ReLU network h(x; θ) = √m · W_L σ(… σ(W_1 x)) with NTK-style initialisation.

    Args:
        d: input dimension.
        width: m, the width of every hidden layer (even when ``symmetric``).
        depth: L, the number of weight matrices (2 = one hidden layer).
        symmetric: the paired initialisation giving h(x; θ_0) = 0 for every x (NeuralUCB's trick);
            ``False`` draws every weight independently with the same variances.
        generator: a CPU ``torch.Generator`` for the initial weights (drawn on the CPU so that the
            same seed gives the same network on every device).
        device, dtype: where the parameters live.

    Attributes:
        weights: ``nn.ParameterList`` [W_1 (m, d), W_2 (m, m), …, W_L (1, m)].
        num_params: p = m·d + (L−2)·m² + m.
    """

    def __init__(
        self,
        d: int,
        width: int = 64,
        depth: int = 2,
        *,
        symmetric: bool = True,
        generator: torch.Generator | None = None,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float64,
    ) -> None:
        super().__init__()
        _check_width_depth(d, width, depth, symmetric)
        device = torch_device(device)
        self.d, self.width, self.depth = d, width, depth
        m, half = width, width // 2
        gen = generator if generator is not None else torch.Generator().manual_seed(0)

        def normal(*shape: int, var: float) -> torch.Tensor:
            return torch.randn(*shape, generator=gen, dtype=torch.float64) * math.sqrt(var)

        mats: list[torch.Tensor] = []
        if symmetric:
            w1 = normal(half, d, var=2.0 / m)
            mats.append(torch.cat([w1, w1], dim=0))
            for _ in range(depth - 2):
                w = normal(half, half, var=4.0 / m)
                mats.append(torch.block_diag(w, w))
            w_out = normal(1, half, var=2.0 / m)
            mats.append(torch.cat([w_out, -w_out], dim=1))
        else:
            mats.append(normal(m, d, var=2.0 / m))
            mats.extend(normal(m, m, var=2.0 / m) for _ in range(depth - 2))
            mats.append(normal(1, m, var=1.0 / m))
        self.weights = nn.ParameterList(nn.Parameter(w.to(device=device, dtype=dtype)) for w in mats)
        self.scale = math.sqrt(m)
        self.num_params = sum(w.numel() for w in mats)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (..., d) → h(x; θ): (...)."""
        weights = list(self.weights)  # (slicing a ParameterList re-wraps tensors: torch.func would break)
        a = x
        for w in weights[:-1]:
            a = torch.relu(a @ w.T)
        return self.scale * (a @ weights[-1].T).squeeze(-1)

    def flat_params(self) -> torch.Tensor:
        """θ as one vector (p,), in the order of ``weights`` (row-major), detached."""
        return torch.cat([w.detach().reshape(-1) for w in self.weights])


def values_and_grads(model: MLP, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """h(x_k; θ) and the per-input gradient features g(x_k; θ) = ∇_θ h(x_k; θ), without a loop over inputs.

    A manual batched back-propagation through the bias-free ReLU network (the derivative of ReLU at 0 is
    taken as 0, as in autograd).

    Args:
        model: the network.
        x: (K, d) inputs.

    Returns:
        h: (K,) values; G: (K, p) gradients, columns in the order of ``model.flat_params()``.
    """
    weights = [w.detach() for w in model.weights]
    acts, masks = forward_activations(weights, x)
    a = acts[-1]
    k = x.shape[0]
    h = model.scale * (a @ weights[-1].T).squeeze(-1)
    grads: list[torch.Tensor] = [model.scale * a]  # ∂h/∂W_L: (K, m)
    delta = model.scale * weights[-1] * masks[-1]  # ∂h/∂z_{L−1}: (K, m)
    for layer in range(len(weights) - 2, -1, -1):
        grads.append((delta[:, :, None] * acts[layer][:, None, :]).reshape(k, -1))
        if layer > 0:
            delta = (delta @ weights[layer]) * masks[layer - 1]
    return h, torch.cat(grads[::-1], dim=1)


def flat_grad(model: MLP, x: torch.Tensor) -> torch.Tensor:
    """g(x_k; θ) for every row of x: (K, d) → (K, p). See :func:`values_and_grads`."""
    return values_and_grads(model, x)[1]


def forward_activations(
    weights: list[torch.Tensor], x: torch.Tensor
) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """Hidden activations [x, a_1, …, a_{L−1}] and ReLU masks [z_1 > 0, …] of the bias-free network."""
    acts, masks = [x], []
    for w in weights[:-1]:
        z = acts[-1] @ w.T
        masks.append(z > 0)
        acts.append(torch.relu(z))
    return acts, masks


def backprop_weighted_sum(
    weights: list[torch.Tensor],
    acts: list[torch.Tensor],
    masks: list[torch.Tensor],
    dh: torch.Tensor,
    scale: float,
) -> torch.Tensor:
    """∇_θ Σ_k dh_k · h(x_k; θ) as a flat (p,) vector (the chain rule of the loss through h)."""
    grads = [scale * (dh @ acts[-1])[None, :]]
    delta = scale * dh[:, None] * weights[-1] * masks[-1]
    for layer in range(len(weights) - 2, -1, -1):
        grads.append(delta.T @ acts[layer])
        if layer > 0:
            delta = (delta @ weights[layer]) * masks[layer - 1]
    return torch.cat([g.reshape(-1) for g in grads[::-1]])
