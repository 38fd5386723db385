"""``assert_that(report)``: chainable assertions on one report, each raising an
``AssertionError`` that names the failing cases; the pass-rate ones are the gates of
:mod:`evalmark.gates._rules`. ``assert_that(result)`` on one evaluation result is in
:mod:`evalmark.gates._result_assertions`.

Two figures, two names: the **pass rate** counts cases (a case passes when every one of its
checks passes; every gate reads it), the **check pass rate** counts single evaluations (passed
evaluations ÷ evaluations, the figure the Quarkus extension calls its score; ``has_score``
keeps that extension's name and percent scale)."""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

from evalmark.gates._result_assertions import ResultAssertion
from evalmark.gates._rules import check_fraction, describe_failures, require_pass_rate
from evalmark.report._cases import pass_rate_label
from evalmark.report._wording import plural
from evalmark.results._result import EvaluationResult

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = ["ReportAssertion", "ResultAssertion", "assert_that"]


class ReportAssertion:
    """Chainable assertions on a report; each returns the chain or raises ``AssertionError``
    naming the failing samples."""

    __slots__ = ("report",)

    def __init__(self, report: Report) -> None:
        if not callable(getattr(report, "tally", None)) or not hasattr(report, "sample_names"):
            raise TypeError(f"assert_that takes a Report, got {type(report).__name__}")
        self.report = report

    def _fail(self, what: str) -> AssertionError:
        c = self.report.cases()
        failures = describe_failures(self.report)
        listing = f" Failing checks:\n{failures}" if failures else ""
        return AssertionError(
            f"report {self.report.name!r}: {what} ({pass_rate_label(c.pass_rate)}: "
            f"{c.passed} passed, {c.failed} failed, {plural(c.errors, 'error')} of {c.cases} "
            f"cases).{listing}"
        )

    def has_pass_rate_equal_to(self, value: float, *, tolerance: float = 1e-9) -> ReportAssertion:
        """The pass rate (the fraction of cases whose every check passed) equals ``value``."""
        got, value = self.report.pass_rate, check_fraction(value, "the pass rate")
        if abs(got - value) > tolerance:
            raise self._fail(f"expected a pass rate of {value:g}, got {got:g}")
        return self

    def has_pass_rate_greater_than(self, value: float) -> ReportAssertion:
        """The pass rate (a fraction of cases) is strictly greater than ``value``."""
        got, value = self.report.pass_rate, check_fraction(value, "the pass rate")
        if not got > value:
            raise self._fail(f"expected a pass rate greater than {value:g}, got {got:g}")
        return self

    def has_check_pass_rate_at_least(self, value: float) -> ReportAssertion:
        """The check pass rate (passed evaluations ÷ evaluations, single checks, not cases) is
        at least ``value``, a fraction."""
        got, value = self.report.check_pass_rate, check_fraction(value, "the check pass rate")
        if got < value:
            t = self.report.tally()
            raise self._fail(
                f"expected a check pass rate (passed evaluations ÷ evaluations) of at least "
                f"{value:g}, got {got:g} ({t.passed} of {plural(t.evaluations, 'evaluation')})"
            )
        return self

    def has_score(self, minimum: float) -> ReportAssertion:
        """The Quarkus extension's ``hasScore``: its score, 100 × passed evaluations ÷
        evaluations (the check pass rate in percent, not the pass rate of cases), is at least
        ``minimum`` (0 to 100)."""
        if isinstance(minimum, bool) or not isinstance(minimum, int | float):
            raise TypeError(f"has_score takes a percentage from 0 to 100, got {minimum!r}")
        if not 0 <= minimum <= 100:
            raise ValueError(f"has_score takes a percentage from 0 to 100, got {minimum!r}")
        got = 100 * self.report.check_pass_rate
        if got < minimum:
            t = self.report.tally()
            raise self._fail(
                f"expected a score (100 × passed evaluations ÷ evaluations, as the Quarkus "
                f"extension counts it) of at least {minimum:g}, got {got:g} ({t.passed} of "
                f"{plural(t.evaluations, 'evaluation')})"
            )
        return self

    def has_pass_rate_between(self, low: float, high: float) -> ReportAssertion:
        """``low <= pass rate <= high`` (fractions of cases)."""
        got = self.report.pass_rate
        low, high = check_fraction(low, "low"), check_fraction(high, "high")
        if not low <= got <= high:
            raise self._fail(f"expected a pass rate between {low:g} and {high:g}, got {got:g}")
        return self

    def _count(self, what: str, got: int, count: int, relation: str) -> ReportAssertion:
        held = {"exactly": got == count, "at least": got >= count, "at most": got <= count}
        if not held[relation]:
            wanted = str(count) if relation == "exactly" else f"{relation} {count}"
            raise self._fail(f"expected {wanted} {what}, got {got}")
        return self

    def has_passed_count(self, count: int) -> ReportAssertion:
        """Exactly ``count`` evaluations passed."""
        return self._count("passed evaluations", self.report.passed, count, "exactly")

    def has_at_least_passed_evaluations(self, count: int) -> ReportAssertion:
        """At least ``count`` evaluations passed."""
        return self._count("passed evaluations", self.report.passed, count, "at least")

    def has_failed_count(self, count: int) -> ReportAssertion:
        """Exactly ``count`` evaluations did not pass (failures and errors)."""
        got = self.report.failed + self.report.errors
        return self._count("failed evaluations", got, count, "exactly")

    def has_at_most_failed_evaluations(self, count: int) -> ReportAssertion:
        """At most ``count`` evaluations did not pass (failures and errors)."""
        got = self.report.failed + self.report.errors
        return self._count("failed evaluations", got, count, "at most")

    def has_error_count(self, count: int) -> ReportAssertion:
        """Exactly ``count`` evaluations are errors."""
        return self._count("errors", self.report.errors, count, "exactly")

    def has_evaluation_count(self, count: int) -> ReportAssertion:
        """Exactly ``count`` evaluations (samples × strategies)."""
        return self._count("evaluations", self.report.evaluations, count, "exactly")

    def has_passed_for_tag(self, tag: str) -> ReportAssertion:
        """Every evaluation of the samples tagged ``tag`` passed."""
        tally = self.report.tally(tag=tag)
        if tally.passed != tally.evaluations:
            failures = describe_failures(self.report, tag=tag)
            raise AssertionError(
                f"report {self.report.name!r}: not every evaluation tagged {tag!r} passed "
                f"({tally.passed} of {tally.evaluations}). Failing cases:\n{failures}"
            )
        return self

    def has_pass_rate(
        self, minimum: float, *, tag: str | None = None, strategy: str | None = None
    ) -> ReportAssertion:
        """The pass rate (a fraction) is at least ``minimum``; see :func:`require_pass_rate`."""
        require_pass_rate(self.report, minimum, tag=tag, strategy=strategy)
        return self


@overload
def assert_that(subject: EvaluationResult) -> ResultAssertion: ...


@overload
def assert_that(subject: Report) -> ReportAssertion: ...


def assert_that(subject: Report | EvaluationResult) -> ReportAssertion | ResultAssertion:
    """Start a chain of assertions on a report or on one evaluation result::

    assert_that(report).has_pass_rate_greater_than(0.8).has_passed_for_tag("critical")
    assert_that(judge.evaluate(sample, output)).passed().score_at_least(0.7)
    """
    if isinstance(subject, EvaluationResult):
        return ResultAssertion(subject)
    return ReportAssertion(subject)
