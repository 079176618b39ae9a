"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "asb"
    module = "asb"
    known_hygiene_violations = frozenset()
    # Quick run = the full run's seeds 0-1 (RESULTS.md section 8), with the full run's one failure: the toy
    # fires on the paraphrased trigger as on the trigger. Which of mixed-beats-single, paraphrase-cuts-pot
    # and delimiters-weak fail depends on the CPU's float rounding (section 8); this set is the one of the
    # machine of the recorded runs (2026-12-07).
    known_failing_quick_claims = frozenset({"paraphrase-cuts-pot"})
