"""Layer features by forward hooks, and the clip sampling of the official mmaction2 pipeline.

:func:`extract` registers a forward hook on each requested submodule, runs the model without gradients on
batches of clips, and returns one ``(S, F)`` float32 matrix per layer (flattened outputs). A layer whose
output is a tuple or list (two-pathway models) is split into ``<layer>_0``, ``<layer>_1``, ... . With
``mode="frames"`` the model sees frames (``per_frame`` models such as
:class:`~video_brain_rsa.models.FrameCNN` reshape a clip into ``B T`` images) and each layer's output
is averaged over the T frames.

:func:`sample_clips` follows mmaction2's test ``SampleFrames``: ``num_clips = ceil(T / (clip_len
interval))`` clips of ``clip_len`` frames ``interval`` apart, evenly spread, and frames past the end repeat
the last one (``repeat_last``). Features of the clips are combined by a plain mean (default) or by the
official extractor's running pairwise mean (``m <- (m + f_k) / 2``, later clips weigh more).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from paperkit import check_array, check_choice, check_int, check_strings
from torch import nn

from video_brain_rsa.models import checked_device

__all__ = ["AGGREGATIONS", "extract", "sample_clips"]

AGGREGATIONS = ("mean", "running")


def sample_clips(video: np.ndarray, clip_len: int, interval: int = 1) -> np.ndarray:
    """``(n, num_clips, clip_len, ...)`` clips of ``video`` ``(n, T, ...)`` (module docstring)."""
    v = np.asarray(check_array(video, "video"))
    if v.ndim < 2 or v.shape[1] == 0:
        raise ValueError(f"video must be an array of shape (n, T, ...) with T >= 1, got shape {v.shape}")
    clip_len = check_int(clip_len, "clip_len", low=1)
    interval = check_int(interval, "interval", low=1)
    t = v.shape[1]
    span = clip_len * interval
    k = max(1, math.ceil(t / span))
    starts = np.linspace(0, max(t - span, 0), k).round().astype(int) if k > 1 else np.array([0])
    idx = np.minimum(starts[:, None] + interval * np.arange(clip_len)[None, :], t - 1)  # repeat_last
    return v[:, idx]


def _flatten(name: str, out: object, store: dict[str, list[torch.Tensor]]) -> None:
    if isinstance(out, tuple | list):
        for i, o in enumerate(out):
            _flatten(f"{name}_{i}", o, store)
        return
    if not isinstance(out, torch.Tensor):
        raise TypeError(
            f"layer {name!r} returned {type(out).__name__}, expected a tensor or a tuple of tensors"
        )
    store.setdefault(name, []).append(out.detach().reshape(out.shape[0], -1).float().cpu())


def _run(model: nn.Module, x: torch.Tensor, layers: list[str], batch_size: int) -> dict[str, torch.Tensor]:
    modules = dict(model.named_modules())
    missing = [name for name in layers if name not in modules]
    if missing:
        raise ValueError(f"layers {missing} are not submodules of the model; it has {list(modules)[1:12]}...")
    store: dict[str, list[torch.Tensor]] = {}
    handles = [
        modules[name].register_forward_hook(lambda _m, _i, out, name=name: _flatten(name, out, store))
        for name in layers
    ]
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            for a in range(0, x.shape[0], batch_size):
                model(x[a : a + batch_size])
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    return {k: torch.cat(v) for k, v in store.items()}


def extract(
    model: nn.Module,
    clips: np.ndarray | torch.Tensor,
    layers: list[str] | tuple[str, ...],
    *,
    mode: str = "video",
    clip_len: int | None = None,
    interval: int = 1,
    aggregate: str = "mean",
    batch_size: int = 64,
    device: str = "cpu",
) -> dict[str, np.ndarray]:
    """``{layer: (S, F) float32}`` features of ``clips`` ``(S, T, C, H, W)`` at the named submodules."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    names = check_strings(list(layers) if isinstance(layers, tuple) else layers, "layers")
    if not names:
        raise ValueError("layers must name at least one submodule")
    mode = check_choice(mode, "mode", ("video", "frames"))
    aggregate = check_choice(aggregate, "aggregate", AGGREGATIONS)
    check_array(clips, "clips")
    v = clips.detach().cpu().numpy() if isinstance(clips, torch.Tensor) else np.asarray(clips)
    if v.ndim != 5:
        raise ValueError(f"clips must be an array of shape (S, T, C, H, W), got shape {v.shape}")
    sub = sample_clips(v, clip_len, interval) if clip_len is not None else v[:, None]
    s, k, t = sub.shape[:3]
    dev = checked_device(device)
    x = torch.as_tensor(sub.reshape(s * k, *sub.shape[2:]), dtype=torch.float32, device=dev)
    feats = _run(model, x, names, check_int(batch_size, "batch_size", low=1))
    out = {}
    for name, f in feats.items():
        if mode == "frames" and f.shape[0] == s * k * t:  # per-frame outputs: average over the frames
            f = f.reshape(s * k, t, -1).mean(dim=1)
        f = f.reshape(s, k, -1)
        if aggregate == "mean" or k == 1:
            agg = f.mean(dim=1)
        else:
            agg = f[:, 0]
            for j in range(1, k):
                agg = (agg + f[:, j]) / 2
        out[name] = agg.numpy().astype(np.float32)
    return out
