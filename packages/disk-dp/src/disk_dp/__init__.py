"""disk_dp: DiSK, the simplified-Kalman-filter wrapper for DP optimisers, with DP-SGD / DP-Adam baselines
and an RDP accountant for the Poisson-subsampled Gaussian.

Reproduces "DiSK: Differentially Private Optimizer with Simplified Kalman Filter for Noise Reduction"
(Zhang, Bu, Balle, Hong, Razaviyayn, Mirrokni; ICLR 2025, arXiv 2410.03883).

The public names are listed once, as the ``if TYPE_CHECKING:`` imports, and imported on first use, so that
the console script answers ``--help`` and ``--version`` without importing torch; the experiment
(``disk_dp.reproduce``) is not part of the package's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from disk_dp.accounting import DEFAULT_ORDERS as DEFAULT_ORDERS
    from disk_dp.accounting import eps_from_rdp as eps_from_rdp
    from disk_dp.accounting import epsilon as epsilon
    from disk_dp.accounting import noise_for_epsilon as noise_for_epsilon
    from disk_dp.accounting import rdp_by_integration as rdp_by_integration
    from disk_dp.accounting import rdp_subsampled_gaussian as rdp_subsampled_gaussian
    from disk_dp.clipping import check_dp_compatible as check_dp_compatible
    from disk_dp.clipping import clip_flat as clip_flat
    from disk_dp.clipping import per_sample_grads as per_sample_grads
    from disk_dp.data import Dataset as Dataset
    from disk_dp.data import load as load
    from disk_dp.models import logistic as logistic
    from disk_dp.models import mlp as mlp
    from disk_dp.optim import DiSK as DiSK
    from disk_dp.optim import DPOptimizer as DPOptimizer
    from disk_dp.optim import make_closure as make_closure
    from disk_dp.optim import make_disk_adam as make_disk_adam
    from disk_dp.optim import make_disk_sgd as make_disk_sgd
    from disk_dp.optim import make_dp_adam as make_dp_adam
    from disk_dp.optim import make_dp_sgd as make_dp_sgd
    from disk_dp.optim import make_dp_sgd_ema as make_dp_sgd_ema
    from disk_dp.quadratic import QuadraticProblem as QuadraticProblem
    from disk_dp.quadratic import noisy_quadratic_problem as noisy_quadratic_problem
    from disk_dp.sampling import PoissonSampler as PoissonSampler
    from disk_dp.sampling import poisson_batch as poisson_batch
    from disk_dp.training import History as History
    from disk_dp.training import cross_entropy as cross_entropy
    from disk_dp.training import train as train


__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-disk-dp")
