"""Small shared fixtures: a tiny BN CNN and a digits batch (no training: the checks are structural)."""

from __future__ import annotations

import pytest
import torch
from paperkit.vision import small_cnn
from tta_attack.data import digits_split

# One thread: on a shared 2-core machine a second OpenMP thread mostly spins (CPU-seconds, no speed).
torch.set_num_threads(1)


@pytest.fixture(scope="session")
def digits_batch():
    split = digits_split(seed=0, test_fraction=0.3)
    return split.x_test[:20].clone(), split.y_test[:20].clone()


def _tiny_cnn(seed: int = 0, device: str = "cpu") -> torch.nn.Sequential:
    return small_cnn(1, 10, channels=(4, 8), image_size=16, seed=seed, device=device)


@pytest.fixture
def cnn():
    return _tiny_cnn()
