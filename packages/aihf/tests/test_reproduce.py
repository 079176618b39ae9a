"""The reproduction's configuration, one tabular case at small scale, and the claims on synthetic records."""

from __future__ import annotations

import pytest
from aihf.experiment import TABULAR_METHODS, TabularSetting, run_tabular
from aihf.reproduce import Config, Margins, plots, report, run
from aihf.reproduce.claims import claims, gated_out
from aihf.reproduce.run import REACHER_POLICIES, ReacherSeed, Records, TabularCase
from shared_testing import run_twice


def test_scales_are_valid_and_ordered():
    q, f, s = Config.quick(), Config.full(), Config.smoke()
    assert s.n_seeds <= q.n_seeds <= f.n_seeds and s.steps <= q.steps
    assert f.lam_sweep == (1.0, 10.0, 30.0) and f.one_hot
    assert q.reacher_seeds == 0 and f.reacher_seeds >= 3  # paired comparison: at least 3 seeds


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"lam": -1.0}, "lam must be a finite number >= 0"),
        ({"regimes": ("A/scarce",)}, "must include"),
        ({"regimes": ("C",)}, "unknown regimes"),
        ({"n_seeds": 0}, ">= 1"),
        ({"reacher_pairs": (300, 30)}, "reacher_pairs"),
        ({"reward_targets": 0}, "reward_targets"),
    ],
)
def test_bad_config(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Config(**kwargs)


def test_run_is_cpu_only():
    with pytest.raises(ValueError, match="CPU only"):
        run(Config.smoke(), device="cuda")


def test_one_case_scores_are_normalised():
    out = run_tabular(TabularSetting(n_demos=5, n_pairs=5, steps=60), seed=0)
    assert set(TABULAR_METHODS) <= set(out)
    for m in TABULAR_METHODS:
        assert -3.0 < out[m] < 1.05
    assert out["ML-IRL"] > 0.8 and out["AIHF"] > 0.8 and out["BC"] < 0.8  # BC cannot plan; IRL can


def test_a_tabular_case_is_deterministic_per_seed():
    setting = TabularSetting(n_demos=3, n_pairs=3, steps=10)
    first = run_twice(run_tabular, setting, seed=1)
    assert first != run_tabular(setting, seed=2)  # the seed draws D and P


def _records(oracle: float, aihf_rank: float = 0.9, bt_rank: float = 0.1) -> Records:
    tab = {
        c: TabularCase(c, c, (0, 1), {m: [0.9, 0.95] for m in TABULAR_METHODS}, [0.1, 0.1])
        for c in ("A/scarce", "A/rich")
    }
    seeds = []
    for s in range(3):
        scores = dict.fromkeys(REACHER_POLICIES, 0.6) | {"BC": 0.8, "Oracle": oracle + 0.01 * s, "AIHF": 0.7}

        def rate(p: float, s: int = s) -> list[float]:  # 20 targets, a share p of them ranked right
            k = round(20 * p)
            return [1.0] * k + [0.0] * (20 - k)

        ranks = {f"{w}@{n}": rate(0.5) for w in ("BT", "AIHF", "ML-IRL") for n in (30, 300)}
        ranks |= {"AIHF@30": rate(aihf_rank), "BT@30": rate(bt_rank), "BT@300": rate(0.9)}
        seeds.append(ReacherSeed(s, -5.0, -12.0, -40.0, scores, scores, ranks, 0.1))
    return Records(0, tab, seeds)


def test_a_failed_oracle_gate_withholds_the_policy_comparison():
    cfg = Config(margins=Margins(oracle_gate_min=0.10))
    names = {c.name: c for c in claims(_records(oracle=0.82), cfg)}  # Oracle − BC ≈ +0.03 < 0.10
    assert not names["reacher-oracle-gate"].passed
    assert "reacher-scarce-aihf-beats-rlhf" not in names and "reacher-aihf-score" not in names
    withheld = gated_out(_records(oracle=0.82), cfg)
    assert len(withheld) == 2 and all(w["verdict"].startswith("uninformative") for w in withheld)
    assert "+0.100" in withheld[0]["observed"]  # AIHF − RLHF = 0.7 − 0.6 per seed


def test_a_passing_oracle_gate_lets_the_comparison_pass_or_fail():
    cfg = Config()
    names = {c.name: c for c in claims(_records(oracle=0.95), cfg)}
    assert names["reacher-oracle-gate"].passed and not gated_out(_records(oracle=0.95), cfg)
    assert names["reacher-scarce-aihf-beats-rlhf"].observed == pytest.approx(0.1)
    assert names["reacher-aihf-score"].observed == pytest.approx(0.7)
    assert names["reacher-aihf-score"].passed == (cfg.margins.reacher_score_min <= 0.7)


def test_reward_claim_is_the_ci_of_the_paired_rank_gap():
    c = {x.name: x for x in claims(_records(oracle=0.95, aihf_rank=0.2, bt_rank=0.6), Config())}
    gap = c["reacher-reward-scarce-aihf-ranks-expert"]
    assert gap.details["mean_difference"] == pytest.approx(-0.4)
    assert gap.observed <= -0.4 <= gap.details["ci_high"] and not gap.passed  # observed: the CI's lower end
    rich = c["reacher-reward-rich-bt-ranks-expert"]
    assert rich.details["estimate"] == pytest.approx(0.9) and rich.passed  # 18 of 20 targets, CI above 0.5
    good = {x.name: x for x in claims(_records(oracle=0.95, aihf_rank=0.9, bt_rank=0.1), Config())}
    assert good["reacher-reward-scarce-aihf-ranks-expert"].passed


def test_report_and_plots_from_records():
    rep = report(_records(oracle=0.82), Config())
    assert any("UNINFORMATIVE" in n for n in rep.notes)
    assert any("withheld" in k for k in rep.tables)
    assert set(plots(rep)) == {"tabular_scores", "reacher_scores"}


def test_records_round_trip_through_json():
    import json

    from paperkit.results import to_jsonable

    rec = _records(oracle=0.82)
    again = Records.from_dict(json.loads(json.dumps(to_jsonable(rec))))
    assert again == rec
