"""Anatomy tables and masks against the spec's numbers and binomial statistics."""

from __future__ import annotations

import numpy as np
import pytest
from barrel_snn.anatomy import (
    FULL_SIZES,
    P_REC,
    P_THAL,
    POPULATIONS,
    build_masks,
    population_sizes,
    population_slices,
)


def test_population_table_matches_the_paper():
    assert sum(FULL_SIZES) == 4218
    assert sum(p.size for p in POPULATIONS if p.layer == "L4") == 1561
    assert sum(p.size for p in POPULATIONS if p.layer == "L2/3") == 2657
    assert [p.kind for p in POPULATIONS] == list("EEIIE") + ["I"] * 8
    assert int((P_THAL > 0).sum()) == 11
    assert int((P_REC > 0).sum()) == 113
    expected = float((P_REC * np.outer(FULL_SIZES, FULL_SIZES)).sum())
    assert expected == pytest.approx(1.243e6, rel=1e-3)  # spec: about 1.24 M synapses


def test_scaled_sizes_keep_every_population():
    sizes = population_sizes(0.01)
    assert min(sizes) == 1 and sizes[4] == round(2232 * 0.01)
    assert population_sizes(1.0) == FULL_SIZES
    sl = population_slices(sizes)
    assert sl[0].start == 0 and sl[-1].stop == sum(sizes)


def test_mask_density_within_three_sigma():
    thal, rec = build_masks(1.0, seed=3)
    assert len(thal) == 11 and len(rec) == 113
    checked = 0
    for (j, i), m in rec.items():
        n = m.size
        p = P_REC[j, i]
        if n * p * (1 - p) < 400:  # large blocks only
            continue
        sd = np.sqrt(p * (1 - p) / n)
        assert abs(m.mean() - p) < 3 * sd, (j, i, m.mean(), p)
        checked += 1
    assert checked > 50
    for i, m in thal.items():
        assert m.shape == (200, FULL_SIZES[i])


@pytest.mark.parametrize("bad", [0, -0.5, 1.5, float("nan")])
def test_bad_scale_is_refused(bad):
    with pytest.raises(ValueError, match="scale must be a finite number in"):
        population_sizes(bad)


def test_scale_of_wrong_type_is_refused():
    with pytest.raises(TypeError, match="scale must be a finite number"):
        population_sizes("0.5")  # type: ignore[arg-type]
