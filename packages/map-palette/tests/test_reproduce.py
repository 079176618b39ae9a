"""The reproduction at smoke scale: claims recomputed from the core; the LM path in-process."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from map_palette.data import NEGATIVE, POSITIVE, review_corpus
from map_palette.decode import selection_weights
from map_palette.reproduce import Config, run
from map_palette.reproduce.claims import decode_summary, gaussian_summary
from map_palette.values import BagOfWordsCoherence, Conciseness, Diversity, Lexicon

RUN = sys.modules["map_palette.reproduce.run"]


def test_smoke_report_claims_follow_the_records() -> None:
    cfg = Config.smoke()
    report = run(cfg, seed=0)
    names = {c.name for c in report.claims}
    assert {
        "gaussian-qp",
        "gaussian-realized",
        "infeasible-detected",
        "feasible-met",
        "sequential-5-rounds",
    } <= names
    gauss = [RUN.gaussian_seed(cfg, s) for s in (0, 1)]
    gs = gaussian_summary(gauss, cfg)
    seq = next(c for c in report.claims if c.name == "sequential-5-rounds")
    assert seq.observed == max(gs["seq5"])
    feas = RUN.feasibility_seed(cfg, 0)
    assert (feas.margin > 0).sum() == cfg.n_palettes and 1 <= (feas.margin < 0).sum() <= cfg.n_palettes
    assert np.all(feas.certified[feas.margin < 0])


def test_scales_differ_where_the_spec_says() -> None:
    q, f = Config.quick(), Config.full()
    assert (q.lm_prompts, q.lm_seeds, f.lm_prompts, f.lm_seeds, f.k) == (100, 1, 300, 3, 16)
    assert f.quantiles == (0.5, 0.6, 0.7, 0.8) and f.claim_quantile == 0.6
    with pytest.raises(ValueError, match="claim_quantile"):
        Config(quantiles=(0.5,))


def _check_decode_record(rec, cfg) -> None:  # type: ignore[no-untyped-def]
    m, P = 4, cfg.fresh_prompts
    assert rec.kept["map"].shape == (m, P) and set(rec.fresh_mean) >= {"map", "equal-weight", "map-joint"}
    assert rec.lams["equal-weight"].sum() == pytest.approx(rec.lams["map"].sum())
    assert rec.fresh_mean["map"] == pytest.approx(rec.kept["map"].mean(axis=1))
    assert 1.0 <= rec.fresh_ess["map"] <= cfg.k and rec.fresh_ess["reference"] == pytest.approx(cfg.k)
    ds = decode_summary([rec], cfg)
    assert ds["a"].shape == (1, P)
    w = selection_weights(np.zeros((m, P * cfg.k)), rec.lams["map"], cfg.k)
    assert w == pytest.approx(np.full((P, cfg.k), 1 / cfg.k))


VALUES = [Lexicon(POSITIVE, NEGATIVE), Conciseness(), Diversity(), BagOfWordsCoherence()]


def test_decoding_pipeline_on_grammar_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    """The data B path without transformers: p0's samples are drawn from the grammar itself."""

    def fake_lm(config, *, seed, device):  # type: ignore[no-untyped-def]
        return None, None, [5.0, 1.0]

    def fake_samples(model, tok, prompts, *, k, max_new_tokens, seed, device, batch_size=256):  # type: ignore[no-untyped-def]
        corpus = review_corpus(len(prompts) * k, seed=seed)
        return [r.continuation for r in corpus]

    monkeypatch.setattr(RUN, "train_review_lm", fake_lm)
    monkeypatch.setattr(RUN, "sample_candidates", fake_samples)
    cfg = Config.at_scale("smoke", skip_lm=False, lm_prompts=40, fresh_prompts=40, k=8)
    rec = RUN.decode_seed(cfg, 0, VALUES, "cpu")
    _check_decode_record(rec, cfg)
    assert rec.grammatical == 1.0 and rec.palettes[0.6]["status"] == "feasible"
    report_claims, _ = claims_of(cfg, rec)
    assert {"gate-lm-substrate", "map-decoding-meets-palette", "equal-weight-misses"} <= report_claims


def claims_of(cfg, rec):  # type: ignore[no-untyped-def]
    from map_palette.reproduce.claims import claims

    gauss = [RUN.gaussian_seed(cfg, 0)]
    feas = [RUN.feasibility_seed(cfg, 0)]
    cl, metrics = claims(gauss, feas, [rec], cfg, (0,), (0,))
    return {c.name for c in cl}, metrics


@pytest.mark.slow
def test_lm_decoding_records_at_smoke_scale() -> None:
    """The data B path with the real tiny LM (transformers; ~20 CPU-s of imports here)."""
    cfg = Config.at_scale("smoke", skip_lm=False)
    _check_decode_record(RUN.decode_seed(cfg, 0, VALUES, "cpu"), cfg)
