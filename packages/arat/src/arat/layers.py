"""Split BatchNorm (ARAT's answer to the mixture-distribution problem, Sec. 4 of the paper).

Clean and adversarial inputs have different activation statistics, so one shared BatchNorm estimates a
mixture that fits neither. ARAT keeps *two* BatchNorms per normalisation layer, each with its own running
statistics and affine parameters, and shares every other weight:

    f_adv(x)   = network with BN_adv  in every normalisation layer  (the model used at test time)
    f_clean(x) = network with BN_clean in every normalisation layer  (a training aid only)

Official code: ``models/cifar_resnet_split_bn.py`` (a ``ModuleDict`` of BatchNorms per layer and a
``bn_name`` switch). Here :func:`split_batchnorm` converts any model's ``BatchNorm2d`` layers, and
:func:`use_branch` switches every split layer of a model at once.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import torch
from paperkit.validation import check_choice, check_instance, check_strings
from torch import nn

__all__ = [
    "BRANCHES",
    "SplitBatchNorm2d",
    "branch_of",
    "check_branches",
    "has_split_bn",
    "set_branch",
    "split_batchnorm",
    "use_branch",
]

BRANCHES = ("adv", "clean")  # the main (test-time) branch first


class SplitBatchNorm2d(nn.Module):
    """One ``BatchNorm2d`` per branch; ``forward`` normalises with the active branch's only.

    ``x: (batch, channels, h, w)``. The branches share nothing: a forward in one branch (train mode)
    updates only that branch's running statistics, and its affine parameters are its own.
    """

    def __init__(self, bn: nn.BatchNorm2d, branches: Sequence[str] = BRANCHES) -> None:
        super().__init__()
        check_instance(bn, "bn", nn.BatchNorm2d)
        self.branches = check_branches(branches)
        self.bns = nn.ModuleDict({b: copy.deepcopy(bn) for b in self.branches})
        self.branch = self.branches[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.bns[self.branch](x)
        return out

    def extra_repr(self) -> str:
        return f"branches={self.branches}, active={self.branch!r}"


def check_branches(branches: object) -> tuple[str, ...]:
    """At least two distinct branch names (a bare string is refused: it would be read as its letters)."""
    names = tuple(check_strings(branches, "branches"))
    if len(names) < 2 or len(set(names)) != len(names) or not all(names):
        raise ValueError(f"branches must be at least two distinct non-empty names, got {names!r}")
    return names


def _replace_bns(module: nn.Module, branches: Sequence[str]) -> int:
    count = 0
    for name, child in module.named_children():
        if isinstance(child, nn.BatchNorm2d):
            setattr(module, name, SplitBatchNorm2d(child, branches))
            count += 1
        else:
            count += _replace_bns(child, branches)
    return count


def split_batchnorm(model: nn.Module, branches: Sequence[str] = BRANCHES) -> nn.Module:
    """A copy of ``model`` whose every ``BatchNorm2d`` is a :class:`SplitBatchNorm2d` (both branches start
    as copies of the original layer); all other parameters are shared by the branches.

    Raises ``ValueError`` for a model without ``BatchNorm2d`` (split BN would be a silent no-op).
    """
    model = check_instance(model, "model", nn.Module)
    branches = check_branches(branches)
    if any(isinstance(m, SplitBatchNorm2d) for m in model.modules()):
        raise ValueError("model already has split BatchNorm layers")
    out = copy.deepcopy(model)
    if _replace_bns(out, branches) == 0:
        raise ValueError(
            "split BatchNorm needs a model with BatchNorm2d layers; this model has none "
            "(ARAT's split BN would be a no-op)"
        )
    return out


def _splits(model: nn.Module) -> list[SplitBatchNorm2d]:
    check_instance(model, "model", nn.Module)
    return [m for m in model.modules() if isinstance(m, SplitBatchNorm2d)]


def has_split_bn(model: nn.Module) -> bool:
    """Whether ``model`` holds at least one :class:`SplitBatchNorm2d`."""
    return bool(_splits(model))


def set_branch(model: nn.Module, branch: str) -> None:
    """Make ``branch`` active in every split layer of ``model`` (a model without split BN: no-op, but
    ``branch`` must still be one of :data:`BRANCHES`, so that a typo does not pass silently)."""
    layers = _splits(model)
    if not isinstance(branch, str):
        raise TypeError(f"branch must be a str, got {type(branch).__name__}")
    if not layers:
        check_choice(branch, "branch", BRANCHES)
    for m in layers:
        m.branch = check_choice(branch, "branch", m.branches)


def branch_of(model: nn.Module) -> str | None:
    """The active branch of ``model`` (``None`` without split BN)."""
    layers = _splits(model)
    return layers[0].branch if layers else None


@contextmanager
def use_branch(model: nn.Module, branch: str) -> Iterator[nn.Module]:
    """Run ``model`` in ``branch`` inside the block, then restore the previous branch."""
    previous = branch_of(model)
    set_branch(model, branch)
    try:
        yield model
    finally:
        if previous is not None:
            set_branch(model, previous)
