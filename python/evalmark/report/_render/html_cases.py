"""The cases of the HTML report: failing cases first, each with its input, expected answer,
facts, context and actual output, and one row per check with its verdict, score and reason.

Each case is a ``<details>`` element (failing and errored ones open), readable with scripts
off; its ``data-tags`` and ``data-bad`` attributes (JSON arrays) are what the filter script
reads. Every text from the run is escaped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import repeat
from operator import add, is_not, itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from evalmark.report._render.common import html_text as _e
from evalmark.report._render.common import html_texts
from evalmark.report._render.fill import Filled, fill
from evalmark.report._render.html_checks import CheckCells, pre
from evalmark.report._render.html_inputs import CaseInput, input_of
from evalmark.report._values import output_text_of

if TYPE_CHECKING:
    from evalmark.report._model import Report
    from evalmark.results._results import EvaluationResult

__all__ = ["CaseRenderer", "case_order"]

_BADGE = {"pass": "pass", "fail": "FAIL", "error": "ERROR"}


def _attribute_json(values: Sequence[str]) -> str:
    return _e(json.dumps(list(values), ensure_ascii=False))


def case_order(report: Report) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int8]]:
    """The sample indices, errored cases first, then failing ones, then passing ones (each
    group in sample order), and each sample's verdict code (2 error, 1 fail, 0 pass)."""
    count = len(report)
    errored = np.zeros(count, dtype=np.bool_)
    bad = np.zeros(count, dtype=np.bool_)
    for name in report.strategies:
        column = report.column(name)
        errored |= column.errored
        bad |= ~column.passed | column.errored
    code = np.where(errored, 2, np.where(bad, 1, 0)).astype(np.int8)
    order = np.concatenate(
        [np.flatnonzero(code == 2), np.flatnonzero(code == 1), np.flatnonzero(code == 0)]
    ).astype(np.int64)
    return order, code


def _items(values: Sequence[str], tag: str = "ul") -> str:
    if len(values) == 1:
        return pre(values[0])
    rows = "".join(f"<li><pre>{_e(v)}</pre></li>" for v in values)
    return f'<{tag} class="items">{rows}</{tag}>'


def _inputs(found: CaseInput | None, output: str) -> str:
    """The case's inputs and its output (``output``: already HTML)."""
    parts = ['<dl class="io">']
    if found is not None:
        if found.question is not None:
            parts.append(f"<dt>Input</dt><dd>{pre(found.question)}</dd>")
        if found.expected:
            parts.append(f"<dt>Expected</dt><dd>{_items(found.expected)}</dd>")
        if found.facts:
            parts.append(f"<dt>Expected facts</dt><dd>{_items(found.facts)}</dd>")
        if found.context:
            parts.append(f"<dt>Context</dt><dd>{_items(found.context, 'ol')}</dd>")
        if found.retrieved:
            parts.append(f"<dt>Retrieved</dt><dd>{_items(found.retrieved, 'ol')}</dd>")
    parts.append(f"<dt>Actual output</dt><dd>{output}</dd></dl>")
    return "".join(parts)


def _raised(results: Sequence[EvaluationResult]) -> str | None:
    """The application's error when every check carries it (the function under test raised)."""
    errors = [r.error for r in results]
    first = errors[0] if errors else None
    if first is None or any(e is None or e.kind != "function" for e in errors):
        return None
    return f"{first.type}: {first.message}"


class CaseRenderer:
    """Renders the cases of one report; escaped names and attributes are computed once."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.columns = [(name, _e(name), report.column(name)) for name in report.strategies]
        # the opening cells of a check's row, per strategy and verdict
        self._row_heads = {
            (label, mark): f'<tr class="check {mark}" data-strategy="{label}"><td>{label}</td>'
            f'<td class="v">{_BADGE[mark]}</td><td class="n">'
            for _, label, _ in self.columns
            for mark in _BADGE
        }
        self._tags: dict[tuple[str, ...], tuple[str, str]] = {}
        self._bad: dict[tuple[str, ...], tuple[str, str]] = {}

    def _tag_parts(self, tags: tuple[str, ...]) -> tuple[str, str]:
        found = self._tags.get(tags)
        if found is None:
            spans = "".join(f'<span class="tag">{_e(t)}</span>' for t in tags)
            found = self._tags[tags] = (_attribute_json(tags), spans)
        return found

    def _bad_parts(self, bad: tuple[str, ...]) -> tuple[str, str]:
        found = self._bad.get(bad)
        if found is None:
            note = f' <span class="case-score">not passed: {_e(", ".join(bad))}</span>'
            found = self._bad[bad] = (_attribute_json(bad), note if bad else "")
        return found

    def render(self, index: int, verdict: str, sample: Any | None, anchor: str) -> str:
        """The ``<details>`` element of sample ``index`` (``verdict``: pass, fail or error;
        ``sample`` the sample or test case it was made from, if known)."""
        return self.render_many([index], [verdict], [sample], [anchor])[0]

    def render_many(
        self,
        indices: Sequence[int],
        verdicts: Sequence[str],
        samples: Sequence[Any | None],
        anchors: Sequence[str],
    ) -> list[str]:
        """:meth:`render` of each case, read a column at a time: the texts of all the cases
        are escaped together, and a check's result object is built only for a row that holds
        more than a score, a verdict and an explanation (an error, metadata)."""
        report = self.report
        count = len(indices)
        names = html_texts([report.sample_names[i] for i in indices])
        outputs = [report.output(i) for i in indices]
        escaped = html_texts([o for o in outputs if o is not None])
        shown_outputs = iter(f"<pre>{text}</pre>" for text in escaped)
        output_html = [_NO_OUTPUT if o is None else next(shown_outputs) for o in outputs]
        checks = [CheckCells(column, label, indices, verdicts) for _, label, column in self.columns]
        bad_names: list[list[str]] = [[] for _ in range(count)]
        for (name, _, _), check in zip(self.columns, checks, strict=True):
            for k in check.bad:
                bad_names[k].append(name)
        totals = [0.0] * count
        for check in checks:
            totals = [t + s for t, s in zip(totals, check.scores, strict=True)]
        heads = self._row_heads
        # every check's table row of every case, for cases where the application did not raise
        rows = (
            [
                "".join(cells)
                for cells in zip(*(check.rows(heads, indices) for check in checks), strict=True)
            ]
            if checks
            else [""] * count
        )
        marks = [check.marks for check in checks]
        score_texts = [check.score_texts for check in checks]
        blocks = []
        for k, index in enumerate(indices):
            verdict = verdicts[k]
            tags_json, tag_spans = self._tag_parts(report.sample_tags[index])
            bad_json, bad_note = self._bad_parts(tuple(bad_names[k]))
            mean = totals[k] / len(checks) if checks else 0.0
            sample = samples[k]
            found = input_of(sample) if sample is not None else None
            head = (
                f'<details class="case {verdict}" id="{anchors[k]}" data-tags="{tags_json}" '
                f'data-bad="{bad_json}"{" open" if verdict != "pass" else ""}>'
                f'<summary><span class="badge {verdict}">{_BADGE[verdict]}</span>'
                f"{names[k]}{tag_spans}"
                f'<span class="case-score">score {mean:.2f}</span>{bad_note}</summary>'
                f"{_inputs(found, output_html[k])}"
            )
            raised = None
            if verdict == "error":
                raised = _raised([c.column[index] for c in checks])
            if raised is None:
                blocks.append(f"{head}{_CHECKS_HEAD}{rows[k]}</table></details>")
                continue
            parts = [head, f'<p class="error v">The application raised {_e(raised)}</p>']
            parts.append(_CHECKS_HEAD)
            for j, check in enumerate(checks):
                mark, score = marks[j][k], score_texts[j][k]
                parts.append(
                    f'{heads[check.label, mark]}{score}</td><td class="reason">'
                    "<em>see the application's error above</em></td></tr>"
                )
            parts.append("</table></details>")
            blocks.append("".join(parts))
        return blocks

    def render_text(
        self,
        indices: Sequence[int],
        verdicts: Sequence[str],
        samples: Sequence[Any | None],
        anchors: Sequence[str],
        around: tuple[str, str] = ("", ""),
    ) -> str:
        """The text of :meth:`render_filled`."""
        return self.render_filled(indices, verdicts, samples, anchors, around).text

    def render_filled(
        self,
        indices: Sequence[int],
        verdicts: Sequence[str],
        samples: Sequence[Any | None],
        anchors: Sequence[str],
        around: tuple[str, str] = ("", ""),
    ) -> Filled:
        """``"\\n".join(self.render_many(...))``, written by one call of
        :func:`~evalmark.report._render.fill.fill`: each case takes the form of its shape
        (verdict, output or none, each check's mark and reason kind) with the same slots, so
        the slots are filled a column at a time, texts escaped as they are written; a case with
        its inputs shown or
        whose application raised is written by :meth:`render_many` into the first slot.
        ``around``: texts written before and after the cases in the same call (a page is then
        written once, not copied into a larger one)."""
        count = len(indices)
        before, after = around
        if not count:
            return Filled(before + after, False)
        report = self.report
        names: list[object] = list(map(report.sample_names.__getitem__, indices))
        outputs = _outputs(report, indices)
        output_texts: list[object] = ["" if o is None else o for o in outputs]
        rows = np.asarray(indices, dtype=np.int64)  # made once for every check
        checks = [
            CheckCells(column, label, indices, verdicts, raw=True, rows=rows)
            for _, label, column in self.columns
        ]
        # the checks a case did not pass, as a bit mask: one note per distinct set
        masks = np.zeros(count, dtype=np.int64)
        for j, check in enumerate(checks):
            masks |= (check.codes != 0).astype(np.int64) << j
        notes = {
            mask: self._bad_parts(
                tuple(name for j, (name, _, _) in enumerate(self.columns) if mask >> j & 1)
            )
            for mask in np.unique(masks).tolist()
        }
        bad = list(map(notes.__getitem__, masks.tolist()))
        totals = [0.0] * count
        for check in checks:
            totals = list(map(add, totals, check.scores))
        means = [t / len(checks) for t in totals] if checks else totals
        all_tags = list(map(report.sample_tags.__getitem__, indices))
        parts = {tags: self._tag_parts(tags) for tags in set(all_tags)}
        tags = list(map(parts.__getitem__, all_tags))
        # a case's shape: its verdict, whether it has an output, each check's mark (base 3)
        verdict_codes = np.fromiter(map(_CODES.__getitem__, verdicts), np.int64, count)
        given = np.fromiter(map(is_not, outputs, repeat(None)), np.bool_, count)
        keys = verdict_codes * 2 + given
        for check in checks:
            mode = check.templated.astype(np.int64) + 2 * check.raw_rows
            keys = keys * 9 + np.asarray(check.codes, dtype=np.int64) * 3 + mode
        whole = (
            [
                k
                for k in range(count)
                if samples[k] is not None
                or (verdicts[k] == "error" and _raised([c.column[indices[k]] for c in checks]))
            ]
            if "error" in verdicts or any(s is not None for s in samples)
            else []
        )
        firsts: list[str] = list(anchors)
        if whole:
            blocks = self.render_many(
                [indices[k] for k in whole],
                [verdicts[k] for k in whole],
                [samples[k] for k in whole],
                [anchors[k] for k in whole],
            )
            for k, block in zip(whole, blocks, strict=True):
                firsts[k] = block
            keys[whole] = -1
        found, inverse = np.unique(keys, return_inverse=True)
        forms = [self._form(key, checks) for key in found.tolist()]
        columns: list[list[Any]] = [
            firsts,
            list(map(itemgetter(0), tags)),
            list(map(itemgetter(0), bad)),
            names,
            list(map(itemgetter(1), tags)),
            means,
            list(map(itemgetter(1), bad)),
            output_texts,
        ]
        for check in checks:
            columns += [list(check.scores), check.slots(indices)]
        return fill(forms, inverse.tolist(), columns, before, after)

    def _form(self, key: int, checks: Sequence[CheckCells]) -> str:
        """The ``%`` form of a case of shape ``key`` (-1: a case written whole, in the first
        slot); every form has the same slots, an unused one taken by ``%.0s``."""
        slots = 8 + 2 * len(checks)
        if key < 0:
            return "%s" + "%.0s" * (slots - 1)
        marks = []
        for (_, label, _), check in zip(reversed(self.columns), reversed(checks), strict=True):
            mode, mark = key % 3, _MARKS[key // 3 % 3]
            key //= 9
            score = "—%.0s" if mark == "error" else "%.2f"
            head = self._row_heads[label, mark].replace("%", "%%")
            reason = "<pre>%H</pre>" if mode == 2 else "%s"
            if mode == 1 and check.around is not None:
                before, tails = check.around
                after = tails[mark == "pass"]
                reason = f"<pre>{before.replace('%', '%%')}%.3f{after.replace('%', '%%')}</pre>"
            marks.append(f'{head}{score}</td><td class="reason">{reason}</td></tr>')
        output = "<pre>%H</pre>" if key % 2 else "%.0s" + _NO_OUTPUT
        verdict = _VERDICTS[key // 2]
        return (
            f'<details class="case {verdict}" id="%s" data-tags="%s" data-bad="%s"'
            f'{" open" if verdict != "pass" else ""}><summary><span class="badge {verdict}">'
            f"{_BADGE[verdict]}</span>%H%s"
            '<span class="case-score">score %.2f</span>%s</summary>'
            f'<dl class="io"><dt>Actual output</dt><dd>{output}</dd></dl>{_CHECKS_HEAD}'
            + "".join(reversed(marks))
            + "</table></details>"
        )


def _outputs(report: Report, indices: Sequence[int]) -> list[str | None]:
    """``report.output(i)`` of each index, read in one pass when the outputs are texts."""
    stored = report._outputs
    if stored is None:
        return [None] * len(indices)
    picked = list(map(stored.__getitem__, indices))
    if set(map(type, picked)) <= {str, type(None)}:
        return picked
    return list(map(output_text_of, picked))


_NO_OUTPUT = "<em>no output (the application raised)</em>"
_VERDICTS = ("pass", "fail", "error")
_CODES = {"pass": 0, "fail": 1, "error": 2}
_MARKS = _VERDICTS


_CHECKS_HEAD = (
    '<table class="checks"><tr><th>Check</th><th>Verdict</th><th>Score</th><th>Reason</th></tr>'
)
