"""Scale presets for an experiment's ``Config``: quick, full and smoke from one table of overrides.

Every reproduction runs at three scales: ``full`` (the defaults, about ten minutes on 2 cores),
``quick`` (about a minute) and ``smoke`` (seconds, for tests; its claims are not meaningful). A frozen
``Config`` dataclass derives from :class:`Scales` and lists, once, the fields each smaller scale changes::

    @dataclass(frozen=True)
    class Config(Scales):
        n_seeds: int = 3
        steps: int = 2000

        SCALES: ClassVar[ScaleTable] = {
            "quick": {"n_seeds": 1, "steps": 300},  # about a minute on 2 cores
            "smoke": {"n_seeds": 1, "steps": 5},
        }

    Config.quick() == Config(n_seeds=1, steps=300)
    Config.at_scale("quick", steps=100)  # a preset with one more change

The table is checked against the dataclass's fields when a preset is built, so a misspelt field fails
loudly instead of silently running the full scale. Values must be immutable (numbers, strings, tuples,
frozen config instances): the table is shared by every call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from paperkit.validation import check_choice

#: The scales the reproduce frame knows, in increasing cost.
SCALE_NAMES = ("smoke", "quick", "full")

#: scale name -> field name -> value.
ScaleTable = Mapping[str, Mapping[str, Any]]


class Scales:
    """Base class of a frozen ``Config`` dataclass: ``quick()``, ``full()``, ``smoke()`` and
    ``at_scale(name, **overrides)`` from the class attribute ``SCALES`` (``full`` is the defaults unless
    the table says otherwise)."""

    SCALES: ClassVar[ScaleTable] = {}

    @classmethod
    def at_scale(cls, scale: str, **overrides: Any) -> Self:
        """The preset ``scale`` (one of ``SCALE_NAMES``) with ``overrides`` applied on top."""
        check_choice(scale, "scale", SCALE_NAMES)
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__} must be a dataclass to build scale presets")
        fields = {f.name for f in dataclasses.fields(cls) if f.init}
        unknown_scales = sorted(set(cls.SCALES) - set(SCALE_NAMES))
        if unknown_scales:
            raise ValueError(
                f"{cls.__name__}.SCALES has unknown scales {unknown_scales}; known: {SCALE_NAMES}"
            )
        values = {**cls.SCALES.get(scale, {}), **overrides}
        unknown = sorted(set(values) - fields)
        if unknown:
            raise ValueError(
                f"{cls.__name__}.at_scale({scale!r}) sets {unknown}, which are not fields of {cls.__name__}"
            )
        return cls(**values)

    @classmethod
    def quick(cls) -> Self:
        """About a minute on 2 cores."""
        return cls.at_scale("quick")

    @classmethod
    def full(cls) -> Self:
        """About ten minutes on 2 cores (the paper's settings at this package's scale)."""
        return cls.at_scale("full")

    @classmethod
    def smoke(cls) -> Self:
        """Seconds, for tests; its claims are not meaningful."""
        return cls.at_scale("smoke")


def scale_fields(config_type: type[Scales]) -> dict[str, tuple[str, ...]]:
    """For each scale, the fields its preset changes (for a README table or a results record)."""
    return {scale: tuple(sorted(config_type.SCALES.get(scale, {}))) for scale in SCALE_NAMES}
