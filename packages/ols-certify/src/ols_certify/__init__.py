"""ols_certify: certify that an OLS conclusion survives the removal of any k samples.

Implements ACRE from "Robustness Auditing for Linear Regression: To Singularity and Beyond"
(Rubinstein & Hopkins, ICLR 2025, arXiv 2410.07916) with its baselines (brute force, AMIP, KZC21, FH23).
"""

from importlib.metadata import PackageNotFoundError, version

from ols_certify.acre import (
    Bounds,
    Certificate,
    acre_bounds,
    certify,
    combine,
    first_crossing,
    resolve_threshold,
)
from ols_certify.audit import Audit, audit, plot_bounds, plot_curves
from ols_certify.baselines import (
    BruteForce,
    Candidates,
    FreundHopkins,
    amip,
    brute_force,
    freund_hopkins,
    hypercontractivity_constant,
    kzc21,
    kzc21_naive,
)
from ols_certify.ols import OLSFit, fit_ols, removal_effect
from ols_certify.problem1 import brute_force_p1, spectral_bound, triangle_bound, triangle_bound_blocked
from ols_certify.whiten import Whitened, whiten

try:
    __version__ = version("iclr25-ols-certify")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = [
    "Audit",
    "Bounds",
    "BruteForce",
    "Candidates",
    "Certificate",
    "FreundHopkins",
    "OLSFit",
    "Whitened",
    "__version__",
    "acre_bounds",
    "amip",
    "audit",
    "brute_force",
    "brute_force_p1",
    "certify",
    "combine",
    "first_crossing",
    "fit_ols",
    "freund_hopkins",
    "hypercontractivity_constant",
    "kzc21",
    "kzc21_naive",
    "plot_bounds",
    "plot_curves",
    "removal_effect",
    "resolve_threshold",
    "spectral_bound",
    "triangle_bound",
    "triangle_bound_blocked",
    "whiten",
]
