"""Active-set training for large graphs (HBDM-for-EED-search, phase 3), never touching N² dyads.

Every ``kd_tree_freq`` iterations the KD-tree check (:func:`lpca_metric_embed.kdtree_mismatch`) returns
the misclassified pairs: links outside the β-ball (target +1) and non-links inside it (target −1). Between
checks Adam minimises the hinge ``Σ_active max(0, m − Ã_ij Λ_ij)`` over that fixed active set only, so a
step costs O(|active| · D) and a check O(N log N + hits) for small D. The fit is exact when the active set
is empty. Official settings: Adam lr 0.25, ReduceLROnPlateau(factor 0.5, patience 15) on the loss,
up to 10,000 iterations, margin 0. The HBDM likelihood of phase 1 is not implemented (see README).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from paperkit.optim import Adam, ReduceOnPlateau

from lpca_metric_embed.graphs import Graph, to_graph
from lpca_metric_embed.models import L2Embedding, to_numpy
from lpca_metric_embed.recon import kdtree_mismatch
from lpca_metric_embed.training import FitResult, initial_embedding, validate_common


def fit_active_set(
    graph: object,
    dim: int,
    *,
    lr: float = 0.25,
    max_iter: int = 10_000,
    kd_tree_freq: int = 5,
    margin: float = 0.0,
    patience: int = 15,
    factor: float = 0.5,
    init: tuple[np.ndarray, np.ndarray] | None = None,
    warmup_steps: int = 0,
    warmup_lr: float = 0.1,
    neg_ratio: int = 5,
    seed: int = 0,
    device: str = "cpu",
    dtype: torch.dtype = torch.float64,
) -> FitResult:
    """Train the L2 model with the hinge loss on the KD-tree active set at dimension ``dim``.

    Args:
        graph: anything :func:`lpca_metric_embed.to_graph` accepts (use a scipy sparse matrix or a
            :class:`lpca_metric_embed.Graph` for large N).
        dim: D >= 1; init: (X0, Y0) (N, dim), default N(0, 1); β0 ~ U(0, 1) from ``seed``.
        lr, max_iter, kd_tree_freq, margin, patience, factor: as in the module docstring.
        warmup_steps: only when ``init`` is None, this many steps of the case-control logistic loss
            first (:func:`case_control_warmup`; our stand-in for the HBDM phase 1, which brings a random
            init close enough for the active set to shrink); warmup_lr, neg_ratio: its settings.
    Returns:
        a :class:`FitResult` whose curve logs ``n_wrong`` (= |active set|) at every check.
    """
    validate_common("l2", "hinge", dim)
    g = to_graph(graph)
    if kd_tree_freq < 1 or max_iter < 0 or not lr > 0:
        raise ValueError("kd_tree_freq must be >= 1, max_iter >= 0 and lr > 0")
    gen = torch.Generator(device=device).manual_seed(int(seed))
    X0, Y0, beta0 = initial_embedding(g.n, int(dim), "l2", init, gen, device, dtype)
    net = L2Embedding(X0, Y0, float(beta0))  # type: ignore[arg-type]
    if init is None and warmup_steps > 0:
        case_control_warmup(net, g, warmup_steps, warmup_lr, neg_ratio, gen)
    opt = Adam(net.parameters(), lr=lr)
    sched = ReduceOnPlateau(opt, factor=factor, patience=patience)
    curve: dict[str, list[float]] = {"epoch": [], "loss": [], "n_wrong": []}
    it, last_loss = 0, float("nan")
    while True:
        X, Y, b = to_numpy(net)
        mm = kdtree_mismatch(X, Y, float(b), g)  # type: ignore[arg-type]
        curve["epoch"].append(it)
        curve["loss"].append(last_loss)
        curve["n_wrong"].append(mm.n_wrong)
        if mm.exact or it >= max_iter:
            break
        pairs = np.concatenate([mm.missed, mm.spurious])
        i = torch.as_tensor(pairs[:, 0], device=device)
        j = torch.as_tensor(pairs[:, 1], device=device)
        sign = torch.cat(
            [
                torch.ones(len(mm.missed), dtype=dtype, device=device),
                -torch.ones(len(mm.spurious), dtype=dtype, device=device),
            ]
        )
        for _ in range(min(kd_tree_freq, max_iter - it)):
            opt.zero_grad()
            value = torch.relu(margin - sign * net.pair_logits(i, j)).sum()
            value.backward()
            opt.step()
            last_loss = float(value.detach())
            sched.step(last_loss)
            it += 1
    X, Y, b = to_numpy(net)
    n_wrong = int(curve["n_wrong"][-1])
    return FitResult(n_wrong == 0, int(dim), "l2", "hinge", 0.0, X, Y, b, it, n_wrong, curve)


def case_control_warmup(
    net: L2Embedding, g: Graph, steps: int, lr: float, neg_ratio: int, gen: torch.Generator
) -> list[float]:
    """Case-control logistic training of ``net`` in place: all links + ``neg_ratio`` random non-links each.

    Loss per step: ``mean_links softplus(−Λ) + w · mean_neg softplus(Λ)`` with ``w`` the ratio of
    non-links to links (so that the sampled negatives stand for all non-links, as in the paper's
    case-control batches). O(E · neg_ratio · D) per step. Negatives are uniform pairs ``i != j``; the rare
    sample that is a link is dropped. Returns the loss per step.
    """
    device = net.X.device
    n, E = g.n, g.n_links
    if E == 0 or n < 2:
        return []
    keys = torch.as_tensor(g.keys, device=device)
    li, lj = keys // n, keys % n
    w = (n * (n - 1) - E) / E
    opt = Adam(net.parameters(), lr=lr)
    out = []
    for _ in range(steps):
        k = E * neg_ratio
        ni = torch.randint(0, n, (k,), generator=gen, device=device)
        nj = torch.randint(0, n - 1, (k,), generator=gen, device=device)
        nj = nj + (nj >= ni).long()  # uniform over j != i
        nk = ni * n + nj
        pos = torch.searchsorted(keys, nk).clamp_max(E - 1)
        keep = keys[pos] != nk
        ni, nj = ni[keep], nj[keep]
        opt.zero_grad()
        value = F.softplus(-net.pair_logits(li, lj)).mean() + w * F.softplus(net.pair_logits(ni, nj)).mean()
        value.backward()
        opt.step()
        out.append(float(value.detach()))
    return out
