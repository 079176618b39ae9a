"""Multi-head attention as a hypernetwork, linear attention and HYLA (Schug et al., ICLR 2025).

Tokens ``x_1..x_T`` in R^d, ``H`` heads, per-head query/key width ``d_qk/H`` and value width ``d_v/H``.
Scores (official code, ``DotProductAttention``):

    s_{h,q,k} = <W^Q_h x_q + b^Q_h, W^K_h x_k + b^K_h> / sqrt(d_qk/H) + bias_{h,q,k}

Normalisation of the scores into the latent code ``a_{h,q,k}``:

- ``softmax``: a = softmax_k(s); masked entries get the dtype's minimum before the softmax.
- ``none`` (linear attention): a = s; masked entries are set to 0 (not -inf).
- ``rms_head`` (RMSHead): a = s / sqrt(mean_h s^2 + eps), eps = 1e-6, no learned scale, over the head axis.

Value networks generated from the latent code ``z_{q,k} = a_{:,q,k}`` (the hypernetwork reading):

- ``linear`` (standard MHA): y_q = sum_k W_{q,k} x_k (+ biases), W_{q,k} = sum_h a_{h,q,k} W^O_h W^V_h.
- ``relu_mlp`` (HYLA): y_q = sum_k sum_h a_{h,q,k} W^O_h relu(sum_h' a_{h',q,k} (W^V_h' x_k + b^V_h')) + b^O;
  both layers of the value network are generated from the same code; its hidden width is d_v/H.
- ``linear_mlp``: the same two-layer network without the ReLU (an ablation in the official sweeps).

HYLA = ``norm="rms_head", value_net="relu_mlp"`` (official ``linear_hypatt``). The projections carry biases
(Flax ``DenseGeneral`` default), so the generated networks are affine; the exactness identities below hold
with the biases included (:meth:`HyperAttention.value_network` returns them) and, with ``bias=False``,
reduce to the paper's ``sum_k W_{q,k} x_k``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import torch
from paperkit import check_bool, check_choice, check_instance, check_int, check_number
from torch import nn

from attention_hypernet._checks import check_device, check_dtype, check_tensor

__all__ = [
    "NORMS",
    "VALUE_NETS",
    "GeneratedNetwork",
    "HyperAttention",
    "apply_generated",
    "attention_kernel",
    "lecun_normal_",
    "mix_values",
    "normalise_scores",
    "relative_position_bucket",
    "rms_head",
]

NORMS = ("softmax", "none", "rms_head")
VALUE_NETS = ("linear", "relu_mlp", "linear_mlp")


def lecun_normal_(
    weight: torch.Tensor, fan_in: int, generator: torch.Generator | None = None
) -> torch.Tensor:
    """Flax's default kernel init: truncated normal (+-2 sd) with variance 1/fan_in, in place."""
    std = math.sqrt(1.0 / fan_in) / 0.87962566103423978  # the sd of a unit normal truncated at +-2
    with torch.no_grad():
        return nn.init.trunc_normal_(weight, 0.0, std, -2 * std, 2 * std, generator=generator)


def relative_position_bucket(
    relative_position: torch.Tensor, *, bidirectional: bool, num_buckets: int, max_distance: int
) -> torch.Tensor:
    """T5 bucket of ``relative_position = key_pos - query_pos`` (int tensor), as in the official code.

    Without ``bidirectional`` every future offset (key after query) falls in bucket 0. Distances below
    ``num_buckets // 2`` (per direction) map to themselves; larger ones are log-spaced up to
    ``max_distance`` and saturate at the last bucket.
    """
    check_tensor(relative_position, "relative_position", kind="iu")
    check_bool(bidirectional, "bidirectional")
    num_buckets = check_int(num_buckets, "num_buckets", low=4 if bidirectional else 2)
    exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    check_int(max_distance, "max_distance", low=exact + 1)  # log(max_distance / exact) must be > 0
    n = -relative_position
    ret = torch.zeros_like(n)
    if bidirectional:
        num_buckets //= 2
        ret = ret + (n < 0).to(n.dtype) * num_buckets
        n = n.abs()
    else:
        n = n.clamp(min=0)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    eps = torch.finfo(torch.float32).eps
    scaled = (
        torch.log(n.float() / max_exact + eps)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    )
    large = (max_exact + scaled.to(n.dtype)).clamp(max=num_buckets - 1)
    return ret + torch.where(is_small, n, large)


def rms_head(scores: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMSHead: ``scores (..., H, Q, K)`` divided by the root mean square over the head axis (-3)."""
    if check_tensor(scores, "scores").ndim < 3:
        raise ValueError(f"scores must have >= 3 dims (..., H, Q, K), got shape {tuple(scores.shape)}")
    return _rms_head(scores, check_number(eps, "eps", low=0.0, low_open=True))


def _rms_head(scores: torch.Tensor, eps: float) -> torch.Tensor:
    return scores * torch.rsqrt(scores.pow(2).mean(dim=-3, keepdim=True) + eps)


def normalise_scores(
    scores: torch.Tensor, norm: str, mask: torch.Tensor | None = None, eps: float = 1e-6
) -> torch.Tensor:
    """The latent code ``a (..., H, Q, K)`` from raw scores; ``mask`` (bool) marks the kept keys."""
    if check_tensor(scores, "scores").ndim < 3:
        raise ValueError(f"scores must have >= 3 dims (..., H, Q, K), got shape {tuple(scores.shape)}")
    norm = check_choice(norm, "norm", NORMS)
    if mask is not None:
        _check_mask(mask, scores)
    return _normalise_scores(scores, norm, mask, check_number(eps, "eps", low=0.0, low_open=True))


def _normalise_scores(scores: torch.Tensor, norm: str, mask: torch.Tensor | None, eps: float) -> torch.Tensor:
    if norm == "softmax":
        if mask is not None:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        return torch.softmax(scores, dim=-1)
    if mask is not None:
        scores = scores.masked_fill(~mask, 0.0)
    return _rms_head(scores, eps) if norm == "rms_head" else scores


def _check_mask(mask: object, scores: torch.Tensor) -> None:
    check_tensor(mask, "mask", kind="b")
    assert isinstance(mask, torch.Tensor)
    try:
        torch.broadcast_shapes(mask.shape, scores.shape)
    except RuntimeError as e:
        raise ValueError(
            f"mask must broadcast to the scores' shape {tuple(scores.shape)}, got {tuple(mask.shape)}"
        ) from e
    if mask.device != scores.device:
        raise ValueError(f"mask must be on the scores' device {scores.device}, got {mask.device}")


def mix_values(a: torch.Tensor, v: torch.Tensor, value_net: str) -> torch.Tensor:
    """``a (B, H, Q, K)``, ``v (B, K, H, dv)`` -> ``(B, Q, H, dv)``, before the output projection.

    ``linear`` is the standard aggregation; the MLP variants first mix the heads into the hidden layer of
    a per-(q, k) network (``hqk,khd->qkd``), then scatter it back to the heads with the same code.
    """
    value_net = check_choice(value_net, "value_net", VALUE_NETS)
    B, H, _Q, K = check_tensor(a, "a", ndim=4).shape
    check_tensor(v, "v", shape=(B, K, H, None))
    return _mix_values(a, v, value_net)


def _mix_values(a: torch.Tensor, v: torch.Tensor, value_net: str) -> torch.Tensor:
    if value_net == "linear":
        return torch.einsum("bhqk,bkhd->bqhd", a, v)
    hidden = torch.einsum("bhqk,bkhd->bqkd", a, v)
    if value_net == "relu_mlp":
        hidden = torch.relu(hidden)
    return torch.einsum("bhqk,bqkd->bqhd", a, hidden)


def attention_kernel(
    scores: torch.Tensor, v: torch.Tensor, *, norm: str, value_net: str, eps: float = 1e-6
) -> tuple[torch.Tensor, torch.Tensor]:
    """Unchecked kernel (callers validate): raw ``scores (N, H, Q, K)`` (bias added, no mask) and
    ``v (N, K, H, dv)`` -> ``(mixed (N, Q, H, dv), a (N, H, Q, K))``, the step of ``HyperAttention.forward``
    between its projections; the stacked trainer runs it on many models' scores at once."""
    a = _normalise_scores(scores, norm, None, eps)
    return _mix_values(a, v, value_net), a


@dataclass(frozen=True)
class GeneratedNetwork:
    """The value network generated for every (q, k) pair: ``y_q = sum_k w2 act(w1 x_k + b1) + b2``.

    Shapes: ``w1 (B, Q, K, m, d)``, ``b1 (B, Q, K, m)``, ``w2 (B, Q, K, d_out, m)``, ``b2 (d_out,)``; ``m`` is
    the hidden width (``d_v/H`` for the MLP value nets; ``d_v`` for ``linear``, whose first layer is the
    shared value projection and whose second is generated). ``act`` is ``"relu"`` or ``"identity"``.
    """

    w1: torch.Tensor
    b1: torch.Tensor
    w2: torch.Tensor
    b2: torch.Tensor
    act: str

    def __post_init__(self) -> None:
        check_choice(self.act, "act", ("relu", "identity"))
        for name in ("w1", "b1", "w2", "b2"):
            check_tensor(getattr(self, name), name, finite=False)
        if (
            self.w1.ndim != 5
            or self.w2.shape[:3] != self.w1.shape[:3]
            or self.w2.shape[-1] != self.w1.shape[3]
        ):
            raise ValueError(
                f"w1 (B, Q, K, m, d) and w2 (B, Q, K, d_out, m) do not match, got shapes "
                f"{tuple(self.w1.shape)} and {tuple(self.w2.shape)}"
            )


def apply_generated(net: GeneratedNetwork, x: torch.Tensor) -> torch.Tensor:
    """Run the generated networks on the keys' tokens ``x (B, K, d)`` -> ``(B, Q, d_out)``."""
    check_instance(net, "net", GeneratedNetwork)
    B, _, K, _, d = net.w1.shape
    check_tensor(x, "x", shape=(B, K, d))
    h = torch.einsum("bqkmd,bkd->bqkm", net.w1, x) + net.b1
    if net.act == "relu":
        h = torch.relu(h)
    return torch.einsum("bqkom,bqkm->bqo", net.w2, h) + net.b2


class HyperAttention(nn.Module):
    """Multi-head (self-)attention with a choice of score normalisation and generated value network.

    Args:
        d_model: token width d (input and output).
        n_heads: H; must divide ``d_qk`` and ``d_v``.
        d_qk, d_v: total query/key and value widths (per head: ``d_qk/H``, ``d_v/H``).
        norm: ``"softmax"``, ``"none"`` or ``"rms_head"``.
        value_net: ``"linear"``, ``"relu_mlp"`` or ``"linear_mlp"``.
        bias: biases on the four projections (Flax default: True).
        eps: RMSHead's epsilon (Flax RMSNorm default 1e-6).
        generator, device, dtype: initialisation (Flax defaults: LeCun normal kernels, zero biases).
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_qk: int,
        d_v: int,
        *,
        norm: str = "softmax",
        value_net: str = "linear",
        bias: bool = True,
        eps: float = 1e-6,
        generator: torch.Generator | None = None,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        self.d_model = check_int(d_model, "d_model", low=1)
        self.n_heads = check_int(n_heads, "n_heads", low=1)
        for name, width in (("d_qk", d_qk), ("d_v", d_v)):
            if check_int(width, name, low=1) % self.n_heads:
                raise ValueError(
                    f"{name} must be divisible by n_heads = {self.n_heads}, got {name} = {width}"
                )
        self.norm = check_choice(norm, "norm", NORMS)
        self.value_net = check_choice(value_net, "value_net", VALUE_NETS)
        self.eps = check_number(eps, "eps", low=0.0, low_open=True)
        check_bool(bias, "bias")
        device, dtype = check_device(device), check_dtype(dtype)
        if generator is not None:
            check_instance(generator, "generator", torch.Generator)
        if self.n_heads == 1 and self.norm == "rms_head":
            warnings.warn("rms_head with n_heads = 1 reduces every score to its sign (+-1)", stacklevel=2)
        self.d_qk, self.d_v = d_qk, d_v

        def lin(n_in: int, n_out: int) -> nn.Linear:
            return nn.Linear(n_in, n_out, bias=bias, device=device, dtype=dtype)

        self.query, self.key, self.value, self.out = (
            lin(d_model, d_qk),
            lin(d_model, d_qk),
            lin(d_model, d_v),
            lin(d_v, d_model),
        )
        for lin in (self.query, self.key, self.value, self.out):
            lecun_normal_(lin.weight, lin.in_features, generator)
            if lin.bias is not None:
                nn.init.zeros_(lin.bias)

    def _heads(self, t: torch.Tensor) -> torch.Tensor:
        return t.reshape(*t.shape[:-1], self.n_heads, t.shape[-1] // self.n_heads)

    def _check(self, x: torch.Tensor, mask: torch.Tensor | None, bias: torch.Tensor | None) -> None:
        check_tensor(x, "x", shape=("B", "T", self.d_model))
        w = self.query.weight
        if x.dtype != w.dtype or x.device != w.device:
            raise TypeError(f"x must be {w.dtype} on {w.device} like the layer, got {x.dtype} on {x.device}")
        B, T = x.shape[:2]
        if B == 0 or T == 0:
            raise ValueError(f"x must have at least one sequence and one token, got shape {tuple(x.shape)}")
        for name, t in (("mask", mask), ("bias", bias)):
            if t is not None:
                check_tensor(t, name, kind="b" if name == "mask" else "f")
                if t.device != x.device:
                    raise ValueError(f"{name} must be on x's device {x.device}, got {t.device}")
        want = (B, self.n_heads, T, T)
        for name, t in (("mask", mask), ("bias", bias)):
            if t is None:
                continue
            ok = t.ndim == 4 and all(s in (1, w) for s, w in zip(t.shape, want, strict=True))
            if not ok:
                raise ValueError(f"{name} must broadcast to (batch, H, T, T) = {want}, got {tuple(t.shape)}")
        if mask is not None and mask.dtype != torch.bool:
            raise TypeError(f"mask must be a bool tensor (True = attend), got dtype {mask.dtype}")

    def scores(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, bias: torch.Tensor | None = None
    ) -> torch.Tensor:
        """The latent code ``a (B, H, Q, K)`` for ``x (B, T, d)``; ``bias`` is added to the raw scores."""
        self._check(x, mask, bias)
        q, k = self._heads(self.query(x)), self._heads(self.key(x))
        s = torch.einsum("bqhd,bkhd->bhqk", q / math.sqrt(q.shape[-1]), k)
        if bias is not None:
            s = s + bias
        return _normalise_scores(s, self.norm, mask, self.eps)

    def forward(
        self,
        x: torch.Tensor,
        mask: torch.Tensor | None = None,
        bias: torch.Tensor | None = None,
        return_scores: bool = False,
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """``x (B, T, d)`` -> ``y (B, T, d)`` (and the latent code ``(B, H, T, T)`` if ``return_scores``)."""
        check_bool(return_scores, "return_scores")
        a = self.scores(x, mask, bias)
        y = self.out(_mix_values(a, self._heads(self.value(x)), self.value_net).flatten(-2))
        return (y, a) if return_scores else y

    def value_network(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, bias: torch.Tensor | None = None
    ) -> GeneratedNetwork:
        """The per-(q, k) value networks that the hypernetwork generates from the latent code (analysis)."""
        a = self.scores(x, mask, bias)  # (B, H, Q, K)
        H, dv = self.n_heads, self.d_v // self.n_heads
        wv = self.value.weight.reshape(H, dv, self.d_model)
        bv = self.value.bias.reshape(H, dv) if self.value.bias is not None else wv.new_zeros(H, dv)
        wo = self.out.weight.reshape(self.d_model, H, dv)
        bo = self.out.bias if self.out.bias is not None else wo.new_zeros(self.d_model)
        if self.value_net == "linear":
            B, _, Q, K = a.shape
            w1 = self.value.weight.expand(B, Q, K, H * dv, self.d_model)
            b1 = bv.reshape(H * dv).expand(B, Q, K, H * dv)
            w2 = torch.einsum("bhqk,ohd->bqkohd", a, wo).flatten(-2)
            return GeneratedNetwork(w1, b1, w2, bo, "identity")
        w1 = torch.einsum("bhqk,hdi->bqkdi", a, wv)
        b1 = torch.einsum("bhqk,hd->bqkd", a, bv)
        w2 = torch.einsum("bhqk,ohd->bqkod", a, wo)
        return GeneratedNetwork(w1, b1, w2, bo, "relu" if self.value_net == "relu_mlp" else "identity")

    def hypernetwork_weights(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, bias: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``W (B, Q, K, d, d)`` with ``y_q = sum_k W_{q,k} x_k`` plus the biases' terms (linear value nets).

        For ``linear`` this is ``sum_h a_{h,q,k} W^O_h W^V_h``; for ``linear_mlp`` it is
        ``(sum_h a W^O_h)(sum_h' a W^V_h')``. A ReLU value network has no single matrix (ValueError).
        """
        if self.value_net == "relu_mlp":
            raise ValueError("value_net='relu_mlp' generates a nonlinear network: use value_network()")
        net = self.value_network(x, mask, bias)
        return net.w2 @ net.w1
