"""lpca_metric_embed: exact low-dimensional graph embeddings, Euclidean metric (L2) vs logistic PCA.

Reproduces "How Low Can You Go? Searching for the Intrinsic Dimensionality of Complex Networks using
Metric Node Embeddings" (Nakis, Holm, Fiehn, Mørup; ICLR 2025, arXiv 2503.01723).

Names are imported on first use (PEP 562), so that the console script answers ``--help`` and
``--version`` without importing torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from lpca_metric_embed.baselines import svd_sign_mismatch
    from lpca_metric_embed.graphs import (
        DENSE_MAX_NODES,
        Graph,
        block_cliques,
        from_edge_index,
        planted_rgg,
        rgg_radius,
        to_graph,
    )
    from lpca_metric_embed.large import fit_active_set
    from lpca_metric_embed.losses import LOSSES, hinge, logistic, poisson, threshold
    from lpca_metric_embed.models import L2Embedding, LPCAEmbedding
    from lpca_metric_embed.recon import Mismatch, dense_mismatch, kdtree_mismatch, mismatch
    from lpca_metric_embed.search import SearchResult, find_eed, log_search, pca_init
    from lpca_metric_embed.theory import l2_to_lpca, lpca_to_l2
    from lpca_metric_embed.training import MODELS, FitResult, fit


__version__ = paperkit.package_version("iclr25-lpca-metric-embed")


__getattr__, __dir__, __all__ = paperkit.public_api(__name__)
