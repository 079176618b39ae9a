"""The 2x2 matrix games and the fixed-strategy opponents of the paper (official code: ``src/fine_tune.py``,
``src/inference_vsRandom.py``, ``src/player.py``).

Actions are integers: ``C = 0`` (the first row / column, "cooperate" in the dilemmas), ``D = 1`` (the
second) and ``ILLEGAL = 2`` (an LLM answer that is neither action token). A payoff table has shape
``(2, 2, 2)``: ``payoff[a_row, a_col] = (points of the row player M, points of the column player O)``.

Which action is "C" in each game (the Deontological reward uses these labels even where the game is no
social dilemma): IPD / ISH / ICN: the cooperative action; BOS: the row player's own preferred concert
(3, 2); ICD: the action that coordinates on the *worse* outcome (1, 1) (Defective Coordination, the game in
which the Utilitarian agent keeps "cooperating"); IVD: the "cooperate" row of the variant table.

IPD   (C,C)=(3,3) (C,D)=(0,4) (D,C)=(4,0) (D,D)=(1,1)   official ``payoff_version smallerR``
ISH   (4,4) (0,3) (3,0) (1,1)                          Iterated Stag Hunt
ICN   (2,2) (1,4) (4,1) (0,0)                          Iterated Chicken
BOS   (3,2) (0,0) (0,0) (2,3)                          Bach or Stravinsky
ICD   (1,1) (0,0) (0,0) (4,4)                          Defective Coordination
IVD   (3,3) (1,4) (4,1) (0,0)                          the variant the official code also defines

Opponents: ``TFT`` plays the agent's previous move, ``AC`` always C, ``AD`` always D, ``Random`` uniform.
Initial "previous moves" (official ``generate_initial_state``): the agent's is uniform; the opponent's is C
for AC, D for AD and uniform otherwise. An illegal previous move of the agent never reaches TFT: the state
keeps the agent's last legal move.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from paperkit import check_array, check_choice

__all__ = [
    "ACTION_NAMES",
    "GAMES",
    "ILLEGAL",
    "MAX_COLLECTIVE",
    "OPPONENTS",
    "PAYOFFS",
    "C",
    "D",
    "Opponent",
    "check_payoff",
    "initial_state",
    "payoff_table",
]

C, D, ILLEGAL = 0, 1, 2
ACTION_NAMES = ("C", "D", "illegal")


def _table(cc: tuple[int, int], cd: tuple[int, int], dc: tuple[int, int], dd: tuple[int, int]) -> np.ndarray:
    t = np.array([[cc, cd], [dc, dd]], dtype=float)
    t.setflags(write=False)
    return t


PAYOFFS = MappingProxyType(
    {
        "IPD": _table((3, 3), (0, 4), (4, 0), (1, 1)),
        "ISH": _table((4, 4), (0, 3), (3, 0), (1, 1)),
        "ICN": _table((2, 2), (1, 4), (4, 1), (0, 0)),
        "BOS": _table((3, 2), (0, 0), (0, 0), (2, 3)),
        "ICD": _table((1, 1), (0, 0), (0, 0), (4, 4)),
        "IVD": _table((3, 3), (1, 4), (4, 1), (0, 0)),
    }
)
GAMES = tuple(PAYOFFS)
# The best collective payoff of each game (the Utilitarian regret's max_game; spec: 6, 8, 5, 5, 8).
MAX_COLLECTIVE = MappingProxyType({g: float(t.sum(axis=-1).max()) for g, t in PAYOFFS.items()})
OPPONENTS = ("TFT", "AC", "AD", "Random")


def check_payoff(payoff: object, name: str = "payoff") -> np.ndarray:
    """A finite float ``(2, 2, 2)`` payoff table (``payoff[a_row, a_col] = (row points, column points)``)."""
    arr = check_array(payoff, name, shape=(2, 2, 2), kind="fiu")
    return np.asarray(arr, dtype=float)


def payoff_table(game: str | object) -> np.ndarray:
    """The table of a named game (``GAMES``), or a given ``(2, 2, 2)`` table checked."""
    if isinstance(game, str):
        return PAYOFFS[check_choice(game, "game", GAMES)]
    return check_payoff(game, "game")


@dataclass(frozen=True)
class Opponent:
    """A fixed-strategy column player: ``TFT``, ``AC``, ``AD`` or ``Random``."""

    strategy: str = "TFT"

    def __post_init__(self) -> None:
        check_choice(self.strategy, "opponent", OPPONENTS)

    def next_move(self, prev_move_of_agent: np.ndarray | int, rng: np.random.Generator) -> np.ndarray:
        """The opponent's moves given the agent's previous legal moves (any shape; ints in {C, D}).

        Random draws one uniform bit per entry from ``rng``; the other strategies draw nothing.
        """
        prev = np.asarray(prev_move_of_agent)
        if self.strategy == "TFT":
            return prev.astype(np.int64)
        if self.strategy == "AC":
            return np.full(prev.shape, C, dtype=np.int64)
        if self.strategy == "AD":
            return np.full(prev.shape, D, dtype=np.int64)
        return rng.integers(0, 2, size=prev.shape).astype(np.int64)


def initial_state(opponent: Opponent, rng: np.random.Generator, size: int | None = None) -> tuple:
    """(agent's previous move, opponent's previous move) at the start of an episode (official code)."""
    shape = () if size is None else (size,)
    own = rng.integers(0, 2, size=shape)
    if opponent.strategy == "AC":
        opp = np.full(shape, C)
    elif opponent.strategy == "AD":
        opp = np.full(shape, D)
    else:
        opp = rng.integers(0, 2, size=shape)
    if size is None:
        return int(own), int(opp)
    return own.astype(np.int64), opp.astype(np.int64)
