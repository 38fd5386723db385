"""The conversation sections of the Markdown and HTML reports: a table of the conversations,
their per-turn verdicts, and the transcript of every failing conversation with each failing
check shown at its turn.

They read the report's ``metadata["conversations"]`` (written by
:mod:`evalmark.conversation`); a report without it gets no section, so other reports render
exactly as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evalmark.report._render.common import cell, markdown_table, number
from evalmark.report._render.common import html_text as _e

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = [
    "failing_turns",
    "html_section",
    "markdown_section",
    "markdown_transcripts",
    "records",
]

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


def _failures_at(record: Mapping[str, Any], number_: object) -> list[tuple[str, Mapping[str, Any]]]:
    return [(label, v) for label, v in _failing_checks(record) if v.get("turn") == number_]


def _turn_failures(
    record: Mapping[str, Any], turn: Mapping[str, Any]
) -> list[tuple[str, Mapping[str, Any]]]:
    """The checks failing at ``turn``: its own per-turn checks that did not pass, then the
    whole-conversation checks located at it (a per-turn check's conversation-level summary,
    which names the same turn, is not repeated)."""
    checks = turn.get("checks") or {}
    own = [(k, v) for k, v in checks.items() if v.get("verdict") != "pass"]
    located = [(k, v) for k, v in _failures_at(record, turn.get("turn")) if k not in checks]
    return own + located


def _unlocated(record: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(k, v) for k, v in _failing_checks(record) if not isinstance(v.get("turn"), int)]


def failing_turns(report: Report) -> list[tuple[str, int | None, str, str]]:
    """Every failure of the report's conversations as ``(conversation, turn, check, reason)``,
    in conversation then turn order; turn None for a check no turn could be named for, and
    check ``application`` for an application that raised."""
    found: list[tuple[str, int | None, str, str]] = []
    for record in records(report):
        name = str(record.get("id", ""))
        for turn in record.get("turns") or ():
            number_ = turn.get("turn")
            at = number_ if isinstance(number_, int) else None
            for label, verdict in _turn_failures(record, turn):
                found.append((name, at, label, str(verdict.get("explanation", ""))))
        error = record.get("error")
        if isinstance(error, Mapping):
            turn = error.get("turn")
            at = turn if isinstance(turn, int) else None
            found.append((name, at, "application", str(error.get("message", ""))))
        for label, verdict in _unlocated(record):
            found.append((name, None, label, str(verdict.get("explanation", ""))))
    return found


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
    return out + markdown_transcripts(report)


def markdown_transcripts(report: Report, level: int = 2) -> list[str]:
    """The transcript of every failing conversation of ``report``, each failing check shown at
    its turn, under a heading of ``level`` (the conversations themselves one level deeper)."""
    failing = [r for r in records(report) if not r.get("passed")]
    if not failing:
        return []
    head = "#" * level
    out = ["", f"{head} Transcripts of failing conversations: {len(failing)}"]
    for record in failing:
        out += [
            "",
            f"{head}# {cell(record.get('id', ''))}",
            "",
            f"Stopped: {cell(record.get('why'))}.",
        ]
        for turn in record.get("turns") or ():
            n = turn.get("turn")
            out += ["", f"**Turn {n}, user:** {cell(turn.get('user', ''), _TEXT_LIMIT)}", ""]
            out.append(f"**Assistant:** {cell(turn.get('assistant', ''), _TEXT_LIMIT)}")
            for call in turn.get("tool-calls") or ():
                out += ["", f"*Tool call:* `{cell(call.get('name', ''))}`"]
            for label, verdict in _turn_failures(record, turn):
                out += ["", f"> ❌ **{cell(label)}**: {cell(verdict.get('explanation', ''))}"]
        error = record.get("error")
        if isinstance(error, Mapping):
            out += [
                "",
                f"> ⚠️ **the application raised at turn {error.get('turn')}**: "
                f"{cell(error.get('message', ''))}",
            ]
        for label, verdict in _unlocated(record):
            out += ["", f"> ❌ **{cell(label)}**: {cell(verdict.get('explanation', ''))}"]
    return out


# --------------------------------------------------------------------------- HTML


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
        '<section id="conversations"><h2>Conversations</h2>',
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
                    f'<td class="n {_e(checks[k]["verdict"])}">{_e(checks[k]["verdict"])} '
                    f"{number(checks[k]['score'])}</td>"
                    if k in checks
                    else "<td>—</td>"
                    for k in labels
                )
                parts.append(
                    f"<tr><td>{_e(record.get('id', ''))}</td>"
                    f'<td class="n">{_e(turn.get("turn"))}</td>{cells}</tr>'
                )
        parts.append("</table>")
    return [*parts, "</section>", *_html_transcripts(items)]


def _html_turn(record: Mapping[str, Any], turn: Mapping[str, Any]) -> str:
    """One turn of a transcript: the user's message, the assistant's, its tool calls, and the
    checks failing there; a turn with a failing check (or the application's error) is marked
    ``failing``."""
    n = turn.get("turn")
    flags = [_html_flag(label, verdict) for label, verdict in _turn_failures(record, turn)]
    error = record.get("error")
    if isinstance(error, Mapping) and error.get("turn") == n:
        flags.append(
            f'<p class="flag"><strong>the application raised at turn '
            f"{_e(error.get('turn'))}</strong>: {_e(error.get('message', ''))}</p>"
        )
    state = " failing" if flags else ""
    mark = '<span class="turn-mark">failing turn</span>' if flags else ""
    calls = "".join(
        f'<p class="tool">Tool call: <code>{_e(call.get("name", ""))}</code></p>'
        for call in turn.get("tool-calls") or ()
    )
    return (
        f'<div class="turn{state}"><p class="who">Turn {_e(n)}, user:{mark}</p>'
        f'<div class="msg user"><pre>{_e(turn.get("user", ""))}</pre></div>'
        '<p class="who assistant">Assistant:</p>'
        f'<div class="msg assistant"><pre>{_e(turn.get("assistant", ""))}</pre></div>'
        f"{calls}{''.join(flags)}</div>"
    )


def _html_transcripts(items: Sequence[Mapping[str, Any]]) -> list[str]:
    failing = [r for r in items if not r.get("passed")]
    if not failing:
        return []
    parts = [
        '<section id="transcripts">',
        f"<h2>Transcripts of failing conversations: {len(failing)}</h2>",
    ]
    for record in failing:
        parts += [
            f'<div class="transcript"><h3>{_e(record.get("id", ""))}</h3>',
            f"<p>Stopped: {_e(record.get('why'))}.</p>",
        ]
        turns = record.get("turns") or ()
        parts += [_html_turn(record, turn) for turn in turns]
        error = record.get("error")
        shown = {turn.get("turn") for turn in turns}
        if isinstance(error, Mapping) and error.get("turn") not in shown:
            parts.append(
                f'<p class="flag"><strong>the application raised at turn '
                f"{_e(error.get('turn'))}</strong>: {_e(error.get('message', ''))}</p>"
            )
        parts += [_html_flag(label, verdict) for label, verdict in _unlocated(record)]
        parts.append("</div>")
    parts.append("</section>")
    return parts
