"""The values a report is made of and gives out: per-sample rows, usage, skipped samples, and
the figures of a group of evaluations (:class:`Tally`) and of guardrail decisions.

Pure data: nothing here renders, reads files or applies a gate.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from evalmark.results._results import EvaluationResult

__all__ = [
    "GuardrailSummary",
    "SampleRow",
    "SampleUsage",
    "SkippedSample",
    "Tally",
    "exact_sum",
    "output_text_of",
    "tally_of",
    "usage_means",
    "usage_of",
    "usage_totals",
]


@dataclass(frozen=True, slots=True)
class SampleUsage:
    """What a TestCase returned by the function under test recorded about its call."""

    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cost: Decimal | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; unset fields left out; cost as a decimal string."""
        out: dict[str, Any] = {}
        if self.latency_ms is not None:
            out["latency_ms"] = self.latency_ms
        if self.total_tokens is not None:
            out["tokens"] = {
                "input": self.input_tokens,
                "output": self.output_tokens,
                "total": self.total_tokens,
            }
        if self.cost is not None:
            out["cost"] = str(self.cost)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SampleUsage:
        """Read back :meth:`to_dict`."""
        tokens = data.get("tokens") or {}
        cost = data.get("cost")
        return cls(
            latency_ms=data.get("latency_ms"),
            input_tokens=tokens.get("input"),
            output_tokens=tokens.get("output"),
            total_tokens=tokens.get("total"),
            cost=Decimal(cost) if cost is not None else None,
        )


@dataclass(frozen=True, slots=True)
class SkippedSample:
    """A sample left out of the report (``errors="skip"``) and why."""

    name: str
    error: str


@dataclass(frozen=True, slots=True)
class Tally:
    """Counts of a group of evaluations (single checks: all, one tag's or one strategy's).

    ``check_pass_rate`` is the fraction of these checks that passed; ``mean`` the mean score of
    the results that are not errors (None when there are none). For one strategy the checks are
    the cases; otherwise the pass rate, which counts cases, is ``Report.cases(...)``."""

    evaluations: int
    passed: int
    failed: int
    errors: int
    mean: float | None

    @property
    def check_pass_rate(self) -> float:
        """Passed / evaluations, in [0, 1] (0.0 for no evaluations): checks, not cases."""
        return self.passed / self.evaluations if self.evaluations else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "evaluations": self.evaluations,
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "check_pass_rate": self.check_pass_rate,
            "mean": self.mean,
        }

    @classmethod
    def of_counts(cls, evaluations: int, passed: int, failed: int, errors: int) -> Tally:
        """A tally of summed counts (``mean`` unknown: None)."""
        return cls(evaluations, passed, failed, errors, None)


def tally_of(
    passed: npt.NDArray[np.bool_], errored: npt.NDArray[np.bool_], scores: npt.NDArray[np.float64]
) -> Tally:
    """The tally of evaluations given as parallel arrays (an error never counts as passed)."""
    total = int(passed.size)
    n_errors = int(errored.sum())
    n_passed = int((passed & ~errored).sum())
    ok = scores[~errored]
    return Tally(
        evaluations=total,
        passed=n_passed,
        failed=total - n_passed - n_errors,
        errors=n_errors,
        mean=float(exact_sum(ok) / ok.size) if ok.size else None,
    )


# Whole numbers up to this size, this many at most, sum exactly in float64 (below 2**53).
_WHOLE_LIMIT = 2.0**32


def exact_sum(values: npt.NDArray[np.float64]) -> float:
    """``math.fsum`` of ``values`` (the correctly rounded sum), with the whole numbers among
    them (scores of 0 and 1, mostly) first added by NumPy, which is exact for them: ``fsum``
    then reads one partial sum and the other values only."""
    whole = (values == np.rint(values)) & (np.abs(values) <= _WHOLE_LIMIT)
    count = int(np.count_nonzero(whole))
    if count < 64 or count * _WHOLE_LIMIT >= 2.0**53:
        return math.fsum(values.tolist())
    rest: list[float] = values[~whole].tolist()
    return math.fsum([float(values[whole].sum()), *rest])


@dataclass(frozen=True, slots=True)
class GuardrailSummary:
    """Confusion counts of ACCEPT/REJECT decisions and the rates derived from them; a rate with
    a zero denominator is None. ``positive`` names the positive class (ACCEPT by default)."""

    true_positive: int
    false_positive: int
    true_negative: int
    false_negative: int
    undecided: int
    positive: str = "ACCEPT"

    @property
    def total(self) -> int:
        """Every decision counted, undecided included."""
        return (
            self.true_positive
            + self.false_positive
            + self.true_negative
            + self.false_negative
            + self.undecided
        )

    @staticmethod
    def _ratio(num: int, den: int) -> float | None:
        return num / den if den else None

    @property
    def accuracy(self) -> float | None:
        """Correct decisions / all decisions."""
        return self._ratio(self.true_positive + self.true_negative, self.total)

    @property
    def precision(self) -> float | None:
        """Right positive decisions / all positive decisions."""
        return self._ratio(self.true_positive, self.true_positive + self.false_positive)

    @property
    def recall(self) -> float | None:
        """Right positive decisions / positives expected."""
        return self._ratio(self.true_positive, self.true_positive + self.false_negative)

    @property
    def false_positive_rate(self) -> float | None:
        """Wrong positive decisions / negatives expected."""
        return self._ratio(self.false_positive, self.false_positive + self.true_negative)

    @property
    def false_negative_rate(self) -> float | None:
        """Missed positives / positives expected."""
        return self._ratio(self.false_negative, self.false_negative + self.true_positive)

    @classmethod
    def of_results(
        cls, results: Iterable[EvaluationResult], *, positive: str | None = None
    ) -> GuardrailSummary | None:
        """The counts of the guardrail decisions in the results' metadata; None when no
        result carries one. The positive class is ``positive`` if given, else the one the
        strategy recorded, else ACCEPT."""
        if positive not in (None, "ACCEPT", "REJECT"):
            raise ValueError(f"positive must be 'ACCEPT' or 'REJECT', got {positive!r}")
        chosen = positive
        counts = {"tp": 0, "fp": 0, "tn": 0, "fn": 0, "undecided": 0}
        seen = False
        for result in results:
            decision = result.metadata.get("guardrail")
            if not isinstance(decision, Mapping):
                continue
            seen = True
            if chosen is None:
                recorded = decision.get("positive")
                chosen = recorded if recorded in ("ACCEPT", "REJECT") else "ACCEPT"
            expected, actual = decision.get("expected"), decision.get("actual")
            if actual not in ("ACCEPT", "REJECT"):
                counts["undecided"] += 1
            elif actual == chosen:
                counts["tp" if expected == chosen else "fp"] += 1
            else:
                counts["fn" if expected == chosen else "tn"] += 1
        if not seen:
            return None
        return cls(
            counts["tp"],
            counts["fp"],
            counts["tn"],
            counts["fn"],
            counts["undecided"],
            chosen or "ACCEPT",
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: counts and rates."""
        return {
            "true_positive": self.true_positive,
            "false_positive": self.false_positive,
            "true_negative": self.true_negative,
            "false_negative": self.false_negative,
            "undecided": self.undecided,
            "positive": self.positive,
            "accuracy": self.accuracy,
            "precision": self.precision,
            "recall": self.recall,
            "false_positive_rate": self.false_positive_rate,
            "false_negative_rate": self.false_negative_rate,
        }


@dataclass(frozen=True, slots=True)
class SampleRow:
    """One sample of a report: its verdict over every strategy and the results.

    ``verdict`` is ``"error"`` if any result is an error, else ``"pass"`` when all passed, else
    ``"fail"``; ``score`` is the mean of the strategies' scores; ``explanation`` joins the
    explanations of the results that did not pass, each prefixed with its strategy."""

    name: str
    tags: tuple[str, ...]
    verdict: str
    score: float
    explanation: str
    results: Mapping[str, EvaluationResult]
    output: str | None
    usage: SampleUsage | None

    @property
    def passed(self) -> bool:
        """True when every strategy passed."""
        return self.verdict == "pass"

    @classmethod
    def of(
        cls,
        name: str,
        tags: tuple[str, ...],
        results: Mapping[str, EvaluationResult],
        output: str | None = None,
        usage: SampleUsage | None = None,
    ) -> SampleRow:
        """The row of a sample with these results (one per strategy, in strategy order)."""
        values = list(results.values())
        if any(r.error is not None for r in values):
            verdict = "error"
        elif all(r.passed for r in values):
            verdict = "pass"
        else:
            verdict = "fail"
        explanation = "; ".join(
            f"{strategy}: {r.explanation}" if r.explanation else f"{strategy}: {r.verdict}"
            for strategy, r in results.items()
            if not r.passed
        )
        score = math.fsum(r.score for r in values) / len(values) if values else 0.0
        return cls(
            name, tags, verdict, score, explanation, MappingProxyType(dict(results)), output, usage
        )


class StoredValues:
    """A read-only sequence (a report's outputs) or mapping (its usage by row) whose values are
    read from a file when asked: a :class:`~evalmark.report._model.Report` keeps it as given
    instead of copying it into memory (the rows of a trace evaluation, spooled)."""

    __slots__ = ()


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def output_text_of(output: object) -> str | None:
    """The text shown for an output: a str itself, a TestCase's ``actual_output`` or a reply's
    ``text``, JSON for dicts and lists, else its ``repr`` (memory addresses removed, so the
    report's bytes do not change between runs). None stays None."""
    if output is None or type(output) is str:
        return output
    for attribute in ("actual_output", "text"):
        value = getattr(output, attribute, None)
        if isinstance(value, str):
            return value
    if isinstance(output, dict | list | tuple):
        try:
            return json.dumps(output, ensure_ascii=False, sort_keys=True, default=str)
        except (TypeError, ValueError):
            pass
    return _ADDRESS.sub("", repr(output))


def usage_of(output: object) -> SampleUsage | None:
    """Latency, tokens and cost recorded on an output (a TestCase), or None."""
    if output is None or type(output) is str:
        return None
    latency = getattr(output, "latency_ms", None)
    tokens = getattr(output, "token_usage", None)
    cost = getattr(output, "cost", None)
    if latency is None and tokens is None and cost is None:
        return None
    return SampleUsage(
        latency_ms=float(latency) if isinstance(latency, int | float) else None,
        input_tokens=getattr(tokens, "input", None),
        output_tokens=getattr(tokens, "output", None),
        total_tokens=getattr(tokens, "total", None),
        cost=cost if isinstance(cost, Decimal) else None,
    )


def usage_means(usages: Sequence[SampleUsage]) -> dict[str, float]:
    """The means of latency (ms), total tokens and cost over the usages that recorded them."""
    means: dict[str, float] = {}
    latency = [u.latency_ms for u in usages if u.latency_ms is not None]
    tokens = [float(u.total_tokens) for u in usages if u.total_tokens is not None]
    costs = [u.cost for u in usages if u.cost is not None]
    if latency:
        means["latency_ms"] = math.fsum(latency) / len(latency)
    if tokens:
        means["tokens"] = math.fsum(tokens) / len(tokens)
    if costs:
        means["cost"] = float(sum(costs, Decimal(0)) / len(costs))
    return means


def usage_totals(usages: Sequence[SampleUsage]) -> dict[str, float | str]:
    """Summed tokens and cost (a decimal string, exact) over the usages that recorded them."""
    out: dict[str, float | str] = {}
    tokens = [u.total_tokens for u in usages if u.total_tokens is not None]
    costs = [u.cost for u in usages if u.cost is not None]
    if tokens:
        out["tokens"] = float(sum(tokens))
    if costs:
        out["cost"] = str(sum(costs, Decimal(0)))
    return out
