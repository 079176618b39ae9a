"""Latent-code probes (official ``callbacks.py``).

Fuzzy logic (``LogicLatents``): problems of the train tasks with a fixed query point and random contexts;
features are the latent code of the last query to the last key, ``a_{h,-1,-1}``, of every layer and head
(``L * H`` numbers); a ridge regression (l2 = 1, intercept) fitted on the first half predicts each of the
task's ``M * V`` latent bits on the second half; the score is the mean R^2 over the bits.
"""

from __future__ import annotations

import numpy as np
import torch
from paperkit import check_array, check_instance, check_int, check_positive, check_seed

from attention_hypernet._checks import check_device, check_tensor
from attention_hypernet.logic import FuzzyLogic
from attention_hypernet.transformer import Transformer

__all__ = ["last_pair_codes", "logic_latent_r2", "ridge_r2"]


def ridge_r2(
    x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, y_test: np.ndarray, *, l2: float = 1.0
) -> np.ndarray:
    """R^2 on the test half of a ridge fit with intercept, per output column: ``(n_outputs,)``.

    Solves ``(X^T X + l2 I) w = X^T y`` with ``X = [x, 1]`` (the penalty covers the intercept too, as in
    the official ``RidgeRegression``); a column that is constant on the test half gets NaN.
    """
    x_train = np.asarray(check_array(x_train, "x_train", ndim=2), float)
    if x_train.shape[0] == 0:
        raise ValueError(f"x_train must have at least one row, got shape {x_train.shape}")
    x_test = np.asarray(check_array(x_test, "x_test", shape=(None, x_train.shape[1])), float)
    y_train = np.asarray(check_array(y_train, "y_train", shape=(x_train.shape[0], None)), float)
    y_test = np.asarray(check_array(y_test, "y_test", shape=(x_test.shape[0], y_train.shape[1])), float)
    l2 = check_positive(l2, "l2", strict=False)
    X = np.column_stack([x_train, np.ones(len(x_train))])
    w = np.linalg.solve(X.T @ X + l2 * np.eye(X.shape[1]), X.T @ y_train)
    pred = np.column_stack([x_test, np.ones(len(x_test))]) @ w
    ss_tot = ((y_test - y_test.mean(0)) ** 2).sum(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ss_tot > 0, 1 - ((y_test - pred) ** 2).sum(0) / ss_tot, np.nan)


@torch.no_grad()
def last_pair_codes(model: Transformer, x: torch.Tensor) -> torch.Tensor:
    """``(B, L * H)``: the latent code of the last query to the last key in every layer."""
    check_instance(model, "model", Transformer)
    check_tensor(x, "x", shape=("B", "T", model.embed.in_features))
    model.eval()
    _, scores = model(x, return_scores=True)
    model.train()
    return torch.cat([a[:, :, -1, -1] for a in scores], dim=1)


def logic_latent_r2(
    model: Transformer, task: FuzzyLogic, *, n: int = 2048, seed: int = 0, device: str = "cpu"
) -> float:
    """Mean ridge R^2 of the task's latent bits from the last-pair codes (fixed query, train tasks)."""
    check_instance(model, "model", Transformer)
    check_instance(task, "task", FuzzyLogic)
    n, seed = check_int(n, "n", low=8), check_seed(seed)
    check_device(device)
    if model.embed.in_features != task.num_vars + 1:
        raise ValueError(
            f"model reads {model.embed.in_features} inputs, task needs num_vars + 1 = {task.num_vars + 1}"
        )
    rng = np.random.default_rng([seed, 3])
    batch = task.sample(n, "train", rng, fixed_query=rng.random(task.num_vars))
    feats = last_pair_codes(model, torch.from_numpy(batch.x).to(device)).cpu().numpy().astype(float)
    bits = batch.latents.reshape(n, -1).astype(float)
    h = n // 2
    return float(np.nanmean(ridge_r2(feats[:h], bits[:h], feats[h:], bits[h:])))
