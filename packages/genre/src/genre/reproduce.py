"""The headline experiment: GenRe against NNR, Wachter, Growing Spheres and ROAR on semi-synthetic data.

For each data set (moons; breast cancer, top-10 features) and seed s: build the semi-synthetic data (gold =
calibrated random forest, labels re-sampled from it), train the deployed MLP h, train GenRe's pair model at
each λ, take up to ``n_neg`` test points with h(x) < 0.5, and score every method's recourse on cost,
validity under h and under the gold model, and LOF plausibility. A 1-D toy checks consistency: samples of
the trained R_θ (inverse temperature 1) against the exact distribution the synthesised pairs define.

``run(config, seed=..., device=...)`` returns a :class:`paperkit.Report`; ``plots(report)`` draws it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from paperkit import Claim, Report, torch_threads, track

from genre.baselines import NNR, ROAR, GrowingSpheres, Wachter
from genre.classifiers import MLPClassifier, as_proba
from genre.data import Dataset, load_breast_cancer_semisynthetic, load_moons
from genre.metrics import evaluate, fit_lof
from genre.model import soft_targets
from genre.pairs import pair_distribution
from genre.recourse import GenRe

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DATASETS = ("moons", "breast_cancer")
BASELINES = ("NNR", "NNR-valid", "Wachter", "GS", "ROAR")


@dataclass(frozen=True)
class Config:
    """Scale and settings (defaults: the full run, the spec's "full mode"; method defaults: official).

    Attributes:
        datasets: ``"moons"`` and/or ``"breast_cancer"``. n_seeds: seeds base .. base + n_seeds − 1.
        baselines: methods beside GenRe, from ``BASELINES``.
        n_neg: at most this many test negatives (h < 0.5) per seed (the 10 % test split has fewer).
        lams: λ values GenRe is trained with; ``lam_main`` is the one compared with the baselines
            (notebook 5.0).
        gamma, top_k: D⁺/D⁻ threshold (official 0.7) and partners per source (spec full mode 1 000).
        n_bins, emb, heads, enc_layers, dec_layers, ff, dropout, epochs, batch_size, lr, eval_every: the
            pair model and its training (spec full mode: 3 + 3 layers, E = 32, 4 heads, FF 64, 300
            epochs, batch 512, lr 1e-3; B = 50, dropout 0.1, validation every 10 epochs as official).
        k, inv_temp, sigma: best-of-k sampling (official 10, 10, 0). extra_inv_temps: further inverse
            temperatures sampled from the λ_main model (the trade-off plot).
        clf_epochs_2d, clf_batch_2d: the moons MLP [4, 4] (official lr 0.05, 400 epochs, batch 64).
        gold_trees: trees of the gold random forest. wachter_iters: Wachter's / ROAR's steps a round
            (CARLA 1 000).
        toy_*: the 1-D consistency check (positives, negatives, epochs, samples per query, queries).
        *_min / *_max: the claims' bounds, frozen from the calibration run recorded in the README.
    """

    datasets: tuple[str, ...] = DATASETS
    n_seeds: int = 3
    baselines: tuple[str, ...] = BASELINES
    n_neg: int = 200
    lams: tuple[float, ...] = (0.5, 5.0)
    lam_main: float = 5.0
    gamma: float = 0.7
    top_k: int = 1000
    n_bins: int = 50
    emb: int = 32
    heads: int = 4
    enc_layers: int = 3
    dec_layers: int = 3
    ff: int = 64
    dropout: float = 0.1
    epochs: int = 300
    batch_size: int = 512
    lr: float = 1e-3
    eval_every: int = 10
    k: int = 10
    inv_temp: float = 10.0
    sigma: float = 0.0
    extra_inv_temps: tuple[float, ...] = (1.0,)
    clf_epochs_2d: int = 400
    clf_batch_2d: int = 64
    gold_trees: int = 100
    wachter_iters: int = 1000
    toy_pos: int = 200
    toy_neg: int = 300
    toy_epochs: int = 300
    toy_samples: int = 2000
    toy_queries: int = 5
    # Claim bounds, frozen after the calibration run (quick scale, both data sets, every baseline, seed 0;
    # README "Calibration"): each at least half-way from the observed value toward the rival hypothesis.
    validity_min: float = 0.55  # observed 1.00 / 1.00, rival NNR 0.16 / 0.12 (spec 0.95 was tighter)
    gold_gap_min: float = 0.0  # observed +0.52 / +0.38, rival 0 (spec's "≥ Wachter's")
    lof_min: float = 0.47  # observed 0.909, rival Wachter 0.045 (spec 0.90 was tighter)
    lof_gap_min: float = 0.20  # observed 0.864, rival 0 (spec's 0.20)
    cost_ratio_max: float = 1.15  # observed 1.81 / 2.05: fails; the spec's 1.15 kept
    lam_cost_gap_max: float = 0.0  # observed −0.35 / −0.13, rival 0 (spec's strict "<")
    ks_max: float = 0.17  # observed 0.053, rival (unconditional marginal) 0.279 (spec 0.1 was tighter)

    def __post_init__(self) -> None:
        for name in ("n_seeds", "n_neg", "top_k", "n_bins", "epochs", "batch_size", "k", "toy_epochs"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an int >= 1, got {v!r}")
        unknown = [d for d in self.datasets if d not in DATASETS]
        if unknown or not self.datasets:
            raise ValueError(f"datasets must be a non-empty subset of {DATASETS}, got {self.datasets}")
        bad = [b for b in self.baselines if b not in BASELINES]
        if bad:
            raise ValueError(f"unknown baselines {bad}; expected a subset of {BASELINES}")
        if self.lam_main not in self.lams:
            raise ValueError(f"lam_main ({self.lam_main}) must be one of lams {self.lams}")

    @classmethod
    def quick(cls) -> Config:
        """About a minute on 2 cores (spec's quick mode): moons, one seed, MLP [4, 4]; pair model 2 + 2
        layers, E = 16, 60 epochs, batch 256, K = 200; λ ∈ {0.5, 5}; GenRe, NNR, Wachter; the toy."""
        return cls(
            datasets=("moons",),
            n_seeds=1,
            baselines=("NNR", "NNR-valid", "Wachter"),
            n_neg=100,
            top_k=200,
            emb=16,
            heads=4,
            enc_layers=2,
            dec_layers=2,
            ff=32,
            epochs=60,
            batch_size=256,
            extra_inv_temps=(),
            clf_epochs_2d=100,
            toy_epochs=150,
            toy_samples=1000,
        )

    @classmethod
    def full(cls) -> Config:
        """Spec's full mode: both data sets, 3 seeds, λ ∈ {0.5, 5}, every baseline, the toy."""
        return cls()

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: tiny models and few epochs; its claims are not meaningful."""
        return cls(
            datasets=("moons",),
            n_seeds=1,
            baselines=("NNR", "Wachter"),
            n_neg=20,
            top_k=50,
            emb=8,
            heads=2,
            enc_layers=1,
            dec_layers=1,
            ff=16,
            epochs=3,
            batch_size=256,
            k=4,
            extra_inv_temps=(),
            clf_epochs_2d=30,
            clf_batch_2d=128,
            gold_trees=10,
            wachter_iters=50,
            toy_pos=50,
            toy_neg=50,
            toy_epochs=3,
            toy_samples=200,
            toy_queries=2,
        )


def load(name: str, seed: int, gold_trees: int = 100) -> Dataset:
    """The data set ``name`` for ``seed``."""
    if name == "moons":
        return load_moons(seed, gold_trees=gold_trees)
    return load_breast_cancer_semisynthetic(seed, gold_trees=gold_trees)


def train_classifier(
    config: Config, ds: Dataset, seed: int, device: str, attempts: int = 3
) -> tuple[MLPClassifier, int]:
    """The deployed MLP h: [4, 4], lr 0.05 on 2-D data; [10, 10, 10], lr 1e-3, 100 epochs, batch 64 else.

    A tiny ReLU net at lr 0.05 can die at initialisation and predict a constant (moons, seed 2: final
    BCE 0.694 = log 2); such a collapsed h (final training BCE above 0.95·log 2) is retrained from the
    next initialisation seed, ``seed + 1000·attempt``. Returns (h, attempts used).
    """
    for attempt in range(attempts):
        init = seed + 1000 * attempt
        if ds.n_features == 2:
            clf = MLPClassifier((4, 4), 0.05, config.clf_epochs_2d, config.clf_batch_2d, init, device)
        else:
            clf = MLPClassifier((10, 10, 10), 1e-3, 100, 64, init, device)
        clf.fit(ds.X_train, ds.y_train)
        if clf.loss_curve_[-1] < 0.95 * np.log(2):
            break
    return clf, attempt + 1


def make_genre(config: Config, clf: Any, lam: float, seed: int, device: str, **kw: Any) -> GenRe:
    return GenRe(
        clf,
        lam=lam,
        gamma=config.gamma,
        top_k=config.top_k,
        n_bins=config.n_bins,
        emb=config.emb,
        heads=config.heads,
        enc_layers=config.enc_layers,
        dec_layers=config.dec_layers,
        ff=config.ff,
        dropout=config.dropout,
        lr=config.lr,
        epochs=config.epochs,
        batch_size=config.batch_size,
        eval_every=config.eval_every,
        k=config.k,
        inv_temp=config.inv_temp,
        sigma=config.sigma,
        seed=seed,
        device=device,
        **kw,
    )


def run_cell(config: Config, name: str, seed: int, device: str) -> dict[str, Any]:
    """Every method on data set ``name`` with seed ``seed``: {method: metrics}, plus the recourse itself."""
    ds = load(name, seed, config.gold_trees)
    clf, attempts = train_classifier(config, ds, seed, device)
    h = as_proba(clf)
    lof = fit_lof(ds.gold, ds.X_all)
    X_neg = ds.X_test[h(ds.X_test) < 0.5][: config.n_neg]
    out: dict[str, Any] = {"n_neg": len(X_neg), "methods": {}, "recourse": {"X_neg": X_neg}, "time_s": {}}
    # (time_s stays out of the report's metrics, which must be identical for identical seeds)
    clf_acc = float(((h(ds.X_test) > 0.5) == ds.y_test).mean())
    out["clf_test_acc"] = clf_acc
    out["clf_attempts"] = attempts

    def record(method: str, X_cf: np.ndarray, seconds: float) -> None:
        out["methods"][method] = evaluate(X_neg, X_cf, clf, ds.gold, lof, ds.imm_mask)
        out["time_s"][method] = seconds
        out["recourse"][method] = X_cf

    for lam in config.lams:
        t0 = time.perf_counter()
        g = make_genre(config, clf, lam, seed, device).fit(ds.X_train, ds.y_train)
        t1 = time.perf_counter()
        record(f"GenRe λ={lam:g}", g.recourse(X_neg, seed=seed), time.perf_counter() - t1)
        out["time_s"][f"GenRe λ={lam:g} fit"] = t1 - t0
        if lam == config.lam_main:
            for tau in config.extra_inv_temps:
                g.inv_temp = tau
                t1 = time.perf_counter()
                record(
                    f"GenRe λ={lam:g} τ_inv={tau:g}", g.recourse(X_neg, seed=seed), time.perf_counter() - t1
                )
            g.inv_temp = config.inv_temp
    makers: dict[str, Callable[[], Any]] = {
        "NNR": lambda: NNR(clf).fit(ds.X_train, ds.y_train),
        "NNR-valid": lambda: NNR(clf, require_valid=True).fit(ds.X_train, ds.y_train),
        "Wachter": lambda: Wachter(clf, n_iter=config.wachter_iters, device=device),
        "GS": lambda: GrowingSpheres(clf, seed=seed),
        "ROAR": lambda: ROAR(clf, n_iter=config.wachter_iters, device=device),
    }
    for b in config.baselines:
        t1 = time.perf_counter()
        record(b, makers[b]().recourse(X_neg), time.perf_counter() - t1)
    out["data"] = {"X_train": ds.X_train, "y_train": ds.y_train}
    return out


def toy_problem(config: Config, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """1-D toy: negatives uniform on [0, 0.5), positives from a two-bump density on [0.5, 1]."""
    rng = np.random.default_rng(seed)
    neg = rng.uniform(0.0, 0.5, config.toy_neg)
    half = config.toy_pos // 2
    pos = np.concatenate(
        [rng.uniform(0.5, 0.7, half), np.clip(rng.normal(0.85, 0.06, config.toy_pos - half), 0.5, 1.0)]
    )
    X = np.concatenate([neg, pos])[:, None]
    y = np.concatenate([np.zeros(config.toy_neg, np.int64), np.ones(config.toy_pos, np.int64)])
    return X, y


def _step_classifier(X: np.ndarray) -> np.ndarray:
    return (np.asarray(X)[:, 0] >= 0.5).astype(np.float64)


def consistency(config: Config, seed: int, device: str) -> dict[str, Any]:
    """Train R_θ on the 1-D toy, sample it at inverse temperature 1, compare with the pair distribution.

    The exact target for a query x⁻ is the mixture over its partners of the soft bin labels,
    P(b | x⁻) = Σ_j π_j(x⁻) q(b | x⁺_j): the minimiser of the expected training loss. Returns the KS
    statistic (max CDF gap on the bin grid) per query, and the KS against the raw pair distribution with
    each x⁺ rounded to its nearest bin edge.
    """
    X, y = toy_problem(config, seed)
    g = GenRe(
        _step_classifier,
        lam=config.lam_main,
        top_k=config.top_k,
        n_bins=config.n_bins,
        emb=16,
        heads=4,
        enc_layers=1,
        dec_layers=1,
        ff=32,
        dropout=config.dropout,
        lr=config.lr,
        epochs=config.toy_epochs,
        batch_size=config.batch_size,
        val_frac=0.0,
        seed=seed,
        device=device,
    ).fit(X, y)
    neg, pos = X[y == 0], X[y == 1]
    queries = np.quantile(neg[:, 0], np.linspace(0.1, 0.9, config.toy_queries))[:, None]
    dist = pair_distribution(queries, pos, config.lam_main, k=config.top_k)
    B = config.n_bins
    q = soft_targets(torch.as_tensor(pos[:, 0], dtype=torch.float64), B).numpy()  # (m, B)
    g.inv_temp = 1.0
    S = g.sample(queries, config.toy_samples, seed=seed)[:, :, 0]  # (n_q, n_s)
    # Rival: a model that learned the favourable marginal but ignores the cost to x⁻ (uniform over D⁺).
    marginal = q.mean(0)
    ks, ks_raw, ks_rival, per_query = [], [], [], []
    for i in range(len(queries)):
        target = (dist.prob[i][:, None] * q[dist.idx[i]]).sum(0)
        raw = np.bincount(np.clip(np.rint(pos[dist.idx[i], 0] * B), 0, B - 1).astype(int), dist.prob[i], B)
        emp = np.bincount(np.clip(np.rint(S[i] * B), 0, B - 1).astype(int), minlength=B) / S.shape[1]
        ks.append(float(np.abs(np.cumsum(emp) - np.cumsum(target)).max()))
        ks_raw.append(float(np.abs(np.cumsum(emp) - np.cumsum(raw)).max()))
        ks_rival.append(float(np.abs(np.cumsum(marginal) - np.cumsum(target)).max()))
        per_query.append({"x_neg": float(queries[i, 0]), "target": target, "empirical": emp})
    return {
        "ks": np.array(ks),
        "ks_raw": np.array(ks_raw),
        "ks_rival_unconditional": np.array(ks_rival),
        "queries": per_query,
    }


def _mean_over_seeds(cells: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    methods = cells[0]["methods"].keys()
    keys = cells[0]["methods"][next(iter(methods))].keys()
    return {m: {k: float(np.mean([c["methods"][m][k] for c in cells])) for k in keys} for m in methods}


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Every data set × seed cell, the toy, the claims. Runs on one torch thread (restored after)."""
    with torch_threads(1):
        return _run(config, seed, device)


def _run(config: Config, seed: int, device: str) -> Report:
    seeds = [seed + i for i in range(config.n_seeds)]
    jobs = [(d, s) for d in config.datasets for s in seeds]
    cells: dict[tuple[str, int], dict[str, Any]] = {}
    t_all = time.perf_counter()
    for d, s in track(jobs, desc="genre reproduce"):
        cells[(d, s)] = run_cell(config, d, s, device)
    toy = consistency(config, seed, device)
    wall = time.perf_counter() - t_all

    main = f"GenRe λ={config.lam_main:g}"
    summary: dict[str, Any] = {}
    table = []
    for d in config.datasets:
        per = [cells[(d, s)] for s in seeds]
        means = _mean_over_seeds(per)
        times = {m: float(np.mean([c["time_s"][m] for c in per])) for m in per[0]["time_s"]}
        summary[d] = {
            "means": means,
            "per_seed": {m: {k: [c["methods"][m][k] for c in per] for k in means[m]} for m in means},
            "n_neg": [c["n_neg"] for c in per],
            "clf_test_acc": [c["clf_test_acc"] for c in per],
            "clf_attempts": [c["clf_attempts"] for c in per],
        }
        for m, v in means.items():
            table.append(
                {
                    "dataset": d,
                    "method": m,
                    "cost (L1)": v["cost"],
                    "validity h": v["validity"],
                    "gold validity": v["gold_validity"],
                    "gold prob": v["gold_prob"],
                    "LOF inlier": v["lof_inlier"],
                    "s / cell": times[m],
                }
            )
        for m in (k for k in times if k.endswith(" fit")):
            table.append({"dataset": d, "method": m, "s / cell": times[m]})
    claims = _claims(config, summary, toy, main, seeds)
    first = cells[(config.datasets[0], seeds[0])]
    metrics = {
        "seeds": seeds,
        "datasets": summary,
        "toy": dict(toy),
        "example": {
            "dataset": config.datasets[0],
            "X_train": first["data"]["X_train"],
            "y_train": first["data"]["y_train"],
            "recourse": first["recourse"],
        },
    }
    held = ", ".join(f"{d}: {summary[d]['n_neg']}" for d in config.datasets)
    notes = [
        f"Means over seeds {seeds}; negatives: test points with h(x) < 0.5 (at most {config.n_neg} a seed; "
        f"the 10 % test split holds {held}).",
        f"Pair model {config.enc_layers}+{config.dec_layers} layers, E = {config.emb}, {config.heads} heads, "
        f"FF {config.ff}, B = {config.n_bins}, {config.epochs} epochs, batch {config.batch_size}, "
        f"lr {config.lr:g}, K = {config.top_k}, γ = {config.gamma}; sampling k = {config.k}, "
        f"τ_inv = {config.inv_temp:g}, σ = {config.sigma:g}; encoder label as the official code "
        "(data-set label in training, y⁺ at inference).",
        f"Timings (s / cell: recourse generation for one seed's negatives, GenRe's training excluded; "
        f"GenRe fit: training) are wall seconds on a CPU shared with other jobs; cells and toy {wall:.0f} s.",
    ]
    return Report(
        metrics=metrics, claims=claims, tables={"Recourse metrics (mean over seeds)": table}, notes=notes
    )


def _claims(
    config: Config, summary: Mapping[str, Any], toy: Mapping[str, Any], main: str, seeds: list[int]
) -> list[Claim]:
    claims: list[Claim] = []
    scale = f"{len(seeds)} seed(s), k = {config.k}, τ_inv = {config.inv_temp:g}, λ = {config.lam_main:g}"
    lo_lam, hi_lam = min(config.lams), max(config.lams)
    for d, s in summary.items():
        m = s["means"]
        g = m[main]
        claims.append(
            Claim.at_least(
                f"validity-h-{d}",
                "GenRe's recourse is valid under the deployed classifier",
                f"fraction of GenRe recourse with h(x⁺) > 0.5 on {d}, mean over seeds; {scale}",
                g["validity"],
                config.validity_min,
                paper="notebook: h-validity 1.00 on COMPAS, HELOC, Adult",
                details={
                    f"seed{sd}": v for sd, v in zip(seeds, s["per_seed"][main]["validity"], strict=True)
                },
            )
        )
        if "Wachter" in m:
            claims.append(
                Claim.at_least(
                    f"validity-gold-vs-wachter-{d}",
                    "GenRe's recourse is at least as valid under the true label distribution as Wachter's",
                    f"gold validity (p_gold(x⁺) > 0.5) of GenRe minus Wachter's on {d}; {scale}",
                    g["gold_validity"] - m["Wachter"]["gold_validity"],
                    config.gold_gap_min,
                    paper="notebook: GenRe gold validity 0.99-1.00",
                    details={"GenRe": g["gold_validity"], "Wachter": m["Wachter"]["gold_validity"]},
                )
            )
        if d == "moons":
            claims.append(
                Claim.at_least(
                    "plausibility-lof-moons",
                    "GenRe's recourse is plausible (on the data manifold of the favourable class)",
                    f"LOF-inlier fraction of GenRe recourse (LOF, 5 neighbours, fit on gold positives) on "
                    f"moons; {scale}",
                    g["lof_inlier"],
                    config.lof_min,
                    paper="notebook: LOF-inlier 0.97-1.00",
                )
            )
            if "Wachter" in m:
                claims.append(
                    Claim.at_least(
                        "plausibility-vs-wachter-moons",
                        "GenRe is far more plausible than Wachter, which stops just across the boundary",
                        f"LOF-inlier fraction, GenRe minus Wachter, on moons; {scale}",
                        g["lof_inlier"] - m["Wachter"]["lof_inlier"],
                        config.lof_gap_min,
                        paper="best trade-off among cost, plausibility and validity (abstract)",
                        details={"GenRe": g["lof_inlier"], "Wachter": m["Wachter"]["lof_inlier"]},
                    )
                )
        if "NNR" in m:
            claims.append(
                Claim.at_most(
                    f"cost-vs-nnr-{d}",
                    "GenRe's cost is close to the nearest favourable training point's (NNR)",
                    f"mean L1 cost of GenRe / mean L1 cost of NNR on {d}; {scale}",
                    g["cost"] / m["NNR"]["cost"],
                    config.cost_ratio_max,
                    paper="GenRe produces minimum-cost recourse (abstract); no table value retrieved",
                    details={
                        "GenRe": g["cost"],
                        "NNR": m["NNR"]["cost"],
                        "NNR h-validity": m["NNR"]["validity"],
                        **({"NNR-valid": m["NNR-valid"]["cost"]} if "NNR-valid" in m else {}),
                    },
                )
            )
        if lo_lam != hi_lam:
            a, b = m[f"GenRe λ={hi_lam:g}"]["cost"], m[f"GenRe λ={lo_lam:g}"]["cost"]
            claims.append(
                Claim.at_most(
                    f"lambda-controls-cost-{d}",
                    "λ controls cost: a larger λ in the pair weights gives cheaper recourse",
                    f"mean L1 cost at λ = {hi_lam:g} minus at λ = {lo_lam:g}, GenRe, {d}; "
                    f"{len(seeds)} seed(s)",
                    a - b,
                    config.lam_cost_gap_max,
                    paper="pair weights exp(−λ C(x⁻, x⁺)) (method)",
                    details={f"cost λ={hi_lam:g}": a, f"cost λ={lo_lam:g}": b},
                )
            )
    ks = np.asarray(toy["ks"])
    claims.append(
        Claim.at_most(
            "consistency-ks-toy",
            "Training on synthesised pairs gives a consistent estimator of the recourse distribution",
            f"max over {len(ks)} queries of the KS distance between R_θ samples (τ_inv = 1, "
            f"{config.toy_samples} each) and the pair distribution's soft-binned target; 1-D toy, "
            f"{config.toy_pos} positives, B = {config.n_bins}",
            float(ks.max()),
            config.ks_max,
            paper="consistent estimator (theorem; no number)",
            details={
                **{f"query{i}": float(v) for i, v in enumerate(ks)},
                "max_ks_vs_raw_pairs": float(np.max(toy["ks_raw"])),
                "min_ks_rival_unconditional": float(np.min(toy["ks_rival_unconditional"])),
            },
        )
    )
    return claims


def plots(report: Report) -> dict[str, Figure]:
    """Recourse on moons (seed 0), the cost–plausibility trade-off, and the toy's sample vs target."""
    from matplotlib.figure import Figure

    figs: dict[str, Figure] = {}
    ex = report.metrics["example"]
    X_tr, y_tr = np.asarray(ex["X_train"]), np.asarray(ex["y_train"])
    rec = ex["recourse"]
    X_neg = np.asarray(rec["X_neg"])
    if X_tr.shape[1] == 2:
        genre_main = [m for m in rec if m.startswith("GenRe") and "τ" not in m][-1:]  # the largest λ
        shown = [*genre_main, *(m for m in ("NNR", "Wachter") if m in rec)]
        fig = Figure(figsize=(5 * len(shown), 4.5), layout="constrained")
        for i, m in enumerate(shown):
            ax = fig.add_subplot(1, len(shown), i + 1)
            ax.scatter(
                X_tr[y_tr == 1, 0], X_tr[y_tr == 1, 1], s=5, c="tab:green", alpha=0.3, label="train y = 1"
            )
            ax.scatter(
                X_tr[y_tr == 0, 0], X_tr[y_tr == 0, 1], s=5, c="tab:red", alpha=0.3, label="train y = 0"
            )
            cf = np.asarray(rec[m])
            ax.scatter(X_neg[:, 0], X_neg[:, 1], s=14, c="k", marker="x", label="x⁻ (h < 0.5)")
            ax.scatter(cf[:, 0], cf[:, 1], s=14, c="tab:blue", label="recourse x⁺")
            for a, b in zip(X_neg, cf, strict=True):
                ax.plot([a[0], b[0]], [a[1], b[1]], c="tab:blue", lw=0.5, alpha=0.5)
            ax.set(xlabel="x1 (min-max scaled)", ylabel="x2 (min-max scaled)", title=m)
            ax.legend(fontsize=7, loc="lower left")
        fig.suptitle(f"Recourse on {ex['dataset']}, seed {report.metrics['seeds'][0]}")
        figs["recourse_moons"] = fig

    ds = report.metrics["datasets"]
    fig = Figure(figsize=(5.5 * len(ds), 4.5), layout="constrained")
    for i, (d, s) in enumerate(ds.items()):
        ax = fig.add_subplot(1, len(ds), i + 1)
        for m, v in s["means"].items():
            marker = "o" if m.startswith("GenRe") else "s"
            ax.scatter(v["cost"], v["lof_inlier"], s=40 + 160 * v["gold_validity"], marker=marker, label=m)
            ax.annotate(
                f"{v['validity']:.2f}",
                (v["cost"], v["lof_inlier"]),
                fontsize=7,
                xytext=(4, 4),
                textcoords="offset points",
            )
        ax.set(
            xlabel="mean L1 cost", ylabel="LOF-inlier fraction", title=f"{d}: trade-off (label: h-validity)"
        )
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Cost vs plausibility, marker area ∝ gold validity (mean over seeds)")
    figs["tradeoff"] = fig

    toy = report.metrics["toy"]
    fig = Figure(figsize=(3 * len(toy["queries"]), 3.6), layout="constrained")
    qs = toy["queries"]
    for i, q in enumerate(qs):
        ax = fig.add_subplot(1, len(qs), i + 1)
        B = len(q["target"])
        edges = np.arange(B) / B
        ax.bar(edges, np.asarray(q["empirical"]), width=1 / B, align="edge", alpha=0.5, label="R_θ samples")
        ax.step(edges, np.asarray(q["target"]), where="post", c="k", lw=1, label="pair target")
        ax.set(xlabel="x⁺ (bin left edge)")
        ax.set_title(f"x⁻ = {q['x_neg']:.2f}, KS {toy['ks'][i]:.3f}", fontsize=9)
        if i == 0:
            ax.set_ylabel("probability per bin")
            ax.legend(fontsize=7)
    fig.suptitle("Consistency on the 1-D toy: R_θ samples (τ_inv = 1) vs the synthesised pair distribution")
    figs["consistency_toy"] = fig
    return figs


__all__ = [
    "BASELINES",
    "DATASETS",
    "Config",
    "consistency",
    "load",
    "plots",
    "run",
    "run_cell",
    "toy_problem",
]
