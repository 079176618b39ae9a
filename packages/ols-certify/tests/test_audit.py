"""The user entry ``audit``: certificate, candidate sets, summary and plot, on data with names."""

from __future__ import annotations

import numpy as np
import pytest
from ols_certify import audit, brute_force, certify


def test_audit_on_diabetes_brackets_the_truth():
    from sklearn.datasets import load_diabetes

    data = load_diabetes()
    res = audit(data.data, data.target, "s1", add_intercept=True, names=data.feature_names, k_max=30)
    assert res.coef == "s1" and res.names[0] == "const"
    cert = res.certificate
    assert cert.k_lb == certify(np.column_stack([np.ones(442), data.data]), data.target, 5, k_max=30).k_lb
    assert res.k_upper is not None and 1 <= cert.k_lb <= res.k_upper
    # the KZC21 candidate set really flips the sign when removed
    keep = np.setdiff1d(np.arange(442), res.kzc21.removal_set)
    X = np.column_stack([np.ones(442), data.data])
    b = np.linalg.lstsq(X[keep], data.target[keep], rcond=None)[0][5]
    assert np.sign(b) != np.sign(cert.beta_e)
    text = res.summary()
    assert "coefficient 's1'" in text and f"k_LB = {cert.k_lb}" in text and "lies in" in text
    assert res.freund_hopkins is not None and res.freund_hopkins.k_lb <= cert.k_lb


def test_audit_plot_has_the_curves_and_threshold(rng):
    X = np.column_stack([np.ones(300), rng.normal(size=(300, 3))])
    y = 0.3 * X[:, 1] + rng.normal(size=300)
    res = audit(X, y, 1, ("se", 2.0), k_max=40)
    fig = res.plot()
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("ACRE" in s for s in labels) and any("threshold" in s for s in labels)
    assert any("KZC21" in s for s in labels) and any("Freund" in s for s in labels)
    assert ax.get_xscale() == "log" and "removed samples" in ax.get_xlabel()


def test_audit_agrees_with_brute_force_on_a_tiny_problem(rng):
    X = np.column_stack([np.ones(14), rng.normal(size=14)])
    y = 0.8 * X[:, 1] + rng.standard_t(3, size=14)
    res = audit(X, y, 1, k_max=4, freund_hopkins=False)
    bf = brute_force(X, y, 1, 4)
    assert res.freund_hopkins is None
    assert np.all(res.certificate.bounds.total >= bf.at_most - 1e-9)  # sound for every k, not only at k_LB
    assert np.all(res.kzc21.effects <= bf.at_most + 1e-9) and np.all(res.amip.effects <= bf.at_most + 1e-9)
    if bf.k_true is not None:
        assert res.certificate.k_lb <= bf.k_true <= (res.k_upper or 99)


@pytest.mark.parametrize(
    ("X", "coef", "names", "err", "match"),
    [
        (np.ones((20, 2)), 0, None, ValueError, "rank-deficient"),
        (np.zeros(20), 0, None, ValueError, "2-D"),
        ([["a", "b"]] * 20, 0, None, TypeError, "numeric arrays"),
        (None, "zz", ["a", "b"], ValueError, "not a column name"),
        (None, 0, ["a"], ValueError, "names has 1 entries"),
    ],
)
def test_audit_bad_input(rng, X, coef, names, err, match):
    if X is None:
        X = rng.normal(size=(20, 2))
    with pytest.raises(err, match=match):
        audit(X, rng.normal(size=20), coef, names=names, add_intercept=True)


def test_audit_refuses_a_design_containing_y_or_fitting_it_exactly(rng):
    X = rng.normal(size=(40, 2))
    y = rng.normal(size=40)
    with pytest.raises(
        ValueError, match=r"X column 'y' \(index 3\) equals y: the design contains the response"
    ):
        audit(np.column_stack([X, y]), y, "a", names=["a", "b", "y"], add_intercept=True)
    with pytest.raises(ValueError, match="the residuals are zero"):
        audit(X, 3 * X[:, 0] - X[:, 1] + 2, 0, add_intercept=True)
    with pytest.raises(ValueError, match="the residuals are zero"):
        audit(X, np.zeros(40), 0, add_intercept=True)


def test_certify_refuses_an_exact_fit_that_the_candidate_finders_accept(rng):
    from ols_certify import certify, kzc21

    X = np.column_stack([np.ones(30), rng.normal(size=30)])
    y = 2 * X[:, 1] - 1
    with pytest.raises(ValueError, match="the residuals are zero"):
        certify(X, y, 1)
    assert kzc21(X, y, 1, 3).k is None  # no removal moves an exact fit
