"""The non-LLM memory-1 baseline: one logistic parameter per state, trained by REINFORCE on the same rewards.

Policy: P(D | s) = sigmoid(theta_s), s = 2 * own_prev + opp_prev in {0..3} (4 parameters; never illegal).
Each episode plays ``steps`` rounds (as the LLM's PPO batch) and makes one update

    theta += lr * mean_t A_t * d log pi(a_t | s_t) / d theta,    d log pi / d theta_s = [a = D] - P(D | s),

with A_t the score normalised by running moments over all scores seen so far (TRL's ``use_score_norm``
and ``use_score_scaling``, as in the paper's PPO). ``n_runs`` independent learners run vectorised (one
numpy array per quantity); they share nothing but the random generator.

With a per-step reward the myopic optimum is the target (spec, "Tests that would catch..."): Game -> always D
(D dominates in the IPD); De -> never D after O's C (indifferent after D); Ut -> always C; Game+De vs TFT ->
C after O's C and D after O's D.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from paperkit import check_int, check_number, check_seed

from moral_rewards.evaluate import GameLog
from moral_rewards.games import Opponent, initial_state, payoff_table
from moral_rewards.rewards import R_ILLEGAL, XI, reward

__all__ = ["RunningMoments", "TabularResult", "train_tabular"]


class RunningMoments:
    """Running mean and std of all scores seen (Chan et al.'s parallel update, as TRL's RunningMoments)."""

    def __init__(self, shape: tuple[int, ...] = ()) -> None:
        self.mean = np.zeros(shape)
        self.var = np.ones(shape)
        self.count = 1e-24

    def update(self, x: np.ndarray) -> None:
        """Fold in a batch ``x`` of shape ``(*shape, n)``."""
        n = x.shape[-1]
        m, v = x.mean(axis=-1), x.var(axis=-1)
        delta, tot = m - self.mean, self.count + n
        self.var = (self.var * self.count + v * n + delta**2 * self.count * n / tot) / tot
        self.mean = self.mean + delta * n / tot
        self.count = tot

    def normalise(self, x: np.ndarray) -> np.ndarray:
        std = np.sqrt(self.var * self.count / max(self.count - 1, 1))  # unbiased, as TRL
        return (x - self.mean[..., None]) / (std[..., None] + np.finfo(float).eps)


@dataclass(frozen=True)
class TabularResult:
    """``theta``: (n_runs, 4) final logits of P(D | s); ``log``: the play, (n_runs, episodes, steps)."""

    theta: np.ndarray
    log: GameLog


def train_tabular(
    reward_schedule: tuple[tuple[str, int], ...] = (("game", 300),),
    *,
    game: str = "IPD",
    opponent: str = "TFT",
    steps: int = 5,
    lr: float = 0.5,
    n_runs: int = 1,
    xi: float = XI,
    r_illegal: float = R_ILLEGAL,
    seed: int = 0,
) -> TabularResult:
    """REINFORCE on ``reward_schedule`` = ((reward, episodes), ...) (two entries: the unlearning schedule)."""
    rng = np.random.default_rng(check_seed(seed))
    table, opp = payoff_table(game), Opponent(opponent)
    check_int(steps, "steps", low=1)
    check_int(n_runs, "n_runs", low=1)
    lr = check_number(lr, "lr", low=0.0)
    if not reward_schedule:
        raise ValueError("reward_schedule must list at least one (reward, episodes) stage")
    stages = [(k, check_int(e, "episodes", low=1)) for k, e in reward_schedule]
    theta, moments = np.zeros((n_runs, 4)), RunningMoments((n_runs,))
    rows = np.arange(n_runs)
    logs: dict[str, list[np.ndarray]] = {k: [] for k in ("prev_own", "prev_opp", "a_m", "a_o", "reward")}
    for kind, episodes in stages:
        for _ in range(episodes):
            own, prev_opp = initial_state(opp, rng, size=n_runs)
            ep = {k: np.zeros((n_runs, steps), dtype=float if k == "reward" else np.int64) for k in logs}
            grads = np.zeros((steps, n_runs, 4))
            for t in range(steps):
                s = 2 * own + prev_opp
                p = 1.0 / (1.0 + np.exp(-theta[rows, s]))
                a = (rng.random(n_runs) < p).astype(np.int64)
                a_o = opp.next_move(own, rng)
                r = reward(kind, a, a_o, prev_opp, table, xi=xi, r_illegal=r_illegal)
                grads[t, rows, s] = a - p
                for k, v in (
                    ("prev_own", own),
                    ("prev_opp", prev_opp),
                    ("a_m", a),
                    ("a_o", a_o),
                    ("reward", r),
                ):
                    ep[k][:, t] = v
                own, prev_opp = a, a_o
            moments.update(ep["reward"])
            adv = moments.normalise(ep["reward"])  # (n_runs, steps)
            theta += lr * np.einsum("rt,trk->rk", adv, grads) / steps
            for k in logs:
                logs[k].append(ep[k])
    log = GameLog(**{k: np.stack(v, axis=1) for k, v in logs.items()})
    return TabularResult(theta=theta, log=log)
