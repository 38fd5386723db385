"""``PlanAdherence``: were the steps of a plan carried out, in order, in the reasoning trace?

The plan is a list of steps: the ``plan`` given to the strategy, else the output's or the
sample's metadata ``plan`` (a list, or text with one step a line, list markers such as ``1.``
or ``-`` dropped), else the ``plan`` steps of the TestCase's reasoning trace. The trace is the
TestCase's reasoning steps other than ``plan`` ones (each step's content with the name and
arguments of its tool call), else the output itself when it is a list of steps, else the
output's text one line a step.

A plan step is found in a trace step when at least ``min_overlap`` of its distinct content
words appear there (:func:`evalmark.models._lexical.overlap`). The plan steps carried out in
order are the longest run of plan steps matched to trace steps in increasing order (a longest
common subsequence); the score is their share of the plan, and the check passes at
``threshold`` (default 1.0: every step, in order).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.models._lexical import overlap
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import output_text

__all__ = ["PlanAdherence", "plan_steps", "trace_steps"]

_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*•]|step\s+\d+[:.)]?)\s*", re.IGNORECASE)


def plan_steps(value: object, where: str) -> list[str]:
    """The steps of a plan given as a list of texts or as text with one step a line."""
    if isinstance(value, str):
        items: list[object] = list(value.splitlines())
    elif isinstance(value, Sequence) and not isinstance(value, bytes):
        items = list(value)
    else:
        raise StrategyError(f"{where}: a plan is a list of steps or text, got {value!r}")
    steps = []
    for item in items:
        if not isinstance(item, str):
            raise StrategyError(f"{where}: every plan step is text, got {item!r}")
        text = _MARKER.sub("", item).strip()
        if text:
            steps.append(text)
    return steps


def _step_text(step: object) -> str:
    content = getattr(step, "content", None)
    if content is None and isinstance(step, Mapping):
        content = step.get("content", step.get("text"))
    text = content if isinstance(content, str) else json.dumps(step, default=str)
    call = getattr(step, "tool_call", None)
    if call is not None:
        arguments = json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str)
        text = f"{text} [{call.name} {arguments}]"
    return text


def trace_steps(sample: Sample, output: Any, *, strategy: str) -> list[str]:
    """The executed steps of ``output`` (see the module docstring)."""
    trace = getattr(output, "reasoning_trace", None)
    if trace:
        return [_step_text(s) for s in trace if getattr(s, "type", None) != "plan"]
    if isinstance(output, Sequence) and not isinstance(output, str | bytes):
        return [s if isinstance(s, str) else _step_text(s) for s in output]
    text = output_text(output, strategy=strategy, sample=sample)
    return [line.strip() for line in text.splitlines() if line.strip()]


def _in_order(plan: list[str], trace: list[str], min_overlap: float) -> list[int]:
    """Indices of the plan steps matched in increasing trace order (a longest such run)."""
    hit = [[overlap(p, t)[0] >= min_overlap for t in trace] for p in plan]
    rows, cols = len(plan), len(trace)
    best = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            take = best[i + 1][j + 1] + 1 if hit[i][j] else 0
            best[i][j] = max(take, best[i + 1][j], best[i][j + 1])
    matched: list[int] = []
    i = j = 0
    while i < rows and j < cols:
        if hit[i][j] and best[i][j] == best[i + 1][j + 1] + 1:
            matched.append(i)
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return matched


class PlanAdherence:
    """Share of the plan's steps carried out in order in the trace; see the module docstring."""

    def __init__(
        self,
        plan: Sequence[str] | str | None = None,
        *,
        min_overlap: float = 0.5,
        threshold: float = 1.0,
        name: str | None = None,
    ) -> None:
        for what, value in (("min_overlap", min_overlap), ("threshold", threshold)):
            if isinstance(value, bool) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{what} must be in [0, 1], got {value!r}")
        self.plan = plan_steps(plan, "PlanAdherence(plan=...)") if plan is not None else None
        self.min_overlap = float(min_overlap)
        self.threshold = float(threshold)
        self.name = name or "PlanAdherence"

    def plan_for(self, sample: Sample, output: Any) -> list[str]:
        """The plan steps of this case (see the module docstring)."""
        if self.plan is not None:
            return self.plan
        where = f"{self.name}: sample '{sample.name}'"
        for source in (getattr(output, "metadata", None), sample.metadata):
            if isinstance(source, Mapping) and source.get("plan") is not None:
                return plan_steps(source["plan"], f"{where}: metadata 'plan'")
        stated = [s.content for s in getattr(output, "reasoning_trace", ()) if s.type == "plan"]
        if stated:
            return plan_steps("\n".join(stated), f"{where}: the trace's plan")
        raise StrategyError(
            f"{where} has no plan; give PlanAdherence(plan=[...]), the sample's metadata "
            "'plan', or a 'plan' step in the TestCase's reasoning trace"
        )

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Find the plan's steps in the trace, in order."""
        plan = self.plan_for(sample, output)
        trace = trace_steps(sample, output, strategy=self.name)
        if not plan:
            return EvaluationResult.passing(1.0, "the plan has no steps")
        matched = _in_order(plan, trace, self.min_overlap)
        done = set(matched)
        score = len(matched) / len(plan)
        missing = [step for i, step in enumerate(plan) if i not in done]
        metadata = {"plan_steps": len(plan), "trace_steps": len(trace), "in_order": len(matched)}
        head = f"{len(matched)} of {len(plan)} plan steps carried out in order"
        if missing:
            shown = "; ".join(repr(s[:80]) for s in missing[:5])
            head += f"; not found in order: {shown}"
        return EvaluationResult(score >= self.threshold, score, head, metadata)

    def __repr__(self) -> str:
        return (
            f"PlanAdherence(min_overlap={self.min_overlap}, threshold={self.threshold}, "
            f"name={self.name!r})"
        )
