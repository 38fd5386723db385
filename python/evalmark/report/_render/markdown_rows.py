"""The two long tables of the Markdown report, built from the report's columns: the failing
checks and the samples. They give the lines the row-by-row form gives (a ``SampleRow`` per
case, a ``cell`` per text) without building a row object per sample: verdicts and scores come
from the columns' arrays, explanations only for the checks shown, and each table is given
as a :class:`~evalmark.report._render.fill.Table` to write, with one line form per row shape
(strategy and verdict; verdict and marks) whose slots escape the texts as they are written, so
no line is built by Python code of its own."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from evalmark.report._render.common import cells
from evalmark.report._render.fill import Table

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = ["failure_lines", "sample_lines"]

_VERDICTS = ("pass", "fail", "error")
_MARKS = ("✅", "❌", "⚠️")


def _codes(report: Report) -> npt.NDArray[np.int8]:
    """Each check's verdict code, one row per strategy: 0 pass, 1 fail, 2 error."""
    count = len(report)
    code = np.zeros((len(report.strategies), count), dtype=np.int8)
    for j, name in enumerate(report.strategies):
        column = report.column(name)
        code[j] = np.where(column.errored, 2, np.where(column.passed, 0, 1))
    return code


def _fixed(text: str) -> str:
    """``text`` as fixed text of a ``%`` template."""
    return text.replace("%", "%%")


def failure_lines(report: Report, max_rows: int | None) -> tuple[Table | None, int, int, int]:
    """The table lines of the first ``max_rows`` failing checks (all when None; None for no
    line), in sample order then strategy order; the lines shown, the number of failing checks
    and of cases with one."""
    strategies = report.strategies
    if not strategies or not len(report):
        return None, 0, 0, 0
    columns = [report.column(n) for n in strategies]
    failed = np.stack([~c.passed for c in columns])  # (strategies, samples)
    errored = np.stack([c.errored for c in columns])
    cases = int(np.count_nonzero((failed | errored).any(axis=0)))
    rows, checks = np.nonzero(failed.T)
    total = len(rows)
    if max_rows is not None:
        rows, checks = rows[:max_rows], checks[:max_rows]
    shown = len(rows)
    if not shown:
        return None, 0, total, cases
    explanations = np.empty(shown, dtype=object)
    for j, column in enumerate(columns):
        at = np.flatnonzero(checks == j)
        if len(at):
            explanations[at] = column.explanations(rows[at].tolist(), keep=False)
    scores: list[float] = np.stack([c.scores for c in columns])[checks, rows].tolist()
    reasons: list[object] = [text or "—" for text in explanations.tolist()]
    strategy_cells = cells(strategies)
    # one form per (strategy, verdict): the sample, the score and the reason are its slots
    forms = [
        f"| %C | {_fixed(strategy_cells[j])} | {verdict} | %.3f | %C |"
        for j in range(len(strategies))
        for verdict in ("fail", "error")
    ]
    keys = checks * 2 + errored[checks, rows]
    names: list[object] = list(map(report.sample_names.__getitem__, rows.tolist()))
    return Table(forms, keys, [names, scores, reasons]), shown, total, cases


def sample_lines(report: Report, count: int) -> Table | None:
    """The table lines of the first ``count`` samples (None for none): name, tags, verdict,
    mean score and a mark per check."""
    if count <= 0:
        return None
    strategies = report.strategies
    code = _codes(report)[:, :count]
    scores: list[list[object]] = [report.column(n).scores[:count].tolist() for n in strategies]
    if strategies:
        worst = code.max(axis=0)
        sums = np.array(list(map(math.fsum, zip(*scores, strict=True))), dtype=np.float64)
        means: list[object] = (sums / len(strategies)).tolist()
        # each row's verdict and marks make its form: the key of a row, in base 3
        keys = np.zeros(count, dtype=np.int64)
        for j in range(len(strategies)):
            keys = keys * 3 + code[j]
    else:
        worst = np.zeros(count, dtype=np.int8)
        means = [0.0] * count
        keys = np.zeros(count, dtype=np.int64)
    keys = keys * 3 + worst
    found, inverse = np.unique(keys, return_inverse=True)
    forms = []
    for key in found.tolist():
        verdict, key = _VERDICTS[key % 3], key // 3
        marks = []
        for _ in strategies:
            marks.append(f" {_MARKS[key % 3]} %.3f |")
            key //= 3
        forms.append(f"| %C | %C | {verdict} | %.3f |" + "".join(reversed(marks)))
    all_tags = report.sample_tags[:count]
    joined = {tags: ", ".join(tags) for tags in dict.fromkeys(all_tags)}
    names: list[object] = list(report.sample_names[:count])
    tags: list[object] = list(map(joined.__getitem__, all_tags))
    return Table(forms, inverse, [names, tags, means, *scores])
