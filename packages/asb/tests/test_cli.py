"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "asb"
    module = "asb"
    known_hygiene_violations = frozenset()
    # Quick run (RESULTS.md, section 4): the toy's PoT backdoor fires on any trailing phrase, so the
    # rule-based paraphrase (which rewrites the trigger but leaves a phrase) does not cut it; diagnosed there.
    known_failing_quick_claims = frozenset({"paraphrase-cuts-pot"})
