"""Moral Machine's 20 characters, the six dimensions and each character's attribute vector.

Characters and pools follow the official generator (causalNLP/moralmachine ``code/question_generator.py``);
the (disfavoured, favoured) reading of each dimension follows ``code/step7_get_vectors.py``:
Species (animals, humans), Gender (male, female), Age (old, young), Fitness (unfit, fit),
Social status (low, high), Number of lives (fewer, more).

``ATTRIBUTES[c]`` is a character's vector over :data:`DIMENSIONS` (ours, for the toy respondent): species 1
for a human, 0 for an animal; gender +1 female / -1 male / 0 otherwise; age +1 young / -1 elderly; fitness
+1 athlete / -1 large; social +1 high-status pool / -1 low-status pool; number 1 for every character.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ANIMALS", "ATTRIBUTES", "CHARACTERS", "DIMENSIONS", "FAVOURED", "HUMANS", "POOLS", "attributes"]

CHARACTERS = (
    "Man",
    "Woman",
    "ElderlyMan",
    "ElderlyWoman",
    "Pregnant",
    "Stroller",
    "Boy",
    "Girl",
    "Homeless",
    "LargeWoman",
    "LargeMan",
    "Criminal",
    "MaleExecutive",
    "FemaleExecutive",
    "FemaleAthlete",
    "MaleAthlete",
    "FemaleDoctor",
    "MaleDoctor",
    "Dog",
    "Cat",
)
ANIMALS = ("Dog", "Cat")
HUMANS = tuple(c for c in CHARACTERS if c not in ANIMALS)
DIMENSIONS = ("species", "gender", "age", "fitness", "social", "number")
# (disfavoured, favoured) group names of each dimension (step7_get_vectors.py's ``groups``)
FAVOURED = {
    "species": ("animals", "humans"),
    "gender": ("male", "female"),
    "age": ("old", "young"),
    "fitness": ("unfit", "fit"),
    "social": ("low", "high"),
    "number": ("fewer", "more"),
}
# the pools gen_prompts_df draws from; index-matched lists where the repo matches by index
POOLS = {
    "female": (
        "Woman",
        "ElderlyWoman",
        "Girl",
        "LargeWoman",
        "FemaleExecutive",
        "FemaleAthlete",
        "FemaleDoctor",
    ),
    "male": ("Man", "ElderlyMan", "Boy", "LargeMan", "MaleExecutive", "MaleAthlete", "MaleDoctor"),
    "young": ("Boy", "Girl"),
    "adult": ("Man", "Woman"),
    "elderly": ("ElderlyMan", "ElderlyWoman"),
    "fit": ("MaleAthlete", "FemaleAthlete"),
    "unfit": ("LargeMan", "LargeWoman"),
    "low": ("Homeless", "Criminal"),
    "neutral": ("Man", "Woman"),
    "high": ("Pregnant", "MaleExecutive", "FemaleExecutive", "MaleDoctor", "FemaleDoctor"),
}

_FEMALE = {*POOLS["female"], "Pregnant"}
_MALE = set(POOLS["male"])


def _vector(c: str) -> tuple[float, ...]:
    return (
        0.0 if c in ANIMALS else 1.0,
        1.0 if c in _FEMALE else (-1.0 if c in _MALE else 0.0),
        1.0 if c in POOLS["young"] else (-1.0 if c in POOLS["elderly"] else 0.0),
        1.0 if c in POOLS["fit"] else (-1.0 if c in POOLS["unfit"] else 0.0),
        1.0 if c in POOLS["high"] else (-1.0 if c in POOLS["low"] else 0.0),
        1.0,
    )


ATTRIBUTES = {c: _vector(c) for c in CHARACTERS}


def attributes(side: tuple[str, ...] | list[str]) -> np.ndarray:
    """``(6,)`` float64: the sum of the characters' attribute vectors (the counts the respondent sees)."""
    return np.sum([ATTRIBUTES[c] for c in side], axis=0) if side else np.zeros(len(DIMENSIONS))
