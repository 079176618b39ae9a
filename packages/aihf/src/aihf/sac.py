"""Soft actor-critic (Haarnoja et al. 2018), small and explicit: the inner (entropy-regularised) solver.

A tanh-squashed Gaussian actor and twin Q critics with Polyak-averaged targets, a fixed entropy weight α
(= the inner problem's β, so SAC solves the same soft problem as the tabular soft value iteration, with
discount γ). Rewards are passed in by the caller for every batch, so a learned reward can change between
updates (the replay buffer stores no rewards). Time-limit truncation is not termination: ``done`` is the
env's ``terminated`` flag only, so values bootstrap through truncation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from paperkit.validation import check_positive
from torch import Tensor, nn

__all__ = ["SAC", "TanhGaussianActor", "mlp"]


def mlp(sizes: Sequence[int]) -> nn.Sequential:
    """Linear layers of ``sizes`` with ReLU between them."""
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class TanhGaussianActor(nn.Module):
    """π(a|s): a = tanh(u), u ~ N(μ(s), σ(s)²); actions in (−1, 1)^act_dim."""

    def __init__(self, obs_dim: int, act_dim: int, hidden: Sequence[int] = (64, 64)) -> None:
        super().__init__()
        self.net = mlp([obs_dim, *hidden, 2 * act_dim])
        self.act_dim = act_dim

    def forward(self, obs: Tensor, generator: torch.Generator | None = None) -> tuple[Tensor, Tensor, Tensor]:
        """obs (n, obs_dim) -> sampled action (n, act_dim), its log-density (n,), mean action (n, act_dim)."""
        mu, log_std = self.net(obs).chunk(2, dim=-1)
        log_std = log_std.clamp(-5.0, 2.0)
        std = log_std.exp()
        eps = torch.randn(mu.shape, generator=generator, device=mu.device, dtype=mu.dtype)
        u = mu + std * eps
        a = torch.tanh(u)
        logp = (-0.5 * eps**2 - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)
        logp = logp - (2.0 * (math.log(2.0) - u - nn.functional.softplus(-2.0 * u))).sum(-1)
        return a, logp, torch.tanh(mu)

    def log_prob(self, obs: Tensor, act: Tensor) -> Tensor:
        """log π(act|obs) (n,) for actions in (−1, 1) (clamped inside for numerical safety)."""
        mu, log_std = self.net(obs).chunk(2, dim=-1)
        log_std = log_std.clamp(-5.0, 2.0)
        a = act.clamp(-0.999, 0.999)
        u = torch.atanh(a)
        logp = (-0.5 * ((u - mu) / log_std.exp()) ** 2 - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)
        return logp - torch.log1p(-(a**2)).sum(-1)


class SAC(nn.Module):
    """SAC with a fixed entropy weight α.

    Args:
        obs_dim, act_dim: dimensions.
        hidden: hidden sizes of actor and critics (spec: 64 x 64).
        alpha: entropy weight α (= β of the inner problem).
        gamma: discount; tau: Polyak rate; lr: Adam step size of actor and critics.
        device: where the nets live.
    """

    def __init__(
        self,
        obs_dim: int,
        act_dim: int,
        hidden: Sequence[int] = (64, 64),
        alpha: float = 0.1,
        gamma: float = 0.99,
        tau: float = 0.005,
        lr: float = 3e-4,
        device: str | torch.device = "cpu",
    ) -> None:
        super().__init__()
        check_positive(alpha, "alpha")
        self.actor = TanhGaussianActor(obs_dim, act_dim, hidden)
        self.q1, self.q2 = (mlp([obs_dim + act_dim, *hidden, 1]) for _ in range(2))
        self.q1_t, self.q2_t = (mlp([obs_dim + act_dim, *hidden, 1]) for _ in range(2))
        self.q1_t.load_state_dict(self.q1.state_dict())
        self.q2_t.load_state_dict(self.q2.state_dict())
        for p in [*self.q1_t.parameters(), *self.q2_t.parameters()]:
            p.requires_grad_(False)
        self.alpha, self.gamma, self.tau = alpha, gamma, tau
        self.to(device)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=lr, foreach=True)
        self.q_opt = torch.optim.Adam([*self.q1.parameters(), *self.q2.parameters()], lr=lr, foreach=True)
        self._online: list[Tensor] = [*self.q1.parameters(), *self.q2.parameters()]
        self._target: list[Tensor] = [*self.q1_t.parameters(), *self.q2_t.parameters()]

    def _q(self, net: nn.Module, obs: Tensor, act: Tensor) -> Tensor:
        return net(torch.cat([obs, act], dim=-1)).squeeze(-1)

    def update(
        self,
        obs: Tensor,
        act: Tensor,
        rew: Tensor,
        next_obs: Tensor,
        done: Tensor,
        generator: torch.Generator,
    ) -> dict[str, float]:
        """One critic and one actor step: obs (n, o), act (n, a), rew (n,), next_obs (n, o), done (n,)."""
        with torch.no_grad():
            a2, logp2, _ = self.actor(next_obs, generator)
            q_t = torch.min(self._q(self.q1_t, next_obs, a2), self._q(self.q2_t, next_obs, a2))
            target = rew + self.gamma * (1.0 - done) * (q_t - self.alpha * logp2)
        q_loss = ((self._q(self.q1, obs, act) - target) ** 2).mean() + (
            (self._q(self.q2, obs, act) - target) ** 2
        ).mean()
        self.q_opt.zero_grad()
        q_loss.backward()
        self.q_opt.step()
        a, logp, _ = self.actor(obs, generator)
        q = torch.min(self._q(self.q1, obs, a), self._q(self.q2, obs, a))
        pi_loss = (self.alpha * logp - q).mean()
        self.actor_opt.zero_grad()
        for p in self._online:
            p.requires_grad_(False)  # the actor's loss does not train the critics
        pi_loss.backward()
        for p in self._online:
            p.requires_grad_(True)
        self.actor_opt.step()
        with torch.no_grad():
            torch._foreach_lerp_(self._target, self._online, self.tau)
        return {"q_loss": float(q_loss.detach()), "pi_loss": float(pi_loss.detach())}
