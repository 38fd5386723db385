"""The two long tables of the Markdown report, built from the report's columns: the failing
checks and the samples. They give the lines the row-by-row form gives (a ``SampleRow`` per
case, a ``cell`` per text) without building a row object per sample: verdicts and scores come
from the columns' arrays, explanations only for the checks shown, and every text of a table is
escaped in one pass (:func:`~evalmark.report._render.common.cells`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from evalmark.report._render.common import cells

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


def failure_lines(report: Report, max_rows: int | None) -> tuple[list[str], int, int]:
    """The table lines of the first ``max_rows`` failing checks (all when None), in sample
    order then strategy order; the number of failing checks and of cases with one."""
    names = report.strategies
    if not names or not len(report):
        return [], 0, 0
    failed = np.stack([~report.column(n).passed for n in names])  # (strategies, samples)
    errored = np.stack([report.column(n).errored for n in names])
    cases = int(np.count_nonzero((failed | errored).any(axis=0)))
    rows, checks = np.nonzero(failed.T)
    total = len(rows)
    if max_rows is not None:
        rows, checks = rows[:max_rows], checks[:max_rows]
    rows_list: list[int] = rows.tolist()
    checks_list: list[int] = checks.tolist()
    explanations = [""] * len(rows_list)
    for j, name in enumerate(names):
        at = np.flatnonzero(checks == j)
        if len(at):
            found = report.column(name).explanations(rows[at].tolist())
            for k, text in zip(at.tolist(), found, strict=True):
                explanations[k] = text
    scores = np.stack([report.column(n).scores for n in names])[checks, rows]
    score_cells = [f"{score:.3f}" for score in scores.tolist()]
    verdicts = [_VERDICTS[2 if e else 1] for e in errored[checks, rows].tolist()]
    sample_names = report.sample_names
    texts = cells(
        [sample_names[i] for i in rows_list] + list(names) + [text or "—" for text in explanations]
    )
    shown = len(rows_list)
    name_cells, strategy_cells = texts[:shown], texts[shown : shown + len(names)]
    reason_cells = texts[shown + len(names) :]
    lines = [
        f"| {sample} | {strategy_cells[j]} | {verdict} | {score} | {reason} |"
        for sample, j, verdict, score, reason in zip(
            name_cells, checks_list, verdicts, score_cells, reason_cells, strict=True
        )
    ]
    return lines, total, cases


def sample_lines(report: Report, count: int) -> list[str]:
    """The table lines of the first ``count`` samples: name, tags, verdict, mean score and a
    mark per check."""
    names = report.strategies
    code = _codes(report)[:, :count]
    scores: list[list[float]] = [report.column(n).scores[:count].tolist() for n in names]
    if names:
        worst = code.max(axis=0)
        means = [math.fsum(values) / len(names) for values in zip(*scores, strict=True)]
    else:
        worst = np.zeros(count, dtype=np.int8)
        means = [0.0] * count
    tag_cells: dict[tuple[str, ...], str] = {}
    all_tags = report.sample_tags[:count]
    for tags in set(all_tags):
        tag_cells[tags] = ""
    keys = list(tag_cells)
    for tags, text in zip(keys, cells([", ".join(t) for t in keys]), strict=True):
        tag_cells[tags] = text
    marks = [
        [f"{_MARKS[v]} {s:.3f}" for v, s in zip(code[j].tolist(), scores[j], strict=True)]
        for j in range(len(names))
    ]
    columns = zip(
        cells(report.sample_names[:count]),
        [tag_cells[t] for t in all_tags],
        [_VERDICTS[v] for v in worst.tolist()],
        [f"{m:.3f}" for m in means],
        *marks,
        strict=True,
    )
    return ["| " + " | ".join(parts) + " |" for parts in columns]
