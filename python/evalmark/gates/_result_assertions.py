"""``assert_that(result)``: chainable assertions on one evaluation result (a judge's or any
check's), whose failure message carries the check's explanation, so a failing test says why."""

from __future__ import annotations

from evalmark.gates._rules import check_fraction
from evalmark.results._result import EvaluationResult

__all__ = ["ResultAssertion"]


class ResultAssertion:
    """Chainable assertions on one :class:`~evalmark.EvaluationResult`; each returns the chain
    or raises ``AssertionError`` with the result's verdict, score and explanation."""

    __slots__ = ("result",)

    def __init__(self, result: EvaluationResult) -> None:
        if not isinstance(result, EvaluationResult):
            raise TypeError(f"assert_that takes an EvaluationResult, got {type(result).__name__}")
        self.result = result

    def _fail(self, what: str) -> AssertionError:
        r = self.result
        because = r.explanation or "(the check gave no explanation)"
        fault = f"; error: {r.error.message}" if r.error is not None else ""
        return AssertionError(
            f"{what}: the check said {r.verdict} with score {r.score:g}{fault}. "
            f"Explanation: {because}"
        )

    def passed(self) -> ResultAssertion:
        """The check passed."""
        if not self.result.passed:
            raise self._fail("expected the check to pass")
        return self

    def failed(self) -> ResultAssertion:
        """The check failed (a verdict of fail, not an error)."""
        if self.result.passed or self.result.error is not None:
            raise self._fail("expected the check to fail")
        return self

    def score_at_least(self, minimum: float) -> ResultAssertion:
        """The score is at least ``minimum`` (a fraction from 0 to 1)."""
        minimum = check_fraction(minimum, "the minimum score")
        if not self.result.score >= minimum:
            raise self._fail(f"expected a score of at least {minimum:g}")
        return self

    def score_at_most(self, maximum: float) -> ResultAssertion:
        """The score is at most ``maximum`` (a fraction from 0 to 1)."""
        maximum = check_fraction(maximum, "the maximum score")
        if not self.result.score <= maximum:
            raise self._fail(f"expected a score of at most {maximum:g}")
        return self

    def explanation_contains(self, text: str) -> ResultAssertion:
        """The explanation contains ``text``."""
        if text not in self.result.explanation:
            raise self._fail(f"expected the explanation to contain {text!r}")
        return self
