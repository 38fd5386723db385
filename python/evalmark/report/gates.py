"""Every gate of evalmark, in one place: what fails a run, and the assertions on a report.

A pass-rate gate asks whether k of n passed at a threshold t; the answer is always
:func:`evalmark.noise.gates.passes` (the one k-of-n rule, kept in the noise package because the
noise tools use it and import nothing else of evalmark). Every pass rate counts cases (a case
passes when every one of its checks passes; see :mod:`evalmark.report.cases`). The rule is
applied to:

- one report: :func:`require_pass_rate` (``Report.require_pass_rate``, pytest's ``min_score``)
  and the :func:`assert_that` chain;
- several reports: :func:`require_suite_pass_rate` (``SuiteReport.require_pass_rate``);
- a suite run: :func:`check_cases` (the suite file's ``gate:``, ``evalmark run``; an
  errored case always fails the gate);
- a comparison with a baseline: :func:`drop_exceeds` (``require_no_drop``, ``--max-drop``).

Every failure is an ``AssertionError`` (or a failed :class:`GateResult`) whose message states
the figure, the requirement and the failing cases with their explanations, so a CI log says
what to fix. Reports are read through their public figures only; this module imports no other
module of the report package but its values, cases and wording.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from evalmark.noise.gates import passes
from evalmark.report.cases import DEFINITION, pass_rate_label
from evalmark.report.wording import plural

if TYPE_CHECKING:
    from evalmark.report.model import Report
    from evalmark.report.suite import SuiteReport

__all__ = [
    "GateResult",
    "ReportAssertion",
    "assert_that",
    "check_cases",
    "check_fraction",
    "describe_failures",
    "drop_exceeds",
    "pass_rate_gate",
    "passes",
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


@dataclass(frozen=True, slots=True)
class GateResult:
    """One condition of the gate: what it asked, what the run got, and whether it held.

    ``unit`` is ``"rate"`` for pass rates (at least ``required``) and ``"count"`` for the
    errored cases (at most ``required``).
    """

    label: str
    required: float
    actual: float
    passed: bool
    detail: str = ""
    unit: Literal["rate", "count"] = "rate"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, in a fixed key order."""
        return {
            "label": self.label,
            "actual": self.actual,
            "required": self.required,
            "unit": self.unit,
            "passed": self.passed,
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GateResult:
        """Read back :meth:`to_dict`; ``KeyError``, ``TypeError`` or ``ValueError`` naming
        the field when it is not such a condition."""
        label, detail, unit = data["label"], data.get("detail", ""), data.get("unit", "rate")
        if not isinstance(label, str) or not isinstance(detail, str):
            raise TypeError("label and detail must be strings")
        if unit not in ("rate", "count"):
            raise ValueError(f"unit must be 'rate' or 'count', got {unit!r}")
        numbers = {key: data[key] for key in ("actual", "required")}
        for key, value in numbers.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"{key} must be a number, got {value!r}")
        passed = data["passed"]
        if not isinstance(passed, bool):
            raise TypeError(f"passed must be true or false, got {passed!r}")
        return cls(label, numbers["required"], numbers["actual"], passed, detail, unit)


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


def pass_rate_gate(
    report: Report, minimum: float, *, tag: str | None = None, strategy: str | None = None
) -> GateResult:
    """The condition "the pass rate (cases) of ``report`` (of every case, of the cases tagged
    ``tag``, or under one ``strategy`` only) is at least ``minimum``", checked, not raised."""
    minimum = check_fraction(minimum, "the minimum pass rate")
    cases = report.cases(tag=tag, strategy=strategy)
    label = f"pass rate ({DEFINITION})" + _scope(tag, strategy)
    if cases.cases == 0:
        return GateResult(label, minimum, 0.0, False, "no cases, so no pass rate")
    return GateResult(
        label,
        minimum,
        cases.pass_rate,
        passes(cases.passed, cases.cases, minimum),
        f"{cases.passed} of {plural(cases.cases, 'case')} pass every check",
    )


def _record(report: Report, gate: GateResult) -> None:
    record = getattr(report, "record_gate", None)
    if callable(record):
        record(gate)


def require_pass_rate(
    report: Report, minimum: float, *, tag: str | None = None, strategy: str | None = None
) -> None:
    """Raise ``AssertionError`` unless the pass rate (cases: a case passes when every one of
    its checks passes) of every case, of the cases tagged ``tag``, or under one ``strategy``
    reaches ``minimum``, a fraction. The condition is recorded in ``report.gates`` either
    way."""
    gate = pass_rate_gate(report, minimum, tag=tag, strategy=strategy)
    _record(report, gate)
    if gate.passed:
        return
    scope = _scope(tag, strategy)
    cases = report.cases(tag=tag, strategy=strategy)
    if cases.cases == 0:
        raise AssertionError(f"report {report.name!r}{scope}: no cases, so no pass rate to check")
    failures = describe_failures(report, tag=tag, strategy=strategy)
    raise AssertionError(
        f"report {report.name!r}{scope}: {pass_rate_label(cases.pass_rate)} is below the "
        f"required {gate.required:.1%} ({cases.passed} of {plural(cases.cases, 'case')} passed "
        f"every check, {cases.failed} failed, {plural(cases.errors, 'error')}). Failing "
        f"checks:\n{failures}"
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
        c = self.report.cases()
        failures = describe_failures(self.report)
        listing = f" Failing checks:\n{failures}" if failures else ""
        return AssertionError(
            f"report {self.report.name!r}: {what} ({pass_rate_label(c.pass_rate)}: "
            f"{c.passed} passed, {c.failed} failed, {plural(c.errors, 'error')} of {c.cases} "
            f"cases).{listing}"
        )

    def has_score(self, score: float, *, tolerance: float = 1e-9) -> ReportAssertion:
        """The score (the pass rate as a percentage, 0–100) equals ``score``."""
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
    """Raise ``AssertionError`` unless the pass rate (cases) over every case of the suite's
    reports reaches ``minimum``, listing the reports below it."""
    minimum = check_fraction(minimum, "the minimum pass rate")
    total = suite.cases()
    if passes(total.passed, total.cases, minimum):
        return
    below = []
    for report in suite.reports:
        c = report.cases()
        if not passes(c.passed, c.cases, minimum):
            counted = f"{c.passed} of {plural(c.cases, 'case')}"
            below.append(f"  - {report.name}: {c.pass_rate:.1%} ({counted})")
    raise AssertionError(
        f"suite {suite.name!r}: {pass_rate_label(total.pass_rate)} is below the required "
        f"{minimum:.1%} ({total.passed} of {plural(total.cases, 'case')} passed every check). "
        "Reports below it:\n" + "\n".join(below)
    )


# --------------------------------------------------------------------------- a suite run


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
        f"{passed} of {plural(total, 'case')}{what} pass every check",
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
        label = f"pass rate ({DEFINITION})"
        results.append(_case_rate(label, pass_rate, rows, "", "the run has no case"))
    for tag, required in (tags or {}).items():
        tagged = [row for row in rows if tag in row.tags]
        what = f" tagged {tag}"
        results.append(
            _case_rate(f"tag {tag} ({DEFINITION})", required, tagged, what, "no case has this tag")
        )
    return tuple(results)
