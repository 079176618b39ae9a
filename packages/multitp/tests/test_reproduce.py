"""Claims recomputed from synthetic inputs and at smoke scale."""

from __future__ import annotations

import numpy as np
import pytest
from multitp.reproduce.claims import identifiability, paraphrase_ratio
from multitp.reproduce.config import Config


def test_identifiability_on_exact_vectors():
    truth = np.eye(4)
    n, margin, _ = identifiability(truth.copy(), truth)
    assert n == 4 and margin == pytest.approx(np.sqrt(2))
    n, _, _ = identifiability(truth[[1, 0, 2, 3]], truth)
    assert n == 2


def test_paraphrase_ratio_zero_without_paraphrase_variation():
    m = np.repeat(np.random.default_rng(0).normal(size=(6, 1, 6)), 3, axis=1)
    assert paraphrase_ratio(m)[0] == pytest.approx(0.0, abs=1e-12)


def test_config_validation():
    with pytest.raises(ValueError, match="steps"):
        Config(steps=0)
    assert Config.quick().steps < Config().steps
