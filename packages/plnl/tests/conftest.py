"""One torch thread for the whole test session (the machine's cores are shared; the trainers' tests call
``fit_plnl`` and ``plnl_epoch`` directly, outside the registry's ``torch_threads(1)``)."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
