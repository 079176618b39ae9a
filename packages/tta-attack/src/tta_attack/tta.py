"""Test-time adaptation victims: TeBN, Tent, EATA, SAR and SoTTA, one online step per test batch.

Every method puts BatchNorm in train mode with no running statistics (the batch's own statistics are used,
``configure_model`` of the official code) and returns the logits of the forward that precedes its update
(Tent's reference convention, kept identical for every method). Settings are the official code's
(tta-attack-official.md section 4): Adam, lr 1e-3, one step a batch, on the BN affine parameters.

- TeBN (ours, not in the paper): batch statistics only, no parameter update.
- Tent: minimise the mean softmax entropy ``H(p) = -sum_k p_k log p_k`` of the batch.
- EATA: keep samples with ``H < e_margin = ln(1000)/2 - 1`` whose probability vector is not redundant with
  the moving average ``pbar`` (``|cos(p, pbar)| < d_margin = 0.05``; ``pbar <- 0.9 pbar + 0.1 mean p``),
  weight them by ``exp(-(H - e_margin))``, and add ``fisher_alpha * sum F (theta - theta_0)^2``
  (``fisher_alpha = 2000``, ``F`` the squared gradients of the pseudo-label cross-entropy on source
  images). Unlike the released ``eata.py``, which never calls backward, this EATA takes its step.
- SAR: entropy of samples with ``H < 0.4 ln 1000``, a sharpness-aware step (SAM, rho 0.05; the second
  forward is filtered again), and a reset to the source model when the EMA (0.9) of the second loss
  falls below 0.2.
- SoTTA: a class-balanced memory (64) of high-confidence samples (max p >= 0.9; when full, the oldest
  sample of the most frequent class is evicted), adapted on with SAM (rho 0.05) entropy minimisation.

At 10 classes the released entropy margins (computed with 1000 classes) exceed ln 10, so EATA's and SAR's
entropy filters admit every sample, as they did in the official CIFAR-10-C runs.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

import torch
from paperkit.validation import check_choice, check_instance, check_int, check_number
from torch import nn
from torch.nn import functional as F

from tta_attack.models import check_bn_model, norm_layers

__all__ = ["TTA_METHODS", "Adapter", "TTAConfig", "entropy", "fisher_diagonal", "hus_insert", "norm_params"]

TTA_METHODS = ("tebn", "tent", "eata", "sar", "sotta")


@dataclass(frozen=True)
class TTAConfig:
    """The TTA methods' settings, as the official code configures them."""

    lr: float = 1e-3  # every method: Adam, lr 1e-3, one step a batch
    sam_rho: float = 0.05  # SAR, SoTTA
    sar_margin: float = 0.4 * math.log(1000)  # SAR's margin, used for every dataset
    sar_reset: float = 0.2  # SAR: reset when the loss EMA < 0.2
    eata_margin: float = math.log(1000) / 2 - 1
    eata_d_margin: float = 0.05
    fisher_alpha: float = 2000.0
    memory: int = 64  # SoTTA
    confidence: float = 0.9  # SoTTA

    def __post_init__(self) -> None:
        check_number(self.lr, "lr", low=0.0, low_open=True)
        check_number(self.sam_rho, "sam_rho", low=0.0)
        check_int(self.memory, "memory", low=1)
        check_number(self.confidence, "confidence", low=0.0, high=1.0)


def entropy(logits: torch.Tensor) -> torch.Tensor:
    """``(batch,)`` softmax entropy ``-sum_k p_k log p_k`` (nats)."""
    logp = logits.log_softmax(1)
    return -(logp.exp() * logp).sum(1)


def norm_params(model: nn.Module) -> list[nn.Parameter]:
    """The affine parameters of the model's BatchNorm / MedBN layers."""
    return [p for layer in norm_layers(model) for p in layer.parameters(recurse=False)]


def _configure(model: nn.Module) -> nn.Module:
    """Train-mode BN without running statistics; only the BN affine parameters require gradients."""
    model.train()
    model.requires_grad_(False)
    for layer in norm_layers(model):
        layer.requires_grad_(True)
        if isinstance(layer, nn.BatchNorm1d | nn.BatchNorm2d):
            layer.track_running_stats = False
            layer.running_mean, layer.running_var = None, None
    return model


def fisher_diagonal(model: nn.Module, x: torch.Tensor, *, batch_size: int = 64) -> list[torch.Tensor]:
    """EATA's Fisher: the mean over batches of the squared gradient of ``CE(f(x), argmax f(x))`` w.r.t. the
    BN affine parameters of the TTA-configured ``model`` (train-mode BN)."""
    m = _configure(copy.deepcopy(check_bn_model(model)))
    params = norm_params(m)
    fisher = [torch.zeros_like(p) for p in params]
    batches = x.split(check_int(batch_size, "batch_size", low=2))
    for xb in batches:
        logits = m(xb)
        grads = torch.autograd.grad(F.cross_entropy(logits, logits.detach().argmax(1)), params)
        fisher = [f + g.square() / len(batches) for f, g in zip(fisher, grads, strict=True)]
    return fisher


@dataclass
class _State:
    model: dict[str, torch.Tensor]
    opt: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)


class Adapter:
    """One TTA method wrapped around its own copy of a source model.

    ``step(x)`` returns the ``(batch, classes)`` logits of the pre-update forward and adapts once;
    ``predict(x)`` is that forward without the update; ``state()`` / ``load(state)`` snapshot and restore
    the model, optimiser and method state (the per-batch protocol restarts the victim from the clean
    adapter's state); ``model`` is what the attacker's surrogate runs (same configuration).
    """

    def __init__(
        self,
        method: str,
        source: nn.Module,
        config: TTAConfig | None = None,
        fisher: list[torch.Tensor] | None = None,
    ) -> None:
        self.method = check_choice(method, "method", TTA_METHODS)
        self.config = TTAConfig() if config is None else check_instance(config, "config", TTAConfig)
        self.model = _configure(copy.deepcopy(check_bn_model(source, "source")))
        self.params = norm_params(self.model)
        self.opt = torch.optim.Adam(self.params, lr=self.config.lr)
        self.theta0 = [p.detach().clone() for p in self.params]
        if self.method == "eata" and fisher is None:
            raise ValueError("method 'eata' needs fisher (fisher_diagonal on source images)")
        self.fisher = fisher
        self.extra: dict[str, Any] = {}
        self._source = self.state()

    def state(self) -> _State:
        sd = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        return _State(sd, copy.deepcopy(self.opt.state_dict()), copy.deepcopy(self.extra))

    def load(self, state: _State) -> None:
        self.model.load_state_dict(state.model)
        self.opt.load_state_dict(copy.deepcopy(state.opt))
        self.extra = copy.deepcopy(state.extra)

    @torch.no_grad()
    def predict(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)

    def step(self, x: torch.Tensor) -> torch.Tensor:
        logits = self.model(x)
        if self.method == "tent":
            self._apply(entropy(logits).mean())
        elif self.method == "eata":
            self._eata(logits)
        elif self.method == "sar":
            self._sar(x, logits)
        elif self.method == "sotta":
            self._sotta(x, logits)
        return logits.detach()

    def _apply(self, loss: torch.Tensor, grads: list[torch.Tensor] | None = None) -> None:
        if grads is None:
            grads = list(torch.autograd.grad(loss, self.params))
        for p, g in zip(self.params, grads, strict=True):
            p.grad = g
        self.opt.step()
        self.opt.zero_grad(set_to_none=True)

    def _eata(self, logits: torch.Tensor) -> None:
        c = self.config
        ent = entropy(logits)
        keep = ent < c.eata_margin
        probs = logits.detach().softmax(1)
        pbar = self.extra.get("pbar")
        if pbar is not None:
            keep &= F.cosine_similarity(pbar[None], probs, dim=1).abs() < c.eata_d_margin
        if not bool(keep.any()):
            return
        new = probs[keep].mean(0)
        self.extra["pbar"] = new if pbar is None else 0.9 * pbar + 0.1 * new
        loss = (ent[keep] * torch.exp(-(ent[keep].detach() - c.eata_margin))).mean()
        assert self.fisher is not None
        ewc = sum(
            (f * (p - p0).square()).sum()
            for f, p, p0 in zip(self.fisher, self.params, self.theta0, strict=True)
        )
        self._apply(loss + c.fisher_alpha * ewc)

    def _sam(self, loss_at: Any, first: torch.Tensor) -> torch.Tensor | None:
        """A SAM step: ascend to ``theta + rho g / |g|``, take the gradient of ``loss_at()`` there, return,
        step Adam with it. Returns the second loss (None if the first selected nothing)."""
        if not first.requires_grad:
            return None
        g1 = torch.autograd.grad(first, self.params)
        norm = torch.sqrt(torch.stack([g.square().sum() for g in g1]).sum()) + 1e-12
        eps = [self.config.sam_rho * g / norm for g in g1]
        with torch.no_grad():
            for p, e in zip(self.params, eps, strict=True):
                p.add_(e)
        second = loss_at()
        g2 = (
            list(torch.autograd.grad(second, self.params))
            if second.requires_grad
            else [torch.zeros_like(p) for p in self.params]
        )
        with torch.no_grad():
            for p, e in zip(self.params, eps, strict=True):
                p.sub_(e)
        self._apply(second, g2)
        return second.detach()

    def _sar(self, x: torch.Tensor, logits: torch.Tensor) -> None:
        margin = self.config.sar_margin
        ent = entropy(logits)
        keep = ent < margin
        if not bool(keep.any()):
            return

        def second() -> torch.Tensor:
            e2 = entropy(self.model(x))[keep]
            sel = e2 < margin
            return e2[sel].mean() if bool(sel.any()) else e2.sum() * 0.0

        loss2 = self._sam(second, ent[keep].mean())
        if loss2 is None:
            return
        ema = self.extra.get("ema")
        ema = float(loss2) if ema is None else 0.9 * ema + 0.1 * float(loss2)
        self.extra["ema"] = ema
        if ema < self.config.sar_reset:  # model recovery: back to the source, EMA cleared
            self.load(self._source)

    def _sotta(self, x: torch.Tensor, logits: torch.Tensor) -> None:
        mem_x, mem_y = hus_insert(
            self.extra.get("mem_x"),
            self.extra.get("mem_y"),
            x.detach(),
            logits.detach().softmax(1),
            self.config,
        )
        self.extra["mem_x"], self.extra["mem_y"] = mem_x, mem_y
        if mem_x is None or len(mem_x) < 2:  # BN needs two samples
            return
        self._sam(lambda: entropy(self.model(mem_x)).mean(), entropy(self.model(mem_x)).mean())


def hus_insert(
    mem_x: torch.Tensor | None,
    mem_y: torch.Tensor | None,
    x: torch.Tensor,
    probs: torch.Tensor,
    config: TTAConfig,
) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """SoTTA's high-confidence uniform-class memory: admit samples with max p >= confidence in batch order;
    when full, evict the oldest sample of the most frequent class (rows are kept oldest first)."""
    conf, pred = probs.max(1)
    keep = torch.nonzero(conf >= config.confidence).flatten().tolist()
    xs = [] if mem_x is None else list(mem_x)
    ys = [] if mem_y is None else mem_y.tolist()
    for i in keep:  # sequential by definition (each eviction depends on the memory so far)
        if len(xs) >= config.memory:
            counts = torch.bincount(torch.tensor(ys), minlength=probs.shape[1])
            big = int(counts.argmax())
            j = ys.index(big)
            del xs[j], ys[j]
        xs.append(x[i])
        ys.append(int(pred[i]))
    if not xs:
        return None, None
    return torch.stack(xs), torch.tensor(ys, device=x.device)
