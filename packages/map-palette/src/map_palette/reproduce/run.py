"""``run(config, *, seed, device) -> Report``: the closed-form Gaussian checks, feasibility on bounded
rewards, KL minimality and sequential alignment (data A), then MAP decoding of a tiny LM (data B)."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import Report, check_seed, torch_threads, track

from map_palette.data import (
    GAUSSIAN_MU,
    GAUSSIAN_SIGMA,
    NEGATIVE,
    POSITIVE,
    beta_copula_rewards,
    gaussian_rewards,
    review_prompts,
)
from map_palette.decode import map_select, sample_candidates, selection_weights
from map_palette.dual import Groups, dual_value, empirical_kl, tilt_weights
from map_palette.gaussian import gaussian_lambda_star, gaussian_solve, gaussian_tilted_mean
from map_palette.methods import run_method
from map_palette.palette import quantile_palette
from map_palette.reproduce.claims import claims
from map_palette.reproduce.config import TARGETED, VALUE_NAMES, Config
from map_palette.reproduce.tables import tables
from map_palette.solvers import BOUNDARY_TOL, feasibility_margin, sequential_lambda, solve_lambda
from map_palette.training import train_review_lm
from map_palette.values import Conciseness, Diversity, Lexicon, Value, coherence_value, score_values

__all__ = [
    "DecodeRecord",
    "FeasibilityRecord",
    "GaussianRecord",
    "decode_seed",
    "feasibility_seed",
    "gaussian_seed",
    "run",
]

DECODE_METHODS = ("reference", "equal-weight", "random-lambda", "sequential-1", "best-of-k", "map")
GRAMMAR = re.compile(
    r"^ the \w+ was( (very|truly|really))? \w+( and the \w+ was( (very|truly|really))? \w+)* \.$"
)


@dataclass(frozen=True)
class GaussianRecord:
    """Data A (i) under one seed: λ*, its estimates, IS levels, random λ and sequential rounds."""

    lam_star: np.ndarray  # (m,) exact QP optimum of the population dual
    lam_solver: np.ndarray  # (m,) the package's L-BFGS-B on the closed-form dual
    lam_sample: np.ndarray  # (m,) solve_lambda on the 20k samples
    realized: np.ndarray  # (m,) IS estimate of E_{p_λ*} r on the samples
    se: np.ndarray  # (m,) its delta-method standard error
    predicted: np.ndarray  # (m,) μ + Σλ*
    duality_gap: float  # |KL(p_λ̂) − g_n(λ̂)|
    kl_star: float  # empirical KL at λ̂
    random_kl: np.ndarray  # (n_random,) KL of random λ
    random_feasible: np.ndarray  # (n_random,) bool: meets the palette on the sample
    random_realized: np.ndarray  # (n_random, m)
    seq_history: np.ndarray  # (rounds, m) exact coordinate ascent
    seq_adam: np.ndarray  # (m,) the official Adam coordinate steps after `rounds` rounds


@dataclass(frozen=True)
class FeasibilityRecord:
    """Data A (ii) under one seed: random palettes, the LP verdict and what the dual solvers did."""

    margin: np.ndarray  # (k,) LP margins
    certified: np.ndarray  # (k,) bool: L-BFGS-B's dual exceeded the KL ceiling
    violation: np.ndarray  # (k,) max_i (c_i − realised_i) at the L-BFGS-B solution
    adam_certified: np.ndarray  # (k,) bool: same, official Adam (150 steps)
    adam_violation: np.ndarray  # (k,)


@dataclass(frozen=True)
class DecodeRecord:
    """Data B under one seed: the reference LM, palettes on the dev prompts, decoding on fresh prompts."""

    losses: tuple[float, float]  # first and last SFT loss
    grammatical: float  # fraction of dev samples that parse under the toy grammar
    palettes: dict[float, dict[str, Any]]  # q -> c, status, lam, kl, ess (per-prompt dual on dev)
    c: np.ndarray  # (m,) the claim palette
    sd: np.ndarray  # (m,) dev standard deviations
    lams: dict[str, np.ndarray]  # method -> λ
    fresh_mean: dict[str, np.ndarray]  # method -> (m,) mean reward of the kept samples on fresh prompts
    fresh_se: dict[str, np.ndarray]  # method -> (m,) its standard error over prompts
    fresh_expected: dict[str, np.ndarray]  # method -> (m,) E under the selection weights
    fresh_ess: dict[str, float]  # method -> mean per-prompt ESS out of K
    kept: dict[str, np.ndarray]  # method -> (m, P) rewards of the kept samples
    dev_shortfall_eq: np.ndarray  # (m,) (c − dev level of equal weight) / sd
    coherence: str  # which coherence value ran


def _is_se(R: np.ndarray, w: np.ndarray, est: np.ndarray) -> np.ndarray:
    return np.sqrt(np.sum(w**2 * (R - est[:, None]) ** 2, axis=1))


def gaussian_seed(config: Config, s: int) -> GaussianRecord:
    mu, S = GAUSSIAN_MU, GAUSSIAN_SIGMA
    c = mu + config.shift
    R = gaussian_rewards(config.n_gauss, seed=s)
    lam_star = gaussian_lambda_star(mu, S, c)
    w = tilt_weights(lam_star, R)
    real = R @ w
    sol = solve_lambda(R, c)
    rng = np.random.default_rng(s + 1)
    m = len(mu)
    scale = rng.uniform(0.0, 3.0 * lam_star.sum(), size=(config.n_random_lambda, 1))
    lams = scale * rng.dirichlet(np.ones(m), size=config.n_random_lambda)
    rr = np.stack([R @ tilt_weights(lam, R) for lam in lams])
    rkl = np.array([empirical_kl(lam, R) for lam in lams])
    _, hist = sequential_lambda(R, c, rounds=config.rounds)
    adam, _ = sequential_lambda(R, c, rounds=config.rounds, solver="adam_log")
    return GaussianRecord(
        lam_star=lam_star,
        lam_solver=gaussian_solve(mu, S, c),
        lam_sample=sol.lam,
        realized=real,
        se=_is_se(R, w, real),
        predicted=gaussian_tilted_mean(lam_star, mu, S),
        duality_gap=abs(sol.kl - dual_value(sol.lam, R, c)),
        kl_star=sol.kl,
        random_kl=rkl,
        random_feasible=np.all(rr >= c - 1e-9, axis=1),
        random_realized=rr,
        seq_history=hist,
        seq_adam=adam,
    )


def _random_palettes(R: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """(count, m) palettes between the mean and just under each value's maximum (never trivially out)."""
    lo, hi = R.mean(axis=1), R.max(axis=1) - 1e-3 * (R.max(axis=1) - R.min(axis=1))
    d = rng.uniform(0.0, 1.0, size=(count, R.shape[0]))
    d /= d.max(axis=1, keepdims=True)
    return lo + rng.uniform(0.5, 1.0, size=(count, 1)) * d * (hi - lo)


def feasibility_seed(config: Config, s: int) -> FeasibilityRecord:
    """Classify random palettes by the LP, keep ``n_palettes`` infeasible and ``n_palettes`` strictly
    feasible ones, and solve each with both dual solvers (no LP involved in their certificates)."""
    R = beta_copula_rewards(config.n_beta, seed=s)
    rng = np.random.default_rng(s + 2)
    pal = _random_palettes(R, 4 * config.n_palettes, rng)
    margins = np.array([feasibility_margin(R, c) for c in pal])
    keep = np.r_[
        np.flatnonzero(margins > BOUNDARY_TOL)[: config.n_palettes],
        np.flatnonzero(margins < -BOUNDARY_TOL)[: config.n_palettes],
    ]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # near the boundary the ESS is small by construction
        for c, t in zip(pal[keep], margins[keep], strict=True):
            sol, adam = solve_lambda(R, c, lp_margin=t), solve_lambda(R, c, solver="adam_log", lp_margin=t)
            viol = float(np.max(c - sol.realized)) if sol.feasible else np.nan
            aviol = (
                float(np.max(c - adam.realized))
                if adam.feasible and not adam.dual_exceeded_ceiling
                else np.nan
            )
            rows.append((sol.dual_exceeded_ceiling, viol, adam.dual_exceeded_ceiling, aviol))
    a = list(zip(*rows, strict=True))
    return FeasibilityRecord(
        margin=margins[keep],
        certified=np.array(a[0], bool),
        violation=np.array(a[1]),
        adam_certified=np.array(a[2], bool),
        adam_violation=np.array(a[3]),
    )


def _values(config: Config, device: str) -> list[Value]:
    coh = coherence_value(device=device, prefer_embedding=config.embedding_coherence)
    return [Lexicon(POSITIVE, NEGATIVE), Conciseness(), Diversity(), coh]


def _sample_scored(
    model: Any, tok: Any, prompts: list[str], values: list[Value], config: Config, seed: int, device: str
) -> tuple[list[str], np.ndarray]:
    cands = sample_candidates(
        model, tok, prompts, k=config.k, max_new_tokens=config.max_new_tokens, seed=seed, device=device
    )
    return cands, score_values(values, [p for p in prompts for _ in range(config.k)], cands)


def _dev_palettes(R: np.ndarray, ids: np.ndarray, config: Config) -> dict[float, dict[str, Any]]:
    out = {}
    for q in config.quantiles:
        c = quantile_palette(R, VALUE_NAMES, {t: q for t in TARGETED})
        sol = solve_lambda(R, c, normalization="per_prompt", prompt_ids=ids)
        out[q] = {
            "c": c,
            "status": sol.status,
            "lam": sol.lam,
            "kl": sol.kl,
            "ess": sol.ess,
            "margin": sol.lp_margin,
        }
    return out


def decode_seed(config: Config, s: int, values: list[Value], device: str) -> DecodeRecord:
    model, tok, losses = train_review_lm(config.lm, seed=s, device=device)
    dev_p = review_prompts(config.lm_prompts, seed=10_000 + s)
    cands, R = _sample_scored(model, tok, dev_p, values, config, s, device)
    ids = np.repeat(np.arange(config.lm_prompts), config.k)
    pal = _dev_palettes(R, ids, config)
    c = pal[config.claim_quantile]["c"]
    kw = {"seed": s, "normalization": "per_prompt", "prompt_ids": ids}
    lams = {name: run_method(name, R, c, **kw).lam for name in DECODE_METHODS}
    lams["map-joint"] = solve_lambda(R, c).lam  # joint weights, resampled per prompt (a mismatch; spec)
    sd = R.std(axis=1)
    dev_eq = R @ tilt_weights(lams["equal-weight"], R, Groups.of(ids))
    fresh_p = review_prompts(config.fresh_prompts, seed=20_000 + s)
    _, Rf = _sample_scored(model, tok, fresh_p, values, config, s + 1, device)
    mean, se, exp, ess, kept = {}, {}, {}, {}, {}
    for name, lam in lams.items():
        chosen = map_select(Rf, lam, config.k, seed=s + 2)  # the same Gumbel noise for every method: paired
        idx = np.arange(config.fresh_prompts) * config.k + chosen
        kept[name] = Rf[:, idx]
        mean[name], se[name] = (
            kept[name].mean(axis=1),
            kept[name].std(axis=1, ddof=1) / np.sqrt(config.fresh_prompts),
        )
        w = selection_weights(Rf, lam, config.k)
        exp[name] = (Rf.reshape(len(values), -1, config.k) * w[None]).sum(axis=2).mean(axis=1)
        ess[name] = float(np.mean(1.0 / np.sum(w**2, axis=1)))
    return DecodeRecord(
        losses=(float(losses[0]), float(losses[-1])),
        grammatical=float(np.mean([bool(GRAMMAR.match(t)) for t in cands])),
        palettes=pal,
        c=c,
        sd=sd,
        lams=lams,
        fresh_mean=mean,
        fresh_se=se,
        fresh_expected=exp,
        fresh_ess=ess,
        kept=kept,
        dev_shortfall_eq=(c - dev_eq) / np.where(sd > 0, sd, 1.0),
        coherence=type(values[-1]).__name__,
    )


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    seeds = tuple(range(seed, seed + config.n_seeds))
    gauss = [gaussian_seed(config, s) for s in track(seeds, desc="gaussian")]
    feas = [feasibility_seed(config, s) for s in track(seeds, desc="feasibility")]
    lm_seeds = () if config.skip_lm else tuple(range(seed, seed + config.lm_seeds))
    dec: list[DecodeRecord] = []
    if lm_seeds:
        with torch_threads(1):
            values = _values(config, device)
            dec = [decode_seed(config, s, values, device) for s in track(lm_seeds, desc="lm decoding")]
    cl, metrics = claims(gauss, feas, dec, config, seeds, lm_seeds)
    lm_note = (
        "Data B skipped (skip_lm: the smoke scale)."
        if not dec
        else f"Data B: tiny GPT-2 ({config.lm.n_layer} layers, d {config.lm.d_model}, "
        f"{config.lm.steps} SFT steps of "
        f"{config.lm.batch_size}) per seed {list(lm_seeds)}; {config.lm_prompts} dev prompts and "
        f"{config.fresh_prompts} fresh prompts x K = {config.k}; coherence = {dec[0].coherence}."
    )
    notes = [
        f"Data A: Gaussian rewards N(μ, Σ) (m = 3, corr(r1, r2) = −0.5), n = {config.n_gauss}, palette μ + "
        f"{list(config.gauss_shift)}; bounded Beta-copula rewards, n = {config.n_beta}; seeds {list(seeds)}.",
        lm_note,
    ]
    return Report(metrics=metrics, claims=cl, tables=tables(gauss, feas, dec, config), notes=notes)
