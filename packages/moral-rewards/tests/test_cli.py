"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "moral-rewards"
    module = "moral_rewards"
    known_hygiene_violations = frozenset()
    # Quick = seed 0 of the full run (RESULTS.md): its base is under-trained (41% illegal answers, the gate
    # fails), and every PPO run from it collapses onto D whatever the reward (diagnosis in RESULTS.md).
    known_failing_quick_claims = frozenset({
        "gate-base-legal", "de-no-exploit", "de-vs-game", "unlearn-after", "regret-de-below-game",
        "illegal-after-ft", "peer-tabular",
    })  # fmt: skip
