"""scikit-learn's bundled tabular data, split as the official code splits it.

``load(name)``: ``breast_cancer`` (569 x 30, malignant vs benign), ``iris_bin`` (versicolor vs rest),
``wine_bin`` (class 0 vs rest), ``diabetes`` (442 x 10 regression). Feature names have spaces replaced by
``_`` so that each is one word (one token of the tiny LM). Task descriptions are ours.

``split(dataset, seed)`` (official ``utils/data_utils.py``): median imputation; test = 40 % with
``random_state=0`` (the same test rows for every seed); validation = 40 % of the rest with
``random_state=seed``; so train 36 %, validation 24 %, test 40 % (the config's ``[0.2, 0.4, 0.4]`` reads
otherwise, the code does this). Regression targets are standardised with the train mean and std.
Classification must be binary (the paper's code asserts it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from paperkit import check_array, check_choice, check_seed, check_strings

__all__ = ["DATASETS", "Dataset", "Split", "check_split", "from_arrays", "load", "split"]

DATASETS = ("breast_cancer", "iris_bin", "wine_bin", "diabetes")

DESCRIPTIONS = {
    "breast_cancer": "The task is to classify breast masses as malignant (0) or benign (1) from features "
    "computed on a digitised image of a fine needle aspirate of the mass",
    "iris_bin": "The task is to tell iris versicolor flowers (1) from the other two species (0) by the "
    "sizes of their sepals and petals",
    "wine_bin": "The task is to tell wines of the first cultivar (1) from the others (0) by their "
    "chemical analysis",
    "diabetes": "The task is to predict a quantitative measure of diabetes progression one year after "
    "baseline from age, sex, body mass index, blood pressure and six blood serum measurements",
}


@dataclass(frozen=True)
class Dataset:
    """``X: (n, p)`` float, ``y: (n,)`` (class indices 0/1 or real values), names, task, description."""

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    task: str  # "classification" | "regression"
    description: str
    target_name: str = "target"

    def __post_init__(self) -> None:
        check_choice(self.task, "task", ("classification", "regression"))
        X = check_array(self.X, "X", ndim=2, finite=False)  # NaN allowed: split imputes it
        y = check_array(self.y, "y", ndim=1)
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X must have at least one row and one column, got shape {X.shape}")
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        if len(check_strings(self.feature_names, "feature_names")) != X.shape[1]:
            raise ValueError(f"feature_names must be {X.shape[1]} names, got {len(self.feature_names)}")
        for name in ("name", "description", "target_name"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a str, got {type(getattr(self, name)).__name__}")


@dataclass(frozen=True)
class Split:
    """Train / validation / test arrays of one seed (official split) and the prompt metadata."""

    dataset: Dataset
    seed: int
    X_train: np.ndarray
    y_train: np.ndarray
    X_val: np.ndarray
    y_val: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray

    @property
    def columns(self) -> dict[str, int]:
        return {f: i for i, f in enumerate(self.dataset.feature_names)}

    @property
    def task(self) -> str:
        return self.dataset.task

    @property
    def metric(self) -> str:
        return "balanced_accuracy" if self.task == "classification" else "mse"

    def label_information(self) -> str:
        """The prompt's label line (official ``get_label_information``)."""
        if self.task == "classification":
            vals, counts = np.unique(self.y_train, return_counts=True)
            parts = [
                f"{int(v)}: {100 * c / self.y_train.size:.2f}%" for v, c in zip(vals, counts, strict=True)
            ]
            return "the label distribution is [" + ", ".join(parts) + "]"
        return f"the mean of the label is 0.00 and the std is {np.std(self.y_train):.2f}"

    def feature_semantics(self) -> str:
        """``[name (float) [min, max], ...]`` over the training rows (official ``get_feature_semantics``)."""
        lo, hi = self.X_train.min(axis=0), self.X_train.max(axis=0)
        items = [
            f"{f} (float) [{a:.2f}, {b:.2f}]"
            for f, a, b in zip(self.dataset.feature_names, lo, hi, strict=True)
        ]
        return "[" + ", ".join(items) + "]"


def check_split(split: object, name: str = "split") -> Split:
    """``split`` must be a :class:`Split` (from :func:`split`)."""
    if not isinstance(split, Split):
        raise TypeError(f"{name} must be a llego.data.Split (llego.data.split), got {type(split).__name__}")
    return split


def _clean(names: list[str]) -> tuple[str, ...]:
    return tuple(
        n.strip().replace(" ", "_").replace("(", "").replace(")", "").replace("/", "_") for n in names
    )


def load(name: str) -> Dataset:
    """One of :data:`DATASETS` from scikit-learn's bundled files (no download)."""
    from sklearn import datasets as skd

    check_choice(name, "name", DATASETS)
    if name == "breast_cancer":
        d = skd.load_breast_cancer()
        y, task = d.target.astype(float), "classification"
    elif name == "iris_bin":
        d = skd.load_iris()
        y, task = (d.target == 1).astype(float), "classification"
    elif name == "wine_bin":
        d = skd.load_wine()
        y, task = (d.target == 0).astype(float), "classification"
    else:
        d = skd.load_diabetes()
        y, task = d.target.astype(float), "regression"
    return Dataset(
        name, np.asarray(d.data, float), y, _clean(list(d.feature_names)), task, DESCRIPTIONS[name]
    )


def from_arrays(
    X: np.ndarray,
    y: np.ndarray,
    *,
    feature_names: list[str] | tuple[str, ...],
    task: str,
    description: str = "The task is to predict the target from the features",
    name: str = "custom",
) -> Dataset:
    """Your own data as a :class:`Dataset` (binary 0/1 labels for classification; NaN imputed by split)."""
    check_choice(task, "task", ("classification", "regression"))
    X = np.asarray(check_array(X, "X", ndim=2, finite=False), float)
    y = np.asarray(check_array(y, "y", ndim=1), float)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
    names = tuple(check_strings(feature_names, "feature_names"))
    if X.shape[0] == 0:
        raise ValueError("X has no rows")
    if len(names) != X.shape[1] or len(set(names)) != len(names):
        raise ValueError(f"feature_names must be {X.shape[1]} distinct names, got {len(names)}")
    if any(not f.isidentifier() for f in names):
        raise ValueError("feature_names must be identifiers (letters, digits, _), one word each")
    if task == "classification" and not set(np.unique(y)) <= {0.0, 1.0}:
        raise ValueError(
            f"y must hold binary labels 0/1 for classification (the paper supports binary tasks only), "
            f"got {len(np.unique(y))} distinct values"
        )
    return Dataset(name, X, y, names, task, description)


def split(dataset: Dataset, seed: int = 0) -> Split:
    """The official 36/24/40 train/val/test split for ``seed`` (test rows fixed across seeds)."""
    from sklearn.model_selection import train_test_split

    seed = check_seed(seed)
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset (llego.data.load), got {type(dataset).__name__}")
    X = dataset.X.copy()
    if np.isnan(X).any():  # official: median imputation (fit on all rows before splitting, as there)
        med = np.nanmedian(X, axis=0)
        X = np.where(np.isnan(X), med, X)
    idx = np.arange(X.shape[0])
    rest, test = train_test_split(idx, test_size=0.4, random_state=0)
    train, val = train_test_split(rest, test_size=0.4, random_state=seed)
    y = dataset.y.astype(float)
    if dataset.task == "regression":
        mu, sd = y[train].mean(), y[train].std(ddof=1)  # pandas' std, as the official code
        y = (y - mu) / sd
    return Split(dataset, seed, X[train], y[train], X[val], y[val], X[test], y[test])
