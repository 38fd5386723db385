"""A judge with the user's own prompt, read as a choice among the user's own answers: the
``llm-judge`` kind with ``template`` (how model-graded checks of other tools are imported, their
prompts kept as written)::

    strategies:
      - llm-judge:
          template: "Question: {question}\\nAnswer: {response}\\nIs it right? (Y) yes (N) no"
          choice-strings: [Y, N]
          choice-scores: {Y: 1.0, N: 0.0}
          name: graded

The template is sent as written, as one user message, with its ``{question}``, ``{response}``,
``{expected_output}`` and ``{context}`` filled (``str.format`` syntax: ``{{`` is a brace;
a question given as a message list is its ``role: content`` lines),
then a paragraph of evalmark's asking for the choice on a line of its own (``choice-at:
last``, the default: after the reasoning; ``first``: before it). The reply's choice is the
first line, read from the end (``last``) or from the start (``first``), that once stripped of
punctuation and spaces starts or ends with a choice string (the longest first). Its score is
``choice-scores`` of that choice (without scores: 1 for the first choice, 0 for the others);
the check passes when the score reaches ``threshold`` (default 0.5). A reply with no choice is a
``parse`` error quoting the reply.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Any

from evalmark.errors import JudgeParseError
from evalmark.models._context import call_context, current_call
from evalmark.models._prompts.templates import template_prompt
from evalmark.models._protocols import model_id_of
from evalmark.results._results import EvaluationFault, EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._judge_inputs import prompt_values
from evalmark.strategies._judge_reply import as_reply

__all__ = ["CHOICE_AT", "ChoiceJudge", "read_choice"]

CHOICE_AT = ("last", "first")
_STRIP = str.maketrans("", "", string.punctuation)


def _instruction(choices: Sequence[str], at: str) -> str:
    listed = ", ".join(choices)
    if at == "first":
        return (
            f"Start your answer with a line holding only your choice, one of: {listed}. "
            "Then explain it."
        )
    return (
        "Reason it out step by step first. Then end your answer with a line holding only "
        f"your choice, one of: {listed}."
    )


def read_choice(text: str, choices: Sequence[str], at: str = "last") -> str | None:
    """The choice a reply gives (see the module docstring), or None."""
    lines = text.strip().splitlines()
    if at == "last":
        lines.reverse()
    ordered = sorted(choices, key=len, reverse=True)
    for line in lines:
        bare = line.translate(_STRIP).strip()
        if not bare:
            continue
        for choice in ordered:
            if bare.startswith(choice) or bare.endswith(choice):
                return choice
    return None


def _conversation(sample: Any) -> str | None:
    """A sample whose parameter is a message list, as ``role: content`` lines."""
    parameters = list(getattr(sample, "parameters", None) or ())
    messages = parameters[0] if len(parameters) == 1 else None
    if not isinstance(messages, list | tuple) or not messages:
        return None
    if not all(isinstance(m, Mapping) and isinstance(m.get("content"), str) for m in messages):
        return None
    return "\n".join(f"{m.get('role', 'user')}: {m['content']}" for m in messages)


class ChoiceJudge:
    """A chat model answers the user's template with one of ``choice_strings``; see the module
    docstring."""

    def __init__(
        self,
        template: str,
        model: Any,
        *,
        choice_strings: Sequence[str],
        choice_scores: Mapping[str, float] | None = None,
        choice_at: str = "last",
        threshold: float = 0.5,
        name: str | None = None,
    ) -> None:
        if not callable(getattr(model, "chat", None)):
            raise TypeError(f"the judge must be a chat model with chat(messages), got {model!r}")
        choices = [str(c) for c in choice_strings]
        if not choices or len(set(choices)) != len(choices) or not all(choices):
            raise ValueError(f"choice_strings must be distinct non-empty texts, got {choices!r}")
        if choice_at not in CHOICE_AT:
            raise ValueError(f"choice_at must be one of {', '.join(CHOICE_AT)}, got {choice_at!r}")
        scores = dict(choice_scores or {c: 1.0 if i == 0 else 0.0 for i, c in enumerate(choices)})
        missing = [c for c in choices if c not in scores]
        if missing:
            raise ValueError(f"choice_scores has no score for {', '.join(missing)}")
        self.prompt = template_prompt(template)  # ValueError naming an unknown variable
        self.template = template
        self.model = model
        self.choices = tuple(choices)
        self.scores = {c: float(scores[c]) for c in choices}
        self.choice_at = choice_at
        self.threshold = float(threshold)
        self.name = name or "llm-judge"

    def messages(self, values: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The one user message: the template filled, then the choice instruction."""
        filled = {
            k: "\n\n".join(map(str, v)) if isinstance(v, list | tuple) else v
            for k, v in values.items()
        }
        text = self.template.format_map(filled)
        return [
            {"role": "user", "content": f"{text}\n\n{_instruction(self.choices, self.choice_at)}"}
        ]

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Ask the judge once and score its choice."""
        values = prompt_values(self.prompt, sample, output, strategy=self.name)
        if "question" not in values:
            conversation = _conversation(sample)
            if conversation is not None:
                values["question"] = conversation
        missing = [v.name for v in self.prompt.variables if v.name not in values]
        if missing:
            fault = EvaluationFault(
                kind="strategy",
                type="PromptVariableError",
                message=f"{self.name}: sample {sample.name!r} has no {', '.join(missing)}",
            )
            return EvaluationResult(False, 0.0, fault.message, error=fault)
        context = current_call()
        run_index = context.run_index if context is not None else 0
        try:
            with call_context(run_index=run_index, sample=sample.name, check=self.name, repeat=0):
                reply = as_reply(self.model.chat(self.messages(values)), self.name)
        except Exception as exc:
            return EvaluationResult(
                False, 0.0, str(exc), error=EvaluationFault.from_exception("judge", exc)
            )
        choice = read_choice(reply.text, self.choices, self.choice_at)
        if choice is None:
            problem = JudgeParseError(
                f"{self.name}: the judge's reply names none of {', '.join(self.choices)}",
                reply.text,
            )
            fault = EvaluationFault.from_exception("parse", problem)
            return EvaluationResult(False, 0.0, str(problem), error=fault)
        score = self.scores[choice]
        metadata = {"choice": choice, "judge": model_id_of(self.model), "reply": reply.text}
        return EvaluationResult(
            score >= self.threshold, min(max(score, 0.0), 1.0), f"choice {choice}", metadata
        )

    def __repr__(self) -> str:
        return f"ChoiceJudge(choices={list(self.choices)!r}, name={self.name!r})"
