"""Accordion networks (AccNets), shallow networks and deep MLPs, with the bound's complexity proxies.

An AccNet is a composition f = f_L o ... o f_1 of shallow networks (paper Sec. 2; official ``Net`` with
widths ``[d_in, wide, narrow, wide, ..., wide, d_out]``):

    f_l(z) = W_l sigma(V_l z + b_l) + c_l,   V_l: (w_l, d_{l-1}),  W_l: (d_l, w_l),  sigma = ReLU,

with, as in the official code, a ReLU also on the narrow outputs of blocks 1..L-1 (every layer but the
last) and a bias on every Linear. A shallow net is the AccNet with L = 1; a deep MLP ``[d_in, w, ..., w,
d_out]`` is read as an AccNet whose blocks are consecutive pairs of layers.

Complexity proxies (spec "best reading" of Theorem 1; biases omitted as in the code):

    R_l   = 1/2 (||V_l||_F^2 + ||W_l||_F^2)       F1-norm proxy of block l (tight after ``rebalance``)
    rho_l = ||V_l||_op ||W_l||_op                  Lipschitz proxy of block l (official ``Lip_OP``)
    C     = b prod_l rho_l sum_l (R_l / rho_l) sqrt(d_{l-1} + d_l) / sqrt(N),   b = max_i ||x_i||

where d_l are the representation widths (official ``complexity1`` with ``ranks`` replaced by the layer
widths; the official code also logs numerical ranks). ``rebalance`` applies the ReLU rescaling
(V_i, b_i) -> a_i (V_i, b_i), W[:, i] -> W[:, i] / a_i with a_i = sqrt(||W[:, i]|| / ||(V_i, b_i)||),
which leaves f unchanged and minimises 1/2 (||W||^2 + ||V||^2 + ||b||^2) to sum_i ||W[:, i]|| ||(V_i, b_i)||.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from paperkit import check_array, check_bool, check_instance, check_int
from torch import nn

__all__ = ["MLP", "AccNet", "DeepMLP", "ShallowNet", "check_device"]


def check_device(device: object, name: str = "device") -> torch.device:
    """A CPU or CUDA ``torch.device`` (from a string or a device); CUDA only when a GPU is visible."""
    if isinstance(device, str):
        try:
            dev = torch.device(device)
        except RuntimeError as e:
            raise ValueError(f"{name} must be a torch device such as 'cpu' or 'cuda', got {device!r}") from e
    elif isinstance(device, torch.device):
        dev = device
    else:
        raise TypeError(f"{name} must be a str or torch.device, got {type(device).__name__}")
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"{name} must be a CPU or CUDA device, got {device!r}")
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"{name} {device!r} needs a CUDA GPU, and none is visible")
    if dev.type == "cuda" and dev.index is not None and dev.index >= torch.cuda.device_count():
        raise ValueError(f"{name} {device!r} names a GPU that is absent ({torch.cuda.device_count()} seen)")
    return dev


class MLP(nn.Module):
    """``widths = [d_0, ..., d_K]``: K Linear layers with biases, ReLU after every layer but the last
    (official ``Net``). Default PyTorch initialisation from ``generator`` (official: default init)."""

    def __init__(
        self,
        widths: list[int],
        *,
        generator: torch.Generator | None = None,
        device: str | torch.device = "cpu",
    ) -> None:
        super().__init__()
        if isinstance(widths, (str, bytes)) or not isinstance(widths, Sequence):
            raise TypeError(f"widths must be a sequence of integers, got {type(widths).__name__}")
        if len(widths) < 2:
            raise ValueError(f"widths must list at least an input and an output size, got {widths}")
        self.widths = [check_int(w, f"widths[{i}]", low=1) for i, w in enumerate(widths)]
        device = check_device(device)
        if generator is not None:
            check_instance(generator, "generator", torch.Generator)
            if generator.device.type != device.type:
                raise ValueError(f"generator is on {generator.device}, the model on {device}")
        self.linears: list[nn.Linear] = nn.ModuleList(  # type: ignore[assignment]
            nn.Linear(a, b, device=device) for a, b in zip(self.widths[:-1], self.widths[1:], strict=True)
        )
        if generator is not None:
            with torch.no_grad():
                for lin in self.linears:  # PyTorch's default init, drawn from the explicit generator
                    bound = 1.0 / math.sqrt(lin.in_features)
                    lin.weight.uniform_(-bound, bound, generator=generator)
                    lin.bias.uniform_(-bound, bound, generator=generator)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x: (batch, d_0)`` -> ``(batch, d_K)``."""
        for lin in self.linears[:-1]:
            x = torch.relu(lin(x))
        return self.linears[-1](x)

    def blocks(self) -> list[tuple[nn.Linear, nn.Linear]]:
        """The shallow pieces (V_l, W_l): consecutive pairs of layers."""
        if len(self.linears) % 2:
            raise ValueError(
                f"the complexity proxies need an even number of layers (blocks), got {len(self.linears)}"
            )
        return [(self.linears[i], self.linears[i + 1]) for i in range(0, len(self.linears), 2)]

    def f1_norm_proxy(self, *, include_bias: bool = False) -> torch.Tensor:
        """``(L,)`` R_l = 1/2 (||V_l||_F^2 + ||W_l||_F^2) (+ ||b_l||^2 with ``include_bias``)."""
        include_bias = check_bool(include_bias, "include_bias")
        out = []
        for V, W in self.blocks():
            r = V.weight.square().sum() + W.weight.square().sum()
            out.append(0.5 * (r + (V.bias.square().sum() if include_bias else 0.0)))
        return torch.stack(out).detach()

    def lipschitz_proxy(self) -> torch.Tensor:
        """``(L,)`` rho_l = ||V_l||_op ||W_l||_op."""
        return torch.stack([
            torch.linalg.matrix_norm(V.weight, ord=2) * torch.linalg.matrix_norm(W.weight, ord=2)
            for V, W in self.blocks()
        ]).detach()  # fmt: skip

    def representation_dims(self) -> list[int]:
        """d_0, ..., d_L: the widths between blocks."""
        return self.widths[::2]

    def complexity(self, X_train: torch.Tensor) -> float:
        """The bound's numerator over sqrt(N) (official ``complexities`` with rho = 1, b = max ||x_i||)."""
        X_train = check_array(X_train, "X_train", shape=(None, self.widths[0]), kind="fiu")
        if X_train.shape[0] == 0:
            raise ValueError("X_train must have at least one row, got 0")
        X = torch.as_tensor(X_train, dtype=torch.float32)
        R, rho = self.f1_norm_proxy(), self.lipschitz_proxy()
        d = torch.tensor(self.representation_dims(), dtype=R.dtype, device=R.device)
        s = ((R / rho) * torch.sqrt(d[:-1] + d[1:])).sum()
        b = torch.linalg.vector_norm(X, dim=1).max().to(R.device)
        return float(b * rho.prod() * s / math.sqrt(len(X)))

    @torch.no_grad()
    def rebalance(self) -> MLP:
        """Rescale each block's hidden units in place so that ||W[:, i]|| = ||(V_i, b_i)|| (f unchanged)."""
        for V, W in self.blocks():
            vb = torch.sqrt(V.weight.square().sum(1) + V.bias.square())
            w = torch.linalg.vector_norm(W.weight, dim=0)
            live = (vb > 0) & (w > 0)
            a = torch.where(live, torch.sqrt(w / torch.where(live, vb, 1.0)), torch.ones_like(w))
            V.weight.mul_(a[:, None])
            V.bias.mul_(a)
            W.weight.div_(a[None, :])
        return self


def AccNet(
    d_in: int,
    d_out: int,
    *,
    wide: int,
    narrow: int,
    n_blocks: int,
    generator: torch.Generator | None = None,
    device: str | torch.device = "cpu",
) -> MLP:
    """``[d_in, wide, narrow, wide, ..., narrow, wide, d_out]`` with ``n_blocks`` accordion blocks
    (official: wide 900, narrow 100, 5 blocks; ``n_blocks = 1`` is a shallow net)."""
    d_in, d_out = check_int(d_in, "d_in", low=1), check_int(d_out, "d_out", low=1)
    wide, narrow = check_int(wide, "wide", low=1), check_int(narrow, "narrow", low=1)
    n_blocks = check_int(n_blocks, "n_blocks", low=1)
    widths = [d_in] + [wide, narrow] * (n_blocks - 1) + [wide, d_out]
    return MLP(widths, generator=generator, device=device)


def ShallowNet(
    d_in: int,
    d_out: int,
    *,
    width: int,
    generator: torch.Generator | None = None,
    device: str | torch.device = "cpu",
) -> MLP:
    """``[d_in, width, d_out]``: one hidden ReLU layer (official: width 50 000)."""
    d_in, d_out = check_int(d_in, "d_in", low=1), check_int(d_out, "d_out", low=1)
    width = check_int(width, "width", low=1)
    return MLP([d_in, width, d_out], generator=generator, device=device)


def DeepMLP(
    d_in: int,
    d_out: int,
    *,
    width: int,
    depth: int,
    generator: torch.Generator | None = None,
    device: str | torch.device = "cpu",
) -> MLP:
    """``[d_in] + [width] * depth + [d_out]`` (official: 12 hidden layers of width 500)."""
    d_in, d_out = check_int(d_in, "d_in", low=1), check_int(d_out, "d_out", low=1)
    width, depth = check_int(width, "width", low=1), check_int(depth, "depth", low=1)
    return MLP([d_in] + [width] * depth + [d_out], generator=generator, device=device)
