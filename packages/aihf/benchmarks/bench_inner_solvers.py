"""Cost of AIHF's inner solvers, against the named peers.

1. Grid: time per AIHF outer iteration (exact soft value iteration + occupancy + gradient) vs grid size,
   and its ratio to rolling out the same number of env steps (H) through the gymnasium env.
2. Reacher-v5: environment steps per second of our SAC loop (one 64x64 SAC update per step) vs the plain
   env step rate, and vs Stable-Baselines3's SAC with the same nets/batch (the spec's named peer; skipped
   when stable-baselines3, in the `bench` dependency group, is not installed).

Run: python benchmarks/bench_inner_solvers.py   (one torch thread; grid: wall clock; SAC: process CPU time
after a warm-up run of each loop, interleaved repetitions)
"""

from __future__ import annotations

import time

import aihf  # noqa: F401  (registers aihf/FeatureGrid-v0)
import gymnasium as gym
import numpy as np
from aihf.continuous import ContinuousConfig, train_continuous
from aihf.data import collect_trajectories
from aihf.envs import FeatureGridEnv
from aihf.envs.reacher import noisy
from aihf.tabular import TabularMDP, aihf_objective
from paperkit import torch_threads


def _best(fn, repeat: int = 5) -> float:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return min(out)


def bench_grid() -> None:
    print("grid: one AIHF outer iteration (soft VI + occupancy + exact gradient), H = 30")
    for size in (8, 16, 24):
        env = FeatureGridEnv(size=size, n_hazard=size, n_mud=size + size // 2)
        mdp = TabularMDP.from_env(env)
        demos = collect_trajectories(env, lambda o, t, g: int(g.integers(4)), 20, 0)
        pairs = [(demos[i], demos[i + 1]) for i in range(0, 20, 2)]
        theta = np.array([1.0, -1.0, -0.2])
        it = _best(
            lambda mdp=mdp, demos=demos, pairs=pairs, theta=theta: aihf_objective(
                theta, mdp, demos, pairs, 20.0, 0.1
            )
        )
        ep = _best(lambda env=env: collect_trajectories(env, lambda o, t, g: 1, 1, 0))
        print(
            f"  {size}x{size} (|S| = {size * size}): {it * 1e3:8.2f} ms/iteration; one 30-step env episode "
            f"{ep * 1e3:6.2f} ms; ratio {it / ep:6.1f}"
        )


def _sac_loops(steps: int):  # type: ignore[no-untyped-def]
    """(ours, sb3 or None): callables that each run one SAC loop of ``steps`` env steps from scratch."""
    env = gym.make("Reacher-v5")
    demos = collect_trajectories(env, noisy(0.3), 5, 1)
    cfg = ContinuousConfig(env_steps=steps, start_steps=100, bc_steps=1, reward_every=10**9)

    def ours() -> None:
        train_continuous("ML-IRL", demos, [], cfg, seed=0)

    try:
        from stable_baselines3 import SAC as SB3SAC
    except ImportError:
        return ours, None

    def sb3() -> None:
        model = SB3SAC(
            "MlpPolicy",
            gym.make("Reacher-v5"),
            policy_kwargs={"net_arch": [64, 64]},
            batch_size=128,
            learning_starts=100,
            ent_coef=0.05,
            seed=0,
            device="cpu",
        )
        model.learn(total_timesteps=steps)

    return ours, sb3


def bench_reacher(steps: int = 2000, repeats: int = 3) -> None:
    """Process CPU time of both SAC loops, after one warm-up run of each (the first run of a process pays
    torch's lazy imports, ~5 s of torch._dynamo on the first optimiser step), interleaved repetitions."""
    env = gym.make("Reacher-v5")
    env.reset(seed=0)
    t = time.process_time()
    for _ in range(steps):
        _, _, term, trunc, _ = env.step(env.action_space.sample())
        if term or trunc:
            env.reset()
    plain = steps / (time.process_time() - t)
    ours, sb3 = _sac_loops(steps)
    loops = {"ours": ours} | ({"sb3": sb3} if sb3 is not None else {})
    for fn in loops.values():  # warm-up, not timed
        fn()
    cpu: dict[str, list[float]] = {k: [] for k in loops}
    for _ in range(repeats):
        for k, fn in loops.items():
            t = time.process_time()
            fn()
            cpu[k].append(time.process_time() - t)
    rate = {k: steps / min(v) for k, v in cpu.items()}
    print(
        f"Reacher-v5 (CPU time, best of {repeats} after warm-up): plain env {plain:8.0f} steps/s; "
        f"our SAC loop {rate['ours']:6.0f} steps/s (ratio plain/ours {plain / rate['ours']:5.1f})"
    )
    if sb3 is None:
        print("  stable-baselines3 not installed (bench group): peer comparison skipped")
        return
    print(
        f"  Stable-Baselines3 SAC (64x64, batch 128): {rate['sb3']:6.0f} steps/s; "
        f"ours/SB3 = {rate['ours'] / rate['sb3']:4.2f}"
    )


if __name__ == "__main__":
    with torch_threads(1):
        bench_grid()
        bench_reacher()
