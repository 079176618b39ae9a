"""amce_ols (numpy, cluster-robust) against statsmodels OLS with cluster SEs, and the bootstrap cost.

Run: ``python benchmarks/bench_amce.py`` (needs statsmodels, the test group). Process CPU time, after one
warm-up call each, interleaved repetitions, one run; prints the ratio statsmodels / ours.
"""

from __future__ import annotations

import time

import numpy as np
import statsmodels.api as sm
from multitp.preferences import amce_ols, bootstrap, records
from multitp.vignettes import generate


def _statsmodels(r):
    sel = r.dim == 2
    pf = r.p_favoured[sel]
    y = np.r_[pf, 1 - pf]
    X = sm.add_constant(np.r_[np.ones(len(pf)), np.zeros(len(pf))])
    fit = sm.OLS(y, X).fit(cov_type="cluster", cov_kwds={"groups": np.tile(r.pair_id[sel], 2)})
    return fit.params[1], fit.bse[1]


def main(n: int = 5000, reps: int = 5) -> None:
    vig = generate("age", n // 2, seed=0)
    r = records(vig, np.random.default_rng(0).random(len(vig)))
    ours, peer = [], []
    amce_ols(r, "age"), _statsmodels(r)  # warm-up
    for _ in range(reps):
        t = time.process_time()
        a = amce_ols(r, "age")
        ours.append(time.process_time() - t)
        t = time.process_time()
        b = _statsmodels(r)
        peer.append(time.process_time() - t)
    assert abs(a[0] - b[0]) < 1e-10 and abs(a[1] - b[1]) < 1e-10
    t = time.process_time()
    bootstrap(records(generate("age", 5000, seed=1), np.random.default_rng(1).random(10_000)), n=1000, seed=0)
    boot = time.process_time() - t
    ms_ours, ms_peer = np.median(ours) * 1e3, np.median(peer) * 1e3
    print(
        f"{n} records: amce_ols {ms_ours:.2f} ms, statsmodels {ms_peer:.2f} ms, ratio statsmodels/ours "
        f"{ms_peer / ms_ours:.2f}; bootstrap 1000x on 1e4 records {boot:.2f} CPU-s"
    )


if __name__ == "__main__":
    main()
