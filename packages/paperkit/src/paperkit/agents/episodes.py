"""A lockstep batched episode runner: every live episode asks, one batched model call answers all.

An episode is a small state machine (:class:`Episode`): ``request()`` gives what it wants the model to
answer next (any object the responder understands, e.g. a list of chat messages, or messages plus
tools), ``receive(reply)`` consumes the answer and says how it went (a :class:`StepStatus`). The runner
collects the requests of all live episodes, calls ``respond(requests) -> replies`` once (so an
in-process model decodes them as one batch), and hands each reply back. It stops an episode when it is
done, after ``max_steps`` model calls (``truncated``), after ``max_failures`` failed steps, or after
``max_repeats`` consecutive identical replies (a model stuck in a loop).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from paperkit.validation import check_int

__all__ = ["Episode", "EpisodeStats", "RunStats", "StepStatus", "run_lockstep"]


class StepStatus(enum.Enum):
    """What one reply did to an episode."""

    CONTINUE = "continue"  # more model calls wanted
    DONE = "done"  # finished normally
    FAILED = "failed"  # the reply could not be used (unparseable, unknown tool, ...); the episode may retry


@runtime_checkable
class Episode(Protocol):
    """One case driven by model replies."""

    def request(self) -> Any:
        """What the model should answer next."""
        ...

    def receive(self, reply: Any) -> StepStatus:
        """Consume the model's reply to the last request."""
        ...

    def stop(self, reason: str) -> None:
        """The runner ended the episode early (``"max_steps"``, ``"max_failures"``, ``"repeats"``)."""
        ...


@dataclass
class EpisodeStats:
    """Per-episode counters: model calls, failed steps, repeated replies, how it ended."""

    calls: int = 0
    failures: int = 0
    repeats: int = 0
    ended: str = ""  # "done" | "max_steps" | "max_failures" | "repeats"


@dataclass(frozen=True)
class RunStats:
    """The counters of a run: one :class:`EpisodeStats` per episode, and totals."""

    episodes: tuple[EpisodeStats, ...]
    batches: int
    sizes: tuple[int, ...] = field(default=())

    def count(self, ended: str) -> int:
        return sum(e.ended == ended for e in self.episodes)

    @property
    def calls(self) -> int:
        return sum(e.calls for e in self.episodes)

    @property
    def failures(self) -> int:
        return sum(e.failures for e in self.episodes)


def _end(ep: Episode, st: EpisodeStats, reason: str) -> None:
    st.ended = reason
    if reason != "done":
        ep.stop(reason)


def run_lockstep(
    episodes: Sequence[Episode],
    respond: Callable[[list[Any]], Sequence[Any]],
    *,
    max_steps: int = 32,
    max_failures: int = 10,
    max_repeats: int | None = None,
) -> RunStats:
    """Drive ``episodes`` to their end in lockstep (module docstring); returns the counters.

    Args:
        respond: ``requests -> replies``, one reply per request in order (checked).
        max_steps: model calls an episode may make (>= 1).
        max_failures: failed steps after which an episode is stopped (>= 1; ASB: 10).
        max_repeats: consecutive identical replies that stop an episode (``None``: never).
    """
    if isinstance(episodes, (str, bytes)) or not isinstance(episodes, Sequence):
        raise TypeError(f"episodes must be a sequence of Episode, got {type(episodes).__name__}")
    for i, ep in enumerate(episodes):
        if not isinstance(ep, Episode):
            raise TypeError(f"episodes[{i}] must have request(), receive(reply) and stop(reason)")
    if not callable(respond):
        raise TypeError(f"respond must be callable, got {type(respond).__name__}")
    check_int(max_steps, "max_steps", low=1)
    check_int(max_failures, "max_failures", low=1)
    if max_repeats is not None:
        check_int(max_repeats, "max_repeats", low=1)
    stats = [EpisodeStats() for _ in episodes]
    last: list[Any] = [None] * len(episodes)
    live = list(range(len(episodes)))
    sizes: list[int] = []
    while live:
        replies = list(respond([episodes[i].request() for i in live]))
        if len(replies) != len(live):
            raise ValueError(f"respond returned {len(replies)} replies for {len(live)} requests")
        sizes.append(len(live))
        still = []
        for i, reply in zip(live, replies, strict=True):
            st = stats[i]
            st.calls += 1
            st.repeats = st.repeats + 1 if st.calls > 1 and reply == last[i] else 0
            last[i] = reply
            status = episodes[i].receive(reply)
            if status is StepStatus.FAILED:
                st.failures += 1
            if status is StepStatus.DONE:
                _end(episodes[i], st, "done")
            elif st.failures >= max_failures:
                _end(episodes[i], st, "max_failures")
            elif max_repeats is not None and st.repeats >= max_repeats:
                _end(episodes[i], st, "repeats")
            elif st.calls >= max_steps:
                _end(episodes[i], st, "max_steps")
            else:
                still.append(i)
        live = still
    return RunStats(tuple(stats), len(sizes), tuple(sizes))
