"""The headline experiment: AIHF vs RLHF, ML-IRL and BC with scarce/rich preferences and clean/noisy demos.

Tabular part (quick and full): ``aihf/FeatureGrid-v0``, exact soft value iteration, 4 regimes
(A: clean demonstrations, B: 30 % random actions) x (10 / 200 preference pairs), 5 seeds; the spec's
claims 1–3 are checked on regime A, regime B is reported. The full run adds a λ sweep, the one-hot reward
variant and (claim 5) MuJoCo Reacher-v5 — see ``Config.reacher``.

``run(config, seed=..., device=...)`` returns a :class:`paperkit.Report`; ``plots(report)`` draws it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from paperkit import Claim, Report, track

from aihf.experiment import TABULAR_METHODS, TabularSetting, run_tabular

if TYPE_CHECKING:
    from matplotlib.figure import Figure

REGIMES = {"A/scarce": (0.0, 10), "A/rich": (0.0, 200), "B/scarce": (0.3, 10), "B/rich": (0.3, 200)}


@dataclass(frozen=True)
class Config:
    """Scale and settings (defaults: the full run).

    Attributes:
        n_seeds: seeds per regime (spec: 5); seed i uses ``seed + i``.
        n_demos: |D| (spec: 20).
        lam, beta, steps, lr: λ = 20, β = 0.1 (spec pilot), 300 reward steps (spec pilot), Adam lr 0.05.
        regimes: which of ``REGIMES`` run (A/scarce and A/rich are required by the claims).
        lam_sweep: extra λ values run on regime A (spec: sweep {1, 10, 30}); reported, not claimed.
        one_hot: run the one-hot reward variant (5 demos, 10 pairs, uniform evaluation start); reported.
        scarce_gain_min: claim 1's margin, AIHF − RLHF on A/scarce (frozen from the README's calibration).
        match_tol: claims 2 and 3's tolerance (spec: 0.03).
        robust_seeds: seeds of an extra A/scarce run (reported, not claimed) that shows how much claim 1's
            5-seed mean depends on the draw of the 10 pairs; 0 skips it.
        reacher_seeds: seeds of the MuJoCo Reacher-v5 part (spec: 2; 0 skips it and claim 5).
        reacher_steps: environment steps per method (spec: 20k; 5k here, see the README).
        reacher_lam: λ on Reacher (the largest of the spec's sweep {1, 10, 30}: the demonstration term
            carries 1/β = 20 and 50 steps per episode).
        reacher_gain_min, reacher_score_min: claim 5 (spec: AIHF ≥ RLHF + 0.10 and AIHF ≥ 0.5); the score
            bound is 0.4, half the calibration run's 0.834 (README); the gain keeps the spec's 0.10 because
            the calibration gain was negative (−0.004), so no positive margin was supported.
    """

    n_seeds: int = 5
    n_demos: int = 20
    lam: float = 20.0
    beta: float = 0.1
    steps: int = 300
    lr: float = 0.05
    regimes: tuple[str, ...] = tuple(REGIMES)
    lam_sweep: tuple[float, ...] = (1.0, 10.0, 30.0)
    one_hot: bool = True
    scarce_gain_min: float = 0.10
    match_tol: float = 0.03
    robust_seeds: int = 20
    reacher_seeds: int = 2
    reacher_steps: int = 5000
    reacher_lam: float = 30.0
    reacher_gain_min: float = 0.10
    reacher_score_min: float = 0.4

    def __post_init__(self) -> None:
        if self.n_seeds < 1 or self.n_demos < 1 or self.steps < 1:
            raise ValueError("n_seeds, n_demos and steps must be >= 1")
        if self.lam < 0 or any(x < 0 for x in self.lam_sweep):
            raise ValueError(f"lam must be >= 0, got {self.lam} / {self.lam_sweep}")
        unknown = set(self.regimes) - set(REGIMES)
        if unknown:
            raise ValueError(f"unknown regimes {sorted(unknown)}; expected names from {list(REGIMES)}")
        if not {"A/scarce", "A/rich"} <= set(self.regimes):
            raise ValueError("regimes must include 'A/scarce' and 'A/rich' (the claims are about them)")

    @classmethod
    def quick(cls) -> Config:
        """About 30 s on 2 cores: the 4 tabular regimes x 5 seeds, no sweep, no variant."""
        return cls(lam_sweep=(), one_hot=False, robust_seeds=0, reacher_seeds=0)

    @classmethod
    def full(cls) -> Config:
        """The 4 regimes x 5 seeds, the λ sweep and the one-hot variant."""
        return cls()

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: regime A only, 1 seed, 20 reward steps; its claims are not meaningful."""
        return cls(
            n_seeds=1,
            steps=20,
            regimes=("A/scarce", "A/rich"),
            lam_sweep=(),
            one_hot=False,
            robust_seeds=0,
            reacher_seeds=0,
        )


def _setting(config: Config, regime: str, **kw: Any) -> TabularSetting:
    noise, n_pairs = REGIMES[regime]
    base = TabularSetting(config.n_demos, noise, n_pairs, config.lam, config.beta, config.steps, config.lr)
    return replace(base, **kw)


def _stats(rows: list[dict[str, float]]) -> dict[str, Any]:
    keys = rows[0].keys()
    return {
        k: {
            "mean": float(np.mean([r[k] for r in rows])),
            "std": float(np.std([r[k] for r in rows])),
            "per_seed": [r[k] for r in rows],
        }
        for k in keys
    }


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Run every case and check the claims. ``device``: only ``"cpu"`` (the tabular part is numpy)."""
    if device != "cpu":
        raise ValueError(f"aihf's reproduction runs on the CPU only, got device={device!r}")
    seeds = list(range(seed, seed + config.n_seeds))
    cases: list[tuple[str, str, TabularSetting]] = [(r, r, _setting(config, r)) for r in config.regimes]
    cases += [
        (f"{r}/lam={lam:g}", r, _setting(config, r, lam=lam))
        for lam in config.lam_sweep
        for r in ("A/scarce", "A/rich")
    ]
    if config.one_hot:
        cases.append(("one-hot/A/scarce5", "A/scarce", _setting(config, "A/scarce", n_demos=5, one_hot=True)))
    if config.robust_seeds:
        cases.append((f"A/scarce/{config.robust_seeds}-seeds", "A/scarce", _setting(config, "A/scarce")))
    results: dict[str, dict[str, Any]] = {}
    for key, _, setting in track(cases, desc="aihf tabular"):
        n = config.robust_seeds if key.endswith("-seeds") else config.n_seeds
        results[key] = _stats([run_tabular(setting, s) for s in range(seed, seed + n)])
    reacher: dict[str, Any] | None = None
    if config.reacher_seeds:
        from aihf.continuous import ContinuousConfig
        from aihf.experiment_reacher import ReacherSetting, run_reacher

        rs = ReacherSetting(train=ContinuousConfig(env_steps=config.reacher_steps, lam=config.reacher_lam))
        rseeds = list(range(seed, seed + config.reacher_seeds))
        reacher = _stats([run_reacher(rs, s, device) for s in track(rseeds, desc="aihf reacher")])

    def mean(case: str, method: str) -> float:
        return float(results[case][method]["mean"])

    def per_seed(case: str, method: str) -> list[float]:
        return list(results[case][method]["per_seed"])

    gain = mean("A/scarce", "AIHF") - mean("A/scarce", "RLHF")
    rich_gap = mean("A/rich", "AIHF") - max(mean("A/rich", "RLHF"), mean("A/rich", "ML-IRL"))
    vs_ml = {c: mean(c, "AIHF") - mean(c, "ML-IRL") for c in ("A/scarce", "A/rich")}
    setup = (
        f"FeatureGrid-v0 (8x8, H = 30, β = {config.beta:g}), |D| = {config.n_demos} clean demonstrations, "
        f"λ = {config.lam:g}, {config.steps} reward steps; normalised true score "
        f"(J − J_random)/(J_expert − J_random), exact; mean of {config.n_seeds} seeds"
    )
    claims = [
        Claim.at_least(
            "tabular-scarce-aihf-beats-rlhf",
            "With scarce preferences, learning the reward from demonstrations and preferences jointly (AIHF) "
            "beats three-stage RLHF (SFT → BT reward → KL-regularised RL)",
            f"AIHF − RLHF normalised score, |P| = 10 pairs; {setup}",
            gain,
            config.scarce_gain_min,
            paper="spec pilot +0.22 (paper: AIHF > RLHF by large margins with unbalanced data)",
            details={
                "AIHF": mean("A/scarce", "AIHF"),
                "RLHF": mean("A/scarce", "RLHF"),
                "RLHF (uniform ref)": mean("A/scarce", "RLHF (uniform ref)"),
                "min per-seed gain": min(
                    np.subtract(per_seed("A/scarce", "AIHF"), per_seed("A/scarce", "RLHF"))
                ),
            },
            note="margin = the spec's proposed 0.10, below half the calibration run's gain "
            "(+0.758 → 0.379); see the README",
        ),
        Claim.at_least(
            "tabular-rich-aihf-matches-best",
            "With plentiful preferences AIHF is as good as the better of RLHF and ML-IRL",
            f"AIHF − max(RLHF, ML-IRL) normalised score, |P| = 200 pairs; {setup}",
            rich_gap,
            -config.match_tol,
            paper="spec pilot −0.005",
            details={m: mean("A/rich", m) for m in ("AIHF", "RLHF", "ML-IRL")},
        ),
        Claim.at_least(
            "tabular-aihf-not-below-mlirl",
            "Adding preferences to the demonstrations does not hurt: AIHF ≥ ML-IRL (demonstrations only)",
            f"min over |P| ∈ {{10, 200}} of AIHF − ML-IRL normalised score; {setup}",
            min(vs_ml.values()),
            -config.match_tol,
            paper="spec pilot +0.003 / +0.008",
            details={f"AIHF − ML-IRL, {c}": v for c, v in vs_ml.items()},
        ),
    ]
    if reacher is not None:
        rsetup = (
            f"Reacher-v5, 20 demos (PD expert + N(0, 0.3²)), 30 BT-labelled pairs, "
            f"λ = {config.reacher_lam:g}, β = α_SAC = 0.05, {config.reacher_steps} env steps per method "
            f"from the BC actor; normalised true return of the mean action over 20 episodes; "
            f"mean of {config.reacher_seeds} seeds"
        )
        rgain = reacher["AIHF"]["mean"] - reacher["RLHF"]["mean"]
        rdetails = {m: reacher[m]["mean"] for m in ("AIHF", "RLHF", "ML-IRL", "BC")}
        claims += [
            Claim.at_least(
                "reacher-scarce-aihf-beats-rlhf",
                "In MuJoCo with limited preferences AIHF outperforms RLHF (paper App. A.2.1, Fig. 5)",
                f"AIHF − RLHF normalised score; {rsetup}",
                rgain,
                config.reacher_gain_min,
                paper="AIHF > RLHF (no numbers quoted)",
                details=rdetails,
                note="spec's margin 0.10 kept: the calibration run's gain was −0.004, so no smaller "
                "positive margin is supported; see the README",
            ),
            Claim.at_least(
                "reacher-aihf-score",
                "AIHF's policy is well above random on Reacher (spec: normalised score >= 0.5)",
                f"AIHF normalised score; {rsetup}",
                reacher["AIHF"]["mean"],
                config.reacher_score_min,
                paper="spec proposal 0.5",
                note="bound = half the calibration run's 0.834 (rival: random = 0), below the spec's 0.5",
                details={
                    "J expert": reacher["J_expert"]["mean"],
                    "J random": reacher["J_random"]["mean"],
                    "J AIHF": reacher["J AIHF"]["mean"],
                },
            ),
        ]
    table = [
        {
            "case": key,
            **{m: f"{results[key][m]['mean']:.3f} ± {results[key][m]['std']:.3f}" for m in TABULAR_METHODS},
            "BT label flips": f"{results[key]['label_flip_rate']['mean']:.2f}",
        }
        for key in results
    ]
    notes = [
        "Scores are exact expectations (soft value iteration and forward occupancies), not Monte Carlo; the "
        "randomness is in D and P only. ± is the standard deviation over seeds.",
        "RLHF = SFT (BC on D, Laplace-smoothed) → Bradley–Terry reward on P → KL(π‖π_SFT)-regularised soft "
        "value iteration with weight β; 'RLHF (uniform ref)' is the spec pilot's variant (KL to uniform).",
        "Regime B (30 % random actions in D) is reported, not asserted (spec claim 4).",
    ]
    tables = {"Normalised true score (mean ± std over seeds)": table}
    if reacher is None:
        notes.append(
            "Claim 5 (MuJoCo Reacher-v5) runs in the full mode only (`aihf reproduce` without --quick)."
        )
    else:
        tables["Reacher-v5: normalised true score (mean ± std over seeds)"] = [
            {
                m: f"{reacher[m]['mean']:.3f} ± {reacher[m]['std']:.3f}"
                for m in ("BC", "ML-IRL", "RLHF", "AIHF")
            }
            | {
                "J expert": f"{reacher['J_expert']['mean']:.2f}",
                "J random": f"{reacher['J_random']['mean']:.2f}",
            }
        ]
    metrics = {"seeds": seeds, "cases": results, "reacher": reacher}
    return Report(metrics=metrics, claims=claims, tables=tables, notes=notes)


def plots(report: Report) -> dict[str, Figure]:
    """Bar chart of the normalised score per case and method (error bars: std over seeds)."""
    from matplotlib.figure import Figure

    cases: Mapping[str, Any] = report.metrics["cases"]
    keys = [k for k in cases if "lam=" not in k]
    fig = Figure(figsize=(9, 4.5))
    ax = fig.add_subplot()
    width = 0.8 / len(TABULAR_METHODS)
    x = np.arange(len(keys))
    for i, m in enumerate(TABULAR_METHODS):
        ax.bar(
            x + i * width,
            [cases[k][m]["mean"] for k in keys],
            width,
            yerr=[cases[k][m]["std"] for k in keys],
            label=m,
            capsize=2,
        )
    ax.set_xticks(x + 0.4 - width / 2, keys, fontsize=8)
    ax.axhline(1.0, color="k", lw=0.6, ls="--")
    ax.set(
        ylabel="normalised true score (1 = expert, 0 = random)",
        title="FeatureGrid-v0: A = clean / B = noisy demos; scarce = 10 / rich = 200 pairs",
    )
    ax.legend(fontsize=7, ncols=3)
    ax.grid(True, axis="y", alpha=0.3)
    figs = {"tabular_scores": fig}
    reacher = report.metrics.get("reacher")
    if reacher:
        fig3 = Figure(figsize=(5, 4))
        ax3 = fig3.add_subplot()
        ms = ("BC", "ML-IRL", "RLHF", "AIHF")
        ax3.bar(
            ms,
            [reacher[m]["mean"] for m in ms],
            yerr=[reacher[m]["std"] for m in ms],
            capsize=3,
            color=["C0", "C1", "C2", "C4"],
        )
        for i, m in enumerate(ms):
            ax3.plot([i] * len(reacher[m]["per_seed"]), reacher[m]["per_seed"], "k.", ms=4)
        ax3.axhline(1.0, color="k", lw=0.6, ls="--")
        ax3.set(
            ylabel="normalised true return (1 = PD expert, 0 = random)",
            title="Reacher-v5, 30 preference pairs (dots: seeds)",
        )
        ax3.grid(True, axis="y", alpha=0.3)
        figs["reacher_scores"] = fig3
    sweep = sorted({float(k.split("lam=")[1]) for k in cases if "lam=" in k})
    if sweep:
        fig2 = Figure(figsize=(6, 4))
        ax2 = fig2.add_subplot()
        for regime in ("A/scarce", "A/rich"):
            lams = sorted(
                {*sweep, *([] if regime not in cases else [float(report.metrics.get("lam", 20.0))])}
            )
            ys = [
                cases[f"{regime}/lam={lam:g}"]["AIHF"]["mean"]
                if f"{regime}/lam={lam:g}" in cases
                else cases[regime]["AIHF"]["mean"]
                for lam in lams
            ]
            ax2.plot(lams, ys, "o-", label=f"AIHF, {regime}")
            ax2.axhline(cases[regime]["RLHF"]["mean"], ls=":", lw=0.8, label=f"RLHF, {regime}")
        ax2.set(
            xscale="log",
            xlabel="λ (preference weight)",
            ylabel="normalised true score",
            title="λ sweep, regime A (β = 0.1, H = 30)",
        )
        ax2.legend(fontsize=7)
        ax2.grid(True, alpha=0.3)
        figs["lambda_sweep"] = fig2
    return figs
