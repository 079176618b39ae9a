"""A loader for Moral Machine's raw per-respondent responses (``SharedResponses.csv``, Awad et al. 2018).

The file is third-party data (OSF project 3hvt2): it is read from a path the user supplies, never shipped.
Layout (the official MultiTP code writes its LLM answers in the same columns so that the Moral Machine
analysis code runs on them): one row per *outcome*, two rows per dilemma sharing a ``ResponseID``, with

    ResponseID, ExtendedSessionID, UserID, ScenarioOrder, Intervention, PedPed, Barrier, CrossingSignal,
    AttributeLevel, ScenarioTypeStrict, ScenarioType, DefaultChoice, NonDefaultChoice,
    DefaultChoiceIsOmission, NumberOfCharacters, DiffNumberOFCharacters, Saved, Template,
    DescriptionShown, LeftHand, UserCountry3, Man, Woman, Pregnant, Stroller, OldMan, OldWoman, Boy, Girl,
    Homeless, LargeWoman, LargeMan, Criminal, MaleExecutive, FemaleExecutive, FemaleAthlete, MaleAthlete,
    FemaleDoctor, MaleDoctor, Dog, Cat

``Saved`` is 1 on the spared outcome's row, ``LeftHand`` 1 on the row shown on the left, ``ScenarioType``
names the dimension varied (Species, Gender, Age, Fitness, Social Status, Utilitarian = number; Random
rows vary everything and are not ours) and ``AttributeLevel`` the outcome's level on it (Hoomans / Pets,
Female / Male, Young / Old, Fit / Fat, High / Low, More / Less; the first of each pair is the favoured
group of :data:`multitp.characters.FAVOURED`).

A dilemma becomes one record of :class:`multitp.preferences.Records` (dimension, favoured side, P(save
left) = 1 or 0), so the per-country vectors are :func:`multitp.preferences.preference_vector`'s
``P(spare favoured) - P(spare disfavoured)`` (not Awad et al.'s conjoint AMCE: README, Deviations).
A row that cannot be read, or a dilemma whose two rows do not make one valid choice, is never dropped
silently: it is listed in :attr:`MMResponses.bad` with its line and reason.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from multitp.characters import DIMENSIONS
from multitp.preferences import Records, preference_vector

__all__ = [
    "MM_CHARACTER_COLUMNS",
    "MM_RESPONSE_COLUMNS",
    "BadRow",
    "MMResponses",
    "load_moral_machine_responses",
]

MM_CHARACTER_COLUMNS = (
    "Man",
    "Woman",
    "Pregnant",
    "Stroller",
    "OldMan",
    "OldWoman",
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
MM_RESPONSE_COLUMNS = (
    "ResponseID",
    "ExtendedSessionID",
    "UserID",
    "ScenarioOrder",
    "Intervention",
    "PedPed",
    "Barrier",
    "CrossingSignal",
    "AttributeLevel",
    "ScenarioTypeStrict",
    "ScenarioType",
    "DefaultChoice",
    "NonDefaultChoice",
    "DefaultChoiceIsOmission",
    "NumberOfCharacters",
    "DiffNumberOFCharacters",
    "Saved",
    "Template",
    "DescriptionShown",
    "LeftHand",
    "UserCountry3",
    *MM_CHARACTER_COLUMNS,
)
# the columns this loader reads (the rest may be absent or empty)
_NEEDED = ("ResponseID", "ScenarioType", "AttributeLevel", "Saved", "LeftHand", "UserCountry3")
# ScenarioType -> (our dimension, favoured AttributeLevel, disfavoured AttributeLevel)
SCENARIO_TYPES = {
    "Species": ("species", "Hoomans", "Pets"),
    "Gender": ("gender", "Female", "Male"),
    "Age": ("age", "Young", "Old"),
    "Fitness": ("fitness", "Fit", "Fat"),
    "Social Status": ("social", "High", "Low"),
    "Utilitarian": ("number", "More", "Less"),
}


@dataclass(frozen=True)
class BadRow:
    """A row (``line``, 1-based, the header is line 1) or dilemma left out, and why."""

    line: int
    response_id: str
    reason: str


@dataclass(frozen=True)
class MMResponses:
    """The valid dilemmas as aligned ``(N,)`` arrays, and everything left out.

    Attributes:
        response_id: the dilemmas' ``ResponseID``.
        country: ``UserCountry3`` of the respondent (ISO 3166-1 alpha-3; may be ``"NA"``).
        records: :class:`multitp.preferences.Records` (``pair_id`` = the dilemma's index).
        bad: rows and dilemmas that could not be used, each with its reason.
        n_random: dilemmas of ``ScenarioType`` Random (valid, but no single dimension: not in records).
    """

    response_id: tuple[str, ...]
    country: np.ndarray
    records: Records
    bad: tuple[BadRow, ...]
    n_random: int

    def __len__(self) -> int:
        return len(self.response_id)

    def countries(self) -> tuple[str, ...]:
        """The distinct countries, sorted."""
        return tuple(sorted(set(self.country.tolist())))

    def vector(self, country: str | None = None) -> np.ndarray:
        """``(6,)`` P(spare favoured) - P(spare disfavoured) per dimension (DIMENSIONS order; NaN where the
        country has no dilemma of a dimension), over one ``country`` or, with None, all respondents."""
        if country is None:
            return preference_vector(self.records)
        if not isinstance(country, str):
            raise TypeError(f"country must be a str (UserCountry3) or None, got {type(country).__name__}")
        if country not in set(self.country.tolist()):
            raise ValueError(f"country {country!r} has no valid dilemma; countries: {list(self.countries())}")
        keep = self.country == country
        r = self.records
        return preference_vector(Records(r.dim[keep], r.favoured_left[keep], r.p_left[keep], r.pair_id[keep]))


def _rows(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, str]]]:
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        missing = [c for c in _NEEDED if c not in header]
        if missing:
            raise ValueError(
                f"{os.fspath(path)}: missing columns {missing}; a Moral Machine SharedResponses.csv has "
                f"{list(MM_RESPONSE_COLUMNS)}"
            )
        for row in reader:
            yield reader.line_num, row


def _flag(value: str | None, name: str) -> int:
    if value is None or value.strip() not in ("0", "1", "0.0", "1.0"):
        raise ValueError(f"{name} is {value!r}, not 0 or 1")
    return int(float(value))


def _dilemma(rows: list[tuple[int, dict[str, str]]]) -> tuple[str, int, int, int] | None:
    """``(country, dim index or -1 for Random, favoured-on-left, left saved)``; raises ValueError(reason)."""
    if len(rows) != 2:
        raise ValueError(f"{len(rows)} rows share this ResponseID (a dilemma has 2)")
    (_, a), (_, b) = rows
    saved = (_flag(a.get("Saved"), "Saved"), _flag(b.get("Saved"), "Saved"))
    left = (_flag(a.get("LeftHand"), "LeftHand"), _flag(b.get("LeftHand"), "LeftHand"))
    if sum(saved) != 1:
        raise ValueError(f"Saved is {saved[0]} and {saved[1]} on the two rows (exactly one is spared)")
    if sum(left) != 1:
        raise ValueError(f"LeftHand is {left[0]} and {left[1]} on the two rows (exactly one is on the left)")
    kind = (a.get("ScenarioType") or "").strip()
    if kind != (b.get("ScenarioType") or "").strip():
        raise ValueError(f"the two rows' ScenarioType differ ({kind!r}, {b.get('ScenarioType')!r})")
    country = (a.get("UserCountry3") or "").strip()
    if kind == "Random":
        return None
    if kind not in SCENARIO_TYPES:
        raise ValueError(f"ScenarioType {kind!r} is unknown; expected one of {[*SCENARIO_TYPES, 'Random']}")
    dim, fav, disfav = SCENARIO_TYPES[kind]
    levels = ((a.get("AttributeLevel") or "").strip(), (b.get("AttributeLevel") or "").strip())
    if sorted(levels) != sorted((fav, disfav)):
        raise ValueError(
            f"AttributeLevel is {levels} for ScenarioType {kind!r}; expected {fav!r} and {disfav!r}"
        )
    i_fav = levels.index(fav)
    i_left = left.index(1)
    return country, DIMENSIONS.index(dim), int(i_fav == i_left), saved[i_left]


def load_moral_machine_responses(path: str | os.PathLike[str]) -> MMResponses:
    """Read a Moral Machine ``SharedResponses.csv`` (columns :data:`MM_RESPONSE_COLUMNS`; only ResponseID,
    ScenarioType, AttributeLevel, Saved, LeftHand and UserCountry3 are needed).

    Raises FileNotFoundError for a missing file, ValueError for missing columns or when no dilemma is
    valid (with the first reasons). Bad rows and dilemmas are returned in ``bad``, never dropped silently.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike (a CSV file), got {type(path).__name__}")
    groups: dict[str, list[tuple[int, dict[str, str]]]] = {}
    bad: list[BadRow] = []
    for line, row in _rows(path):
        if None in row or any(v is None for v in row.values()):
            bad.append(BadRow(line, row.get("ResponseID") or "", "wrong number of fields"))
            continue
        rid = (row.get("ResponseID") or "").strip()
        if not rid:
            bad.append(BadRow(line, "", "empty ResponseID"))
            continue
        groups.setdefault(rid, []).append((line, row))
    ids, countries, cols, n_random = [], [], [], 0
    for rid, rows in groups.items():
        try:
            got = _dilemma(rows)
        except ValueError as err:
            bad.append(BadRow(rows[0][0], rid, str(err)))
            continue
        if got is None:
            n_random += 1
            continue
        ids.append(rid)
        countries.append(got[0])
        cols.append(got[1:])
    if not ids:
        first = (
            "; ".join(f"line {b.line}: {b.reason}" for b in bad[:3]) or "no dilemma of a known ScenarioType"
        )
        raise ValueError(f"{os.fspath(path)}: no valid dilemma ({len(bad)} bad rows or dilemmas: {first})")
    arr = np.asarray(cols, dtype=np.int64).reshape(-1, 3)
    records = Records(arr[:, 0], arr[:, 1].astype(bool), arr[:, 2].astype(float), np.arange(len(ids)))
    bad.sort(key=lambda b: b.line)
    return MMResponses(tuple(ids), np.asarray(countries, dtype=object), records, tuple(bad), n_random)
