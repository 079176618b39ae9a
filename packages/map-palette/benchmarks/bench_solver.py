"""MAP's dual solver against its peers on the same problems, after warm-up, interleaved, process CPU time.

Peers:
- scipy.optimize.minimize (SLSQP) on the primal: min_w KL(w ‖ 1/n) s.t. R w ≥ c, w in the simplex;
- the official solver's recipe (``backup/alignValues.py``), written here in torch: τ = log λ, λ_0 = 1,
  Adam(lr 0.1) for 150 steps on −(λᵀc − log mean exp(λᵀR)) in float32 without log-sum-exp;
- ours: ``solve_lambda`` (LP oracle + L-BFGS-B + Newton polish) and ``solver="adam_log"``.

Run: ``uv run --package iclr25-map-palette python packages/map-palette/benchmarks/bench_solver.py``.
"""

from __future__ import annotations

import time

import numpy as np
import torch
from map_palette.data import GAUSSIAN_MU, gaussian_rewards
from map_palette.solvers import feasibility_margin, solve_lambda
from scipy.optimize import minimize


def official_adam(R: np.ndarray, c: np.ndarray) -> np.ndarray:
    Rt, ct = torch.tensor(R, dtype=torch.float32), torch.tensor(c, dtype=torch.float32)
    tau = torch.zeros(len(c), requires_grad=True)
    opt = torch.optim.Adam([tau], lr=0.1)
    for _ in range(150):
        opt.zero_grad()
        lam = torch.exp(tau)
        loss = -(lam @ ct - torch.log(torch.mean(torch.exp(lam @ Rt))))
        loss.backward()
        opt.step()
    return torch.exp(tau).detach().numpy().astype(float)


def primal_slsqp(R: np.ndarray, c: np.ndarray) -> np.ndarray:
    n = R.shape[1]
    res = minimize(
        lambda w: float(np.sum(w * np.log(np.maximum(w, 1e-300) * n))),
        np.full(n, 1 / n),
        jac=lambda w: np.log(np.maximum(w, 1e-300) * n) + 1,
        method="SLSQP",
        bounds=[(0, 1)] * n,
        constraints=[
            {"type": "eq", "fun": lambda w: w.sum() - 1},
            {"type": "ineq", "fun": lambda w: R @ w - c},
        ],
        options={"ftol": 1e-12, "maxiter": 500},
    )
    return res.x


def cpu(fn, *args, reps: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    t = time.process_time()
    for _ in range(reps):
        out = fn(*args)
    return (time.process_time() - t) / reps, out


def main() -> None:
    torch.set_num_threads(1)
    c = GAUSSIAN_MU + np.array([0.5, 0.3, -0.1])
    for n in (300, 20_000):
        R = gaussian_rewards(n, seed=0)
        peers = {
            "ours lbfgsb": lambda R=R: solve_lambda(R, c).lam,
            "ours adam_log": lambda R=R: solve_lambda(R, c, solver="adam_log").lam,
            "official Adam (torch f32)": lambda R=R: official_adam(R, c),
            "LP oracle only (linprog)": lambda R=R: feasibility_margin(R, c),
        }
        if n <= 500:
            peers["scipy SLSQP primal"] = lambda R=R: primal_slsqp(R, c)
        for fn in peers.values():
            fn()  # warm-up
        times: dict[str, list[float]] = {k: [] for k in peers}
        outs: dict[str, object] = {}
        for _ in range(3):  # interleaved repetitions
            for k, fn in peers.items():
                dt, outs[k] = cpu(fn, reps=1)
                times[k].append(dt)
        ref = min(times["ours lbfgsb"])
        lam = outs["ours lbfgsb"]
        print(f"n = {n}: λ* (ours) = {np.round(lam, 5)}")
        for k, ts in times.items():
            extra = ""
            if k.startswith(("ours adam", "official")):
                extra = f"  |λ − λ*|_max = {np.max(np.abs(np.asarray(outs[k]) - lam)):.2e}"
            if k.startswith("scipy"):
                w = np.asarray(outs[k])
                wl = np.exp(lam @ R - (lam @ R).max())
                extra = f"  |w − w(λ*)|_max = {np.max(np.abs(w - wl / wl.sum())):.2e}"
            print(f"  {k:28s} {min(ts) * 1e3:9.2f} ms CPU   x{min(ts) / ref:7.2f} vs ours{extra}")


if __name__ == "__main__":
    main()
