"""Neuron-level unlearning (Chang et al. 2024 localisation methods): score every MLP neuron on the
memorised sequences, then zero the top ``ratio`` fraction per layer (official
``apply_ablation_mask_to_base_model``: the neuron's input-projection column and bias).

Scores are lists with one (inner_dim,) float tensor per layer; higher means "more responsible".
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import torch
from paperkit.lm.models import model_device
from transformers.pytorch_utils import Conv1D

from tinymem.models import mlp_layers
from tinymem.unlearn.common import check_ratio, check_rows, suffix_loss, warn_if_empty


@contextmanager
def _act_hooks(model: torch.nn.Module, fns: Sequence) -> Iterator[None]:
    """Forward hooks ``fns[i]`` on layer i's MLP activation for the duration of the block."""
    hooks = [layer.act.register_forward_hook(fn) for layer, fn in zip(mlp_layers(model), fns, strict=True)]
    try:
        yield
    finally:
        for h in hooks:
            h.remove()


@contextmanager
def _frozen(model: torch.nn.Module) -> Iterator[None]:
    """The model's parameters without gradients for the duration of the block (only the scores learn)."""
    req = [p.requires_grad for p in model.parameters()]
    for p in model.parameters():
        p.requires_grad_(False)
    try:
        yield
    finally:
        for p, r in zip(model.parameters(), req, strict=True):
            p.requires_grad_(r)


@torch.no_grad()
def ablate_neurons(model: torch.nn.Module, scores: Sequence[torch.Tensor], ratio: float) -> torch.nn.Module:
    """A copy of ``model`` with the top ``int(inner_dim·ratio)`` scored neurons of every layer zeroed.

    Zeroing sets the neuron's column of the input projection (``c_fc``) and its bias to 0, so its
    activation is act(0) = 0 for ReLU/GELU. Ties are broken by the lower index.
    """
    ratio = check_ratio(ratio)
    layers = mlp_layers(model)
    if len(scores) != len(layers):
        raise ValueError(f"got {len(scores)} score vectors for {len(layers)} MLP layers")
    out = copy.deepcopy(model)
    for layer, s in zip(mlp_layers(out), scores, strict=True):
        if s.shape != (layer.inner_dim,):
            raise ValueError(
                f"layer {layer.index}: scores of shape {tuple(s.shape)}, expected ({layer.inner_dim},)"
            )
        n = warn_if_empty(ratio, layer.inner_dim, "neurons")
        if n == 0:
            continue
        idx = torch.sort(torch.argsort(-s.float(), stable=True)[:n]).values.to(layer.fc.weight.device)
        if isinstance(layer.fc, Conv1D):
            layer.fc.weight[:, idx] = 0.0
        else:
            layer.fc.weight[idx, :] = 0.0
        if getattr(layer.fc, "bias", None) is not None:
            layer.fc.bias[idx] = 0.0
    return out


@torch.no_grad()
def zero_out_scores(
    model: torch.nn.Module, mem: torch.Tensor, prompt_len: int, window: int, *, chunk: int = 64
) -> list[torch.Tensor]:
    """Zero-Out: score = increase of the memorised-continuation loss when the neuron's activation is 0."""
    mem = check_rows(mem, "mem").to(model_device(model))
    model.eval()
    base = float(suffix_loss(model, mem, prompt_len, window))
    layers = mlp_layers(model)
    scores = []
    b = len(mem)
    for layer in layers:
        d = layer.inner_dim
        s = torch.zeros(d)
        for start in range(0, d, chunk):
            ids = torch.arange(start, min(d, start + chunk))
            mask = torch.ones(len(ids), d, device=mem.device)
            mask[torch.arange(len(ids)), ids] = 0.0
            mask = mask.repeat_interleave(b, dim=0)[:, None, :]  # (len*b, 1, d)

            def hook(
                _m: torch.nn.Module, _i: tuple, o: torch.Tensor, mask: torch.Tensor = mask
            ) -> torch.Tensor:
                return o * mask

            h = layer.act.register_forward_hook(hook)
            try:
                x = mem.repeat(len(ids), 1)
                logits = model(input_ids=x).logits[:, prompt_len - 1 : prompt_len + window - 1]
                tgt = x[:, prompt_len : prompt_len + window]
                ce = torch.nn.functional.cross_entropy(
                    logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), reduction="none"
                ).view(len(ids), -1)
            finally:
                h.remove()
            s[ids] = ce.mean(1).cpu() - base
        scores.append(s)
    return scores


@torch.no_grad()
def activation_scores(model: torch.nn.Module, mem: torch.Tensor, prompt_len: int) -> list[torch.Tensor]:
    """ACT: |mean activation over the memorised continuation positions|
    × ‖output-projection row‖ (official)."""
    mem = check_rows(mem, "mem").to(model_device(model))
    model.eval()
    acts: list[torch.Tensor] = []
    with _act_hooks(model, [lambda _m, _i, o: acts.append(o.detach())] * len(mlp_layers(model))):
        model(input_ids=mem)
    out = []
    for layer, a in zip(mlp_layers(model), acts, strict=True):
        w = layer.proj.weight
        norms = w.norm(dim=1) if isinstance(layer.proj, Conv1D) else w.norm(dim=0)
        out.append((a[:, prompt_len - 1 : -1].mean(dim=(0, 1)).abs() * norms).cpu())
    return out


def slimming_scores(
    model: torch.nn.Module,
    mem: torch.Tensor,
    prompt_len: int,
    window: int,
    *,
    lambda_l1: float = 1000.0,
    stop_loss: float = 0.1,
    lr: float = 1e-2,
    epochs: int = 200,
) -> list[torch.Tensor]:
    """Slimming: learn a coefficient c ∈ [0, 1] per neuron (init 1) minimising L_mem + λ·mean|c|.

    Official ``slim``: Adam (lr 1e-2), λ_L1 = 1000, stop once the L1 term is < ``stop_loss``; scores
    are the clamped coefficients (neurons that memorisation still needs keep a large c).
    """
    mem = check_rows(mem, "mem").to(model_device(model))
    model.eval()
    layers = mlp_layers(model)
    coefs = [torch.ones(layer.inner_dim, device=mem.device, requires_grad=True) for layer in layers]
    opt = torch.optim.Adam(coefs, lr=lr)
    with _frozen(model), _act_hooks(model, [(lambda _m, _i, o, c=c: o * c) for c in coefs]):
        for _ in range(epochs):
            l1 = torch.cat(coefs).abs().mean()
            loss = suffix_loss(model, mem, prompt_len, window) + lambda_l1 * l1
            opt.zero_grad()
            loss.backward()
            opt.step()
            if float(l1.detach()) < stop_loss:
                break
    return [c.detach().clamp(0.0, 1.0).cpu() for c in coefs]


def hard_concrete_scores(
    model: torch.nn.Module,
    mem: torch.Tensor,
    prompt_len: int,
    window: int,
    *,
    lambda_l0: float = 1000.0,
    stop_loss: float = 0.1,
    lr: float = 1e-2,
    epochs: int = 200,
    beta: float = 2.0 / 3.0,
    gamma: float = -0.1,
    zeta: float = 1.1,
    init: float = 3.0,
    seed: int = 0,
) -> list[torch.Tensor]:
    """Hard Concrete: a stochastic L0 gate per neuron (Louizos et al.), minimising L_mem + λ·E[L0]/N.

    Gate z = clamp(sigmoid((log u − log(1−u) + log α)/β)·(ζ−γ)+γ, 0, 1);
    E[L0] = Σ sigmoid(log α − β log(−γ/ζ)).
    Scores are the deterministic gates sigmoid(log α).
    """
    mem = check_rows(mem, "mem").to(model_device(model))
    model.eval()
    layers = mlp_layers(model)
    gen = torch.Generator().manual_seed(seed)
    log_alpha = [
        torch.full((layer.inner_dim,), init, device=mem.device, requires_grad=True) for layer in layers
    ]
    gates: list[torch.Tensor] = [torch.ones(1)] * len(layers)

    def make_hook(i: int) -> Callable[..., torch.Tensor]:
        return lambda _m, _i, o: o * gates[i]

    opt = torch.optim.Adam(log_alpha, lr=lr)
    shift = beta * torch.log(torch.tensor(-gamma / zeta))
    with _frozen(model), _act_hooks(model, [make_hook(i) for i in range(len(layers))]):
        for _ in range(epochs):
            for i, la in enumerate(log_alpha):
                u = torch.rand(la.shape, generator=gen).clamp(1e-6, 1 - 1e-6).to(la.device)
                s = torch.sigmoid((torch.log(u) - torch.log(1 - u) + la) / beta)
                gates[i] = (s * (zeta - gamma) + gamma).clamp(0.0, 1.0)
            l0 = torch.cat([torch.sigmoid(la - shift) for la in log_alpha]).mean()
            loss = suffix_loss(model, mem, prompt_len, window) + lambda_l0 * l0
            opt.zero_grad()
            loss.backward()
            opt.step()
            if float(l0.detach()) < stop_loss:
                break
    return [torch.sigmoid(la.detach()).cpu() for la in log_alpha]


def integrated_gradients_attributions(
    model: torch.nn.Module, mem: torch.Tensor, prompt_len: int, window: int, layer: int, *, steps: int = 20
) -> torch.Tensor:
    """(B, T, inner_dim) Riemann (right-point) IG of f = −L_suffix w.r.t. layer ``layer``'s MLP activations
    a, along α·a for α ∈ (0, 1]; completeness: the sum ≈ f(a) − f(0)."""
    layers = mlp_layers(model)
    with torch.no_grad():
        acts: list[torch.Tensor] = []
        h = layers[layer].act.register_forward_hook(lambda _m, _i, o: acts.append(o.detach()))
        model(input_ids=mem)
        h.remove()
    base = acts[0]
    total = torch.zeros_like(base)
    for k in range(1, steps + 1):
        scaled = (base * (k / steps)).requires_grad_(True)
        h = layers[layer].act.register_forward_hook(lambda _m, _i, _o, scaled=scaled: scaled)
        try:
            ll = -suffix_loss(model, mem, prompt_len, window)
            (g,) = torch.autograd.grad(ll, scaled)
        finally:
            h.remove()
        total += g
    return base * total / steps


def integrated_gradients_scores(
    model: torch.nn.Module, mem: torch.Tensor, prompt_len: int, window: int, *, steps: int = 20
) -> list[torch.Tensor]:
    """Integrated Gradients (20 steps) of the memorised continuation's log-likelihood w.r.t. each neuron's
    activation, from 0 to its value, summed over the positions predicting the continuation and averaged
    over sequences."""
    mem = check_rows(mem, "mem").to(model_device(model))
    model.eval()
    out = []
    with _frozen(model):
        for li in range(len(mlp_layers(model))):
            ig = integrated_gradients_attributions(model, mem, prompt_len, window, li, steps=steps)
            out.append(ig[:, prompt_len - 1 : prompt_len + window - 1].sum(1).mean(0).cpu())
    return out
