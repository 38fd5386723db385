"""Scoring simulated conversations into a :class:`~evalmark.report.Report`.

The report has one row per conversation (a case of the gate) and one column per check:

* a **per-turn** check judges each assistant turn (the sample is the turn: the user's message
  as its parameter, the scripted expectations, and the conversation before it in
  ``metadata["conversation"]``; the output is the turn's ``TestCase``). The conversation passes
  it when every turn judged passes; the explanation names the first failing turn.
* a **whole-conversation** check (the catalog's ``task-completion``, ``knowledge-retention``,
  ``user-satisfaction`` through :class:`~evalmark.strategies._llm_judge.LLMJudge`, or any
  strategy taking a :class:`~evalmark.samples._case.Conversation`) judges the transcript. When it
  fails, the conversation up to each turn is judged again to find the first turn after which it
  fails, and the explanation names that turn.
* a **trajectory** check (:class:`~evalmark.strategies._trajectory.TrajectoryMatch`) judges the
  tool calls made over the whole conversation, as one ``TestCase``.

Per-turn details, the transcript and why each conversation stopped go into the report's
``metadata["conversations"]``, which :mod:`evalmark.report._render.conversation` renders.
Results are placed by position, so the report's bytes do not depend on ``concurrency``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from evalmark.conversation._simulate import Simulation, StopReason, messages_of
from evalmark.conversation._users import ScriptedTurn
from evalmark.engine._run import in_thread
from evalmark.errors import ConversationError
from evalmark.models._context import call_context
from evalmark.results._results import EvaluationResult
from evalmark.samples._case import Conversation, TestCase, ToolCall
from evalmark.samples._sample import Parameters
from evalmark.samples._samples import Sample
from evalmark.strategies._base import as_strategy, strategy_name

__all__ = ["ConversationCase", "Judging", "TurnFilter", "named_checks", "score_case", "turn_sample"]

TurnFilter = Callable[[str, Sample], bool]  # (check label, turn sample) -> judge this turn?


@dataclass(frozen=True, slots=True)
class ConversationCase:
    """A simulated conversation with what scoring needs besides: the scripted turns (their
    expectations), the case's tags and the tool calls expected over the conversation."""

    simulation: Simulation
    script: Sequence[ScriptedTurn] = ()
    tags: tuple[str, ...] = ()
    expected_tool_calls: tuple[ToolCall, ...] | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The conversation's id."""
        return self.simulation.name


def turn_sample(case: ConversationCase, number: int) -> Sample:
    """The sample of turn ``number`` (1-based) of ``case``: the user's message, the scripted
    expectations of that turn, and the conversation before it in its metadata."""
    turns = case.simulation.turns
    turn = turns[number - 1]
    planned = case.script[number - 1] if number <= len(case.script) else None
    return Sample(
        name=f"{case.name} turn {number}",
        parameters=Parameters((turn.input,)),
        expected_output=(planned.expected_output if planned else None) or "",
        expected_facts=planned.expected_facts if planned else (),
        context=planned.context if planned else (),
        tags=case.tags,
        metadata={
            "conversation": messages_of(turns[: number - 1]),
            "conversation-id": case.name,
            "turn": number,
            **(dict(planned.metadata) if planned else {}),
        },
    )


def _case_sample(case: ConversationCase) -> Sample:
    turns = case.simulation.turns
    metadata: dict[str, Any] = {"conversation-id": case.name}
    if case.expected_tool_calls is not None:
        metadata["expected-tool-calls"] = [
            {"name": c.name, "arguments": dict(c.arguments)} for c in case.expected_tool_calls
        ]
    return Sample(
        name=case.name,
        parameters=Parameters((turns[0].input if turns else "",)),
        expected_output="",
        tags=case.tags,
        metadata=metadata,
    )


class Judging:
    """Runs strategy calls, at most ``concurrency`` at a time, each in its call context."""

    def __init__(self, concurrency: int, run_index: int, pool: ThreadPoolExecutor) -> None:
        self.limit = asyncio.Semaphore(concurrency)
        self.concurrency = concurrency
        self.run_index = run_index
        self.pool = pool

    def _sync(self, strategy: Any, label: str, sample: Sample, output: Any) -> EvaluationResult:
        with call_context(run_index=self.run_index, sample=sample.name, check=label):
            try:
                return _result(strategy.evaluate(sample, output), label, sample)
            except Exception as exc:
                return EvaluationResult.from_error("strategy", exc)

    async def judge(
        self, strategy: Any, label: str, sample: Sample, output: Any
    ) -> EvaluationResult:
        """One verdict (a raised exception becomes an error result)."""
        async with self.limit:
            aevaluate = getattr(strategy, "aevaluate", None)
            if aevaluate is not None and inspect.iscoroutinefunction(aevaluate):
                with call_context(run_index=self.run_index, sample=sample.name, check=label):
                    try:
                        return _result(await aevaluate(sample, output), label, sample)
                    except Exception as exc:
                        return EvaluationResult.from_error("strategy", exc)
            if self.concurrency == 1:
                return self._sync(strategy, label, sample, output)
            return await in_thread(self.pool, self._sync, strategy, label, sample, output)


def _result(value: object, label: str, sample: Sample) -> EvaluationResult:
    if isinstance(value, EvaluationResult):
        return value
    if isinstance(value, bool):
        return EvaluationResult.from_bool(value)
    raise TypeError(
        f"check {label!r} returned {type(value).__name__} for {sample.name!r}; return an "
        "EvaluationResult or a bool"
    )


def named_checks(strategies: Sequence[object]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for strategy in strategies:
        built = as_strategy(strategy)
        out.append((strategy_name(built), built))
    return out


def _combine_turns(results: Sequence[tuple[int, EvaluationResult]]) -> EvaluationResult:
    """The conversation's verdict on a per-turn check: every judged turn must pass."""
    if not results:
        return EvaluationResult(True, 1.0, "no turn to judge", {"turns": 0})
    score = sum(r.score for _, r in results) / len(results)
    metadata = {"turns": len(results)}
    for number, result in results:
        if not result.passed:
            text = f"turn {number}: {result.explanation or 'failed'}"
            failed = EvaluationResult(
                False, score, text, {**metadata, "turn": number}, error=result.error
            )
            return failed
    count = len(results)
    return EvaluationResult(True, score, f"{count} of {count} judged turns passed", metadata)


def _app_error(case: ConversationCase) -> EvaluationResult:
    simulation = case.simulation
    error = ConversationError(
        f"conversation '{case.name}', turn {simulation.error_turn}: {simulation.error}"
    )
    return EvaluationResult.from_error(
        "function", error, explanation=f"turn {simulation.error_turn}: {simulation.error}"
    )


async def _locate(judging: Judging, strategy: Any, label: str, case: ConversationCase) -> int:
    """The first turn after which the conversation so far fails ``strategy``."""
    turns = case.simulation.turns
    sample = _case_sample(case)
    for number in range(1, len(turns)):
        prefix = Conversation(id=case.name, turns=turns[:number])
        result = await judging.judge(strategy, label, sample, prefix)
        if not result.passed:
            return number
    return len(turns)


async def score_case(
    judging: Judging,
    case: ConversationCase,
    turn_checks: list[tuple[str, Any]],
    whole_checks: list[tuple[str, Any]],
    trajectory_checks: list[tuple[str, Any]],
    applies: TurnFilter | None,
    locate: bool,
) -> tuple[dict[str, EvaluationResult], dict[str, list[tuple[int, EvaluationResult]]]]:
    """Every check on one conversation: (the conversation's verdict per check, in check
    order; each per-turn check's verdicts as ``(turn, result)`` pairs)."""
    labels = [label for label, _ in (*turn_checks, *whole_checks, *trajectory_checks)]
    if case.simulation.stopped is StopReason.APP_ERROR:
        error = _app_error(case)
        return {label: error for label in labels}, {}
    turns = case.simulation.turns
    samples = [turn_sample(case, n) for n in range(1, len(turns) + 1)]
    judged_turns = {
        label: [n for n, s in enumerate(samples, 1) if applies is None or applies(label, s)]
        for label, _ in turn_checks
    }
    sample = _case_sample(case)
    whole = Conversation(id=case.name, turns=turns)
    calls = TestCase(
        turns[0].input if turns else "",
        turns[-1].actual_output if turns else "",
        tool_calls=case.simulation.tool_calls,
        expected_tool_calls=case.expected_tool_calls,
        name=case.name,
    )
    per_turn_jobs = [
        asyncio.gather(
            *(
                judging.judge(strategy, label, samples[n - 1], turns[n - 1])
                for n in judged_turns[label]
            )
        )
        for label, strategy in turn_checks
    ]
    whole_jobs = [judging.judge(strategy, label, sample, whole) for label, strategy in whole_checks]
    trajectory_jobs = [
        judging.judge(strategy, label, sample, calls) for label, strategy in trajectory_checks
    ]
    per_turn_done, whole_done, trajectory_done = await asyncio.gather(
        asyncio.gather(*per_turn_jobs),
        asyncio.gather(*whole_jobs),
        asyncio.gather(*trajectory_jobs),
    )
    verdicts: dict[str, EvaluationResult] = {}
    per_turn: dict[str, list[tuple[int, EvaluationResult]]] = {}
    for (label, _), results in zip(turn_checks, per_turn_done, strict=True):
        per_turn[label] = list(zip(judged_turns[label], results, strict=True))
        verdicts[label] = _combine_turns(per_turn[label])
    for (label, strategy), result in zip(whole_checks, whole_done, strict=True):
        if locate and not result.passed and result.error is None and turns:
            number = await _locate(judging, strategy, label, case)
            result = EvaluationResult(
                False,
                result.score,
                f"fails from turn {number}: {result.explanation or 'failed'}",
                {**result.metadata, "turn": number},
            )
        verdicts[label] = result
    for (label, _), result in zip(trajectory_checks, trajectory_done, strict=True):
        verdicts[label] = result
    return {label: verdicts[label] for label in labels}, per_turn
