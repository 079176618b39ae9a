"""Running the experiment: train the SNN per seed, deprive whiskers, train the baselines, check torch against
brian2, and simulate the full column in brian2; every part returns a typed record.

``run_cases(config, seed=..., device=...)`` returns :class:`Records`; ``run(config, seed=..., device=...)``
wraps them, with the claims and the tables, into a paperkit Report (``metrics`` is their JSON form).

brian2 is imported with the experiment, not first inside :mod:`barrel_snn.brian`'s functions: every run
needs it, and importing ``barrel_snn.reproduce`` is what the CI's bytecode warm-up does
(scripts/warm_bytecode.py), so brian2's and sympy's bytecode is then written outside the metered tests.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import brian2  # noqa: F401  (every run simulates in brian2: loaded with the experiment, see below)
import numpy as np
import torch
from paperkit import Report, torch_threads
from paperkit.validation import SEED_MAX, check_int, check_seed

from barrel_snn.analysis import constraint_violations, deprivation_curve, population_table
from barrel_snn.baselines import BASELINES
from barrel_snn.brian import compare_with_torch, simulate
from barrel_snn.data import encode_spikes, make_synthetic_sweeps
from barrel_snn.models import BarrelSNN
from barrel_snn.reproduce.claims import claims
from barrel_snn.reproduce.config import TWINS, Config, TwinCase
from barrel_snn.reproduce.tables import NOTES, tables, timing_note
from barrel_snn.training import accuracy, train


@dataclass(frozen=True, eq=False)
class SeedRecord:
    """One seed's trained SNN: test accuracy, per-epoch loss / training accuracy, constraint violations
    after training (:func:`~barrel_snn.analysis.constraint_violations`), CPU-clock training seconds."""

    seed: int
    test_acc: float
    train_loss: list[float]
    train_acc: list[float]
    violations: dict[str, int]
    train_seconds: float


@dataclass(frozen=True, eq=False)
class BaselineRecord:
    """One classical baseline trained on the first seed's data."""

    name: str
    test_acc: float
    seconds: float


@dataclass(frozen=True, eq=False)
class TwinRecord:
    """One torch twin against brian2: the rasters (trials, T, N) bool and their agreement."""

    case: TwinCase
    torch_raster: np.ndarray
    brian2_raster: np.ndarray
    identical_fraction: float
    mismatches: int
    torch_spikes: int
    brian2_spikes: int


@dataclass(frozen=True, eq=False)
class FullScaleRecord:
    """The untrained 4,218-neuron column in brian2 vs a torch no-grad forward of the same network."""

    neurons: int
    synapses: int
    trials: int
    brian2_run_s_per_1000_steps: float
    brian2_build_s_per_trial: float
    torch_dense_s_per_1000_steps: float
    identical_fraction: float
    populations: list[dict[str, Any]]


@dataclass(frozen=True, eq=False)
class Records:
    """Every part of one run. ``deprivation``: #deprived whiskers -> accuracies over draws (first seed's
    model); ``twins``: keyed by their case, in :data:`~barrel_snn.reproduce.config.TWINS` order;
    ``seconds``: wall-clock seconds of the deprivation and agreement parts (for the notes only)."""

    seeds: tuple[int, ...]
    per_seed: Mapping[int, SeedRecord]
    n_neurons: int
    populations_per_neuron: list[int]
    deprivation: Mapping[int, list[float]]
    baselines: Mapping[str, BaselineRecord]
    twins: Mapping[str, TwinRecord]
    full_scale: FullScaleRecord | None
    seconds: Mapping[str, float]


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


def train_seed(config: Config, seed: int, device: str) -> tuple[SeedRecord, dict[str, np.ndarray], BarrelSNN]:
    """Train one seed's SNN on its own data; returns its record, its data and the trained model."""
    d = make_data(config, seed)
    model = build_snn(config, seed, device)
    t0 = time.perf_counter()
    hist = train(
        model, d["xf_tr"], d["xt_tr"], d["y_tr"], epochs=config.epochs, lr=config.lr, batch=config.batch,
        seed=seed,
    )  # fmt: skip
    seconds = time.perf_counter() - t0
    record = SeedRecord(
        seed=seed,
        test_acc=accuracy(model, d["xf_te"], d["xt_te"], d["y_te"]),
        train_loss=hist.loss,
        train_acc=hist.train_acc,
        violations=constraint_violations(model),
        train_seconds=seconds,
    )
    return record, d, model


def train_baselines(
    config: Config, d: dict[str, np.ndarray], seed: int, device: str
) -> dict[str, BaselineRecord]:
    """LSTM, GRU and CNN trained on ``d`` (the first seed's data) with the SNN's batch."""
    out: dict[str, BaselineRecord] = {}
    for name, cls in BASELINES.items():
        t0 = time.perf_counter()
        net = cls(seed=seed, device=device)
        train(
            net, d["xf_tr"], d["xt_tr"], d["y_tr"], epochs=config.baseline_epochs, lr=config.baseline_lr,
            batch=config.batch, seed=seed,
        )  # fmt: skip
        acc = accuracy(net, d["xf_te"], d["xt_te"], d["y_te"])
        out[name] = BaselineRecord(name=name, test_acc=acc, seconds=time.perf_counter() - t0)
    return out


def check_twins(
    config: Config, model: BarrelSNN, d: dict[str, np.ndarray], seed: int, device: str
) -> dict[str, TwinRecord]:
    """Every twin of :data:`TWINS`: the trained weights copied into it, simulated against brian2."""
    xf = torch.as_tensor(d["xf_te"][: config.brian_trials], device=device)
    xt = torch.as_tensor(d["xt_te"][: config.brian_trials], device=device)
    out: dict[str, TwinRecord] = {}
    for case in TWINS:
        twin = build_snn(config, seed, device, update_order=case.order, dtype=case.dtype)
        twin.load_state_dict(model.state_dict())
        r = compare_with_torch(twin, xf.to(case.dtype), xt.to(case.dtype), trials=config.brian_trials)
        out[case.tag] = TwinRecord(
            case=case,
            torch_raster=r["torch"],
            brian2_raster=r["brian2"],
            identical_fraction=r["identical_fraction"],
            mismatches=r["mismatches"],
            torch_spikes=r["torch_spikes"],
            brian2_spikes=r["brian2_spikes"],
        )
    return out


def simulate_full_scale(config: Config, d: dict[str, np.ndarray], seed: int) -> FullScaleRecord:
    """The untrained 4,218-neuron column (float64, jacobi) in brian2 and in torch on the same inputs."""
    big = BarrelSNN(scale=1.0, update_order="jacobi", sparse=False, dtype=torch.float64, seed=seed)
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
    return FullScaleRecord(
        neurons=big.n,
        synapses=int(np.size(params["rec_w"])),
        trials=len(xb),
        brian2_run_s_per_1000_steps=1000 * sum(r.run_s for r in runs) / steps,
        brian2_build_s_per_trial=float(np.mean([r.build_s for r in runs])),
        torch_dense_s_per_1000_steps=1000 * torch_s / steps,
        identical_fraction=float(np.mean(b_r == t_r)),
        populations=population_table(b_r, big.neuron_population()),
    )


def run_cases(config: Config, *, seed: int = 0, device: str = "cpu") -> Records:
    """Every part of the reproduction on seeds ``seed .. seed + n_seeds - 1`` (deprivation, baselines and
    the brian2 checks on the first seed's data and model), one torch thread."""
    check_seed(seed)
    check_int(seed + config.n_seeds - 1, "seed + n_seeds - 1", high=SEED_MAX)
    seeds = tuple(range(seed, seed + config.n_seeds))
    with torch_threads(1):  # restored afterwards; tiny per-step ops run fastest on one thread
        trained = [train_seed(config, s, device) for s in seeds]
        _, d, model = trained[0]
        t0 = time.perf_counter()
        dep = deprivation_curve(
            model, d["f_te"], d["t_te"], d["y_te"], config.dep_counts, config.dep_draws, seed=seeds[0],
            dt_rep=config.dt_rep,
        )  # fmt: skip
        dep_s = time.perf_counter() - t0
        baselines = train_baselines(config, d, seeds[0], device)
        t0 = time.perf_counter()
        twins = check_twins(config, model, d, seeds[0], device)
        twin_s = time.perf_counter() - t0
        full = simulate_full_scale(config, d, seeds[0]) if config.brian_full_trials > 0 else None
    return Records(
        seeds=seeds,
        per_seed={r.seed: r for r, _, _ in trained},
        n_neurons=model.n,
        populations_per_neuron=model.neuron_population().tolist(),
        deprivation=dep,
        baselines=baselines,
        twins=twins,
        full_scale=full,
        seconds={"deprivation_s": dep_s, "brian2_agreement_s": twin_s},
    )


def metrics(records: Records) -> dict[str, Any]:
    """The records' JSON form (results.json ``metrics``): no wall-clock numbers, so that the same seed gives
    the same metrics."""
    first = records.per_seed[records.seeds[0]]
    mean_base = float(np.mean([b.test_acc for b in records.baselines.values()]))
    best_base = max(b.test_acc for b in records.baselines.values())
    raster = records.twins["jacobi_f64"]
    full = records.full_scale
    return {
        "seeds": list(records.seeds),
        "per_seed": {
            str(s): {"test_acc": r.test_acc, "train_loss": r.train_loss, "train_acc": r.train_acc,
                     "violations": r.violations}
            for s, r in records.per_seed.items()
        },
        "baselines": {k: b.test_acc for k, b in records.baselines.items()},
        "baseline_comparison": {
            "snn_minus_mean_baseline": first.test_acc - mean_base,
            "snn_minus_best_baseline": first.test_acc - best_base,
            "paper": "+8.6 points over CNN/RNN/LSTM on average (real data)",
        },
        "deprivation": {str(k): v for k, v in records.deprivation.items()},
        "agreement": {
            k: {"identical_fraction": t.identical_fraction, "mismatches": t.mismatches,
                "torch_spikes": t.torch_spikes, "brian2_spikes": t.brian2_spikes}
            for k, t in records.twins.items()
        },
        "full_scale_brian2": (
            {"neurons": full.neurons, "synapses": full.synapses, "trials": full.trials,
             "identical_fraction": full.identical_fraction} if full else {}
        ),
        "raster": {"torch": np.argwhere(raster.torch_raster[0]).tolist(),
                   "brian2": np.argwhere(raster.brian2_raster[0]).tolist()},
        "raster_shape": list(raster.torch_raster[0].shape),
        "populations_per_neuron": records.populations_per_neuron,
        "population_rates_full": [r["rate (spikes/step)"] for r in full.populations] if full else [],
    }  # fmt: skip


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Every experiment of the reproduction on seeds ``seed .. seed + n_seeds - 1``, as a paperkit Report."""
    records = run_cases(config, seed=seed, device=device)
    return Report(
        metrics=metrics(records),
        claims=claims(records, config),
        tables=tables(records),
        notes=[*NOTES, timing_note(records)],
    )
