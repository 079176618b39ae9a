import subprocess
from pathlib import Path

import pytest
from ci_plan import changelog_problems, packages_to_test, release_package


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    for name, version in [("paperkit", "0.1.0"), ("alpha", "0.2.0"), ("beta-pkg", "1.0.0")]:
        d = tmp_path / "packages" / name
        d.mkdir(parents=True)
        (d / "pyproject.toml").write_text(f'[project]\nname = "iclr25-{name}"\nversion = "{version}"\n')
        (d / "CHANGELOG.md").write_text(f"# Changelog\n\n## Unreleased\n\n## {version}\n- First release.\n")
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


def test_release_tag_needs_a_matching_changelog_entry(repo: Path):
    log = repo / "packages" / "alpha" / "CHANGELOG.md"
    log.write_text("# Changelog\n\n## Unreleased\n- something new\n\n## 0.2.0\n- First release.\n")
    with pytest.raises(ValueError, match="still lists Unreleased"):
        release_package("alpha-v0.2.0", repo)
    log.write_text("# Changelog\n\n## Unreleased\n\n## 0.1.0\n- Older.\n")
    with pytest.raises(ValueError, match=r"no '## 0\.2\.0' entry"):
        release_package("alpha-v0.2.0", repo)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_changelog_check_wants_an_unreleased_entry_after_a_tag(repo: Path):
    (repo / "shared-testing").mkdir()
    (repo / "shared-testing" / "CHANGELOG.md").write_text("# Changelog\n\n## Unreleased\n")
    src = repo / "packages" / "alpha" / "src"
    src.mkdir()
    (src / "a.py").write_text("x = 1\n")
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "init", "--allow-empty")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "all")
    _git(repo, "tag", "alpha-v0.2.0")
    assert changelog_problems(repo) == []  # tagged, unchanged since
    (src / "a.py").write_text("x = 2\n")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "change")
    assert changelog_problems(repo) == [
        "packages/alpha: code changed since alpha-v0.2.0 but CHANGELOG.md has no Unreleased entry"
    ]
    log = repo / "packages" / "alpha" / "CHANGELOG.md"
    log.write_text(log.read_text().replace("## Unreleased\n", "## Unreleased\n- x is 2\n"))
    assert changelog_problems(repo) == []
    log.write_text("# Changelog\n\n## 0.2.0\n- First release.\n")
    assert changelog_problems(repo) == [
        "packages/alpha/CHANGELOG.md must start with an '## Unreleased' section",
        "packages/alpha: code changed since alpha-v0.2.0 but CHANGELOG.md has no Unreleased entry",
    ]


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
    row = "[alpha](packages/alpha) | `iclr25-alpha` | Alpha paper | [2401.00001](https://arxiv.org/abs/2401.00001)"
    assert row in table
    assert "paperkit" not in table and "beta-pkg" not in table
    doc = "intro\n<!-- paper-table:begin -->\nold\n<!-- paper-table:end -->\nend\n"
    assert (
        render(doc, table) == f"intro\n<!-- paper-table:begin -->\n{table}\n<!-- paper-table:end -->\nend\n"
    )
    with pytest.raises(ValueError, match="markers"):
        render("no markers", table)
