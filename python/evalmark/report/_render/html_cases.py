"""The cases of the HTML report: failing cases first, each with its input, expected answer,
facts, context and actual output, and one row per check with its verdict, score and reason.

Each case is a ``<details>`` element (failing and errored ones open), readable with scripts
off; its ``data-tags`` and ``data-bad`` attributes (JSON arrays) are what the filter script
reads. Every text from the run is escaped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from evalmark.report._render.common import html_text as _e
from evalmark.report._render.html_inputs import CaseInput, input_of, judge_reason

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


def _pre(text: str) -> str:
    return f"<pre>{_e(text)}</pre>"


def _items(values: Sequence[str], tag: str = "ul") -> str:
    if len(values) == 1:
        return _pre(values[0])
    rows = "".join(f"<li><pre>{_e(v)}</pre></li>" for v in values)
    return f'<{tag} class="items">{rows}</{tag}>'


def _inputs(found: CaseInput | None, output: str | None) -> str:
    parts = ['<dl class="io">']
    if found is not None:
        if found.question is not None:
            parts.append(f"<dt>Input</dt><dd>{_pre(found.question)}</dd>")
        if found.expected:
            parts.append(f"<dt>Expected</dt><dd>{_items(found.expected)}</dd>")
        if found.facts:
            parts.append(f"<dt>Expected facts</dt><dd>{_items(found.facts)}</dd>")
        if found.context:
            parts.append(f"<dt>Context</dt><dd>{_items(found.context, 'ol')}</dd>")
        if found.retrieved:
            parts.append(f"<dt>Retrieved</dt><dd>{_items(found.retrieved, 'ol')}</dd>")
    shown = "<em>no output (the application raised)</em>" if output is None else _pre(output)
    parts.append(f"<dt>Actual output</dt><dd>{shown}</dd></dl>")
    return "".join(parts)


def _prompt_text(metadata: Mapping[str, Any]) -> str | None:
    prompt = metadata.get("judge_prompt")
    if not isinstance(prompt, Sequence) or isinstance(prompt, str) or not prompt:
        return None
    lines = []
    for message in prompt:
        if isinstance(message, Mapping):
            lines.append(f"[{message.get('role', '?')}]\n{message.get('content', '')}")
        else:
            lines.append(str(message))
    return "\n\n".join(lines)


def _reason(result: EvaluationResult) -> str:
    """The reason cell: the cleaned reason; for a check that did not pass, the raw text (and
    the judge's prompt, when recorded) behind a ``<details>``."""
    error = result.error
    raw = result.explanation
    if error is not None:
        reason = f"{error.type}: {error.message}"
        if raw and raw != reason:
            reason = f"{raw}\n{reason}"
        raw = error.raw or ""
    else:
        reason = judge_reason(raw)
    shown = _pre(reason) if reason else "<em>no reason given</em>"
    if result.passed and error is None:
        return shown
    extra = []
    if raw and raw.strip() != reason:
        extra.append(f"<p>The full reply:</p>{_pre(raw)}")
    prompt = _prompt_text(result.metadata)
    if prompt is not None:
        extra.append(f"<p>The judge's prompt:</p>{_pre(prompt)}")
    if extra:
        shown += '<details class="raw"><summary>raw text</summary>' + "".join(extra) + "</details>"
    return shown


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
        report = self.report
        results = [(label, column[index]) for _, label, column in self.columns]
        bad = tuple(
            name
            for (name, _, _), (_, r) in zip(self.columns, results, strict=True)
            if not r.passed or r.error is not None
        )
        mean = sum(r.score for _, r in results) / len(results) if results else 0.0
        tags_json, tag_spans = self._tag_parts(report.sample_tags[index])
        bad_json, bad_note = self._bad_parts(bad)
        found = input_of(sample) if sample is not None else None
        parts = [
            f'<details class="case {verdict}" id="{anchor}" data-tags="{tags_json}" '
            f'data-bad="{bad_json}"{" open" if verdict != "pass" else ""}>'
            f'<summary><span class="badge {verdict}">{_BADGE[verdict]}</span>'
            f"{_e(report.sample_names[index])}{tag_spans}"
            f'<span class="case-score">score {mean:.2f}</span>{bad_note}</summary>',
            _inputs(found, report.output(index)),
        ]
        raised = _raised([r for _, r in results]) if verdict == "error" else None
        if raised is not None:
            parts.append(f'<p class="error v">The application raised {_e(raised)}</p>')
        parts.append(_CHECKS_HEAD)
        heads = self._row_heads
        for label, result in results:
            if result.error is not None:
                mark, score = "error", "—"
            else:
                mark, score = ("pass" if result.passed else "fail"), f"{result.score:.2f}"
            reason = "<em>see the application's error above</em>" if raised else _reason(result)
            parts.append(f'{heads[label, mark]}{score}</td><td class="reason">{reason}</td></tr>')
        parts.append("</table></details>")
        return "".join(parts)


_CHECKS_HEAD = (
    '<table class="checks"><tr><th>Check</th><th>Verdict</th><th>Score</th><th>Reason</th></tr>'
)
