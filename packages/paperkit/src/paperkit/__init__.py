"""paperkit: the small runtime every iclr2025-papers package shares.

- :class:`Claim` and :class:`Report`: a paper's claims checked on our run, and what ``reproduce`` returns.
- :class:`Experiment` and :func:`reproduce_main`: the ``<pkg> reproduce`` command frame.
- :func:`write_results` / :class:`ResultsFolder`: results.json, results.md and PNG plots, written as one set.
- :func:`seed_everything`, :func:`resolve_device`, :func:`torch_threads`: run-time context.
- :func:`track`: a quiet progress bar.
- :class:`Scales`: a Config's quick/full/smoke presets from one table; :func:`package_version`.
- :func:`public_api` / :func:`lazy_exports`: a package's public names, written once (its ``if TYPE_CHECKING:``
  imports), imported on first use.
- ``check_*`` (:mod:`paperkit.validation`): argument checks with one message style, naming the argument.
- :mod:`paperkit.stats`: paired seeds, bootstrap CIs of paired differences, rank correlations, claims on a
  CI bound (:func:`ci_claim`) and one tuning grid for every method (:func:`tune`).
"""

from paperkit.claims import Claim
from paperkit.cli import Experiment, build_parser, reproduce_main
from paperkit.exports import lazy_exports, public_api, public_table, type_checking_table
from paperkit.progress import track
from paperkit.results import (
    OutputFolderError,
    Report,
    ResultsFolder,
    atomic_write_bytes,
    markdown_table,
    results_markdown,
    write_results,
)
from paperkit.runtime import (
    DIST_PREFIX,
    DeviceError,
    cuda_available,
    distribution,
    package_version,
    resolve_device,
    seed_everything,
    torch_threads,
)
from paperkit.scales import SCALE_NAMES, Scales, ScaleTable, scale_fields
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
    check_strings,
)

__version__ = package_version("iclr25-paperkit")

__all__ = [
    "DIST_PREFIX",
    "SCALE_NAMES",
    "SEED_MAX",
    "Claim",
    "DeviceError",
    "Experiment",
    "Interval",
    "OutputFolderError",
    "PairedDifference",
    "Report",
    "ResultsFolder",
    "ScaleTable",
    "Scales",
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
    "check_strings",
    "ci_claim",
    "cuda_available",
    "distribution",
    "kendall_tau",
    "lazy_exports",
    "markdown_table",
    "over_seeds",
    "package_version",
    "paired_difference",
    "public_api",
    "public_table",
    "reproduce_main",
    "resolve_device",
    "results_markdown",
    "scale_fields",
    "seed_everything",
    "spearman",
    "torch_threads",
    "track",
    "tune",
    "type_checking_table",
    "write_results",
]
