"""Empirical NTK K_t(x, x') = <grad_theta f(x; theta_t), grad_theta f(x'; theta_t)> via torch.func.

The per-sample Jacobian is ``vmap(jacrev(f))`` over the inputs, one block per parameter tensor; the Gram
matrix is the sum over blocks of J_a J_b^T (memory O(n P) for P parameters). ``flat_params`` /
``param_distance`` give ||theta_t - theta_0||_2 over all parameters.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from paperkit import check_array, check_instance
from torch import nn
from torch.func import functional_call, jacrev, vmap

__all__ = ["empirical_ntk", "jacobian", "param_distance"]


def jacobian(
    model: nn.Module, X: torch.Tensor, params: Mapping[str, torch.Tensor] | None = None
) -> dict[str, torch.Tensor]:
    """Per-sample Jacobian blocks ``{name: (n, *param.shape)}`` of the scalar output at ``params``."""
    check_instance(model, "model", nn.Module)
    check_array(X, "X", ndim=2)
    p = {k: v.detach() for k, v in (params or dict(model.named_parameters())).items()}

    def f_single(theta: Mapping[str, torch.Tensor], x: torch.Tensor) -> torch.Tensor:
        return functional_call(model, dict(theta), (x.unsqueeze(0),)).squeeze(0)

    out: dict[str, torch.Tensor] = vmap(jacrev(f_single), in_dims=(None, 0))(p, X)
    return out


def empirical_ntk(
    model: nn.Module,
    X: torch.Tensor,
    X2: torch.Tensor | None = None,
    *,
    params: Mapping[str, torch.Tensor] | None = None,
) -> torch.Tensor:
    """``(n, n2)`` empirical NTK Gram matrix of ``model`` (at ``params``, default its own) on X x X2."""
    ja = jacobian(model, X, params)
    jb = ja if X2 is None else jacobian(model, X2, params)
    n, n2 = X.shape[0], (X if X2 is None else X2).shape[0]
    gram = torch.zeros(n, n2, dtype=X.dtype, device=X.device)
    for name, block in ja.items():  # a handful of parameter tensors, not samples
        gram = gram + block.reshape(n, -1) @ jb[name].reshape(n2, -1).T
    return gram


def param_distance(a: Mapping[str, torch.Tensor], b: Mapping[str, torch.Tensor]) -> float:
    """||a - b||_2 over all parameter tensors (same names)."""
    sq = sum(float(((a[k] - b[k]) ** 2).sum()) for k in a)
    return float(sq**0.5)
