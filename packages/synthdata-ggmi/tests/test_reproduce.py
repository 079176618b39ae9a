"""Claims recomputed from the core at smoke scale; the sweep statistics; the LM analogue's pure parts."""

from __future__ import annotations

import numpy as np
import pytest
from paperkit import spearman
from synthdata_ggmi.analysis import spearman_ci
from synthdata_ggmi.lm_analogue import LMConfig, make_facts, teacher_facts
from synthdata_ggmi.reproduce import Config, run
from synthdata_ggmi.reproduce.run import discrete_checks, sweeps


def test_spearman_ci_point_and_bootstrap():
    rng = np.random.default_rng(0)
    table = np.arange(5)[:, None] + rng.standard_normal((5, 40)) * 0.3
    ci = spearman_ci(np.arange(5), table, rng=np.random.default_rng(1))
    assert ci.estimate == pytest.approx(spearman(np.arange(5), table.mean(1)))
    assert 0.5 < ci.low <= ci.estimate <= ci.high <= 1.0
    flat = rng.standard_normal((5, 40))
    wide = spearman_ci(np.arange(5), flat, rng=np.random.default_rng(1))
    assert wide.low < 0 < wide.high


def test_smoke_claims_follow_the_records():
    cfg = Config.smoke()
    report = run(cfg, seed=0)
    names = {c.name for c in report.claims}
    assert {
        "gate-substrate",
        "gap-rises-with-J-mc",
        "gap-falls-with-L-mc",
        "tv-triangle",
        "data-processing",
    } <= names
    sw = sweeps(cfg, 0)  # recomputed from the core: same seed, same numbers
    rho = next(c for c in report.claims if c.name == "gap-rises-with-J-mc").observed
    assert rho == pytest.approx(spearman(np.asarray(cfg.values), sw["J"].gap("mc").mean(axis=1)))
    dc = discrete_checks(cfg, 0)
    assert next(c for c in report.claims if c.name == "data-processing").observed == dc["dpi_excess"].max()


def test_teacher_facts_true_then_false():
    cfg = LMConfig(n_entities=20, n_anchor=5, n_relations=2)
    w = make_facts(cfg, seed=0)
    p, r = teacher_facts(w, 4, 3, seed=0)
    assert len(p) == (5 + 4 + 3) * 2
    true_e = np.concatenate([np.arange(5), w.order[:4]])
    assert r[: len(true_e) * 2] == w.facts(true_e)[1]
    false_r = r[len(true_e) * 2 :]
    assert all(a != b for a, b in zip(false_r, w.facts(w.order[4:7])[1], strict=True))  # every value wrong
    assert sorted(w.order.tolist()) == list(range(5, 20))


@pytest.mark.slow
def test_lm_analogue_teacher_knowledge_reaches_the_student():
    """Slow (~40 CPU-s): a teacher that knows every held-out fact passes it on through S_gen; an anchor
    student stays at chance on the held-out facts."""
    from synthdata_ggmi.lm_analogue import score_facts, student_on

    cfg = LMConfig(n_entities=40, n_anchor=10, teacher_steps=300, student_steps=300, n_synthetic=400)
    w = make_facts(cfg, seed=0)
    held = np.sort(w.order)
    full, teacher = student_on(w, cfg, J=30, lr=5e-3, seed=0, device="cpu")
    anchor, _ = student_on(w, cfg, J=None, lr=5e-3, seed=0, device="cpu")
    assert score_facts(teacher, w, held, device="cpu")["em"] > 0.9
    assert score_facts(full, w, held, device="cpu")["em"] > 0.7
    assert score_facts(anchor, w, held, device="cpu")["em"] < 0.25
