"""The two text forms a tree travels in, and the operators' prompts in each.

:class:`NaturalLanguage` is the paper's form for endpoint models (official ``configs/prompts/default.yaml``
and the few-shot templates of ``crossover_operator.py`` / ``mutation_operator.py``): a prefix with the task
description, sample and feature counts, the target and its label distribution, the features with their
training ranges and the instruction; then one line per parent and an open last line. Crossover lines are
``fitness: <f, 4 d.p.>, Expression: ## <tree> ##`` with the parents ordered worst to best and the last
line ``fitness: <f*>, Expression: ``; mutation lines are ``Expression: ## <tree> ##`` in random order,
closed by ``Expression: ## ``. (Our wording of the prefix follows the official fields and instruction in
our own words; see README, Deviations.)

:class:`CompactLanguage` is the same content in a few tokens for the in-process tiny LM: one token per
feature name, one per threshold bin (32 per-feature quantiles of D_train), one per leaf (``L0``/``L1``, or
the decile ``L0``..``L9`` of y_train for regression), fitness as 4 digit tokens, ``|`` between lines,
``X``/``M`` naming the operator. A depth-3 tree is at most 7·2 + 8 = 22 tokens. Thresholds are snapped to
the bins, so a tree that lives in this language is first made :meth:`canonical`. The no-fitness
ablation of crossover writes ``? ? ? ?`` for every fitness (the tiny LM is trained on such lines too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
from paperkit import check_int, check_number

from llego.data import Split, check_split
from llego.tree import Leaf, Node, TreeError, check_trees, depth, parse_reply, to_text
from llego.tree import Split as TSplit

__all__ = ["PLACEHOLDER", "CompactLanguage", "Language", "NaturalLanguage"]

PLACEHOLDER = "? ? ? ?"
GENERIC_TASK = (
    "The task is to generate interpretable and high-performing decision trees given a set of attributes"
)


@runtime_checkable
class Language(Protocol):
    """How trees and prompts are written for one kind of LLM."""

    @property
    def max_depth(self) -> int: ...

    def render(self, tree: Node) -> str: ...

    def parse(self, text: str) -> tuple[Node | None, str]: ...

    def canonical(self, tree: Node) -> Node: ...

    def crossover_prompt(
        self, parents: Sequence[Node], fitness: Sequence[float] | None, target: float | None
    ) -> str: ...

    def mutation_prompt(self, parents: Sequence[Node]) -> str: ...


def _check_parents(parents: Sequence[Node], fitness: Sequence[float] | None = None) -> list[Node]:
    trees = check_trees(parents, "parents")
    if fitness is not None:
        if len(fitness) != len(trees):
            raise ValueError(f"fitness has {len(fitness)} values for {len(trees)} parents")
        for i, f in enumerate(fitness):
            check_number(f, f"fitness[{i}]")
    return trees


def _check_language(split: object, max_depth: object) -> None:
    check_split(split)
    check_int(max_depth, "max_depth", low=1)


def _metadata(split: Split, semantics: bool) -> dict[str, str]:
    ds = split.dataset
    return {
        "task": ds.description if semantics else GENERIC_TASK,
        "n_samples": str(split.X_train.shape[0]),
        "n_attributes": str(split.X_train.shape[1]),
        "target_name": ds.target_name if semantics else "y",
        "target_type": "binary" if split.task == "classification" else "continuous",
        "labels": split.label_information(),
        "features": split.feature_semantics(),
    }


@dataclass(frozen=True)
class NaturalLanguage:
    """The paper's prompts and dict-form trees, for an OpenAI-compatible chat or completion model."""

    split: Split
    max_depth: int = 3
    precision: int = 4  # official FLOAT_PRECISION and threshold precision

    def __post_init__(self) -> None:
        _check_language(self.split, self.max_depth)
        check_int(self.precision, "precision", low=0, high=17)

    def _prefix(self, instruction: str, expert: bool) -> str:
        m = _metadata(self.split, True)
        lead = "You are an expert in creating decision trees. " if expert else ""
        return (
            f"{lead}{m['task']}. The dataset has {m['n_samples']} samples and {m['n_attributes']} features, "
            f"{m['n_attributes']} numerical and 0 categorical. "
            f"The target variable is {m['target_name']}, it is "
            f"{m['target_type']}, {m['labels']}. The features and their ranges are: {m['features']}. "
            f"{instruction} Write the tree in the JSON format of the examples, using any of the features and "
            "only the operators [<, >, <=, >=]. Return only the tree, between ## and ##."
        )

    def render(self, tree: Node) -> str:
        return to_text(tree, self.precision)

    def parse(self, text: str) -> tuple[Node | None, str]:
        return parse_reply(text, feature_names=self.split.dataset.feature_names, max_depth=self.max_depth)

    def canonical(self, tree: Node) -> Node:
        node, status = self.parse(self.render(tree))
        if node is None:
            raise TreeError(f"tree does not survive its own text form: {status}")
        return node

    def crossover_prompt(
        self, parents: Sequence[Node], fitness: Sequence[float] | None, target: float | None
    ) -> str:
        parents = _check_parents(parents, fitness)
        head = self._prefix("Generate a different, interpretable decision tree with improved fitness.", False)
        if fitness is None or target is None:
            lines = [f"\nfitness: unknown, Expression: ## {self.render(t)} ##" for t in parents]
            return head + "".join(lines) + "\nfitness: unknown, Expression: "
        lines = [
            f"\nfitness: {f:.{self.precision}f}, Expression: ## {self.render(t)} ##"
            for t, f in zip(parents, fitness, strict=True)
        ]
        return head + "".join(lines) + f"\nfitness: {target:.{self.precision}f}, Expression: "

    def mutation_prompt(self, parents: Sequence[Node]) -> str:
        parents = _check_parents(parents)
        head = self._prefix("Generate a diverse decision tree that is more interpretable.", True)
        return head + "".join(f"\nExpression: ## {self.render(t)} ##" for t in parents) + "\nExpression: ## "


def _quantile_bins(X: np.ndarray, n_bins: int) -> np.ndarray:
    q = (np.arange(n_bins) + 0.5) / n_bins
    return np.quantile(X, q, axis=0).T  # (p, n_bins)


def _leaf_levels(split: Split) -> np.ndarray:
    if split.task == "classification":
        return np.array([0.0, 1.0])
    y = np.sort(split.y_train)
    return np.array([chunk.mean() for chunk in np.array_split(y, 10)])


@dataclass(frozen=True)
class CompactLanguage:
    """One token per feature, per threshold bin, per leaf (module docstring); for the tiny LM."""

    split: Split
    max_depth: int = 3
    n_bins: int = 32
    bins: np.ndarray = field(init=False, repr=False, compare=False)
    levels: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_language(self.split, self.max_depth)
        check_int(self.n_bins, "n_bins", low=2, high=100)
        object.__setattr__(self, "bins", _quantile_bins(self.split.X_train, self.n_bins))
        object.__setattr__(self, "levels", _leaf_levels(self.split))

    @property
    def feature_names(self) -> tuple[str, ...]:
        return self.split.dataset.feature_names

    def vocabulary(self) -> list[str]:
        """Every token this language writes."""
        return [
            *self.feature_names,
            *(f"t{k}" for k in range(self.n_bins)),
            *(f"L{k}" for k in range(len(self.levels))),
            *"0123456789",
            ":",
            "|",
            "?",
            "X",
            "M",
        ]

    def fitness_tokens(self, f: float) -> str:
        scale = 1000.0 if self.split.task == "regression" else 10000.0
        v = int(np.clip(round(f * scale), 0, 9999))
        return " ".join(f"{v:04d}")

    def _bin(self, feature: str, threshold: float) -> int:
        row = self.bins[self.split.columns[feature]]
        return int(np.argmin(np.abs(row - threshold)))

    def _level(self, value: float) -> int:
        return int(np.argmin(np.abs(self.levels - value)))

    def render(self, tree: Node) -> str:
        if isinstance(tree, Leaf):
            return f"L{self._level(tree.value)}"
        if tree.feature not in self.split.columns:
            raise TreeError(f"unknown feature {tree.feature!r}")
        head = f"{tree.feature} t{self._bin(tree.feature, tree.threshold)}"
        return f"{head} {self.render(tree.left)} {self.render(tree.right)}"

    def _read(self, tokens: list[str], i: int) -> tuple[Node, int]:
        if i >= len(tokens):
            raise TreeError("the tree text ends before the tree is complete")
        tok = tokens[i]
        if tok.startswith("L") and tok[1:].isdigit() and int(tok[1:]) < len(self.levels):
            return Leaf(float(self.levels[int(tok[1:])])), i + 1
        if tok not in self.split.columns:
            raise TreeError(f"unknown feature {tok!r}")
        b = tokens[i + 1] if i + 1 < len(tokens) else ""
        if not (b.startswith("t") and b[1:].isdigit() and int(b[1:]) < self.n_bins):
            raise TreeError(f"feature {tok!r} is not followed by a threshold bin t0..t{self.n_bins - 1}")
        left, j = self._read(tokens, i + 2)
        right, k = self._read(tokens, j)
        th = float(self.bins[self.split.columns[tok], int(b[1:])])
        return TSplit(tok, th, left, right), k

    def parse(self, text: str) -> tuple[Node | None, str]:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        tokens = text.split()
        try:
            node, end = self._read(tokens, 0)
        except TreeError as err:
            return None, f"invalid: {err}"
        if depth(node) > self.max_depth:
            return None, f"invalid: tree depth {depth(node)} exceeds max_depth={self.max_depth}"
        return node, "ok" if end == len(tokens) else "repaired"

    def canonical(self, tree: Node) -> Node:
        node, status = self.parse(self.render(tree))
        if node is None:
            raise TreeError(f"tree does not survive its own text form: {status}")
        return node

    def crossover_prompt(
        self, parents: Sequence[Node], fitness: Sequence[float] | None, target: float | None
    ) -> str:
        parents = _check_parents(parents, fitness)
        if fitness is None or target is None:
            lines = [f"{PLACEHOLDER} : {self.render(t)}" for t in parents]
            return "X | " + " | ".join(lines) + f" | {PLACEHOLDER} :"
        lines = [
            f"{self.fitness_tokens(f)} : {self.render(t)}" for t, f in zip(parents, fitness, strict=True)
        ]
        return "X | " + " | ".join(lines) + f" | {self.fitness_tokens(target)} :"

    def mutation_prompt(self, parents: Sequence[Node]) -> str:
        parents = _check_parents(parents)
        return "M | " + " | ".join(f": {self.render(t)}" for t in parents) + " | :"
