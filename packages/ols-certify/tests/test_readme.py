"""The README's Python examples run as written and give what they say."""

from __future__ import annotations

from pathlib import Path

from shared_testing import run_readme

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run():
    namespace = run_readme(README, blocks=2)
    assert namespace["cert"].k_lb == 30  # as the comment in the README says
    res = namespace["res"]
    assert res.certificate.k_lb == 15  # the table's diabetes bmi row
    assert "k_LB = 15" in res.summary()
    assert namespace["fig"].axes[0].get_legend() is not None
