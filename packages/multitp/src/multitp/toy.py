"""The synthetic study: logistic respondents per language and their training texts for the tiny LM.

Respondent of language l (spec, "Small-scale reproduction"):

    P(spare left) = sigmoid( beta_l . (f(left) - f(right)) + gamma_l ),

f = the summed attribute vectors of :mod:`multitp.characters`, gamma_l a small position bias. Its exact
AMCE on a set of vignettes is ``2 mean(P(spare favoured)) - 1`` (:func:`expected_amce`); the population
value is that mean over a large fixed sample of the generator (:func:`population_amce`).

:func:`make_respondents`: a shared beta; respondent l flips the sign of dimension l (mod 6) and gets
gamma = +-0.2, so every pair of languages differs by >= 0.3 on some dimension (checked in the tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from paperkit import check_int, check_seed

from multitp.characters import ATTRIBUTES, CHARACTERS, DIMENSIONS
from multitp.vignettes import Vignette, generate_all

if TYPE_CHECKING:
    from multitp.render import SyntheticLanguage

__all__ = [
    "BASE_BETA",
    "SyntheticRespondent",
    "expected_amce",
    "features",
    "make_respondents",
    "population_amce",
    "train_texts",
]

# ours: per unit attribute difference; species strongest, as in Moral Machine's humans (Awad et al. Fig. 2)
BASE_BETA = (1.0, 0.25, 0.45, 0.3, 0.35, 0.5)


_INDEX = {c: i for i, c in enumerate(CHARACTERS)}
_ATTR = np.array([ATTRIBUTES[c] for c in CHARACTERS])  # (20, 6)


def features(vignettes: Sequence[Vignette]) -> np.ndarray:
    """``(N, 6)`` float64: f(left) - f(right) (character counts times the attribute table, vectorised)."""
    rows = [i for i, v in enumerate(vignettes) for _ in v.left] + [
        i for i, v in enumerate(vignettes) for _ in v.right
    ]
    cols = [_INDEX[c] for v in vignettes for c in v.left] + [_INDEX[c] for v in vignettes for c in v.right]
    sign = np.r_[np.ones(sum(len(v.left) for v in vignettes)), -np.ones(sum(len(v.right) for v in vignettes))]
    counts = np.zeros((len(vignettes), len(CHARACTERS)))
    np.add.at(counts, (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)), sign)
    return counts @ _ATTR


@dataclass(frozen=True)
class SyntheticRespondent:
    """``beta``: 6 weights (DIMENSIONS order); ``gamma``: bias towards sparing the left group."""

    beta: tuple[float, ...]
    gamma: float = 0.0

    def __post_init__(self) -> None:
        if len(self.beta) != len(DIMENSIONS) or not np.all(np.isfinite(self.beta)):
            raise ValueError(f"beta must be {len(DIMENSIONS)} finite numbers, got {self.beta}")
        if not np.isfinite(self.gamma):
            raise ValueError(f"gamma must be finite, got {self.gamma}")

    def p_left(self, vignettes: Sequence[Vignette]) -> np.ndarray:
        """``(N,)`` exact P(spare left)."""
        z = features(vignettes) @ np.asarray(self.beta) + self.gamma
        return 1.0 / (1.0 + np.exp(-z))

    def sample(self, vignettes: Sequence[Vignette], seed: int) -> np.ndarray:
        """``(N,)`` 1.0 (left spared) / 0.0 answers drawn with ``seed``."""
        rng = np.random.default_rng(check_seed(seed))
        return (rng.random(len(vignettes)) < self.p_left(vignettes)).astype(float)


def expected_amce(resp: SyntheticRespondent, vignettes: Sequence[Vignette]) -> np.ndarray:
    """``(6,)`` the respondent's exact AMCE on ``vignettes`` (NaN for a dimension without vignettes)."""
    from multitp.preferences import preference_vector, records

    return preference_vector(records(vignettes, resp.p_left(vignettes)))


def population_amce(resp: SyntheticRespondent, n_per_dim: int = 20_000, seed: int = 12345) -> np.ndarray:
    """``(6,)`` AMCE over a large fixed generator sample, both orders (ground truth for the estimator)."""
    return expected_amce(resp, generate_all(n_per_dim, seed))


def make_respondents(n: int, *, flip: float = 1.0) -> list[SyntheticRespondent]:
    """``n`` respondents: BASE_BETA with dimension ``l % 6`` scaled by ``-flip``; gamma alternates +-0.2."""
    check_int(n, "n", low=1)
    out = []
    for lang in range(n):
        beta = list(BASE_BETA)
        beta[lang % len(beta)] *= -flip
        out.append(SyntheticRespondent(tuple(beta), 0.2 if lang % 2 == 0 else -0.2))
    return out


def train_texts(
    lang: SyntheticLanguage, resp: SyntheticRespondent, n: int, *, paraphrases: Sequence[int], seed: int
) -> tuple[list[str], list[str]]:
    """``(prompts, answers)``: ``n`` vignettes (balanced over dimensions, one random order each) rendered in
    ``lang`` with a paraphrase drawn from ``paraphrases``, each answered by a draw from ``resp``."""
    per_dim = -(-n // len(DIMENSIONS))
    vig = generate_all(per_dim, seed, both_orders=False)
    rng = np.random.default_rng([check_seed(seed), 1])
    vig = [vig[i] for i in rng.permutation(len(vig))[:n]]
    para = rng.choice(np.asarray(paraphrases), len(vig))
    choice = resp.sample(vig, seed + 7)
    prompts = [lang.render(v, int(p)) for v, p in zip(vig, para, strict=True)]
    answers = [lang.answers[0] if c else lang.answers[1] for c in choice]
    return prompts, answers
