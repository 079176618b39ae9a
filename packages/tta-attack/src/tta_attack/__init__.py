"""tta_attack: FCA, a label-free poisoning attack on test-time adaptation, against DIA.

Reproduces "On the Adversarial Vulnerability of Label-Free Test-Time Adaptation" (Rifat et al., ICLR 2025,
OpenReview N0ETIi580T; official code Restuccia-Group/tta-adv).
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "ATTACKS": "attacks",
    "AttackConfig": "attacks",
    "Crafted": "attacks",
    "centroid_update": "attacks",
    "craft": "attacks",
    "fca_loss": "attacks",
    "malicious_count": "attacks",
    "sign_pgd": "attacks",
    "TTA_METHODS": "tta",
    "Adapter": "tta",
    "TTAConfig": "tta",
    "entropy": "tta",
    "fisher_diagonal": "tta",
    "norm_params": "tta",
    "MedianBatchNorm2d": "models",
    "check_bn_model": "models",
    "features_logits": "models",
    "source_model": "models",
    "with_median_bn": "models",
    "CORRUPTIONS": "data",
    "digits_split": "data",
    "corrupted_stream": "data",
    "StreamResult": "evaluate",
    "run_stream": "evaluate",
    "METHODS": "methods",
    "run_attack": "methods",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from tta_attack.attacks import (  # noqa: F401
        ATTACKS,
        AttackConfig,
        Crafted,
        centroid_update,
        craft,
        fca_loss,
        malicious_count,
        sign_pgd,
    )
    from tta_attack.data import CORRUPTIONS, corrupted_stream, digits_split  # noqa: F401
    from tta_attack.evaluate import StreamResult, run_stream  # noqa: F401
    from tta_attack.methods import METHODS, run_attack  # noqa: F401
    from tta_attack.models import (  # noqa: F401
        MedianBatchNorm2d,
        check_bn_model,
        features_logits,
        source_model,
        with_median_bn,
    )
    from tta_attack.tta import TTA_METHODS, Adapter, TTAConfig, entropy, fisher_diagonal, norm_params  # noqa: F401

__version__ = paperkit.package_version("iclr25-tta-attack")
