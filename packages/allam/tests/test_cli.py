"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "allam"
    module = "allam"
    known_hygiene_violations = frozenset()
    # Quick scale (RESULTS.md section 12): B facts are not yet answered after 80 CPT steps (the transfer
    # gate), parallel data do not transfer, and alignment raises A but not B questions; DPO trails SFT.
    known_failing_quick_claims = frozenset({
        "gate-b-learned", "parallel-data-transfers", "alignment-lifts-both", "dpo-beats-sft",
    })  # fmt: skip
