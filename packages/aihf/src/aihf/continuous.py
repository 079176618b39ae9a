"""AIHF and its baselines in continuous control (MuJoCo Reacher-v5): reward MLP + SAC inner solver.

Methods (spec, "Baselines to ship beside it"), all starting from the same behaviour-cloned actor
(π_0 = SFT, spec step 1):

- ``BC``: the behaviour-cloned actor (maximum likelihood on D), evaluated with its mean action.
- ``RLHF``: BC actor → Bradley–Terry reward MLP fitted on P → SAC on that fixed reward.
- ``ML-IRL``: alternating SAC steps on r_θ and reward steps on the demonstration term only (λ = 0).
- ``Oracle`` (a reference, not a baseline): SAC on the environment's true reward from the same BC actor
  with the same budget; it shows whether the budget can turn a good reward into a better policy at all.
- ``AIHF``: the same alternation on L_D + λ L_P (the bi-level objective of :mod:`aihf.tabular`),
  reward step ∇θ[(1/β)(mean_D R_θ(τ) − mean_π R_θ(τ)) + λ mean_P log σ(R_θ(τw) − R_θ(τl))] with
  R_θ(τ) = Σ_t r_θ(s_t, a_t) and the π-trajectories the latest complete episodes of the current policy.

Every reward update uses full batches of D and P and the ``policy_episodes`` most recent on-policy
episodes. Environment steps, not wall time, are the budget of every method.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from numpy.typing import NDArray
from paperkit.validation import check_choice, check_positive
from torch import Tensor, nn

from aihf.data import PreferencePair, Trajectory, collect_trajectories
from aihf.sac import SAC, TanhGaussianActor, mlp

__all__ = [
    "CONTINUOUS_METHODS",
    "REFERENCE_METHODS",
    "ContinuousConfig",
    "MLPReward",
    "evaluate_actor",
    "fit_bt_reward",
    "reward_prefers_expert",
    "train_continuous",
]

CONTINUOUS_METHODS = ("BC", "ML-IRL", "RLHF", "AIHF")
REFERENCE_METHODS = ("Oracle",)  # SAC on the true reward: the gate of the policy-level comparison


class MLPReward(nn.Module):
    """r_θ(s, a): MLP(obs ⊕ act) -> scalar, hidden 64 x 64 (spec)."""

    def __init__(self, obs_dim: int, act_dim: int, hidden: Sequence[int] = (64, 64)) -> None:
        super().__init__()
        self.net = mlp([obs_dim + act_dim, *hidden, 1])

    def forward(self, obs: Tensor, act: Tensor) -> Tensor:
        """obs (..., o), act (..., a) -> reward (...)."""
        return self.net(torch.cat([obs, act], dim=-1)).squeeze(-1)


@dataclass(frozen=True)
class ContinuousConfig:
    """Settings of one continuous-control run (spec's full mode, scaled to 2 CPU cores; see README).

    Attributes:
        env_id: gymnasium id (spec: Reacher-v5).
        env_steps: environment steps per method (spec: 20k; we use fewer, see the README).
        reward_every: environment steps between reward updates (spec: 1k).
        reward_steps: Adam steps of the reward per update; reward_lr: their step size.
        policy_episodes: recent on-policy episodes in the reward gradient.
        lam, beta: λ and β (= SAC's fixed α).
        bt_steps: Adam steps of RLHF's Bradley–Terry reward fit.
        bc_steps: Adam steps of behaviour cloning (π_0).
        batch, start_steps, updates_per_step: SAC batch size, steps before updates, updates per env step.
        hidden: width of every net (spec: 64 x 64).
        l2: L2 penalty on reward outputs (spec: optional, against reward-scale drift).
    """

    env_id: str = "Reacher-v5"
    env_steps: int = 10_000
    reward_every: int = 500
    reward_steps: int = 20
    reward_lr: float = 1e-3
    policy_episodes: int = 10
    lam: float = 1.0
    beta: float = 0.05
    bt_steps: int = 500
    bc_steps: int = 1000
    batch: int = 128
    start_steps: int = 500
    updates_per_step: float = 1.0
    hidden: int = 64
    l2: float = 1e-3


def _stack(
    trajs: Sequence[Trajectory], obs_dim: int, act_dim: int, what: str, device: str
) -> tuple[Tensor, Tensor]:
    obs, act = [], []
    for i, t in enumerate(trajs):
        if not isinstance(t, Trajectory):
            raise TypeError(f"{what}[{i}] must be a Trajectory, got {type(t).__name__}")
        o, a = np.asarray(t.observations), np.asarray(t.actions)
        if o.ndim != 2 or o.shape[1] != obs_dim or a.ndim != 2 or a.shape[1] != act_dim:
            raise ValueError(
                f"{what}[{i}]: expected observations (T, {obs_dim}) and actions (T, {act_dim}), "
                f"got {o.shape} "
                f"and {a.shape} (a trajectory from a different environment?)"
            )
        obs.append(o)
        act.append(a)
    n = min(len(o) for o in obs)  # pairs/demos of unequal length: truncated to the common length
    return (
        torch.as_tensor(np.stack([o[:n] for o in obs]), dtype=torch.float32, device=device),
        torch.as_tensor(np.stack([a[:n] for a in act]), dtype=torch.float32, device=device),
    )


def behaviour_clone(
    demos: Sequence[Trajectory],
    obs_dim: int,
    act_dim: int,
    config: ContinuousConfig,
    gen: torch.Generator,
    device: str,
) -> TanhGaussianActor:
    """π_0: the tanh-Gaussian actor maximising Σ log π(a|s) on the demonstrations."""
    obs, act = _stack(demos, obs_dim, act_dim, "demos", device)
    obs, act = obs.reshape(-1, obs_dim), act.reshape(-1, act_dim)
    actor = TanhGaussianActor(obs_dim, act_dim, (config.hidden, config.hidden)).to(device)
    opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
    for _ in range(config.bc_steps):
        idx = torch.randint(len(obs), (min(256, len(obs)),), generator=gen, device=device)
        loss = -actor.log_prob(obs[idx], act[idx]).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return actor


def _bt_loss(reward: MLPReward, pw: tuple[Tensor, Tensor], pl: tuple[Tensor, Tensor]) -> Tensor:
    return -nn.functional.logsigmoid(reward(*pw).sum(-1) - reward(*pl).sum(-1)).mean()


def fit_bt_reward(
    pairs: Sequence[PreferencePair],
    obs_dim: int,
    act_dim: int,
    config: ContinuousConfig,
    seed: int,
    device: str = "cpu",
) -> MLPReward:
    """RLHF's reward model: an MLP r_θ maximising Σ_P log σ(R_θ(τw) − R_θ(τl)) (``config.bt_steps`` Adam
    steps at ``config.reward_lr``, full batch), initialised from ``seed``."""
    if len(pairs) == 0:
        raise ValueError("pairs is empty; a Bradley–Terry reward needs at least one preference pair")
    pw = _stack([p[0] for p in pairs], obs_dim, act_dim, "pairs (preferred)", device)
    pl = _stack([p[1] for p in pairs], obs_dim, act_dim, "pairs (dispreferred)", device)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        reward = MLPReward(obs_dim, act_dim, (config.hidden, config.hidden)).to(device)
    opt = torch.optim.Adam(reward.parameters(), lr=config.reward_lr)
    for _ in range(config.bt_steps):
        loss = _bt_loss(reward, pw, pl)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return reward


@torch.no_grad()
def reward_prefers_expert(
    reward: MLPReward, env_id: str, n_targets: int, seed: int, device: str = "cpu"
) -> NDArray[np.bool_]:
    """For each of ``n_targets`` seeded resets (held-out targets), whether the learned return R_θ of the
    noiseless PD expert's episode exceeds that of the zero-torque episode from the same reset.
    Returns (n_targets,) bool."""
    from aihf.envs.reacher import noisy, zero_torque

    env = gym.make(env_id)
    out = np.empty(n_targets, dtype=bool)
    for i in range(n_targets):
        rets = []
        for policy in (noisy(0.0), zero_torque()):
            tr = collect_trajectories(env, policy, 1, seed + i)[0]
            o = torch.as_tensor(np.asarray(tr.observations), dtype=torch.float32, device=device)
            a = torch.as_tensor(np.asarray(tr.actions), dtype=torch.float32, device=device)
            rets.append(float(reward(o, a).sum()))
        out[i] = rets[0] > rets[1]
    return out


@torch.no_grad()
def evaluate_actor(actor: TanhGaussianActor, env_id: str, n_episodes: int, seed: int, device: str) -> float:
    """Mean true return of the actor's mean action over ``n_episodes`` seeded episodes."""
    env = gym.make(env_id)
    total = 0.0
    for i in range(n_episodes):
        obs, _ = env.reset(seed=seed + i)
        done = False
        while not done:
            a = actor(torch.as_tensor(obs, dtype=torch.float32, device=device)[None])[2][0].cpu().numpy()
            obs, r, term, trunc, _ = env.step(a)
            total += float(r)
            done = term or trunc
    return total / n_episodes


def train_continuous(
    method: str,
    demos: Sequence[Trajectory],
    pairs: Sequence[PreferencePair],
    config: ContinuousConfig,
    seed: int,
    device: str = "cpu",
    eval_every: int = 0,
    eval_episodes: int = 5,
) -> tuple[TanhGaussianActor, dict[str, Any]]:
    """Train one method; returns the final actor and a log {"steps": [...], "returns": [...], "reward": r_θ}
    (true returns of the mean action at every ``eval_every`` env steps, empty when 0; the learned reward
    MLP, None for BC and Oracle)."""
    check_choice(method, "method", CONTINUOUS_METHODS + REFERENCE_METHODS)
    check_positive(config.lam, "lam (λ)", strict=False)
    if len(demos) == 0:
        raise ValueError("demos is empty; every continuous method starts from behaviour cloning on D")
    if method in ("RLHF", "AIHF") and len(pairs) == 0:
        raise ValueError(f"{method} needs preference pairs; pairs is empty")
    env = gym.make(config.env_id)
    obs_dim = int(np.prod(env.observation_space.shape))  # type: ignore[arg-type]
    act_dim = int(np.prod(env.action_space.shape))  # type: ignore[arg-type]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        gen = torch.Generator(device=device).manual_seed(seed)
        actor = behaviour_clone(demos, obs_dim, act_dim, config, gen, device)
        log: dict[str, Any] = {"steps": [], "returns": [], "reward": None}
        if method == "BC":
            return actor, log
        h = (config.hidden, config.hidden)
        sac = SAC(obs_dim, act_dim, h, alpha=config.beta, device=device)
        sac.actor.load_state_dict(actor.state_dict())
        if method == "RLHF":
            reward = fit_bt_reward(pairs, obs_dim, act_dim, config, seed, device)
        else:
            reward = MLPReward(obs_dim, act_dim, h).to(device)
        r_opt = torch.optim.Adam(reward.parameters(), lr=config.reward_lr)
        d_obs, d_act = _stack(demos, obs_dim, act_dim, "demos", device)
        if pairs:
            pw = _stack([p[0] for p in pairs], obs_dim, act_dim, "pairs (preferred)", device)
            pl = _stack([p[1] for p in pairs], obs_dim, act_dim, "pairs (dispreferred)", device)
        if method != "Oracle":
            log["reward"] = reward
        lam = config.lam if method == "AIHF" else 0.0
        n = config.env_steps
        buf_o = np.zeros((n, obs_dim), np.float32)
        buf_a = np.zeros((n, act_dim), np.float32)
        buf_o2 = np.zeros((n, obs_dim), np.float32)
        buf_d = np.zeros(n, np.float32)
        buf_r = np.zeros(n, np.float32)  # the true reward, used by Oracle only
        ep_bounds: list[tuple[int, int]] = []
        rng = np.random.default_rng(seed)
        obs, _ = env.reset(seed=seed)
        ep_start, updates_due = 0, 0.0
        for t in range(n):
            with torch.no_grad():
                a = (
                    sac.actor(torch.as_tensor(obs, dtype=torch.float32, device=device)[None], gen)[0][0]
                    .cpu()
                    .numpy()
                )
            obs2, r_true, term, trunc, _ = env.step(a)
            buf_o[t], buf_a[t], buf_o2[t], buf_d[t], buf_r[t] = obs, a, obs2, float(term), r_true
            obs = obs2
            if term or trunc:
                ep_bounds.append((ep_start, t + 1))
                obs, _ = env.reset(seed=int(rng.integers(2**31)))
                ep_start = t + 1
            if method in ("ML-IRL", "AIHF") and (t + 1) % config.reward_every == 0 and ep_bounds:
                recent = ep_bounds[-config.policy_episodes :]
                length = min(e - s for s, e in recent)
                po = torch.as_tensor(np.stack([buf_o[s : s + length] for s, _ in recent]), device=device)
                pa = torch.as_tensor(np.stack([buf_a[s : s + length] for s, _ in recent]), device=device)
                prefs = (lam, pw, pl) if lam > 0 else None
                _reward_steps(reward, r_opt, (d_obs, d_act), (po, pa), prefs, config)
            if t + 1 >= config.start_steps:
                updates_due += config.updates_per_step
                while updates_due >= 1.0:
                    updates_due -= 1.0
                    idx = torch.randint(t + 1, (config.batch,), generator=gen).numpy()
                    true_reward = buf_r if method == "Oracle" else None
                    _sac_update(sac, reward, (buf_o, buf_a, buf_o2, buf_d), true_reward, idx, gen, device)
            if eval_every and (t + 1) % eval_every == 0:
                log["steps"].append(t + 1)
                log["returns"].append(
                    evaluate_actor(sac.actor, config.env_id, eval_episodes, 10_000 + seed, device)
                )
        return sac.actor, log


def _reward_steps(
    reward: MLPReward,
    opt: torch.optim.Optimizer,
    demo: tuple[torch.Tensor, torch.Tensor],
    policy: tuple[torch.Tensor, torch.Tensor],
    prefs: tuple[float, Any, Any] | None,
    config: ContinuousConfig,
) -> None:
    """``config.reward_steps`` ascent steps on the demonstrations' reward minus the current policy's
    (divided by β), minus λ times the Bradley–Terry loss of ``prefs`` = (λ, preferred, dispreferred) when
    given, with an L2 penalty on both rewards."""
    for _ in range(config.reward_steps):
        r_d, r_p = reward(*demo), reward(*policy)
        obj = (r_d.sum(-1).mean() - r_p.sum(-1).mean()) / config.beta
        if prefs is not None:
            lam, pw, pl = prefs
            obj = obj - lam * _bt_loss(reward, pw, pl)
        loss = -obj + config.l2 * (r_d.pow(2).mean() + r_p.pow(2).mean())
        opt.zero_grad()
        loss.backward()
        opt.step()


def _sac_update(
    sac: SAC,
    reward: MLPReward,
    buffers: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    true_reward: np.ndarray | None,
    idx: np.ndarray,
    gen: torch.Generator,
    device: str,
) -> None:
    """One SAC step on the replay rows ``idx``, rewarded by the learned reward (the true reward for the
    Oracle, ``true_reward`` given)."""
    buf_o, buf_a, buf_o2, buf_d = buffers
    o = torch.as_tensor(buf_o[idx], device=device)
    ac = torch.as_tensor(buf_a[idx], device=device)
    if true_reward is not None:
        rew = torch.as_tensor(true_reward[idx], device=device)
    else:
        with torch.no_grad():
            rew = reward(o, ac)
    sac.update(
        o,
        ac,
        rew,
        torch.as_tensor(buf_o2[idx], device=device),
        torch.as_tensor(buf_d[idx], device=device),
        gen,
    )
