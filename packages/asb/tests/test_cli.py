"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "asb"
    module = "asb"
    known_hygiene_violations = frozenset()
    # Quick run = the full run's seeds 0-1 (RESULTS.md section 7), with the full run's two failures,
    # diagnosed in section 6: seed 1's toy copies the poisoned workflow (MP 0.94) more often than it obeys
    # the mix, and the toy fires on the paraphrased trigger as on the trigger.
    known_failing_quick_claims = frozenset({"mixed-beats-single", "paraphrase-cuts-pot"})
