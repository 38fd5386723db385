"""Builders for the history tests: runs made of plain case results."""

from __future__ import annotations

from collections.abc import Sequence

from evalmark.history import CaseResult, RunRecord
from evalmark.history._record import AnswerIdentity

# What answered the cases of a run made here, unless a test says otherwise.
SAME = AnswerIdentity("support-bot", "recordings-1", "main")


def make_run(
    verdicts: Sequence[tuple[str, str, bool, float]],
    *,
    suite: str = "support",
    started: str = "2026-12-01T10:00:00Z",
    inputs: str = "a",
    tags: Sequence[str] = ("billing",),
    gate: bool | None = True,
    identity: AnswerIdentity = SAME,
) -> RunRecord:
    """A run of ``(case, check, passed, score)`` results reading input files digested ``inputs``,
    every answer produced by ``identity``."""
    return RunRecord(
        suite=suite,
        source="run",
        started_at=started,
        duration_s=1.5,
        evalmark_version="0.1.0",
        results=tuple(
            CaseResult(
                case, check, passed, score, None, "" if passed else "missing", tuple(tags), identity
            )
            for case, check, passed, score in verdicts
        ),
        gate_passed=gate,
        files={"samples:samples.yaml": inputs},
    )
