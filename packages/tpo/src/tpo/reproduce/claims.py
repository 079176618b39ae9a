"""The claims on the records: accuracy (the paper's metric) first, each with its source and a paired CI.

Pairing: the same seed gives every method the same list order and pair draws from the same reference, and
every method answers the same test problems, so ``(n_seeds, n_test)`` tables of two methods are paired
cell by cell; the bootstrap resamples seeds and problems (:func:`paperkit.bootstrap_ci`, 2-d).
"""

from __future__ import annotations

import numpy as np
from paperkit import Claim, PairedDifference, ci_claim, paired_difference

from tpo.reproduce.run import Records

TABLE1 = "Table 1 / abstract: TPO > DPO on five LLMs and four math datasets (accuracy)"


def table(rec: Records, method: str, key: str) -> np.ndarray:
    """(n_seeds, n_test) per-problem values of ``key`` (``correct``, ``score``, ``tau_plain``)."""
    return np.stack([getattr(r, key) for r in rec.runs[method]])


def diff(rec: Records, a: str, b: str, key: str = "correct") -> PairedDifference:
    cfg = rec.config
    xa, xb = table(rec, a, key), table(rec, b, key)
    if key.startswith("tau"):  # lists whose τ is undefined (ties) in any run drop out of both sides
        ok = np.all(np.isfinite(xa) & np.isfinite(xb), axis=0)
        xa, xb = xa[:, ok], xb[:, ok]
    rng = np.random.default_rng([rec.seed, *f"{a}-{b}-{key}".encode()])
    seeds = tuple(r.seed for r in rec.runs[a])
    return paired_difference(xa, xb, rng=rng, names=(a, b), seeds=seeds, level=cfg.level, n_boot=cfg.n_boot)


def _scale(rec: Records) -> str:
    cfg = rec.config
    chosen = ", ".join(f"{m} lr {t.best['lr']:g} β {t.best['beta']:g}" for m, t in rec.tuning.items())
    return (
        f"{cfg.n_test} test problems x {cfg.n_seeds} paired seed(s); {cfg.po_steps} steps x {cfg.po_batch} "
        f"lists each; tuned on {cfg.n_dev} dev problems over lr {list(cfg.lrs)} x β {list(cfg.betas)} "
        f"({chosen})"
    )


def claims(rec: Records) -> list[Claim]:
    cfg, mg = rec.config, rec.config.margins
    pc = rec.pair_check
    out = [
        Claim.at_most(
            "tpo-equals-dpo-on-pairs",
            "With two-member lists TPO's ranking loss is exactly DPO's (one pair; Δ ≡ 1 or Δ-normalised)",
            f"max |L_TPO − L_DPO| on the same batch of {int(pc.get('n_lists', 0))} two-member held-out lists "
            "at the trained DPO policy (TPO w/o ASR; λ-weights off, and on with Δ-normalisation)",
            max(pc.get("abs_diff_lambda_off", np.nan), pc.get("abs_diff_lambda_normalized", np.nan)),
            mg.pair_equality_max,
            paper="ours (an identity: LiPO's list-size-2 case is DPO)",
            details={
                "dpo_loss": pc.get("dpo_loss", np.nan),
                "abs_diff_with_asr": pc.get("abs_diff_with_asr", np.nan),
            },
        )
    ]
    for b, label in (
        ("dpo", "DPO with one random pair a list"),
        ("dpo_best_vs_worst", "the official DPO pairing"),
    ):
        pd = diff(rec, "tpo", b)
        out.append(
            ci_claim(
                f"tpo-accuracy-above-{b.replace('_', '-')}",
                f"TPO's greedy final-answer accuracy is higher than {label}'s",
                f"accuracy(TPO) − accuracy({b}) per test problem and seed; {_scale(rec)}",
                pd,
                above=mg.acc_gap_min,
                paper=TABLE1,
                details={
                    "acc_tpo": float(table(rec, "tpo", "correct").mean()),
                    f"acc_{b}": float(table(rec, b, "correct").mean()),
                },
            )
        )
    sft = np.broadcast_to(rec.reference.correct, table(rec, "tpo", "correct").shape)
    rng = np.random.default_rng([rec.seed, 5])
    pd = paired_difference(
        table(rec, "tpo", "correct"),
        sft,
        rng=rng,
        names=("tpo", "sft"),
        seeds=tuple(r.seed for r in rec.runs["tpo"]),
        level=cfg.level,
        n_boot=cfg.n_boot,
    )
    out.append(
        ci_claim(
            "tpo-accuracy-above-sft",
            "TPO improves greedy final-answer accuracy over the SFT reference it starts from",
            f"accuracy(TPO) − accuracy(SFT reference) per test problem and seed; {_scale(rec)}",
            pd,
            above=mg.acc_sft_min,
            paper="Table 1: TPO > SFT",
            details={"acc_sft": float(rec.reference.correct.mean())},
        )
    )
    out.append(
        ci_claim(
            "tau-proxy-tpo-above-dpo",
            "Proxy (ours): TPO's implicit rewards rank held-out preference lists better than DPO's",
            "Kendall τ-b(β Σ_t ℓ_t, score) of TPO minus DPO (random pair), per test list and seed; "
            + _scale(rec),
            diff(rec, "tpo", "dpo", "tau_plain"),
            above=mg.tau_gap_min,
            paper="ours (spec's proxy; the paper reports accuracy, not τ)",
        )
    )
    return out
