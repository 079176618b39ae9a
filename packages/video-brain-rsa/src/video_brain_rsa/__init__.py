"""video_brain_rsa: representational similarity analysis of video models against brain responses.

Reproduces the analysis pipeline of "One Hundred Neural Networks and Brains Watching Videos: Lessons from
Alignment" (Sartzetaki, Roig, Snoek, Groen; ICLR 2025, OpenReview LM4PYXBId5) on a synthetic benchmark.
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from video_brain_rsa.bmd import ROI_GROUPS, BMDFileError, bmd_rdms, load_bmd, read_roi_file
    from video_brain_rsa.data import (
        ACTIONS,
        ROIS,
        SHAPES,
        Clips,
        ground_truth,
        make_subjects,
        motion_energy,
        noise_for_ceiling,
        render_clips,
    )
    from video_brain_rsa.dissimilarity import METRICS, pca_reduce, rdm, upper
    from video_brain_rsa.features import extract, sample_clips
    from video_brain_rsa.methods import METHODS, ModelRun, run_method
    from video_brain_rsa.models import ARCHITECTURES, build_model
    from video_brain_rsa.rsa import (
        PermutationResult,
        Score,
        average_ranks,
        compare_models,
        kendall_tau_a,
        noise_ceiling,
        permutation_test,
        rsa_score,
    )
    from video_brain_rsa.scoring import BestLayer, LayerScore, best_layer, hand_crafted_rdms, layerwise_scores
    from video_brain_rsa.training import accuracy, train

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-video-brain-rsa")
