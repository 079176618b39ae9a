"""Fitness evaluation cost: our vectorised tree prediction vs scikit-learn's compiled ``predict`` (the named
peer) and vs a row-by-row walk (how the official code predicts, with pandas ``iterrows``; here a plain
Python loop over numpy rows, which is faster than that). Process CPU time, after warm-up, interleaved
repetitions, one run: ``python benchmarks/bench_predict.py``.
"""

from __future__ import annotations

import time

import numpy as np
from llego.data import load, split
from llego.tree import Leaf, from_sklearn, predict
from sklearn.tree import DecisionTreeClassifier


def row_by_row(t, X, cols):
    out = np.empty(X.shape[0])
    for i, x in enumerate(X):
        nd = t
        while not isinstance(nd, Leaf):
            nd = nd.left if x[cols[nd.feature]] <= nd.threshold else nd.right
        out[i] = nd.value
    return out


def main(reps: int = 7) -> None:
    sp = split(load("breast_cancer"), 0)
    X = np.tile(sp.X_train, (5, 1))  # 1020 rows
    est = DecisionTreeClassifier(max_depth=4, random_state=0).fit(sp.X_train, sp.y_train)
    t, cols = from_sklearn(est, sp.dataset.feature_names), sp.columns
    fns = {
        "llego.predict": lambda: predict(t, X, cols),
        "sklearn predict": lambda: est.predict(X),
        "row by row": lambda: row_by_row(t, X, cols),
    }
    assert np.array_equal(fns["llego.predict"](), est.predict(X)) and np.array_equal(
        fns["row by row"](), est.predict(X)
    )
    for f in fns.values():  # warm-up
        f()
    times = {k: [] for k in fns}
    for _ in range(reps):
        for k, f in fns.items():
            t0 = time.process_time()
            for _ in range(50):
                f()
            times[k].append((time.process_time() - t0) / 50)
    med = {k: float(np.median(v)) for k, v in times.items()}
    for k, v in med.items():
        print(
            f"{k:16s} {1e6 * v:9.1f} us per tree on {X.shape[0]} rows  "
            f"ratio to llego {v / med['llego.predict']:.2f}"
        )


if __name__ == "__main__":
    main()
