"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "multitp"
    module = "multitp"
    known_hygiene_violations = frozenset()
    # Quick scale (RESULTS.md): 500 steps leave the low-resource languages at the position prior, so the
    # model's vectors are not yet identified per language.
    known_failing_quick_claims = frozenset({"identifiability", "identifiability-margin", "paraphrase-robust"})
