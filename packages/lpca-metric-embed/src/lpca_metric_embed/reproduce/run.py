"""The experiment: exact embedding dimensions of L2 vs LPCA, planted graphs, and the KD-tree check.

For every graph and seed, Algorithm 1 (logarithmic search, PCA warm starts) finds the exact embedding
dimension D* of the L2 model with the hinge loss and of LPCA with the logistic loss. Disjoint cliques have
known answers (L2: 1, LPCA: 3). A random geometric graph planted in R^d has an exact L2 embedding at D = d
(its positions, β = r), certified by the exactness check; on those graphs the official synthetic-graph
recipe is searched too, and one fit at D = d starts from classical MDS of the hop distances. Separately,
the KD-tree check is compared pair by pair with the dense check on random embeddings with exact ties, and
its CPU time is measured against N.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import Report, torch_threads, track
from scipy.sparse.csgraph import shortest_path

from lpca_metric_embed.baselines import svd_sign_eed
from lpca_metric_embed.graphs import Graph, block_cliques, from_edge_index, planted_rgg, rgg_radius, to_graph
from lpca_metric_embed.recon import dense_mismatch, kdtree_mismatch
from lpca_metric_embed.reproduce.config import GRAPHS, PLANTED_D, Config, Recipe
from lpca_metric_embed.search import find_eed
from lpca_metric_embed.training import fit


@dataclass(frozen=True)
class Search:
    """One search: D* (None: not exact at d_max), its fits ``(dim, exact, epochs, n_wrong, curve)``."""

    eed: int | None
    trace: tuple[Mapping[str, Any], ...]
    wall_s: float


@dataclass(frozen=True)
class Case:
    graph: str
    seed: int
    n: int
    links: int
    l2: Search
    lpca: Search
    svd_sign_eed: int | None


@dataclass(frozen=True)
class Planted:
    """A planted RGG in R^d: the certificate of its positions, the warm start at D = d, the official D*."""

    graph: str
    seed: int
    d: int
    planted_wrong: int
    warm_exact: bool
    warm_epochs: int
    warm_wrong: int
    official: Search | None


@dataclass(frozen=True)
class KDCheck:
    disagreements: int
    embeddings: int
    tie_pairs: int
    wrong_counts: tuple[int, ...]
    timing: tuple[Mapping[str, Any], ...]
    slope: float | None


@dataclass(frozen=True)
class Records:
    config: Config
    seeds: tuple[int, ...]
    cases: Mapping[tuple[str, int], Case]
    planted: tuple[Planted, ...]
    kd: KDCheck


def make_graph(name: str, seed: int) -> Graph:
    """The spec's small graphs (all via networkx/numpy; the random ones drawn with ``seed``)."""
    import networkx as nx

    if name == "cliques":
        return block_cliques(60, 6)  # B = 6 blocks of 10 (spec quick mode)
    if name in PLANTED_D:
        return planted_rgg(150, PLANTED_D[name], seed=seed, degree=8.0)[0]
    if name == "karate":
        return to_graph(nx.karate_club_graph())  # weighted: binarised (weight != 0 is a link)
    if name == "florentine":
        return to_graph(nx.florentine_families_graph())
    if name == "davis":
        return to_graph(nx.davis_southern_women_graph())
    if name == "lesmis":
        return to_graph(nx.les_miserables_graph())
    if name == "sbm":
        probs = [[0.3 if a == b else 0.02 for b in range(4)] for a in range(4)]
        return to_graph(nx.stochastic_block_model([50] * 4, probs, seed=seed))
    if name == "er":
        return to_graph(nx.gnp_random_graph(200, 0.05, seed=seed))
    raise ValueError(f"unknown graph {name!r}; expected one of {GRAPHS}")


def search(
    g: Graph, model: str, loss: str, recipe: Recipe, *, d_min: int, d_max: int, seed: int, device: str
) -> Search:
    t0 = time.perf_counter()
    res = find_eed(
        g,
        model=model,
        loss=loss,
        d_min=d_min,
        d_max=d_max,
        lr=recipe.lr,
        max_epochs=recipe.max_epochs,
        eval_every=recipe.eval_every,
        patience=recipe.patience,
        seed=seed,
        device=device,
    )
    trace = tuple(
        {"dim": f.dim, "exact": f.exact, "epochs": f.epochs, "n_wrong": f.n_wrong, "curve": f.curve}
        for f in res.trace
    )
    return Search(res.eed, trace, time.perf_counter() - t0)


def mds_init(g: Graph, dim: int) -> np.ndarray:
    """Classical MDS of the hop-distance matrix: (N, dim) positions (unreachable pairs: diameter + 1).

    A warm start that uses only the graph: on a geometric graph hop counts grow with Euclidean distance,
    so the top-``dim`` MDS coordinates approximate the planted layout up to a rotation and scale.
    """
    S = shortest_path(g.csr(), unweighted=True, directed=g.directed)
    finite = np.isfinite(S)
    S[~finite] = (S[finite].max() if finite.any() else 0.0) + 1.0
    S = 0.5 * (S + S.T)
    n = len(S)
    J = np.eye(n) - 1.0 / n
    w, V = np.linalg.eigh(-0.5 * J @ (S**2) @ J)
    top = np.argsort(w)[::-1][:dim]
    return V[:, top] * np.sqrt(np.maximum(w[top], 0.0))


def planted_case(cfg: Config, name: str, seed: int, device: str) -> Planted:
    d = PLANTED_D[name]
    g, pos = planted_rgg(150, d, seed=seed, degree=8.0)
    r = rgg_radius(150, d, 8.0)
    wrong = dense_mismatch(pos, pos, r, g).n_wrong
    P = mds_init(g, d)
    warm = fit(
        g,
        d,
        model="l2",
        loss="hinge",
        lr=cfg.warm_lr,
        max_epochs=cfg.warm_epochs,
        eval_every=cfg.recipe.eval_every,
        patience=cfg.recipe.patience,
        init=(P, P),
        seed=seed,
        device=device,
    )
    off = None
    if cfg.run_official:
        off = search(
            g,
            "l2",
            "hinge",
            cfg.official,
            d_min=cfg.d_min,
            d_max=cfg.official_d_max,
            seed=seed,
            device=device,
        )
    return Planted(name, seed, d, wrong, warm.exact, warm.epochs, warm.n_wrong, off)


def random_check_case(
    k: int, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, float, Graph]:
    """Embedding k of the dense-vs-KD comparison: even k on an integer grid with an integer β (exact ties
    ‖x_i − y_j‖ = β occur and are exactly representable), odd k Gaussian. The graph is the embedding's own
    reconstruction with 1% of its links and as many non-links flipped, so both error kinds occur."""
    D = 1 + k % 4
    if k % 2 == 0:
        X = rng.integers(0, 6, (n, D)).astype(np.float64)
        Y = rng.integers(0, 6, (n, D)).astype(np.float64)
        beta = float(rng.integers(1, 4))
    else:
        X, Y = rng.normal(size=(n, D)), rng.normal(size=(n, D))
        beta = float(np.median(np.linalg.norm(X[:50, None] - Y[None, :50], axis=-1))) / 2
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)  # independent of recon's arithmetic
    A = d2 <= beta * beta
    np.fill_diagonal(A, False)
    A = A ^ (rng.random(A.shape) < 0.01)
    np.fill_diagonal(A, False)
    i, j = np.nonzero(A)
    return X, Y, beta, from_edge_index(n, np.stack([i, j]), directed=True)


def _best_time(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def _timing(cfg: Config, seed: int) -> list[dict[str, Any]]:
    timing: list[dict[str, Any]] = []
    sizes_by = (("kdtree", cfg.scaling_n), ("dense", cfg.dense_n)) if cfg.time_scaling else ()
    for method, sizes in sizes_by:
        check = kdtree_mismatch if method == "kdtree" else dense_mismatch
        for n in sizes:
            g, pos = planted_rgg(n, 3, seed=seed, degree=10.0)
            r = rgg_radius(n, 3, 10.0)

            def once(check: Any = check, pos: np.ndarray = pos, g: Graph = g, r: float = r) -> int:
                return int(check(pos, pos, r, g).n_wrong)

            if once() != 0:  # the planted embedding is exact by construction
                raise RuntimeError(f"planted RGG at N = {n} is not certified exact by the {method} check")
            t = _best_time(once, repeat=3 if method == "kdtree" else 1)
            timing.append({"N": n, "method": method, "seconds": t, "links": g.n_links})
    return timing


def kdtree_experiment(cfg: Config, seed: int) -> KDCheck:
    """Dense vs KD-tree on random embeddings (pair sets must be identical); KD and dense time vs N."""
    rng = np.random.default_rng(seed)
    disagreements, ties, wrong = 0, 0, []
    for k in range(cfg.check_embeddings):
        X, Y, beta, g = random_check_case(k, cfg.check_n, rng)
        dm, km = dense_mismatch(X, Y, beta, g), kdtree_mismatch(X, Y, beta, g)
        same = np.array_equal(dm.missed, km.missed) and np.array_equal(dm.spurious, km.spurious)
        disagreements += int(not same)
        wrong.append(dm.n_wrong)
        if k % 2 == 0:
            ties += int((((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1) == beta * beta).sum())
    timing = _timing(cfg, seed)
    kd = [t for t in timing if t["method"] == "kdtree"]
    slope = None
    if kd:
        logn = np.log(np.array([t["N"] for t in kd], dtype=float))
        slope = float(np.polyfit(logn, np.log([t["seconds"] for t in kd]), 1)[0])
    return KDCheck(disagreements, cfg.check_embeddings, ties, tuple(wrong), tuple(timing), slope)


def run_records(config: Config, *, seed: int = 0, device: str = "cpu") -> Records:
    """Every search, the planted-graph experiments and the KD check, on one torch thread."""
    cfg = config
    seeds = tuple(range(seed, seed + cfg.n_seeds))
    jobs = [(name, s) for name in cfg.graphs for s in seeds]
    span = {"d_min": cfg.d_min, "d_max": cfg.d_max}
    cases: dict[tuple[str, int], Case] = {}
    with torch_threads(1):  # tiny tensors; on a shared 2-core machine one thread is fastest
        for name, s in track(jobs, desc="lpca-metric-embed searches"):
            g = make_graph(name, s)
            l2 = search(g, "l2", "hinge", cfg.recipe, **span, seed=s, device=device)
            lpca = search(g, "lpca", "logistic", cfg.recipe, **span, seed=s, device=device)
            links = g.n_links // (1 if g.directed else 2)
            cases[(name, s)] = Case(name, s, g.n, links, l2, lpca, svd_sign_eed(g, cfg.d_max))
        planted = tuple(
            planted_case(cfg, name, seed + k, device)
            for name in cfg.graphs
            if name in PLANTED_D
            for k in range(cfg.planted_seeds)
        )
        kd = kdtree_experiment(cfg, seed)
    return Records(cfg, seeds, cases, planted, kd)


def report(rec: Records) -> Report:
    """Claims, metrics, tables and notes, from the records only."""
    from lpca_metric_embed.reproduce.claims import claims
    from lpca_metric_embed.reproduce.tables import metrics, notes, tables

    return Report(metrics=metrics(rec), claims=claims(rec), tables=tables(rec), notes=notes(rec))


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """The reproduction: the records, then the report from them.

    Args:
        config: ``Config.quick()``, ``Config.full()`` or ``Config.smoke()``.
        seed: base seed; seed s = seed + k draws the random graphs and the initialisations.
        device: torch device of the training ("cpu" or "cuda").
    """
    return report(run_records(config, seed=seed, device=device))
