import dataclasses
import io
import json
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import paperkit
import pytest
from matplotlib.figure import Figure
from paperkit import (
    Claim,
    DeviceError,
    Experiment,
    Report,
    reproduce_main,
    resolve_device,
    seed_everything,
    track,
)


@dataclass(frozen=True)
class Cfg:
    n: int
    bound: float


def _run(cfg: Cfg, *, seed: int, device: str) -> Report:
    rng = np.random.default_rng(seed)
    x = float(rng.normal(size=cfg.n).mean())
    return Report(
        metrics={"mean": x, "device": device},
        claims=[Claim.at_most("mean-small", "the mean is small", "|mean| of n normals", abs(x), cfg.bound)],
    )


def _plots(report: Report) -> dict[str, Figure]:
    fig = Figure()
    fig.add_subplot().bar([0], [report.metrics["mean"]])
    return {"mean": fig}


EXP = Experiment(
    package="paperkit",
    description="A toy experiment.",
    quick=lambda: Cfg(100, 10.0),
    full=lambda: Cfg(1000, 10.0),
    smoke=lambda: Cfg(10, 1e-9),
    run=_run,
    plots=_plots,
)


def test_reproduce_main_writes_results_and_prints_claims(tmp_path: Path, capsys):
    code = reproduce_main(
        EXP, ["reproduce", "--quick", "--seed", "3", "--device", "cpu", "--out", str(tmp_path)]
    )
    assert code == 0
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["config"] == {"n": 100, "bound": 10.0} and data["scale"] == "quick" and data["seed"] == 3
    assert data["metrics"]["mean"] == pytest.approx(np.random.default_rng(3).normal(size=100).mean())
    assert "mean-small" in capsys.readouterr().out
    assert (tmp_path / "mean.png").exists()


def test_a_plot_bug_keeps_the_numbers_and_exits_3_with_one_line(tmp_path: Path, capsys):
    def broken_plots(report: Report) -> dict[str, Figure]:
        raise ValueError("x and y must have same first dimension, but have shapes (2,) and (3,)")

    exp = dataclasses.replace(EXP, plots=broken_plots)
    code = reproduce_main(exp, ["reproduce", "--quick", "--device", "cpu", "--out", str(tmp_path)])
    assert code == 3
    out, err = capsys.readouterr()
    assert "mean-small" in out  # the claims table is printed
    assert err.strip().splitlines() == [
        "paperkit: error: the plots failed (ValueError: x and y must have same first dimension, but have "
        "shapes (2,) and (3,)); the numbers were written without them"
    ]
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["metrics"]["mean"] == pytest.approx(np.random.default_rng(0).normal(size=100).mean())
    assert not list(tmp_path.glob("*.png"))


def test_check_exits_1_when_a_claim_fails(tmp_path: Path, capsys):
    assert reproduce_main(EXP, ["reproduce", "--smoke", "--out", str(tmp_path)]) == 0
    assert reproduce_main(EXP, ["reproduce", "--smoke", "--check", "--out", str(tmp_path)]) == 1
    assert "claims failed: mean-small" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["reproduce", "--seed", "-2"],
        ["reproduce", "--device", "gpu"],
        [],
        ["reproduce", "--quick", "--smoke"],
        ["reproduce", "--device", "cuda"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(argv, capsys, tmp_path: Path):
    with pytest.raises(SystemExit) as e:
        reproduce_main(EXP, [*argv, "--out", str(tmp_path)] if argv else argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("paperkit")
    assert not list(tmp_path.iterdir())


def test_resolve_device():
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto", ("cpu",)) == "cpu"
    with pytest.raises(DeviceError, match="unknown device"):
        resolve_device("tpu")
    with pytest.raises(DeviceError, match="cpu only"):
        resolve_device("cuda", ("cpu",))
    if not paperkit.cuda_available():
        assert resolve_device("auto") == "cpu"
        with pytest.raises(DeviceError, match="cuda"):
            resolve_device("cuda")


def test_seed_everything_seeds_global_state_and_returns_a_generator():
    g = seed_everything(5)
    a = (random.random(), np.random.rand(), g.normal())  # noqa: NPY002
    g = seed_everything(5)
    assert (random.random(), np.random.rand(), g.normal()) == a  # noqa: NPY002
    with pytest.raises(ValueError, match=r"seed must be an integer in \[0, 2\*\*63 - 1\], got -1"):
        seed_everything(-1)


def test_track_is_silent_off_a_terminal_and_draws_on_one():
    quiet = io.StringIO()
    assert list(track(range(5), "x", stream=quiet)) == [0, 1, 2, 3, 4]
    assert quiet.getvalue() == ""
    loud = io.StringIO()
    assert list(track(range(4), "work", stream=loud, enabled=True)) == [0, 1, 2, 3]
    assert "work 100%" in loud.getvalue() and "4/4" in loud.getvalue()


_LAZY_MODULE = """
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure
from paperkit import Claim, Report


@dataclass(frozen=True)
class Config:
    n: int

    @classmethod
    def quick(cls):
        return cls(100)

    @classmethod
    def full(cls):
        return cls(1000)

    @classmethod
    def smoke(cls):
        return cls(10)


def run(config, *, seed, device):
    x = float(np.random.default_rng(seed).normal(size=config.n).mean())
    return Report(metrics={"mean": x, "n": config.n},
                  claims=[Claim.at_most("mean-small", "small mean", "|mean|", abs(x), 10.0)])


def plots(report):
    fig = Figure()
    fig.add_subplot().plot([0, 1], [0, report.metrics["mean"]])
    return {"line": fig}
"""


def test_lazy_experiment_imports_its_module_only_when_a_run_starts(tmp_path: Path, monkeypatch, capsys):
    import sys

    (tmp_path / "lazy_exp_mod.py").write_text(_LAZY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazy_exp_mod", raising=False)
    exp = Experiment.lazy("paperkit", "A lazy toy.", "lazy_exp_mod", devices=["cpu"])
    assert exp.devices == ("cpu",)
    with pytest.raises(SystemExit):
        reproduce_main(exp, ["--help"])
    assert "lazy_exp_mod" not in sys.modules  # --help never imports the experiment
    out = tmp_path / "out"
    assert reproduce_main(exp, ["reproduce", "--smoke", "--seed", "1", "--out", str(out)]) == 0
    assert "lazy_exp_mod" in sys.modules
    data = json.loads((out / "results.json").read_text())
    assert data["metrics"]["n"] == 10 and (out / "line.png").exists()
    assert Experiment.lazy("paperkit", "d", "lazy_exp_mod", plots=False).plots is None
    assert exp.full().n == 1000 and exp.quick().n == 100


def test_torch_threads_sets_and_restores_the_count_also_on_error():
    torch = pytest.importorskip("torch")
    from paperkit import torch_threads

    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(RuntimeError, match="boom"), torch_threads(1):
        raise RuntimeError("boom")
    assert torch.get_num_threads() == before

    @torch_threads(1)
    def inside() -> int:
        return int(torch.get_num_threads())

    assert inside() == 1 and torch.get_num_threads() == before
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="positive integer"), torch_threads(bad):
            pass
