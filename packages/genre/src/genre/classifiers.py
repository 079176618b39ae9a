"""The classifiers around recourse: the deployed MLP h, the calibrated random-forest "gold" model, and
adapters that turn any classifier (callable, torch module, scikit-learn estimator) into P(y = 1 | x).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import RandomForestClassifier
from sklearn.utils.class_weight import compute_sample_weight
from torch import Tensor, nn

from genre.validation import check_int, check_number

__all__ = ["MLPClassifier", "as_proba", "as_torch_proba", "gold_model"]


class MLPClassifier:
    """The deployed classifier h(x) = P̂(y = 1 | x): an MLP with ReLU hidden layers and a sigmoid output.

    Official ``scripts/train_ann.py``: hidden [10, 10, 10] (2-D data [4, 4]), Adam, BCE, lr 1e-3,
    100 epochs, batch 64 (2-D: lr 0.05, 400 epochs).

    Args:
        hidden: hidden widths. lr, epochs, batch_size: Adam training. seed: initialisation and batch order.
        device: where the network lives.

    Attributes (after ``fit``): ``module_`` (the ``nn.Sequential`` ending in a sigmoid, (n, d) → (n, 1)),
    ``n_features_in_``, ``classes_`` (= [0, 1]), ``loss_curve_`` (mean BCE per epoch).
    """

    def __init__(
        self,
        hidden: Sequence[int] = (10, 10, 10),
        lr: float = 1e-3,
        epochs: int = 100,
        batch_size: int = 64,
        seed: int = 0,
        device: str = "cpu",
    ) -> None:
        self.hidden = tuple(check_int(h, "hidden widths") for h in hidden)
        self.lr = check_number(lr, "lr", low=0.0, low_open=True)
        self.epochs = check_int(epochs, "epochs")
        self.batch_size = check_int(batch_size, "batch_size")
        self.seed = check_int(seed, "seed", minimum=0)
        self.device = device

    def fit(self, X: np.ndarray, y: np.ndarray) -> MLPClassifier:
        """Train on X (n, d) float and y (n,) in {0, 1}."""
        X = _features(X).astype(np.float32)
        y = np.asarray(y)
        if y.shape != (len(X),):
            raise ValueError(f"y must have shape ({len(X)},) to match X, got {y.shape}")
        if len(X) == 0:
            raise ValueError("X is empty: nothing to fit")
        if not np.all(np.isin(y, (0, 1))):
            raise ValueError("y must hold labels 0 and 1 only")
        g = torch.Generator().manual_seed(self.seed)
        torch.manual_seed(self.seed)  # nn.Linear's init draws from the global generator
        layers: list[nn.Module] = []
        width = X.shape[1]
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers += [nn.Linear(width, 1), nn.Sigmoid()]
        net = nn.Sequential(*layers).to(self.device)
        opt = torch.optim.Adam(net.parameters(), lr=self.lr)
        Xt = torch.as_tensor(X, device=self.device)
        yt = torch.as_tensor(y, dtype=torch.float32, device=self.device)[:, None]
        curve = []
        for _ in range(self.epochs):
            perm = torch.randperm(len(Xt), generator=g).to(self.device)
            total = 0.0
            for s in range(0, len(Xt), self.batch_size):
                b = perm[s : s + self.batch_size]
                loss = nn.functional.binary_cross_entropy(net(Xt[b]), yt[b])
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(b)
            curve.append(total / len(Xt))
        net.eval()
        for p in net.parameters():
            p.requires_grad_(False)
        self.module_ = net
        self.n_features_in_ = X.shape[1]
        self.classes_ = np.array([0, 1])
        self.loss_curve_ = np.array(curve)
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """(n, 2) float64 [P(y=0|x), P(y=1|x)]."""
        if not hasattr(self, "module_"):
            raise RuntimeError("this MLPClassifier is not fitted yet; call fit(X, y) first")
        X = _features(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but the classifier was fit with {self.n_features_in_}"
            )
        p = as_proba(self.module_)(X)
        return np.stack([1 - p, p], axis=1)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """(n,) int labels, 1 where h(x) > 0.5."""
        return (self.predict_proba(X)[:, 1] > 0.5).astype(np.int64)


def gold_model(
    X: np.ndarray, y: np.ndarray, seed: int = 0, n_estimators: int = 100
) -> CalibratedClassifierCV:
    """The "gold" P(y | x): isotonic-calibrated random forest with balanced sample weights
    (official ``scripts/train_rf.py``), fit on X (n, d) and y (n,)."""
    X = _features(X)
    y = np.asarray(y)
    if y.shape != (len(X),) or not np.all(np.isin(y, (0, 1))) or len(np.unique(y)) < 2:
        raise ValueError(f"y must be ({len(X)},) labels holding both 0 and 1, got shape {y.shape}")
    n_estimators = check_int(n_estimators, "n_estimators")
    rf = RandomForestClassifier(n_estimators=n_estimators, random_state=seed, n_jobs=1)
    model = CalibratedClassifierCV(rf, method="isotonic", cv=3)
    model.fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    return model


def _features(X: Any) -> np.ndarray:
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"X must be a numeric array of shape (n, d), got {type(X).__name__}") from None
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-D (n, d), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("X contains NaN or infinite values")
    return arr


def _module_device(module: nn.Module) -> torch.device:
    for p in module.parameters():
        return p.device
    return torch.device("cpu")


def _column_one(p: Tensor | np.ndarray, n: int) -> Any:
    if p.ndim == 2 and p.shape[1] == 2:
        return p[:, 1]
    if p.ndim == 2 and p.shape[1] == 1:
        return p[:, 0]
    if p.ndim == 1 and p.shape[0] == n:
        return p
    raise ValueError(
        f"the classifier returned shape {tuple(p.shape)} for {n} inputs; expected (n,), (n, 1) or (n, 2)"
    )


def as_proba(clf: Any) -> Callable[[np.ndarray], np.ndarray]:
    """P(y = 1 | x) of any classifier, as numpy (n, d) → (n,) float64.

    Accepted: an object with ``predict_proba`` (scikit-learn; column 1), a ``torch.nn.Module`` returning
    probabilities (n,), (n, 1) or (n, 2), or a plain callable on numpy arrays returning the same shapes.
    """
    if hasattr(clf, "predict_proba") and not isinstance(clf, nn.Module):
        return lambda X: np.asarray(_column_one(np.asarray(clf.predict_proba(np.asarray(X))), len(X)), float)
    if isinstance(clf, nn.Module):
        dev = _module_device(clf)

        def f(X: np.ndarray) -> np.ndarray:
            with torch.no_grad():
                p = clf(torch.as_tensor(np.asarray(X), dtype=torch.float32, device=dev))
            return _column_one(p, len(X)).double().cpu().numpy()

        return f
    if callable(clf):
        return lambda X: np.asarray(_column_one(np.asarray(clf(np.asarray(X))), len(X)), dtype=float)
    raise TypeError(
        f"classifier must be callable, a torch.nn.Module or have predict_proba; got {type(clf).__name__}"
    )


def as_torch_proba(clf: Any) -> Callable[[Tensor], Tensor]:
    """A differentiable P(y = 1 | x), torch (n, d) → (n,), for gradient-based baselines.

    Accepted: a ``torch.nn.Module`` or an object whose ``module_`` is one (:class:`MLPClassifier`).
    """
    module = clf.module_ if hasattr(clf, "module_") and isinstance(clf.module_, nn.Module) else clf
    if not isinstance(module, nn.Module):
        raise TypeError(
            "a gradient-based method needs a differentiable torch classifier (an nn.Module or an object "
            f"with a module_ attribute), got {type(clf).__name__}"
        )
    return lambda x: _column_one(module(x), x.shape[0])
