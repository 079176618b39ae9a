"""The headline experiment: parity (and report-only mod-3 / mod-5) with eigenvalue range [0, 1] vs [−1, 1].

Every (task, model, seed) run trains a fresh model on lengths 3–40 (answer-only loss) and evaluates it on
fresh sequences of lengths 41–256 (length generalisation), in float32. The closed-form oracles are run
at length 10,000. ``run(config, seed=..., device=...)`` returns a :class:`paperkit.Report`;
``plots(report)`` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from paperkit import Claim, Report, torch_threads, track
from paperkit.stats import ci_claim, paired_difference

from lrnn_state_tracking.model import LRNNLM
from lrnn_state_tracking.oracles import parity_deltanet_oracle, parity_diag_oracle
from lrnn_state_tracking.tasks import get_task
from lrnn_state_tracking.training import accuracy_by_length, check_device, scaled_accuracy, train

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# name -> (layer, eigenvalue range)
MODELS: dict[str, tuple[str, str]] = {
    "diag[0,1]": ("diag", "01"),
    "diag[-1,1]": ("diag", "pm1"),
    "deltanet[0,1]": ("deltanet", "01"),
    "deltanet[-1,1]": ("deltanet", "pm1"),
    "ghproduct[-1,1]": ("ghproduct", "pm1"),
    "lstm": ("lstm", "01"),
    "transformer": ("transformer", "01"),
}
ZERO_ONE = ("diag[0,1]", "deltanet[0,1]")


@dataclass(frozen=True)
class Experiment:
    """One block of runs: ``models`` on ``task``, ``seeds`` seeds each, with its own model size and steps.

    ``label`` names the block (default: the task); ``train_len`` and ``d_state`` override the config's
    for this block; ``train_mode`` is the LRNN layers' form in training (``"sequential"`` is faster for
    sequences of at most ~16 tokens on a CPU; evaluation always uses the parallel form).
    """

    task: str
    models: tuple[str, ...]
    seeds: int
    steps: int
    d_model: int
    n_layers: int
    lr: float
    weight_decay: float = 0.0
    label: str = ""
    train_len: tuple[int, int] | None = None
    d_state: int | None = None
    train_mode: str = "parallel"

    def __post_init__(self) -> None:
        get_task(self.task)
        unknown = [m for m in self.models if m not in MODELS]
        if unknown:
            raise ValueError(f"unknown models {unknown}; expected names from {sorted(MODELS)}")
        for name in ("seeds", "steps", "d_model", "n_layers"):
            val = getattr(self, name)
            if isinstance(val, bool) or not isinstance(val, int) or val < 1:
                raise ValueError(f"{name} must be an int >= 1, got {val!r}")
        if self.train_len is not None and not (1 <= self.train_len[0] <= self.train_len[1]):
            raise ValueError(f"train_len must be (min, max) with 1 <= min <= max, got {self.train_len}")
        if self.d_state is not None and self.d_state < 1:
            raise ValueError(f"d_state must be >= 1, got {self.d_state}")
        if self.train_mode not in ("parallel", "sequential"):
            raise ValueError(f"train_mode must be 'parallel' or 'sequential', got {self.train_mode!r}")

    @property
    def key(self) -> str:
        """The block's name in the results (``label`` or the task)."""
        return self.label or self.task


# The diagonal model's parity claim in a regime our budget reaches (issue 21): the official d_state 16,
# training lengths 3-10 (the paper's 3-40 needs more steps than we can afford to leave the ln 2 plateau),
# the [0,1] control beside it, 3 seeds; evaluation on the paper's 41-256 (length generalisation).
SHORT_PARITY = Experiment(
    "parity", ("diag[0,1]", "diag[-1,1]"), seeds=3, steps=3000, d_model=16, n_layers=1, lr=1e-2,
    label="parity-train-3-10", train_len=(3, 10), d_state=16, train_mode="sequential",
)  # fmt: skip
# Frozen from the block's calibration run (seed 0, 2026-12-01, RESULTS.md section 2): diag[-1,1] 0.933 vs
# chance 0.5 (half-way 0.717); diag[0,1] 0.493 vs the [-1,1] model's 0.933 (half-way 0.713); the paired
# gap 0.440 vs none (half 0.22).
SHORT_PM1_MIN = 0.72
SHORT_01_MAX = 0.71
SHORT_GAP_MIN = 0.22


@dataclass(frozen=True)
class Config:
    """Scale and settings of the reproduction (defaults: the full run).

    Attributes:
        experiments: the blocks of runs; the first must be parity.
        batch, warmup: 64 sequences a step, 50 warm-up steps, then cosine decay to lr·1e−3 (spec).
        train_len, eval_len: (3, 40) and (41, 256) (official harness: train 3–40, test 40–256).
        n_eval: evaluation sequences per run (1,024, spec).
        oracle_len, oracle_batch: the oracles' strings (10,000 long, spec).
        d_state: Mamba state size N (official 16; 4 in the 3-40 blocks to fit the CPU budget: with
            N = 4 and Mamba's Δ init no [-1,1] eigenvalue is negative at initialisation, see README).
        conv: short-convolution width of the LRNN layers (official 4; 0 here, see the README's deviations).
        *_min / *_max: the claims' bounds, frozen from the calibration run recorded in the README.
    """

    experiments: tuple[Experiment, ...]
    batch: int = 64
    warmup: int = 50
    train_len: tuple[int, int] = (3, 40)
    eval_len: tuple[int, int] = (41, 256)
    n_eval: int = 1024
    oracle_len: int = 10_000
    oracle_batch: int = 4
    d_state: int = 4
    conv: int = 0
    # Frozen from the calibration run (quick, seed 0; README): diag[-1,1] 0.507 (at chance: nothing to
    # calibrate, the spec's 0.95 kept), [0,1] max 0.507 vs the best [-1,1] model 0.903 (half-way 0.705),
    # deltanet[-1,1] 0.903 vs chance 0.5 (half-way 0.70; the spec's 0.90 would be tighter).
    pm1_parity_min: float = 0.95
    zero_one_parity_max: float = 0.71
    deltanet_pm1_parity_min: float = 0.70
    # The short-training-length block (diag, d_state 16, lengths 3-10; full run only), frozen from its
    # calibration run (seed 0, RESULTS.md): see the two bounds' notes in the claims.
    short_pm1_parity_min: float = SHORT_PM1_MIN
    short_zero_one_parity_max: float = SHORT_01_MAX
    short_gap_min: float = SHORT_GAP_MIN

    def __post_init__(self) -> None:
        if not self.experiments or self.experiments[0].task != "parity":
            raise ValueError("the first experiment must be parity (the claims are about it)")
        if self.oracle_len < 1 or self.n_eval < 1 or self.batch < 1:
            raise ValueError("oracle_len, n_eval and batch must be >= 1")
        if not (1 <= self.train_len[0] <= self.train_len[1]) or not (
            1 <= self.eval_len[0] <= self.eval_len[1]
        ):
            raise ValueError(f"bad length ranges {self.train_len}, {self.eval_len}")

    @classmethod
    def quick(cls) -> Config:
        return cls(
            experiments=(
                Experiment(
                    "parity",
                    ("diag[0,1]", "diag[-1,1]", "deltanet[0,1]", "deltanet[-1,1]"),
                    1,
                    400,
                    16,
                    1,
                    1e-2,
                ),
            ),
        )

    @classmethod
    def full(cls) -> Config:
        return cls(
            experiments=(
                Experiment(
                    "parity",
                    ("diag[0,1]", "diag[-1,1]", "deltanet[0,1]", "deltanet[-1,1]", "lstm", "transformer"),
                    3,
                    400,
                    16,
                    1,
                    1e-2,
                ),
                SHORT_PARITY,
                Experiment("count_mod3", ("diag[0,1]", "diag[-1,1]", "ghproduct[-1,1]"), 1, 400, 16, 1, 1e-2),
                Experiment("mod_arith", ("deltanet[0,1]", "deltanet[-1,1]"), 1, 400, 32, 1, 1e-2, 0.1),
            ),
        )

    @classmethod
    def smoke(cls) -> Config:
        return cls(
            experiments=(
                Experiment(
                    "parity", ("diag[0,1]", "diag[-1,1]", "deltanet[0,1]", "deltanet[-1,1]"), 1, 3, 8, 1, 1e-2
                ),
            ),
            n_eval=16,
            eval_len=(41, 60),
            oracle_len=300,
            oracle_batch=2,
        )


def build_model(config: Config, exp: Experiment, name: str, seed: int, device: str) -> LRNNLM:
    """A fresh model ``name`` for ``exp``'s task, initialised from ``seed``."""
    layer, eig = MODELS[name]
    task = get_task(exp.task)
    torch.manual_seed(seed)
    model = LRNNLM(
        task.vocab_size,
        task.n_classes,
        exp.d_model,
        exp.n_layers,
        layer,
        eig,
        d_state=exp.d_state or config.d_state,
        conv=config.conv,
        n_heads=4 if exp.d_model % 4 == 0 else 1,
        mlp=layer == "transformer",  # the LRNN stacks are mixer-only, as the official Mamba LM
        context_length=max(256, config.eval_len[1]),
    )
    return model.to(device)


def run_one(config: Config, exp: Experiment, name: str, seed: int, device: str = "cpu") -> dict[str, Any]:
    """Train and evaluate one model; returns accuracies, per-length-bin accuracy, loss curve, seconds."""
    task = get_task(exp.task)
    model = build_model(config, exp, name, seed, device)
    lo, hi = exp.train_len or config.train_len
    hist = train(
        model,
        task,
        exp.steps,
        batch=config.batch,
        min_len=lo,
        max_len=hi,
        lr=exp.lr,
        warmup=config.warmup,
        weight_decay=exp.weight_decay,
        seed=seed,
        device=device,
        mode=exp.train_mode,
    )
    ev = accuracy_by_length(model, task, *config.eval_len, config.n_eval, seed=10_000 + seed, device=device)
    ev_in = accuracy_by_length(
        model, task, *config.train_len, max(64, config.n_eval // 4), seed=20_000 + seed, device=device
    )
    edges = np.linspace(config.eval_len[0], config.eval_len[1] + 1, 9)
    centres, binned = ev.binned(edges)
    return {
        "acc_eval": ev.accuracy,
        "acc_train_lengths": ev_in.accuracy,
        "scaled_acc_eval": scaled_accuracy(ev.accuracy, task.n_classes),
        "bin_centres": centres,
        "bin_acc": binned,
        "loss": hist.loss,
        "train_seconds": hist.seconds,
    }


def oracle_accuracy(config: Config, seed: int, device: str) -> dict[str, float]:
    """Accuracy of both parity oracles at every position of random strings of ``oracle_len`` bits."""
    gen = torch.Generator().manual_seed(seed)
    bits = torch.randint(0, 2, (config.oracle_batch, config.oracle_len), generator=gen).to(device)
    truth = bits.cumsum(1) % 2
    diag_hit = parity_diag_oracle(bits) == truth
    return {
        "diag": float(diag_hit.double().mean()),
        "deltanet": float((parity_deltanet_oracle(bits, seed=seed) == truth).double().mean()),
        "diag_final": float(diag_hit[:, -1].double().mean()),
    }


def _second_best(values: list[float]) -> float:
    """The accuracy reached by at least 2 of the seeds (the best with a single seed)."""
    s = sorted(values, reverse=True)
    return s[1] if len(s) >= 2 else s[0]


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Every block of ``config`` on seeds ``seed, seed + 1, ...``; ``device`` is checked first
    (:class:`paperkit.DeviceError` when it is not available)."""
    device = check_device(device)
    with torch_threads(1):
        return _run(config, seed, device)


Results = dict[str, dict[str, list[dict[str, Any]]]]  # block key -> model name -> one record a seed


def _run(config: Config, seed: int, device: str) -> Report:
    jobs = [(e, m, seed + s) for e in config.experiments for m in e.models for s in range(e.seeds)]
    results: Results = {}
    for exp, name, s in track(jobs, desc="lrnn-state-tracking reproduce"):
        results.setdefault(exp.key, {}).setdefault(name, []).append(run_one(config, exp, name, s, device))
    oracle = oracle_accuracy(config, seed, device)
    metrics: dict[str, Any] = {
        "oracle": oracle,
        "runs": _run_metrics(results, config),
        "blocks": {e.key: e.task for e in config.experiments},
    }
    claims = _parity_claims(results, config, seed)
    short = _short_claims(results, config, seed)
    claims += short
    claims.append(
        Claim.at_least(
            "oracles-exact-at-10k",
            "Closed-form [-1,1] constructions (diagonal a(1) = -1; DeltaNet beta(1) = 2) give exact parity",
            f"accuracy at every position of {config.oracle_batch} random bit strings of length "
            f"{config.oracle_len}, float32, the worse of the two oracles",
            min(oracle["diag"], oracle["deltanet"]),
            1.0,
            paper="exact constructions (Section 4)",
            details=oracle,
            note="an exactness check, not a calibrated margin: any error fails it",
        )
    )
    report_only, notes = _report_only(results, config)
    metrics["report_only"] = report_only
    tables: dict[str, list[dict[str, Any]]] = {"Accuracy by block and model": _rows(results, config)}
    if report_only:
        tables["Report-only claims (spec claim 3; not gated)"] = [
            {"claim": k, **{kk: vv for kk, vv in v.items() if kk != "details"}}
            for k, v in report_only.items()
        ]
    if not short:
        notes.append(f"The short-training-length parity block ({SHORT_PARITY.key}) runs in the full run.")
    notes = [
        "Accuracy is at the answer token (parity / mod-3: the last bit; mod-5: '='), float32, on fresh "
        "sequences; scaled accuracy = (acc - 1/K)/(1 - 1/K).",
        *notes,
    ]
    return Report(metrics=metrics, claims=claims, tables=tables, notes=notes)


def _run_metrics(results: Results, config: Config) -> dict[str, Any]:
    """Per block and model: accuracies per seed, per-length-bin accuracy, a thinned loss curve."""
    out: dict[str, Any] = {}
    for exp in config.experiments:
        for name, runs in results[exp.key].items():
            out[f"{exp.key}/{name}"] = {
                "acc_eval_per_seed": [r["acc_eval"] for r in runs],
                "acc_train_lengths_per_seed": [r["acc_train_lengths"] for r in runs],
                "bin_centres": runs[0]["bin_centres"],
                "bin_acc_per_seed": [r["bin_acc"] for r in runs],
                "loss_per_seed": [r["loss"][:: max(1, len(r["loss"]) // 200)] for r in runs],
            }  # wall-clock times go to the table only, so that the same seed gives the same metrics
    return out


def _rows(results: Results, config: Config) -> list[dict[str, Any]]:
    rows = []
    for exp in config.experiments:
        n_classes = get_task(exp.task).n_classes
        lo, hi = exp.train_len or config.train_len
        for name, runs in results[exp.key].items():
            accs = [r["acc_eval"] for r in runs]
            rows.append(
                {
                    "block": exp.key,
                    "model": name,
                    "layers × d_model": f"{exp.n_layers} × {exp.d_model}",
                    "d_state": (exp.d_state or config.d_state) if name.startswith("diag") else "",
                    "train lengths": f"{lo}-{hi}",
                    "steps": exp.steps,
                    "seeds": len(runs),
                    f"acc {config.train_len[0]}-{config.train_len[1]}": float(
                        np.mean([r["acc_train_lengths"] for r in runs])
                    ),
                    f"acc {config.eval_len[0]}-{config.eval_len[1]} (per seed)": ", ".join(
                        f"{a:.3f}" for a in accs
                    ),
                    "scaled acc (mean)": float(np.mean([scaled_accuracy(a, n_classes) for a in accs])),
                    "train s/run": float(np.mean([r["train_seconds"] for r in runs])),
                }
            )
    return rows


def _eval_scale(config: Config) -> str:
    return f"lengths {config.eval_len[0]}-{config.eval_len[1]}, {config.n_eval} sequences"


def _parity_claims(results: Results, config: Config, seed: int) -> list[Claim]:
    """The claims of the first block (parity, trained on the config's lengths, 3-40 by default)."""
    pe = config.experiments[0]
    parity = results[pe.key]
    scale = f"{_eval_scale(config)}; trained on {config.train_len[0]}-{config.train_len[1]}"
    claims: list[Claim] = []
    if "diag[-1,1]" in parity:
        accs = [r["acc_eval"] for r in parity["diag[-1,1]"]]
        claims.append(
            Claim.at_least(
                "parity-diag-pm1-solves",
                "The diagonal LRNN (Mamba) with eigenvalues in [-1,1] solves parity, generalising in length",
                f"parity accuracy of diag[-1,1] reached by >= 2 of {len(accs)} seeds (the seed if 1); "
                f"{pe.n_layers} layer, d_model {pe.d_model}, d_state {pe.d_state or config.d_state}, "
                f"{pe.steps} steps; {scale}",
                _second_best(accs),
                config.pm1_parity_min,
                paper="Table 1: Mamba [-1,1] solves parity (trained 3-40, tested 40-256); spec's gate 0.95",
                details={f"seed{seed + i}": a for i, a in enumerate(accs)},
                note="calibration run at chance (0.507): nothing to calibrate, the spec's 0.95 kept; fails "
                "at our 400 steps (ln 2 plateau; RESULTS.md)",
            )
        )
    zero_one = {n: [r["acc_eval"] for r in parity[n]] for n in ZERO_ONE if n in parity}
    if zero_one:
        claims.append(
            Claim.at_most(
                "parity-01-fails",
                "With eigenvalues in [0,1] (diagonal and DeltaNet) LRNNs cannot solve parity",
                f"largest parity accuracy over seeds of {', '.join(zero_one)}; {scale}",
                max(max(v) for v in zero_one.values()),
                config.zero_one_parity_max,
                paper="Table 1 and Theorem (Section 4): [0,1] variants near chance; spec's gate <= 0.60",
                details={f"{n}/seed{seed + i}": a for n, v in zero_one.items() for i, a in enumerate(v)},
                note="bound half-way from the calibration run to the best [-1,1] model (RESULTS.md)",
            )
        )
    if "deltanet[-1,1]" in parity:
        accs = [r["acc_eval"] for r in parity["deltanet[-1,1]"]]
        claims.append(
            Claim.at_least(
                "parity-deltanet-pm1-solves",
                "DeltaNet with eigenvalues in [-1,1] (beta in (0,2)) solves parity and generalises in length",
                f"parity accuracy of deltanet[-1,1] reached by >= 2 of {len(accs)} seeds (the seed if 1); "
                f"{pe.n_layers} layer, d_model {pe.d_model}, {pe.steps} steps; {scale}",
                _second_best(accs),
                config.deltanet_pm1_parity_min,
                paper="Table 1: DeltaNet [-1,1] solves parity; spec's soft gate >= 0.90",
                details={f"seed{seed + i}": a for i, a in enumerate(accs)},
                note="bound half-way between the calibration run and chance 0.5 (RESULTS.md)",
            )
        )
    return claims


def _short_claims(results: Results, config: Config, seed: int) -> list[Claim]:
    """The diagonal model's parity claims in the block trained on short strings (absent when not run)."""
    exp = next((e for e in config.experiments if e.key == SHORT_PARITY.key), None)
    if exp is None or not {"diag[0,1]", "diag[-1,1]"} <= set(results[exp.key]):
        return []
    pm1 = [r["acc_eval"] for r in results[exp.key]["diag[-1,1]"]]
    zero_one = [r["acc_eval"] for r in results[exp.key]["diag[0,1]"]]
    lo, hi = exp.train_len or config.train_len
    regime = (
        f"{exp.n_layers} layer, d_model {exp.d_model}, d_state {exp.d_state or config.d_state}, trained on "
        f"lengths {lo}-{hi} for {exp.steps} steps; {_eval_scale(config)}"
    )
    seeds = [seed + i for i in range(len(pm1))]
    diff = paired_difference(
        pm1, zero_one, rng=np.random.default_rng(seed), names=("diag[-1,1]", "diag[0,1]"), seeds=seeds
    )
    return [
        Claim.at_least(
            "parity-diag-pm1-solves-short-train",
            "The diagonal LRNN (Mamba) with eigenvalues in [-1,1] learns parity and generalises in length",
            f"parity accuracy of diag[-1,1] reached by >= 2 of {len(pm1)} seeds (the seed if 1); {regime}",
            _second_best(pm1),
            config.short_pm1_parity_min,
            paper="Table 1: Mamba [-1,1] solves parity, tested on 40-256 (trained there on 3-40)",
            details={f"seed{s}": a for s, a in zip(seeds, pm1, strict=True)},
            note="bound half-way from the calibration run (seed 0) to chance 0.5 (RESULTS.md)",
        ),
        Claim.at_most(
            "parity-diag-01-fails-short-train",
            "The same diagonal LRNN with eigenvalues in [0,1] cannot solve parity",
            f"largest parity accuracy of diag[0,1] over {len(zero_one)} seeds; {regime}",
            max(zero_one),
            config.short_zero_one_parity_max,
            paper="Table 1 and Section 4 (no finite-precision [0,1] LRNN solves parity): near chance",
            details={f"seed{s}": a for s, a in zip(seeds, zero_one, strict=True)},
            note="bound half-way from the calibration run's [0,1] control to its [-1,1] model (RESULTS.md)",
        ),
        ci_claim(
            "parity-diag-pm1-minus-01-short-train",
            "Extending the diagonal LRNN's eigenvalues from [0,1] to [-1,1] raises parity accuracy",
            f"acc(diag[-1,1]) - acc(diag[0,1]), paired by seed; {regime}",
            diff,
            above=config.short_gap_min,
            paper="Table 1 (Mamba [0,1] vs [-1,1] on parity)",
            note="bound: half the calibration run's gap (RESULTS.md); 3 seeds make the CI coarse",
        ),
    ]


def _report_only(results: Results, config: Config) -> tuple[dict[str, dict[str, Any]], list[str]]:
    out: dict[str, dict[str, Any]] = {}
    notes = []
    mod3 = results.get("count_mod3", {})
    if "ghproduct[-1,1]" in mod3 and any(n in mod3 for n in ("diag[0,1]", "diag[-1,1]")):
        gh = float(np.mean([r["acc_eval"] for r in mod3["ghproduct[-1,1]"]]))
        diag = max(
            float(np.mean([r["acc_eval"] for r in mod3[n]])) for n in ("diag[0,1]", "diag[-1,1]") if n in mod3
        )
        out["mod3-gh-product-beats-real-diagonal"] = {
            "statement": "counting mod 3: one-layer real diagonal LRNNs (either range) stay below a "
            "GH-product (2 Householders/token, [-1,1]) layer",
            "observed": gh - diag,
            "measured": "acc(ghproduct[-1,1]) - max acc(diag[0,1], diag[-1,1]), lengths "
            f"{config.eval_len[0]}-{config.eval_len[1]} (chance 1/3)",
            "holds": bool(gh > diag),
        }
    else:
        notes.append("Report-only mod-3 comparison (spec claim 3) runs in the full reproduction only.")
    mod5 = results.get("mod_arith", {})
    if "deltanet[0,1]" in mod5 and "deltanet[-1,1]" in mod5:
        a01 = float(np.mean([r["acc_eval"] for r in mod5["deltanet[0,1]"]]))
        apm = float(np.mean([r["acc_eval"] for r in mod5["deltanet[-1,1]"]]))
        out["mod5-deltanet-pm1-at-least-01"] = {
            "statement": "modular arithmetic mod 5 (no brackets): DeltaNet [-1,1] >= DeltaNet [0,1]",
            "observed": apm - a01,
            "measured": f"acc(deltanet[-1,1]) - acc(deltanet[0,1]), lengths {config.eval_len[0]}-"
            f"{config.eval_len[1]} (chance 0.2)",
            "holds": bool(apm >= a01),
        }
    else:
        notes.append("Report-only mod-5 comparison (spec claim 3) runs in the full reproduction only.")
    return out, notes


def plots(report: Report) -> dict[str, Figure]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figs: dict[str, Figure] = {}
    runs = report.metrics["runs"]
    blocks: dict[str, str] = report.metrics.get("blocks", {})
    keys = list(dict.fromkeys(k.split("/")[0] for k in runs))  # blocks in run order (parity first)
    fig, axes = plt.subplots(1, len(keys), figsize=(5.5 * len(keys), 4), squeeze=False)
    for ax, block in zip(axes[0], keys, strict=True):
        task = blocks.get(block, block)
        for key, r in runs.items():
            if not key.startswith(block + "/"):
                continue
            per_seed = np.asarray(r["bin_acc_per_seed"], dtype=float)
            seen = np.isfinite(per_seed).any(0)  # length bins that held sequences
            acc = np.full(per_seed.shape[1], np.nan)
            acc[seen] = np.nanmean(per_seed[:, seen], 0)
            ax.plot(r["bin_centres"], acc, marker="o", label=key.split("/")[1])
        chance = 1.0 / get_task(task).n_classes
        ax.axhline(chance, color="k", ls=":", lw=1, label="chance")
        ax.set(
            xlabel="sequence length (tokens)",
            ylabel="accuracy at the answer",
            title=f"{block}: length generalisation",
        )
        ax.set_ylim(0, 1.05)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    figs["accuracy_by_length"] = fig
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, r in runs.items():
        if key.startswith("parity/"):
            loss = np.asarray(r["loss_per_seed"][0], dtype=float)
            x = np.linspace(1, len(loss), len(loss))
            ax.plot(x / len(loss), loss, label=key.split("/")[1])
    ax.set(
        xlabel="fraction of training", ylabel="cross-entropy (nats), seed 0", title="parity: training loss"
    )
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    figs["parity_training_loss"] = fig
    return figs


__all__ = ["MODELS", "Config", "Experiment", "build_model", "oracle_accuracy", "plots", "run", "run_one"]
