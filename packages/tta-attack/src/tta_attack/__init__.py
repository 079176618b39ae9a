"""tta_attack: FCA, a label-free poisoning attack on test-time adaptation, against DIA.

Reproduces "On the Adversarial Vulnerability of Label-Free Test-Time Adaptation" (Rifat et al., ICLR 2025,
OpenReview N0ETIi580T; official code Restuccia-Group/tta-adv).
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from tta_attack.attacks import (
        ATTACKS,
        AttackConfig,
        Crafted,
        centroid_update,
        craft,
        fca_loss,
        malicious_count,
        sign_pgd,
    )
    from tta_attack.data import CORRUPTIONS, corrupted_stream, digits_split
    from tta_attack.evaluate import StreamResult, run_stream
    from tta_attack.methods import METHODS, run_attack
    from tta_attack.models import (
        MedianBatchNorm2d,
        check_bn_model,
        features_logits,
        source_model,
        with_median_bn,
    )
    from tta_attack.tta import TTA_METHODS, Adapter, TTAConfig, entropy, fisher_diagonal, norm_params

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-tta-attack")
