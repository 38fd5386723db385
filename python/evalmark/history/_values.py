"""The values the history stores and reads back, checked at the door.

Writing: every text is kept (a lone surrogate written as ``\\udcff``, as in every report) and
every number must be finite, so one odd value never drops a run with a misleading message.
Reading: a row changed outside evalmark (a text stored as a BLOB, a number stored as text,
tags that are not a JSON list of texts) is a :class:`~evalmark.errors.HistoryError` naming the
database, the row and the column, never a traceback.
"""

from __future__ import annotations

import dataclasses
import json
import math
import sqlite3
from pathlib import Path
from typing import Any

from evalmark._files.text import escape_surrogates, has_surrogates
from evalmark.errors import HistoryError
from evalmark.history._record import CaseResult, RunRecord

__all__ = ["check_rows", "read_tags", "storable"]

# Columns (as the queries name them) that hold numbers; every other column holds text.
_NUMBERS = frozenset(
    {
        "id",
        "run_id",
        "seq",
        "passed",
        "score",
        "duration_s",
        "git_dirty",
        "gate_passed",
        "identity",
        "evaluations",
        "mean_score",
        "cases",
        "cases_passed",
        "runs",
        "passes",
        "ok",
        "first",
        "lo",
        "hi",
        "n",
        "total",
        "pass_rate",
    }
)
_TAMPERED = "the row was changed outside evalmark; delete that run, or move the database aside"


def _text(value: str | None) -> str | None:
    return None if value is None else escape_surrogates(value)


def _finite(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise HistoryError(f"{what} is {value!r}, not a number; pass a finite float")
    try:
        number = float(value)
    except OverflowError:
        raise HistoryError(f"{what} is too large for a float; pass a finite float") from None
    if not math.isfinite(number):
        raise HistoryError(
            f"{what} is {number}; the history stores finite numbers only: fix the check "
            "that produced it (or leave the run out of the history)"
        )
    return number


def _already_storable(run: RunRecord) -> bool:
    """Whether ``run`` is stored as it is: every text a ``str`` without a lone surrogate, every
    verdict a ``bool``, every score and the duration a finite ``float`` (the common case, told
    with one surrogate scan over all the texts instead of one per text)."""
    texts: list[str] = [run.suite, run.source, *run.files]
    if run.build is not None:
        texts.append(run.build)
    isfinite = math.isfinite
    for r in run.results:
        if (
            type(r.passed) is not bool
            or type(r.score) is not float
            or not isfinite(r.score)
            or type(r.tags) is not tuple
        ):
            return False
        texts += (r.case, r.strategy, r.explanation, *r.tags)
        for value in (r.error, r.identity.model_id, r.identity.build):
            if value is not None:
                texts.append(value)
    if any(type(t) is not str for t in texts):
        return False
    if type(run.duration_s) is not float or not isfinite(run.duration_s):
        return False
    return not has_surrogates("".join(texts))


def storable(run: RunRecord) -> RunRecord:
    """``run`` as the history stores it: texts kept (lone surrogates written as ``\\udcff``),
    numbers checked finite. A :class:`HistoryError` names the case and check of a bad score."""
    if _already_storable(run):
        return run
    results = []
    for result in run.results:
        where = f"suite {run.suite!r}, case {result.case!r}, check {result.strategy!r}: score"
        results.append(
            CaseResult(
                case=escape_surrogates(str(result.case)),
                strategy=escape_surrogates(str(result.strategy)),
                passed=bool(result.passed),
                score=_finite(result.score, where),
                error=_text(result.error),
                explanation=escape_surrogates(result.explanation),
                tags=tuple(escape_surrogates(str(tag)) for tag in result.tags),
                identity=dataclasses.replace(
                    result.identity,
                    model_id=_text(result.identity.model_id),
                    build=_text(result.identity.build),
                ),
            )
        )
    return dataclasses.replace(
        run,
        suite=escape_surrogates(run.suite),
        source=escape_surrogates(run.source),
        build=_text(run.build),
        duration_s=_finite(run.duration_s, f"suite {run.suite!r}: duration_s"),
        results=tuple(results),
        files={escape_surrogates(k): v for k, v in run.files.items()},
    )


def check_rows(path: Path, rows: list[sqlite3.Row]) -> list[sqlite3.Row]:
    """``rows`` unchanged when every value has the type its column holds; else a
    :class:`HistoryError` naming the row and column."""
    for row in rows:
        for name, value in zip(row.keys(), row, strict=True):
            if value is None or isinstance(value, int | float):
                continue
            if isinstance(value, str) and name not in _NUMBERS:
                continue
            raise HistoryError(
                f"{path}: {_where(row)}column {name} holds {_kind(value)} where the history "
                f"keeps {'a number' if name in _NUMBERS else 'text'}; {_TAMPERED}"
            )
    return rows


def read_tags(path: Path, raw: Any, where: str) -> tuple[str, ...]:
    """The tags of a result as stored (a JSON list of texts); a :class:`HistoryError` naming
    ``where`` when they are anything else."""
    try:
        tags = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        tags = None
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        shown = repr(raw)[:60]
        raise HistoryError(
            f"{path}: {where}: tags are {shown}, not a JSON list of texts; {_TAMPERED}"
        )
    return tuple(tags)


def _where(row: sqlite3.Row) -> str:
    keys = row.keys()
    for key in ("run_id", "id"):
        if key in keys and isinstance(row[key], int):
            return f"run {row[key]}: "
    return ""


def _kind(value: object) -> str:
    if isinstance(value, bytes):
        return f"a BLOB of {len(value)} bytes"
    return f"text {str(value)[:40]!r}"
