"""Comparing a report with a baseline (usually the JSON report of the main branch).

``compare(report, baseline)`` gives per-strategy, per-tag and per-metric deltas, the cases that
went from pass to fail (regressions) and from fail to pass (fixes), and the cases that vanished
from or are new in the current run: figures, not a verdict. The baseline-drop gate over a
comparison is :func:`evalmark.gates.require_no_drop`; ``render_comparison``
(:mod:`evalmark.report._output`) writes a comparison as Markdown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = ["CaseChange", "Comparison", "Delta", "compare"]


@dataclass(frozen=True, slots=True)
class Delta:
    """A figure before (baseline) and after (current); None where one side lacks it."""

    before: float | None
    after: float | None

    @property
    def change(self) -> float | None:
        """after − before, or None."""
        if self.before is None or self.after is None:
            return None
        return self.after - self.before

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"before": self.before, "after": self.after, "change": self.change}


@dataclass(frozen=True, slots=True)
class CaseChange:
    """One (sample, strategy) whose verdict changed, with both explanations."""

    sample: str
    strategy: str
    before: str
    after: str
    explanation: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "sample": self.sample,
            "strategy": self.strategy,
            "before": self.before,
            "after": self.after,
            "explanation": self.explanation,
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    """The differences between a report and its baseline. Pass rates are fractions in [0, 1];
    metric means as in :meth:`Report.metric_means`."""

    name: str
    baseline_name: str
    pass_rate: Delta
    strategies: dict[str, Delta]
    tags: dict[str, Delta]
    metrics: dict[str, Delta]
    regressions: tuple[CaseChange, ...]
    fixes: tuple[CaseChange, ...]
    vanished: tuple[str, ...]
    new: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "name": self.name,
            "baseline": self.baseline_name,
            "pass_rate": self.pass_rate.to_dict(),
            "strategies": {k: d.to_dict() for k, d in self.strategies.items()},
            "tags": {k: d.to_dict() for k, d in self.tags.items()},
            "metrics": {k: d.to_dict() for k, d in self.metrics.items()},
            "regressions": [c.to_dict() for c in self.regressions],
            "fixes": [c.to_dict() for c in self.fixes],
            "vanished": list(self.vanished),
            "new": list(self.new),
        }

    def to_json(self) -> str:
        """The comparison as JSON text."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"


def _load(report: Report, baseline: Report | str | Path) -> Report:
    kind = type(report)  # the report class, without importing its module (no import cycle)
    if isinstance(baseline, str) and baseline.lstrip().startswith("{"):
        return kind.from_json(baseline)
    if isinstance(baseline, str | Path):
        path = Path(baseline)
        if not path.exists():
            raise FileNotFoundError(
                f"baseline report {str(path)!r} not found; write one with "
                "write_report(report, 'baseline.json') on the reference run"
            )
        return kind.read(path)
    if not isinstance(baseline, kind):
        raise TypeError(f"a baseline is a Report, JSON text or a path, got {baseline!r}")
    return baseline


def _keyed_deltas(
    before: dict[str, float | None], after: dict[str, float | None]
) -> dict[str, Delta]:
    keys = list(before) + [k for k in after if k not in before]
    return {k: Delta(before.get(k), after.get(k)) for k in keys}


def compare(report: Report, baseline: Report | str | Path) -> Comparison:
    """The :class:`Comparison` of ``report`` with ``baseline`` (a Report, JSON text or a path)."""
    base = _load(report, baseline)
    base_index = {name: i for i, name in enumerate(base.sample_names)}
    current_index = {name: i for i, name in enumerate(report.sample_names)}
    regressions: list[CaseChange] = []
    fixes: list[CaseChange] = []
    for name, i in current_index.items():
        j = base_index.get(name)
        if j is None:
            continue
        for strategy in report.strategies:
            if strategy not in base.strategies:
                continue
            now = report.column(strategy)[i]
            was = base.column(strategy)[j]
            if was.passed and not now.passed:
                regressions.append(
                    CaseChange(name, strategy, was.verdict, now.verdict, now.explanation)
                )
            elif now.passed and not was.passed:
                fixes.append(CaseChange(name, strategy, was.verdict, now.verdict, now.explanation))
    return Comparison(
        name=report.name,
        baseline_name=base.name,
        pass_rate=Delta(base.pass_rate, report.pass_rate),
        strategies=_keyed_deltas(
            {k: s.check_pass_rate for k, s in base.by_strategy().items()},
            {k: s.check_pass_rate for k, s in report.by_strategy().items()},
        ),
        tags=_keyed_deltas(
            {k: base.cases(tag=k).pass_rate for k in base.tags},
            {k: report.cases(tag=k).pass_rate for k in report.tags},
        ),
        metrics=_keyed_deltas(base.metric_means(), report.metric_means()),
        regressions=tuple(regressions),
        fixes=tuple(fixes),
        vanished=tuple(n for n in base.sample_names if n not in current_index),
        new=tuple(n for n in report.sample_names if n not in base_index),
    )
