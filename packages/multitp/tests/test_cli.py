"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "multitp"
    module = "multitp"
    known_hygiene_violations = frozenset()
    # Quick scale (RESULTS.md, quick run 2026-12-01): estimator-oracle's 0.05 (the spec's margin) is ~2
    # binomial SEs at 600 vignettes a dimension (max error 0.074 over 36 entries); 500 steps leave the
    # low-resource languages at the prior, so identifiability and the English-pivot comparison fail.
    known_failing_quick_claims = frozenset(
        {"estimator-oracle", "identifiability", "identifiability-margin", "beats-english-pivot"}
    )
