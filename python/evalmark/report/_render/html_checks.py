"""The check rows of the HTML report's cases: each row's verdict, score and reason, read a
column at a time (:class:`CheckCells`); a reason is the cleaned explanation, and for a check
that did not pass the raw text (and the judge's prompt) sits behind a ``<details>``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import compress, repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from evalmark.report._render.common import html_text as _e
from evalmark.report._render.common import html_texts
from evalmark.report._render.html_inputs import judge_reason

if TYPE_CHECKING:
    from evalmark.results._results import EvaluationResult

__all__ = ["CheckCells", "pre", "reason"]

_NO_REASON = "<em>no reason given</em>"


def pre(text: str) -> str:
    """``text`` escaped in a ``<pre>``."""
    return f"<pre>{_e(text)}</pre>"


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


def reason(result: EvaluationResult) -> str:
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
    shown = pre(reason) if reason else "<em>no reason given</em>"
    if result.passed and error is None:
        return shown
    extra = []
    if raw and raw.strip() != reason:
        extra.append(f"<p>The full reply:</p>{pre(raw)}")
    prompt = _prompt_text(result.metadata)
    if prompt is not None:
        extra.append(f"<p>The judge's prompt:</p>{pre(prompt)}")
    if extra:
        shown += '<details class="raw"><summary>raw text</summary>' + "".join(extra) + "</details>"
    return shown


class CheckCells:
    """One check's cells for a list of cases: marks, score texts, and the reason of each row
    that holds no more than an explanation, its texts escaped together; other rows (errors,
    metadata, lazily built rows) go through :func:`reason` on the full result."""

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
        self.codes = np.where(column.errored[rows], 2, np.where(column.passed[rows], 0, 1))
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

    def reason_cells(self, indices: Sequence[int]) -> list[str]:
        """The reason cell of this check's row of each case."""
        plain, column = self.plain, self.column
        return [
            plain[k] if k in plain else reason(column[index]) for k, index in enumerate(indices)
        ]

    def rows(self, heads: Mapping[tuple[str, str], str], indices: Sequence[int]) -> list[str]:
        """This check's table row of each case (``heads``: a row's opening cells by check and
        verdict)."""
        plain, column, label = self.plain, self.column, self.label
        return [
            f'{heads[label, mark]}{score}</td><td class="reason">'
            f"{plain[k] if k in plain else reason(column[index])}</td></tr>"
            for k, (index, mark, score) in enumerate(
                zip(indices, self.marks, self.score_texts, strict=True)
            )
        ]
