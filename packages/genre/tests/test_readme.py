"""The README's Python example runs as written; it is also the spec's end-to-end check: on moons with a
fixed seed GenRe's recourse is valid under h (and the gold model) for >= 90 % of the negatives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from shared_testing import run_readme

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_runs_and_is_valid():
    ns = run_readme(README, blocks=1)
    X_neg, X_cf, clf, ds = ns["X_neg"], ns["X_cf"], ns["clf"], ns["ds"]
    assert X_cf.shape == X_neg.shape and len(X_neg) >= 30
    assert (clf.predict_proba(X_cf)[:, 1] > 0.5).mean() >= 0.9
    assert (ds.gold.predict_proba(X_cf)[:, 1] > 0.5).mean() >= 0.9
    assert np.all(np.abs(X_cf - X_neg).sum(1) == ns["cost"])
