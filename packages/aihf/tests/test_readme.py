"""The README's Python example runs as written and gives what it says."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 1
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    fit = namespace["fit"]
    assert fit.theta.shape == (3,) and fit.policy.shape == (30, 64, 4)
    j_expert = namespace["aihf"].policy_return(
        namespace["mdp"].P,
        namespace["expert"],
        namespace["mdp"].rho0,
        namespace["env"].unwrapped.true_reward(),
    )
    assert namespace["score"] > 0.9 * j_expert  # the learned policy is near-expert on the true reward
