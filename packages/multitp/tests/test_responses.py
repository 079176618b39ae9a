"""The raw Moral Machine response loader on a small file written in SharedResponses.csv's column layout."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from multitp.characters import DIMENSIONS
from multitp.responses import MM_CHARACTER_COLUMNS, MM_RESPONSE_COLUMNS, load_moral_machine_responses

TYPES = {  # ScenarioType -> (favoured, disfavoured) AttributeLevel
    "Species": ("Hoomans", "Pets"),
    "Gender": ("Female", "Male"),
    "Age": ("Young", "Old"),
    "Fitness": ("Fit", "Fat"),
    "Social Status": ("High", "Low"),
    "Utilitarian": ("More", "Less"),
}


def _outcome_rows(rid, kind, country, *, fav_left, fav_saved, levels=None):
    """The two rows of one dilemma, every column of the official layout filled in."""
    fav, dis = levels or TYPES.get(kind, ("Rand", "Rand"))
    rows = []
    for is_fav in (True, False):
        row = dict.fromkeys(MM_RESPONSE_COLUMNS, "0")
        row.update(
            ResponseID=rid,
            ExtendedSessionID=f"s_{rid}",
            UserID="1.0e15",
            ScenarioOrder="1",
            AttributeLevel=fav if is_fav else dis,
            ScenarioTypeStrict=kind,
            ScenarioType=kind,
            DefaultChoice=fav,
            NonDefaultChoice=dis,
            NumberOfCharacters="1",
            Saved="1" if is_fav == fav_saved else "0",
            Template="Desktop",
            DescriptionShown="1",
            LeftHand="1" if is_fav == fav_left else "0",
            UserCountry3=country,
        )
        row["Man" if is_fav else "Dog"] = "1"
        rows.append(row)
    return rows


def _write(path, rows, extra_lines=()):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, MM_RESPONSE_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        for line in extra_lines:
            fh.write(line + "\n")


def test_layout_is_the_official_one():
    assert len(MM_RESPONSE_COLUMNS) == 41 and MM_RESPONSE_COLUMNS[:3] == (
        "ResponseID",
        "ExtendedSessionID",
        "UserID",
    )
    assert MM_RESPONSE_COLUMNS[16] == "Saved" and MM_RESPONSE_COLUMNS[19:21] == ("LeftHand", "UserCountry3")
    assert MM_RESPONSE_COLUMNS[21:] == MM_CHARACTER_COLUMNS and len(MM_CHARACTER_COLUMNS) == 20


def test_country_vectors_match_a_hand_count(tmp_path):
    rows = []
    # USA: species 3 of 4 dilemmas spare humans -> 2 * 3/4 - 1 = 0.5; gender 1 of 2 -> 0; number 2 of 2 -> 1
    for i, (left, saved) in enumerate([(True, True), (False, True), (True, True), (False, False)]):
        rows += _outcome_rows(f"u_sp{i}", "Species", "USA", fav_left=left, fav_saved=saved)
    rows += _outcome_rows("u_g0", "Gender", "USA", fav_left=True, fav_saved=True)
    rows += _outcome_rows("u_g1", "Gender", "USA", fav_left=False, fav_saved=False)
    rows += _outcome_rows("u_n0", "Utilitarian", "USA", fav_left=False, fav_saved=True)
    rows += _outcome_rows("u_n1", "Utilitarian", "USA", fav_left=True, fav_saved=True)
    # JPN: age spares the old once -> -1
    rows += _outcome_rows("j_a0", "Age", "JPN", fav_left=True, fav_saved=False)
    rows += _outcome_rows("j_r0", "Random", "JPN", fav_left=True, fav_saved=True)  # valid, not ours
    path = tmp_path / "SharedResponses.csv"
    _write(path, rows)
    got = load_moral_machine_responses(path)
    assert len(got) == 9 and got.bad == () and got.n_random == 1
    assert got.countries() == ("JPN", "USA")
    usa = dict(zip(DIMENSIONS, got.vector("USA"), strict=True))
    assert usa["species"] == pytest.approx(0.5) and usa["gender"] == pytest.approx(0.0)
    assert usa["number"] == pytest.approx(1.0) and np.isnan(usa["age"])
    jpn = got.vector("JPN")
    assert jpn[DIMENSIONS.index("age")] == pytest.approx(-1.0) and np.isnan(jpn[0])
    pooled = got.vector()
    assert pooled[DIMENSIONS.index("age")] == pytest.approx(-1.0) and pooled[0] == pytest.approx(0.5)
    # favoured side and P(save left) per dilemma, the records the estimator reads
    i = got.response_id.index("u_sp1")  # humans on the right, humans spared -> left not saved
    assert not got.records.favoured_left[i] and got.records.p_left[i] == 0.0
    with pytest.raises(ValueError, match="country 'FRA' has no valid dilemma"):
        got.vector("FRA")
    with pytest.raises(TypeError, match="country must be a str"):
        got.vector(1)  # type: ignore[arg-type]


def test_bad_rows_are_reported_with_line_and_reason_never_dropped_silently(tmp_path):
    rows = _outcome_rows("ok0", "Species", "USA", fav_left=True, fav_saved=True)
    both = _outcome_rows("both", "Gender", "USA", fav_left=True, fav_saved=True)
    both[1]["Saved"] = "1"
    lone = _outcome_rows("lone", "Age", "USA", fav_left=True, fav_saved=True)[:1]
    odd = _outcome_rows("odd", "Teleport", "USA", fav_left=True, fav_saved=True, levels=("A", "B"))
    mism = _outcome_rows("mism", "Age", "USA", fav_left=True, fav_saved=True, levels=("Young", "Fat"))
    nan = _outcome_rows("nan", "Fitness", "USA", fav_left=True, fav_saved=True)
    nan[0]["Saved"] = "(nan, nan)"
    path = tmp_path / "SharedResponses.csv"
    _write(path, rows + both + lone + odd + mism + nan, extra_lines=["short,row"])
    got = load_moral_machine_responses(path)
    assert got.response_id == ("ok0",)
    reasons = {b.response_id: b.reason for b in got.bad}
    assert "exactly one is spared" in reasons["both"]
    assert "1 rows share this ResponseID" in reasons["lone"]
    assert "ScenarioType 'Teleport' is unknown" in reasons["odd"]
    assert "expected 'Young' and 'Old'" in reasons["mism"]
    assert "Saved is '(nan, nan)', not 0 or 1" in reasons["nan"]
    assert "wrong number of fields" in reasons["short"]
    assert [b.line for b in got.bad] == sorted(b.line for b in got.bad)
    assert next(b.line for b in got.bad if b.response_id == "both") == 4  # header 1, ok0 on 2-3
    assert len(got.bad) == 6


def test_bad_files_raise_clear_errors(tmp_path):
    path = tmp_path / "no_saved.csv"
    path.write_text("ResponseID,ScenarioType,AttributeLevel,LeftHand,UserCountry3\nx,Age,Young,1,USA\n")
    with pytest.raises(ValueError, match=r"missing columns \['Saved'\]"):
        load_moral_machine_responses(path)
    only_bad = tmp_path / "only_bad.csv"
    _write(only_bad, _outcome_rows("lone", "Age", "USA", fav_left=True, fav_saved=True)[:1])
    with pytest.raises(ValueError, match=r"no valid dilemma \(1 bad rows or dilemmas: line 2: 1 rows share"):
        load_moral_machine_responses(only_bad)
    with pytest.raises(FileNotFoundError):
        load_moral_machine_responses(tmp_path / "absent.csv")
    with pytest.raises(TypeError, match=r"path must be a str or os\.PathLike"):
        load_moral_machine_responses(3)  # type: ignore[arg-type]  # would open file descriptor 3
