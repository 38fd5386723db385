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

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evalmark.conversation._simulate import Simulation, StopReason, messages_of
from evalmark.conversation._users import ScriptedTurn
from evalmark.engine._run import Run
from evalmark.errors import ConversationError
from evalmark.results._results import EvaluationResult
from evalmark.samples._case import Conversation, TestCase, ToolCall
from evalmark.samples._sample import Parameters
from evalmark.samples._samples import Sample
from evalmark.strategies._base import as_strategy, strategy_name

__all__ = [
    "Checks",
    "ConversationCase",
    "TurnFilter",
    "named_checks",
    "score_cases",
    "turn_sample",
]

TurnFilter = Callable[[str, Sample], bool]  # (check label, turn sample) -> judge this turn?
Named = list[tuple[str, Any]]
Checks = tuple[Named, Named, Named]  # the per-turn, whole-conversation and trajectory checks


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


async def _locate(
    run: Run, label: str, strategy: Any, cases: Mapping[int, ConversationCase]
) -> dict[int, int]:
    """For each of ``cases`` (by index), the first turn after which the conversation so far
    fails ``strategy``: the conversations up to turn 1 are judged together, then those still
    passing up to turn 2, and so on, so each case is judged as a search from its start would."""
    found: dict[int, int] = {}
    searching = sorted(cases)
    number = 1
    while searching:
        asked = [i for i in searching if number < len(cases[i].simulation.turns)]
        found.update({i: len(cases[i].simulation.turns) for i in searching if i not in asked})
        prefixes = [
            Conversation(id=cases[i].name, turns=cases[i].simulation.turns[:number]) for i in asked
        ]
        column = await _column(
            run, label, strategy, [_case_sample(cases[i]) for i in asked], prefixes
        )
        searching = []
        for i, result in zip(asked, column, strict=True):
            if result.passed:
                searching.append(i)
            else:
                found[i] = number
        number += 1
    return found


Verdicts = dict[str, EvaluationResult]
PerTurn = dict[str, list[tuple[int, EvaluationResult]]]


async def score_cases(
    run: Run,
    cases: Sequence[ConversationCase],
    checks: Checks,
    applies: TurnFilter | None,
    locate: bool,
) -> tuple[list[tuple[Verdicts, PerTurn]], dict[str, float]]:
    """Every check on every conversation, each check through the engine's
    :meth:`~evalmark.engine._run.Run.column` over all the turns (or conversations) it judges:
    per conversation, its verdict per check (in check order) and each per-turn check's
    verdicts as ``(turn, result)`` pairs; and the seconds each check took."""
    turn_checks, whole_checks, trajectory_checks = checks
    labels = [label for label, _ in (*turn_checks, *whole_checks, *trajectory_checks)]
    verdicts: list[Verdicts] = [{} for _ in cases]
    per_turn: list[PerTurn] = [{} for _ in cases]
    live: list[int] = []
    durations: dict[str, float] = {}
    for index, case in enumerate(cases):
        if case.simulation.stopped is StopReason.APP_ERROR:
            error = _app_error(case)
            verdicts[index] = {label: error for label in labels}
        else:
            live.append(index)
    turns = {i: cases[i].simulation.turns for i in live}
    samples = {i: [turn_sample(cases[i], n) for n in range(1, len(turns[i]) + 1)] for i in live}
    for label, strategy in turn_checks:
        start = time.perf_counter()
        judged = [
            (i, n)
            for i in live
            for n, sample in enumerate(samples[i], 1)
            if applies is None or applies(label, sample)
        ]
        column = await _column(
            run,
            label,
            strategy,
            [samples[i][n - 1] for i, n in judged],
            [turns[i][n - 1] for i, n in judged],
        )
        for i in live:
            per_turn[i][label] = []
        for (i, n), result in zip(judged, column, strict=True):
            per_turn[i][label].append((n, result))
        for i in live:
            verdicts[i][label] = _combine_turns(per_turn[i][label])
        durations[label] = time.perf_counter() - start
    whole_samples = [_case_sample(cases[i]) for i in live]
    for label, strategy in whole_checks:
        start = time.perf_counter()
        wholes = [Conversation(id=cases[i].name, turns=turns[i]) for i in live]
        column = await _column(run, label, strategy, whole_samples, wholes)
        results = dict(zip(live, column, strict=True))
        failing = {
            i: cases[i]
            for i, result in results.items()
            if locate and not result.passed and result.error is None and turns[i]
        }
        located = await _locate(run, label, strategy, failing) if failing else {}
        for i, result in results.items():
            if i in located:
                result = EvaluationResult(
                    False,
                    result.score,
                    f"fails from turn {located[i]}: {result.explanation or 'failed'}",
                    {**result.metadata, "turn": located[i]},
                )
            verdicts[i][label] = result
        durations[label] = time.perf_counter() - start
    calls = [_calls(cases[i]) for i in live]
    for label, strategy in trajectory_checks:
        start = time.perf_counter()
        column = await _column(run, label, strategy, whole_samples, calls)
        for i, result in zip(live, column, strict=True):
            verdicts[i][label] = result
        durations[label] = time.perf_counter() - start
    rows = [
        ({label: verdicts[i][label] for label in labels}, per_turn[i]) for i in range(len(cases))
    ]
    return rows, durations


async def _column(
    run: Run, label: str, strategy: Any, samples: Sequence[Sample], outputs: Sequence[Any]
) -> list[EvaluationResult]:
    if not samples:
        return []
    return list(await run.column(label, strategy, samples, outputs))


def _calls(case: ConversationCase) -> TestCase:
    """The tool calls of the whole conversation, as one ``TestCase`` (for trajectory checks)."""
    turns = case.simulation.turns
    return TestCase(
        turns[0].input if turns else "",
        turns[-1].actual_output if turns else "",
        tool_calls=case.simulation.tool_calls,
        expected_tool_calls=case.expected_tool_calls,
        name=case.name,
    )
