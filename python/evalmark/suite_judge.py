"""TEMPORARY ADAPTER: a minimal judged check for suites, used only until the evaluation engine
ships ``evalmark.strategies.JudgeStrategy`` (issue 6); ``judge_strategy`` prefers the engine's
class as soon as it exists. It renders an evalmark judge prompt for the sample and output, asks
the judge model, and reads the ``VERDICT``/``GRADE`` line. No fallback, no repeats: those belong
to the engine's strategy.
"""

from __future__ import annotations

from typing import Any

from evalmark.prompts import JudgePrompt, parse_verdict
from evalmark.results import EvaluationResult
from evalmark.samples import Sample
from evalmark.strategies.base import output_text

__all__ = ["judge_strategy"]


def _values(prompt: JudgePrompt, sample: Sample, output: Any, name: str) -> dict[str, Any]:
    available: dict[str, Any] = {
        "question": str(sample.parameters[0]) if sample.parameters else None,
        "response": output_text(output, strategy=name, sample=sample),
        "expected_output": sample.expected_output,
        "context": list(sample.context) if sample.context else None,
    }
    return {variable: available[variable] for variable in prompt.variables}


class _AdapterJudgeStrategy:
    """ADAPTER (see the module docstring): one judge call per sample, verdict parsed."""

    def __init__(self, model: Any, prompt: JudgePrompt, name: str, min_grade: int = 4) -> None:
        self.model = model
        self.prompt = prompt
        self.name = name
        self.min_grade = min_grade

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Ask the judge about ``output`` and read its verdict."""
        messages = self.prompt.render(**_values(self.prompt, sample, output, self.name))
        try:
            reply = self.model.chat(messages)
        except Exception as exc:  # a failed judge call is an error result, not a crash
            return EvaluationResult.from_error("judge", exc)
        verdict = parse_verdict(reply.text)
        reason = reply.text.strip().splitlines()[0] if reply.text.strip() else ""
        if verdict is None:
            error = ValueError(f"the judge's reply has no verdict line: {reply.text[-200:]!r}")
            setattr(error, "raw", reply.text)  # noqa: B010 - EvaluationError reads .raw
            return EvaluationResult.from_error("parse", error)
        if verdict.kind == "graded":
            grade = verdict.grade or 0
            score = (grade - 1) / 4
            text = f"grade {grade} (needs {self.min_grade}): {reason}"
            if grade >= self.min_grade:
                return EvaluationResult.passed(score, text)
            return EvaluationResult.failed(score, text)
        if verdict.passed:
            return EvaluationResult.passed(1.0, reason)
        return EvaluationResult.failed(0.0, reason)


def judge_strategy(model: Any, prompt: JudgePrompt, *, name: str, min_grade: int = 4) -> Any:
    """The engine's ``JudgeStrategy`` when it exists, else the adapter above."""
    try:
        from evalmark.strategies import JudgeStrategy  # type: ignore[attr-defined]
    except ImportError:
        return _AdapterJudgeStrategy(model, prompt, name, min_grade)
    if prompt.kind == "graded":
        return JudgeStrategy(model, prompt, min_grade=min_grade, name=name)
    return JudgeStrategy(model, prompt, name=name)
