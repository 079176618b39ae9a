"""The paper's claims checked on a run: all claim text, each claim's source and margin, in one place.

The margins live in :class:`~lrnn_state_tracking.reproduce.config.Margins`. The mod-3 and mod-5
comparisons (spec claim 3) are report-only: measured and tabled, not gated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from paperkit import Claim
from paperkit.stats import ci_claim, paired_difference

from lrnn_state_tracking.reproduce.config import SHORT_PARITY, ZERO_ONE, Block, Config

if TYPE_CHECKING:
    from lrnn_state_tracking.reproduce.run import Records

#: Where each claim comes from (the README's "source" column).
SOURCES = {
    "parity-diag-pm1-solves": (
        "Table 1: Mamba [-1,1] solves parity (trained 3-40, tested 40-256); spec's gate 0.95"
    ),
    "parity-01-fails": "Table 1 and Theorem (Section 4): [0,1] variants near chance; spec's gate <= 0.60",
    "parity-deltanet-pm1-solves": "Table 1: DeltaNet [-1,1] solves parity; spec's soft gate >= 0.90",
    "parity-diag-pm1-solves-short-train": (
        "Table 1: Mamba [-1,1] solves parity, tested on 40-256 (trained there on 3-40)"
    ),
    "parity-diag-01-fails-short-train": (
        "Table 1 and Section 4 (no finite-precision [0,1] LRNN solves parity): near chance"
    ),
    "parity-diag-pm1-minus-01-short-train": "Table 1 (Mamba [0,1] vs [-1,1] on parity)",
    "oracles-exact-at-10k": "exact constructions (Section 4)",
}


def second_best(values: list[float]) -> float:
    """The accuracy reached by at least 2 of the seeds (the best with a single seed)."""
    s = sorted(values, reverse=True)
    return s[1] if len(s) >= 2 else s[0]


def _eval_scale(config: Config) -> str:
    return f"lengths {config.eval_len[0]}-{config.eval_len[1]}, {config.n_eval} sequences"


def _seed_details(accs: list[float], seed: int) -> dict[str, float]:
    return {f"seed{seed + i}": a for i, a in enumerate(accs)}


def _pm1_claim(records: Records, config: Config, model: str, scale: str) -> Claim:
    """diag[-1,1] or deltanet[-1,1] of the first block solves parity (the accuracy >= 2 seeds reach)."""
    pe = config.experiments[0]
    accs = records.accs(pe.key, model)
    common = f"parity accuracy of {model} reached by >= 2 of {len(accs)} seeds (the seed if 1); "
    if model == "diag[-1,1]":
        return Claim.at_least(
            "parity-diag-pm1-solves",
            "The diagonal LRNN (Mamba) with eigenvalues in [-1,1] solves parity, generalising in length",
            common + f"{pe.n_layers} layer, d_model {pe.d_model}, d_state {pe.d_state or config.d_state}, "
            f"{pe.steps} steps; {scale}",
            second_best(accs),
            config.margins.pm1_parity_min,
            paper=SOURCES["parity-diag-pm1-solves"],
            details=_seed_details(accs, records.seed),
            note="calibration run at chance (0.507): nothing to calibrate, the spec's 0.95 kept; fails "
            "at our 400 steps (ln 2 plateau; RESULTS.md)",
        )
    return Claim.at_least(
        "parity-deltanet-pm1-solves",
        "DeltaNet with eigenvalues in [-1,1] (beta in (0,2)) solves parity and generalises in length",
        common + f"{pe.n_layers} layer, d_model {pe.d_model}, {pe.steps} steps; {scale}",
        second_best(accs),
        config.margins.deltanet_pm1_parity_min,
        paper=SOURCES["parity-deltanet-pm1-solves"],
        details=_seed_details(accs, records.seed),
        note="bound half-way between the calibration run and chance 0.5 (RESULTS.md)",
    )


def parity_claims(records: Records, config: Config) -> list[Claim]:
    """The claims of the first block (parity, trained on the config's lengths, 3-40 by default)."""
    pe = config.experiments[0]
    parity = records.block(pe.key)
    scale = f"{_eval_scale(config)}; trained on {config.train_len[0]}-{config.train_len[1]}"
    out: list[Claim] = []
    if "diag[-1,1]" in parity:
        out.append(_pm1_claim(records, config, "diag[-1,1]", scale))
    zero_one = {n: records.accs(pe.key, n) for n in ZERO_ONE if n in parity}
    if zero_one:
        out.append(
            Claim.at_most(
                "parity-01-fails",
                "With eigenvalues in [0,1] (diagonal and DeltaNet) LRNNs cannot solve parity",
                f"largest parity accuracy over seeds of {', '.join(zero_one)}; {scale}",
                max(max(v) for v in zero_one.values()),
                config.margins.zero_one_parity_max,
                paper=SOURCES["parity-01-fails"],
                details={
                    f"{n}/seed{records.seed + i}": a for n, v in zero_one.items() for i, a in enumerate(v)
                },
                note="bound half-way from the calibration run to the best [-1,1] model (RESULTS.md)",
            )
        )
    if "deltanet[-1,1]" in parity:
        out.append(_pm1_claim(records, config, "deltanet[-1,1]", scale))
    return out


def short_block(records: Records, config: Config) -> Block | None:
    """The short-training-length parity block when it ran with both diagonal variants, else None."""
    exp = next((e for e in config.experiments if e.key == SHORT_PARITY.key), None)
    if exp is None or not {"diag[0,1]", "diag[-1,1]"} <= set(records.block(exp.key)):
        return None
    return exp


def short_claims(records: Records, config: Config) -> list[Claim]:
    """The diagonal model's parity claims in the block trained on short strings (absent when not run)."""
    exp = short_block(records, config)
    if exp is None:
        return []
    pm1, zero_one = records.accs(exp.key, "diag[-1,1]"), records.accs(exp.key, "diag[0,1]")
    lo, hi = exp.train_len or config.train_len
    regime = (
        f"{exp.n_layers} layer, d_model {exp.d_model}, d_state {exp.d_state or config.d_state}, trained on "
        f"lengths {lo}-{hi} for {exp.steps} steps; {_eval_scale(config)}"
    )
    seeds = [records.seed + i for i in range(len(pm1))]
    diff = paired_difference(
        pm1, zero_one, rng=np.random.default_rng(records.seed), names=("diag[-1,1]", "diag[0,1]"), seeds=seeds
    )
    return [
        Claim.at_least(
            "parity-diag-pm1-solves-short-train",
            "The diagonal LRNN (Mamba) with eigenvalues in [-1,1] learns parity and generalises in length",
            f"parity accuracy of diag[-1,1] reached by >= 2 of {len(pm1)} seeds (the seed if 1); {regime}",
            second_best(pm1),
            config.margins.short_pm1_parity_min,
            paper=SOURCES["parity-diag-pm1-solves-short-train"],
            details={f"seed{s}": a for s, a in zip(seeds, pm1, strict=True)},
            note="bound half-way from the calibration run (seed 0) to chance 0.5 (RESULTS.md)",
        ),
        Claim.at_most(
            "parity-diag-01-fails-short-train",
            "The same diagonal LRNN with eigenvalues in [0,1] cannot solve parity",
            f"largest parity accuracy of diag[0,1] over {len(zero_one)} seeds; {regime}",
            max(zero_one),
            config.margins.short_zero_one_parity_max,
            paper=SOURCES["parity-diag-01-fails-short-train"],
            details={f"seed{s}": a for s, a in zip(seeds, zero_one, strict=True)},
            note="bound half-way from the calibration run's [0,1] control to its [-1,1] model (RESULTS.md)",
        ),
        ci_claim(
            "parity-diag-pm1-minus-01-short-train",
            "Extending the diagonal LRNN's eigenvalues from [0,1] to [-1,1] raises parity accuracy",
            f"acc(diag[-1,1]) - acc(diag[0,1]), paired by seed; {regime}",
            diff,
            above=config.margins.short_gap_min,
            paper=SOURCES["parity-diag-pm1-minus-01-short-train"],
            note="bound: half the calibration run's gap (RESULTS.md); 3 seeds make the CI coarse",
        ),
    ]


def oracle_claim(records: Records, config: Config) -> Claim:
    """The closed-form [-1,1] constructions give exact parity at length ``oracle_len`` (ours: exactness)."""
    oracle = vars(records.oracle)
    return Claim.at_least(
        "oracles-exact-at-10k",
        "Closed-form [-1,1] constructions (diagonal a(1) = -1; DeltaNet beta(1) = 2) give exact parity",
        f"accuracy at every position of {config.oracle_batch} random bit strings of length "
        f"{config.oracle_len}, float32, the worse of the two oracles",
        min(records.oracle.diag, records.oracle.deltanet),
        1.0,
        paper=SOURCES["oracles-exact-at-10k"],
        details=oracle,
        note="an exactness check, not a calibrated margin: any error fails it",
    )


def claims(records: Records, config: Config) -> list[Claim]:
    """Every gated claim of the run, in the README's order."""
    return [*parity_claims(records, config), *short_claims(records, config), oracle_claim(records, config)]


def _mean_acc(records: Records, key: str, model: str) -> float:
    return float(np.mean(records.accs(key, model)))


def report_only(records: Records, config: Config) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Spec claim 3 (mod-3 with a GH-product layer, mod-5 with DeltaNet): measured, not gated; and the
    notes that say which of them did not run."""
    out: dict[str, dict[str, Any]] = {}
    notes = []
    lengths = f"lengths {config.eval_len[0]}-{config.eval_len[1]}"
    mod3 = records.block("count_mod3")
    diags = [n for n in ("diag[0,1]", "diag[-1,1]") if n in mod3]
    if "ghproduct[-1,1]" in mod3 and diags:
        gh = _mean_acc(records, "count_mod3", "ghproduct[-1,1]")
        diag = max(_mean_acc(records, "count_mod3", n) for n in diags)
        out["mod3-gh-product-beats-real-diagonal"] = {
            "statement": "counting mod 3: one-layer real diagonal LRNNs (either range) stay below a "
            "GH-product (2 Householders/token, [-1,1]) layer",
            "observed": gh - diag,
            "measured": f"acc(ghproduct[-1,1]) - max acc(diag[0,1], diag[-1,1]), {lengths} (chance 1/3)",
            "holds": bool(gh > diag),
        }
    else:
        notes.append("Report-only mod-3 comparison (spec claim 3) runs in the full reproduction only.")
    mod5 = records.block("mod_arith")
    if "deltanet[0,1]" in mod5 and "deltanet[-1,1]" in mod5:
        a01 = _mean_acc(records, "mod_arith", "deltanet[0,1]")
        apm = _mean_acc(records, "mod_arith", "deltanet[-1,1]")
        out["mod5-deltanet-pm1-at-least-01"] = {
            "statement": "modular arithmetic mod 5 (no brackets): DeltaNet [-1,1] >= DeltaNet [0,1]",
            "observed": apm - a01,
            "measured": f"acc(deltanet[-1,1]) - acc(deltanet[0,1]), {lengths} (chance 0.2)",
            "holds": bool(apm >= a01),
        }
    else:
        notes.append("Report-only mod-5 comparison (spec claim 3) runs in the full reproduction only.")
    if short_block(records, config) is None:
        notes.append(f"The short-training-length parity block ({SHORT_PARITY.key}) runs in the full run.")
    return out, notes
