"""ASB's PPL detector for memory poisoning: score a plan by its mean token NLL under a reference LM
(official ``memory_defense/ppl_utils.py``, facebook/opt-2.7b; here any HF causal LM, e.g. the toy LM),
flag it when the score exceeds a threshold (in nats per token: log-perplexity, not perplexity), and sweep
thresholds for the FPR / FNR curve (one scoring pass; thresholds are free).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from paperkit import check_strings

from asb.metrics import fpr_fnr

__all__ = ["mean_nll", "ppl_flags", "threshold_sweep"]


def mean_nll(texts: Sequence[str], model: Any, tokenizer: Any, *, device: str = "cpu") -> np.ndarray:
    """Mean NLL (nats per predicted token) of each text as ``[bos] + tokens`` (shifted, as HF's ``loss``)."""
    import torch

    texts = check_strings(texts, "texts")
    out = []
    with torch.no_grad():
        for t in texts:
            ids = [tokenizer.bos_token_id, *tokenizer(t, add_special_tokens=False)["input_ids"]]
            x = torch.tensor([ids], device=device)
            logits = model(input_ids=x).logits[0, :-1]
            out.append(float(torch.nn.functional.cross_entropy(logits, x[0, 1:])))
    return np.asarray(out)


def ppl_flags(scores: Sequence[float], threshold: float) -> np.ndarray:
    """Flag as poisoned every plan whose mean NLL is above ``threshold``."""
    s = np.asarray(scores, dtype=float)
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be finite, got {threshold!r}")
    return s > threshold


def threshold_sweep(
    scores: Sequence[float], labels: Sequence[bool], thresholds: Sequence[float]
) -> list[tuple[float, float, float]]:
    """``(threshold, FPR, FNR)`` for each threshold."""
    return [(float(t), *fpr_fnr(list(ppl_flags(scores, t)), list(labels))) for t in thresholds]
