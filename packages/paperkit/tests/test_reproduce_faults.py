"""The reproduce frame under bad --out/--seed, write failures, Ctrl-C and two runs into one folder."""

from __future__ import annotations

import errno
import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import paperkit.results
import pytest
from matplotlib.figure import Figure
from paperkit import Claim, Experiment, Report, reproduce_main, seed_everything
from paperkit.results import LOCK_NAME, OutputFolderError, ResultsFolder
from shared_testing.conformance import validate_results

ARGS = ["reproduce", "--smoke", "--device", "cpu"]


@dataclass(frozen=True)
class Cfg:
    n: int


def _report(seed: int) -> Report:
    x = float(np.random.default_rng(seed).normal(size=10).mean())
    return Report(metrics={"mean": x}, claims=[Claim.at_most("mean-small", "small", "|mean|", abs(x), 10.0)])


def _figure(y: float) -> Figure:
    fig = Figure()
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, y], label="mean")
    ax.set_xlabel("x")
    ax.legend()
    return fig


def experiment(
    *, run: Any = None, plots: Any = None, quick: Any = None, calls: list[int] | None = None
) -> Experiment:
    def default_run(config: Cfg, *, seed: int, device: str) -> Report:
        if calls is not None:
            calls.append(seed)
        return _report(seed)

    return Experiment(
        package="paperkit",
        description="A toy experiment.",
        quick=quick or (lambda: Cfg(100)),
        full=lambda: Cfg(1000),
        smoke=quick or (lambda: Cfg(10)),
        run=run or default_run,
        plots=plots or (lambda report: {"mean": _figure(report.metrics["mean"])}),
    )


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def refused(argv: list[str], capsys: pytest.CaptureFixture[str], exp: Experiment | None = None) -> str:
    with pytest.raises(SystemExit) as stop:
        reproduce_main(exp or experiment(), argv)
    assert stop.value.code == 2
    return one_line(capsys.readouterr().err)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def assert_complete_set(out: Path) -> dict[str, Any]:
    record = validate_results(out, "paperkit")
    for name, digest in record["files"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest, name
    on_disk = {p.name for p in out.iterdir()}
    assert on_disk == {*record["files"], "results.json"}, on_disk  # no lock, staging or stale file left
    return record


# --- --out and --seed are checked before the run ---------------------------------------------------------


def test_out_that_is_a_file_is_refused_before_the_run(tmp_path: Path, capsys) -> None:
    target = tmp_path / "results.txt"
    target.write_text("keep me")
    calls: list[int] = []
    line = refused([*ARGS, "--out", str(target)], capsys, experiment(calls=calls))
    assert "is a file, not a folder" in line and str(target) in line
    assert calls == [] and target.read_text() == "keep me"


def test_empty_out_is_refused(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert "empty string" in refused([*ARGS, "--out", ""], capsys)
    assert "empty string" in refused([*ARGS, "--out", "  "], capsys)
    assert "NUL" in refused([*ARGS, "--out", "a\0b"], capsys)
    assert not list(tmp_path.iterdir())


def test_out_that_cannot_be_created_is_refused(tmp_path: Path, capsys) -> None:
    (tmp_path / "f").write_text("")
    line = refused([*ARGS, "--out", str(tmp_path / "f" / "sub")], capsys)
    assert "cannot create the folder" in line and "Not a directory" in line


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write a read-only folder")
def test_read_only_out_is_refused(tmp_path: Path, capsys) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        assert "cannot write in the folder" in refused([*ARGS, "--out", str(ro)], capsys)
    finally:
        ro.chmod(0o755)


def test_unwritable_out_is_refused(tmp_path: Path, capsys, monkeypatch) -> None:
    # What a read-only folder does for a user who is not root (these tests may run as root).
    def denied(*args: Any, **kw: Any) -> str:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(paperkit.results.tempfile, "mkdtemp", denied)
    calls: list[int] = []
    line = refused([*ARGS, "--out", str(tmp_path / "a" / "b")], capsys, experiment(calls=calls))
    assert "cannot write in the folder" in line and "Permission denied" in line
    assert calls == [] and not (tmp_path / "a").exists()  # the folders it created are removed again


def test_a_full_disk_is_refused_before_the_run(tmp_path: Path, capsys, monkeypatch) -> None:
    real = paperkit.results.shutil.disk_usage
    monkeypatch.setattr(paperkit.results.shutil, "disk_usage", lambda p: real(p)._replace(free=2 * 2**20))
    line = refused([*ARGS, "--out", str(tmp_path / "new")], capsys)
    assert "2.0 MiB free" in line and not (tmp_path / "new").exists()


@pytest.mark.parametrize("seed", [str(2**63), str(2**70), "9" * 5000])
def test_seed_outside_what_numpy_and_torch_take_is_refused(seed: str, tmp_path: Path, capsys) -> None:
    line = refused([*ARGS, "--seed", seed, "--out", str(tmp_path)], capsys)
    assert "--seed must be" in line and len(line) < 200
    assert not list(tmp_path.iterdir())


def test_the_largest_seed_runs(tmp_path: Path, capsys) -> None:
    assert reproduce_main(experiment(), [*ARGS, "--seed", str(2**63 - 1), "--out", str(tmp_path)]) == 0
    assert assert_complete_set(tmp_path)["seed"] == 2**63 - 1


def test_seed_everything_refuses_seeds_out_of_range() -> None:
    for bad, fragment in [
        (2**63, "got 9223372036854775808"),
        (10**5000, "got an integer of 16610 bits"),
        (-1, "got -1"),
    ]:
        with pytest.raises(ValueError, match=r"seed must be an integer in \[0, 2\*\*63 - 1\], " + fragment):
            seed_everything(bad)
    with pytest.raises(TypeError, match="seed must be an integer"):
        seed_everything(True)


# --- write failures --------------------------------------------------------------------------------------


def test_a_write_failure_is_one_line_exit_3_and_keeps_the_previous_set(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    assert reproduce_main(experiment(), [*ARGS, "--seed", "1", "--out", str(tmp_path)]) == 0
    before = snapshot(tmp_path)
    capsys.readouterr()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(paperkit.results.os, "fsync", full)
    assert reproduce_main(experiment(), [*ARGS, "--seed", "2", "--out", str(tmp_path)]) == 3
    captured = capsys.readouterr()
    line = one_line(captured.err)
    assert "cannot write results to" in line and "No space left on device" in line and "intact" in line
    assert "mean-small" in captured.out  # the claims table was printed before the write: nothing is lost
    assert snapshot(tmp_path) == before


# --- Ctrl-C anywhere -------------------------------------------------------------------------------------


def _interrupt(*args: Any, **kw: Any) -> Any:
    raise KeyboardInterrupt


@pytest.mark.parametrize("where", ["start-up", "config", "run", "plots", "writing"])
def test_ctrl_c_anywhere_exits_130_with_one_line_and_keeps_the_previous_set(
    where: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    assert reproduce_main(experiment(), [*ARGS, "--out", str(tmp_path)]) == 0
    before = snapshot(tmp_path)
    capsys.readouterr()
    exp = experiment()
    if where == "start-up":
        monkeypatch.setattr(paperkit.cli, "build_parser", _interrupt)
    elif where == "config":
        exp = experiment(quick=_interrupt)
    elif where == "run":
        exp = experiment(run=_interrupt)
    elif where == "plots":
        exp = experiment(plots=_interrupt)
    else:

        class Interrupted(Figure):
            def savefig(self, *args: Any, **kw: Any) -> None:
                raise KeyboardInterrupt

        exp = experiment(plots=lambda report: {"a": _figure(1.0), "b": Interrupted()})
    assert reproduce_main(exp, [*ARGS, "--seed", "5", "--out", str(tmp_path)]) == 130
    line = one_line(capsys.readouterr().err)
    assert line.startswith("paperkit: interrupted; nothing was written")
    assert snapshot(tmp_path) == before


def test_ctrl_c_during_the_final_renames_is_held_back_until_the_set_is_complete(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    assert reproduce_main(experiment(), [*ARGS, "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    real_replace = os.replace

    def replace_then_signal(src: Any, dst: Any) -> None:
        real_replace(src, dst)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C between the renames of one set

    monkeypatch.setattr(paperkit.results.os, "replace", replace_then_signal)
    exp = experiment(plots=lambda report: {"other": _figure(2.0), "more": _figure(3.0)})
    assert reproduce_main(exp, [*ARGS, "--seed", "4", "--out", str(tmp_path)]) == 130
    assert "written in full" in one_line(capsys.readouterr().err)
    monkeypatch.undo()
    record = assert_complete_set(tmp_path)
    assert record["seed"] == 4 and not (tmp_path / "mean.png").exists()


_SLOW_CHILD = """
import signal, sys, time
# A shell starts background jobs with SIGINT ignored, and Python then installs no handler of its own; a
# terminal's foreground process has Python's default one, which is what a user's Ctrl-C meets.
signal.signal(signal.SIGINT, signal.default_int_handler)
from dataclasses import dataclass
from pathlib import Path
import paperkit.cli
from paperkit import Claim, Experiment, Report, reproduce_main

paperkit.cli.seed_everything = lambda seed: None  # the child tests Ctrl-C, not seeding: no torch import
flag = Path(sys.argv[1])
stage = sys.argv[2]

def wait(where):
    if stage == where:
        flag.write_text(where)
        time.sleep(30)

def quick():
    wait("start-up")
    return 1

def run(config, *, seed, device):
    wait("run")
    return Report(metrics={}, claims=[Claim.at_most("c", "s", "q", 0.0, 1.0)])

exp = Experiment("paperkit", "toy", quick, quick, quick, run, None)
sys.exit(reproduce_main(exp, ["reproduce", "--smoke", "--out", sys.argv[3]]))
"""


@pytest.mark.parametrize("stage", ["start-up", "run"])
def test_a_real_ctrl_c_gives_one_line_and_exit_130(stage: str, tmp_path: Path) -> None:
    flag, out = tmp_path / "flag", tmp_path / "out"
    child = subprocess.Popen(
        [sys.executable, "-c", _SLOW_CHILD, str(flag), stage, str(out)],
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not flag.exists() and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.02)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130, err
    assert one_line(err) == "paperkit: interrupted; nothing was written; " + f"{out} is as it was"
    assert not out.exists()  # the folder the run created is removed again


# --- one set per run; one run per folder -----------------------------------------------------------------


def test_a_second_run_replaces_the_whole_set(tmp_path: Path, capsys) -> None:
    two = experiment(plots=lambda r: {"a": _figure(1.0), "b": _figure(2.0)})
    assert reproduce_main(two, [*ARGS, "--seed", "0", "--out", str(tmp_path)]) == 0
    assert set(assert_complete_set(tmp_path)["files"]) == {"a.png", "b.png", "results.md"}
    one = experiment(plots=lambda r: {"c": _figure(3.0)})
    assert reproduce_main(one, [*ARGS, "--seed", "1", "--out", str(tmp_path)]) == 0
    record = assert_complete_set(tmp_path)
    assert record["seed"] == 1 and set(record["files"]) == {"c.png", "results.md"}


def test_a_result_written_before_manifests_is_replaced_whole(tmp_path: Path, capsys) -> None:
    (tmp_path / "old.png").write_bytes(b"\x89PNG old")
    (tmp_path / "results.md").write_text("# old\n![old](old.png)\n")
    (tmp_path / "results.json").write_text('{"seed": 9}')
    (tmp_path / "notes.txt").write_text("mine")
    assert reproduce_main(experiment(), [*ARGS, "--out", str(tmp_path)]) == 0
    assert not (tmp_path / "old.png").exists() and (tmp_path / "notes.txt").read_text() == "mine"
    assert validate_results(tmp_path, "paperkit")["seed"] == 0


def test_a_folder_another_run_holds_is_refused(tmp_path: Path, capsys) -> None:
    calls: list[int] = []
    with ResultsFolder.open(tmp_path):
        line = refused([*ARGS, "--out", str(tmp_path)], capsys, experiment(calls=calls))
    assert f"another run (pid {os.getpid()}) is writing {tmp_path}" in line and calls == []
    assert reproduce_main(experiment(), [*ARGS, "--out", str(tmp_path)]) == 0  # released on exit
    assert_complete_set(tmp_path)


def test_another_process_holding_the_folder_is_refused_and_a_dead_one_is_not(tmp_path: Path, capsys) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import sys, time
                from paperkit.results import ResultsFolder
                folder = ResultsFolder.open(sys.argv[1])
                print("held", flush=True)
                time.sleep(60)
                """
            ),
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        line = refused([*ARGS, "--out", str(tmp_path)], capsys)
        assert f"pid {holder.pid}" in line
    finally:
        holder.kill()  # dies holding the lock: no cleanup runs, the lock file stays
        holder.wait()
    assert (tmp_path / LOCK_NAME).exists()
    assert reproduce_main(experiment(), [*ARGS, "--out", str(tmp_path)]) == 0  # the kernel freed the lock
    assert_complete_set(tmp_path)


def test_staging_left_by_a_crashed_run_is_cleaned_up(tmp_path: Path, capsys) -> None:
    stale = tmp_path / ".paperkit-staging-dead"
    stale.mkdir()
    (stale / "results.json").write_text("{}")
    assert reproduce_main(experiment(), [*ARGS, "--out", str(tmp_path)]) == 0
    assert not stale.exists()
    assert_complete_set(tmp_path)


def test_results_folder_api_refusals(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputFolderError, match="is a file"):
        ResultsFolder.open(tmp_path / "file")
    with pytest.raises(OutputFolderError, match="empty string"):
        ResultsFolder.open("")
    folder = ResultsFolder.open(tmp_path / "out")
    with pytest.raises(ValueError, match="figure name"):
        folder.write({}, {"a/b": _figure(1.0)})
    folder.close()
    folder.close()
    with pytest.raises(ValueError, match="closed"):
        folder.write({}, {})
    assert not (tmp_path / "out").exists()
