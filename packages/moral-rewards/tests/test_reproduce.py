"""Claims from synthetic per-seed records (verdicts known by construction) and the run's summaries."""

from __future__ import annotations

import numpy as np
from moral_rewards.evaluate import GameLog
from moral_rewards.reproduce.claims import claims
from moral_rewards.reproduce.config import Config
from moral_rewards.reproduce.run import curve, final


def _stats(p_dc: float, p_d: float | None = None, illegal: float = 0.0) -> dict[str, float]:
    p_d = p_dc if p_d is None else p_d
    return {
        "p_defect": p_d,
        "p_coop": 1 - p_d - illegal,
        "p_defect_after_c": p_dc,
        "p_defect_after_d": p_d,
        "illegal": illegal,
    }


def _record(game_dc: float, de_dc: float, regrets: tuple[float, float, float]) -> dict:
    train = {
        "game": _stats(game_dc),
        "de": _stats(de_dc),
        "ut": _stats(0.05),
        "game+de": _stats(0.3),
        "game->de": _stats(0.05) | {"before_switch": _stats(0.9)},
    }
    ev = {m: {"IPD": {"de_regret": r}} for m, r in zip(("base", "game", "de"), regrets, strict=True)}
    return {"base": _stats(0.5, illegal=0.1), "train": train, "tabular": train, "eval": ev}


def test_claim_verdicts_follow_the_records():
    cfg = Config()
    good = [_record(0.95, 0.02, (3.0, 2.0, 0.5)) for _ in range(3)]
    assert all(c.passed for c in claims(good, cfg, (0, 1, 2)))
    bad = [*good[:2], _record(0.95, 0.3, (0.3, 0.4, 0.5))]  # one seed exploits and regrets invert
    failed = {c.name for c in claims(bad, cfg, (0, 1, 2)) if not c.passed}
    assert failed == {"de-no-exploit", "de-vs-game", "regret-de-below-game", "regret-game-below-base"}


def test_final_and_curve_pool_the_right_window():
    a_m = np.array([[[1, 1], [1, 1], [0, 2], [0, 0], [0, 0]]])  # 5 episodes x 2 rounds
    prev = np.zeros_like(a_m)
    log = GameLog(prev, prev, a_m, prev, np.zeros(a_m.shape))
    f = final(log, 0.4)  # the last 2 episodes: all C
    assert f["p_defect"] == 0.0 and f["p_coop"] == 1.0
    f = final(log, 1.0)
    assert f["p_defect_after_c"] == 0.4 and f["illegal"] == 0.1
    c = curve(log)
    assert c["episode"] == [1.0, 2.0, 3.0, 4.0, 5.0] and c["p_defect"] == [1.0, 1.0, 0.0, 0.0, 0.0]
