"""MAP decoding (the official "MC" aligned model, ``gendata.generate_from_MC_aligned_model``): for each
prompt draw K continuations from p0, score them with every value, and keep one with probability
∝ exp(λᵀr) within the prompt. This realises the per-prompt tilt p0(y|x)·exp(λᵀr)/Z(x, λ) as K → ∞.

The selection is vectorised with the Gumbel-max trick: argmax_k (λᵀr_k + G_k), G_k i.i.d. Gumbel(0, 1),
drawn from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import check_array, check_int, check_seed, check_strings

from map_palette.values import Value, score_values

__all__ = ["Decoded", "map_decode", "map_select", "sample_candidates", "selection_weights"]


def selection_weights(R: object, lam: object, k: int) -> np.ndarray:
    """(P, K) within-prompt probabilities softmax_k(λᵀr) for candidates laid out prompt-major (n = P·K)."""
    R_arr = np.asarray(check_array(R, "R", ndim=2), float)
    k = check_int(k, "k", low=1)
    lam_a = np.asarray(check_array(lam, "lam", shape=(R_arr.shape[0],), kind="fiu"), float)
    if np.any(lam_a < 0):
        raise ValueError(f"lam must be >= 0 (the tilt exp(λᵀr) of MAP), got min {lam_a.min():.6g}")
    if R_arr.shape[1] == 0 or R_arr.shape[1] % k:
        raise ValueError(
            f"R must hold K = {k} candidates for each prompt (n a positive multiple of k), "
            f"got n = {R_arr.shape[1]}"
        )
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        s = (lam_a @ R_arr).reshape(-1, k)
    if not np.all(np.isfinite(s)):
        raise ValueError("lam is too large for R: the scores λᵀr overflow to inf (rescale lam or R)")
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def map_select(R: object, lam: object, k: int, *, seed: int) -> np.ndarray:
    """(P,) index in 0..K-1 of the kept candidate of each prompt, drawn ∝ exp(λᵀr) (Gumbel-max)."""
    w = selection_weights(R, lam, k)
    rng = np.random.default_rng(check_seed(seed))
    with np.errstate(divide="ignore"):
        logits = np.log(w)
    return np.argmax(logits + rng.gumbel(size=w.shape), axis=1)


def sample_candidates(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    *,
    k: int,
    max_new_tokens: int,
    seed: int,
    device: str = "cpu",
    batch_size: int = 256,
) -> list[str]:
    """P·K continuations sampled at temperature 1 (paperkit.lm), prompt-major: K for prompt 0, then 1, ..."""
    from paperkit.lm import generate

    prompts = check_strings(prompts, "prompts")
    k = check_int(k, "k", low=1)
    if not prompts:
        raise ValueError("prompts is empty: give at least one prompt")
    rep = [p for p in prompts for _ in range(k)]
    return generate(
        model,
        tokenizer,
        rep,
        max_new_tokens=check_int(max_new_tokens, "max_new_tokens", low=1),
        temperature=1.0,
        seed=check_seed(seed),
        batch_size=batch_size,
        device=device,
    )


@dataclass(frozen=True)
class Decoded:
    """MAP-decoded outputs.

    Attributes:
        texts: (P,) the kept continuation of each prompt.
        candidates: (P·K,) every sampled continuation, prompt-major.
        R: (m, P·K) their rewards.
        chosen: (P,) index of the kept candidate within its prompt.
        weights: (P, K) the selection probabilities.
    """

    texts: list[str]
    candidates: list[str]
    R: np.ndarray
    chosen: np.ndarray
    weights: np.ndarray


def map_decode(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    values: Sequence[Value],
    lam: object,
    *,
    k: int = 32,
    max_new_tokens: int = 50,
    seed: int,
    device: str = "cpu",
) -> Decoded:
    """Sample K continuations per prompt from ``model`` and keep one ∝ exp(λᵀr) (official defaults K = 32,
    ≤ 50 new tokens, temperature 1)."""
    prompts = check_strings(prompts, "prompts")
    if not prompts:
        raise ValueError("prompts is empty: give at least one prompt")
    if not hasattr(model, "parameters"):
        raise TypeError(f"model must be a torch causal LM (a Hugging Face model), got {type(model).__name__}")
    if isinstance(values, str) or not isinstance(values, Sequence) or len(values) == 0:
        raise ValueError("values must be a non-empty sequence of value callables")
    lam_a = np.asarray(check_array(lam, "lam", shape=(len(values),), kind="fiu"), float)
    if np.any(lam_a < 0):
        raise ValueError(f"lam must be >= 0 (the tilt exp(λᵀr) of MAP), got min {lam_a.min():.6g}")
    k, seed = check_int(k, "k", low=1), check_seed(seed)
    from paperkit.lm.models import check_device

    check_device(model, device)  # names the argument; also refuses a model that is elsewhere
    cands = sample_candidates(
        model, tokenizer, prompts, k=k, max_new_tokens=max_new_tokens, seed=seed, device=device
    )
    rep = [p for p in prompts for _ in range(k)]
    R = score_values(values, rep, cands)
    chosen = map_select(R, lam, k, seed=seed)
    texts = [cands[i * k + int(j)] for i, j in enumerate(chosen)]
    return Decoded(texts, cands, R, chosen, selection_weights(R, lam, k))
