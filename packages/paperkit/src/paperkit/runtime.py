"""Seeding, device resolution and torch's thread count: the run-time context every reproduction needs."""

from __future__ import annotations

import importlib.util
import random
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from paperkit.validation import SEED_MAX, check_seed

#: Every distribution of this repository is published under this prefix: the bare names (paperkit, genre,
#: tinymem, ...) belong to unrelated projects on PyPI, and depending on them would let a stranger's code in.
DIST_PREFIX = "iclr25-"


def distribution(package: str) -> str:
    """The distribution name of a workspace package, from its folder / console-script name.

    ``distribution("rslqr") == "iclr25-rslqr"``; a name that already carries the prefix is returned as is.
    """
    if not isinstance(package, str) or not package:
        raise ValueError(f"package must be a non-empty string, got {package!r}")
    return package if package.startswith(DIST_PREFIX) else DIST_PREFIX + package


def package_version(dist: str) -> str:
    """The installed version of distribution ``dist`` (``"iclr25-rslqr"``), or ``"0.0.0"`` when it is not
    installed (a source tree on ``sys.path``): what each package's ``__version__`` is."""
    from importlib import metadata

    try:
        return metadata.version(distribution(dist))
    except metadata.PackageNotFoundError:
        return "0.0.0"


#: The largest seed a run may ask for (paperkit.validation.SEED_MAX).
MAX_SEED = SEED_MAX


class DeviceError(ValueError):
    """A device was asked for that this machine or this package cannot provide."""


def seed_everything(seed: int) -> np.random.Generator:
    """Seed python's ``random``, numpy's legacy global RNG and torch (if installed); return a new Generator.

    Library code should take the returned generator (or ``seed``) explicitly; the global seeds only
    tame third-party code that draws from global state.
    """
    if isinstance(seed, int) and seed.bit_length() > 64:  # too long to print (int_max_str_digits)
        raise ValueError(
            f"seed must be an integer in [0, 2**63 - 1], got an integer of {seed.bit_length()} bits"
        )
    seed = check_seed(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002 - deliberately seeding the legacy global state
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.manual_seed(seed)
    return np.random.default_rng(seed)


def cuda_available() -> bool:
    """True when torch is installed and sees a GPU; without torch, when ``nvidia-smi`` lists one."""
    if importlib.util.find_spec("torch") is not None:
        import torch

        return bool(torch.cuda.is_available())
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


def resolve_device(requested: str, supported: Sequence[str] = ("cpu", "cuda")) -> str:
    """Turn ``auto``/``cpu``/``cuda``/``cuda:N`` into a device string this run can use.

    ``auto`` picks ``cuda`` when the package supports it and a GPU is visible, else ``cpu``.
    Raises DeviceError (one readable sentence) when ``cuda`` is asked for and cannot be had.
    """
    if not re.fullmatch(r"auto|cpu|cuda(:\d+)?", requested):
        raise DeviceError(f"unknown device {requested!r}: expected auto, cpu, cuda or cuda:N")
    if requested == "auto":
        return "cuda" if "cuda" in supported and cuda_available() else "cpu"
    if requested.startswith("cuda"):
        if "cuda" not in supported:
            raise DeviceError(
                f"this package runs on {', '.join(supported)} only; --device {requested} is not supported"
            )
        if importlib.util.find_spec("torch") is None:
            raise DeviceError(f"--device {requested} needs torch, which is not installed")
        if not cuda_available():
            raise DeviceError(
                f"--device {requested} was requested but no CUDA GPU is visible "
                "(torch.cuda.is_available() is False)"
            )
    return requested


@contextmanager
def torch_threads(n: int = 1) -> Iterator[None]:
    """Run the block on ``n`` torch intra-op threads and restore the previous count on exit.

    The reproductions train tiny models: one thread is fastest for them, and on a shared 2-core machine an
    OpenMP team that cannot get its cores made training steps 7-30x slower. Usable as a decorator too.
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    import torch

    before = torch.get_num_threads()
    if before != n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)
