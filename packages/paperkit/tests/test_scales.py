"""paperkit.Scales presets, package_version and Experiment.main."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import paperkit
import pytest
from paperkit import Scales, ScaleTable


@dataclasses.dataclass(frozen=True)
class _Config(Scales):
    n_seeds: int = 3
    steps: int = 2000
    name: str = "full"
    SCALES: ClassVar[ScaleTable] = {
        "quick": {"n_seeds": 1, "steps": 300},
        "smoke": {"n_seeds": 1, "steps": 5, "name": "smoke"},
    }


def test_presets_apply_their_table_over_the_defaults() -> None:
    assert _Config.full() == _Config()
    assert _Config.quick() == _Config(n_seeds=1, steps=300)
    assert _Config.smoke() == _Config(n_seeds=1, steps=5, name="smoke")
    assert _Config.at_scale("quick", steps=7) == _Config(n_seeds=1, steps=7)
    assert paperkit.scale_fields(_Config) == {
        "smoke": ("n_seeds", "name", "steps"),
        "quick": ("n_seeds", "steps"),
        "full": (),
    }


def test_the_table_is_not_mutated_by_overrides() -> None:
    _Config.at_scale("quick", steps=1)
    assert _Config.SCALES["quick"] == {"n_seeds": 1, "steps": 300}


def test_unknown_scale_and_unknown_field_are_refused() -> None:
    with pytest.raises(ValueError, match="scale must be one of 'smoke', 'quick', 'full'"):
        _Config.at_scale("medium")
    with pytest.raises(ValueError, match=r"sets \['step'\], which are not fields of _Config"):
        _Config.at_scale("quick", step=3)

    @dataclasses.dataclass(frozen=True)
    class Misspelt(Scales):
        steps: int = 1
        SCALES: ClassVar[ScaleTable] = {"quik": {"steps": 2}}

    with pytest.raises(ValueError, match=r"unknown scales \['quik'\]"):
        Misspelt.quick()

    class NotADataclass(Scales):
        pass

    with pytest.raises(TypeError, match="must be a dataclass"):
        NotADataclass.quick()


def test_package_version_reads_the_installed_distribution() -> None:
    assert paperkit.package_version("paperkit") == paperkit.__version__ != "0.0.0"
    assert paperkit.package_version("iclr25-no-such-package-here") == "0.0.0"


def test_experiment_main_is_the_reproduce_frame(capsys: pytest.CaptureFixture[str]) -> None:
    exp = paperkit.Experiment.lazy("demo", "a demo", "no_such_module_needed_for_help")
    with pytest.raises(SystemExit) as exit_:
        exp.main(["--help"])
    assert exit_.value.code == 0
    assert "a demo" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        exp.main(["reproduce", "--seed", "-1"])
    assert exit_.value.code == 2
    assert "--seed must be an integer in [0, 2**63 - 1]" in capsys.readouterr().err
