"""``run(config, *, seed, device) -> Report``: PD checks, width sweeps at init, paired CE/MSE training."""

from __future__ import annotations

from typing import Any

import numpy as np
from paperkit import Report, check_seed, track

from ntk_divergence.backprop import ntk_gram, numpy_params
from ntk_divergence.data import digits, pd_stress_set, synthetic_sphere
from ntk_divergence.kernels import fc_ntk, resnet_ntk
from ntk_divergence.methods import build, limiting_ntk, run_method
from ntk_divergence.reproduce.claims import case_claims, claims
from ntk_divergence.reproduce.config import Case, Config
from ntk_divergence.reproduce.tables import tables

__all__ = ["case_data", "pd_checks", "run", "train_all", "train_case", "width_sweep"]

METHODS_RUN = ("network-ce", "network-mse", "kernel-ce")
CASE_METHODS = ("network-ce", "network-mse")
RESNET_BLOCKS, RESNET_ALPHA = 1, 1.0  # the ResNet of the PD check and the init sweep (as FULL_CASES)


def pd_checks(config: Config, seed: int) -> dict[str, np.ndarray]:
    """lambda_min / (tr/n) of Theta (FCN with and without biases, ResNet) on the stress sets, conditions."""
    ratio, nobias, cond, res = [], [], [], []
    for s in range(config.pd_sets):
        X = pd_stress_set(config.n, config.d, seed=seed * 1000 + s)
        theta, _ = fc_ntk(X, depth=config.depth)
        lam = np.linalg.eigvalsh(theta)
        ratio.append(lam[0] / (np.trace(theta) / config.n))
        cond.append(lam[-1] / lam[0])
        nobias.append(np.linalg.eigvalsh(fc_ntk(X, depth=config.depth, bias=0.0)[0])[0])
        rt, _ = resnet_ntk(X, n_blocks=RESNET_BLOCKS, alpha=RESNET_ALPHA)
        res.append(np.linalg.eigvalsh(rt)[0] / (np.trace(rt) / config.n))
    return {
        "pd_ratio": np.array(ratio), "nobias_lambda": np.array(nobias), "condition": np.array(cond),
        "resnet_pd_ratio": np.array(res),
    }  # fmt: skip


def width_sweep(config: Config, seed: int, device: str, arch: str = "fcn") -> np.ndarray:
    """``(sweep_seeds, widths)`` relative error ||K_0 - Theta||_F / ||Theta||_F at initialisation."""
    X, _ = synthetic_sphere(config.n, config.d, seed=seed)
    depth = config.depth if arch == "fcn" else RESNET_BLOCKS
    theta = limiting_ntk(X, arch=arch, depth=depth, alpha=RESNET_ALPHA)
    err = np.zeros((config.sweep_seeds, len(config.sweep_widths)))
    for i in range(config.sweep_seeds):
        for j, m in enumerate(config.sweep_widths):
            net = build(config.d, m, arch=arch, depth=depth, alpha=RESNET_ALPHA, seed=seed + 100 + i,
                        device=device)  # fmt: skip
            err[i, j] = np.linalg.norm(ntk_gram(numpy_params(net), net, X) - theta) / np.linalg.norm(theta)
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


def case_data(case: Case, config: Config, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The training set of ``case`` under ``seed`` (synthetic: the FCN sweep's data for that seed)."""
    if case.data == "digits":
        return digits(case.n, classes=case.classes, seed=seed)
    return synthetic_sphere(case.n, config.d, seed=seed)


def train_case(case: Case, config: Config, seed: int, device: str) -> dict[str, Any]:
    """``{method: [Trajectory per seed], "lambda0": (n_seeds,)}`` for one extra case, paired over seeds."""
    out: dict[str, Any] = {name: [] for name in CASE_METHODS}
    lam0 = []
    for s in track(range(seed, seed + config.n_seeds), desc=f"{case.name} runs"):
        X, y = case_data(case, config, s)
        lam0.append(float(np.linalg.eigvalsh(limiting_ntk(X, arch=case.arch, depth=case.depth,
                                                          alpha=case.alpha))[0]))  # fmt: skip
        for name in CASE_METHODS:
            out[name].append(run_method(
                name, X, y, width=case.width, depth=case.depth, steps=case.steps, lr=case.lr,
                n_checkpoints=config.n_checkpoints, seed=s, arch=case.arch, alpha=case.alpha, device=device,
            ))  # fmt: skip
    out["lambda0"] = np.array(lam0)
    return out


def _trace_dict(t: Any) -> dict[str, list[float]]:
    keys = ("steps", "param_dist", "kernel_change", "min_margin", "lambda_min", "loss", "kernel_dev_max")
    return {k: getattr(t, k).tolist() for k in keys}


def _case_note(c: Case) -> str:
    labels = f"classes {list(c.classes)}" if c.data == "digits" else "y = ±1"
    loss = "softmax" if c.data == "digits" and len(c.classes) > 2 else "logistic"
    alpha = f", alpha {c.alpha}" if c.arch == "resnet" else ""
    return (
        f"Case {c.name}: {c.data} (n = {c.n}, {labels}), {c.arch} depth {c.depth}{alpha}, width {c.width}, "
        f"{c.steps} steps, eta = {c.lr}, {loss} CE vs MSE from the same theta_0."
    )


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    pd = pd_checks(config, seed)
    sweep = width_sweep(config, seed, device)
    res_sweep = width_sweep(config, seed, device, arch="resnet")
    traces = train_all(config, seed, device)
    cases = {case.name: train_case(case, config, seed, device) for case in config.cases}
    seeds = tuple(range(seed, seed + config.n_seeds))
    cl, metrics = claims(pd, sweep, res_sweep, traces, config, seeds)
    for case in config.cases:
        more, metrics[f"case_{case.name}"] = case_claims(case, cases[case.name], config, seeds)
        cl.extend(more)
    metrics["traces"] = {
        name: {str(m): [_trace_dict(t) for t in trs] for m, trs in traces[name].items()}
        for name in METHODS_RUN
    }
    metrics["case_traces"] = {
        c: {name: [_trace_dict(t) for t in v[name]] for name in CASE_METHODS} for c, v in cases.items()
    }
    notes = [
        f"Synthetic data: n = {config.n} points on the unit sphere in R^{config.d}, y = sign(x_1 + 0.3 xi); "
        f"FCN with L = {config.depth} hidden layer(s), NTK parameterisation, biases; full-batch GD, "
        f"eta = {config.lr}, {config.steps} steps, seeds {list(seeds)} "
        "(data and theta_0 shared by CE and MSE).",
        *(_case_note(c) for c in config.cases),
    ]
    tabs = tables(pd, sweep, res_sweep, traces, cases, config)
    return Report(metrics=metrics, claims=cl, tables=tabs, notes=notes)
