"""The reproduction: train the constrained barrel-column SNN on synthetic whisker sweeps, deprive whiskers,
audit the constraints, check torch against brian2 spike for spike, and compare with LSTM/GRU/CNN.

``run(config, seed=..., device=...)`` returns a :class:`paperkit.Report`; ``plots(report)`` draws it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from paperkit import Claim, Report, torch_threads

from barrel_snn.analysis import constraint_violations, deprivation_curve, population_table
from barrel_snn.anatomy import POPULATIONS, check_scale
from barrel_snn.baselines import BASELINES
from barrel_snn.brian import compare_with_torch, simulate
from barrel_snn.data import encode_spikes, make_synthetic_sweeps
from barrel_snn.model import BarrelSNN
from barrel_snn.training import accuracy, train

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Config:
    """Scale and settings (defaults: the full run). Method defaults are the official code's.

    Attributes:
        scale: network fraction of the 4,218-neuron column (spec's full plan 0.25; we use 0.1, see README).
        sparse: sparse COO synapses in training (the same numbers as dense masked; speed only).
        n_train, n_test: synthetic sweeps; dt_rep: frame repetition (official 5; spec's plan 1, T = 110);
            frames: frames per sweep (the data set's 110; fewer only for the smoke scale).
        epochs, batch, lr: training (x5 tau_adp, x2 tau_m, StepLR(20, 0.8) as official). The official lr
            8e-3 goes with batch 128; at our batch 16 it saturates the readout softmax of seed 1 within 4
            steps (RESULTS.md), so the full run uses 2e-3 (a deviation); the quick run keeps 8e-3.
        init_w, init_b: official 0.06, 0.04 (spiking data).
        n_seeds: seeds s, s+1, ... each with its own data, weights and masks.
        dep_counts, dep_draws: whisker-deprivation conditions (first seed's model).
        baseline_epochs, baseline_lr: LSTM / GRU / CNN training (Adam, 1e-3, batch as the SNN).
        brian_trials: test samples simulated in brian2 for the agreement check (trained model, jacobi).
        brian_full_trials: trials of the untrained full-scale (4,218 neurons) brian2 simulation; 0 = skip.
        *_min / *_max: the claims' bounds, frozen from the calibration run recorded in the README.
    """

    scale: float = 0.1
    sparse: bool = False
    n_train: int = 240
    n_test: int = 120
    dt_rep: int = 1
    frames: int = 110
    epochs: int = 5
    batch: int = 16
    lr: float = 2e-3  # deviation: official 8e-3 at batch 128 (see the docstring and RESULTS.md)
    init_w: float = 0.06
    init_b: float = 0.04
    n_seeds: int = 3
    dep_counts: tuple[int, ...] = (0, 1, 2, 4, 8)
    dep_draws: int = 4
    baseline_epochs: int = 10
    baseline_lr: float = 1e-3
    brian_trials: int = 2
    brian_full_trials: int = 3
    acc_min: float = 0.70  # spec's full-run bound
    dep_drop_min: float = 0.05  # spec's full-run bound
    dep_spearman_max: float = -0.6  # spec's full-run bound

    def __post_init__(self) -> None:
        check_scale(self.scale)
        for name in ("n_train", "n_test", "epochs", "batch", "n_seeds", "brian_trials", "dt_rep", "frames"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an int >= 1, got {v!r}")
        if self.brian_trials > self.n_test:
            raise ValueError("brian_trials must be <= n_test")
        if 0 not in self.dep_counts or len(self.dep_counts) < 2:
            raise ValueError("dep_counts must contain 0 (intact) and at least one deprived count")

    @classmethod
    def quick(cls) -> Config:
        """About a minute on 2 quiet cores: scale 0.05 (213 neurons), 240/90 sweeps, 3 epochs, 1 seed."""
        return cls(
            scale=0.05,
            n_train=240,
            n_test=90,
            epochs=3,
            lr=8e-3,  # the official lr; seed 0 at scale 0.05 does not collapse with it (calibration run)
            n_seeds=1,
            dep_counts=(0, 1, 4, 8),
            dep_draws=3,
            baseline_epochs=10,
            brian_trials=1,
            brian_full_trials=0,
            # frozen from the calibration run (seed 0, README): half the observed gap to the rival
            acc_min=0.46,  # observed 0.589, chance 1/3
            dep_drop_min=0.015,  # observed 0.033, no effect 0
            dep_spearman_max=-0.29,  # observed -0.584, no trend 0
        )

    @classmethod
    def full(cls) -> Config:
        """About 5 minutes on 2 quiet cores: scale 0.1 (421 neurons), 240/120 sweeps, 5 epochs, lr 2e-3,
        3 seeds, brian2 at full scale (3 trials)."""
        return cls()

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: scale 0.02, 24/12 sweeps of 30 frames, 1 epoch; claims not meaningful."""
        return cls(
            scale=0.02,
            n_train=24,
            n_test=12,
            frames=30,
            epochs=1,
            batch=12,
            n_seeds=1,
            dep_counts=(0, 2),
            dep_draws=1,
            baseline_epochs=1,
            brian_trials=1,
            brian_full_trials=0,
        )


def make_data(config: Config, seed: int) -> dict[str, np.ndarray]:
    """Synthetic sweeps of ``seed`` spike-encoded and split: ``xf_tr, xt_tr, y_tr`` (train spikes and labels),
    ``xf_te, xt_te, y_te`` (test), ``f_te, t_te`` (the test sweeps' raw force/torque, for deprivation)."""
    n = config.n_train + config.n_test
    force, torque, labels = make_synthetic_sweeps(n, seed=seed, frames=config.frames)
    xf, xt = encode_spikes(force, torque, np.random.default_rng(seed + 1), dt_rep=config.dt_rep)
    tr, te = slice(0, config.n_train), slice(config.n_train, n)
    return {
        "xf_tr": xf[tr],
        "xt_tr": xt[tr],
        "y_tr": labels[tr],
        "xf_te": xf[te],
        "xt_te": xt[te],
        "y_te": labels[te],
        "f_te": force[te],
        "t_te": torque[te],
    }


def build_snn(config: Config, seed: int, device: str, **kw: Any) -> BarrelSNN:
    """A fresh SNN at ``config``'s scale with weights and masks from ``seed``; ``kw`` overrides arguments."""
    args: dict[str, Any] = {
        "scale": config.scale,
        "init_w": config.init_w,
        "init_b": config.init_b,
        "sparse": config.sparse,
        "mask_seed": 515 + seed,
        "seed": seed,
        "device": device,
    }
    args.update(kw)
    return BarrelSNN(**args)


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    from scipy.stats import spearmanr

    r = spearmanr(x, y).statistic
    return float(r) if np.isfinite(r) else float("nan")


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Every experiment of the reproduction on seeds ``seed .. seed + n_seeds - 1``."""
    with torch_threads(1):  # restored afterwards; tiny per-step ops run fastest on one thread
        return _run(config, seed=seed, device=device)


def _run(config: Config, *, seed: int, device: str) -> Report:
    seeds = list(range(seed, seed + config.n_seeds))
    per_seed: dict[str, dict[str, Any]] = {}
    timings: dict[str, float] = {}
    first: dict[str, Any] = {}
    for k, s in enumerate(seeds):
        d = make_data(config, s)
        model = build_snn(config, s, device)
        t0 = time.perf_counter()
        hist = train(
            model, d["xf_tr"], d["xt_tr"], d["y_tr"], epochs=config.epochs, lr=config.lr,
            batch=config.batch, seed=s,
        )  # fmt: skip
        timings[f"train_seed{s}_s"] = time.perf_counter() - t0
        acc = accuracy(model, d["xf_te"], d["xt_te"], d["y_te"])
        per_seed[str(s)] = {
            "test_acc": acc,
            "train_loss": hist.loss,
            "train_acc": hist.train_acc,
            "violations": constraint_violations(model),
        }
        if k == 0:
            first = {"data": d, "model": model}
    d, model = first["data"], first["model"]
    s0 = seeds[0]

    # Whisker deprivation (first seed's trained model, its test set).
    t0 = time.perf_counter()
    dep = deprivation_curve(
        model, d["f_te"], d["t_te"], d["y_te"], config.dep_counts, config.dep_draws, seed=s0,
        dt_rep=config.dt_rep,
    )  # fmt: skip
    timings["deprivation_s"] = time.perf_counter() - t0
    dep_k = np.concatenate([[k] * len(v) for k, v in dep.items()]).astype(float)
    dep_acc = np.concatenate([v for v in dep.values()])
    dep_mean = {str(k): float(np.mean(v)) for k, v in dep.items()}
    kmax = max(config.dep_counts)

    # Baselines on the first seed's data.
    base_acc: dict[str, float] = {}
    for name, cls in BASELINES.items():
        t0 = time.perf_counter()
        net = cls(seed=s0, device=device)
        train(
            net, d["xf_tr"], d["xt_tr"], d["y_tr"], epochs=config.baseline_epochs, lr=config.baseline_lr,
            batch=config.batch, seed=s0,
        )  # fmt: skip
        base_acc[name] = accuracy(net, d["xf_te"], d["xt_te"], d["y_te"])
        timings[f"baseline_{name}_s"] = time.perf_counter() - t0

    # torch vs brian2: the trained weights in a float64 jacobi copy, and a float32 one; the official
    # sequential order as a guard (it must differ).
    t0 = time.perf_counter()
    xf = torch.as_tensor(d["xf_te"][: config.brian_trials], device=device)
    xt = torch.as_tensor(d["xt_te"][: config.brian_trials], device=device)
    agree: dict[str, dict[str, Any]] = {}
    for tag, order, dtype in (
        ("jacobi_f64", "jacobi", torch.float64),
        ("jacobi_f32", "jacobi", torch.float32),
        ("sequential_f64", "sequential", torch.float64),
    ):
        twin = build_snn(config, s0, device, update_order=order, dtype=dtype)
        twin.load_state_dict(model.state_dict())
        agree[tag] = compare_with_torch(twin, xf.to(dtype), xt.to(dtype), trials=config.brian_trials)
    timings["brian2_agreement_s"] = time.perf_counter() - t0
    raster = {"torch": agree["jacobi_f64"]["torch"][0], "brian2": agree["jacobi_f64"]["brian2"][0]}

    # Full-scale brian2 (4,218 neurons, untrained) vs a torch no-grad forward of the same network.
    full: dict[str, Any] = {}
    pop_rows: list[dict[str, Any]] = []
    if config.brian_full_trials > 0:
        big = BarrelSNN(scale=1.0, update_order="jacobi", sparse=False, dtype=torch.float64, seed=s0)
        xb = torch.as_tensor(d["xf_te"][: config.brian_full_trials], dtype=torch.float64)
        tb = torch.as_tensor(d["xt_te"][: config.brian_full_trials], dtype=torch.float64)
        t0 = time.perf_counter()
        with torch.no_grad():
            _, rec = big(xb, tb, record=True)
            st = big.initial_state(len(xb))
        torch_s = time.perf_counter() - t0
        assert rec is not None
        params = big.export()
        runs = [
            simulate(params, rec.thalamic[:, k].numpy() > 0.5, st["u"][k].numpy(), st["s"][k].numpy())
            for k in range(len(xb))
        ]
        b_r = np.stack([r.spikes for r in runs])
        t_r = rec.spikes.numpy().transpose(1, 0, 2) > 0.5
        steps = len(xb) * b_r.shape[1]
        full = {
            "neurons": big.n,
            "synapses": int(np.size(params["rec_w"])),
            "trials": len(xb),
            "brian2_run_s_per_1000_steps": 1000 * sum(r.run_s for r in runs) / steps,
            "brian2_build_s_per_trial": float(np.mean([r.build_s for r in runs])),
            "torch_dense_s_per_1000_steps": 1000 * torch_s / steps,
            "identical_fraction": float(np.mean(b_r == t_r)),
        }
        pop_rows = population_table(b_r, big.neuron_population())

    # ---- claims ----
    accs = [per_seed[str(s)]["test_acc"] for s in seeds]
    viol = {k: sum(per_seed[str(s)]["violations"][k] for s in seeds) for k in per_seed[str(s0)]["violations"]}
    scale_txt = (
        f"scale {config.scale:g} ({model.n} neurons), {config.n_train}/{config.n_test} synthetic sweeps, "
        f"T = {config.frames * config.dt_rep}, {config.epochs} epochs, batch {config.batch}, "
        f"{len(seeds)} seed(s)"
    )
    best_base = max(base_acc.values())
    mean_base = float(np.mean(list(base_acc.values())))
    claims = [
        Claim.at_least(
            "learns-task",
            "The constrained barrel-cortex SNN learns 3-way object discrimination from whisker spikes",
            f"test accuracy, minimum over seeds; chance 1/3; {scale_txt}",
            min(accs),
            config.acc_min,
            paper="above CNN/RNN/LSTM by 8.6 points on average (real data; absolute accuracy not retrieved)",
            details={f"seed{s}": a for s, a in zip(seeds, accs, strict=True)},
        ),
        Claim.at_least(
            "deprivation-lowers-accuracy",
            "Whisker deprivation lowers accuracy",
            f"intact test accuracy minus mean accuracy with {kmax} deprived whiskers "
            f"({config.dep_draws} draws), first seed",
            dep_mean["0"] - dep_mean[str(kmax)],
            config.dep_drop_min,
            paper="accuracy falls as more whiskers are removed (figure; numbers not retrieved)",
            details={f"acc_{k}_whiskers": v for k, v in dep_mean.items()},
        ),
        Claim.at_most(
            "deprivation-monotone",
            "Accuracy decreases with the number of deprived whiskers",
            "Spearman correlation of #deprived whiskers and accuracy over all draws, first seed",
            _spearman(dep_k, dep_acc),
            config.dep_spearman_max,
            paper="monotone decline (figure)",
        ),
        Claim.at_most(
            "constraints-hold",
            "Dale's law, the anatomical masks and the weight/time-constant ranges hold after training",
            "violations after training, all seeds: non-zero weights outside masks + values outside [0, 1] "
            "+ sign errors + negative thalamic weights + tau < 1",
            float(sum(viol.values())),
            0.0,
            paper="constraints kept through training (method)",
            details={k: float(v) for k, v in viol.items()},
        ),
        Claim.at_least(
            "brian2-equals-torch",
            "brian2 reproduces the torch network spike for spike under the shared (jacobi) update order",
            f"fraction of identical raster entries, float64, trained weights, {config.brian_trials} test "
            f"trial(s) x {raster['torch'].shape[0]} steps x {model.n} neurons",
            agree["jacobi_f64"]["identical_fraction"],
            1.0,
            paper="(spec claim 4; not in the paper)",
            details={
                "mismatches_f64": agree["jacobi_f64"]["mismatches"],
                "torch_spikes_f64": agree["jacobi_f64"]["torch_spikes"],
                "identical_fraction_f32": agree["jacobi_f32"]["identical_fraction"],
                "identical_fraction_sequential_vs_brian2": agree["sequential_f64"]["identical_fraction"],
                **({"identical_fraction_full_scale_untrained": full["identical_fraction"]} if full else {}),
            },
        ),
    ]
    table = [
        {"model": f"barrel SNN ({model.n} neurons, seed {s})", "test accuracy": per_seed[str(s)]["test_acc"],
         "train s": timings[f"train_seed{s}_s"]}
        for s in seeds
    ] + [
        {"model": k, "test accuracy": v, "train s": timings[f"baseline_{k}_s"]} for k, v in base_acc.items()
    ]  # fmt: skip
    dep_table = [
        {"deprived whiskers": k, "mean accuracy": float(np.mean(v)), "min": min(v), "max": max(v),
         "draws": len(v)}
        for k, v in dep.items()
    ]  # fmt: skip
    baseline_report = {
        "SNN": accs[0],
        **base_acc,
        "SNN - mean(LSTM, GRU, CNN)": accs[0] - mean_base,
        "SNN - best baseline": accs[0] - best_base,
    }
    tables: dict[str, list[dict[str, Any]]] = {
        "Test accuracy": table,
        "Baseline comparison (spec claim 5, report-only: not gated)": [baseline_report],
        "Whisker deprivation": dep_table,
    }
    if full:
        tables["brian2 at full scale (untrained, 4,218 neurons)"] = [full]
        tables["Per-subtype activity, brian2 full scale (untrained)"] = pop_rows
    notes = [
        "Data: synthetic whisker sweeps (the real h5 files are not available); see the README.",
        "Torch uses the official sequential population order for training; the brian2 check uses a "
        "float64 jacobi twin with the trained weights (sequential vs brian2 is reported as a guard).",
        f"Timings (s, shared 2-core machine): {', '.join(f'{k} {v:.1f}' for k, v in timings.items())}.",
    ]
    metrics = {
        "seeds": seeds,
        "per_seed": per_seed,
        "baselines": base_acc,
        "baseline_comparison": {
            "snn_minus_mean_baseline": accs[0] - mean_base,
            "snn_minus_best_baseline": accs[0] - best_base,
            "paper": "+8.6 points over CNN/RNN/LSTM on average (real data)",
        },
        "deprivation": {str(k): v for k, v in dep.items()},
        "agreement": {k: {kk: vv for kk, vv in v.items() if kk not in ("torch", "brian2", "build_s", "run_s")}
                      for k, v in agree.items()},
        "full_scale_brian2": {k: v for k, v in full.items() if not k.endswith("_s_per_1000_steps")
                              and not k.endswith("_per_trial")},
        "raster": {k: np.argwhere(v).tolist() for k, v in raster.items()},
        "raster_shape": list(raster["torch"].shape),
        "populations_per_neuron": model.neuron_population().tolist(),
        "population_rates_full": [r["rate (spikes/step)"] for r in pop_rows],
    }  # fmt: skip
    return Report(metrics=metrics, claims=claims, tables=tables, notes=notes)


def plots(report: Report) -> dict[str, Figure]:
    """Training curves and accuracies; deprivation curve; torch vs brian2 raster; full-scale rates."""
    from matplotlib.figure import Figure

    m: Mapping[str, Any] = report.metrics
    figs: dict[str, Figure] = {}
    fig = Figure(figsize=(11, 4))
    ax = fig.add_subplot(1, 2, 1)
    for s, v in m["per_seed"].items():
        ax.plot(np.arange(1, len(v["train_acc"]) + 1), v["train_acc"], "o-", label=f"SNN seed {s} (train)")
    ax.axhline(1 / 3, color="k", ls=":", lw=1, label="chance")
    ax.set(xlabel="epoch", ylabel="training accuracy", title="Barrel SNN training")
    ax.legend(fontsize=8)
    ax = fig.add_subplot(1, 2, 2)
    names = [f"SNN s{s}" for s in m["per_seed"]] + list(m["baselines"])
    vals = [v["test_acc"] for v in m["per_seed"].values()] + list(m["baselines"].values())
    ax.bar(names, vals, color=["C0"] * len(m["per_seed"]) + ["C1"] * len(m["baselines"]), label="test")
    ax.axhline(1 / 3, color="k", ls=":", lw=1, label="chance")
    ax.set(ylabel="test accuracy", ylim=(0, 1), title="SNN vs classical baselines")
    ax.legend(fontsize=8)
    figs["accuracy"] = fig

    fig = Figure(figsize=(5.5, 4))
    ax = fig.add_subplot()
    ks = sorted(int(k) for k in m["deprivation"])
    for k in ks:
        v = m["deprivation"][str(k)]
        ax.scatter([k] * len(v), v, color="C0", alpha=0.4, s=12)
    ax.plot(ks, [np.mean(m["deprivation"][str(k)]) for k in ks], "o-", color="C0", label="mean over draws")
    ax.axhline(1 / 3, color="k", ls=":", lw=1, label="chance")
    ax.set(xlabel="deprived whiskers", ylabel="test accuracy", title="Whisker deprivation")
    ax.legend(fontsize=8)
    figs["deprivation"] = fig

    fig = Figure(figsize=(11, 4))
    T, N = m["raster_shape"]
    for n, key in enumerate(("torch", "brian2")):
        ax = fig.add_subplot(1, 2, n + 1)
        pts = np.asarray(m["raster"][key]).reshape(-1, 2)
        ax.scatter(pts[:, 0], pts[:, 1], s=2, color="k", label=f"{len(pts)} spikes")
        ax.set(xlabel="time step", ylabel="neuron (populations 0..12 in order)", xlim=(0, T), ylim=(0, N),
               title=f"{key} (jacobi order, float64)")  # fmt: skip
        ax.legend(fontsize=8, loc="upper right")
    figs["raster"] = fig

    rates = m.get("population_rates_full") or []
    if rates:
        fig = Figure(figsize=(8, 4))
        ax = fig.add_subplot()
        names = [p.name for p in POPULATIONS]
        cols = ["C3" if p.kind == "E" else "C0" for p in POPULATIONS]
        ax.bar(names, rates, color=cols, label="red E, blue I")
        ax.set(ylabel="spikes per step", title="brian2, 4,218 neurons (untrained): rate per subtype")
        ax.tick_params(axis="x", rotation=60)
        ax.legend(fontsize=8)
        fig.tight_layout()
        figs["subtype_rates"] = fig
    return figs


__all__ = ["Config", "build_snn", "make_data", "plots", "run"]
