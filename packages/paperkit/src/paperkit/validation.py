"""Argument checks for public entry points, with one message style.

Every check names the argument and says what was expected, then what it got::

    n_steps must be an integer >= 1, got 0
    lr must be a finite number > 0, got -0.1
    R must be a symmetric positive definite matrix, got smallest eigenvalue -1
    x must be a float array of shape (n, 3), got shape (5, 2)

A value of the wrong *type* raises ``TypeError`` (the message adds the type's name); a value of the right
type outside its range raises ``ValueError``. ``bool`` is never accepted as a number: ``True`` is an
``int`` to Python, but a caller who passes it where a count is expected has made a mistake. Each check
returns the value (converted to a plain ``int``/``float`` for scalars) so that it can be used inline::

    n_steps = check_int(n_steps, "n_steps", low=1)

Arrays may be numpy arrays or torch tensors; torch is never imported here (a tensor is recognised only
when torch is already loaded), so the checks cost nothing to packages without torch.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Collection, Sequence
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "SEED_MAX",
    "check_array",
    "check_bool",
    "check_choice",
    "check_finite",
    "check_instance",
    "check_int",
    "check_matrix_pd",
    "check_number",
    "check_positive",
    "check_probability",
    "check_seed",
    "check_strings",
]

#: The largest seed every run-time accepts: numpy's ``SeedSequence`` takes any non-negative integer,
#: torch's ``manual_seed`` up to 2**64 - 1, and seeds stored in int64 arrays up to 2**63 - 1.
SEED_MAX = 2**63 - 1

T = TypeVar("T")


def _got(value: object, *, with_type: bool = False) -> str:
    """``got <repr>`` (shortened), with the type's name when the type is what is wrong."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"got {text} ({type(value).__name__})" if with_type else f"got {text}"


def _range_text(low: float | None, high: float | None, *, low_open: bool, high_open: bool) -> str:
    """`` >= 1``, `` in (0, 1]``, `` <= 5`` or the empty string when unbounded."""
    if low is not None and high is not None:
        return f" in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
    if low is not None:
        return f" {'>' if low_open else '>='} {low}"
    if high is not None:
        return f" {'<' if high_open else '<='} {high}"
    return ""


def _in_range(x: float, low: float | None, high: float | None, *, low_open: bool, high_open: bool) -> bool:
    if low is not None and (x <= low if low_open else x < low):
        return False
    return not (high is not None and (x >= high if high_open else x > high))


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def check_int(value: object, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` in ``[low, high]`` (either bound optional); numpy integers are accepted.

    >>> check_int(0, "n_steps", low=1)
    Traceback (most recent call last):
    ValueError: n_steps must be an integer >= 1, got 0
    """
    expected = "an integer" + _range_text(low, high, low_open=False, high_open=False)
    if not _is_int(value):
        raise TypeError(f"{name} must be {expected}, {_got(value, with_type=True)}")
    out = int(value)  # type: ignore[call-overload]
    if not _in_range(out, low, high, low_open=False, high_open=False):
        raise ValueError(f"{name} must be {expected}, {_got(value)}")
    return out


def check_number(
    value: object,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
) -> float:
    """``value`` as a ``float`` in the interval from ``low`` to ``high`` (closed unless ``*_open``).

    Ints, floats and numpy scalars are accepted (never bool). ``finite=True`` refuses NaN and +-inf;
    with ``finite=False`` NaN is still refused (it is in no interval) but an infinite bound value passes.
    """
    kind = "a finite number" if finite else "a number"
    expected = kind + _range_text(low, high, low_open=low_open, high_open=high_open)
    if not _is_real(value):
        raise TypeError(f"{name} must be {expected}, {_got(value, with_type=True)}")
    out = float(value)  # type: ignore[arg-type]
    if math.isnan(out) or (finite and math.isinf(out)):
        raise ValueError(f"{name} must be {expected}, {_got(value)}")
    if not _in_range(out, low, high, low_open=low_open, high_open=high_open):
        raise ValueError(f"{name} must be {expected}, {_got(value)}")
    return out


def check_positive(value: object, name: str, *, strict: bool = True) -> float:
    """A finite number ``> 0`` (``strict``) or ``>= 0``; an ``int`` stays an ``int``.

    >>> check_positive(-0.1, "lr")
    Traceback (most recent call last):
    ValueError: lr must be a finite number > 0, got -0.1
    """
    out = check_number(value, name, low=0, low_open=strict)
    return int(value) if _is_int(value) else out  # type: ignore[call-overload]


def check_probability(value: object, name: str, *, allow_zero: bool = True, allow_one: bool = True) -> float:
    """A probability in ``[0, 1]``; ``allow_zero=False`` / ``allow_one=False`` open that end."""
    return check_number(value, name, low=0, high=1, low_open=not allow_zero, high_open=not allow_one)


def check_bool(value: object, name: str) -> bool:
    """``value`` must be a ``bool`` (numpy's included): 0 and 1 are refused, they are usually a slip."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, {_got(value, with_type=True)}")
    return bool(value)


def check_seed(value: object, name: str = "seed") -> int:
    """A seed: an integer in ``[0, SEED_MAX]``, which numpy and torch both accept."""
    if not _is_int(value):
        raise TypeError(f"{name} must be an integer in [0, 2**63 - 1], {_got(value, with_type=True)}")
    out = int(value)  # type: ignore[call-overload]
    if not 0 <= out <= SEED_MAX:
        raise ValueError(f"{name} must be an integer in [0, 2**63 - 1], {_got(value)}")
    return out


def check_choice(value: T, name: str, choices: Collection[T]) -> T:
    """``value`` must be one of ``choices`` (compared with ``==``; the message lists them in order)."""
    try:
        ok = value in choices
    except TypeError:  # an unhashable value asked of a set
        ok = False
    if not ok:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}, {_got(value)}")
    return value


def check_instance(value: T, name: str, types: type | tuple[type, ...]) -> T:
    """``value`` must be an instance of ``types`` (``TypeError`` naming the expected and the actual type)."""
    if not isinstance(value, types):
        names = " or ".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
        raise TypeError(f"{name} must be a {names}, got {type(value).__name__}")
    return value


def check_strings(values: object, name: str) -> list[str]:
    """A sequence of ``str`` (a bare ``str`` is refused: it would be read as its characters); a new list."""
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise TypeError(f"{name} must be a sequence of strings, got {type(values).__name__}")
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise TypeError(f"{name}[{i}] must be a str, got {type(v).__name__}")
    return list(values)


# ----------------------------------------------------------------------------------------------- arrays

_KIND_WORDS = {"b": "bool", "i": "integer", "u": "unsigned integer", "f": "float", "c": "complex"}


def _torch_tensor_type() -> Any:
    torch = sys.modules.get("torch")
    return getattr(torch, "Tensor", None) if torch is not None else None


def _kind_of(x: Any, is_tensor: bool) -> str:
    """numpy's dtype kind letter (``b i u f c``) for an array or a tensor."""
    if not is_tensor:
        return str(x.dtype.kind)
    if x.dtype.is_complex:
        return "c"
    if x.dtype.is_floating_point:
        return "f"
    if str(x.dtype) == "torch.bool":
        return "b"
    return "u" if str(x.dtype) == "torch.uint8" else "i"


def _shape_text(shape: Sequence[int | str | None]) -> str:
    dims = ["n" if d is None else str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _count_nonfinite(x: Any, is_tensor: bool) -> tuple[int, int]:
    if is_tensor:
        import torch

        return int(torch.isnan(x).sum()), int(torch.isinf(x).sum())
    return int(np.isnan(x).sum()), int(np.isinf(x).sum())


def check_finite(x: T, name: str) -> T:
    """No NaN or infinite entry in a number, a numpy array or a torch tensor (complex: either part)."""
    tensor_type = _torch_tensor_type()
    is_tensor = tensor_type is not None and isinstance(x, tensor_type)
    if _is_real(x):
        if not math.isfinite(float(x)):  # type: ignore[arg-type]
            raise ValueError(f"{name} must be finite, {_got(x)}")
        return x
    arr = x if is_tensor else np.asarray(x)
    if _kind_of(arr, is_tensor) not in "fc":
        return x
    n_nan, n_inf = _count_nonfinite(arr, is_tensor)
    if n_nan or n_inf:
        raise ValueError(f"{name} must be finite, got {n_nan} NaN and {n_inf} infinite entries")
    return x


def check_array(
    x: Any,
    name: str,
    *,
    ndim: int | None = None,
    shape: Sequence[int | str | None] | None = None,
    kind: str | None = None,
    finite: bool = True,
) -> Any:
    """A numpy array or a torch tensor of the expected shape, dtype kind and finiteness.

    Args:
        x: a numpy array or torch tensor (returned as is), or anything ``np.asarray`` turns into a
            numeric array (lists, numbers; returned converted).
        ndim: the number of dimensions (implied by ``shape`` when that is given).
        shape: the size of each dimension: an int, ``None`` for any size, or a letter that must take
            the same size wherever it appears (``("d", "d")`` is a square matrix).
        kind: the allowed numpy dtype kinds, e.g. ``"f"`` (float), ``"iu"`` (integers), ``"fiu"`` (real
            numbers), ``"b"`` (bool). ``None`` allows any numeric or bool dtype.
        finite: refuse NaN and infinite entries.

    >>> check_array(np.zeros((5, 2)), "x", shape=(None, 3))
    Traceback (most recent call last):
    ValueError: x must be an array of shape (n, 3), got shape (5, 2)
    """
    tensor_type = _torch_tensor_type()
    is_tensor = tensor_type is not None and isinstance(x, tensor_type)
    arr = x
    if not is_tensor and not isinstance(x, np.ndarray):
        try:
            arr = np.asarray(x)
        except (TypeError, ValueError) as e:  # ragged nested lists
            raise TypeError(f"{name} must be a numeric array, {_got(x, with_type=True)}") from e
    arr_kind = _kind_of(arr, is_tensor)
    if arr_kind not in "biufc":
        raise TypeError(f"{name} must be a numeric array, got dtype {arr.dtype}")
    if kind is not None and arr_kind not in kind:
        words = " or ".join(_KIND_WORDS.get(k, k) for k in kind)
        raise TypeError(f"{name} must be a {words} array, got dtype {arr.dtype}")
    got_shape = tuple(int(s) for s in arr.shape)
    if shape is not None:
        _check_shape(got_shape, tuple(shape), name)
    elif ndim is not None and len(got_shape) != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {got_shape}")
    if finite:
        check_finite(arr, name)
    return arr


def _check_shape(got: tuple[int, ...], want: tuple[int | str | None, ...], name: str) -> None:
    bound: dict[str, int] = {}
    ok = len(got) == len(want)
    for size, spec in zip(got, want, strict=False):
        if isinstance(spec, str):
            ok = ok and bound.setdefault(spec, size) == size
        elif spec is not None:
            ok = ok and size == spec
    if not ok:
        raise ValueError(f"{name} must be an array of shape {_shape_text(want)}, got shape {got}")


def check_matrix_pd(m: Any, name: str, *, semi: bool = False, rtol: float = 1e-10) -> np.ndarray:
    """A finite, square, symmetric positive definite (``semi=True``: semidefinite) real matrix.

    Symmetry and definiteness are judged relative to the matrix's scale: ``|M - M^T| <= rtol * max|M|``
    and the smallest eigenvalue ``> 0`` (``>= -rtol * max|M|`` when ``semi``). Returns a float64 numpy
    array (a tensor is copied to the CPU).
    """
    tensor_type = _torch_tensor_type()
    if tensor_type is not None and isinstance(m, tensor_type):
        m = m.detach().cpu().numpy()
    what = "a symmetric positive " + ("semidefinite" if semi else "definite") + " matrix"
    arr = check_array(m, name, shape=("d", "d"), kind="fiu")
    a = np.asarray(arr, dtype=np.float64)
    if a.shape[0] == 0:
        raise ValueError(f"{name} must be {what}, got shape {a.shape}")
    scale = float(np.max(np.abs(a)))
    if float(np.max(np.abs(a - a.T))) > rtol * scale:
        raise ValueError(f"{name} must be {what}, got a matrix that is not symmetric")
    smallest = float(np.linalg.eigvalsh(a)[0])
    if smallest < -rtol * scale or (not semi and smallest <= rtol * scale):
        raise ValueError(f"{name} must be {what}, got smallest eigenvalue {smallest:.6g}")
    return a
