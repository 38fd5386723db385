"""Score and verdict of an evaluation test, for its terminal line (``--evalmark-show-scores``,
the seed's display-name generator): imported only for a test that registered a report."""

from __future__ import annotations

from collections.abc import Sequence

from evalmark.pytest._registry import RegisteredReport

__all__ = ["score_text"]


def score_text(entries: Sequence[RegisteredReport]) -> str:
    """``score 75.0% (3 of 4 checks), 1 of 2 cases passed, gate passed`` over the reports a
    test registered: the share of single checks that passed, the cases whose every check
    passed, and the verdict of their gates (``no gate`` when none applied)."""
    checks = checks_passed = cases = cases_passed = 0
    verdicts: list[bool] = []
    for entry in entries:
        summary, tally = entry.report.summary, entry.report.cases()
        checks += summary.evaluations
        checks_passed += summary.passed
        cases += tally.cases
        cases_passed += tally.passed
        verdicts.extend(gate.passed for gate in entry.report.gates)
    score = checks_passed / checks if checks else 0.0
    verdict = "no gate" if not verdicts else "gate passed" if all(verdicts) else "gate FAILED"
    return (
        f"score {score:.1%} ({checks_passed} of {checks} checks), "
        f"{cases_passed} of {cases} cases passed, {verdict}"
    )
