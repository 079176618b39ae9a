"""LLEGO and its baselines behind one registry, on arrays (scikit-learn style inputs).

Every method is ``call(X, y, *, feature_names, task, max_depth, seed, ...) -> dict`` with the chosen tree's
``train``/``val``/``test`` fitness (official split of ``seed``), ``n_evals`` and the tree's text. LLEGO
takes ``llm`` (any :class:`llego.llm.LLM` speaking the compact language; ``None`` trains a tiny LM with
``lm_config``) and GP is given the same evaluation budget as LLEGO would use (``budget``, default
N + G · (N_xo + N_mut)).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import check_int

from llego.algorithm import LLEGOConfig, evolve, initial_population
from llego.baselines import cart, gatree
from llego.data import Split, from_arrays, split
from llego.prompts import CompactLanguage
from llego.tiny_lm import TinyLMConfig, train_tiny_lm
from llego.tree import to_text

__all__ = ["METHODS", "MethodInfo", "run_method"]


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: does it use an LLM, does it search (vs fit greedily), and the entry point."""

    uses_llm: bool
    evolutionary: bool
    call: Callable[..., dict[str, Any]]


def _split(X: Any, y: Any, feature_names: Sequence[str], task: str, seed: int) -> Split:
    return split(
        from_arrays(np.asarray(X, float), np.asarray(y, float), feature_names=list(feature_names), task=task),
        seed,
    )


def _out(ind: Any, n_evals: int) -> dict[str, Any]:
    return {
        "train": ind.train,
        "val": ind.val,
        "test": ind.test,
        "n_evals": n_evals,
        "tree": to_text(ind.tree),
    }


def llego_method(
    X: Any,
    y: Any,
    *,
    feature_names: Sequence[str],
    task: str = "classification",
    max_depth: int = 3,
    seed: int = 0,
    pop_size: int = 16,
    generations: int = 8,
    llm: Any = None,
    lm_config: TinyLMConfig | None = None,
) -> dict[str, Any]:
    """LLEGO with ``llm`` (None: a tiny LM trained on this split's D_train with ``lm_config``)."""
    sp = _split(X, y, feature_names, task, seed)
    cfg = LLEGOConfig(
        pop_size=pop_size, generations=generations, max_depth=check_int(max_depth, "max_depth", low=1)
    )
    lang = CompactLanguage(sp, max_depth=max_depth)
    if llm is None:
        llm, _ = train_tiny_lm(sp, lang, lm_config, seed=seed)
    res = evolve(sp, llm, lang, cfg, seed=seed)
    return _out(res.best, res.n_evals)


def gp_method(
    X: Any,
    y: Any,
    *,
    feature_names: Sequence[str],
    task: str = "classification",
    max_depth: int = 3,
    seed: int = 0,
    pop_size: int = 16,
    budget: int | None = None,
    generations: int = 8,
) -> dict[str, Any]:
    """GATree-style GP from LLEGO's initial population, ``budget`` evaluations."""
    sp = _split(X, y, feature_names, task, seed)
    check_int(max_depth, "max_depth", low=1)
    pop_size = check_int(pop_size, "pop_size", low=2)
    n = (
        budget
        if budget is not None
        else pop_size + check_int(generations, "generations", low=0) * 2 * pop_size
    )
    init = initial_population(sp, pop_size, max_depth, seed, lambda t: t)
    res = gatree(sp, pop_size=pop_size, max_evals=n, max_depth=max_depth, seed=seed, init=init)
    return _out(res.best, res.n_evals)


def cart_method(
    X: Any,
    y: Any,
    *,
    feature_names: Sequence[str],
    task: str = "classification",
    max_depth: int = 3,
    seed: int = 0,
    trials: int = 20,
    criterion: str = "gini",
) -> dict[str, Any]:
    """CART tuned on the validation split (20 trials)."""
    sp = _split(X, y, feature_names, task, seed)
    res = cart(sp, max_depth=max_depth, trials=trials, seed=seed, criterion=criterion)
    return _out(res.best, res.trials)


METHODS: dict[str, MethodInfo] = {
    "llego": MethodInfo(True, True, llego_method),
    "gatree": MethodInfo(False, True, gp_method),
    "cart": MethodInfo(False, False, cart_method),
}


def run_method(name: str, X: Any, y: Any, **kw: Any) -> dict[str, Any]:
    """``METHODS[name].call(X, y, **kw)``; ValueError listing the registry for an unknown name."""
    if name not in METHODS:
        raise ValueError(f"name must be one of {', '.join(METHODS)}; got unknown method {name!r}")
    return METHODS[name].call(X, y, **kw)
