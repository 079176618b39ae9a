"""Poisson sampling: each example joins a batch independently with probability q (variable batch size)."""

from __future__ import annotations

from collections.abc import Iterator

import torch
from paperkit.validation import check_instance, check_int, check_probability


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
        n = check_int(n, "n", low=1)
        q = check_probability(q, "sampling rate q", allow_zero=False)
        steps = check_int(steps, "steps", low=0)
        check_instance(generator, "generator", torch.Generator)
        self.n, self.q, self.steps, self.generator = n, q, steps, generator

    @property
    def expected_batch_size(self) -> float:
        return self.q * self.n

    def __len__(self) -> int:
        return self.steps

    def __iter__(self) -> Iterator[torch.Tensor]:
        for _ in range(self.steps):
            yield poisson_batch(self.n, self.q, self.generator)


__all__ = ["PoissonSampler", "poisson_batch"]
