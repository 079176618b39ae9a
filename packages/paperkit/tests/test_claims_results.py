import json
import math
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure
from paperkit import Claim, Report, markdown_table, write_results
from paperkit.results import results_record, to_jsonable


def _claim(observed: float, low: float | None = None, high: float | None = None) -> Claim:
    return Claim("c", "the paper says", "what we measure", observed, low, high)


@pytest.mark.parametrize(
    ("observed", "low", "high", "passed"),
    [
        (0.2, None, 0.35, True),
        (0.36, None, 0.35, False),
        (0.35, None, 0.35, True),
        (0.9, 0.9, None, True),
        (0.89, 0.9, None, False),
        (0.5, 0.3, 0.7, True),
        (0.29, 0.3, 0.7, False),
        (0.71, 0.3, 0.7, False),
        (math.nan, 0.3, 0.7, False),
        (math.inf, 0.0, None, False),
        (-math.inf, None, 1.0, False),
    ],
)
def test_claim_interval_verdict(observed, low, high, passed):
    assert _claim(observed, low, high).passed is passed


def test_claim_constructors_and_comparison_text():
    assert Claim.at_most("a", "s", "q", 1.0, 2.0).comparison == "<= 2"
    assert Claim.at_least("a", "s", "q", 1.0, 0.5).comparison == ">= 0.5"
    assert Claim.between("a", "s", "q", 1.0, 0.5, 1.5).comparison == "in [0.5, 1.5]"
    assert not Claim.at_least("a", "s", "q", 0.1, 0.5).passed


def test_claim_refuses_checks_that_cannot_fail():
    with pytest.raises(ValueError, match="cannot fail"):
        Claim("a", "s", "q", 1.0)
    with pytest.raises(ValueError, match="low=2"):
        Claim("a", "s", "q", 1.0, 2.0, 1.0)
    with pytest.raises(ValueError, match="non-empty"):
        Claim("", "s", "q", 1.0, 0.0)


def test_to_jsonable_handles_numpy_and_non_finite():
    out = to_jsonable(
        {"a": np.float32(1.5), "b": np.arange(3), "c": (np.int64(2), math.inf), "d": np.bool_(True)}
    )
    assert out == {"a": 1.5, "b": [0, 1, 2], "c": [2, "inf"], "d": True}
    json.dumps(out, allow_nan=False)


def test_markdown_table_escapes_and_unions_columns():
    md = markdown_table([{"a": 1.23456, "b": "x|y"}, {"a": 2, "c": True}])
    lines = md.strip().splitlines()
    assert lines[0] == "| a | b | c |"
    assert lines[2] == "| 1.235 | x\\|y |  |"
    assert lines[3] == "| 2 |  | yes |"


def _record(report: Report) -> dict:
    return results_record(
        report,
        package="paperkit",
        scale="smoke",
        config={"n": 3},
        seed=1,
        device="cpu",
        wall_time_s=0.5,
        started_at="2026-01-01T00:00:00+00:00",
    )


def _figure() -> Figure:
    fig = Figure()
    ax = fig.add_subplot()
    ax.plot([1, 2, 3], [1, 4, 9], label="y")
    ax.legend()
    return fig


def test_write_results_writes_json_markdown_and_png(tmp_path: Path):
    report = Report(
        metrics={"x": np.float64(0.25)},
        claims=[_claim(0.2, None, 0.35), _claim(0.5, None, 0.35)],
        tables={"runs": [{"alg": "a", "regret": 1.0}]},
        notes=["a note"],
    )
    record = _record(report)
    write_results(tmp_path / "out", record, {"curve": _figure()})
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert data["metrics"] == {"x": 0.25}
    assert [c["passed"] for c in data["claims"]] == [True, False]
    assert data["all_claims_passed"] is False
    assert data["versions"]["iclr25-paperkit"]
    md = (tmp_path / "out" / "results.md").read_text()
    assert "## Claims (1/2 passed)" in md and "| FAIL |" in md and "## runs" in md and "curve.png" in md
    assert (tmp_path / "out" / "curve.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["curve.png", "results.json", "results.md"]


def test_a_crash_while_writing_leaves_no_half_written_file(tmp_path: Path):
    report = Report(metrics={}, claims=[_claim(0.2, None, 0.35)])
    write_results(tmp_path, _record(report), {})
    before = (tmp_path / "results.json").read_bytes()

    class Broken(Figure):
        def savefig(self, fh, **kw):
            fh.write(b"\x89PNG half")
            raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        write_results(tmp_path, _record(Report(metrics={"new": 1}, claims=report.claims)), {"p": Broken()})
    assert (tmp_path / "results.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json", "results.md"]


def test_write_results_refuses_unsafe_figure_names(tmp_path: Path):
    with pytest.raises(ValueError, match="figure name"):
        write_results(tmp_path, _record(Report(metrics={}, claims=[_claim(0, 0)])), {"../x": _figure()})


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_claim_constructors_refuse_non_finite_bounds(bad):
    with pytest.raises(ValueError, match="bound must be a finite number"):
        Claim.at_least("a", "s", "q", 1.0, bad)
    with pytest.raises(ValueError, match="bound must be a finite number"):
        Claim.at_most("a", "s", "q", 1.0, bad)
    with pytest.raises(ValueError, match="low must be a finite number"):
        Claim.between("a", "s", "q", 1.0, bad, 2.0)
    with pytest.raises(ValueError, match="high must be a finite number"):
        Claim.between("a", "s", "q", 1.0, 0.0, bad)
    with pytest.raises(ValueError, match="'a': high must be a finite number"):
        Claim("a", "s", "q", 1.0, None, bad)


def test_claim_bounds_must_be_numbers():
    with pytest.raises(TypeError, match=r"bound must be a finite number, got '0.5' \(str\)"):
        Claim.at_least("a", "s", "q", 1.0, "0.5")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"low must be a finite number, got True \(bool\)"):
        Claim("a", "s", "q", 1.0, True)
    assert Claim.at_least("a", "s", "q", 1.0, np.float32(0.5)).low == 0.5
