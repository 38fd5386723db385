"""Budget gates and repeat gates; :mod:`evalmark.gates._rules` (every gate) turns their
conditions into gate results.

A budget is an upper limit on what the application's answers recorded (a TestCase's
``latency_ms``, ``token_usage.total`` and ``cost``), per case (the largest case) or in total
(summed over the cases that recorded it). A budget over data no case recorded fails: the run
cannot show that it held. Repeat gates read the pass@k and pass^k figures a run with
``repeats`` keeps in its report's metadata (:mod:`evalmark.engine._repeats`).

Failures read like the pass-rate gate's: the figure, the requirement and the cases to look at.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from evalmark.noise._gates import passes

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = [
    "BUDGETS",
    "Budget",
    "BudgetLimit",
    "Condition",
    "budget_conditions",
    "repeat_conditions",
    "require_budget",
]

Budget = Literal["latency", "tokens", "cost"]
BUDGETS: tuple[Budget, ...] = ("latency", "tokens", "cost")
_WHAT = {"latency": "latency (ms)", "tokens": "tokens", "cost": "cost"}
_SHOWN = 20
Condition = tuple[str, float, float, bool, str]  # label, required, actual, held, detail


@dataclass(frozen=True, slots=True)
class BudgetLimit:
    """The most one case (``per_case``) and the whole run (``total``) may use; None: no limit."""

    per_case: float | None = None
    total: float | None = None

    def __post_init__(self) -> None:
        for what, value in (("per-case", self.per_case), ("total", self.total)):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
                raise TypeError(f"a {what} budget must be a number, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"a {what} budget must be a finite number >= 0, got {value}")


def _value(row: Any, budget: Budget) -> Decimal | None:
    usage = row.usage
    if usage is None:
        return None
    raw = {"latency": usage.latency_ms, "tokens": usage.total_tokens, "cost": usage.cost}[budget]
    if raw is None:
        return None
    return raw if isinstance(raw, Decimal) else Decimal(repr(raw))


def _limit(value: float | Decimal) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(repr(value))


def _shown(value: Decimal) -> str:
    return f"{value.normalize():f}" if value == value.to_integral_value() else f"{value:f}"


def budget_conditions(rows: Sequence[Any], budget: Budget, limit: BudgetLimit) -> list[Condition]:
    """Each limit of ``budget`` checked on the report rows: ``(label, required, actual, held,
    detail)``."""
    recorded = [(row.name, v) for row in rows if (v := _value(row, budget)) is not None]
    what = _WHAT[budget]
    out: list[Condition] = []
    for scope, required in (("per case", limit.per_case), ("total", limit.total)):
        if required is None:
            continue
        label = f"{what} {scope}"
        if not recorded:
            out.append((label, float(required), 0.0, False, f"no case recorded {what}"))
            continue
        top = _limit(required)
        if scope == "per case":
            over = [(n, v) for n, v in recorded if v > top]
            actual = max(v for _, v in recorded)
            listed = ", ".join(f"{n} ({_shown(v)})" for n, v in over[:_SHOWN])
            more = f" and {len(over) - _SHOWN} more" if len(over) > _SHOWN else ""
            detail = (
                f"{len(over)} of {len(recorded)} cases over budget: {listed}{more}"
                if over
                else f"largest of {len(recorded)} cases: {_shown(actual)}"
            )
            held = not over
        else:
            actual = sum((v for _, v in recorded), Decimal(0))
            held = actual <= top
            detail = f"summed over {len(recorded)} of {len(rows)} cases"
        out.append((label, float(required), float(actual), held, detail))
    return out


def require_budget(
    report: Report,
    *,
    latency_ms: float | None = None,
    tokens: float | None = None,
    cost: float | None = None,
    total_latency_ms: float | None = None,
    total_tokens: float | None = None,
    total_cost: float | None = None,
) -> Report:
    """Raise ``AssertionError`` unless every case's recorded latency, tokens and cost are within
    the per-case budgets and their sums within the ``total_`` ones. Returns the report."""
    limits: dict[Budget, BudgetLimit] = {
        "latency": BudgetLimit(latency_ms, total_latency_ms),
        "tokens": BudgetLimit(tokens, total_tokens),
        "cost": BudgetLimit(cost, total_cost),
    }
    rows = list(report.rows())
    problems = [
        f"{label} is {actual:g}, above the budget {required:g} ({detail})"
        if not detail.startswith("no case recorded")
        else f"{label}: {detail}, so the budget {required:g} cannot be checked"
        for budget, limit in limits.items()
        for label, required, actual, held, detail in budget_conditions(rows, budget, limit)
        if not held
    ]
    if problems:
        raise AssertionError(
            f"report {report.name!r}: over budget. Failing budgets:\n"
            + "\n".join(f"  - {p}" for p in problems)
        )
    return report


def repeat_conditions(
    reports: Sequence[Report], *, pass_at_k: float | None = None, pass_hat_k: float | None = None
) -> list[Condition]:
    """pass@k (some of the k runs pass) and pass^k (all of them pass), the means over the
    cases of repeated runs, each at least its required fraction. A run without repeats fails
    such a gate."""
    cases = [
        (name, figures)
        for report in reports
        if isinstance(repeats := report.metadata.get("repeats"), Mapping)
        for name, figures in repeats.get("cases", {}).items()
    ]
    ks = {r.metadata["repeats"].get("k") for r in reports if "repeats" in r.metadata}
    out: list[Condition] = []
    for key, required, what in (
        ("pass_at_k", pass_at_k, "pass@"),
        ("pass_hat_k", pass_hat_k, "pass^"),
    ):
        if required is None:
            continue
        label = what + (str(next(iter(ks))) if len(ks) == 1 else "k")
        if not cases:
            detail = "the run has no repeats; set repeats: k in the suite (or Scorer(repeats=k))"
            out.append((label, required, 0.0, False, detail))
            continue
        values = [float(figures[key]) for _, figures in cases]
        total = math.fsum(values)
        actual = total / len(values)
        if all(v in (0.0, 1.0) for v in values):  # k == n: whole cases, the k-of-n rule
            held = passes(int(total), len(values), required)
        else:  # unbiased estimates (n > k) are fractions of a case
            held = actual >= required
        below = [name for name, figures in cases if float(figures[key]) < 1.0]
        listed = ", ".join(below[:_SHOWN]) + (
            f" and {len(below) - _SHOWN} more" if len(below) > _SHOWN else ""
        )
        detail = f"mean over {len(values)} cases" + (f"; below 1: {listed}" if below else "")
        out.append((label, required, actual, held, detail))
    return out
