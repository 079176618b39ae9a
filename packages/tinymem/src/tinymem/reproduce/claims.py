"""The paper's claims checked on a run: all claim text, each claim's source and margin, in one place.

The margins live in :class:`~tinymem.reproduce.config.Margins`. Claims 4-5 (best within the budget,
regularizers weak, faster than fine-tuning) need every method and run only at full scale
(``Config.claims_full``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from paperkit import Claim

from tinymem.methods import UNLEARNING
from tinymem.reproduce.config import Config

if TYPE_CHECKING:
    from tinymem.reproduce.run import Records, SettingRecord

#: Where each claim comes from (the README's "source" column).
SOURCES = {
    "precondition-memorises": "TinyMem models memorise noise and keep high accuracy (§3)",
    "balanced-subnet-removes-memorisation": "≈0 % memorised, accuracy close to the base model (§5-6)",
    "balanced-subnet-label-removes-memorisation": "≈0 % memorised, accuracy close to the base model (§5-6); "
    "which loss version the paper used is not stated",
    "balanced-subnet-keeps-accuracy-better-than-subnet": (
        "BalancedSubnet keeps accuracy where Subnet does not (§5)"
    ),
    "balanced-subnet-best-within-budget": "BalancedSubnet best trade-off (§6)",
    "regularizer-weak": "regularizers slow and ineffective (§4)",
    "balanced-subnet-faster-than-finetuning": "unlearning faster than fine-tuning (§6)",
}


def _selected_or_best(records: Records, method: str) -> SettingRecord:
    """``method``'s selected setting, or (none within the budget) its least-memorising one."""
    chosen = records.selected.get(method)
    if chosen is not None:
        return chosen
    return min(records.of(method), key=lambda r: (r.scores.mem, r.scores.acc_drop))


def precondition_claim(records: Records) -> Claim:
    """The base model memorises (>= 50 %) and is accurate (>= 90 %): the substrate gate."""
    base = records.base.scores
    return Claim.at_least(
        "precondition-memorises",
        "The trained TinyMem model memorises the planted noised sequences and is accurate on clean data",
        "min(% memorised − 50, k=7 test accuracy − 90) of the unmitigated model (points above the spec's "
        "thresholds: ≥ 50 % memorised, ≥ 90 % accuracy); below 0 the run is invalid",
        min(base.mem - 50.0, base.acc - 90.0),
        0.0,
        paper=SOURCES["precondition-memorises"],
        details={
            "percent_memorised": base.mem,
            "accuracy": base.acc,
            "acc_real_tokens": base.acc_real_tokens,
        },
    )


def removal_claims(records: Records, config: Config) -> list[Claim]:
    """BalancedSubnet (latest α form, and the older label form when run) removes memorisation cheaply."""
    mb, db = config.margins.mem_bound, config.margins.drop_bound
    bs = _selected_or_best(records, "balanced_subnet")
    out = [
        Claim.at_most(
            "balanced-subnet-removes-memorisation",
            "BalancedSubnet removes (nearly) all memorised sequences at a small accuracy cost",
            f"max(% memorised − {mb:g}, acc drop − {db:g}) of BalancedSubnet's selected "
            f"configuration (ratio {bs.setting.value:g}); ≤ 0 passes",
            max(bs.scores.mem - mb, bs.scores.acc_drop - db),
            0.0,
            paper=SOURCES["balanced-subnet-removes-memorisation"],
            details={
                "percent_memorised": bs.scores.mem,
                "acc_drop": bs.scores.acc_drop,
                "ratio": bs.setting.value,
                "base_mem": records.base.scores.mem,
            },
        )
    ]
    if records.of("balanced_subnet_label"):
        lab = _selected_or_best(records, "balanced_subnet_label")
        out.append(
            Claim.at_most(
                "balanced-subnet-label-removes-memorisation",
                "BalancedSubnet under the older official loss mean(−B·label·L) removes (nearly) all "
                "memorised sequences at a small accuracy cost",
                f"max(% memorised − {mb:g}, acc drop − {db:g}) of its selected "
                f"configuration (ratio {lab.setting.value:g}); ≤ 0 passes",
                max(lab.scores.mem - mb, lab.scores.acc_drop - db),
                0.0,
                paper=SOURCES["balanced-subnet-label-removes-memorisation"],
                details={
                    "percent_memorised": lab.scores.mem,
                    "acc_drop": lab.scores.acc_drop,
                    "ratio": lab.setting.value,
                },
            )
        )
    return out


def subnet_comparison_claim(records: Records) -> Claim:
    """BalancedSubnet's accuracy drop below Subnet's at the same ratio (0.01, else the smallest shared)."""
    subnet = {r.setting.value: r for r in records.of("subnet")}
    balanced = {r.setting.value: r for r in records.of("balanced_subnet")}
    common = sorted(set(subnet) & set(balanced))
    gaps = {v: subnet[v].scores.acc_drop - balanced[v].scores.acc_drop for v in common}
    ref = 0.01 if 0.01 in gaps else common[0]
    return Claim.at_least(
        "balanced-subnet-keeps-accuracy-better-than-subnet",
        "BalancedSubnet loses less clean accuracy than Subnet (which ignores clean data) at the same ratio",
        f"acc drop(Subnet) − acc drop(BalancedSubnet) at ratio {ref:g} (points)",
        gaps[ref],
        0.0,
        paper=SOURCES["balanced-subnet-keeps-accuracy-better-than-subnet"],
        details={
            **{f"gap_ratio_{v:g}": g for v, g in gaps.items()},
            **{f"subnet_mem_ratio_{v:g}": subnet[v].scores.mem for v in common},
            **{f"balanced_mem_ratio_{v:g}": balanced[v].scores.mem for v in common},
        },
    )


def best_within_budget_claim(records: Records, config: Config) -> Claim:
    """BalancedSubnet's selected % memorised is the lowest of the unlearning methods (ties within points)."""
    bs_sel = records.selected.get("balanced_subnet")
    others = {
        n: records.selected[n]
        for n in UNLEARNING
        if n in records.selected and n not in ("balanced_subnet", "balanced_subnet_label")
    }
    within = {n: s.scores.mem for n, s in others.items() if s is not None}
    best_other = min(within.values()) if within else math.inf
    return Claim.at_least(
        "balanced-subnet-best-within-budget",
        "BalancedSubnet's selected configuration has the lowest % memorised among the unlearning methods "
        "within the accuracy budget (or ties within 2 points)",
        "min over the other unlearning methods' selected % memorised − BalancedSubnet's (points)",
        (best_other - bs_sel.scores.mem) if bs_sel is not None else -math.inf,
        -config.margins.tie_points,
        paper=SOURCES["balanced-subnet-best-within-budget"],
        details={f"mem_{n}": v for n, v in within.items()},
    )


def regularizer_claim(records: Records, config: Config) -> Claim:
    """Loss truncation leaves most of the base model's memorisation."""
    lt = records.of("loss_truncation")
    base_mem = records.base.scores.mem
    lt_mem = min(r.scores.mem for r in lt)
    return Claim.at_least(
        "regularizer-weak",
        "Regularizers are weak: loss truncation leaves most of the memorisation",
        "min over loss-truncation settings of % memorised / base % memorised",
        lt_mem / base_mem if base_mem > 0 else math.nan,
        config.margins.reg_keep,
        paper=SOURCES["regularizer-weak"],
        details={"loss_truncation_mem": lt_mem, "base_mem": base_mem},
    )


def speed_claim(records: Records, config: Config, bs_sel: SettingRecord) -> Claim:
    """Clean fine-tuning's CPU seconds to reach BalancedSubnet's % memorised, over BalancedSubnet's."""
    curve = records.ft_curves["ft_clean"]
    target = bs_sel.scores.mem
    reach = [c.seconds for c in curve if c.mem <= target]
    t_ft = reach[0] if reach else (curve[-1].seconds if curve else math.nan)
    return Claim.at_least(
        "balanced-subnet-faster-than-finetuning",
        "BalancedSubnet reaches a memorisation level faster than clean fine-tuning",
        f"seconds of clean fine-tuning until % memorised ≤ BalancedSubnet's ({target:.1f} %) divided "
        "by BalancedSubnet's seconds"
        + ("" if reach else " (fine-tuning never reached it: its total time, a lower bound)"),
        t_ft / bs_sel.seconds,
        config.margins.speedup,
        paper=SOURCES["balanced-subnet-faster-than-finetuning"],
        details={
            "ft_seconds": t_ft,
            "balanced_subnet_seconds": bs_sel.seconds,
            "ft_reached": float(bool(reach)),
        },
    )


def claims(records: Records, config: Config) -> list[Claim]:
    """Every claim of the run, in the README's order (claims 4-5 only with ``config.claims_full``)."""
    out = [precondition_claim(records), *removal_claims(records, config), subnet_comparison_claim(records)]
    if config.claims_full:
        out.append(best_within_budget_claim(records, config))
        if "loss_truncation" in records.selected:
            out.append(regularizer_claim(records, config))
        bs_sel = records.selected.get("balanced_subnet")
        if "ft_clean" in records.ft_curves and bs_sel is not None:
            out.append(speed_claim(records, config, bs_sel))
    return out
