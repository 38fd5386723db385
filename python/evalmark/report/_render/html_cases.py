"""The cases of the HTML report: failing cases first, each with its input, expected answer,
facts, context and actual output, and one row per check with its verdict, score and reason.

Each case is a ``<details>`` element (failing and errored ones open), readable with scripts
off; its ``data-tags`` and ``data-bad`` attributes (JSON arrays) are what the filter script
reads. Every text from the run is escaped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from itertools import compress, repeat
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from evalmark.report._render.common import html_text as _e
from evalmark.report._render.common import html_texts
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


def _inputs(found: CaseInput | None, output: str) -> str:
    """The case's inputs and its output (``output``: already HTML)."""
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
    parts.append(f"<dt>Actual output</dt><dd>{output}</dd></dl>")
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
        checks = [
            _CheckCells(column, label, indices, verdicts) for _, label, column in self.columns
        ]
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
            for check in checks:
                mark, score = check.marks[k], check.score_texts[k]
                parts.append(
                    f'{heads[check.label, mark]}{score}</td><td class="reason">'
                    "<em>see the application's error above</em></td></tr>"
                )
            parts.append("</table></details>")
            blocks.append("".join(parts))
        return blocks


_NO_OUTPUT = "<em>no output (the application raised)</em>"
_NO_REASON = "<em>no reason given</em>"


class _CheckCells:
    """One check's cells for a list of cases: marks, score texts, and the reason of each row
    that holds no more than an explanation, its texts escaped together; other rows (errors,
    metadata, lazily built rows) go through :func:`_reason` on the full result."""

    def __init__(
        self, column: Any, label: str, indices: Sequence[int], verdicts: Sequence[str]
    ) -> None:
        self.column, self.label = column, label
        rows = np.asarray(indices, dtype=np.int64)
        passed: list[bool] = column.passed[rows].tolist()
        errored: list[bool] = column.errored[rows].tolist()
        self.scores: list[float] = column.scores[rows].tolist()
        self.marks = [
            "error" if e else ("pass" if p else "fail")
            for p, e in zip(passed, errored, strict=True)
        ]
        self.score_texts = [
            "—" if e else f"{s:.2f}" for s, e in zip(self.scores, errored, strict=True)
        ]
        self.bad = [k for k, (p, e) in enumerate(zip(passed, errored, strict=True)) if e or not p]
        plain = [k for k in column.plain(indices) if verdicts[k] != "error"]
        raws = column.explanations([indices[k] for k in plain])
        # a judge's closing verdict ends with a colon's line: a text without one is its reason
        reasons = raws.copy()
        for at in compress(range(len(raws)), map(str.__contains__, raws, repeat(":"))):
            reasons[at] = judge_reason(raws[at])
        shown = [
            _NO_REASON if not reason else f"<pre>{text}</pre>"
            for reason, text in zip(reasons, html_texts(reasons), strict=True)
        ]
        # the raw text is shown (and escaped) only for a failed row whose reason was cut from it
        full = [
            at
            for at, (k, reason, raw) in enumerate(zip(plain, reasons, raws, strict=True))
            if raw and not passed[k] and raw.strip() != reason
        ]
        for at, text in zip(full, html_texts([raws[at] for at in full]), strict=True):
            shown[at] += (
                '<details class="raw"><summary>raw text</summary>'
                f"<p>The full reply:</p><pre>{text}</pre></details>"
            )
        self.plain: dict[int, str] = dict(zip(plain, shown, strict=True))

    def rows(self, heads: Mapping[tuple[str, str], str], indices: Sequence[int]) -> list[str]:
        """This check's table row of each case (``heads``: a row's opening cells by check and
        verdict)."""
        plain, column, label = self.plain, self.column, self.label
        return [
            f'{heads[label, mark]}{score}</td><td class="reason">'
            f"{plain[k] if k in plain else _reason(column[index])}</td></tr>"
            for k, (index, mark, score) in enumerate(
                zip(indices, self.marks, self.score_texts, strict=True)
            )
        ]


_CHECKS_HEAD = (
    '<table class="checks"><tr><th>Check</th><th>Verdict</th><th>Score</th><th>Reason</th></tr>'
)
