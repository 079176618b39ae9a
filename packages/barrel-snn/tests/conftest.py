"""One torch thread for every test (shared-testing's ``torch_one_thread``): the tensors are small and the
machine is shared."""

import pytest


@pytest.fixture(autouse=True)
def _one_torch_thread(torch_one_thread: None) -> None:
    """Apply shared-testing's one-thread fixture to every test of the package."""
