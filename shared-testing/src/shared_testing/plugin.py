"""The iclr2025-papers pytest plugin (loaded through the ``pytest11`` entry point).

Options: ``--device cpu|cuda`` (default cpu) and ``--run-slow``. Markers: ``slow`` (skipped unless
``--run-slow``) and ``gpu`` (skipped unless ``--device cuda``). Fixtures: ``device``, ``seed``, ``rng``,
``torch_gen``, ``torch_one_thread``, ``deterministic``. Every test runs offline: connections beyond
loopback fail.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from shared_testing import offline
from shared_testing.determinism import run_twice

_SOCKETS = pytest.StashKey[tuple[Any, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("iclr2025-papers")
    group.addoption(
        "--device",
        action="store",
        default="cpu",
        choices=("cpu", "cuda"),
        help="device for torch tests (cuda also un-skips tests marked gpu)",
    )
    group.addoption("--run-slow", action="store_true", default=False, help="run tests marked slow")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a check over ~10 s; runs only with --run-slow")
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU; runs only with --device cuda")
    config.stash[_SOCKETS] = offline.install()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SOCKETS in config.stash:
        offline.uninstall(config.stash[_SOCKETS])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    run_slow = config.getoption("--run-slow")
    on_gpu = config.getoption("--device") == "cuda"
    skip_slow = pytest.mark.skip(reason="slow: pass --run-slow to run")
    skip_gpu = pytest.mark.skip(reason="gpu: pass --device cuda on a GPU machine to run")
    for item in items:
        if "slow" in item.keywords and not run_slow:
            item.add_marker(skip_slow)
        if "gpu" in item.keywords and not on_gpu:
            item.add_marker(skip_gpu)


def _cuda_available() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


@pytest.fixture(scope="session")
def device(request: pytest.FixtureRequest) -> str:
    """``"cpu"``, or ``"cuda"`` under ``--device cuda`` (skips the test when no GPU is visible)."""
    dev = str(request.config.getoption("--device"))
    if dev == "cuda" and not _cuda_available():
        pytest.skip("--device cuda given but no CUDA GPU is visible")
    return dev


@pytest.fixture
def seed() -> int:
    """The fixed seed of a test."""
    return 0


@pytest.fixture
def rng(seed: int) -> np.random.Generator:
    """A numpy Generator seeded with ``seed``; fresh for every test."""
    return np.random.default_rng(seed)


@pytest.fixture
def torch_gen(seed: int, device: str) -> Any:
    """A ``torch.Generator`` on ``device`` seeded with ``seed`` (skips when torch is not installed)."""
    torch = pytest.importorskip("torch")
    return torch.Generator(device=device).manual_seed(seed)


@pytest.fixture
def torch_one_thread() -> Iterator[None]:
    """Run the test on one torch intra-op thread and restore the previous count afterwards.

    Tiny models are fastest on one thread, and on a busy 2-core machine an OpenMP team that cannot get its
    cores made such tests 7-30x slower. Use it with
    ``pytestmark = pytest.mark.usefixtures("torch_one_thread")``.
    """
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def deterministic() -> Callable[..., Any]:
    """``deterministic(fn, *args, **kw)`` runs ``fn`` twice, asserts bit-identical results, returns one."""
    return run_twice
