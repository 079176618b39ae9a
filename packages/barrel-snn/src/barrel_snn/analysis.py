"""Post-training analyses: constraint audit, firing rates and CV per subtype, ANOVA selectivity,
whisker deprivation."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from paperkit.validation import check_int

from barrel_snn.anatomy import N_POP, POPULATIONS, SIGNS
from barrel_snn.data import N_WHISKERS, deprive, encode_spikes
from barrel_snn.models import BarrelSNN
from barrel_snn.neurons import TAU_MIN
from barrel_snn.training import accuracy


def average_ranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks of ``x`` (n,), ties sharing the mean of their positions (scipy's ``rankdata``
    "average"); (n,) float64."""
    x = np.asarray(x)
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    new = np.concatenate([[True], xs[1:] != xs[:-1]])  # first element of each run of ties
    starts = np.flatnonzero(new)
    ends = np.concatenate([starts[1:], [len(x)]])
    ranks = np.empty(len(x), dtype=np.float64)
    ranks[order] = ((starts + 1 + ends) / 2.0)[np.cumsum(new) - 1]
    return ranks


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation of two (n,) samples: Pearson's r of their average ranks, computed as
    scipy's ``spearmanr`` does (the same numbers, without importing scipy.stats); NaN when either input
    is constant or n < 2."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be (n,) arrays of one length, got shapes {x.shape} and {y.shape}")
    if len(x) < 2 or (x == x[0]).all() or (y == y[0]).all() or np.isnan(x).any() or np.isnan(y).any():
        return float("nan")
    ranked = np.column_stack([average_ranks(x), average_ranks(y)])
    r = np.corrcoef(ranked, rowvar=False)[1, 0]
    return float(r) if np.isfinite(r) else float("nan")


def constraint_violations(model: BarrelSNN) -> dict[str, int]:
    """Count violations of the model's constraints on its effective (dense) synaptic matrices.

    Keys: ``outside_mask`` (non-zero effective weight where the mask is 0), ``weight_range`` (a synaptic
    value outside [0, 1]), ``sign`` (an effective weight whose sign differs from its source population's
    type, i.e. Dale's law), ``thalamic_sign`` (negative thalamic weight), ``tau`` (tau < 1).
    """
    with torch.no_grad():
        th, rec = model.dense_weights()  # (200, N), (N, N) pre x post
        mask = torch.zeros_like(rec, dtype=torch.bool)
        mask[model.rec_index[1], model.rec_index[0]] = True
        th_mask = torch.zeros_like(th, dtype=torch.bool)
        th_mask[model.th_index[1], model.th_index[0]] = True
        pop = torch.as_tensor(model.neuron_population(), device=rec.device)
        sign = torch.as_tensor(SIGNS, device=rec.device, dtype=rec.dtype)[pop][:, None]  # per source row
        taus = torch.cat([model.tau_m, model.tau_adp, model.th_tau_m, model.th_tau_adp])
        w = torch.cat([model.w_rec, model.w_th])
        return {
            "outside_mask": int((rec[~mask] != 0).sum() + (th[~th_mask] != 0).sum()),
            "weight_range": int(((w < 0) | (w > 1)).sum()),
            "sign": int((rec * sign < 0).sum()),
            "thalamic_sign": int((th < 0).sum()),
            "tau": int((taus < TAU_MIN).sum()),
        }


def population_rates(spikes: np.ndarray, pop: np.ndarray) -> np.ndarray:
    """Mean firing probability per step of each of the 13 populations; spikes (..., T, N), pop (N,)."""
    s = np.asarray(spikes, dtype=np.float64).reshape(-1, spikes.shape[-1]).mean(0)
    return np.array([s[pop == k].mean() if np.any(pop == k) else np.nan for k in range(N_POP)])


def isi_cv(spikes: np.ndarray, min_spikes: int = 3) -> np.ndarray:
    """Coefficient of variation of the inter-spike intervals of every neuron: spikes (T, N) 0/1 ->
    (N,) float, NaN where a neuron has fewer than ``min_spikes`` spikes."""
    spikes = np.asarray(spikes)
    if spikes.ndim != 2:
        raise ValueError(f"spikes must be (T, N), got shape {spikes.shape}")
    out = np.full(spikes.shape[1], np.nan)
    for j in np.flatnonzero(spikes.sum(0) >= min_spikes):
        isi = np.diff(np.flatnonzero(spikes[:, j]))
        out[j] = isi.std() / isi.mean()
    return out


def anova_selectivity(
    spikes: np.ndarray, labels: np.ndarray, alpha: float = 1e-3
) -> tuple[np.ndarray, np.ndarray]:
    """Official ANOVA: per neuron, one-way ANOVA across the 3 classes of the class-summed spike count at
    each time step. spikes (trials, T, N), labels (trials,). Returns (p_values (N,), selective (N,) bool)."""
    from scipy.stats import f_oneway

    spikes = np.asarray(spikes, dtype=np.float64)
    by_class = [spikes[labels == c].sum(0) for c in range(3)]  # 3 x (T, N)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant / degenerate neurons: handled below
        pv = np.asarray(f_oneway(*by_class, axis=0).pvalue, dtype=np.float64)  # all neurons at once
    constant = np.all([np.ptp(b, axis=0) == 0 for b in by_class], axis=0)  # no variation in any class
    p = np.where(np.isfinite(pv) & ~constant, pv, 1.0)
    return p, p < alpha


def deprivation_curve(
    model: torch.nn.Module,
    force: np.ndarray,
    torque: np.ndarray,
    labels: np.ndarray,
    counts: Sequence[int] = (0, 1, 2, 4, 8),
    draws: int = 10,
    seed: int = 0,
    dt_rep: int = 1,
) -> dict[int, list[float]]:
    """Test accuracy with k whiskers' force and torque set to 0, for each k in ``counts``.

    As the official script: k = 1 deprives single whiskers (up to ``draws`` distinct ones of 31),
    k >= 2 draws k distinct whiskers among the first 30 (index 30 is never drawn). Every condition is
    encoded with the same encoding seed (common random numbers), so only the deprivation differs.
    Returns {k: [accuracy per draw]}.
    """
    rng = np.random.default_rng(seed)
    out: dict[int, list[float]] = {}
    for k in counts:
        check_int(k, "counts[i]", low=0, high=N_WHISKERS)
        if k == 0:
            sets: list[np.ndarray] = [np.array([], dtype=np.int64)]
        elif k == 1:
            sets = [np.array([w]) for w in rng.permutation(N_WHISKERS)[:draws]]
        else:
            pool = N_WHISKERS - 1 if k < N_WHISKERS else N_WHISKERS
            sets = [rng.choice(pool, size=k, replace=False) for _ in range(draws)]
        accs = []
        for w in sets:
            f, t = deprive(force, torque, w)
            xf, xt = encode_spikes(f, t, np.random.default_rng(seed + 10_000), dt_rep=dt_rep)
            accs.append(accuracy(model, xf, xt, labels))
        out[int(k)] = accs
    return out


def population_table(spikes: np.ndarray, pop: np.ndarray) -> list[dict[str, Any]]:
    """Per population: name, layer, type, size, rate (spikes per step), median ISI CV over neurons
    (trials pooled). spikes (trials, T, N)."""
    rates = population_rates(spikes, pop)
    cvs = np.concatenate([isi_cv(s)[None] for s in spikes], 0)  # (trials, N)
    rows = []
    for k, p in enumerate(POPULATIONS):
        c = cvs[:, pop == k]
        c = c[np.isfinite(c)]
        rows.append(
            {
                "population": p.name,
                "layer": p.layer,
                "type": p.kind,
                "neurons": int(np.sum(pop == k)),
                "rate (spikes/step)": float(rates[k]),
                "median ISI CV": float(np.median(c)) if c.size else float("nan"),
            }
        )
    return rows


__all__ = [
    "anova_selectivity",
    "constraint_violations",
    "deprivation_curve",
    "isi_cv",
    "population_rates",
    "population_table",
]
