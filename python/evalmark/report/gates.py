"""Every gate of evalmark, in one place: what fails a run, and the assertions on a report.

A pass-rate gate asks whether k of n passed at a threshold t; the answer is always
:func:`evalmark.noise.gates.passes` (the one k-of-n rule, kept in the noise package because the
noise tools use it and import nothing else of evalmark). Here it is applied to:

- one report: :func:`require_pass_rate` (``Report.require_pass_rate``, pytest's ``min_score``)
  and the :func:`assert_that` chain, counting evaluations (sample × strategy);
- several reports: :func:`require_suite_pass_rate` (``SuiteReport.require_pass_rate``);
- a suite run: :func:`check_cases` (the suite file's ``gate:``, ``evalmark run``), counting
  cases (a sample passes when every check passes; an errored case always fails the gate);
- a comparison with a baseline: :func:`drop_exceeds` (``require_no_drop``, ``--max-drop``);
- budgets from recorded latency, tokens and cost, and pass@k / pass^k over repeated runs:
  :func:`require_budget` (``Report.require_budget``), :func:`check_budgets` and
  :func:`check_repeats` (the suite file's ``gate:``), their rules in :mod:`.budgets`.

Every failure is an ``AssertionError`` (or a failed :class:`GateResult`) whose message states
the figure, the requirement and the failing cases with their explanations, so a CI log says
what to fix. Reports are read through their public figures only; this module imports no other
module of the report package but its values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from evalmark.noise.gates import passes
from evalmark.report.budgets import (
    Budget,
    BudgetLimit,
    budget_conditions,
    repeat_conditions,
    require_budget,
)
from evalmark.report.values import Tally

if TYPE_CHECKING:
    from evalmark.report.model import Report
    from evalmark.report.suite import SuiteReport

__all__ = [
    "Budget",
    "BudgetLimit",
    "GateResult",
    "ReportAssertion",
    "assert_that",
    "check_budgets",
    "check_cases",
    "check_fraction",
    "check_repeats",
    "describe_failures",
    "drop_exceeds",
    "passes",
    "require_budget",
    "require_pass_rate",
    "require_suite_pass_rate",
]

_SHOWN = 20
# A drop is a difference of two pass rates: 0.90 - 0.85 is 0.05000000000000004 in binary.
_DROP_SLACK = 1e-12


def check_fraction(value: object, what: str, example: str = "0.9 for 90%") -> float:
    """``value`` as a float in [0, 1], else ``TypeError``/``ValueError`` naming ``what`` (with
    a "did you mean" for a percentage such as 90)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{what} must be a number between 0 and 1 ({example}); got {value!r}")
    number = float(value)
    if not 0.0 <= number <= 1.0:  # NaN fails too
        hint = f"; did you mean {number / 100:g}?" if 1 < number <= 100 else ""
        raise ValueError(f"{what} is a fraction between 0 and 1 ({example}); got {value}{hint}")
    return number


def drop_exceeds(before: float, after: float, max_drop: float) -> bool:
    """True when a rate fell from ``before`` to ``after`` by more than ``max_drop``."""
    return before - after > max_drop + _DROP_SLACK


# --------------------------------------------------------------------------- one report


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


def require_pass_rate(
    report: Report, minimum: float, *, tag: str | None = None, strategy: str | None = None
) -> None:
    """Raise ``AssertionError`` unless the pass rate of the evaluations (of every one, of the
    samples tagged ``tag``, or of one ``strategy``) reaches ``minimum``, a fraction."""
    minimum = check_fraction(minimum, "the minimum pass rate")
    tally: Tally = report.tally(tag=tag, strategy=strategy)
    scope = _scope(tag, strategy)
    if tally.evaluations == 0:
        raise AssertionError(
            f"report {report.name!r}{scope}: no evaluations, so no pass rate to check"
        )
    if passes(tally.passed, tally.evaluations, minimum):
        return
    failures = describe_failures(report, tag=tag, strategy=strategy)
    raise AssertionError(
        f"report {report.name!r}{scope}: pass rate {tally.pass_rate:.1%} is below the required "
        f"{minimum:.1%} ({tally.passed} of {tally.evaluations} evaluations passed, "
        f"{tally.failed} failed, {tally.errors} errors). Failing cases:\n{failures}"
    )


class ReportAssertion:
    """Chainable assertions on a report; each returns the chain or raises ``AssertionError``
    naming the failing samples."""

    __slots__ = ("report",)

    def __init__(self, report: Report) -> None:
        if not callable(getattr(report, "tally", None)) or not hasattr(report, "sample_names"):
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


def assert_that(report: Report) -> ReportAssertion:
    """Start a chain of assertions on ``report``::

    assert_that(report).has_score_greater_than(80).has_passed_for_tag("critical")
    """
    return ReportAssertion(report)


# --------------------------------------------------------------------------- several reports


def require_suite_pass_rate(suite: SuiteReport, minimum: float) -> None:
    """Raise ``AssertionError`` unless the pass rate over every evaluation of the suite's
    reports reaches ``minimum``, listing the reports below it."""
    minimum = check_fraction(minimum, "the minimum pass rate")
    s = suite.summary
    if passes(s.passed, s.evaluations, minimum):
        return
    below = [
        f"  - {r.name}: {r.pass_rate:.1%} ({r.passed} of {r.evaluations})"
        for r in suite.reports
        if not passes(r.passed, r.evaluations, minimum)
    ]
    raise AssertionError(
        f"suite {suite.name!r}: pass rate {s.pass_rate:.1%} is below the required "
        f"{minimum:.1%} ({s.passed} of {s.evaluations} evaluations passed). Reports below "
        "it:\n" + "\n".join(below)
    )


# --------------------------------------------------------------------------- a suite run


@dataclass(frozen=True, slots=True)
class GateResult:
    """One condition of the gate: what it asked, what the run got, and whether it held.

    ``unit`` is ``"rate"`` for pass rates (at least ``required``) and ``"count"`` for upper
    limits: the errored cases and the budgets (at most ``required``).
    """

    label: str
    required: float
    actual: float
    passed: bool
    detail: str = ""
    unit: Literal["rate", "count"] = "rate"


def _case_rate(
    label: str, required: float, rows: Sequence[Any], what: str, empty: str
) -> GateResult:
    passed, total = sum(row.passed for row in rows), len(rows)
    if total == 0:
        return GateResult(label, required, 0.0, False, empty)
    return GateResult(
        label,
        required,
        passed / total,
        passes(passed, total, required),
        f"{passed} of {total} {what} pass every check",
    )


def check_cases(
    reports: Iterable[Report],
    *,
    pass_rate: float | None = None,
    tags: Mapping[str, float] | None = None,
) -> tuple[GateResult, ...]:
    """The gate of a run over its reports, counting cases (a sample of one report passes when
    every one of its checks passes): the overall ``pass_rate`` and each tag's rate in ``tags``.
    A case that ended in an error (the application or a judge raised) always fails the gate:
    an error says nothing about the application's quality, so no pass rate around it can be
    trusted."""
    results: list[GateResult] = []
    rows = [row for report in reports for row in report.rows()]
    errored = [row.name for row in rows if row.verdict == "error"]
    if errored:
        more = f" and {len(errored) - 5} more" if len(errored) > 5 else ""
        listed = ", ".join(errored[:5]) + more
        results.append(
            GateResult("errors", 0, len(errored), False, f"errored: {listed}", unit="count")
        )
    if pass_rate is not None:
        results.append(_case_rate("pass rate", pass_rate, rows, "cases", "the run has no case"))
    for tag, required in (tags or {}).items():
        tagged = [row for row in rows if tag in row.tags]
        what = f"cases tagged {tag}"
        results.append(_case_rate(f"tag {tag}", required, tagged, what, "no case has this tag"))
    return tuple(results)


# --------------------------------------------------------------------------- budgets and repeats
# (branch parity) Budgets from recorded data, and pass@k / pass^k over repeated runs.


def check_budgets(
    reports: Iterable[Report], budgets: Mapping[Budget, BudgetLimit]
) -> tuple[GateResult, ...]:
    """The budget conditions of a run over its reports (upper limits, so unit ``count``): the
    largest case and the sum over the cases, for latency, tokens and cost
    (:mod:`evalmark.report.budgets`)."""
    rows = [row for report in reports for row in report.rows()]
    return tuple(
        GateResult(label, required, actual, held, detail, unit="count")
        for budget, limit in budgets.items()
        for label, required, actual, held, detail in budget_conditions(rows, budget, limit)
    )


def check_repeats(
    reports: Iterable[Report], *, pass_at_k: float | None = None, pass_hat_k: float | None = None
) -> tuple[GateResult, ...]:
    """pass@k and pass^k of a run made with repeats, each at least its required fraction."""
    conditions = repeat_conditions(list(reports), pass_at_k=pass_at_k, pass_hat_k=pass_hat_k)
    return tuple(GateResult(*condition) for condition in conditions)
