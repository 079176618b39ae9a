"""Human preference vectors: Moral Machine country AMCEs and speaker-weighted language vectors.

The official repo's ``data/country_specific_ACME.csv`` has columns ``Estimates, se, Label, Country``
(one row per country and attribute; Awad et al. 2018's country-level AMCEs). Labels used, in our
DIMENSIONS order: Species, Gender, Age, Fitness, Social Status, No. Characters (the per-count rows
``No. Characters_1`` .. ``_4`` are ignored; other attributes such as Intervention or Law are not ours).
The file is third-party data: it is loaded from a path the user supplies and never shipped.

    h_l = sum_c w_{c,l} h_c / sum_c w_{c,l}      (w_{c,l}: speakers of language l in country c)
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Mapping

import numpy as np

from multitp.characters import DIMENSIONS

__all__ = ["MM_LABELS", "language_vector", "load_moral_machine_amce", "write_moral_machine_csv"]

MM_LABELS = {
    "Species": "species",
    "Gender": "gender",
    "Age": "age",
    "Fitness": "fitness",
    "Social Status": "social",
    "No. Characters": "number",
}
COLUMNS = ("Estimates", "se", "Label", "Country")


def load_moral_machine_amce(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """``{country: (6,) float64}`` from a Moral Machine country-AMCE CSV (columns :data:`COLUMNS`).

    Raises ValueError naming the problem for missing columns, a missing dimension of a country, a
    duplicated (country, label) row or a non-numeric estimate.
    """
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise ValueError(f"{os.fspath(path)}: missing columns {missing}; expected {list(COLUMNS)}")
        seen: dict[str, dict[str, float]] = {}
        for i, row in enumerate(reader, start=2):
            label = row["Label"].strip()
            if label not in MM_LABELS:
                continue  # other attributes and the per-count "No. Characters_k" rows
            country, dim = row["Country"].strip(), MM_LABELS[label]
            try:
                value = float(row["Estimates"])
            except ValueError:
                raise ValueError(f"line {i}: Estimates {row['Estimates']!r} is not a number") from None
            if not math.isfinite(value):
                raise ValueError(f"line {i}: Estimates must be finite, got {value}")
            by_dim = seen.setdefault(country, {})
            if dim in by_dim:
                raise ValueError(f"line {i}: duplicate row for country {country!r}, label {label!r}")
            by_dim[dim] = value
    if not seen:
        raise ValueError(f"{os.fspath(path)}: no rows with the labels {list(MM_LABELS)}")
    out = {}
    for country, by_dim in seen.items():
        lack = [d for d in DIMENSIONS if d not in by_dim]
        if lack:
            raise ValueError(f"country {country!r} lacks the dimensions {lack}")
        out[country] = np.array([by_dim[d] for d in DIMENSIONS])
    return out


def write_moral_machine_csv(path: str | os.PathLike[str], amce: Mapping[str, np.ndarray]) -> None:
    """Write ``{country: (6,)}`` in the Moral Machine CSV format (se left at 0), e.g. for synthetic data."""
    inv = {v: k for k, v in MM_LABELS.items()}
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_NONNUMERIC)
        w.writerow(COLUMNS)
        for country, vec in amce.items():
            for d, value in zip(DIMENSIONS, np.asarray(vec, dtype=float), strict=True):
                w.writerow([float(value), 0.0, inv[d], country])


def language_vector(
    amce: Mapping[str, np.ndarray], speakers: Mapping[tuple[str, str], float], lang: str
) -> np.ndarray:
    """``(6,)`` speaker-weighted mean of the country vectors for ``lang``; ``speakers[(country, lang)]``.

    Raises ValueError if ``lang`` has no positive weight on a country of ``amce`` (or a weight is negative).
    """
    rows, w = [], []
    for (country, language), weight in speakers.items():
        if language != lang:
            continue
        if not (math.isfinite(weight) and weight >= 0):
            raise ValueError(f"speakers[({country!r}, {lang!r})] must be a finite weight >= 0, got {weight}")
        if country in amce and weight > 0:
            rows.append(np.asarray(amce[country], dtype=float))
            w.append(float(weight))
    if not w:
        raise ValueError(f"language {lang!r} has no positive speaker weight on any country of amce")
    return np.average(np.array(rows), axis=0, weights=np.array(w))
