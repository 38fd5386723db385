"""One check of a suite file, as the loader read it: its kind and options (its own module, so
that the suite model and the conversation sections both use it without importing each other)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalmark.strategies._registry import STRATEGY_KINDS

__all__ = ["StrategySpec"]


@dataclass(frozen=True, slots=True)
class StrategySpec:
    """One check of a suite: its kind (``contains-facts``, ``relevancy``...) and options."""

    kind: str
    options: Mapping[str, Any]
    where: str

    @property
    def judged(self) -> bool:
        """True when a judge model decides this check."""
        return STRATEGY_KINDS[self.kind].judged

    @property
    def uses_judge(self) -> bool:
        """True when the check calls the judge model: a judged check, one whose code it copies
        out (``extract: llm``), one whose chunks it finds relevant (``relevance: judge``), or
        one whose rubrics it grades (``llm-rubric: judge``), or an imported OpenAI model grader
        (``openai-grader``)."""
        options = self.options
        return (
            self.judged
            or self.kind == "openai-grader"
            or options.get("extract") == "llm"
            or "judge" in (options.get("relevance"), options.get("llm-rubric"))
        )

    @property
    def label(self) -> str:
        """The check's name in reports: its ``name`` option, else its kind."""
        name = self.options.get("name")
        return name if isinstance(name, str) else self.kind
