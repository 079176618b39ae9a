"""One torch thread for every test (tiny models; a shared 2-core machine); a private model cache."""

from __future__ import annotations

import os

import pytest
import torch


@pytest.fixture(autouse=True, scope="session")
def _private_model_cache(tmp_path_factory):
    """Trained bases go to a folder of this test session (subprocesses inherit it), not the user's cache."""
    before = os.environ.get("PAPERKIT_MODEL_CACHE")
    os.environ["PAPERKIT_MODEL_CACHE"] = str(tmp_path_factory.mktemp("model-cache"))
    yield
    if before is None:
        os.environ.pop("PAPERKIT_MODEL_CACHE", None)
    else:
        os.environ["PAPERKIT_MODEL_CACHE"] = before


@pytest.fixture(autouse=True, scope="session")
def _one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
