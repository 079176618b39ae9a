"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "llego"
    module = "llego"
    known_hygiene_violations = frozenset()
    # Quick scale (RESULTS.md, section 2): N = 8, G = 3 with a 600-step tiny LM barely moves past the random-
    # forest initial population, whose bootstrap trees are weaker than tuned full-data CART on test.
    known_failing_quick_claims = frozenset({"breast_cancer-vs-cart"})
