"""The LLEGO loop (official ``src/llego/llego_algorithm.py``) and its evaluation budget.

1. P(0): a random forest of N trees (``max_depth=d``, ``max_samples=0.5``, ``random_state=seed``) on D_train,
   each estimator as a tree (made canonical in the LLM's text form).
2. Fitness of every tree on train / val / test; the train predictions are its functional signature.
3. Crossover: N_xo offspring from N_xo / 2 calls (:mod:`llego.operators`); 4. mutation: N_mut from N_mut / 2.
5. Offspring fitness; 6. selection over P ∪ O_xo ∪ O_mut; 7. hall of fame by validation fitness.
8. After G generations: the best hall-of-fame tree by validation fitness (its test fitness is reported).

Every tree whose fitness is computed counts one evaluation (the budget GP is matched on). With
``probes=True`` each generation also measures, on the side and outside the budget, the no-fitness
crossover ablation on the same parent sets and the diversity of mutation offspring under several
selection rules applied to the same candidates (the spec's mechanism claims).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from paperkit import check_array, check_bool, check_int, check_number, check_seed

from llego.data import Split, check_split
from llego.fitness import Fitness, target_fitness
from llego.llm import LLM
from llego.operators import (
    Individual,
    OperatorStats,
    fitness_weighted_parents,
    hall_of_fame,
    random_parents,
    select,
    select_offspring,
)
from llego.prompts import Language
from llego.tree import Node, check_trees, from_sklearn, predict_many

__all__ = ["Evaluator", "LLEGOConfig", "Result", "evolve", "initial_population", "mean_hamming"]


@dataclass(frozen=True)
class LLEGOConfig:
    """LLEGO's knobs; defaults are the official ones (``configs/llego.yaml``, ``crossover``, ``mutation``)."""

    pop_size: int = 25  # N
    generations: int = 25  # G
    n_crossover: int | None = None  # N_xo (None: N)
    n_mutation: int | None = None  # N_mut (None: N)
    alpha: float = 0.1  # crossover target
    tau: float = 10.0  # mutation sampling_temperature
    n_parents: int = 4  # ν
    per_call: int = 2  # offspring kept per call (num_offspring)
    n_candidates: int = 4  # mutation candidates (num_candidate_offspring); +2 are sampled
    max_depth: int = 3
    patience: int = 3  # official PATIENCE
    max_rounds: int = 10  # ours: a cap on retry rounds (the official loop has none)
    use_crossover: bool = True
    use_mutation: bool = True

    def __post_init__(self) -> None:
        check_int(self.n_parents, "n_parents", low=1)
        check_int(self.pop_size, "pop_size", low=self.n_parents)
        check_int(self.generations, "generations", low=0)
        check_number(self.alpha, "alpha", low=0.0)
        check_number(self.tau, "tau", low=0.0, low_open=True)
        check_int(self.per_call, "per_call", low=1)
        check_int(self.n_candidates, "n_candidates", low=self.per_call)
        check_int(self.max_depth, "max_depth", low=1, high=8)
        check_int(self.patience, "patience", low=1)
        check_int(self.max_rounds, "max_rounds", low=1)
        for name in ("n_crossover", "n_mutation"):
            v = getattr(self, name)
            if v is not None:
                check_int(v, name, low=self.per_call)
        if not (
            check_bool(self.use_crossover, "use_crossover") or check_bool(self.use_mutation, "use_mutation")
        ):
            raise ValueError("use_crossover and use_mutation cannot both be False")

    @property
    def xo(self) -> int:
        return self.pop_size if self.n_crossover is None else self.n_crossover

    @property
    def mut(self) -> int:
        return self.pop_size if self.n_mutation is None else self.n_mutation


class Evaluator:
    """Fitness on train/val/test of trees on one split, counting evaluations (``peek`` does not count)."""

    def __init__(self, split: Split) -> None:
        self.split = check_split(split)
        self.fitness = Fitness(split.metric)
        self.X = np.concatenate([split.X_train, split.X_val, split.X_test])
        self.cuts = np.cumsum([split.X_train.shape[0], split.X_val.shape[0]])
        self.n_evals = 0

    def peek(self, trees: Sequence[Node]) -> list[Individual]:
        trees = check_trees(trees)
        if not trees:
            return []
        preds = predict_many(trees, self.X, self.split.columns)
        a, b = self.cuts
        s = self.split
        tr = self.fitness(s.y_train, preds[:, :a])
        va = self.fitness(s.y_val, preds[:, a:b])
        te = self.fitness(s.y_test, preds[:, b:])
        return [
            Individual(t, float(tr[i]), float(va[i]), float(te[i]), preds[i, :a].copy())
            for i, t in enumerate(trees)
        ]

    def __call__(self, trees: Sequence[Node]) -> list[Individual]:
        trees = check_trees(trees)
        self.n_evals += len(trees)
        return self.peek(trees)


def initial_population(
    split: Split, n: int, max_depth: int, seed: int, canonical: Callable[[Node], Node]
) -> list[Node]:
    """P(0) from a random forest (module docstring), each tree passed through ``canonical``."""
    check_split(split)
    n, max_depth, seed = check_int(n, "n", low=1), check_int(max_depth, "max_depth", low=1), check_seed(seed)
    if not callable(canonical):
        raise TypeError(
            f"canonical must be callable (e.g. language.canonical), got {type(canonical).__name__}"
        )
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    cls = RandomForestClassifier if split.task == "classification" else RandomForestRegressor
    rf = cls(n_estimators=n, max_depth=max_depth, max_samples=0.5, random_state=seed).fit(
        split.X_train, split.y_train
    )
    names = split.dataset.feature_names
    trees = []
    for est in rf.estimators_:
        t = from_sklearn(est, names)
        if split.task == "classification":  # the forest's estimators index rf.classes_, which are 0/1 here
            t = _relabel(t, rf.classes_)
        trees.append(canonical(t))
    return trees


def _relabel(t: Node, classes: np.ndarray) -> Node:
    from llego.tree import Leaf
    from llego.tree import Split as S

    if isinstance(t, Leaf):
        return Leaf(float(classes[int(t.value)]))
    return S(t.feature, t.threshold, _relabel(t.left, classes), _relabel(t.right, classes), t.strict)


def mean_hamming(signatures: Sequence[np.ndarray]) -> float:
    """Mean pairwise fraction of rows on which two functional signatures differ (NaN below two)."""
    if isinstance(signatures, np.ndarray) and signatures.ndim != 2:
        raise ValueError(
            f"signatures must be a sequence of 1-D arrays, got an array of shape {signatures.shape}"
        )
    sigs = [
        np.asarray(check_array(v, f"signatures[{i}]", ndim=1, finite=False)) for i, v in enumerate(signatures)
    ]
    if len({v.shape for v in sigs}) > 1:
        raise ValueError(f"signatures must all have one length, got {sorted({v.size for v in sigs})}")
    if len(sigs) < 2:
        return float("nan")
    S = np.stack(sigs)
    d = (S[:, None, :] != S[None, :, :]).mean(-1)
    iu = np.triu_indices(len(S), 1)
    return float(d[iu].mean())


@dataclass
class Result:
    """What :func:`evolve` returns: the chosen tree, the trace per generation and the operator counts."""

    best: Individual
    population: list[Individual]
    history: dict[str, list[float]]
    crossover: OperatorStats
    mutation: OperatorStats
    n_evals: int
    probes: dict[str, list[float]] = field(default_factory=dict)


def _collect(
    llm: LLM,
    language: Language,
    prompts: list[str],
    n_samples: int,
    need: int,
    keep: Callable[[list[tuple[Node, float | None]]], list[Node]],
    stats: OperatorStats,
    rng: np.random.Generator,
    cfg: LLEGOConfig,
) -> tuple[list[Node], list[list[tuple[Node, float | None]]]]:
    """Call the LLM in rounds until ``need`` trees are kept (patience / max_rounds stop it)."""
    kept: list[Node] = []
    groups: list[list[tuple[Node, float | None]]] = []
    empty = 0
    for _ in range(cfg.max_rounds):
        if len(kept) >= need or not prompts:
            break
        replies = llm.sample(prompts, n_samples, seed=int(rng.integers(2**31)))
        stats.rounds += 1
        got = 0
        for group in replies:
            valid = []
            for s in group:
                tree, status = language.parse(s.text)
                stats.count(status)
                if tree is not None:
                    valid.append((tree, s.logprob))
            groups.append(valid)
            chosen = keep(valid) if valid else []
            kept.extend(chosen)
            got += len(chosen)
        if got == 0:
            empty += 1
            stats.empty_rounds += 1
            if empty >= cfg.patience:
                break
        else:
            empty = 0
    return kept, groups


def crossover_prompts(
    pop: Sequence[Individual],
    parents: np.ndarray,
    language: Language,
    cfg: LLEGOConfig,
    fitness: Fitness,
    rng: np.random.Generator,
    show_fitness: bool = True,
) -> list[str]:
    """One prompt per parent set: worst -> best with fitness and f* (or, ablation, shuffled without)."""
    prompts = []
    for row in parents:
        members = [pop[int(i)] for i in row]
        if show_fitness:
            members = [members[int(j)] for j in fitness.order(np.array([m.train for m in members]))[::-1]]
            f = [m.train for m in members]
            target = target_fitness(np.array(f), cfg.alpha, fitness.lower_is_better)
            prompts.append(language.crossover_prompt([m.tree for m in members], f, target))
        else:
            members = [members[int(j)] for j in rng.permutation(len(members))]
            prompts.append(language.crossover_prompt([m.tree for m in members], None, None))
    return prompts


def _mutation_keep(
    cfg: LLEGOConfig, rng: np.random.Generator, stats: OperatorStats, tau: float, rule: str
) -> Callable[[list[tuple[Node, float | None]]], list[Node]]:
    def keep(valid: list[tuple[Node, float | None]]) -> list[Node]:
        idx, fell_back = select_offspring([lp for _, lp in valid], cfg.per_call, tau, rng, rule)
        stats.missing_logprobs += int(fell_back)
        return [valid[int(i)][0] for i in idx]

    return keep


def _probe_diversity(
    groups: list[list[tuple[Node, float | None]]], evaluate: Evaluator, cfg: LLEGOConfig, seed: int
) -> dict[str, float]:
    """Mean pairwise Hamming distance of the kept mutation offspring under each rule, same candidates."""
    rules = {
        "div_tau": (cfg.tau, "inverse"),
        "div_tau0.1": (0.1, "inverse"),
        "div_likely": (0.1, "likely"),
        "div_uniform": (1e12, "inverse"),
    }
    out = {}
    for name, (tau, rule) in rules.items():
        rng = np.random.default_rng(seed)  # the same draws for every rule: paired
        kept: list[Node] = []
        for valid in groups:
            if valid and all(lp is not None for _, lp in valid):
                idx, _ = select_offspring([lp for _, lp in valid], cfg.per_call, tau, rng, rule)
                kept.extend(valid[int(i)][0] for i in idx)
        out[name] = mean_hamming([i.signature for i in evaluate.peek(kept)])
    return out


def _generation(
    pop: list[Individual],
    llm: LLM,
    language: Language,
    cfg: LLEGOConfig,
    evaluate: Evaluator,
    rng: np.random.Generator,
    res: Result,
    probes: bool,
) -> list[Individual]:
    fit = evaluate.fitness
    offspring: list[Individual] = []
    if cfg.use_crossover:
        n_calls = cfg.xo // cfg.per_call
        parents = fitness_weighted_parents(
            np.array([i.train for i in pop]), cfg.n_parents, n_calls, rng, lower_is_better=fit.lower_is_better
        )
        prompts = crossover_prompts(pop, parents, language, cfg, fit, rng)
        trees, _ = _collect(
            llm,
            language,
            prompts,
            cfg.per_call + 2,
            cfg.xo,
            lambda v: [t for t, _ in v],
            res.crossover,
            rng,
            cfg,
        )
        xo = evaluate(trees)
        offspring += xo
        res.probes.setdefault("xo_fitness", []).append(_mean([i.train for i in xo]))
        if probes:
            blind = crossover_prompts(pop, parents, language, cfg, fit, rng, show_fitness=False)
            b_trees, _ = _collect(
                llm,
                language,
                blind,
                cfg.per_call + 2,
                cfg.xo,
                lambda v: [t for t, _ in v],
                OperatorStats(),
                rng,
                cfg,
            )
            res.probes.setdefault("xo_blind_fitness", []).append(
                _mean([i.train for i in evaluate.peek(b_trees)])
            )
            res.probes.setdefault("xo_parent_best", []).append(
                _mean([_best(fit, [pop[int(j)].train for j in row]) for row in parents])
            )
    if cfg.use_mutation:
        n_calls = cfg.mut // cfg.per_call
        parents = random_parents(len(pop), cfg.n_parents, n_calls, rng)
        prompts = [
            language.mutation_prompt([pop[int(j)].tree for j in rng.permutation(row)]) for row in parents
        ]
        keep = _mutation_keep(cfg, rng, res.mutation, cfg.tau, "inverse")
        trees, groups = _collect(
            llm, language, prompts, cfg.n_candidates + 2, cfg.mut, keep, res.mutation, rng, cfg
        )
        offspring += evaluate(trees)
        if probes:
            for k, v in _probe_diversity(groups, evaluate, cfg, int(rng.integers(2**31))).items():
                res.probes.setdefault(k, []).append(v)
    return offspring


def _mean(v: Sequence[float]) -> float:
    return float(np.mean(v)) if len(v) else float("nan")


def _best(fit: Fitness, v: Sequence[float]) -> float:
    return float(min(v) if fit.lower_is_better else max(v))


def _record(res: Result, pop: Sequence[Individual], seen: Sequence[Individual], evaluate: Evaluator) -> None:
    fit = evaluate.fitness
    h = res.history
    h.setdefault("evals", []).append(float(evaluate.n_evals))
    h.setdefault("best_train", []).append(_best(fit, [i.train for i in seen]))
    hof = hall_of_fame(seen, fit)[0]
    h.setdefault("hof_val", []).append(hof.val)
    h.setdefault("hof_test", []).append(hof.test)


def evolve(
    split: Split,
    llm: LLM,
    language: Language,
    config: LLEGOConfig | None = None,
    *,
    seed: int = 0,
    probes: bool = False,
    init: Sequence[Node] | None = None,
) -> Result:
    """Run LLEGO on ``split`` with ``llm`` speaking ``language``; ``init`` overrides P(0) (canonicalised)."""
    check_split(split)
    if not isinstance(llm, LLM):
        raise TypeError(
            f"llm must have a sample(prompts, n, *, seed) method (llego.LLM), got {type(llm).__name__}"
        )
    if not isinstance(language, Language):
        raise TypeError(
            f"language must be a CompactLanguage or NaturalLanguage, got {type(language).__name__}"
        )
    if init is not None:
        init = check_trees(init, "init")
    check_bool(probes, "probes")
    cfg = config if config is not None else LLEGOConfig(max_depth=language.max_depth)
    if not isinstance(cfg, LLEGOConfig):
        raise TypeError(f"config must be an LLEGOConfig, got {type(cfg).__name__}")
    seed = check_seed(seed)
    if cfg.max_depth != language.max_depth:
        raise ValueError(f"config.max_depth={cfg.max_depth} differs from the language's {language.max_depth}")
    rng = np.random.default_rng(seed)
    evaluate = Evaluator(split)
    trees = (
        list(init)
        if init is not None
        else initial_population(split, cfg.pop_size, cfg.max_depth, seed, language.canonical)
    )
    pop = evaluate([language.canonical(t) for t in trees])
    res = Result(pop[0], pop, {}, OperatorStats(), OperatorStats(), 0)
    seen = list(pop)
    _record(res, pop, seen, evaluate)
    for _ in range(cfg.generations):
        offspring = _generation(pop, llm, language, cfg, evaluate, rng, res, probes)
        seen += offspring
        pop = select(pop + offspring, cfg.pop_size, evaluate.fitness)
        _record(res, pop, seen, evaluate)
    res.best, res.population, res.n_evals = hall_of_fame(seen, evaluate.fitness)[0], pop, evaluate.n_evals
    return res


def summary(res: Result) -> dict[str, Any]:
    """JSON-able numbers of a result (for reports)."""
    return {
        "best_train": res.best.train,
        "best_val": res.best.val,
        "best_test": res.best.test,
        "n_evals": res.n_evals,
        "xo_valid_rate": res.crossover.valid_rate,
        "mut_valid_rate": res.mutation.valid_rate,
        "history": res.history,
        "probes": res.probes,
    }
