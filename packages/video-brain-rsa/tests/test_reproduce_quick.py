"""The quick scale (hand-crafted RDMs only) at smoke size: its report renders without models."""

from __future__ import annotations

from dataclasses import replace

from video_brain_rsa.reproduce import Config, plots, run


def test_hand_crafted_only_report_has_only_the_gates():
    cfg = replace(Config.smoke(), models=False)
    report = run(cfg, seed=0)
    gates = ("noise-ceiling", "lower-below-upper", "hand-crafted-peaks", "hand-crafted-significant")
    assert {c.name for c in report.claims} == {f"gate-{g}" for g in gates}
    assert "Hand-crafted baselines (mean ± sd over seeds)" in report.tables
    assert set(plots(report)) == {"hand_crafted_per_roi"}
