"""Every gate of evalmark, in one place: what fails a run, and the assertions on a report.

A pass-rate gate asks whether k of n passed at a threshold t; the answer is always
:func:`evalmark.noise._gates.passes` (the one k-of-n rule, kept in the noise package because the
noise tools use it and import nothing else of evalmark). Every pass rate counts cases (a case
passes when every one of its checks passes; see :mod:`evalmark.report._cases`). The rule is
applied to:

- one report: :func:`require_pass_rate` (raising) and :func:`pass_rate_gate` (checking), behind
  pytest's ``min_pass_rate`` and the :func:`~evalmark.gates._assertions.assert_that` chain;
- several reports: :func:`require_suite_pass_rate`;
- a suite run: :func:`check_cases` (the suite file's ``gate:``, ``evalmark run``; an
  errored case always fails the gate);
- a comparison with a baseline: :func:`drop_exceeds`
  (:func:`~evalmark.gates._baseline.require_no_drop`, ``--max-drop``);
- budgets from recorded latency, tokens and cost, and pass@k / pass^k over repeated runs:
  :func:`require_budget`, :func:`check_budgets` and
  :func:`check_repeats` (the suite file's ``gate:``), their rules in
  :mod:`evalmark.gates._budgets`.

Every failure is an ``AssertionError`` (or a failed :class:`GateResult`) whose message states
the figure, the requirement and the failing cases with their explanations, so a CI log says
what to fix. A gate never changes a report: its results travel beside it (a suite run's
``gates``) or on a new report (``report.with_gates(...)``). Reports are read through their
public figures only; this module imports the report's types for annotations only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from evalmark.gates._budgets import (
    Budget,
    BudgetLimit,
    budget_conditions,
    repeat_conditions,
    require_budget,
)
from evalmark.noise._gates import passes
from evalmark.report._cases import DEFINITION, pass_rate_label
from evalmark.report._gate_result import GateResult
from evalmark.report._wording import plural

if TYPE_CHECKING:
    from evalmark.report._model import Report
    from evalmark.report._suite import SuiteReport
    from evalmark.report._values import SampleUsage

__all__ = [
    "Budget",
    "BudgetLimit",
    "GateResult",
    "check_budgets",
    "check_cases",
    "check_fraction",
    "check_repeats",
    "describe_failures",
    "drop_exceeds",
    "pass_rate_gate",
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


def require_pass_rate(
    report: Report, minimum: float, *, tag: str | None = None, strategy: str | None = None
) -> GateResult:
    """Raise ``AssertionError`` unless the pass rate (cases: a case passes when every one of
    its checks passes) of every case, of the cases tagged ``tag``, or under one ``strategy``
    reaches ``minimum``, a fraction; returns the condition that held. The report is not
    changed: to carry the condition, use ``report.with_gates([...])`` with
    :func:`pass_rate_gate`, which checks without raising."""
    gate = pass_rate_gate(report, minimum, tag=tag, strategy=strategy)
    if gate.passed:
        return gate
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


# --------------------------------------------------------------------------- several reports


def require_suite_pass_rate(suite: SuiteReport, minimum: float) -> SuiteReport:
    """Raise ``AssertionError`` unless the pass rate (cases) over every case of the suite's
    reports reaches ``minimum``, listing the reports below it; returns ``suite``."""
    minimum = check_fraction(minimum, "the minimum pass rate")
    total = suite.cases()
    if passes(total.passed, total.cases, minimum):
        return suite
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
    label: str, required: float, counts: tuple[int, int], what: str, empty: str
) -> GateResult:
    passed, total = counts
    if total == 0:
        return GateResult(label, required, 0.0, False, empty)
    return GateResult(
        label,
        required,
        passed / total,
        passes(passed, total, required),
        f"{passed} of {plural(total, 'case')}{what} pass every check",
    )


def _errored_names(report: Report) -> list[str]:
    bad = np.zeros(len(report), dtype=np.bool_)
    for strategy in report.strategies:
        bad |= report.column(strategy).errored
    return [report.sample_names[i] for i in np.flatnonzero(bad).tolist()]


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
    trusted. Counted from each report's verdict arrays, building no row."""
    results: list[GateResult] = []
    reports = list(reports)
    errored = [name for report in reports for name in _errored_names(report)]
    if errored:
        more = f" and {len(errored) - 5} more" if len(errored) > 5 else ""
        listed = ", ".join(errored[:5]) + more
        results.append(
            GateResult("errors", 0, len(errored), False, f"errored: {listed}", unit="count")
        )
    if pass_rate is not None:
        label = f"pass rate ({DEFINITION})"
        counts = [report.cases() for report in reports]
        passed = (sum(c.passed for c in counts), sum(c.cases for c in counts))
        results.append(_case_rate(label, pass_rate, passed, "", "the run has no case"))
    for tag, required in (tags or {}).items():
        counts = [report.cases(tag=tag) for report in reports if tag in report.tags]
        passed = (sum(c.passed for c in counts), sum(c.cases for c in counts))
        what = f" tagged {tag}"
        results.append(
            _case_rate(f"tag {tag} ({DEFINITION})", required, passed, what, "no case has this tag")
        )
    return tuple(results)


# --------------------------------------------------------------------------- budgets and repeats
# (branch parity) Budgets from recorded data, and pass@k / pass^k over repeated runs.


class _UsageRow(NamedTuple):
    name: str
    usage: SampleUsage | None


def check_budgets(
    reports: Iterable[Report], budgets: Mapping[Budget, BudgetLimit]
) -> tuple[GateResult, ...]:
    """The budget conditions of a run over its reports (upper limits, so unit ``count``): the
    largest case and the sum over the cases, for latency, tokens and cost
    (:mod:`evalmark.gates._budgets`)."""
    rows = [  # a row's name and usage, all a budget reads (not its results and answer)
        _UsageRow(name, report.usage(i))
        for report in reports
        for i, name in enumerate(report.sample_names)
    ]
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
