"""The check rows of the HTML report's cases: each row's verdict, score and reason, read a
column at a time (:class:`CheckCells`); a reason is the cleaned explanation, and for a check
that did not pass the raw text (and the judge's prompt) sits behind a ``<details>``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import compress, repeat
from operator import ne
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

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


def _may_close(text: str) -> bool:
    """Whether ``text`` may hold a judge's closing verdict (see
    :func:`~evalmark.report._render.html_inputs.judge_reason`): it names a verdict or a grade
    (in any case; neither word has a letter whose case folds apart from ``str.lower``)."""
    low = text.lower()
    return "verd" in low or "grade" in low


class CheckCells:
    """One check's cells for a list of cases: marks, score texts, and the reason of each row
    that holds no more than an explanation, its texts escaped together; other rows (errors,
    metadata, lazily built rows) go through :func:`reason` on the full result."""

    def __init__(
        self,
        column: Any,
        label: str,
        indices: Sequence[int],
        verdicts: Sequence[str],
        *,
        raw: bool = False,
        rows: npt.NDArray[np.int64] | None = None,
    ) -> None:
        """``raw``: a reason shown as its escaped text in a ``<pre>`` is left unescaped, its
        row marked in ``raw_rows`` (for a form that escapes it as it writes it). ``rows``:
        ``indices`` as an array, when the caller has it (made once for every check)."""
        self.column, self.label = column, label
        if rows is None:
            rows = np.asarray(indices, dtype=np.int64)
        passed = column.passed[rows]
        self._errored: list[bool] = column.errored[rows].tolist()
        self.scores: list[float] = column.scores[rows].tolist()
        self.codes = np.where(column.errored[rows], 2, np.where(passed, 0, 1))
        self.bad: list[int] = np.flatnonzero(self.codes).tolist()
        count = len(indices)
        plain = column.plain(indices)
        raised = (
            {k for k, verdict in enumerate(verdicts) if verdict == "error"}
            if "error" in verdicts
            else None
        )
        if raised:
            plain = [k for k in plain if k not in raised]
        # a threshold text around the score is written by the row's form: no text per row
        self.around = _around(column)
        self.templated = np.zeros(count, dtype=np.bool_)
        if self.around is not None:
            self.templated[plain] = True
            plain = []
        every = len(plain) == count
        raws = column.explanations(indices if every else [indices[k] for k in plain], keep=False)
        # a judge's closing verdict ends with a colon's line: a text without one is its reason
        reasons = raws.copy()
        joined = "".join(raws)  # one scan of the texts: most columns hold no colon
        # ... after the word "verdict" or "grade": without either no text is cut
        if ":" in joined and _may_close(joined):
            for at in compress(range(len(raws)), map(str.__contains__, raws, repeat(":"))):
                reasons[at] = judge_reason(raws[at])
        # the raw text is shown (and escaped) only for a failed row whose reason was cut from it
        cut = compress(range(len(raws)), map(ne, map(str.strip, raws), reasons))
        plain_at = np.arange(count) if every else np.asarray(plain, dtype=np.int64)
        failing = ~passed[plain_at]
        full = [at for at in cut if failing[at]]
        self.raw_rows = np.zeros(count, dtype=np.bool_)
        if raw:
            # a reason is written escaped by the form; a row with the raw text too is made here
            shown: list[str] = [text or _NO_REASON for text in reasons]
            flags = np.fromiter(map(bool, reasons), np.bool_, len(reasons))
            flags[full] = False
            self.raw_rows[plain_at] = flags
            for at in full:
                shown[at] = f"<pre>{_e(reasons[at])}</pre>" if reasons[at] else _NO_REASON
        else:
            shown = [_NO_REASON] * len(reasons)
            given = list(compress(range(len(reasons)), reasons))
            for at, text in zip(given, html_texts([reasons[at] for at in given]), strict=True):
                shown[at] = f"<pre>{text}</pre>"
        for at, text in zip(full, html_texts([raws[at] for at in full]), strict=True):
            shown[at] += (
                '<details class="raw"><summary>raw text</summary>'
                f"<p>The full reply:</p><pre>{text}</pre></details>"
            )
        if every:
            self._cells: list[str | None] = shown  # type: ignore[assignment]
        else:
            self._cells = [None] * count
            for k, cell in zip(plain, shown, strict=True):
                self._cells[k] = cell

    def slots(self, indices: Sequence[int]) -> list[object]:
        """The reason slot of this check's row of each case: the reason cell, or the score
        for a row whose form writes the threshold text around it."""
        return self._filled(indices, written=False)

    def reason_cells(self, indices: Sequence[int]) -> list[str]:
        """The reason cell of this check's row of each case."""
        cells: list[str] = self._filled(indices, written=True)  # type: ignore[assignment]
        return cells

    def _filled(self, indices: Sequence[int], *, written: bool) -> list[object]:
        """The cells, a row read whole where none was made; a threshold text written out
        (``written``) or left to the form (its score)."""
        cells = self._cells
        if None not in cells:
            return cells  # type: ignore[return-value]
        if not written and self.around is not None and self.templated.all():
            return list(self.scores)  # every row's form writes the text around its score
        found = np.array(cells, dtype=object)
        if self.around is not None:
            at = np.flatnonzero(self.templated)
            scores = np.array(self.scores, dtype=object)[at]
            if written:
                head, tails = self.around
                ok = (self.codes[at] == 0).tolist()
                scores = np.array(
                    [
                        f"<pre>{head}{score:.3f}{tails[good]}</pre>"
                        for score, good in zip(scores.tolist(), ok, strict=True)
                    ],
                    dtype=object,
                )
            found[at] = scores
        filled: list[object] = found.tolist()
        for k in [k for k, cell in enumerate(filled) if cell is None]:
            filled[k] = reason(self.column[indices[k]])
        return filled

    @property
    def marks(self) -> list[str]:
        """Each row's verdict: pass, fail or error."""
        return [_MARKS[c] for c in self.codes.tolist()]

    @property
    def score_texts(self) -> list[str]:
        """Each row's score with two decimals (a dash for an error)."""
        return ["—" if e else f"{s:.2f}" for s, e in zip(self.scores, self._errored, strict=True)]

    def rows(self, heads: Mapping[tuple[str, str], str], indices: Sequence[int]) -> list[str]:
        """This check's table row of each case (``heads``: a row's opening cells by check and
        verdict)."""
        label = self.label
        return [
            f'{heads[label, mark]}{score}</td><td class="reason">{cell}</td></tr>'
            for mark, score, cell in zip(
                self.marks, self.score_texts, self.reason_cells(indices), strict=True
            )
        ]


_MARKS = ("pass", "fail", "error")


def _around(column: Any) -> tuple[str, tuple[str, str]] | None:
    """The escaped text before a threshold explanation's score and after it (by verdict:
    failed, passed) when a row's reason cell can be written around its score: the text is its
    own reason (no colon for a closing verdict) and has no space at either end (no raw text
    shown beside it), and escaping it whole is escaping its parts (true of ``html_text``,
    which maps each character alone; the score's digits are left as they are)."""
    parts = column.explanation_parts()
    if parts is None:
        return None
    head, tails = parts
    if ":" in head or any(":" in tail for tail in tails) or head[:1].isspace():
        return None
    if any(tail[-1:].isspace() for tail in tails):
        return None
    return _e(head), (_e(tails[0]), _e(tails[1]))
