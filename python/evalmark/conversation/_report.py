"""``score_conversations``: many scored conversations become one report (see
:mod:`evalmark.conversation._scoring` for what each kind of check judges)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evalmark._tracing._direct import engine_run
from evalmark.conversation._scoring import (
    Checks,
    ConversationCase,
    TurnFilter,
    named_checks,
    score_cases,
)
from evalmark.engine._defaults import DEFAULT_CONCURRENCY
from evalmark.engine._pipeline import single_run
from evalmark.engine._run import Run, run_sync
from evalmark.engine._settings import RunSettings
from evalmark.report._model import Report
from evalmark.report._values import SampleUsage, usage_of
from evalmark.results._results import EvaluationResult, ResultColumn
from evalmark.strategies._metric import TextPairs

__all__ = [
    "CONVERSATIONS_KEY",
    "ascore_conversations",
    "conversation_checks",
    "conversation_report",
    "score_conversations",
    "transcript",
]

CONVERSATIONS_KEY = "conversations"  # the report metadata key the renderers read


def _verdict(result: EvaluationResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "verdict": result.verdict,
        "score": result.score,
        "explanation": result.explanation,
    }
    turn = result.metadata.get("turn")
    if isinstance(turn, int):
        out["turn"] = turn
    return out


def transcript(
    case: ConversationCase,
    verdicts: Mapping[str, EvaluationResult],
    per_turn: Mapping[str, Sequence[tuple[int, EvaluationResult]]],
) -> dict[str, Any]:
    """The plain (JSON-ready) record of one conversation for the report: why it stopped, each
    turn with its per-turn verdicts, and the conversation's verdicts."""
    simulation = case.simulation
    turns = []
    for number, turn in enumerate(simulation.turns, 1):
        checks = {
            label: _verdict(result)
            for label, results in per_turn.items()
            for n, result in results
            if n == number
        }
        entry: dict[str, Any] = {
            "turn": number,
            "user": turn.input,
            "assistant": turn.actual_output,
            "checks": checks,
        }
        if turn.tool_calls:
            entry["tool-calls"] = [
                {"name": c.name, "arguments": dict(c.arguments)} for c in turn.tool_calls
            ]
        turns.append(entry)
    record: dict[str, Any] = {
        "id": case.name,
        "stopped": simulation.stopped.value,
        "why": simulation.why,
        "passed": all(r.passed for r in verdicts.values()),
        "turns": turns,
        "checks": {label: _verdict(result) for label, result in verdicts.items()},
    }
    if simulation.error is not None:
        record["error"] = {"turn": simulation.error_turn, "message": simulation.error}
    return record


async def ascore_conversations(
    cases: Sequence[ConversationCase],
    *,
    turn_strategies: Sequence[object] = (),
    conversation_strategies: Sequence[object] = (),
    trajectory_strategies: Sequence[object] = (),
    turn_filter: TurnFilter | None = None,
    locate: bool = True,
    name: str = "conversations",
    metadata: Mapping[str, Any] | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    run_index: int = 0,
) -> Report:
    """Async :func:`score_conversations`."""
    checks = conversation_checks(turn_strategies, conversation_strategies, trajectory_strategies)
    with single_run(RunSettings(concurrency, run_index=run_index)) as run:
        return await conversation_report(
            run, cases, checks, turn_filter, locate=locate, name=name, metadata=metadata
        )


def conversation_checks(
    turn_strategies: Sequence[object],
    conversation_strategies: Sequence[object],
    trajectory_strategies: Sequence[object],
) -> Checks:
    """The named per-turn, whole-conversation and trajectory checks; their names must be
    distinct, and there must be one at least."""
    checks = (
        named_checks(turn_strategies),
        named_checks(conversation_strategies),
        named_checks(trajectory_strategies),
    )
    labels = [label for group in checks for label, _ in group]
    if len(set(labels)) != len(labels):
        twice = sorted({label for label in labels if labels.count(label) > 1})
        raise ValueError(f"two checks share the name {', '.join(twice)}; give them distinct names")
    if not labels:
        raise ValueError("give at least one check: turn, conversation or trajectory strategies")
    return checks


async def conversation_report(
    run: Run,
    cases: Sequence[ConversationCase],
    checks: Checks,
    turn_filter: TurnFilter | None = None,
    *,
    locate: bool = True,
    name: str = "conversations",
    metadata: Mapping[str, Any] | None = None,
) -> Report:
    """The report of ``cases`` scored in the engine ``run`` (see :func:`score_conversations`);
    each check's column of conversation verdicts goes to the run's tracer as a sample run's."""
    with engine_run():  # recorded below, one record per conversation and check
        scored, durations = await score_cases(run, cases, checks, turn_filter, locate)
    TextPairs.clear_cache()  # the batch's texts need not outlive the run
    names = [case.name for case in cases]
    tags = [case.tags for case in cases]
    labels = [label for group in checks for label, _ in group]
    columns = {
        label: ResultColumn.from_results([verdicts[label] for verdicts, _ in scored])
        for label in labels
    }
    for label, column in columns.items():
        run.record(label, column, names, tags, metadata, durations.get(label, 0.0))
    records = [
        transcript(case, verdicts, per_turn)
        for case, (verdicts, per_turn) in zip(cases, scored, strict=True)
    ]
    outputs = [
        case.simulation.turns[-1].actual_output if case.simulation.turns else "" for case in cases
    ]
    return Report(
        name=name,
        usage=conversation_usage(cases),
        sample_names=names,
        sample_tags=tags,
        columns=columns,
        outputs=outputs,
        metadata={**(metadata or {}), CONVERSATIONS_KEY: records},
    )


def score_conversations(
    cases: Sequence[ConversationCase],
    *,
    turn_strategies: Sequence[object] = (),
    conversation_strategies: Sequence[object] = (),
    trajectory_strategies: Sequence[object] = (),
    turn_filter: TurnFilter | None = None,
    locate: bool = True,
    name: str = "conversations",
    metadata: Mapping[str, Any] | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    run_index: int = 0,
) -> Report:
    """Score simulated conversations: one report row per conversation, one column per check.

    ``turn_strategies`` judge each assistant turn (``turn_filter(label, sample)`` may skip
    turns), ``conversation_strategies`` the whole transcript (with ``locate``, a failing one is
    re-judged on the conversation up to each turn to name the first failing turn),
    ``trajectory_strategies`` the tool calls of the whole conversation. At most
    ``concurrency`` checks run at a time; the report is the same for any value.
    """
    return run_sync(
        ascore_conversations(
            cases,
            turn_strategies=turn_strategies,
            conversation_strategies=conversation_strategies,
            trajectory_strategies=trajectory_strategies,
            turn_filter=turn_filter,
            locate=locate,
            name=name,
            metadata=metadata,
            concurrency=concurrency,
            run_index=run_index,
        )
    )


def conversation_usage(cases: Sequence[ConversationCase]) -> dict[int, SampleUsage]:
    """Each conversation's usage: the sums over its turns of the latency, tokens and cost the
    application recorded (a field only when some turn recorded it), so budget gates apply to
    conversations as to single answers."""
    out: dict[int, SampleUsage] = {}
    for index, case in enumerate(cases):
        turns = [u for turn in case.simulation.turns if (u := usage_of(turn)) is not None]
        if turns:
            out[index] = SampleUsage(
                latency_ms=_total(turns, "latency_ms"),
                input_tokens=_total(turns, "input_tokens"),
                output_tokens=_total(turns, "output_tokens"),
                total_tokens=_total(turns, "total_tokens"),
                cost=_total(turns, "cost"),
            )
    return out


def _total(usages: Sequence[SampleUsage], field: str) -> Any:
    values = [getattr(u, field) for u in usages if getattr(u, field) is not None]
    return sum(values) if values else None
