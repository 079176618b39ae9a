import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import ci_runner
import pytest
import warm_bytecode
from check_wheels import findings
from cpu_meter import measure, verdict


def _wheel(tmp: Path, name: str, version: str, requires: list[str]) -> Path:
    stem = f"{name.replace('-', '_')}-{version}"
    path = tmp / f"{stem}-py3-none-any.whl"
    meta = f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n"
    meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{stem}.dist-info/METADATA", meta)
    return path


BARE = {"paperkit", "rslqr", "shared-testing"}


def test_check_wheels_accepts_our_names_and_bounded_runtime(tmp_path: Path):
    good = _wheel(tmp_path, "iclr25-rslqr", "0.1.0+gabc", ["iclr25-paperkit<0.3,>=0.2", "numpy>=1.26"])
    assert findings(good, BARE) == []
    extra = _wheel(tmp_path, "iclr25-tpo", "0.1.0+gabc", ["iclr25-paperkit[lm]<0.3,>=0.2"])
    assert findings(extra, BARE) == []


@pytest.mark.parametrize(
    ("name", "version", "requires", "fragment"),
    [
        ("iclr25-rslqr", "0.1.0+gabc", ["paperkit>=0.1.0"], "requires bare 'paperkit'"),
        ("iclr25-rslqr", "0.1.0+gabc", ["iclr25-paperkit>=0.2"], "without an upper bound"),
        ("rslqr", "0.1.0+gabc", [], "lacks the 'iclr25-' prefix"),
        ("iclr25-rslqr", "0.1.0", [], "no local label"),
    ],
)
def test_check_wheels_finds_what_a_stranger_could_satisfy(tmp_path, name, version, requires, fragment):
    (line,) = findings(_wheel(tmp_path, name, version, requires), BARE)
    assert fragment in line


@pytest.mark.skipif(shutil.which("uv") is None, reason="needs uv")
def test_a_look_alike_paperkit_on_an_index_cannot_satisfy_our_requirement(tmp_path: Path):
    index = tmp_path / "index"
    index.mkdir()
    _wheel(index, "paperkit", "0.2.0", [])  # what a stranger publishes under the bare name

    def compile_(requirement: str) -> subprocess.CompletedProcess[str]:
        cmd = ["uv", "pip", "compile", "--no-index", "--find-links", str(index), "--no-header", "-"]
        return subprocess.run(cmd, input=requirement, capture_output=True, text=True, timeout=60)

    control = compile_("paperkit>=0.1.0\n")  # the old requirement: the stranger's wheel satisfies it
    assert control.returncode == 0 and "paperkit==0.2.0" in control.stdout, control.stderr
    ours = compile_("iclr25-paperkit>=0.2,<0.3\n")
    assert ours.returncode != 0 and "iclr25-paperkit" in ours.stderr


def test_cpu_meter_measures_the_child_and_names_the_budget():
    code, cpu, wall = measure([sys.executable, "-c", "sum(i * i for i in range(3_000_000))"])
    assert code == 0 and 0.05 < cpu <= wall + 0.5
    assert verdict("t", 10.0, 30.0, 60.0) == (True, "t: 10.0 CPU-s (budget 30 CPU-s a package)")
    ok, line = verdict("t", 40.0, 30.0, 60.0)
    assert ok and line.startswith("warning:")
    ok, line = verdict("t", 61.0, 30.0, 60.0)
    assert not ok and "over twice the budget" in line and "budget 30" in line


def test_stage_labels_every_version_by_content(tmp_path: Path):
    root = tmp_path / "repo"
    for folder in ("packages/alpha", "shared-testing"):
        (root / folder).mkdir(parents=True)
        (root / folder / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0.2.0"\n')
    (root / "pyproject.toml").write_text("")
    label = ci_runner.stage(root, tmp_path / "s1")
    assert label.startswith("h") and len(label) == 11
    staged = (tmp_path / "s1" / "packages" / "alpha" / "pyproject.toml").read_text()
    assert f'version = "0.2.0+{label}"' in staged
    assert (
        (root / "packages" / "alpha" / "pyproject.toml").read_text().endswith('"0.2.0"\n')
    )  # source untouched
    assert ci_runner.stage(root, tmp_path / "s2") == label
    (root / "packages" / "alpha" / "new.py").write_text("x = 1\n")
    assert ci_runner.stage(root, tmp_path / "s3") != label  # new code, new version


def test_counts_and_table():
    log = "ok\n152 passed, 2 skipped in 28.46s\n===== 1 failed, 3 passed, 1 error in 2.0s =====\n"
    assert ci_runner.test_counts(log) == {"passed": 155, "skipped": 2, "failed": 2}
    outcome = ci_runner.Outcome("tests(x-cpu)", 0, 12.0, 40.0, 35.0, Path("l"), {"passed": 3})
    text = ci_runner.table([outcome], 30.0, 12.5)
    assert "| tests(x-cpu) | passed | 12.0 | 40.0 | 35.0 (over) | 3 passed |" in text
    assert ci_runner.slug("tests(iclr25-rslqr-cpu)") == "tests-iclr25-rslqr-cpu"


def test_warm_bytecode_imports_the_package_and_refuses_an_unknown_one() -> None:
    assert warm_bytecode.warm("json", heavy=("email.mime", "no_such_heavy_x")) == ["json", "email.mime"]
    with pytest.raises(SystemExit, match="no module named 'no_such_module_x'"):
        warm_bytecode.warm("no_such_module_x")
    assert warm_bytecode.main([]) == 2
