"""Adaptive LIF neurons (Yin et al. 2021, as in the official code) and their surrogate gradient.

Discrete time, dt = 1, R_m = 1. With alpha = exp(-1/tau_m), rho = exp(-1/tau_adp):

    b_t     = rho * b_{t-1} + (1 - rho) * s_{t-1}
    theta_t = b0 + beta_a * b_t
    u_t     = alpha * u_{t-1} + (1 - alpha) * I_t - theta_t * s_{t-1}
    s_t     = H(u_t - theta_t)

and the surrogate ds/du = gamma * N(u - theta; 0, sigma^2) (official: lens = sigma = 0.5, gamma = 0.5).
"""

from __future__ import annotations

import math
from typing import Any

import torch
from paperkit.validation import check_int, check_number
from torch import nn

BETA_A = 1.8  # official mem_update_adp: beta = 1.8 (adaptive)
SIGMA = 0.5  # official "lens"
GAMMA = 0.5  # official "gamma": gradient scale
TAU_MIN = 1.0  # clamp of tau_m, tau_adp (spec: tau >= dt keeps alpha, rho in (0, 1))


class _SpikeFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, sigma: float, gamma: float) -> torch.Tensor:
        ctx.save_for_backward(x)
        ctx.sigma, ctx.gamma = sigma, gamma
        return (x > 0).to(x.dtype)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        (x,) = ctx.saved_tensors
        s = ctx.sigma
        dens = torch.exp(-(x * x) / (2 * s * s)) / (math.sqrt(2 * math.pi) * s)
        return grad * dens * ctx.gamma, None, None


def spike_fn(x: torch.Tensor, sigma: float = SIGMA, gamma: float = GAMMA) -> torch.Tensor:
    """Heaviside H(x) = 1[x > 0] forward; backward ``grad * gamma * N(x; 0, sigma^2)``. Any shape."""
    return _SpikeFn.apply(x, sigma, gamma)


def alif_step(
    current: torch.Tensor,
    u: torch.Tensor,
    s: torch.Tensor,
    b: torch.Tensor,
    alpha: torch.Tensor,
    rho: torch.Tensor,
    b0: float,
    beta_a: float = BETA_A,
    sigma: float = SIGMA,
    gamma: float = GAMMA,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One ALIF update (official ``mem_update_adp``); all tensors (batch, n) or broadcastable (n,).

    Returns ``(u_t, s_t, b_t)``; ``s_{t-1}`` may be real-valued (the official initial state is U(0, 1)).
    """
    b = rho * b + (1 - rho) * s
    theta = b0 + beta_a * b
    u = alpha * u + (1 - alpha) * current - theta * s
    return u, spike_fn(u - theta, sigma, gamma), b


class ALIFCell(nn.Module):
    """``n`` adaptive LIF neurons with per-neuron trainable tau_m, tau_adp (clamped to >= 1 = dt).

    Args:
        n: number of neurons.
        tau_m, tau_adp: initial time constants in steps (official: 10 and 5).
        b0: baseline threshold (official init_b = 0.04; also the initial adaptation variable).
        beta_a, sigma, gamma: adaptation strength and surrogate width / scale.
    """

    def __init__(
        self,
        n: int,
        tau_m: float = 10.0,
        tau_adp: float = 5.0,
        b0: float = 0.04,
        beta_a: float = BETA_A,
        sigma: float = SIGMA,
        gamma: float = GAMMA,
    ) -> None:
        super().__init__()
        check_int(n, "n", low=1)
        check_number(tau_m, "tau_m", low=TAU_MIN)  # tau >= dt
        check_number(tau_adp, "tau_adp", low=TAU_MIN)
        self.n, self.b0, self.beta_a, self.sigma, self.gamma = n, b0, beta_a, sigma, gamma
        self.tau_m = nn.Parameter(torch.full((n,), float(tau_m)))
        self.tau_adp = nn.Parameter(torch.full((n,), float(tau_adp)))

    def clamp_(self) -> None:
        """Project tau_m, tau_adp onto [1, inf) in place (done before every forward)."""
        with torch.no_grad():
            self.tau_m.clamp_(min=TAU_MIN)
            self.tau_adp.clamp_(min=TAU_MIN)

    def decays(self) -> tuple[torch.Tensor, torch.Tensor]:
        """alpha = exp(-1/tau_m), rho = exp(-1/tau_adp), each (n,)."""
        return torch.exp(-1.0 / self.tau_m), torch.exp(-1.0 / self.tau_adp)

    def forward(
        self, current: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor, torch.Tensor]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """current: (batch, n); state (u, s, b) each (batch, n) -> new (u, s, b)."""
        alpha, rho = self.decays()
        return alif_step(current, *state, alpha, rho, self.b0, self.beta_a, self.sigma, self.gamma)


__all__ = ["BETA_A", "GAMMA", "SIGMA", "TAU_MIN", "ALIFCell", "alif_step", "spike_fn"]
