"""Positive label guessing (PLG) and negative label enhancement (NLE): official ``methods/plnl.py``.

PLG (per example ``i``, from the peer network's softmax outputs of its last ``qs`` epochs
``P^(1..qs)_i``, their mean ``Pbar_i`` and the current complementary labels ``C_i``): example ``i`` is
highly-confident, with pseudo-label ``y_hat_i = argmax Pbar_i``, iff all three hold

1. ``C_i[argmax Pbar_i] = 0`` (the guess is not a known-wrong class);
2. ``max Pbar_i > lambda`` (``lambda = 0.99``);
3. ``argmax P^(q)_i`` is the same class for every ``q = 1 .. qs``.

NLE (from this network's logits ``f`` of the epoch, ``p = softmax(f)``, the original labels ``C0``):

- neighbours ``N_k(i)``: the ``k`` nearest examples to ``i`` in L2 distance between L2-normalised logits,
  ``i`` itself excluded (the official FAISS ``IndexFlatL2`` search of ``k + 1``, first hit dropped);
- intensity ``I_i = sum_{j in N_k(i)} C0_j`` (per class: how many neighbours hold it complementary);
- ``m_i = max_k p_ik``; moderately-confident iff ``m_i > mean_j m_j``, else under-confident;
- ``a_i = ceil(t (sum_k (1 - C0_ik) - 1))`` if moderately-confident, else 1;
- ``C_i = C0_i`` with its ``a_i`` highest-intensity classes set to 1 (top-k over all classes, so a class
  already complementary can be re-selected and fewer than ``a_i`` may be added). The rebuild starts from
  ``C0`` every call: enhancement is not cumulative.

Guard (ours; the official code has none): a row is never made all ones. At most ``K - 1 - |C0_i|``
labels can be added without emptying the candidate set; ``a_i`` is capped there (it only binds when
``t (K - 1 - |C0_i|)`` rounds up to everything, e.g. ``t = 1``, or for a row with one candidate left).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from paperkit import check_int, check_number, check_positive

from plnl.checks import check_same_device, check_scores
from plnl.labels import check_complementary

__all__ = ["intensity", "knn_indices", "negative_label_enhancement", "nle_counts", "positive_label_guessing"]


def _check_plg(prob_queue: object, C: object, lam: object) -> tuple[torch.Tensor, torch.Tensor, float]:
    pq = check_scores(prob_queue, "prob_queue", ndim=3)
    Ct = check_complementary(check_scores(C, "C"), "C")
    check_same_device(pq, "prob_queue", Ct, "C")
    if pq.shape[1:] != Ct.shape or pq.shape[0] < 1:
        raise ValueError(
            f"prob_queue must be (qs >= 1, n, K) with (n, K) = C's shape {tuple(Ct.shape)}, "
            f"got {tuple(pq.shape)}"
        )
    return pq, Ct, check_number(lam, "lam", low=0.0)


def positive_label_guessing(
    prob_queue: torch.Tensor, C: torch.Tensor, *, lam: float = 0.99, check: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(flags (n,) bool, y_hat (n,) int64)`` from softmax outputs ``prob_queue (qs, n, K)``, ``C (n, K)``.

    ``y_hat`` is ``argmax Pbar`` for every row (meaningful where ``flags``). ``lam >= 1`` never flags.
    ``check=False`` skips the argument checks (the trainer checked its data on entry; PLG runs per batch).
    """
    if check:
        prob_queue, C, lam = _check_plg(prob_queue, C, lam)
    mean = prob_queue.mean(0)
    top, y_hat = mean.max(1)
    not_comp = C.gather(1, y_hat[:, None])[:, 0] == 0
    each = prob_queue.argmax(2)  # (qs, n)
    same = (each == each[:1]).all(0)
    return not_comp & (top > lam) & same, y_hat


def knn_indices(logits: torch.Tensor, k: int) -> torch.Tensor:
    """``(n, k')`` indices of each row's ``k' = min(k, n-1)`` nearest rows (L2 on L2-normalised logits,
    self excluded, nearest first; ties broken by index)."""
    n = check_scores(logits, "logits").shape[0]
    k = check_int(k, "k", low=1)
    if n < 2:
        raise ValueError(f"logits must have at least 2 rows for a neighbour search, got {n}")
    k = min(k, n - 1)
    z = F.normalize(logits.detach().to(torch.float64), dim=1)
    d2 = (2 - 2 * z @ z.T).clamp(min=0)  # ||a - b||^2 for unit vectors
    d2.fill_diagonal_(float("inf"))
    # a stable sort over (distance, index) keeps the result independent of the backend's top-k ties
    order = torch.sort(d2, dim=1, stable=True).indices
    return order[:, :k]


def check_knn(knn: object, n: int) -> torch.Tensor:
    """``knn`` as an int64 ``(n, k)`` tensor of row indices in ``0 .. n-1`` (``k >= 1``)."""
    if not isinstance(knn, torch.Tensor) or knn.dtype != torch.int64:
        raise TypeError(f"knn must be an int64 tensor, got {getattr(knn, 'dtype', type(knn).__name__)}")
    if knn.ndim != 2 or knn.shape[0] != n or knn.shape[1] < 1:
        raise ValueError(f"knn must have shape ({n}, k >= 1) to match C0's rows, got {tuple(knn.shape)}")
    if bool(((knn < 0) | (knn >= n)).any()):
        raise ValueError(f"knn must hold row indices in 0 .. {n - 1}")
    return knn


def intensity(C0: torch.Tensor, knn: torch.Tensor) -> torch.Tensor:
    """``(n, K)``: ``I_i = sum_{j in knn[i]} C0_j`` (``C0``: any 0/1 matrix)."""
    C0 = check_scores(C0, "C0")
    if not bool(((C0 == 0) | (C0 == 1)).all()):
        raise ValueError("C0 must hold only 0 and 1")
    check_knn(knn, len(C0))
    check_same_device(C0, "C0", knn, "knn")
    return C0[knn].sum(1)


def nle_counts(
    C0: torch.Tensor, probs: torch.Tensor, *, t: float = 0.1, constant: int | None = None
) -> torch.Tensor:
    """``(n,)`` int64 ``a_i``: ``ceil(t (#candidates - 1))`` above the mean max-probability, else 1
    (``constant``: the ablation "NLE with constant a_i" gives every row that many), capped so that at
    least one candidate is left."""
    t = check_positive(t, "t", strict=False)
    C0 = check_complementary(check_scores(C0, "C0"), "C0")
    probs = check_scores(probs, "probs", shape=tuple(C0.shape))
    check_same_device(C0, "C0", probs, "probs")
    cand = (1 - C0).sum(1)
    if constant is None:
        top = probs.max(1).values
        moderate = top > top.mean()
        a = torch.where(moderate, torch.ceil(t * (cand - 1)), torch.ones_like(cand))
    else:
        a = torch.full_like(cand, float(check_int(constant, "constant", low=0)))
    return torch.minimum(a, cand - 1).clamp(min=0).to(torch.int64)


def negative_label_enhancement(
    C0: torch.Tensor, knn: torch.Tensor, probs: torch.Tensor, *, t: float = 0.1, constant: int | None = None
) -> torch.Tensor:
    """``(n, K)`` enhanced labels: ``C0`` with each row's ``a_i`` highest-intensity classes set to 1.

    Ties in intensity go to the lower class index (the official ``torch.topk`` leaves them unspecified).
    """
    C0 = check_complementary(check_scores(C0, "C0"), "C0")
    probs = check_scores(probs, "probs", shape=tuple(C0.shape))
    check_knn(knn, len(C0))
    a = nle_counts(C0, probs, t=t, constant=constant)
    inten = intensity(C0, knn)
    K = C0.shape[1]
    # rank of each class within its row by (intensity desc, index asc); select ranks < a_i, all at once
    key = inten * (K + 1) - torch.arange(K, device=C0.device, dtype=inten.dtype)
    rank = torch.argsort(torch.argsort(key, dim=1, descending=True, stable=True), dim=1)
    chosen = rank < a[:, None]  # a_i <= #candidates - 1, so a row never becomes all ones
    return torch.maximum(C0, chosen.to(C0.dtype))
