"""Shared tiny fixtures: a small data set and a trained-for-a-moment tiny model."""

from __future__ import annotations

import pytest
import torch
from tinymem import DataConfig, build_data, build_model, tinymem_config


@pytest.fixture(scope="session")
def small_data():
    return build_data(
        DataConfig(n_main=60, n_extra=12, n_test=20, n_noise=10, max_ctx=40, n_ft_extra=8), seed=3
    )


@pytest.fixture
def tiny_model(device):
    torch.manual_seed(0)
    return build_model(tinymem_config(2, n_embd=16, n_head=2, n_positions=40), seed=1, device=device)
