"""Poisson sampling: each example joins a batch independently with probability q (variable batch size)."""

from __future__ import annotations

from collections.abc import Iterator

import torch


def poisson_batch(n: int, q: float, generator: torch.Generator) -> torch.Tensor:
    """Indices (int64, on the generator's device) of one Poisson batch: each of ``n`` kept w.p. ``q``.

    The batch may be empty; its expected size is ``q n``.
    """
    mask = torch.rand(n, generator=generator, device=generator.device) < q
    return mask.nonzero().squeeze(1)


class PoissonSampler:
    """Iterates ``steps`` Poisson batches of indices into a data set of size ``n`` at rate ``q``.

    Args:
        n: data set size >= 1.
        q: sampling rate in (0, 1].
        steps: number of batches.
        generator: an explicit ``torch.Generator`` (its device is where the indices live).
    """

    def __init__(self, n: int, q: float, steps: int, generator: torch.Generator) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be an int >= 1, got {n!r}")
        if not (isinstance(q, (int, float)) and 0.0 < q <= 1.0):
            raise ValueError(f"sampling rate q must be in (0, 1], got {q!r}")
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(f"steps must be an int >= 0, got {steps!r}")
        if not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
        self.n, self.q, self.steps, self.generator = n, float(q), steps, generator

    @property
    def expected_batch_size(self) -> float:
        return self.q * self.n

    def __len__(self) -> int:
        return self.steps

    def __iter__(self) -> Iterator[torch.Tensor]:
        for _ in range(self.steps):
            yield poisson_batch(self.n, self.q, self.generator)


__all__ = ["PoissonSampler", "poisson_batch"]
