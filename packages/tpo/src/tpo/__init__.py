"""tpo: Tree Preference Optimization (Liao, Chu, Wang; ICLR 2025) on small causal LMs.

- Data: :class:`PreferenceList`, :func:`split_steps`; the arithmetic preference trees in :mod:`tpo.arith`.
- Losses (pure torch): :func:`tpo_loss`, :func:`plr_loss`, :func:`lambda_weights`,
  :func:`adaptive_step_weights`, :func:`weighted_rewards`, :func:`dpo_loss`, :func:`dpo_pl_loss`.
- Models (paperkit.lm): :func:`encode_lists`, :func:`token_logratios`, :func:`train_preference` with
  :class:`TPOObjective`, :class:`DPOObjective`, :class:`DPOPLObjective`; :func:`implicit_rewards`.
- Metrics: :func:`kendall_tau`, :func:`mean_kendall_tau`.

Names are imported on first use, so the ``tpo`` command answers ``--help`` without loading torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from tpo.data import PreferenceList, split_steps, step_spans
    from tpo.logprobs import ListBatch, check_models, encode_lists, token_logratios
    from tpo.losses import (
        adaptive_step_weights,
        dpo_loss,
        dpo_pl_loss,
        lambda_weights,
        plr_loss,
        sample_pairs,
        tpo_loss,
        weighted_rewards,
    )
    from tpo.metrics import kendall_tau, mean_kendall_tau
    from tpo.training import (
        DPOObjective,
        DPOPLObjective,
        TPOObjective,
        implicit_rewards,
        preference_loss,
        train_preference,
    )

__version__ = paperkit.package_version("iclr25-tpo")


__getattr__, __dir__, __all__ = paperkit.public_api(__name__)
