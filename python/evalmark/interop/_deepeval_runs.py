"""DeepEval test-run files: what ``deepeval test run`` and ``evaluate()`` save as
``.deepeval/.latest_test_run.json`` (the run under ``testRunData``; older versions wrote the run
itself), camelCase keys as DeepEval's test-run model dumps them.

``testCases`` become samples, their ``actualOutput`` the answers of the recorded build
``deepeval``, as goldens do (:func:`~evalmark.interop._deepeval.single_turn`); the verdict
DeepEval recorded stays in each sample's metadata: ``deepeval-success`` and
``deepeval-metrics`` (``metricsData`` as written: each metric's ``name``, ``score``,
``threshold``, ``success``, ``reason``, its evaluation model and cost), with the case's timing
and cost. ``conversationalTestCases`` become conversations
(:mod:`~evalmark.interop._deepeval_turns`), their recorded metrics kept in ``source.json``.
The run's totals (``testPassed``, ``metricsScores``, ``hyperparameters``...) are kept in
``source.json`` too. A run holding both kinds of test case is refused unless the
conversations' loss is allowed (``conversationalTestCases``): a suite folder holds samples or
conversations.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from evalmark._files.json_read import decode_problem
from evalmark._files.source import strip_bom
from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._deepeval import KEPT, imported, read_deepeval, single_turn
from evalmark.interop._deepeval_turns import read_conversation
from evalmark.interop._model import Imported, Losses

__all__ = ["read_deepeval_file", "read_test_run"]

# camelCase keys of a test case, as the golden readers name them.
_SNAKE = {
    "actualOutput": "actual_output",
    "expectedOutput": "expected_output",
    "retrievalContext": "retrieval_context",
    "toolsCalled": "tools_called",
    "expectedTools": "expected_tools",
    "tokenCost": "token_cost",
    "metadata": "additional_metadata",
}
# What a test run records of a test case besides the golden's fields: kept in metadata.
_RUN_KEPT = {
    "success": "deepeval-success",
    "metricsData": "deepeval-metrics",
    "completionTime": "deepeval-completion-time",
    "runDuration": "deepeval-run-duration",
    "evaluationCost": "deepeval-evaluation-cost",
    "order": "deepeval-order",
    "flaky": "deepeval-flaky",
}
_RUN_KEYS = frozenset(
    {
        "testFile",
        "testCases",
        "conversationalTestCases",
        "metricsScores",
        "traceMetricsScores",
        "identifier",
        "hyperparameters",
        "prompts",
        "testPassed",
        "testFailed",
        "runDuration",
        "evaluationCost",
        "datasetAlias",
        "datasetId",
        "official",
    }
)


def _error(message: str, path: Path, field: str | None = None) -> ImportFormatError:
    return ImportFormatError([Problem(message, path=str(path), record=field)])


def _run(path: Path) -> Mapping[str, Any]:
    data = strip_bom(path.read_bytes())
    try:
        doc = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise ImportFormatError([decode_problem(exc, data, str(path))]) from None
    if isinstance(doc, Mapping) and isinstance(doc.get("testRunData"), Mapping):
        doc = doc["testRunData"]
    if not isinstance(doc, Mapping) or not ("testCases" in doc or "conversationalTestCases" in doc):
        raise _error(
            "neither a DeepEval test run (testCases, conversationalTestCases) nor a list of "
            "goldens; a file holding only a testRunLink was uploaded, not saved: run again "
            "without Confident AI to keep the results",
            path,
        )
    return doc


def _case(case: Any, index: int, path: Path) -> dict[str, Any]:
    """A test case with the goldens' snake_case keys (its run fields under their own)."""
    if not isinstance(case, Mapping):
        raise _error("a test case must be an object", path, f"testCases[{index}]")
    return {_SNAKE.get(str(k), str(k)): v for k, v in case.items()}


def read_deepeval_file(path: Path, losses: Losses) -> Imported:
    """Read any DeepEval file: a test run (a JSON object), else goldens or test cases."""
    if path.suffix == ".json" and strip_bom(path.read_bytes()).lstrip()[:1] == b"{":
        return read_test_run(path, losses)
    return read_deepeval(path, losses)


def read_test_run(path: Path, losses: Losses) -> Imported:
    """Read a DeepEval test-run file (see the module's docstring)."""
    run = _run(path)
    for key in sorted(set(run) - _RUN_KEYS):
        losses.refuse(f"run.{key}", f"test run field {key!r} is not carried", str(path), None, key)
    cases = run.get("testCases") or []
    talks = run.get("conversationalTestCases") or []
    if not isinstance(cases, list) or not isinstance(talks, list):
        raise _error("testCases and conversationalTestCases must be lists", path)
    if cases and talks:
        losses.refuse(
            "conversationalTestCases",
            "the run holds single-turn and conversational test cases, and a suite folder holds "
            "samples or conversations: the conversational ones would be left out",
            str(path),
            None,
            "conversationalTestCases",
        )
        talks = []
    kept: dict[str, Any] = {k: run[k] for k in sorted(run) if k in _RUN_KEYS - _CASES}
    rows = [(None, _case(case, i, path)) for i, case in enumerate(cases)]
    samples, answers, extra = single_turn(rows, path, losses, {**KEPT, **_RUN_KEPT})
    conversations = []
    kept_talks: dict[str, Any] = {}
    for index, talk in enumerate(talks):
        where = f"conversationalTestCases[{index}]"
        if not isinstance(talk, Mapping):
            raise _error("a conversational test case must be an object", path, where)
        conversation, rest = read_conversation(talk, index, where, path, None, losses)
        conversations.append(conversation)
        kept_talks[conversation.name] = rest
    if kept_talks:
        kept["conversations"] = kept_talks
    return imported(
        path,
        "test-run",
        losses,
        samples=samples,
        answers=answers,
        kept=kept,
        extra=extra,
        conversations=conversations,
    )


_CASES = frozenset({"testCases", "conversationalTestCases"})
