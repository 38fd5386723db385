"""The baseline-drop gate: a comparison with a baseline (:func:`evalmark.report.compare`) fails
when a pass rate or a check's mean score fell by more than the allowed drop."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalmark.gates._rules import check_fraction, drop_exceeds
from evalmark.report._gate_result import GateResult
from evalmark.report._wording import plural

if TYPE_CHECKING:
    from evalmark.report._comparison import Comparison, Delta

__all__ = ["drops", "no_drop_gate", "require_no_drop"]

_SHOWN = 20


def _drop_text(label: str, delta: Delta, change: float) -> str:
    assert delta.before is not None and delta.after is not None
    if "pass rate" in label:
        return (
            f"{label} fell from {delta.before:.1%} to {delta.after:.1%} "
            f"({change * 100:+.1f} points)"
        )
    return f"{label} fell from {delta.before:.3f} to {delta.after:.3f} ({change:+.3f})"


def drops(comparison: Comparison, max_drop: float) -> list[str]:
    """Descriptions of every pass rate (overall, per check, per tag) and check mean score of
    ``comparison`` that fell by more than ``max_drop`` (a fraction: 0.05 = 5 points)."""
    checks = [("pass rate", comparison.pass_rate)]
    checks += [(f"pass rate of strategy {k!r}", d) for k, d in comparison.strategies.items()]
    checks += [(f"pass rate of tag {k!r}", d) for k, d in comparison.tags.items()]
    checks += [
        (f"mean score of {k!r}", d)
        for k, d in comparison.metrics.items()
        if k in comparison.strategies
    ]
    found = []
    for label, delta in checks:
        change = delta.change
        if delta.before is None or delta.after is None or change is None:
            continue
        if drop_exceeds(delta.before, delta.after, max_drop):
            found.append(_drop_text(label, delta, change))
    return found


def require_no_drop(
    comparison: Comparison, max_drop: float = 0.05, *, fail_on_vanished: bool = False
) -> Comparison:
    """Raise ``AssertionError`` when a pass rate or check mean of ``comparison`` fell by more
    than ``max_drop`` (a fraction: 0.05 = 5 points), or, with ``fail_on_vanished``, when a
    baseline case is missing. The message lists the drops, the regressed cases and the vanished
    ones. Returns the comparison."""
    max_drop = check_fraction(max_drop, "max_drop", "0.05 for 5 points")
    problems = drops(comparison, max_drop)
    if fail_on_vanished and comparison.vanished:
        problems.append(f"{plural(len(comparison.vanished), 'baseline sample')} vanished")
    if not problems:
        return comparison
    lines = [
        f"report {comparison.name!r} dropped against baseline {comparison.baseline_name!r} "
        f"(allowed drop {max_drop:.1%}):",
        *(f"  - {p}" for p in problems),
    ]
    regressions = comparison.regressions
    if regressions:
        lines.append("Regressions (pass -> fail):")
        lines += [
            f"  - {c.sample} [{c.strategy}]: {c.explanation or c.after}"
            for c in regressions[:_SHOWN]
        ]
        if len(regressions) > _SHOWN:
            lines.append(f"  … and {len(regressions) - _SHOWN} more")
    if comparison.vanished:
        lines.append(f"Vanished from this run: {', '.join(comparison.vanished[:_SHOWN])}")
    raise AssertionError("\n".join(lines))


def no_drop_gate(
    comparison: Comparison, max_drop: float = 0.05, *, fail_on_vanished: bool = False
) -> GateResult:
    """The drop gate as a checked condition, without raising: it holds when no pass rate or
    check mean of ``comparison`` fell by more than ``max_drop``. ``required`` is the baseline's
    pass rate less the allowed drop, ``actual`` this run's; ``detail`` names every drop (a tag's
    or a check's drop fails the gate even when the overall pass rate held)."""
    max_drop = check_fraction(max_drop, "max_drop", "0.05 for 5 points")
    problems = drops(comparison, max_drop)
    if fail_on_vanished and comparison.vanished:
        problems.append(f"{plural(len(comparison.vanished), 'baseline sample')} vanished")
    before, after = comparison.pass_rate.before, comparison.pass_rate.after
    return GateResult(
        label=f"{comparison.name}: no drop against baseline {comparison.baseline_name!r}",
        required=max(0.0, (before or 0.0) - max_drop),
        actual=after or 0.0,
        passed=not problems,
        detail="; ".join(problems) if problems else f"allowed drop {max_drop * 100:g} points",
    )
