import pytest


@pytest.fixture(autouse=True)
def _one_torch_thread(torch_one_thread):
    """Every test on one torch thread (shared_testing's fixture): tiny tensors, a shared 2-core machine."""
    return
