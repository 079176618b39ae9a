"""Generators: reward samples with a trade-off (Gaussian; bounded Beta marginals via a Gaussian copula) and
a toy review grammar for the tiny LM (prompts name a topic; continuations are clauses with adjectives).

Randomness only from the explicit ``seed`` (a ``numpy.random.Generator`` is made from it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from paperkit import check_array, check_int, check_matrix_pd, check_seed
from scipy import special

__all__ = [
    "GAUSSIAN_MU",
    "GAUSSIAN_SIGMA",
    "TOPICS",
    "Review",
    "beta_copula_rewards",
    "gaussian_rewards",
    "review_corpus",
    "review_prompts",
]

#: Spec data A (i): m = 3, values 1 and 2 negatively correlated (a trade-off), value 3 mildly tied to both.
GAUSSIAN_MU = np.array([0.0, 0.5, -0.2])
GAUSSIAN_SIGMA = np.array([[1.0, -0.5, 0.2], [-0.5, 1.0, 0.1], [0.2, 0.1, 0.5]])


def gaussian_rewards(
    n: int, *, seed: int, mu: np.ndarray = GAUSSIAN_MU, Sigma: np.ndarray = GAUSSIAN_SIGMA
) -> np.ndarray:
    """(m, n) float64 draws of r ~ N(μ, Σ)."""
    n = check_int(n, "n", low=1)
    mu_a = np.asarray(check_array(mu, "mu", ndim=1, kind="fiu"), float)
    S = check_matrix_pd(Sigma, "Sigma")
    if S.shape != (mu_a.size, mu_a.size) or mu_a.size == 0:
        raise ValueError(f"Sigma must be (m, m) with m = len(mu) >= 1, got {S.shape} for m = {mu_a.size}")
    rng = np.random.default_rng(check_seed(seed))
    return mu_a[:, None] + np.linalg.cholesky(S) @ rng.standard_normal((len(mu), n))


def beta_copula_rewards(
    n: int,
    *,
    seed: int,
    corr: np.ndarray = GAUSSIAN_SIGMA,
    a: tuple[float, ...] = (2.0, 3.0, 2.0),
    b: tuple[float, ...] = (3.0, 2.0, 2.0),
) -> np.ndarray:
    """(m, n) rewards in (0, 1): Beta(a_i, b_i) marginals joined by the Gaussian copula of ``corr``
    (rescaled to unit diagonal), so that palettes near 1 are infeasible (spec data A (ii))."""
    C = np.asarray(check_matrix_pd(corr, "corr"), float)
    if C.shape[0] == 0:
        raise ValueError("corr must be (m, m) with m >= 1, got shape (0, 0)")
    for arg, vals in (("a", a), ("b", b)):
        arr = np.asarray(check_array(vals, arg, shape=(C.shape[0],), kind="fiu"), float)
        if np.any(arr <= 0):
            raise ValueError(f"{arg} must hold Beta shape parameters > 0, one per value, got {tuple(vals)}")
    d = np.sqrt(np.diag(C))
    z = gaussian_rewards(n, seed=seed, mu=np.zeros(len(C)), Sigma=C / np.outer(d, d))
    u = special.ndtr(z)  # the standard normal CDF (scipy.special: lighter to import than scipy.stats)
    return np.stack([special.betaincinv(a[i], b[i], u[i]) for i in range(len(C))])


# ----------------------------------------------------------------------------------------------------
# the toy review grammar

TOPICS: dict[str, tuple[str, ...]] = {
    "pizza": ("crust", "cheese", "sauce", "slice"),
    "hotel": ("room", "bed", "lobby", "pool"),
    "phone": ("screen", "battery", "camera", "case"),
    "movie": ("plot", "cast", "ending", "music"),
    "coffee": ("cup", "beans", "roast", "foam"),
    "laptop": ("keyboard", "display", "fan", "charger"),
}
POSITIVE = ("great", "lovely", "fresh", "perfect", "amazing", "delightful")
NEGATIVE = ("awful", "cold", "broken", "bland", "dirty", "terrible")
NEUTRAL = ("fine", "okay", "average", "plain")
INTENSIFIERS = ("very", "truly", "really")


@dataclass(frozen=True)
class Review:
    """One training pair: the prompt names a topic, the continuation reviews it."""

    prompt: str
    continuation: str


def review_prompts(n: int, *, seed: int) -> list[str]:
    """``n`` prompts ``"review of the <topic> :"`` with uniformly drawn topics."""
    rng = np.random.default_rng(check_seed(seed))
    names = list(TOPICS)
    return [f"review of the {names[i]} :" for i in rng.integers(len(names), size=check_int(n, "n", low=0))]


def _clause(rng: np.random.Generator, topic: str, mood: str) -> list[str]:
    # On topic with probability 0.7, else a part of another topic (an incoherent clause).
    other = [t for t in TOPICS if t != topic]
    src = topic if rng.random() < 0.7 else other[rng.integers(len(other))]
    parts = TOPICS[src]
    noun = src if rng.random() < 0.4 else parts[rng.integers(len(parts))]
    words = {"pos": POSITIVE, "neg": NEGATIVE, "neu": NEUTRAL}[mood]
    adj = [words[rng.integers(len(words))]]
    if mood == "pos" and rng.random() < 0.6:  # praise comes with intensifiers: positive reviews run longer
        adj = [INTENSIFIERS[rng.integers(len(INTENSIFIERS))], *adj]
    return ["the", noun, "was", *adj]


def review_corpus(n: int, *, seed: int) -> list[Review]:
    """``n`` reviews. Mood: positive 0.4, negative 0.35, neutral 0.25; positive reviews have more clauses
    (1 + Binomial(2, 0.7)) than negative or neutral ones (1 + Binomial(2, 0.2)), so positiveness and
    conciseness trade off; clauses join with "and" and the review ends with " ."."""
    rng = np.random.default_rng(check_seed(seed))
    prompts = review_prompts(check_int(n, "n", low=0), seed=int(rng.integers(2**31)))
    out = []
    for p in prompts:
        topic = p.split()[3]
        mood = ("pos", "neg", "neu")[rng.choice(3, p=[0.4, 0.35, 0.25])]
        k = 1 + rng.binomial(2, 0.7 if mood == "pos" else 0.2)
        words: list[str] = []
        for j in range(k):
            words += (["and"] if j else []) + _clause(rng, topic, mood)
        out.append(Review(p, " " + " ".join(words) + " ."))
    return out
