"""Claims and tables recomputed from the core (run_seed records at smoke scale); the conformance battery
runs the whole smoke reproduction."""

from __future__ import annotations

import numpy as np
from tta_attack.reproduce import Config
from tta_attack.reproduce.claims import claims, defence_effects, per_seed
from tta_attack.reproduce.run import run_seed
from tta_attack.reproduce.tables import tables


def test_smoke_claims_follow_the_seed_records():
    cfg = Config.smoke()
    rec = [run_seed(cfg, s, {"dia": 0.25, "dia_pseudo": 0.25, "fca": 0.25}, "cpu") for s in (0, 1)]
    cl, summary = claims(rec, cfg)
    names = [c.name for c in cl]
    assert names == [
        "gate-source-learns", "gate-dia-hurts", "eval-bn-unaffected", "fca-matches-dia",
        "fca-above-dia-pseudo", "fca-above-random", "random-small", "defence-medbn", "defence-robust",
    ]  # fmt: skip
    fca_dia = per_seed(rec, cfg, "fca") - per_seed(rec, cfg, "dia")
    claim = cl[names.index("fca-matches-dia")]
    assert claim.details["mean_difference"] == np.mean(fca_dia) and claim.details["seed1"] == fca_dia[1]
    assert claim.low == -cfg.margins.fca_vs_dia
    v, c = cfg.victims[0], cfg.corruptions[0]
    assert per_seed(rec, cfg, "none")[0] == rec[0].benign[(v, c, "none")]  # one victim, one corruption
    dfd, und = defence_effects(rec, cfg, "medbn")
    assert dfd[1] == rec[1].defended[("medbn", v, c, "fca")] - rec[1].defended[("medbn", v, c, "none")]
    assert und[1] == rec[1].benign[(v, c, "fca")] - rec[1].benign[(v, c, "none")]
    assert cl[names.index("eval-bn-unaffected")].observed == 1.0  # an exact property: holds at every scale
    assert summary["fca"]["mean"] == np.mean(per_seed(rec, cfg, "fca"))
    tab = tables(rec, cfg, {"fca": 0.25})
    row = next(iter(tab.values()))[0]
    assert row["victim"] == v and set(row) == {"victim", "none", "random", "dia", "dia_pseudo", "fca"}
