"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "asb"
    module = "asb"
    known_hygiene_violations = frozenset()
    # Quick run (RESULTS.md, Q4): the toy backbone's clean-run steps fail (PNA 0, the gate), and the
    # rule-based paraphrase does not break its PoT trigger match; both diagnosed there.
    known_failing_quick_claims = frozenset({"gate-backbone-learns", "paraphrase-cuts-pot"})
