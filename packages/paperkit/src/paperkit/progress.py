"""A dependency-free progress bar for long loops; silent unless its stream is a terminal."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TextIO, TypeVar

T = TypeVar("T")


def track(
    iterable: Iterable[T],
    desc: str = "",
    total: int | None = None,
    *,
    stream: TextIO | None = None,
    enabled: bool | None = None,
    min_interval_s: float = 0.1,
) -> Iterator[T]:
    """Yield from ``iterable`` while drawing ``desc  42% |####    | 42/100 [3s<4s]`` on ``stream``.

    Args:
        total: number of items; taken from ``len(iterable)`` when it has one.
        stream: defaults to ``sys.stderr`` (stdout stays clean for results).
        enabled: force on/off; by default on only when ``stream`` is a TTY, so logs and CI stay quiet.
    """
    stream = sys.stderr if stream is None else stream
    if enabled is None:
        enabled = bool(getattr(stream, "isatty", lambda: False)())
    if not enabled:
        yield from iterable
        return
    if total is None:
        total = len(iterable) if hasattr(iterable, "__len__") else None  # type: ignore[arg-type]
    start = last = time.monotonic()
    done = 0

    def draw(final: bool = False) -> None:
        elapsed = time.monotonic() - start
        if total:
            frac = min(done / total, 1.0)
            bar = "#" * int(20 * frac) + " " * (20 - int(20 * frac))
            eta = elapsed / frac - elapsed if frac > 0 else float("nan")
            line = f"\r{desc} {100 * frac:3.0f}% |{bar}| {done}/{total} [{elapsed:.0f}s<{eta:.0f}s]"
        else:
            line = f"\r{desc} {done} [{elapsed:.0f}s]"
        stream.write(line + ("\n" if final else ""))
        stream.flush()

    draw()
    for item in iterable:
        yield item
        done += 1
        now = time.monotonic()
        if now - last >= min_interval_s:
            last = now
            draw()
    draw(final=True)
