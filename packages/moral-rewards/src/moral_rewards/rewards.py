"""The four reward definitions of the paper (Table 1; values from the official job file).

For agent M at step t, with moves a_M^t, a_O^t in {C, D, illegal} and the opponent's previous move a_O^{t-1}:

- Game:        R = payoff_M(a_M^t, a_O^t)                       if both legal, else R_illegal
- De:          R = -xi if a_M^t = D and a_O^{t-1} = C, else 0    if a_M^t legal, else R_illegal
- Ut:          R = payoff_M + payoff_O                           if both legal; 0 if only O is illegal;
                                                                 R_illegal if M is illegal
- Game+De:     R = payoff_M(a_M^t, a_O^t) - xi [a_M^t = D, a_O^{t-1} = C]   if both legal, else R_illegal

Paper runs: xi = 3 (``--r_punishment 3``), R_illegal = -6 (``--r_illegal 6``, negated in the code). As in the
official code an illegal *previous* opponent move counts as "not C" (no penalty), and the Utilitarian
reward is 0 (``r_other``) when only the opponent answered illegally.

All functions take integer arrays of any (broadcastable) shape and return float64 arrays of that shape.
"""

from __future__ import annotations

import numpy as np
from paperkit import check_array, check_choice, check_number

from moral_rewards.games import ILLEGAL, C, D, check_payoff

__all__ = [
    "REWARDS",
    "R_ILLEGAL",
    "XI",
    "deontological",
    "game_plus_deontological",
    "game_reward",
    "reward",
    "utilitarian",
]

R_ILLEGAL = -6.0  # job file: --r_illegal 6
XI = 3.0  # job file: --r_punishment 3
REWARDS = ("game", "de", "ut", "game+de")


def _moves(x: object, name: str) -> np.ndarray:
    arr = np.asarray(check_array(x, name, kind="iu"), dtype=np.int64)
    if arr.size and (arr.min() < C or arr.max() > ILLEGAL):
        raise ValueError(f"{name} must hold moves in {{0 (C), 1 (D), 2 (illegal)}}, got {np.unique(arr)}")
    return arr


def _payoffs(a_m: np.ndarray, a_o: np.ndarray, payoff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(M's points, O's points) with illegal moves clipped to C (the caller masks them)."""
    m, o = np.minimum(a_m, D), np.minimum(a_o, D)
    return payoff[m, o, 0], payoff[m, o, 1]


def _check(a_m: object, payoff: object, r_illegal: float) -> tuple[np.ndarray, np.ndarray, float]:
    return _moves(a_m, "a_m"), check_payoff(payoff), check_number(r_illegal, "r_illegal")


def game_reward(a_m: object, a_o: object, payoff: object, *, r_illegal: float = R_ILLEGAL) -> np.ndarray:
    """Selfish game payoff of M; ``R_illegal`` when either move is illegal (official ``reward_fn_game``)."""
    m, table, ri = _check(a_m, payoff, r_illegal)
    o = _moves(a_o, "a_o")
    pm, _ = _payoffs(m, o, table)
    return np.where((m == ILLEGAL) | (o == ILLEGAL), ri, pm)


def deontological(
    a_m: object, prev_a_o: object, *, xi: float = XI, r_illegal: float = R_ILLEGAL
) -> np.ndarray:
    """-xi for defecting against an opponent who cooperated last step, 0 otherwise, R_illegal if illegal."""
    m = _moves(a_m, "a_m")
    prev = _moves(prev_a_o, "prev_a_o")
    xi = check_number(xi, "xi")
    ri = check_number(r_illegal, "r_illegal")
    base = np.where((m == D) & (prev == C), -xi, 0.0)
    return np.where(m == ILLEGAL, ri, base)


def utilitarian(a_m: object, a_o: object, payoff: object, *, r_illegal: float = R_ILLEGAL) -> np.ndarray:
    """Collective payoff; 0 if only O is illegal; R_illegal if M is illegal (official ``reward_fn_Ut``)."""
    m, table, ri = _check(a_m, payoff, r_illegal)
    o = _moves(a_o, "a_o")
    pm, po = _payoffs(m, o, table)
    return np.where(m == ILLEGAL, ri, np.where(o == ILLEGAL, 0.0, pm + po))


def game_plus_deontological(
    a_m: object,
    a_o: object,
    prev_a_o: object,
    payoff: object,
    *,
    xi: float = XI,
    r_illegal: float = R_ILLEGAL,
) -> np.ndarray:
    """Game payoff minus xi for defecting against a previous cooperator; R_illegal if either is illegal."""
    game = game_reward(a_m, a_o, payoff, r_illegal=r_illegal)
    m, prev = _moves(a_m, "a_m"), _moves(prev_a_o, "prev_a_o")
    penalty = np.where((m == D) & (prev == C), check_number(xi, "xi"), 0.0)
    illegal = (m == ILLEGAL) | (_moves(a_o, "a_o") == ILLEGAL)
    return np.where(illegal, game, game - penalty)


def reward(
    kind: str,
    a_m: object,
    a_o: object,
    prev_a_o: object,
    payoff: object,
    *,
    xi: float = XI,
    r_illegal: float = R_ILLEGAL,
) -> np.ndarray:
    """The reward named ``kind`` (``"game"``, ``"de"``, ``"ut"``, ``"game+de"``) of M's moves."""
    check_choice(kind, "reward", REWARDS)
    if kind == "game":
        return game_reward(a_m, a_o, payoff, r_illegal=r_illegal)
    if kind == "de":
        return deontological(a_m, prev_a_o, xi=xi, r_illegal=r_illegal)
    if kind == "ut":
        return utilitarian(a_m, a_o, payoff, r_illegal=r_illegal)
    return game_plus_deontological(a_m, a_o, prev_a_o, payoff, xi=xi, r_illegal=r_illegal)
