"""Metrics: LOF plausibility against its defining behaviour, cost and validity by hand."""

from __future__ import annotations

import numpy as np
from genre import cost_l1, evaluate, fit_lof, immutable_violation, load_moons, lof_inliers, validity
from sklearn.linear_model import LogisticRegression


def test_lof_training_positives_are_inliers_and_far_points_are_not():
    ds = load_moons(0)
    lof = fit_lof(ds.gold, ds.X_all)
    pos = ds.X_all[ds.gold.predict_proba(ds.X_all)[:, 1] > 0.5]
    assert lof_inliers(lof, pos).mean() >= 0.9
    far = np.array([[3.0, 3.0], [-2.0, 0.5], [0.5, -2.0]])
    assert not lof_inliers(lof, far).any()
    neg = ds.X_all[ds.gold.predict_proba(ds.X_all)[:, 1] < 0.1]  # the other moon
    assert lof_inliers(lof, neg).mean() < 0.2


def test_cost_validity_and_evaluate_by_hand():
    X = np.array([[0.0, 0.0], [0.5, 0.5]])
    cf = np.array([[0.2, -0.1], [0.5, 1.0]])
    np.testing.assert_allclose(cost_l1(X, cf), [0.3, 0.5])
    clf = LogisticRegression().fit(np.array([[0.0, 0.0], [1.0, 1.0]] * 5), np.array([0, 1] * 5))
    assert validity(clf, cf).tolist() == (clf.predict_proba(cf)[:, 1] > 0.5).tolist()
    assert immutable_violation(X, cf, np.array([False, True])).tolist() == [True, True]
    assert immutable_violation(X, cf, np.array([True, False])).tolist() == [True, False]
    ds = load_moons(0)
    lof = fit_lof(ds.gold, ds.X_all)
    m = evaluate(X, cf, clf, ds.gold, lof)
    assert m["cost"] == 0.4 and m["immutable_violation"] == 0.0
    assert set(m) == {
        "cost",
        "cost_std",
        "validity",
        "gold_validity",
        "gold_prob",
        "lof_inlier",
        "valid_plausible",
        "immutable_violation",
    }
