"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "moral-rewards"
    module = "moral_rewards"
    known_hygiene_violations = frozenset()
    # Quick = seed 0 of the full run (RESULTS.md), base pre-trained 400 steps: Game and De separate as the
    # paper says; 40 De episodes do not undo 40 Game episodes (unlearn-after), fine-tuning on action1/2 does
    # not lower the held-out tokens' regret below the base's (regret-game-below-base), and the unlearning
    # run's P(D | C) is far from the tabular peer's (peer-tabular). Diagnoses in RESULTS.md.
    known_failing_quick_claims = frozenset({"unlearn-after", "regret-game-below-base", "peer-tabular"})
