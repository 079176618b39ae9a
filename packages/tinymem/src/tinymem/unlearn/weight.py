"""Weight-level unlearning: Greedy, Durable, Durable-Aggregate, Second-Order (OBS), Subnet, BalancedSubnet.

Every method edits only the MLP projections (input and output) of every block, as the official code
(``apply_*_mask_to_params`` touch parameters whose name contains ``mlp``), and returns an edited copy.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator
from typing import cast

import torch
import torch.nn.functional as F
from paperkit.lm.models import model_device
from paperkit.validation import check_probability
from transformers.pytorch_utils import Conv1D

from tinymem.models import mlp_layers
from tinymem.unlearn.common import check_ratio, check_rows, sequence_loss, warn_if_empty

LossFn = Callable[[torch.nn.Module], torch.Tensor]


def _grad(p: torch.Tensor) -> torch.Tensor:
    if p.grad is None:
        raise RuntimeError("missing gradient")  # pragma: no cover
    return p.grad


class GetSubnet(torch.autograd.Function):
    """Edge-popup supermask: 0 for the ⌊ratio·numel⌋ smallest scores, 1 elsewhere;
    straight-through backward."""

    @staticmethod
    def forward(ctx: object, scores: torch.Tensor, ratio: float) -> torch.Tensor:
        out = torch.ones_like(scores)
        j = int(ratio * scores.numel())
        if j > 0:
            idx = torch.argsort(scores.flatten(), stable=True)[:j]
            out.view(-1)[idx] = 0.0
        return out

    @staticmethod
    def backward(ctx: object, g: torch.Tensor) -> tuple[torch.Tensor, None]:
        return g, None


def get_subnet(scores: torch.Tensor, ratio: float) -> torch.Tensor:
    """The {0,1} mask of ``scores`` dropping the ``ratio`` fraction with the smallest score (STE gradient).

    Raises:
        TypeError: ``scores`` is not a tensor or ``ratio`` not a number. ValueError: ``ratio`` outside [0, 1].
    """
    if not isinstance(scores, torch.Tensor):
        raise TypeError(f"scores must be a torch.Tensor, got {type(scores).__name__}")
    check_probability(ratio, "ratio")  # the fraction of entries masked
    return cast(torch.Tensor, GetSubnet.apply(scores, ratio))


class SupermaskProjection(torch.nn.Module):
    """A frozen projection (GPT-2 ``Conv1D`` or ``nn.Linear``) whose weight is used as W ⊙ M(|S|).

    S has W's shape, Kaiming-uniform(a=√5) init from ``generator``; only S trains. The trained W is kept
    as it is (the official ``SupermaskConv`` re-initialises W in its constructor; the trained weights are
    re-assigned afterwards, which this wrapper never needs).
    """

    def __init__(self, base: torch.nn.Module, ratio: float, generator: torch.Generator) -> None:
        super().__init__()
        if not isinstance(base, (Conv1D, torch.nn.Linear)):
            raise TypeError(f"expected a Conv1D or nn.Linear, got {type(base).__name__}")
        self.base = base
        self.ratio = ratio
        w = base.weight
        scores = torch.empty(w.shape)
        fan_in = w.shape[1]  # torch's fan-in convention for a 2-D tensor (as kaiming_uniform_ on S)
        bound = math.sqrt(6.0 / ((1 + 5.0) * fan_in))  # gain √(2/(1+a²)), a = √5
        scores.uniform_(-bound, bound, generator=generator)
        self.scores = torch.nn.Parameter(scores.to(w.device))
        base.weight.requires_grad_(False)
        if base.bias is not None:
            base.bias.requires_grad_(False)

    def mask(self) -> torch.Tensor:
        return get_subnet(self.scores.abs(), self.ratio)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.base.weight * self.mask()
        if isinstance(self.base, Conv1D):
            out = x.reshape(-1, x.shape[-1]) @ w
            if self.base.bias is not None:
                out = out + self.base.bias
            return out.view(*x.shape[:-1], w.shape[1])
        return F.linear(x, w, self.base.bias)


def attach_supermasks(
    model: torch.nn.Module, ratio: float, seed: int
) -> list[tuple[torch.nn.Module, str, SupermaskProjection]]:
    """Wrap every MLP ``fc``/``proj`` of ``model`` in place in a trainable :class:`SupermaskProjection`
    (scores drawn from ``seed``); returns (parent, attribute, wrapper) triples for
    :func:`merge_supermasks`."""
    gen = torch.Generator().manual_seed(seed)
    wrapped = []
    for layer in mlp_layers(model):
        parent = _parent_of(model, layer.fc)
        for mod in (layer.fc, layer.proj):
            name = next(n for n, m in parent.named_children() if m is mod)
            sm = SupermaskProjection(mod, ratio, gen)
            setattr(parent, name, sm)
            wrapped.append((parent, name, sm))
    return wrapped


def _parent_of(model: torch.nn.Module, child: torch.nn.Module) -> torch.nn.Module:
    for m in model.modules():
        if any(c is child for c in m.children()):
            return m
    raise ValueError("module not found in model")  # pragma: no cover


@torch.no_grad()
def merge_supermasks(wrapped: list[tuple[torch.nn.Module, str, SupermaskProjection]]) -> None:
    """Multiply each wrapped layer's weight by its mask and put the plain layer back (undoes the wrapping)."""
    for parent, name, sm in wrapped:
        sm.base.weight.mul_(sm.mask())
        setattr(parent, name, sm.base)


def _run_supermask(
    model: torch.nn.Module,
    batches_fn: Callable[[torch.Generator], Iterator[LossFn]],
    ratio: float,
    *,
    epochs: int,
    lr: float,
    momentum: float,
    weight_decay: float,
    seed: int,
) -> torch.nn.Module:
    out = copy.deepcopy(model)
    req = {id(p): p.requires_grad for p in out.parameters()}
    for p in out.parameters():
        p.requires_grad_(False)
    wrapped = attach_supermasks(out, ratio, seed)
    opt = torch.optim.SGD(
        [sm.scores for _, _, sm in wrapped], lr=lr, momentum=momentum, weight_decay=weight_decay
    )
    gen = torch.Generator().manual_seed(seed + 1)
    out.train()
    for _ in range(epochs):
        for loss_fn in batches_fn(gen):
            opt.zero_grad()
            loss = loss_fn(out)
            loss.backward()
            opt.step()
    merge_supermasks(wrapped)
    out.eval()
    for p in out.parameters():
        p.requires_grad_(req.get(id(p), True))
    return out


def subnet(
    model: torch.nn.Module,
    mem: torch.Tensor,
    ratio: float,
    *,
    epochs: int = 5,
    lr: float = 0.1,
    momentum: float = 0.9,
    weight_decay: float = 5e-4,
    batch_size: int = 64,
    seed: int = 0,
) -> torch.nn.Module:
    """Subnet (``random_subnet.py``): learn supermask scores S maximising the LM loss on ``mem``.

    W ⊙ M(|S|) on every MLP projection, M dropping the ``ratio`` smallest-|S| entries; SGD on S only
    (lr 0.1, momentum 0.9, weight decay 5e-4, 5 epochs, batch 64) minimising −L_mem; then W ← W ⊙ M.
    An empty ``mem`` returns an unchanged copy ("nothing to unlearn").
    """
    ratio = check_ratio(ratio)
    mem = check_rows(mem, "mem")
    if len(mem) == 0:
        return copy.deepcopy(model)
    mlp_layers(model)
    dev = model_device(model)
    mem = mem.to(dev)

    def batches(gen: torch.Generator) -> Iterator[LossFn]:
        perm = torch.randperm(len(mem), generator=gen).to(dev)
        for s in range(0, len(mem), batch_size):
            x = mem[perm[s : s + batch_size]]

            def loss_fn(m: torch.nn.Module, x: torch.Tensor = x) -> torch.Tensor:
                return -sequence_loss(m, x).mean()

            yield loss_fn

    return _run_supermask(
        model, batches, ratio, epochs=epochs, lr=lr, momentum=momentum, weight_decay=weight_decay, seed=seed
    )


def balanced_subnet_loss_label(losses: torch.Tensor, labels: torch.Tensor, batch_size: int) -> torch.Tensor:
    """The older official form: mean_i(−B · label_i · L_i), label +1 memorised / −1 clean, B the configured
    batch size (``random_subnet_greedy.py`` before ``loss_weighting``). The factor B scales the step on the
    scores by B, and the balance between the two sets is their share of the batch, not α."""
    return (-float(batch_size) * labels * losses).mean()


def balanced_subnet_loss(mem_losses: torch.Tensor, clean_losses: torch.Tensor, alpha: float) -> torch.Tensor:
    """L_BS = −(1−α)·mean(L_mem) + α·mean(L_clean) over one batch (an empty subset contributes 0)."""
    zero = mem_losses.new_zeros(())
    lm = mem_losses.mean() if mem_losses.numel() else zero
    lc = clean_losses.mean() if clean_losses.numel() else zero
    return -(1.0 - alpha) * lm + alpha * lc


def balanced_subnet(
    model: torch.nn.Module,
    mem: torch.Tensor,
    clean: torch.Tensor,
    ratio: float,
    *,
    alpha: float = 0.05,
    epochs: int = 5,
    lr: float = 0.1,
    momentum: float = 0.9,
    weight_decay: float = 5e-4,
    batch_size: int = 64,
    seed: int = 0,
    loss_version: str = "alpha",
) -> torch.nn.Module:
    """BalancedSubnet (``random_subnet_greedy.py``): Subnet's supermask trained on a shuffled mixture of
    memorised (label +1) and clean (label −1) rows so the mask removes memorisation while keeping clean
    loss low. ``loss_version="alpha"`` (default; the latest official version, ``loss_weighting``):
    L_BS = −(1−α)·L̄_mem + α·L̄_clean, α = 0.05. ``loss_version="label"``: the older official form
    mean_i(−B·label_i·L_i) (:func:`balanced_subnet_loss_label`; α unused). Which of the two the paper's
    numbers were produced with is not stated in the paper or the repository.
    """
    if loss_version not in ("alpha", "label"):
        raise ValueError(f"loss_version must be 'alpha' or 'label', got {loss_version!r}")
    ratio = check_ratio(ratio)
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    mem = check_rows(mem, "mem")
    clean = check_rows(clean, "clean")
    if len(mem) == 0:
        return copy.deepcopy(model)
    mlp_layers(model)
    dev = model_device(model)
    if len(clean):  # a sequence both memorised and "clean" counts as memorised only
        seen = {tuple(r.tolist()) for r in mem}
        clean = clean[torch.tensor([tuple(r.tolist()) not in seen for r in clean], dtype=torch.bool)]
    data = torch.cat([mem, clean]).to(dev)
    label = torch.cat([torch.ones(len(mem)), -torch.ones(len(clean))]).to(dev)

    def batches(gen: torch.Generator) -> Iterator[LossFn]:
        perm = torch.randperm(len(data), generator=gen).to(dev)
        for s in range(0, len(data), batch_size):
            idx = perm[s : s + batch_size]
            x, y = data[idx], label[idx]

            def loss_fn(m: torch.nn.Module, x: torch.Tensor = x, y: torch.Tensor = y) -> torch.Tensor:
                per = sequence_loss(m, x)
                if loss_version == "label":
                    return balanced_subnet_loss_label(per, y, batch_size)
                return balanced_subnet_loss(per[y > 0], per[y < 0], alpha)

            yield loss_fn

    return _run_supermask(
        model, batches, ratio, epochs=epochs, lr=lr, momentum=momentum, weight_decay=weight_decay, seed=seed
    )


def _mlp_params(model: torch.nn.Module) -> list[torch.nn.Parameter]:
    ps = []
    for layer in mlp_layers(model):
        for mod in (layer.fc, layer.proj):
            ps.append(mod.weight)
            if getattr(mod, "bias", None) is not None:
                ps.append(mod.bias)
    return ps


def _mem_grads(model: torch.nn.Module, mem: torch.Tensor, batch_size: int = 64) -> None:
    """Accumulate ∂L_mem/∂θ in .grad over batches of 64 (official ``get_grad_mask_list``)."""
    model.zero_grad()
    for s in range(0, len(mem), batch_size):
        sequence_loss(model, mem[s : s + batch_size]).mean().backward()


def durable(
    model: torch.nn.Module, mem: torch.Tensor, ratio: float, *, aggregate: bool = False
) -> torch.nn.Module:
    """Durable (layer-wise) / Durable-Aggregate: zero the MLP weights with the largest |∂L_mem/∂θ|.

    Layer-wise: the top ``ratio`` of each MLP parameter tensor. Aggregate: the top ``ratio`` of *all*
    parameters ranked together (official), of which only those in MLP tensors are zeroed.
    """
    ratio = check_ratio(ratio)
    mem = check_rows(mem, "mem")
    out = copy.deepcopy(model)
    if len(mem) == 0:
        return out
    mlp = _mlp_params(out)
    mlp_ids = {id(p) for p in mlp}
    out.train()
    _mem_grads(out, mem.to(model_device(out)))
    with torch.no_grad():
        if aggregate:
            params = [p for p in out.parameters() if p.grad is not None]
            flat = torch.cat([_grad(p).abs().flatten() for p in params])
            n = warn_if_empty(ratio, flat.numel(), "parameters")
            top = torch.zeros(flat.numel(), dtype=torch.bool, device=flat.device)
            if n:
                top[torch.topk(flat, n).indices] = True
            off = 0
            for p in params:
                k = p.numel()
                if id(p) in mlp_ids:
                    p.masked_fill_(top[off : off + k].view(p.shape), 0.0)
                off += k
        else:
            for p in mlp:
                n = warn_if_empty(ratio, p.numel(), "weights")
                if n:
                    idx = torch.topk(_grad(p).abs().flatten(), n).indices
                    p.view(-1)[idx] = 0.0
    out.zero_grad(set_to_none=True)
    out.eval()
    return out


def durable_aggregate(model: torch.nn.Module, mem: torch.Tensor, ratio: float) -> torch.nn.Module:
    """Durable-Aggregate: :func:`durable` with one ranking over all parameters."""
    return durable(model, mem, ratio, aggregate=True)


class EmpiricalBlockFisherInverse:
    """Block-diagonal inverse of the damped empirical Fisher ``λI + (1/m) Σ g gᵀ`` (oBERT / WoodFisher),
    updated one gradient at a time with Sherman-Morrison; d weights in blocks of B."""

    def __init__(
        self, num_grads: int, block_size: int, num_weights: int, damp: float, device: torch.device
    ) -> None:
        if num_grads < 1 or block_size < 1 or num_weights < 1 or damp <= 0:
            raise ValueError("num_grads, block_size, num_weights must be >= 1 and damp > 0")
        self.m, self.B, self.d = num_grads, block_size, num_weights
        self.nb = math.ceil(num_weights / block_size)
        self.F_inv = (torch.eye(block_size, device=device, dtype=torch.float64) / damp).repeat(self.nb, 1, 1)

    def _blocks(self, v: torch.Tensor) -> torch.Tensor:
        v = v.to(torch.float64).flatten()
        pad = self.nb * self.B - v.numel()
        if pad:
            v = torch.cat([v, v.new_zeros(pad)])
        return v.view(self.nb, self.B)

    def add_grad(self, g: torch.Tensor) -> None:
        gb = self._blocks(g)
        fg = torch.einsum("bij,bj->bi", self.F_inv, gb)
        denom = (self.m + torch.einsum("bi,bi->b", gb, fg)).sqrt().unsqueeze(1)
        fg = fg / denom
        self.F_inv -= fg.unsqueeze(2) * fg.unsqueeze(1)

    def diag(self) -> torch.Tensor:
        return self.F_inv.diagonal(dim1=1, dim2=2).flatten()[: self.d]

    def mul(self, v: torch.Tensor) -> torch.Tensor:
        return torch.bmm(self.F_inv, self._blocks(v).unsqueeze(2)).flatten()[: self.d]


def second_order(
    model: torch.nn.Module,
    mem: torch.Tensor,
    ratio: float,
    *,
    num_grads: int = 512,
    block_size: int = 50,
    damp: float = 1e-7,
) -> torch.nn.Module:
    """Second-Order Unlearning (OBS with the empirical Fisher): per MLP tensor, zero the ``ratio`` weights
    with the largest OBS saliency w² / (2·[F⁻¹]_qq), F from up to ``num_grads`` per-sequence gradients of
    the memorised-sequence loss (block size 50, damping 1e-7)."""
    ratio = check_ratio(ratio)
    mem = check_rows(mem, "mem")
    out = copy.deepcopy(model)
    if len(mem) == 0:
        return out
    mem = mem.to(model_device(out))
    params = _mlp_params(out)
    m = min(num_grads, len(mem))
    fis = [EmpiricalBlockFisherInverse(m, block_size, p.numel(), damp, p.device) for p in params]
    out.train()
    for i in range(m):
        out.zero_grad()
        sequence_loss(out, mem[i : i + 1]).sum().backward()
        for p, f in zip(params, fis, strict=True):
            f.add_grad(_grad(p))
    with torch.no_grad():
        for p, f in zip(params, fis, strict=True):
            n = warn_if_empty(ratio, p.numel(), "weights")
            if n:
                sal = p.detach().flatten().double() ** 2 / (2.0 * f.diag())
                p.view(-1)[torch.topk(sal, n).indices] = 0.0
    out.zero_grad(set_to_none=True)
    out.eval()
    return out


def greedy(
    model: torch.nn.Module,
    mem: torch.Tensor,
    clean: torch.Tensor,
    ratio: float,
    *,
    batch_size: int = 64,
    seed: int = 0,
) -> torch.nn.Module:
    """Greedy (Maini et al. 2023, official ``do_greedy``): repeat ``int(ratio·n_mlp_weights)`` times: on the
    next batch of the shuffled memorised (+1) / clean (−1) mixture, take the gradient g of
    mean(−B·label·L), and zero the one MLP weight with the largest w·g (first-order: removing it raises the
    memorised loss and lowers the clean loss the most)."""
    ratio = check_ratio(ratio)
    mem = check_rows(mem, "mem")
    clean = check_rows(clean, "clean")
    out = copy.deepcopy(model)
    if len(mem) == 0:
        return out
    dev = model_device(out)
    params = [layer_mod.weight for layer in mlp_layers(out) for layer_mod in (layer.fc, layer.proj)]
    n_iter = warn_if_empty(ratio, sum(p.numel() for p in params), "MLP weights")
    data = torch.cat([mem, clean]).to(dev)
    label = torch.cat([torch.ones(len(mem)), -torch.ones(len(clean))]).to(dev)
    gen = torch.Generator().manual_seed(seed)
    out.train()
    it = 0
    while it < n_iter:
        perm = torch.randperm(len(data), generator=gen).to(dev)
        for s in range(0, len(data), batch_size):
            if it >= n_iter:
                break
            idx = perm[s : s + batch_size]
            out.zero_grad()
            b = len(idx)
            (sequence_loss(out, data[idx]) * (-b * label[idx])).mean().backward()
            with torch.no_grad():
                best = max(range(len(params)), key=lambda i: float((params[i] * params[i].grad).max()))
                p = params[best]
                j = int(torch.argmax(p * p.grad))
                p.view(-1)[j] = 0.0
            it += 1
    out.zero_grad(set_to_none=True)
    out.eval()
    return out
