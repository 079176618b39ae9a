"""Claims recomputed from the core at smoke scale."""

from __future__ import annotations

import numpy as np
import pytest
from video_brain_rsa.reproduce import Config, run
from video_brain_rsa.reproduce.claims import per_seed


def test_smoke_report_claims_follow_the_records():
    cfg = Config.smoke()
    report = run(cfg, seed=0)
    names = {c.name for c in report.claims}
    assert {"gate-noise-ceiling", "temporal-conv3d-mt", "task-frame-cnn-action-roi",
            "sanity-below-ceiling", "sanity-trained-beats-untrained"} <= names  # fmt: skip
    recs = report.metrics["records"]
    q = per_seed(recs)
    gap = min(float((q[f"{a}/action"]["action"] - q[f"{a}/untrained"]["action"]).min())
              for a in ("conv3d", "conv2d-temporal", "frame-cnn"))  # fmt: skip
    assert next(
        c for c in report.claims if c.name == "sanity-trained-beats-untrained"
    ).observed == pytest.approx(gap)
    unc = np.array([[r["ceilings"][roi][1] for roi in ("V1", "MT", "action", "object")] for r in recs])
    assert next(c for c in report.claims if c.name == "gate-noise-ceiling").observed == pytest.approx(
        unc.min()
    )
