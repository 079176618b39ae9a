"""The spec's six claims (and the Theorem 2 bound), from the traces only; the same claims per extra case."""

from __future__ import annotations

from typing import Any

import numpy as np
from paperkit import Claim, ci_claim, paired_difference

from ntk_divergence.analysis import loglog_slope, semilog_slope, value_at
from ntk_divergence.reproduce.config import Case, Config

__all__ = ["case_claims", "case_per_seed", "claims", "per_seed"]


def per_seed(traces: dict[str, Any], config: Config) -> dict[str, np.ndarray]:
    """``(n_seeds, n_widths)`` arrays of the quantities the claims compare."""
    S = config.steps
    ce, mse = traces["network-ce"], traces["network-mse"]
    out: dict[str, list[list[float]]] = {k: [] for k in (
        "ce_last", "ce_tenth", "mse_last", "mse_tenth", "kc_ce", "kc_mse", "kc_ce_rise", "margin_slope",
        "sup_dev_max")}  # fmt: skip
    for i in range(config.n_seeds):
        rows: dict[str, list[float]] = {k: [] for k in out}
        for m in config.widths:
            c, q = ce[m][i], mse[m][i]
            rows["ce_last"].append(c.param_dist[-1])
            rows["ce_tenth"].append(value_at(c.steps, c.param_dist, S / 10))
            rows["mse_last"].append(q.param_dist[-1])
            rows["mse_tenth"].append(value_at(q.steps, q.param_dist, S / 10))
            rows["kc_ce"].append(c.kernel_change[-1])
            rows["kc_mse"].append(q.kernel_change[-1])
            rows["kc_ce_rise"].append(c.kernel_change[-1] - c.kernel_change[-2])
            half = c.steps >= np.sqrt(S)  # the second half of the run in log t
            rows["margin_slope"].append(semilog_slope(c.steps[half], c.min_margin[half]))
            rows["sup_dev_max"].append(float(np.max(c.kernel_dev_max)))
        for k in out:
            out[k].append(rows[k])
    return {k: np.asarray(v, dtype=float) for k, v in out.items()}


def claims(
    pd: dict[str, np.ndarray],
    sweep: np.ndarray,
    res_sweep: np.ndarray,
    traces: dict[str, Any],
    config: Config,
    seeds: tuple[int, ...],
) -> tuple[list[Claim], dict[str, Any]]:
    q = per_seed(traces, config)
    widths = np.asarray(config.widths, float)
    slope_init = loglog_slope(np.asarray(config.sweep_widths, float), sweep.mean(axis=0))
    res_slope = loglog_slope(np.asarray(config.sweep_widths, float), res_sweep.mean(axis=0))
    mse_slopes = np.array([loglog_slope(widths, row) for row in q["kc_mse"]])
    out = [
        _gate(traces),
        *_kernel_claims(pd, slope_init, res_slope, config),
        *_training_claims(q, mse_slopes, traces, config, seeds),
    ]
    metrics = {
        "pd": {k: v.tolist() for k, v in pd.items()},
        "width_sweep": {
            "widths": list(config.sweep_widths),
            "rel_error": sweep.tolist(),
            "slope": slope_init,
            "resnet_rel_error": res_sweep.tolist(),
            "resnet_slope": res_slope,
        },
        "per_seed": {k: v.tolist() for k, v in q.items()},
        "lambda0": traces["lambda0"].tolist(),
        "mse_kernel_width_slopes": mse_slopes.tolist(),
    }
    return out, metrics


def _gate(traces: dict[str, Any]) -> Claim:
    ce_margin = min(float(t.min_margin[-1]) for trs in traces["network-ce"].values() for t in trs)
    mse_loss = max(float(t.loss[-1]) for trs in traces["network-mse"].values() for t in trs)
    return Claim.at_least(
        "gate-substrate",
        "Gate: GD fits the training set (CE separates it, MSE interpolates it) before claims are judged",
        "min over CE runs of min_i y_i f_S(x_i) (details: max final MSE loss)",
        ce_margin,
        0.0,
        paper="ours (gate)",
        details={"max_mse_loss": mse_loss},
    )


def _kernel_claims(
    pd: dict[str, np.ndarray], slope_init: float, res_slope: float, config: Config
) -> list[Claim]:
    """Sec. 3's strict positive definiteness and the width convergence at init (FCN and ResNet)."""
    mg, src1 = config.margins, "Sec. 3 (strict PD theorems)"
    return [
        Claim.at_least(
            "strict-pd",
            "The FCN NTK with biases is strictly PD on distinct inputs (incl. x and 2x, near-duplicates)",
            "min over stress sets of lambda_min(Theta) / (tr Theta / n)",
            float(pd["pd_ratio"].min()),
            mg.pd_ratio,
            paper=f"{src1}: > 0",
            details={"max_condition": float(pd["condition"].max())},
        ),
        Claim.at_least(
            "resnet-strict-pd",
            "The ResNet NTK with biases is strictly PD on distinct inputs (incl. x and 2x, near-duplicates)",
            "min over stress sets of lambda_min(Theta_ResNet) / (tr Theta / n), 1 block, alpha = 1",
            float(pd["resnet_pd_ratio"].min()),
            mg.pd_ratio,
            paper=f"{src1}: > 0",
        ),
        Claim.at_most(
            "no-bias-singular",
            "Without biases the kernel is singular on parallel pairs (why the biases matter)",
            "max over stress sets of lambda_min(Theta without biases)",
            float(np.abs(pd["nobias_lambda"]).max()),
            mg.nobias_lambda,
            paper=f"{src1}: 0 (ours as a check)",
        ),
        Claim.between(
            "width-convergence",
            "At init the empirical NTK converges to Theta as width grows",
            "log-log slope of ||K_0 - Theta||_F/||Theta||_F vs width (mean over init seeds)",
            slope_init,
            *mg.width_slope,
            paper="NTK theory: -1/2 (spec range)",
        ),
        Claim.between(
            "resnet-width-convergence",
            "At init the empirical ResNet NTK converges to the analytic ResNet NTK as width grows",
            "log-log slope of ||K_0 - Theta_ResNet||_F/||Theta_ResNet||_F vs width (mean over init seeds)",
            res_slope,
            *mg.width_slope,
            paper="ours (checks the analytic ResNet kernel); theory -1/2",
        ),
    ]


def _training_claims(
    q: dict[str, np.ndarray],
    mse_slopes: np.ndarray,
    traces: dict[str, Any],
    config: Config,
    seeds: tuple[int, ...],
) -> list[Claim]:
    """Thm. 1 / Cor. 1 and Thm. 2 under CE, against lazy MSE from the same theta_0."""
    mg, rng = config.margins, np.random.default_rng(0)
    bound = traces["lambda0"] / (2 * config.n**2)
    log_ratio = paired_difference(
        np.log(q["ce_last"]), np.log(q["mse_last"]), rng=rng, names=("log CE", "log MSE"), seeds=seeds
    )
    log_drift = paired_difference(
        np.log(q["kc_ce"]), np.log(q["kc_mse"]), rng=rng, names=("log CE", "log MSE"), seeds=seeds
    )
    growth = q["ce_last"] / q["ce_tenth"]
    mse_change = np.abs(q["mse_last"] / q["mse_tenth"] - 1)
    src_t1, src_t2 = "Thm. 1 / Cor. 1", "Thm. 2"
    return [
        Claim.at_least(
            "ce-param-growth",
            "Under CE the parameters keep moving away from theta_0",
            "min over seeds and widths of ||theta_S - theta_0|| / ||theta_{S/10} - theta_0||",
            float(growth.min()),
            mg.ce_growth,
            paper=f"{src_t1}: -> infinity",
        ),
        ci_claim(
            "ce-vs-mse-params",
            "CE moves the parameters much further than MSE from the same theta_0",
            "paired log(||theta_S - theta_0|| CE) - log(same, MSE) over seeds, all widths",
            log_ratio,
            above=float(np.log(mg.ce_over_mse)),
            paper=f"{src_t1} vs lazy MSE; spec: >= log 3",
        ),
        Claim.at_most(
            "mse-lazy",
            "Under MSE the parameters settle (lazy training)",
            "max over seeds and widths of |d(S)/d(S/10) - 1|, d = ||theta_t - theta_0||",
            float(mse_change.max()),
            mg.mse_flat,
            paper="NTK theory (contrast)",
        ),
        Claim.at_most(
            "mse-kernel-width",
            "Under MSE the kernel change shrinks with width",
            "max over seeds of the log-log slope of the final MSE relative kernel change vs width",
            float(mse_slopes.max()),
            mg.mse_width_slope,
            paper="NTK theory: -1/2",
        ),
        ci_claim(
            "ce-kernel-drift",
            "Under CE the kernel drifts far more than under MSE, at every width",
            "paired log(||K_S - K_0||_F/||K_0||_F, CE) - log(same, MSE), all widths",
            log_drift,
            above=float(np.log(mg.drift_ratio)),
            paper=f"{src_t2}; spec: >= log 5",
        ),
        Claim.at_least(
            "ce-kernel-still-rising",
            "The CE kernel change is still increasing at the end",
            "min over seeds and widths of the change between the last two checkpoints",
            float(q["kc_ce_rise"].min()),
            0.0,
            paper=f"{src_t2}: no uniform convergence",
        ),
        Claim.at_least(
            "margin-log-growth",
            "Min margins grow in log t under CE (implicit bias; Thm. 1)",
            "min over seeds and widths of d min_i y_i f_t(x_i) / d log t over t >= sqrt(S)",
            float(q["margin_slope"].min()),
            mg.margin_slope,
            paper=f"{src_t1}: y_i f_t(x_i) -> infinity",
        ),
        Claim.at_least(
            "deviation-bound",
            "The kernel leaves Theta by at least lambda_0/(2 n^2)",
            "min over seeds and widths of sup_t max_ij |K_t - Theta| / (lambda_0 / (2 n^2))",
            float((q["sup_dev_max"] / bound[:, None]).min()),
            mg.bound_ratio,
            paper=f"{src_t2} (per reviews): >= 1",
        ),
    ]


def case_per_seed(tr: dict[str, Any], case: Case) -> dict[str, np.ndarray]:
    """``(n_seeds,)`` arrays of what the case claims compare (one width)."""
    S = case.steps
    ce, mse = tr["network-ce"], tr["network-mse"]
    late = [c.steps >= np.sqrt(S) for c in ce]  # the second half of the run in log t
    slopes = [semilog_slope(c.steps[h], c.min_margin[h]) for c, h in zip(ce, late, strict=True)]
    return {
        "ce_last": np.array([c.param_dist[-1] for c in ce]),
        "ce_tenth": np.array([value_at(c.steps, c.param_dist, S / 10) for c in ce]),
        "mse_last": np.array([q.param_dist[-1] for q in mse]),
        "kc_ce": np.array([c.kernel_change[-1] for c in ce]),
        "kc_mse": np.array([q.kernel_change[-1] for q in mse]),
        "kc_ce_rise": np.array([c.kernel_change[-1] - c.kernel_change[-2] for c in ce]),
        "margin_slope": np.array(slopes),
        "sup_dev_max": np.array([float(np.max(c.kernel_dev_max)) for c in ce]),
        "ce_margin": np.array([c.min_margin[-1] for c in ce]),
        "mse_loss": np.array([q.loss[-1] for q in mse]),
    }


def case_claims(
    case: Case, tr: dict[str, Any], config: Config, seeds: tuple[int, ...]
) -> tuple[list[Claim], dict[str, Any]]:
    """The CE-vs-MSE claims of one extra case (ResNet; digits binary; digits 10-class softmax)."""
    mg, q, c = config.margins, case_per_seed(tr, case), case.name
    rng = np.random.default_rng(1)
    binary = case.data != "digits" or len(case.classes) == 2
    where = f"{case.arch}, {case.data}, m = {case.width}, S = {case.steps}"
    src = "Thm. 1 / Cor. 1" + (" (ResNet)" if case.arch == "resnet" else "")
    src = src if binary else f"{src}; Sec. 5 MNIST experiment, softmax CE (best reading)"
    pair = dict(rng=rng, names=("log CE", "log MSE"), seeds=seeds)
    out = [
        Claim.at_least(
            f"{c}-gate",
            f"Gate ({where}): GD fits the training set (CE separates it) before the case's claims are judged",
            "min over seeds of the final min margin under CE (details: max final MSE loss)",
            float(q["ce_margin"].min()), 0.0, paper="ours (gate)",
            details={"max_mse_loss": float(q["mse_loss"].max())},
        ),
        Claim.at_least(
            f"{c}-ce-param-growth", f"Under CE the parameters keep moving away from theta_0 ({where})",
            "min over seeds of ||theta_S - theta_0|| / ||theta_{S/10} - theta_0||",
            float((q["ce_last"] / q["ce_tenth"]).min()), mg.ce_growth, paper=f"{src}: -> infinity",
        ),
        ci_claim(
            f"{c}-ce-vs-mse-params",
            f"CE moves the parameters much further than MSE from the same theta_0 ({where})",
            "paired log(||theta_S - theta_0|| CE) - log(same, MSE) over seeds",
            paired_difference(np.log(q["ce_last"]), np.log(q["mse_last"]), **pair),  # type: ignore[arg-type]
            above=float(np.log(mg.ce_over_mse)), paper=f"{src} vs lazy MSE; spec: >= log 3",
        ),
        ci_claim(
            f"{c}-ce-kernel-drift", f"Under CE the kernel drifts far more than under MSE ({where})",
            "paired log(||K_S - K_0||_F/||K_0||_F, CE) - log(same, MSE) over seeds",
            paired_difference(np.log(q["kc_ce"]), np.log(q["kc_mse"]), **pair),  # type: ignore[arg-type]
            above=float(np.log(mg.drift_ratio)), paper="Thm. 2; spec: >= log 5",
        ),
        Claim.at_least(
            f"{c}-ce-kernel-still-rising", f"The CE kernel change is still increasing at the end ({where})",
            "min over seeds of the change between the last two checkpoints",
            float(q["kc_ce_rise"].min()), 0.0, paper="Thm. 2: no uniform convergence",
        ),
        Claim.at_least(
            f"{c}-margin-log-growth", f"Min margins grow in log t under CE ({where})",
            "min over seeds of d min margin / d log t over t >= sqrt(S)",
            float(q["margin_slope"].min()), mg.margin_slope, paper=f"{src}: margins -> infinity",
        ),
    ]  # fmt: skip
    if binary:
        bound = tr["lambda0"] / (2 * case.n**2)
        out.append(Claim.at_least(
            f"{c}-deviation-bound", f"The kernel leaves Theta by at least lambda_0/(2 n^2) ({where})",
            "min over seeds of sup_t max_ij |K_t - Theta| / (lambda_0 / (2 n^2))",
            float((q["sup_dev_max"] / bound).min()), mg.bound_ratio, paper="Thm. 2 (per reviews): >= 1",
        ))  # fmt: skip
    metrics = {k: v.tolist() for k, v in q.items()} | {"lambda0": tr["lambda0"].tolist()}
    return out, metrics
