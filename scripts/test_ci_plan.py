from pathlib import Path

import pytest
from ci_plan import packages_to_test, release_package


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    for name, version in [("paperkit", "0.1.0"), ("alpha", "0.2.0"), ("beta-pkg", "1.0.0")]:
        d = tmp_path / "packages" / name
        d.mkdir(parents=True)
        (d / "pyproject.toml").write_text(f'[project]\nname = "{name}"\nversion = "{version}"\n')
    return tmp_path


ALL = ["alpha", "beta-pkg", "paperkit", "shared-testing"]


@pytest.mark.parametrize(
    ("event", "changed", "expected"),
    [
        ("push", [], ALL),
        ("schedule", [], ALL),
        ("workflow_dispatch", [], ALL),
        ("pull_request", ["packages/alpha/src/alpha/core.py"], ["alpha"]),
        (
            "pull_request",
            ["packages/alpha/README.md", "packages/beta-pkg/tests/test_x.py"],
            ["alpha", "beta-pkg"],
        ),
        ("pull_request", ["packages/alpha/x.py", "packages/paperkit/src/paperkit/cli.py"], ALL),
        ("pull_request", ["shared-testing/src/shared_testing/plugin.py"], ALL),
        ("pull_request", ["uv.lock"], ALL),
        ("pull_request", ["noxfile.py"], ALL),
        ("pull_request", ["README.md"], []),
        ("pull_request", ["packages/gone/x.py"], []),
    ],
)
def test_matrix(repo: Path, event: str, changed: list[str], expected: list[str]):
    assert packages_to_test(event, changed, repo) == expected


def test_release_tag(repo: Path):
    assert release_package("alpha-v0.2.0", repo) == "alpha"
    assert release_package("beta-pkg-v1.0.0", repo) == "beta-pkg"
    with pytest.raises(ValueError, match=r"says 0\.2\.0"):
        release_package("alpha-v0.3.0", repo)
    with pytest.raises(ValueError, match="not a package"):
        release_package("gamma-v0.1.0", repo)
    with pytest.raises(ValueError, match="form"):
        release_package("alpha-0.2.0", repo)


def test_this_repository_lists_its_real_packages():
    names = packages_to_test("push", [])
    assert "paperkit" in names and "shared-testing" in names
    assert (Path(__file__).parent.parent / "packages" / names[0]).is_dir()


def test_paper_table_lists_papers_and_skips_infrastructure(repo: Path):
    from paper_table import paper_table, render

    pp = repo / "packages" / "alpha" / "pyproject.toml"
    pp.write_text(
        pp.read_text() + '\n[tool.paper]\ntitle = "Alpha paper"\narxiv = "2401.00001"\nquick_budget_s = 30\n'
    )
    table = paper_table(repo)
    assert "[alpha](packages/alpha) | Alpha paper | [2401.00001](https://arxiv.org/abs/2401.00001)" in table
    assert "paperkit" not in table and "beta-pkg" not in table
    doc = "intro\n<!-- paper-table:begin -->\nold\n<!-- paper-table:end -->\nend\n"
    assert (
        render(doc, table) == f"intro\n<!-- paper-table:begin -->\n{table}\n<!-- paper-table:end -->\nend\n"
    )
    with pytest.raises(ValueError, match="markers"):
        render("no markers", table)
