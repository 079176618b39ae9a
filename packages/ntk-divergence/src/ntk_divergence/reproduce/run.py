"""``run(config, *, seed, device) -> Report``: PD checks, the width sweep at init, paired CE/MSE training."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from paperkit import Report, check_seed, track

from ntk_divergence.data import pd_stress_set, synthetic_sphere
from ntk_divergence.kernels import fc_ntk
from ntk_divergence.methods import run_method
from ntk_divergence.models import FCN
from ntk_divergence.reproduce.claims import claims
from ntk_divergence.reproduce.config import Config
from ntk_divergence.reproduce.tables import tables
from ntk_divergence.training import fcn_ntk_gram

__all__ = ["pd_checks", "run", "train_all", "width_sweep"]

METHODS_RUN = ("network-ce", "network-mse", "kernel-ce")


def pd_checks(config: Config, seed: int) -> dict[str, np.ndarray]:
    """lambda_min / (tr/n) of Theta with and without biases on the stress sets, and condition numbers."""
    ratio, nobias, cond = [], [], []
    for s in range(config.pd_sets):
        X = pd_stress_set(config.n, config.d, seed=seed * 1000 + s)
        theta, _ = fc_ntk(X, depth=config.depth)
        lam = np.linalg.eigvalsh(theta)
        ratio.append(lam[0] / (np.trace(theta) / config.n))
        cond.append(lam[-1] / lam[0])
        nobias.append(np.linalg.eigvalsh(fc_ntk(X, depth=config.depth, bias=0.0)[0])[0])
    return {"pd_ratio": np.array(ratio), "nobias_lambda": np.array(nobias), "condition": np.array(cond)}


def width_sweep(config: Config, seed: int, device: str) -> np.ndarray:
    """``(sweep_seeds, widths)`` relative error ||K_0 - Theta||_F / ||Theta||_F at initialisation."""
    X, _ = synthetic_sphere(config.n, config.d, seed=seed)
    theta, _ = fc_ntk(X, depth=config.depth)
    err = np.zeros((config.sweep_seeds, len(config.sweep_widths)))
    for i in range(config.sweep_seeds):
        for j, m in enumerate(config.sweep_widths):
            gen = torch.Generator(device=device).manual_seed(seed + 100 + i)
            net = FCN(config.d, m, config.depth, generator=gen, device=device)
            params = {k: v.detach().cpu().numpy() for k, v in net.named_parameters()}
            K = fcn_ntk_gram(params, net, X)
            err[i, j] = np.linalg.norm(K - theta) / np.linalg.norm(theta)
    return err


def train_all(config: Config, seed: int, device: str) -> dict[str, Any]:
    """Traces ``{method: {width: [Trajectory per seed]}}``; seed s draws data and theta_0 for all methods."""
    out: dict[str, Any] = {name: {m: [] for m in config.widths} for name in METHODS_RUN}
    lam0 = []
    jobs = [(s, m) for s in range(seed, seed + config.n_seeds) for m in config.widths]
    for s, m in track(jobs, desc="GD runs"):
        X, y = synthetic_sphere(config.n, config.d, seed=s)
        if m == config.widths[0]:
            lam0.append(float(np.linalg.eigvalsh(fc_ntk(X, depth=config.depth)[0])[0]))
        for name in METHODS_RUN:
            tr = run_method(
                name, X, y, width=m, depth=config.depth, steps=config.steps, lr=config.lr,
                n_checkpoints=config.n_checkpoints, seed=s, device=device,
            )  # fmt: skip
            out[name][m].append(tr)
    out["lambda0"] = np.array(lam0)
    return out


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    pd = pd_checks(config, seed)
    sweep = width_sweep(config, seed, device)
    traces = train_all(config, seed, device)
    seeds = tuple(range(seed, seed + config.n_seeds))
    cl, metrics = claims(pd, sweep, traces, config, seeds)
    metrics["traces"] = {
        name: {
            str(m): [
                {k: getattr(t, k).tolist() for k in ("steps", "param_dist", "kernel_change", "min_margin",
                                                      "lambda_min", "loss", "kernel_dev_max")}
                for t in trs
            ]
            for m, trs in traces[name].items()
        }
        for name in ("network-ce", "network-mse", "kernel-ce")
    }  # fmt: skip
    notes = [
        f"Synthetic data: n = {config.n} points on the unit sphere in R^{config.d}, y = sign(x_1 + 0.3 xi); "
        f"FCN with L = {config.depth} hidden layer(s), NTK parameterisation, biases; full-batch GD, "
        f"eta = {config.lr}, {config.steps} steps, seeds {list(seeds)} "
        "(data and theta_0 shared by CE and MSE).",
        "ResNet kernels and the digits data set are not implemented (see README).",
    ]
    return Report(metrics=metrics, claims=cl, tables=tables(pd, sweep, traces, config), notes=notes)
