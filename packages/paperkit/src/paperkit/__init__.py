"""paperkit: the small runtime every iclr2025-papers package shares.

- :class:`Claim` and :class:`Report`: a paper's claims checked on our run, and what ``reproduce`` returns.
- :class:`Experiment` and :func:`reproduce_main`: the ``<pkg> reproduce`` command frame.
- :func:`write_results`: results.json, results.md and PNG plots, each written atomically.
- :func:`seed_everything`, :func:`resolve_device`, :func:`torch_threads`: run-time context.
- :func:`track`: a quiet progress bar.
- :mod:`paperkit.stats`: paired seeds, bootstrap CIs of paired differences, rank correlations, claims on a
  CI bound (:func:`ci_claim`) and one tuning grid for every method (:func:`tune`).
- :func:`public_api` / :func:`lazy_exports`: a package's public names, written once, imported on first use.
- ``check_*`` (:mod:`paperkit.validation`): argument checks with one message style, naming the argument.
"""

from importlib import metadata

from paperkit.claims import Claim
from paperkit.cli import Experiment, build_parser, reproduce_main
from paperkit.exports import lazy_exports, public_api, public_table
from paperkit.progress import track
from paperkit.results import Report, atomic_write_bytes, markdown_table, results_markdown, write_results
from paperkit.runtime import (
    DIST_PREFIX,
    DeviceError,
    cuda_available,
    distribution,
    resolve_device,
    seed_everything,
    torch_threads,
)
from paperkit.stats import (
    Interval,
    PairedDifference,
    SeedTable,
    Tuned,
    bootstrap_ci,
    ci_claim,
    kendall_tau,
    over_seeds,
    paired_difference,
    spearman,
    tune,
)
from paperkit.validation import (
    SEED_MAX,
    check_array,
    check_bool,
    check_choice,
    check_finite,
    check_instance,
    check_int,
    check_matrix_pd,
    check_number,
    check_positive,
    check_probability,
    check_seed,
)

try:
    __version__ = metadata.version("iclr25-paperkit")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

__all__ = [
    "DIST_PREFIX",
    "SEED_MAX",
    "Claim",
    "DeviceError",
    "Experiment",
    "Interval",
    "PairedDifference",
    "Report",
    "SeedTable",
    "Tuned",
    "__version__",
    "atomic_write_bytes",
    "bootstrap_ci",
    "build_parser",
    "check_array",
    "check_bool",
    "check_choice",
    "check_finite",
    "check_instance",
    "check_int",
    "check_matrix_pd",
    "check_number",
    "check_positive",
    "check_probability",
    "check_seed",
    "ci_claim",
    "cuda_available",
    "distribution",
    "kendall_tau",
    "lazy_exports",
    "markdown_table",
    "over_seeds",
    "paired_difference",
    "public_api",
    "public_table",
    "reproduce_main",
    "resolve_device",
    "results_markdown",
    "seed_everything",
    "spearman",
    "torch_threads",
    "track",
    "tune",
    "write_results",
]
