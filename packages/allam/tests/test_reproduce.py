"""Claims on synthetic per-seed records: each claim's observed number is the one its statement names."""

from __future__ import annotations

import pytest
from allam.reproduce import Config
from allam.reproduce.claims import at_step, claims, per_seed

FINAL = {"a_bpb": 1.0, "b_bpb": 1.0, "qa_a_em": 1.0, "qa_a_rank": 1.0, "qa_b_aonly_rank": 0.5,
         "qa_b_aonly_em": 0.1, "qa_b_stated_em": 0.9, "qa_b_stated_rank": 0.9,
         "icl_b_aonly_rank": 0.5}  # fmt: skip
ALIGN = {"cpt": {"A_rank": 0.6, "A_em": 0.0, "B_rank": 0.7, "B_em": 0.0},
         "sft": {"A_rank": 0.8, "A_em": 0.2, "B_rank": 0.75, "B_em": 0.1},
         "sft_dpo": {"A_rank": 0.9, "A_em": 0.3, "B_rank": 0.8, "B_em": 0.1}}  # fmt: skip


def _record(s: int) -> dict:
    cfg = Config.quick()
    steps = range(cfg.every, cfg.cpt.steps + 1, cfg.every)
    b_at_init = {
        "expand_mean": 2.0,
        "expand_random": 2.5 + s,
        "orig_tok": 3.0,
        "no_replay": 2.0,
        "translation": 2.0,
    }
    final = {
        "expand_mean": FINAL | {"a_bpb": 1.02, "b_bpb": 1.5},
        "orig_tok": FINAL | {"b_bpb": 2.5, "qa_b_stated_rank": 0.7},
        "expand_random": FINAL,
        "no_replay": FINAL | {"a_bpb": 1.5 + 0.1 * s, "qa_a_em": 0.2 - 0.1 * s},
        "translation": FINAL | {"qa_b_aonly_rank": 0.7, "qa_b_aonly_em": 0.3},
    }
    return {
        "fertility_orig": 10.0, "fertility_expanded": 1.5 + s, "base": FINAL | {"qa_a_em": 0.9},
        "variants": {n: {"curve": [{"step": k, "b_bpb": b_at_init[n], "a_bpb": 1.0, "b_bpb_train": 0.5}
                                   for k in steps], "final": f} for n, f in final.items()},
        "align": ALIGN,
    }  # fmt: skip


def test_claims_follow_the_records():
    cfg = Config.quick()
    recs = {s: _record(s) for s in (0, 1)}
    out = {c.name: c for c in claims(recs, cfg, (0, 1))}
    q = per_seed(recs, cfg)
    assert out["fertility-halved"].observed == pytest.approx(2.5 / 10) and out["fertility-halved"].passed
    assert out["replay-no-forgetting"].observed == pytest.approx(1.02) and out["replay-no-forgetting"].passed
    # forgetting is judged on A facts (base EM 0.9 -> 0.2, 0.1), the held-out bpb ratio reported beside
    assert out["no-replay-forgets"].observed == pytest.approx(0.7) and out["no-replay-forgets"].passed
    assert out["no-replay-forgets"].details["old_bpb_ratio_min"] == pytest.approx(1.5)
    assert out["replay-keeps-a-knowledge"].observed == pytest.approx(-0.1)
    assert out["expansion-beats-orig-tok"].details["mean_difference"] == pytest.approx(0.2)
    assert out["expansion-beats-orig-tok"].details["old_final_b_bpb_gap_mean"] == pytest.approx(1.0)
    assert out["alignment-lifts-both"].details["mean_difference"] == pytest.approx(0.1)
    assert out["dpo-beats-sft"].details["mean_difference"] == pytest.approx(0.075)
    assert out["dpo-beats-sft"].passed and out["alignment-lifts-both"].passed
    assert out["gate-base-knows-a"].observed == pytest.approx(0.9)
    assert out["gate-b-learned"].observed == pytest.approx(0.9) and out["gate-b-learned"].passed
    assert out["init-mean-beats-random"].details["mean_difference"] == pytest.approx(1.0)
    assert out["expansion-beats-orig-tok"].passed and out["parallel-data-transfers"].passed
    assert out["parallel-data-transfers"].details["em_gain_points"] == pytest.approx(20.0)
    assert q["init_b_bpb_expand_random"].tolist() == [2.5, 3.5]


def test_a_failed_gate_voids_the_claims_behind_it():
    cfg = Config.quick()
    recs = {s: _record(s) for s in (0, 1)}
    for r in recs.values():  # B not learned: expand_mean answers few B-stated facts
        final = r["variants"]["expand_mean"]["final"]
        r["variants"]["expand_mean"]["final"] = final | {"qa_b_stated_em": 0.3}
    out = {c.name: c for c in claims(recs, cfg, (0, 1))}
    assert not out["gate-b-learned"].passed and out["gate-base-knows-a"].passed
    voided = out["parallel-data-transfers"]
    assert not voided.passed and voided.note.startswith("not judged: gate-b-learned failed")
    assert out["expansion-beats-orig-tok"].passed and out["fertility-halved"].passed  # not behind that gate
    for r in recs.values():  # the base does not know A: only the gates and the tokenizer claim are judged
        r["base"] = r["base"] | {"qa_a_em": 0.5}
    out = {c.name: c for c in claims(recs, cfg, (0, 1))}
    judged = [n for n, c in out.items() if not c.note.startswith("not judged")]
    assert judged == ["gate-base-knows-a", "gate-b-learned", "fertility-halved"]
    assert [n for n, c in out.items() if c.passed] == ["fertility-halved"]


def test_at_step_and_config_checks():
    assert at_step([{"step": 2, "b_bpb": 1.5}], 2, "b_bpb") == 1.5
    with pytest.raises(KeyError, match="step 3"):
        at_step([{"step": 2, "b_bpb": 1.5}], 3, "b_bpb")
    with pytest.raises(ValueError, match="variants"):
        Config(variants=("expand_mean",))
    with pytest.raises(ValueError, match="n_seeds"):
        Config(n_seeds=1)
    with pytest.raises(ValueError, match="chosen_lr lacks"):
        Config(tune=False, chosen_lr=(("expand_mean", 1e-3),))
    with pytest.raises(ValueError, match="lr_grid"):
        Config(lr_grid=())


@pytest.mark.slow
def test_workers_do_not_change_the_numbers(tmp_path, monkeypatch):
    """Bases, tuning cells and seeds in two spawned processes give the same metrics as one process."""
    import dataclasses

    from allam.reproduce.run import run

    monkeypatch.setenv("PAPERKIT_MODEL_CACHE", str(tmp_path))
    cfg = dataclasses.replace(Config.smoke(), cache=True, tune=True, chosen_lr=())
    one = run(dataclasses.replace(cfg, workers=1), seed=0).metrics
    two = run(dataclasses.replace(cfg, workers=2), seed=0).metrics
    assert one == two
    assert set(one["lr"]) == {*cfg.variants, "align:sft", "align:sft_dpo"}
