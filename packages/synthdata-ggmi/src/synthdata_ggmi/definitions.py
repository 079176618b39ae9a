"""The paper's information-flow quantities, on explicit discrete joint distributions only.

Status of each formula (the paper's theorem statements were not available to this package; see the
README, "What is implemented"):

- GGMI (Generalization Gain via Mutual Information), definition stated in the paper and confirmed by
  independent summaries: ``GGMI = I(S_anchor; W') - I(S_gen; W)``, W' the model trained on the anchor
  data, W the model trained on the synthetic data. Positive GGMI: the MI-based generalisation bound of
  W is tighter than that of W'. :func:`ggmi` computes it from the two joint pmfs.
- Information gain, **unverified form**: the spec reads it as the information about the generator's
  parameters e_M carried by its output beyond the prompt, ``Delta I = I(h(e_M); M(p)) - I(h(e_M); p)``.
  :func:`information_gain` computes exactly that expression for a joint pmf of (h(e_M), p, M(p)); it is
  *not* presented as the paper's Definition, and no bound of the paper is evaluated with it.
- The MI generalisation bound the paper builds on (Xu & Raginsky 2017, not the paper's theorem):
  |E gen| <= sqrt(2 sigma^2 I(S; W) / n) for a sigma-sub-Gaussian loss: :func:`mi_generalization_bound`.

These are identities of probability tables; they are not measurements of neural networks (the random
variables involve whole training sets and model parameters, which no sample estimates).
"""

from __future__ import annotations

import numpy as np
from paperkit import check_int, check_number

from synthdata_ggmi.info import mutual_information, pmf_table

__all__ = ["ggmi", "information_gain", "mi_generalization_bound"]


def ggmi(joint_anchor_w: np.ndarray, joint_gen_w: np.ndarray) -> float:
    """``I(S_anchor; W') - I(S_gen; W)`` from the 2-d joint pmfs ``P[s_anchor, w']`` and ``P[s_gen, w]``."""
    return mutual_information(joint_anchor_w) - mutual_information(joint_gen_w)


def information_gain(joint_h_p_g: np.ndarray) -> float:
    """Spec's (unverified) ``I(h(e_M); M(p)) - I(h(e_M); p)`` for a 3-d joint pmf ``P[h, p, g]``."""
    P = pmf_table(joint_h_p_g, "joint_h_p_g")
    if P.ndim != 3:
        raise ValueError(f"joint_h_p_g must be a 3-d table P[h, p, g], got ndim={P.ndim}")
    return mutual_information(P.sum(axis=1)) - mutual_information(P.sum(axis=2))


def mi_generalization_bound(mi: float, n: int, sigma: float = 1.0) -> float:
    """Xu & Raginsky (2017): sqrt(2 sigma^2 I(S; W) / n), ``mi`` in nats, ``n`` training examples."""
    mi = check_number(mi, "mi", low=0.0)  # check_number refuses NaN and inf
    n = check_int(n, "n", low=1)
    sigma = check_number(sigma, "sigma", low=0.0)
    return float(np.sqrt(2 * sigma**2 * mi / n))
