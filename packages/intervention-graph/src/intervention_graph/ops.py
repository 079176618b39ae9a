"""The single allow-list of operations an intervention graph may apply (shared by tracer, client and server).

Every ``apply`` node names one entry of :data:`ALLOWED_OPS`; nothing else runs. The entries are plain
tensor arithmetic, indexing, reductions and shape changes: none reads files, imports, allocates without
bound from a client number alone, or calls back into Python code named by the client. ``setitem``
(an in-place write, the recorded form of ``proxy[idx] = value``) and ``call_module`` (run one of the
hosted model's own submodules, e.g. ``ln_f`` and ``lm_head`` for a logit lens) are executed by the
executor itself, because they need the live model; so are the three gradient ops (``backward``, ``grad``,
``set_grad``), which hook the autograd pass of a traced scalar.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import torch

__all__ = ["ALLOWED_OPS", "EXECUTOR_OPS", "GRAD_OPS", "TORCH_FUNCTIONS", "VIEW_OPS", "is_allowed"]


def _to(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    # dtype casts only: moving to another device is the executor's business, never a client's.
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"'to' takes a dtype, got {type(dtype).__name__}")
    return x.to(dtype)


ALLOWED_OPS: dict[str, Callable[..., Any]] = {
    # Python operators (Proxy dunders)
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "neg": operator.neg,
    "pow": operator.pow,
    "matmul": operator.matmul,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "getitem": operator.getitem,
    # tensor methods and torch functions of the same name
    "clone": torch.clone,
    "detach": torch.Tensor.detach,
    "abs": torch.abs,
    "exp": torch.exp,
    "log": torch.log,
    "tanh": torch.tanh,
    "relu": torch.relu,
    "sum": torch.sum,
    "mean": torch.mean,
    "norm": torch.norm,
    "argmax": torch.argmax,
    "amax": torch.amax,
    "softmax": torch.softmax,
    "log_softmax": torch.log_softmax,
    "cat": torch.cat,
    "stack": torch.stack,
    "zeros_like": torch.zeros_like,
    "ones_like": torch.ones_like,
    "where": torch.where,
    "gather": torch.gather,
    "transpose": torch.transpose,
    "reshape": torch.reshape,
    "view": torch.Tensor.view,
    "unsqueeze": torch.unsqueeze,
    "squeeze": torch.squeeze,
    "flatten": torch.flatten,
    "float": torch.Tensor.float,
    "to": _to,
}

#: Run by the executor (they need the live model, write into a live tensor, or drive the backward pass):
#: ``backward(loss)`` runs autograd from a scalar traced value; ``grad(target, backward)`` is the gradient
#: reaching ``target`` in that backward; ``set_grad(target, backward, value)`` replaces it (the edit is
#: what flows on to earlier tensors).
#: ``stop()`` ends the forward where it is reached (the early exit: later modules never run).
EXECUTOR_OPS = frozenset({"setitem", "call_module", "backward", "grad", "set_grad", "stop"})

#: The ops that only make sense inside a backward pass (the wire format caps how many backwards a job has).
GRAD_OPS = frozenset({"backward", "grad", "set_grad"})

#: Ops whose result shares storage with their first argument: an in-place write through them edits the
#: value they came from, so the executor traces them back to the module output they view.
VIEW_OPS = frozenset({"getitem", "view", "reshape", "transpose", "unsqueeze", "squeeze", "flatten", "detach"})

#: ``torch.<name>`` functions a Proxy accepts through ``__torch_function__`` (by the function's name).
TORCH_FUNCTIONS = frozenset(
    name for name in ALLOWED_OPS if callable(getattr(torch, name, None)) and name not in {"float"}
) | {"add", "sub", "mul", "matmul", "pow"}


def is_allowed(op: object) -> bool:
    """True for the names of :data:`ALLOWED_OPS` and :data:`EXECUTOR_OPS`."""
    return isinstance(op, str) and (op in ALLOWED_OPS or op in EXECUTOR_OPS)
