"""disk_dp: DiSK, the simplified-Kalman-filter wrapper for DP optimisers, with DP-SGD / DP-Adam baselines
and an RDP accountant for the Poisson-subsampled Gaussian.

Reproduces "DiSK: Differentially Private Optimizer with Simplified Kalman Filter for Noise Reduction"
(Zhang, Bu, Balle, Hong, Razaviyayn, Mirrokni; ICLR 2025, arXiv 2410.03883).

Names are imported on first use (PEP 562), so that the console script answers ``--help`` and
``--version`` without importing torch.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:
    from disk_dp.accounting import (
        DEFAULT_ORDERS,
        eps_from_rdp,
        epsilon,
        noise_for_epsilon,
        rdp_by_integration,
        rdp_subsampled_gaussian,
    )
    from disk_dp.clipping import check_dp_compatible, clip_flat, per_sample_grads
    from disk_dp.data import Dataset, load
    from disk_dp.models import logistic, mlp
    from disk_dp.optim import (
        DiSK,
        DPOptimizer,
        make_closure,
        make_disk_adam,
        make_disk_sgd,
        make_dp_adam,
        make_dp_sgd,
        make_dp_sgd_ema,
    )
    from disk_dp.quadratic import QuadraticProblem, noisy_quadratic_problem
    from disk_dp.sampling import PoissonSampler, poisson_batch
    from disk_dp.train import History, cross_entropy, train

_WHERE = {
    "DEFAULT_ORDERS": "accounting",
    "eps_from_rdp": "accounting",
    "epsilon": "accounting",
    "noise_for_epsilon": "accounting",
    "rdp_by_integration": "accounting",
    "rdp_subsampled_gaussian": "accounting",
    "check_dp_compatible": "clipping",
    "clip_flat": "clipping",
    "per_sample_grads": "clipping",
    "Dataset": "data",
    "load": "data",
    "logistic": "models",
    "mlp": "models",
    "DPOptimizer": "optim",
    "DiSK": "optim",
    "make_closure": "optim",
    "make_disk_adam": "optim",
    "make_disk_sgd": "optim",
    "make_dp_adam": "optim",
    "make_dp_sgd": "optim",
    "make_dp_sgd_ema": "optim",
    "QuadraticProblem": "quadratic",
    "noisy_quadratic_problem": "quadratic",
    "PoissonSampler": "sampling",
    "poisson_batch": "sampling",
    "History": "train",
    "cross_entropy": "train",
    "train": "train",
}

try:
    __version__ = version("iclr25-disk-dp")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = [
    "DEFAULT_ORDERS",
    "DPOptimizer",
    "Dataset",
    "DiSK",
    "History",
    "PoissonSampler",
    "QuadraticProblem",
    "__version__",
    "check_dp_compatible",
    "clip_flat",
    "cross_entropy",
    "eps_from_rdp",
    "epsilon",
    "load",
    "logistic",
    "make_closure",
    "make_disk_adam",
    "make_disk_sgd",
    "make_dp_adam",
    "make_dp_sgd",
    "make_dp_sgd_ema",
    "mlp",
    "noise_for_epsilon",
    "noisy_quadratic_problem",
    "per_sample_grads",
    "poisson_batch",
    "rdp_by_integration",
    "rdp_subsampled_gaussian",
    "train",
]

__getattr__, __dir__ = paperkit.lazy_exports(__name__, _WHERE)
