"""Human vectors (CSV loader in the Moral Machine format, language weighting) and MIS / consistency."""

from __future__ import annotations

import numpy as np
import pytest
from multitp.human import language_vector, load_moral_machine_amce, write_moral_machine_csv
from multitp.metrics import fleiss_kappa, global_mis, mis, order_consistency, paraphrase_consistency
from multitp.preferences import records
from multitp.vignettes import generate

HEADER = '"Estimates","se","Label","Country"\n'
ROWS = {
    "Species": 0.6,
    "Gender": 0.1,
    "Age": 0.4,
    "Fitness": 0.2,
    "Social Status": 0.3,
    "No. Characters": 0.5,
}


def _write(path, countries=("ABW", "FRA"), extra=""):
    lines = [HEADER]
    for k, c in enumerate(countries):
        lines += [f'{v + k},{0.01},"{label}","{c}"\n' for label, v in ROWS.items()]
        lines += [f'0.9,0.1,"Intervention","{c}"\n', f'0.7,0.1,"No. Characters_2","{c}"\n']
    path.write_text("".join(lines) + extra)
    return path


def test_loader_reads_the_official_format_and_ignores_other_labels(tmp_path):
    amce = load_moral_machine_amce(_write(tmp_path / "mm.csv"))
    assert set(amce) == {"ABW", "FRA"}
    np.testing.assert_allclose(amce["ABW"], [0.6, 0.1, 0.4, 0.2, 0.3, 0.5])
    np.testing.assert_allclose(amce["FRA"], np.array([0.6, 0.1, 0.4, 0.2, 0.3, 0.5]) + 1)
    write_moral_machine_csv(tmp_path / "again.csv", amce)
    back = load_moral_machine_amce(tmp_path / "again.csv")
    assert all(np.allclose(back[c], amce[c]) for c in amce)


def test_loader_refuses_duplicates_missing_dimensions_and_columns(tmp_path):
    with pytest.raises(ValueError, match="duplicate"):
        load_moral_machine_amce(_write(tmp_path / "a.csv", extra='0.1,0.1,"Age","ABW"\n'))
    p = tmp_path / "b.csv"
    p.write_text(HEADER + '0.1,0.1,"Age","ABW"\n')
    with pytest.raises(ValueError, match="lacks the dimensions"):
        load_moral_machine_amce(p)
    p.write_text('"Estimates","Label"\n0.1,"Age"\n')
    with pytest.raises(ValueError, match="missing columns"):
        load_moral_machine_amce(p)
    p.write_text(HEADER + 'abc,0.1,"Age","ABW"\n')
    with pytest.raises(ValueError, match="not a number"):
        load_moral_machine_amce(p)


def test_language_vector_single_country_weights_and_scale_invariance():
    amce = {"A": np.arange(6.0), "B": np.ones(6)}
    np.testing.assert_allclose(language_vector(amce, {("A", "x"): 5.0}, "x"), amce["A"])
    w = {("A", "x"): 1.0, ("B", "x"): 3.0}
    v = language_vector(amce, w, "x")
    np.testing.assert_allclose(v, (amce["A"] + 3 * amce["B"]) / 4)
    np.testing.assert_allclose(language_vector(amce, {k: 7 * x for k, x in w.items()}, "x"), v)
    with pytest.raises(ValueError, match="no positive speaker weight"):
        language_vector(amce, {("A", "x"): 0.0}, "x")
    with pytest.raises(ValueError, match="no positive speaker weight"):
        language_vector(amce, w, "klingon")


def test_mis_is_a_metric():
    rng = np.random.default_rng(0)
    a, b, c = rng.normal(size=(3, 6))
    assert mis(a, b) == pytest.approx(mis(b, a)) and mis(a, a) == 0 and mis(a, b) > 0
    assert mis(a, c) <= mis(a, b) + mis(b, c) + 1e-12
    assert mis(np.zeros(6), np.full(6, 0.5)) == pytest.approx(np.sqrt(6) * 0.5)
    with pytest.raises(ValueError, match="equal-length"):
        mis(a, b[:3])


def test_global_mis_weights_and_nan_language_is_left_out_with_a_warning():
    assert global_mis({"x": 1.0, "y": 3.0}, {"x": 1, "y": 3}) == pytest.approx(2.5)
    with pytest.warns(UserWarning, match="leaves out"):
        assert global_mis({"x": 1.0, "y": float("nan")}, {"x": 1, "y": 3}) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no language"):
        global_mis({"x": float("nan")}, {"x": 1})


def test_consistency_measures():
    p = np.array([[1, 1, 1], [0, 0, 0], [1, 0, 1], [0, 1, 1]], float)
    out = paraphrase_consistency(p)
    assert out["agreement"] == pytest.approx((1 + 1 + 1 / 3 + 1 / 3) / 4)
    assert fleiss_kappa(np.array([[1, 1], [0, 0]])) == pytest.approx(1.0)
    vig = generate("age", 20, seed=0)
    assert order_consistency(records(vig, np.ones(len(vig)))) == 0.0  # always-left never saves the same group
    fav = np.array([1.0 if v.favoured_side == 0 else 0.0 for v in vig])
    assert order_consistency(records(vig, fav)) == 1.0
    with pytest.raises(ValueError, match="paraphrases"):
        paraphrase_consistency(np.ones(3))
