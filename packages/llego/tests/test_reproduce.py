"""The smoke reproduction end to end; claims recomputed from the records."""

from __future__ import annotations

import numpy as np
from llego.reproduce import Config, run
from llego.reproduce.claims import per_seed


def test_smoke_report_claims_follow_the_records():
    cfg = Config.smoke()
    report = run(cfg, seed=0)
    names = {c.name for c in report.claims}
    assert {
        "breast_cancer-gate",
        "breast_cancer-valid-rate",
        "breast_cancer-fitness-guidance",
        "breast_cancer-diversity-guidance",
        "breast_cancer-llego-vs-gp",
        "breast_cancer-vs-cart",
    } == names
    from llego.reproduce.run import SeedRecord

    recs = [SeedRecord(**r) for r in report.metrics["records"]]
    q = per_seed(recs, "breast_cancer")
    vs = next(c for c in report.claims if c.name == "breast_cancer-vs-cart")
    assert vs.observed == np.mean(q["llego_test"]) - np.mean(q["cart_test"])
    for r in recs:  # GP got exactly LLEGO's budget
        assert r.gp["n_evals"] == r.llego["n_evals"]
