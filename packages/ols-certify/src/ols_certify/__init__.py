"""ols_certify: certify that an OLS conclusion survives the removal of any k samples.

Implements ACRE from "Robustness Auditing for Linear Regression: To Singularity and Beyond"
(Rubinstein & Hopkins, ICLR 2025, arXiv 2410.07916) with its baselines (brute force, AMIP, KZC21, FH23).
The public names are listed once, as the ``if TYPE_CHECKING:`` imports, and imported on first use; the
experiment (``ols_certify.reproduce``) is not part of the package's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

# ``audit`` and ``whiten`` are both a submodule and the function it defines: importing the submodule binds
# the package attribute to the module, which a lazy name would never replace, so these two load eagerly.
from ols_certify.audit import audit as audit
from ols_certify.whiten import whiten as whiten

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from ols_certify.acre import Bounds as Bounds
    from ols_certify.acre import Certificate as Certificate
    from ols_certify.acre import acre_bounds as acre_bounds
    from ols_certify.acre import certify as certify
    from ols_certify.acre import combine as combine
    from ols_certify.acre import first_crossing as first_crossing
    from ols_certify.acre import resolve_threshold as resolve_threshold
    from ols_certify.audit import Audit as Audit
    from ols_certify.audit import plot_bounds as plot_bounds
    from ols_certify.audit import plot_curves as plot_curves
    from ols_certify.baselines import BruteForce as BruteForce
    from ols_certify.baselines import Candidates as Candidates
    from ols_certify.baselines import FreundHopkins as FreundHopkins
    from ols_certify.baselines import amip as amip
    from ols_certify.baselines import brute_force as brute_force
    from ols_certify.baselines import freund_hopkins as freund_hopkins
    from ols_certify.baselines import hypercontractivity_constant as hypercontractivity_constant
    from ols_certify.baselines import kzc21 as kzc21
    from ols_certify.baselines import kzc21_naive as kzc21_naive
    from ols_certify.ols import OLSFit as OLSFit
    from ols_certify.ols import fit_ols as fit_ols
    from ols_certify.ols import removal_effect as removal_effect
    from ols_certify.problem1 import brute_force_p1 as brute_force_p1
    from ols_certify.problem1 import spectral_bound as spectral_bound
    from ols_certify.problem1 import triangle_bound as triangle_bound
    from ols_certify.problem1 import triangle_bound_blocked as triangle_bound_blocked
    from ols_certify.whiten import Whitened as Whitened


__getattr__, __dir__, __all__ = paperkit.public_api(__name__, eager=("__version__", "audit", "whiten"))

__version__ = paperkit.package_version("iclr25-ols-certify")
