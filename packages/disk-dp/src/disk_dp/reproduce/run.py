"""Running the experiment: every part of a Config on paired seeds, into typed records.

Parts: (1) classification on digits / breast_cancer at each target ε (σ from our accountant; the lr tuned
on a dev split in the full run), (2) the noisy quadratic in the spec's setting and in the unclipped regime
against the filter algebra, (3) our accountant against Opacus', (4) step cost. ``run_cases(config,
seed=..., device=...)`` returns :class:`Records`; ``run`` wraps them, with the claims and the tables, into
a paperkit Report (``metrics["classification"]`` maps each Case to its :class:`CaseRecord`).
"""

from __future__ import annotations

import importlib.util
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from paperkit import Report, Tuned, torch_threads, track, tune
from paperkit.validation import SEED_MAX, check_int, check_seed

from disk_dp import optim as O
from disk_dp.accounting import DEFAULT_ORDERS, eps_from_rdp, epsilon, noise_for_epsilon, rdp_by_integration
from disk_dp.data import Dataset, load
from disk_dp.models import logistic, mlp
from disk_dp.quadratic import (
    linear_model,
    noisy_quadratic_problem,
    observation_noise,
    predicted_excess,
    squared_error,
)
from disk_dp.reproduce.claims import claims
from disk_dp.reproduce.config import ADAM, HEAD, NON_PRIVATE, PRED_METHODS, QUAD_METHODS, Case, Config
from disk_dp.reproduce.tables import notes, tables
from disk_dp.sampling import PoissonSampler
from disk_dp.training import History, cross_entropy, steps_for_epochs, train

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class CaseRecord:
    """One classification case over its seeds: the lr used (and the dev-split accuracy of each grid lr
    when tuned), σ, q, T, the ε each run reported, test accuracy per seed and its mean, the seed-mean
    accuracy curve per epoch (epochs + 1,) and the seed-mean final training loss (nats)."""

    dataset: str
    eps_target: float
    method: str
    lr: float
    lr_validation_acc: Mapping[str, float]
    sigma: float
    q: float
    steps: int
    eps_reported: list[float]
    acc_per_seed: FloatArray
    acc_mean: float
    acc_curve_mean: FloatArray
    final_train_loss_mean: float


@dataclass(frozen=True, eq=False)
class QuadRecord:
    """One method on the noisy quadratic (spec setting): time-averaged excess loss over the last 20 % of
    steps per seed (S,) and its mean, and the seed-mean excess-loss curve (steps,)."""

    tail_excess_per_seed: FloatArray
    tail_excess_mean: float
    curve_mean: FloatArray


@dataclass(frozen=True, eq=False)
class PredictedTail:
    """One method in the unclipped regime: measured and predicted mean tail excess, and per seed (S,)."""

    measured: float
    predicted: float
    per_seed: FloatArray


@dataclass(frozen=True, eq=False)
class Prediction:
    """The unclipped regime at one lr: every PRED_METHOD, and DiSK/DP-SGD measured and predicted."""

    lr: float
    methods: Mapping[str, PredictedTail]
    ratio_measured: float
    ratio_predicted: float

    def as_metrics(self) -> dict[str, Any]:
        """The results.json entry: each method by name beside the two ratios."""
        return {
            **self.methods,
            "ratio_measured": self.ratio_measured,
            "ratio_predicted": self.ratio_predicted,
        }


@dataclass(frozen=True)
class AccountantRow:
    """Our ε and the reference's for one (q, σ, T) at the config's δ, and their relative difference."""

    q: float
    sigma: float
    T: int
    eps_ours: float
    eps_reference: float
    rel_diff: float


@dataclass(frozen=True)
class AccountantCheck:
    """Part 3: the reference used (Opacus' RDPAccountant, or numerical integration without Opacus), every
    row and the largest relative difference."""

    reference: str
    rows: list[AccountantRow]
    max_rel_diff: float


@dataclass(frozen=True, eq=False)
class Records:
    """Every part of one run. ``seconds`` (wall per run) and ``timing`` (CPU s per step) go to tables and
    claims only, never to metrics: metrics are identical for identical seeds."""

    seeds: tuple[int, ...]
    classification: Mapping[Case, CaseRecord]
    tuning: Mapping[str, Mapping[str, Tuned]]
    seconds: Mapping[Case, float]
    quadratic: Mapping[str, QuadRecord]
    quad_epsilon: float
    prediction: Mapping[float, Prediction]
    accountant: AccountantCheck
    timing: Mapping[str, float] | None

    def has(self, dataset: str, eps: float, *methods: str) -> bool:
        """Whether every (dataset, eps, method) case was run."""
        return all(Case(dataset, eps, m) in self.classification for m in methods)

    def acc(self, dataset: str, eps: float, method: str) -> float:
        """Seed-mean test accuracy of a case, in [0, 1]."""
        return float(self.classification[Case(dataset, eps, method)].acc_mean)


# ----------------------------------------------------------------------------------- classification


def _model(data: Dataset, seed: int, device: str) -> torch.nn.Module:
    if data.name == "digits":
        return mlp(data.d, 64, data.n_classes, seed=seed, device=device)
    return logistic(data.d, data.n_classes, seed=seed, device=device)


def dp_args(sigma: float, config: Config, seed: int, device: str) -> O.DPArgs:
    """The DP settings of a run: C, expected batch qn, and a noise generator seeded from the run's seed."""
    return {
        "noise_multiplier": sigma,
        "max_grad_norm": config.clip,
        "expected_batch_size": config.batch,
        "generator": torch.Generator(device=device).manual_seed(10_000 + seed),
    }


def make_optimizer(
    method: str, model: torch.nn.Module, lr: float, *, sigma: float, config: Config, seed: int, device: str
) -> O.DPOptimizer | torch.optim.Optimizer:
    """The optimiser of ``method`` (a name of ``METHODS``) on ``model``."""
    if method == NON_PRIVATE:
        return torch.optim.SGD(model.parameters(), lr=lr)
    dp = dp_args(sigma, config, seed, device)
    kg: dict[str, Any] = {"kappa": config.kappa, "gamma": config.gamma}
    factories: dict[str, Callable[[], O.DPOptimizer]] = {
        "DP-SGD": lambda: O.make_dp_sgd(model, lr, **dp),
        "DP-Adam": lambda: O.make_dp_adam(model, lr, **dp),
        "DiSK-SGD": lambda: O.make_disk_sgd(model, lr, **kg, **dp),
        "DiSK-Adam": lambda: O.make_disk_adam(model, lr, **kg, **dp),
        "DP-SGD+EMA": lambda: O.make_dp_sgd_ema(model, lr, kappa=config.kappa, **dp),
        HEAD: lambda: O.DiSK(
            model,
            torch.optim.SGD(model.parameters(), lr=lr),
            kappa=config.kappa,
            gamma=config.gamma,
            legacy_weight=True,
            **dp,
        ),
    }
    return factories[method]()


def train_one(
    method: str, data: Dataset, lr: float, *, sigma: float, config: Config, seed: int, device: str
) -> History:
    """One training run of ``method`` on ``data`` (model init, Poisson batches and noise from ``seed``)."""
    model = _model(data, seed, device)
    opt = make_optimizer(method, model, lr, sigma=sigma, config=config, seed=seed, device=device)
    q = config.batch / data.n
    gen = torch.Generator(device=device).manual_seed(seed)
    return train(model, data, opt, q=q, epochs=config.epochs, generator=gen, delta=config.delta)


def tune_lrs(dataset: str, config: Config, seed: int, device: str) -> dict[str, Tuned]:
    """Each method's lr from its family's grid on the dev split (90/10 of train), epsilon = 1, mean dev
    accuracy over ``tune_seeds`` paired seeds (paperkit.stats.tune: the same grid and budget for all)."""
    val = load(dataset, device=device, validation=True)
    q = config.batch / val.n
    sig1 = noise_for_epsilon(1.0, config.delta, q, steps_for_epochs(config.epochs, q))

    def dev_score(method: str, setting: Mapping[str, Any]) -> float:
        sigma = 0.0 if method == NON_PRIVATE else sig1
        runs = [
            train_one(method, val, setting["lr"], sigma=sigma, config=config, seed=s, device=device)
            for s in range(seed, seed + config.tune_seeds)
        ]
        return float(np.mean([h.final_acc for h in runs]))

    fixed = {"epochs": config.epochs, "tune_seeds": config.tune_seeds, "eps": 1.0}
    out: dict[str, Tuned] = {}
    for family, grid in (("sgd", config.lr_grid_sgd), ("adam", config.lr_grid_adam)):
        members = [m for m in config.methods if (m in ADAM) == (family == "adam")]
        if members:
            out |= tune(dev_score, members, {"lr": list(grid)}, fixed=fixed)
    return out


def run_case(
    case: Case,
    data: Dataset,
    tuned: Mapping[str, Tuned],
    sigma: float,
    *,
    config: Config,
    seeds: list[int],
    device: str,
) -> tuple[CaseRecord, float]:
    """One classification case on every seed at noise multiplier ``sigma``: its record and the mean wall
    seconds a run."""
    t = tuned.get(case.method)
    lr = float(t.best["lr"]) if t is not None else config.lr(case.method)
    lr_scores = {f"{c['lr']:g}": sc for c, sc in zip(t.grid, t.scores, strict=True)} if t is not None else {}
    q = config.batch / data.n
    steps = steps_for_epochs(config.epochs, q)
    hist = [
        train_one(case.method, data, lr, sigma=sigma, config=config, seed=s, device=device) for s in seeds
    ]
    accs = np.array([h.final_acc for h in hist])
    record = CaseRecord(
        dataset=case.dataset,
        eps_target=case.eps,
        method=case.method,
        lr=lr,
        lr_validation_acc=lr_scores,
        sigma=sigma,
        q=q,
        steps=steps,
        eps_reported=[h.epsilon for h in hist],
        acc_per_seed=accs,
        acc_mean=float(accs.mean()),
        acc_curve_mean=np.mean([h.test_acc for h in hist], axis=0),
        final_train_loss_mean=float(np.mean([h.train_loss[-1] for h in hist])),
    )
    return record, float(np.mean([h.seconds for h in hist]))


def run_classification(
    config: Config, seed: int, device: str
) -> tuple[dict[Case, CaseRecord], dict[str, dict[str, Tuned]], dict[Case, float]]:
    """Part 1: every (data set, ε, method) case; the lr search per data set when ``tune_lr``."""
    seeds = list(range(seed, seed + config.n_seeds))
    records: dict[Case, CaseRecord] = {}
    tuning: dict[str, dict[str, Tuned]] = {}
    seconds: dict[Case, float] = {}
    for dataset in track(config.datasets, desc="disk-dp classification"):
        data = load(dataset, device=device)
        tuned = tune_lrs(dataset, config, seed, device) if config.tune_lr else {}
        tuning[dataset] = tuned
        q = config.batch / data.n
        steps = steps_for_epochs(config.epochs, q)
        # σ for each target ε, found once per data set (the bisection is most of a smoke run's time)
        sigmas = {
            eps: 0.0 if math.isinf(eps) else noise_for_epsilon(eps, config.delta, q, steps)
            for eps in dict.fromkeys(c.eps for c in config.cases(dataset))
        }
        for case in config.cases(dataset):
            records[case], seconds[case] = run_case(
                case, data, tuned, sigmas[case.eps], config=config, seeds=seeds, device=device
            )
    return records, tuning, seconds


# ---------------------------------------------------------------------------------------- quadratic


def quadratic_run(method: str, config: Config, seed: int, device: str) -> NDArray[np.float64]:
    """Excess loss F(w_t) - min F after each of ``quad_steps`` steps (``(T,)`` float64) of ``method``
    (lr ``quad_lr``, C ``clip``, sigma ``quad_sigma``)."""
    prob = noisy_quadratic_problem(config.quad_n, config.quad_d, config.quad_cond, seed=seed)
    x = torch.as_tensor(prob.x, device=device)
    y = torch.as_tensor(prob.y, device=device)
    h = torch.as_tensor(prob.hessian, device=device)
    w_opt = torch.as_tensor(prob.w_opt, device=device)
    model = linear_model(config.quad_d, device=device)
    dp = dp_args(config.quad_sigma, config, seed, device)
    lr, kappa = config.quad_lr, config.kappa
    opt = {
        "DP-SGD": lambda: O.make_dp_sgd(model, lr, **dp),
        "DP-SGD+EMA": lambda: O.make_dp_sgd_ema(model, lr, kappa=kappa, **dp),
        "DiSK-SGD": lambda: O.make_disk_sgd(model, lr, kappa=kappa, gamma=config.gamma, **dp),
        "DiSK-SGD (c=1)": lambda: O.make_disk_sgd(model, lr, kappa=kappa, gamma=(1 - kappa) / kappa, **dp),
    }[method]()
    q = config.batch / config.quad_n
    gen = torch.Generator(device=device).manual_seed(seed)
    out = torch.empty(config.quad_steps, dtype=torch.float64, device=device)
    for t, idx in enumerate(PoissonSampler(config.quad_n, q, config.quad_steps, gen)):
        opt.step(O.make_closure(model, squared_error, x[idx], y[idx], summed=True))
        with torch.no_grad():
            e = next(model.parameters())[0] - w_opt
            out[t] = 0.5 * e @ h @ e
    return out.cpu().numpy()


def tails(method: str, config: Config, seed: int, device: str) -> tuple[FloatArray, FloatArray]:
    """(per-seed time-averaged excess over the last 20 % of steps, seed-mean curve)."""
    seeds = list(range(seed, seed + config.quad_seeds))
    curves = np.stack([quadratic_run(method, config, s, device) for s in seeds])
    return curves[:, int(0.8 * config.quad_steps) :].mean(1), curves.mean(0)


def run_prediction(lr: float, config: Config, seed: int, device: str) -> Prediction:
    """The unclipped regime at ``lr`` (C = pred_clip, σ = quad_sigma·clip/pred_clip) against the filter
    algebra's prediction (``predicted_excess`` on each seed's problem)."""
    q = config.batch / config.quad_n
    sigma_u = config.quad_sigma * config.clip / config.pred_clip
    cfg = replace(config, clip=config.pred_clip, quad_sigma=sigma_u, quad_lr=lr)
    probs = [
        noisy_quadratic_problem(config.quad_n, config.quad_d, config.quad_cond, seed=s)
        for s in range(seed, seed + config.quad_seeds)
    ]
    predicted = [
        predicted_excess(
            pr.hessian,
            observation_noise(pr, q=q, sigma=sigma_u, clip=config.pred_clip, batch=config.batch),
            lr=lr,
            kappa=config.kappa,
        )
        for pr in probs
    ]
    methods = {}
    for method in PRED_METHODS:
        per_seed, _ = tails(method, cfg, seed, device)
        methods[method] = PredictedTail(
            measured=float(per_seed.mean()),
            predicted=float(np.mean([x[method] for x in predicted])),
            per_seed=per_seed,
        )
    return Prediction(
        lr=lr,
        methods=methods,
        ratio_measured=methods["DiSK-SGD"].measured / methods["DP-SGD"].measured,
        ratio_predicted=methods["DiSK-SGD"].predicted / methods["DP-SGD"].predicted,
    )


def run_quadratic(
    config: Config, seed: int, device: str
) -> tuple[dict[str, QuadRecord], float, dict[float, Prediction]]:
    """Part 2: every QUAD_METHOD in the spec setting, its ε, and the unclipped regime at each pred_lr."""
    quad = {}
    for method in track(QUAD_METHODS, desc="disk-dp quadratic"):
        per_seed, curve = tails(method, config, seed, device)
        quad[method] = QuadRecord(
            tail_excess_per_seed=per_seed, tail_excess_mean=float(per_seed.mean()), curve_mean=curve
        )
    eps = epsilon(config.batch / config.quad_n, config.quad_sigma, config.quad_steps, config.delta)
    return quad, eps, {lr: run_prediction(lr, config, seed, device) for lr in config.pred_lrs}


# ------------------------------------------------------------------------------ accountant and cost


def accountant_check(grid: tuple[tuple[float, float, int], ...], delta: float) -> AccountantCheck:
    """Our ε vs Opacus' RDPAccountant (or vs numerical integration when Opacus is absent) on ``grid``."""
    have_opacus = importlib.util.find_spec("opacus") is not None
    rows = []
    for q, sigma, steps in grid:
        ours = epsilon(q, sigma, steps, delta)
        if have_opacus:
            from opacus.accountants import RDPAccountant

            acc = RDPAccountant()
            acc.history = [(sigma, q, steps)]
            ref = float(acc.get_epsilon(delta))
        else:
            orders = np.asarray(DEFAULT_ORDERS)
            rdp = np.array([rdp_by_integration(q, sigma, float(a)) for a in orders]) * steps
            ref = eps_from_rdp(rdp, orders, delta)[0]
        rows.append(AccountantRow(q, sigma, steps, ours, ref, abs(ours - ref) / ref))
    reference = "opacus.accountants.RDPAccountant" if have_opacus else "numerical integration (scipy.quad)"
    return AccountantCheck(reference, rows, max(r.rel_diff for r in rows))


def step_times(n_steps: int, batch: int, device: str) -> dict[str, float]:
    """Median per-step process CPU time (s) of DP-SGD, one- and two-gradient DiSK on the digits MLP,
    batch ``batch``, after 3 warm-up steps; the methods are interleaved step by step so that machine
    load affects them alike."""
    data = load("digits", device=device)
    xb, yb = data.x_train[:batch], data.y_train[:batch]
    dp: dict[str, Any] = {"noise_multiplier": 1.0, "max_grad_norm": 1.0, "expected_batch_size": 64}
    kinds: dict[str, Callable[[torch.nn.Module], O.DPOptimizer]] = {
        "DP-SGD": lambda m: O.make_dp_sgd(m, 0.1, **dp),
        "DiSK (c=1)": lambda m: O.make_disk_sgd(m, 0.1, gamma=3 / 7, **dp),
        "DiSK (two-gradient)": lambda m: O.make_disk_sgd(m, 0.1, **dp),
    }
    models = {k: mlp(64, 64, 10, seed=0, device=device) for k in kinds}
    opts = {k: f(models[k]) for k, f in kinds.items()}
    times: dict[str, list[float]] = {k: [] for k in kinds}
    for i in range(n_steps + 3):
        for k, opt in opts.items():
            closure = O.make_closure(models[k], cross_entropy, xb, yb, summed=True)
            if device == "cuda":
                torch.cuda.synchronize()
            t0 = time.process_time()
            opt.step(closure)
            if device == "cuda":
                torch.cuda.synchronize()
            if i >= 3:  # warm-up
                times[k].append(time.process_time() - t0)
    return {k: float(np.median(v)) for k, v in times.items()}


# ---------------------------------------------------------------------------------------------- run


def run_cases(config: Config, *, seed: int = 0, device: str = "cpu") -> Records:
    """Every part of ``config`` on seeds ``seed, …`` (one torch thread)."""
    check_seed(seed)
    check_int(seed + max(config.n_seeds, config.quad_seeds, config.tune_seeds), "seed + seeds", high=SEED_MAX)
    with torch_threads(1):
        cls, tuning, seconds = run_classification(config, seed, device)
        quad, quad_eps, pred = run_quadratic(config, seed, device)
        acct = accountant_check(config.accountant_grid, config.delta)
        timing = step_times(config.timing_steps, config.batch, device) if config.timing_steps > 0 else None
    return Records(
        seeds=tuple(range(seed, seed + config.n_seeds)),
        classification=cls,
        tuning=tuning,
        seconds=seconds,
        quadratic=quad,
        quad_epsilon=quad_eps,
        prediction=pred,
        accountant=acct,
        timing=timing,
    )


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Run every part on seeds ``seed .. seed + n - 1`` and check the claims.

    Args:
        config: the scale (``Config.quick()``, ``Config.full()``, ``Config.smoke()``).
        seed: base seed (model init, Poisson batches, noise).
        device: ``"cpu"`` or ``"cuda"``.
    """
    records = run_cases(config, seed=seed, device=device)
    metrics = {
        "classification": records.classification,
        "quadratic": {
            **records.quadratic,
            "epsilon": records.quad_epsilon,
            "prediction": {f"{lr:g}": p.as_metrics() for lr, p in records.prediction.items()},
        },
        "accountant": {
            "reference": records.accountant.reference,
            "max_rel_diff": records.accountant.max_rel_diff,
        },
    }
    return Report(
        metrics=metrics,
        claims=claims(records, config),
        tables=tables(records),
        notes=notes(records, config),
    )
