"""Gates on a report: ``require_pass_rate`` and the ``assert_that(report)`` chain.

Every failure is an ``AssertionError`` whose message states the figure, the requirement and the
failing cases with their explanations, so a CI log says what to fix.
"""

from __future__ import annotations

import math

import numpy as np

from evalmark.report.model import Report, Summary

__all__ = ["ReportAssertion", "assert_that", "describe_failures", "require_pass_rate"]

_SHOWN = 20


def describe_failures(
    report: Report, *, tag: str | None = None, strategy: str | None = None, limit: int = _SHOWN
) -> str:
    """The failing evaluations as lines ``- sample [strategy] verdict: explanation`` (at most
    ``limit``, then a count of the rest); ``""`` when there are none."""
    mask = report.tag_mask(tag) if tag is not None else np.ones(len(report), dtype=np.bool_)
    names = (strategy,) if strategy is not None else report.strategies
    lines: list[str] = []
    hidden = 0
    for index in np.flatnonzero(mask):
        for name in names:
            result = report.column(name)[int(index)]
            if result.passed and result.error is None:
                continue
            if len(lines) >= limit:
                hidden += 1
                continue
            text = " ".join(result.explanation.split()) or "(no explanation)"
            if len(text) > 240:
                text = text[:239] + "…"
            lines.append(f"  - {report.sample_names[int(index)]} [{name}] {result.verdict}: {text}")
    if hidden:
        lines.append(f"  … and {hidden} more")
    return "\n".join(lines)


def _scope(tag: str | None, strategy: str | None) -> str:
    parts = []
    if tag is not None:
        parts.append(f"tag {tag!r}")
    if strategy is not None:
        parts.append(f"strategy {strategy!r}")
    return f" for {' and '.join(parts)}" if parts else ""


def _summary(report: Report, tag: str | None, strategy: str | None) -> Summary:
    if strategy is not None:
        report.column(strategy)  # KeyError naming the known strategies
    if tag is not None:
        report.for_tag(tag)  # KeyError naming the known tags
        mask = report.tag_mask(tag)
        return report._stack(mask, (strategy,) if strategy else None)
    if strategy is not None:
        return report.by_strategy()[strategy]
    return report.summary


def require_pass_rate(
    report: Report, minimum: float, *, tag: str | None = None, strategy: str | None = None
) -> None:
    """Raise ``AssertionError`` unless the pass rate (a fraction) is at least ``minimum``."""
    if isinstance(minimum, bool) or not isinstance(minimum, int | float):
        raise TypeError(f"the minimum pass rate must be a number in [0, 1], got {minimum!r}")
    if not (math.isfinite(minimum) and 0.0 <= minimum <= 1.0):
        hint = f"; did you mean {minimum / 100:g}?" if 1 < minimum <= 100 else ""
        raise ValueError(f"the minimum pass rate is a fraction in [0, 1], got {minimum}{hint}")
    summary = _summary(report, tag, strategy)
    scope = _scope(tag, strategy)
    if summary.evaluations == 0:
        raise AssertionError(
            f"report {report.name!r}{scope}: no evaluations, so no pass rate to check"
        )
    if summary.passed >= minimum * summary.evaluations - 1e-9:
        return
    failures = describe_failures(report, tag=tag, strategy=strategy)
    raise AssertionError(
        f"report {report.name!r}{scope}: pass rate {summary.pass_rate:.1%} is below the required "
        f"{minimum:.1%} ({summary.passed} of {summary.evaluations} evaluations passed, "
        f"{summary.failed} failed, {summary.errors} errors). Failing cases:\n{failures}"
    )


class ReportAssertion:
    """Chainable assertions on a report; each returns the chain or raises ``AssertionError``
    naming the failing samples."""

    __slots__ = ("report",)

    def __init__(self, report: Report) -> None:
        if not isinstance(report, Report):
            raise TypeError(f"assert_that takes a Report, got {type(report).__name__}")
        self.report = report

    def _fail(self, what: str) -> AssertionError:
        s = self.report.summary
        failures = describe_failures(self.report)
        listing = f" Failing cases:\n{failures}" if failures else ""
        return AssertionError(
            f"report {self.report.name!r}: {what} (score {s.score:.1f}%, {s.passed} passed, "
            f"{s.failed} failed, {s.errors} errors of {s.evaluations}).{listing}"
        )

    def has_score(self, score: float, *, tolerance: float = 1e-9) -> ReportAssertion:
        """The score (0–100) equals ``score``."""
        if abs(self.report.score - score) > tolerance:
            raise self._fail(f"expected a score of {score:g}%, got {self.report.score:g}%")
        return self

    def has_score_greater_than(self, score: float) -> ReportAssertion:
        """The score (0–100) is strictly greater than ``score``."""
        if not self.report.score > score:
            raise self._fail(
                f"expected a score greater than {score:g}%, got {self.report.score:g}%"
            )
        return self

    def has_score_between(self, low: float, high: float) -> ReportAssertion:
        """``low <= score <= high`` (0–100)."""
        if not low <= self.report.score <= high:
            raise self._fail(
                f"expected a score between {low:g}% and {high:g}%, got {self.report.score:g}%"
            )
        return self

    def has_passed_count(self, count: int) -> ReportAssertion:
        """Exactly ``count`` evaluations passed."""
        if self.report.passed != count:
            raise self._fail(f"expected {count} passed evaluations, got {self.report.passed}")
        return self

    def has_at_least_passed_evaluations(self, count: int) -> ReportAssertion:
        """At least ``count`` evaluations passed."""
        if self.report.passed < count:
            raise self._fail(
                f"expected at least {count} passed evaluations, got {self.report.passed}"
            )
        return self

    def has_failed_count(self, count: int) -> ReportAssertion:
        """Exactly ``count`` evaluations did not pass (failures and errors)."""
        got = self.report.failed + self.report.errors
        if got != count:
            raise self._fail(f"expected {count} failed evaluations, got {got}")
        return self

    def has_at_most_failed_evaluations(self, count: int) -> ReportAssertion:
        """At most ``count`` evaluations did not pass (failures and errors)."""
        got = self.report.failed + self.report.errors
        if got > count:
            raise self._fail(f"expected at most {count} failed evaluations, got {got}")
        return self

    def has_error_count(self, count: int) -> ReportAssertion:
        """Exactly ``count`` evaluations are errors."""
        if self.report.errors != count:
            raise self._fail(f"expected {count} errors, got {self.report.errors}")
        return self

    def has_evaluation_count(self, count: int) -> ReportAssertion:
        """Exactly ``count`` evaluations (samples × strategies)."""
        if self.report.evaluations != count:
            raise self._fail(f"expected {count} evaluations, got {self.report.evaluations}")
        return self

    def has_passed_for_tag(self, tag: str) -> ReportAssertion:
        """Every evaluation of the samples tagged ``tag`` passed."""
        summary = self.report.for_tag(tag)
        if summary.passed != summary.evaluations:
            failures = describe_failures(self.report, tag=tag)
            raise AssertionError(
                f"report {self.report.name!r}: not every evaluation tagged {tag!r} passed "
                f"({summary.passed} of {summary.evaluations}). Failing cases:\n{failures}"
            )
        return self

    def has_pass_rate(
        self, minimum: float, *, tag: str | None = None, strategy: str | None = None
    ) -> ReportAssertion:
        """The pass rate (a fraction) is at least ``minimum``; see :func:`require_pass_rate`."""
        require_pass_rate(self.report, minimum, tag=tag, strategy=strategy)
        return self


def assert_that(report: Report) -> ReportAssertion:
    """Start a chain of assertions on ``report``::

    assert_that(report).has_score_greater_than(80).has_passed_for_tag("critical")
    """
    return ReportAssertion(report)
