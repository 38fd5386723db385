"""The conversation sections of the Markdown and HTML reports: a table of the conversations,
their per-turn verdicts, and the transcript of every failing conversation with each failing
check shown at its turn.

They read the report's ``metadata["conversations"]`` (written by
:mod:`evalmark.conversation`); a report without it gets no section, so other reports render
exactly as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from evalmark.report.render.common import cell, markdown_table, number

if TYPE_CHECKING:
    from evalmark.report.model import Report

__all__ = ["html_section", "markdown_section", "records"]

_KEY = "conversations"
_TEXT_LIMIT = 4000
_SYMBOL = {"pass": "✅", "fail": "❌", "error": "⚠️"}


def records(report: Report) -> list[Mapping[str, Any]]:
    """The conversation records of ``report`` (empty for a report of single samples)."""
    found = report.metadata.get(_KEY)
    if not isinstance(found, Sequence) or isinstance(found, str):
        return []
    return [r for r in found if isinstance(r, Mapping)]


def _failing_checks(record: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    checks = record.get("checks") or {}
    return [(label, v) for label, v in checks.items() if v.get("verdict") != "pass"]


def _at(verdict: Mapping[str, Any]) -> str:
    turn = verdict.get("turn")
    return f" (turn {turn})" if isinstance(turn, int) else ""


def _turn_labels(items: Sequence[Mapping[str, Any]]) -> list[str]:
    labels: dict[str, None] = {}
    for record in items:
        for turn in record.get("turns") or ():
            labels.update(dict.fromkeys(turn.get("checks") or {}))
    return list(labels)


def _failures_at(record: Mapping[str, Any], number_: int) -> list[tuple[str, Mapping[str, Any]]]:
    return [(label, v) for label, v in _failing_checks(record) if v.get("turn") == number_]


# --------------------------------------------------------------------------- Markdown


def markdown_section(report: Report) -> list[str]:
    """The Markdown lines of the conversation sections (none for other reports)."""
    items = records(report)
    if not items:
        return []
    out = ["", "## Conversations", ""]
    out += markdown_table(
        ["Conversation", "Verdict", "Turns", "Stopped", "Failing checks"],
        [":--", ":--", "--:", ":--", ":--"],
        [
            [
                cell(r.get("id", "")),
                "pass" if r.get("passed") else "fail",
                str(len(r.get("turns") or ())),
                cell(r.get("why", "")),
                cell(", ".join(f"{k}{_at(v)}" for k, v in _failing_checks(r)) or "—"),
            ]
            for r in items
        ],
    )
    labels = _turn_labels(items)
    if labels:
        out += ["", "### Per turn", ""]
        rows = []
        for record in items:
            for turn in record.get("turns") or ():
                checks = turn.get("checks") or {}
                if not checks:
                    continue
                rows.append(
                    [
                        cell(record.get("id", "")),
                        str(turn.get("turn")),
                        *(
                            f"{_SYMBOL.get(checks[k]['verdict'], '')} {number(checks[k]['score'])}"
                            if k in checks
                            else "—"
                            for k in labels
                        ),
                    ]
                )
        out += markdown_table(
            ["Conversation", "Turn", *(cell(k) for k in labels)],
            [":--", "--:", *("--:" for _ in labels)],
            rows,
        )
    failing = [r for r in items if not r.get("passed")]
    if failing:
        out += ["", f"## Transcripts of failing conversations: {len(failing)}"]
    for record in failing:
        out += ["", f"### {cell(record.get('id', ''))}", "", f"Stopped: {cell(record.get('why'))}."]
        for turn in record.get("turns") or ():
            n = turn.get("turn")
            out += ["", f"**Turn {n}, user:** {cell(turn.get('user', ''), _TEXT_LIMIT)}", ""]
            out.append(f"**Assistant:** {cell(turn.get('assistant', ''), _TEXT_LIMIT)}")
            for call in turn.get("tool-calls") or ():
                out += ["", f"*Tool call:* `{cell(call.get('name', ''))}`"]
            for label, verdict in (turn.get("checks") or {}).items():
                if verdict.get("verdict") != "pass":
                    out += ["", f"> ❌ **{cell(label)}**: {cell(verdict.get('explanation', ''))}"]
            for label, verdict in _failures_at(record, n):
                out += ["", f"> ❌ **{cell(label)}**: {cell(verdict.get('explanation', ''))}"]
        error = record.get("error")
        if isinstance(error, Mapping):
            out += [
                "",
                f"> ⚠️ **the application raised at turn {error.get('turn')}**: "
                f"{cell(error.get('message', ''))}",
            ]
        located = [(k, v) for k, v in _failing_checks(record) if not isinstance(v.get("turn"), int)]
        for label, verdict in located:
            out += ["", f"> ❌ **{cell(label)}**: {cell(verdict.get('explanation', ''))}"]
    return out


# --------------------------------------------------------------------------- HTML


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _html_flag(label: str, verdict: Mapping[str, Any]) -> str:
    return (
        f'<p class="flag"><strong>{_e(label)}</strong> {_e(verdict.get("verdict"))}: '
        f"{_e(verdict.get('explanation', ''))}</p>"
    )


def html_section(report: Report) -> list[str]:
    """The HTML parts of the conversation sections (none for other reports)."""
    items = records(report)
    if not items:
        return []
    parts = [
        "<h2>Conversations</h2>",
        "<table><tr><th>Conversation</th><th>Verdict</th><th>Turns</th><th>Stopped</th>"
        "<th>Failing checks</th></tr>",
    ]
    for r in items:
        status = "pass" if r.get("passed") else "fail"
        failing = ", ".join(f"{k}{_at(v)}" for k, v in _failing_checks(r)) or "—"
        parts.append(
            f'<tr class="{status}"><td>{_e(r.get("id", ""))}</td><td class="v">{status}</td>'
            f'<td class="n">{len(r.get("turns") or ())}</td><td>{_e(r.get("why", ""))}</td>'
            f"<td>{_e(failing)}</td></tr>"
        )
    parts.append("</table>")
    labels = _turn_labels(items)
    if labels:
        head = "".join(f"<th>{_e(k)}</th>" for k in labels)
        parts += ["<h3>Per turn</h3>", f"<table><tr><th>Conversation</th><th>Turn</th>{head}</tr>"]
        for record in items:
            for turn in record.get("turns") or ():
                checks = turn.get("checks") or {}
                if not checks:
                    continue
                cells = "".join(
                    f'<td class="n">{_e(checks[k]["verdict"])} {number(checks[k]["score"])}</td>'
                    if k in checks
                    else "<td>—</td>"
                    for k in labels
                )
                parts.append(
                    f"<tr><td>{_e(record.get('id', ''))}</td>"
                    f'<td class="n">{_e(turn.get("turn"))}</td>{cells}</tr>'
                )
        parts.append("</table>")
    failing_records = [r for r in items if not r.get("passed")]
    if failing_records:
        parts.append(f"<h2>Transcripts of failing conversations: {len(failing_records)}</h2>")
    for record in failing_records:
        parts += [
            f"<h3>{_e(record.get('id', ''))}</h3>",
            f"<p>Stopped: {_e(record.get('why'))}.</p>",
        ]
        for turn in record.get("turns") or ():
            n = turn.get("turn")
            parts.append(
                f'<div class="turn"><p><strong>Turn {_e(n)}, user:</strong></p>'
                f"<pre>{_e(turn.get('user', ''))}</pre><p><strong>Assistant:</strong></p>"
                f"<pre>{_e(turn.get('assistant', ''))}</pre></div>"
            )
            for call in turn.get("tool-calls") or ():
                parts.append(f"<p>Tool call: <code>{_e(call.get('name', ''))}</code></p>")
            for label, verdict in (turn.get("checks") or {}).items():
                if verdict.get("verdict") != "pass":
                    parts.append(_html_flag(label, verdict))
            for label, verdict in _failures_at(record, n):
                parts.append(_html_flag(label, verdict))
        error = record.get("error")
        if isinstance(error, Mapping):
            parts.append(
                f'<p class="flag"><strong>the application raised at turn '
                f"{_e(error.get('turn'))}</strong>: {_e(error.get('message', ''))}</p>"
            )
        for label, verdict in _failing_checks(record):
            if not isinstance(verdict.get("turn"), int):
                parts.append(_html_flag(label, verdict))
    return parts
