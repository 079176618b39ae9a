"""Preference lists (a prompt, N responses, N scalar scores) and step segmentation.

A preference tree, flattened as TPO consumes it, is a :class:`PreferenceList`: the prompt x, the complete
trajectories y_1..y_N (root-to-leaf paths of the tree) and their quality scores v_1..v_N. The order of the
members carries no meaning (the official data keeps generation order); every consumer ranks by score.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

# Step markers: "Step <k>:" at the start of a line (the official code splits on "\nStep \d+:").
DEFAULT_STEP_PATTERN = r"(?m)^Step \d+:"


@dataclass(frozen=True)
class PreferenceList:
    """One prompt with a scored list of complete responses.

    Attributes:
        prompt: the prompt text x.
        responses: the N >= 1 responses y_1..y_N (complete trajectories).
        scores: their N finite scores v_1..v_N (higher is better; ties allowed).
    """

    prompt: str
    responses: tuple[str, ...]
    scores: tuple[float, ...]

    def __init__(self, prompt: str, responses: Sequence[str], scores: Sequence[float]) -> None:
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a str, got {type(prompt).__name__}")
        if isinstance(responses, str) or not all(isinstance(r, str) for r in responses):
            raise TypeError("responses must be a sequence of str")
        if len(responses) == 0:
            raise ValueError("a preference list needs at least one response, got an empty list")
        if len(scores) != len(responses):
            raise ValueError(
                f"got {len(responses)} responses but {len(scores)} scores; expected one score each"
            )
        vals = tuple(float(s) for s in scores)
        bad = [i for i, s in enumerate(vals) if not math.isfinite(s)]
        if bad:
            raise ValueError(
                f"scores must be finite numbers; scores at positions {bad} are {[vals[i] for i in bad]}"
            )
        object.__setattr__(self, "prompt", prompt)
        object.__setattr__(self, "responses", tuple(responses))
        object.__setattr__(self, "scores", vals)

    def __len__(self) -> int:
        return len(self.responses)

    @property
    def n_pairs(self) -> int:
        """Number of ordered pairs (i, j) with v_i > v_j (0 for a list of ties only)."""
        return sum(a > b for a in self.scores for b in self.scores)

    @property
    def best(self) -> int:
        """Index of the best-scored response (the first one among equal best scores)."""
        return max(range(len(self.scores)), key=lambda i: (self.scores[i], -i))

    def sorted(self) -> PreferenceList:
        """The same list with members sorted by score, best first (stable among ties)."""
        order = sorted(range(len(self)), key=lambda i: -self.scores[i])
        return PreferenceList(
            self.prompt, [self.responses[i] for i in order], [self.scores[i] for i in order]
        )

    def subset(self, idx: Sequence[int]) -> PreferenceList:
        """The sub-list of the members at ``idx`` (in that order)."""
        return PreferenceList(self.prompt, [self.responses[i] for i in idx], [self.scores[i] for i in idx])


def step_spans(text: str, pattern: str = DEFAULT_STEP_PATTERN) -> list[tuple[int, int]]:
    """Character spans ``[start, end)`` of the steps of ``text``, in order.

    A step starts at a match of ``pattern`` and runs to the next match (or the end of the text), so the
    k-th span is step k whatever number its marker carries. Text before the first marker belongs to no
    step; a text without any marker is a single step covering all of it (never an error).
    """
    starts = [m.start() for m in re.finditer(pattern, text)]
    if not starts:
        return [(0, len(text))] if text else []
    ends = [*starts[1:], len(text)]
    return list(zip(starts, ends, strict=True))


def split_steps(text: str, pattern: str = DEFAULT_STEP_PATTERN) -> list[str]:
    """The steps of ``text`` as strings (see :func:`step_spans`); ``"".join`` gives back the text from
    the first marker on."""
    return [text[a:b] for a, b in step_spans(text, pattern)]


def char_step_ids(text: str, pattern: str = DEFAULT_STEP_PATTERN) -> list[int]:
    """For every character of ``text``, the 1-based index of its step (0 = before the first marker)."""
    ids = [0] * len(text)
    for k, (a, b) in enumerate(step_spans(text, pattern), start=1):
        ids[a:b] = [k] * (b - a)
    return ids
