"""Judged agent checks through the prompt catalog: :class:`TrajectoryJudge` (the trajectory
prompts) and :class:`PlanAdherenceJudge` (``plan-adherence``).

Both are :class:`~evalmark.strategies._llm_judge.LLMJudge` s underneath, so their calls are made
inside ``call_context`` and record and replay through cassettes like every judge call, and a
result that did not pass carries the exact messages sent in ``metadata["judge_prompt"]``.

``TrajectoryJudge`` judges against a reference trajectory with
``trajectory-accuracy-referenced`` when the case has one (the TestCase's
``expected_tool_calls``, else the output's or sample's metadata ``reference-trajectory`` or
``expected-tool-calls``), and without one with ``trajectory-accuracy``; ``reference="always"``
makes a missing reference an error, ``"never"`` always uses the unreferenced prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.models._protocols import ChatModel
from evalmark.models._structured import Mode
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._llm_judge import LLMJudge
from evalmark.strategies._plan import PlanAdherence, trace_steps
from evalmark.strategies._votes import Reducer

__all__ = ["PlanAdherenceJudge", "ReferenceMode", "TrajectoryJudge", "reference_trajectory"]

ReferenceMode = Literal["auto", "always", "never"]
_REFERENCE_KEYS = ("reference-trajectory", "reference_trajectory", "expected-tool-calls")


def reference_trajectory(sample: Sample, output: Any) -> Any:
    """The reference trajectory of a case, or None (see the module docstring)."""
    calls = getattr(output, "expected_tool_calls", None)
    if calls is not None:
        return list(calls)
    for source in (getattr(output, "metadata", None), sample.metadata):
        if isinstance(source, Mapping):
            for key in _REFERENCE_KEYS:
                if source.get(key) is not None:
                    return source[key]
    return None


class _Referenced(LLMJudge):
    def values(self, sample: Sample, output: Any) -> dict[str, Any]:
        values = super().values(sample, output)
        reference = reference_trajectory(sample, output)
        if reference is not None:
            values["reference_outputs"] = reference
        return values


class TrajectoryJudge:
    """A judge model rates the agent's trajectory; see the module docstring. ``repeats``,
    ``reducer``, ``mode`` and ``params`` are as for ``LLMJudge``."""

    def __init__(
        self,
        model: ChatModel | Any,
        *,
        reference: ReferenceMode = "auto",
        mode: Mode = "auto",
        repeats: int = 1,
        reducer: Reducer = "majority",
        name: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        if reference not in ("auto", "always", "never"):
            raise ValueError(f"reference must be 'auto', 'always' or 'never', got {reference!r}")
        self.reference: ReferenceMode = reference
        self.name = name or "TrajectoryJudge"
        shared: dict[str, Any] = {
            "mode": mode,
            "repeats": repeats,
            "reducer": reducer,
            "name": self.name,
            "params": params,
            "feedback_key": "trajectory_accuracy",
        }
        self.referenced = _Referenced("trajectory-accuracy-referenced", model, **shared)
        self.unreferenced = LLMJudge("trajectory-accuracy", model, **shared)
        self.judges = (self.referenced, self.unreferenced)

    def judge_for(self, sample: Sample, output: Any) -> LLMJudge:
        """The judge (referenced or not) this case is asked with."""
        if self.reference == "never":
            return self.unreferenced
        if reference_trajectory(sample, output) is not None:
            return self.referenced
        if self.reference == "always":
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' has no reference trajectory; give the "
                "TestCase's expected-tool-calls or the sample's metadata 'reference-trajectory'"
            )
        return self.unreferenced

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Ask the judge about this trajectory."""
        return self.judge_for(sample, output).evaluate(sample, output)

    @recorded
    async def aevaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Async :meth:`evaluate`."""
        return await self.judge_for(sample, output).aevaluate(sample, output)

    def __repr__(self) -> str:
        return f"TrajectoryJudge(reference={self.reference!r}, name={self.name!r})"


class PlanAdherenceJudge(LLMJudge):
    """A judge model decides whether the agent followed its plan (catalog ``plan-adherence``).

    The plan is found as :class:`~evalmark.strategies._plan.PlanAdherence` finds it (given,
    metadata ``plan``, or the trace's plan steps); what the agent did is its reasoning trace,
    one step a line, when the TestCase has one.
    """

    def __init__(self, model: ChatModel | Any, **options: Any) -> None:
        plan = options.pop("plan", None)
        options.setdefault("name", "PlanAdherenceJudge")
        super().__init__("plan-adherence", model, **options)
        self._finder = PlanAdherence(plan, name=self.name)

    def values(self, sample: Sample, output: Any) -> dict[str, Any]:
        """The prompt's variables, with the plan numbered and the trace one step a line."""
        values = super().values(sample, output)
        steps = self._finder.plan_for(sample, output)
        values["plan"] = "\n".join(f"{i}. {step}" for i, step in enumerate(steps, 1))
        if getattr(output, "reasoning_trace", None):
            values["outputs"] = "\n".join(trace_steps(sample, output, strategy=self.name))
        return values
