"""One intra-op torch thread for the bandits' tiny tensor operations.

The per-round work is a few hundred small ops on (K, p) and (n, m) tensors: extra threads only add
synchronisation, and on a shared machine an OpenMP team that cannot get its cores can be slower by 30x
(measured: a 200-round NDB-UCB run took 2.3 s on one thread and 79 s on two under load). The previous
thread count is restored on exit, so the caller's torch settings are left as they were.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

import torch

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def single_thread() -> Iterator[None]:
    before = torch.get_num_threads()
    if before != 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if before != 1:
            torch.set_num_threads(before)


def in_single_thread(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorator: run ``fn`` under :func:`single_thread`."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with single_thread():
            return fn(*args, **kwargs)

    return wrapper
