"""The README's Python example runs as written and gives what it says."""

from __future__ import annotations

from pathlib import Path

from shared_testing import run_readme

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_runs():
    namespace = run_readme(README, blocks=1)
    fit = namespace["fit"]
    assert fit.theta.shape == (3,) and fit.policy.shape == (30, 64, 4)
    j_expert = namespace["aihf"].policy_return(
        namespace["mdp"].P,
        namespace["expert"],
        namespace["mdp"].rho0,
        namespace["env"].unwrapped.true_reward(),
    )
    assert namespace["score"] > 0.9 * j_expert  # the learned policy is near-expert on the true reward
