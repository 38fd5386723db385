"""``Composite``: several strategies judged as one."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from evalmark._tracing._direct import recorded
from evalmark.results._results import EvaluationFault, EvaluationResult, ResultColumn
from evalmark.samples._samples import Sample
from evalmark.strategies._base import as_strategy, strategy_name

__all__ = ["Composite"]


class Composite:
    """Passes when every member passes; the score is the members' mean. The explanation names
    the failing members with their explanations; ``metadata["members"]`` holds each member's
    verdict, score and explanation. A member that raises makes the composite an error result."""

    def __init__(self, *strategies: object, name: str | None = None) -> None:
        if not strategies:
            raise ValueError("Composite needs at least one strategy")
        self.members = tuple(as_strategy(s) for s in strategies)
        names = [strategy_name(m) for m in self.members]
        doubled = sorted({n for n in names if names.count(n) > 1})
        if doubled:
            raise ValueError(
                f"Composite members need distinct names; {', '.join(doubled)} appear twice: "
                "pass name=... to tell them apart"
            )
        self.member_names = tuple(names)
        self.name = name or f"Composite({', '.join(names)})"
        # The scorer takes the batch path only when every member has one.
        self.batch = all(hasattr(m, "evaluate_batch") for m in self.members)

    def _combine(self, results: list[EvaluationResult]) -> EvaluationResult:
        members = {
            name: {"passed": r.passed, "score": r.score, "explanation": r.explanation}
            | ({"error": r.error.to_dict()} if r.error else {})
            for name, r in zip(self.member_names, results, strict=True)
        }
        score = sum(r.score for r in results) / len(results)
        bad = [(n, r) for n, r in zip(self.member_names, results, strict=True) if not r.passed]
        if not bad:
            return EvaluationResult.passing(
                score, f"all {len(results)} members passed", {"members": members}
            )
        text = "; ".join(
            f"{n} failed: {r.explanation}" if r.explanation else f"{n} failed" for n, r in bad
        )
        errors = [r.error for _, r in bad if r.error is not None]
        error: EvaluationFault | None = None
        if errors:
            first = errors[0]
            error = EvaluationFault(
                first.kind, first.type, first.message, first.raw, first.exception
            )
        return EvaluationResult(False, score, text, {"members": members}, error=error)

    def evaluate_batch(self, samples: Sequence[Sample], outputs: Sequence[Any]) -> ResultColumn:
        """Every member's batch path once over all outputs (members without one are called row
        by row); rows with their per-member metadata are built when read."""
        columns = [
            m.evaluate_batch(samples, outputs)
            if hasattr(m, "evaluate_batch")
            else ResultColumn.from_results(
                [_safe(m, s, o) for s, o in zip(samples, outputs, strict=True)]
            )
            for m in self.members
        ]
        errored = np.logical_or.reduce([c.errored for c in columns])
        passed = np.logical_and.reduce([c.passed for c in columns]) & ~errored
        scores = np.mean(np.stack([c.scores for c in columns]), axis=0)

        def build(index: int) -> EvaluationResult:
            return self._combine([c[index] for c in columns])

        return ResultColumn.lazy(scores, passed, errored, build)

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Evaluate every member."""
        return self._combine([_safe(m, sample, output) for m in self.members])

    @recorded
    async def aevaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Evaluate every member, awaiting the async ones."""
        results = []
        for member in self.members:
            aevaluate = getattr(member, "aevaluate", None)
            if aevaluate is not None and inspect.iscoroutinefunction(aevaluate):
                try:
                    results.append(await aevaluate(sample, output))
                except Exception as exc:
                    results.append(EvaluationResult.from_error("strategy", exc))
            else:
                results.append(_safe(member, sample, output))
        return self._combine(results)


def _safe(member: Any, sample: Sample, output: Any) -> EvaluationResult:
    try:
        result = member.evaluate(sample, output)
    except Exception as exc:
        return EvaluationResult.from_error("strategy", exc)
    if not isinstance(result, EvaluationResult):
        raise TypeError(
            f"strategy {strategy_name(member)!r} returned {type(result).__name__}, "
            "not an EvaluationResult"
        )
    return result
