"""paperkit: the small runtime every iclr2025-papers package shares.

- :class:`Claim` and :class:`Report`: a paper's claims checked on our run, and what ``reproduce`` returns.
- :class:`Experiment` and :func:`reproduce_main`: the ``<pkg> reproduce`` command frame.
- :func:`write_results`: results.json, results.md and PNG plots, each written atomically.
- :func:`seed_everything`, :func:`resolve_device`, :func:`torch_threads`: run-time context.
- :func:`track`: a quiet progress bar.
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
    "Report",
    "__version__",
    "atomic_write_bytes",
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
    "cuda_available",
    "distribution",
    "lazy_exports",
    "markdown_table",
    "public_api",
    "public_table",
    "reproduce_main",
    "resolve_device",
    "results_markdown",
    "seed_everything",
    "torch_threads",
    "track",
    "write_results",
]
