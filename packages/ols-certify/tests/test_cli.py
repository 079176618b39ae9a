"""The console script, through the shared conformance battery (plus checks on its smoke output)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from ols_certify import certify
from ols_certify.cli import main
from shared_testing import run_cli
from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "ols-certify"
    module = "ols_certify"
    known_hygiene_violations = frozenset()

    def test_smoke_output_reports_certificates_and_plots(
        self, smoke_runs: list[tuple[subprocess.CompletedProcess[str], Path]]
    ) -> None:
        proc, out = smoke_runs[0]
        assert proc.returncode == 0, proc.stderr
        assert "| diabetes bmi (sign) | 442 | 11 |" in proc.stdout
        assert {p.name for p in out.glob("*.png")} == {
            "bounds_gaussian_d10.png",
            "bounds_diabetes_bmi.png",
            "soundness_tiny.png",
        }
        record = json.loads((out / "results.json").read_text())
        assert [c["name"] for c in record["claims"]] == [
            "soundness-vs-brute-force",
            "non-trivial-certificates",
            "tightness-vs-kzc21",
            "acre-dominates-fh23",
        ]
        assert record["metrics"]["tiny"]["fraction_sound"] == 1.0
        assert "Certificates and candidate sets" in (out / "results.md").read_text()


def _write_csv(path: Path, header: list[str], rows: np.ndarray) -> Path:
    np.savetxt(path, rows, delimiter=",", header=",".join(header), comments="")
    return path


def test_audit_command_prints_the_certificate_of_a_csv(tmp_path: Path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = 0.3 * X[:, 0] + rng.normal(size=300)
    csv = _write_csv(tmp_path / "d.csv", ["a", "b", "out"], np.column_stack([X, y]))
    proc = run_cli(
        "ols-certify",
        "audit",
        csv,
        "--y",
        "out",
        "--coef",
        "a",
        "--threshold",
        "se:2",
        "--plot",
        tmp_path / "p.png",
    )
    assert proc.returncode == 0, proc.stderr
    k_lb = certify(np.column_stack([np.ones(300), X]), y, 1, ("se", 2.0)).k_lb
    assert f"ACRE k_LB = {k_lb}" in proc.stdout and "coefficient 'a'" in proc.stdout
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_audit_command_bad_input_is_one_line_exit_2(tmp_path: Path):
    rng = np.random.default_rng(1)
    a = rng.normal(size=40)
    csv = _write_csv(tmp_path / "d.csv", ["a", "b", "out"], np.column_stack([a, 2 * a, rng.normal(size=40)]))
    for args, match in [
        (["--y", "out", "--coef", "a"], "'b' (index 2) is a linear combination of 'a'"),
        (["--y", "out", "--coef", "zz"], "not in the header"),
        (["--y", "out", "--coef", "a", "--threshold", "flip"], "--threshold must be"),
    ]:
        proc = run_cli("ols-certify", "audit", csv, *args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and match in lines[0], proc.stderr


@pytest.fixture
def audit_cli(capsys: pytest.CaptureFixture[str]):
    """``ols-certify audit ARGS`` in this process (the same main as the console script, without paying an
    interpreter start-up per case): a CompletedProcess with its exit code, stdout and stderr."""

    def run(*args: object) -> subprocess.CompletedProcess[str]:
        argv = ["audit", *map(str, args)]
        try:
            code = main(argv)
        except SystemExit as stop:
            code = int(stop.code or 0)
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(argv, code, out, err)

    return run


def _one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def _regression_text(sep: str = ",", quote: bool = False) -> tuple[str, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = 0.8 * X[:, 0] + rng.normal(size=60)
    q = '"' if quote else ""
    rows = [sep.join(f"{q}{v!r}{q}" for v in row) for row in np.column_stack([X, y]).tolist()]
    header = sep.join(f"{q}{n}{q}" for n in ("a", "b", "out"))
    return "\n".join([header, *rows]) + "\n", X, y


def test_audit_reads_a_bom_quoted_fields_and_other_delimiters(tmp_path: Path, audit_cli):
    text, X, y = _regression_text()
    expected = f"ACRE k_LB = {certify(np.column_stack([np.ones(60), X]), y, 1, 'sign').k_lb}"
    files = {
        "plain.csv": (text.encode(), ","),
        "bom.csv": (b"\xef\xbb\xbf" + text.encode(), ","),
        "quoted.csv": (_regression_text(quote=True)[0].encode(), ","),
        "semicolon.csv": ("\ufeff" + _regression_text(";")[0]).encode(),
        "tab.tsv": _regression_text("\t")[0].encode(),
        "crlf.csv": text.replace("\n", "\r\n").encode(),
    }
    delims = {"semicolon.csv": ";", "tab.tsv": "tab"}
    for name, content in files.items():
        data = content[0] if isinstance(content, tuple) else content
        (tmp_path / name).write_bytes(data)
        args = ["--delimiter", delims[name]] if name in delims else []
        proc = audit_cli(tmp_path / name, "--y", "out", "--coef", "a", *args)
        assert proc.returncode == 0, (name, proc.stderr)
        assert expected in proc.stdout, name


BAD_FILES = [
    ("empty", b"", "is empty"),
    ("blank lines only", b"\n \n", "is empty"),
    ("header only", b"a,b,out\n", "header but no data rows"),
    ("ragged row", b"a,b,out\n1,2,3\n4,5\n6,7,8\n", "line 3: 2 field(s), but the header has 3"),
    ("not UTF-8", b"a,b,out\n1,2,3\n\xe9,1,2\n", "is not UTF-8 text: byte 0xe9 on line 3"),
    ("repeated name", b"a,a,out\n1,2,3\n", "more than once"),
    ("blank name", b"a,,out\n1,2,3\n", "blank column name"),
    ("text column", b"a,b,out\n1,x,3\n2,y,4\n", "column 'b' is text, not numbers (the text 'x' on line 2)"),
    ("empty cell", b"a,b,out\n1,,3\n2,1,4\n", "column 'b' is text, not numbers (an empty cell on line 2)"),
    ("semicolons without --delimiter", b"a;b;out\n1;2;3\n", "looks ';'-delimited: pass --delimiter ';'"),
    ("unterminated quote", b'a,b,out\n1,"2,3\n', "unexpected end of data"),
]


@pytest.mark.parametrize(("content", "fragment"), [b[1:] for b in BAD_FILES], ids=[b[0] for b in BAD_FILES])
def test_audit_refuses_an_unreadable_csv_in_one_line(
    tmp_path: Path, content: bytes, fragment: str, audit_cli
):
    (tmp_path / "d.csv").write_bytes(content)
    line = _one_line(audit_cli(tmp_path / "d.csv", "--y", "out", "--coef", "a"))
    assert fragment in line, line


def test_audit_refuses_bad_columns_plot_paths_and_delimiters(tmp_path: Path, audit_cli):
    text, _, _ = _regression_text()
    csv = tmp_path / "d.csv"
    csv.write_text(text)
    (tmp_path / "file").write_text("")
    cases = [
        (["--x", "a", "out"], "--x includes the response 'out'"),
        (["--x", "b"], "--coef 'a' is not among the regressors"),
        (["--plot", tmp_path], "is a folder"),
        (["--plot", tmp_path / "nowhere" / "p.png"], "does not exist"),
        (["--plot", tmp_path / "file" / "p.png"], "does not exist"),
        (["--delimiter", ";;"], "--delimiter must be one character"),
        (["--delimiter", '"'], "--delimiter must be one character"),
    ]
    for extra, fragment in cases:
        line = _one_line(audit_cli(csv, "--y", "out", "--coef", "a", *extra))
        assert fragment in line, (extra, line)
    assert "cannot read" in _one_line(audit_cli(tmp_path / "missing.csv", "--y", "out", "--coef", "a"))
    assert "cannot read" in _one_line(audit_cli(tmp_path, "--y", "out", "--coef", "a"))


def test_audit_refuses_a_design_that_fits_y_exactly(tmp_path: Path, audit_cli):
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(2, 50))
    rows = np.column_stack([a, b, 2 * a - b + 1])  # y = 2a - b + 1 exactly
    csv = _write_csv(tmp_path / "exact.csv", ["a", "b", "out"], rows)
    assert "the residuals are zero" in _one_line(audit_cli(csv, "--y", "out", "--coef", "a"))
    copy = _write_csv(tmp_path / "copy.csv", ["a", "ycopy", "out"], np.column_stack([a, b, b]))
    line = _one_line(audit_cli(copy, "--y", "out", "--coef", "a"))
    assert "'ycopy' (index 2) equals y: the design contains the response" in line


def test_audit_plot_write_failures_are_one_line(tmp_path: Path, audit_cli, monkeypatch):
    import errno
    import tempfile

    import paperkit

    csv = tmp_path / "d.csv"
    csv.write_text(_regression_text()[0])

    def full(*args: object, **kw: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(paperkit, "atomic_write_bytes", full)
    line = _one_line(audit_cli(csv, "--y", "out", "--coef", "a", "--plot", tmp_path / "p.png"))
    assert "--plot" in line and "No space left on device" in line
    monkeypatch.setattr(tempfile, "NamedTemporaryFile", full)  # what a read-only folder does to non-root
    line = _one_line(audit_cli(csv, "--y", "out", "--coef", "a", "--plot", tmp_path / "p.png"))
    assert f"cannot write in {tmp_path}" in line
