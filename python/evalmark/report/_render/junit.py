"""The JUnit XML report format: one ``testcase`` per (sample, strategy), then one per gate
condition that applied (``classname`` ending in ``.gate``).

A failed evaluation is a ``<failure>``, an errored one an ``<error>``; the explanation is the
message. A failed gate condition is a ``<failure>`` stating the measured figure against the
requirement. CI systems (GitLab, Jenkins, GitHub actions that read JUnit) show them per case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from evalmark.report._render.judged import judged_junit
from evalmark.report._wording import gate_cells

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = ["render"]


def _clean(text: str) -> str:
    # XML 1.0 forbids most control characters even when escaped.
    return "".join(
        ch for ch in text if ch in "\t\n\r" or (ord(ch) >= 0x20 and ord(ch) not in (0xFFFE, 0xFFFF))
    )


def render(report: Report) -> str:
    """The JUnit XML document."""
    s = report.summary
    suite = _clean(report.name)
    skipped = len(report.skipped)
    tests = s.evaluations + skipped + len(report.gates)
    failures = s.failed + sum(not gate.passed for gate in report.gates)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites name={quoteattr(suite)} tests="{tests}" '
        f'failures="{failures}" errors="{s.errors}" skipped="{skipped}">',
        f'  <testsuite name={quoteattr(suite)} tests="{tests}" '
        f'failures="{failures}" errors="{s.errors}" skipped="{skipped}">',
        *judged_junit(report),
    ]
    for row in report.rows():
        for strategy, result in row.results.items():
            name = quoteattr(_clean(f"{row.name} [{strategy}]"))
            classname = quoteattr(_clean(f"{report.name}.{strategy}"))
            head = f"    <testcase name={name} classname={classname}"
            if result.passed and result.error is None:
                lines.append(head + "/>")
                continue
            tag = "error" if result.error is not None else "failure"
            kind = result.error.type if result.error is not None else "EvaluationFailure"
            message = _clean(result.explanation or result.verdict)
            body = escape(_clean(f"score {result.score:.3f}: {result.explanation}"))
            lines += [
                head + ">",
                f"      <{tag} message={quoteattr(message)} type={quoteattr(kind)}>{body}</{tag}>",
                "    </testcase>",
            ]
    for sample in report.skipped:
        lines += [
            f"    <testcase name={quoteattr(_clean(sample.name))} classname={quoteattr(suite)}>",
            f"      <skipped message={quoteattr(_clean(sample.error))}/>",
            "    </testcase>",
        ]
    for gate in report.gates:
        head = (
            f"    <testcase name={quoteattr(_clean(gate.label))} "
            f"classname={quoteattr(_clean(f'{report.name}.gate'))}"
        )
        if gate.passed:
            lines.append(head + "/>")
            continue
        measured = gate_cells(gate)[0]
        bound = (
            f"at most {gate.required:g}"
            if gate.unit == "count"
            else f"at least {gate.required * 100:g}%"
        )
        message = quoteattr(_clean(f"{gate.label}: {measured}, required {bound}"))
        lines += [
            head + ">",
            f'      <failure message={message} type="GateFailed">{escape(_clean(gate.detail))}'
            "</failure>",
            "    </testcase>",
        ]
    lines += ["  </testsuite>", "</testsuites>"]
    return "\n".join(lines) + "\n"
