"""The JUnit XML report format: one ``testcase`` per (sample, strategy).

A failed evaluation is a ``<failure>``, an errored one an ``<error>``; the explanation is the
message. CI systems (GitLab, Jenkins, GitHub actions that read JUnit) show them per case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

if TYPE_CHECKING:
    from evalmark.report.model import Report

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
    tests = s.evaluations + skipped
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites name={quoteattr(suite)} tests="{tests}" '
        f'failures="{s.failed}" errors="{s.errors}" skipped="{skipped}">',
        f'  <testsuite name={quoteattr(suite)} tests="{tests}" '
        f'failures="{s.failed}" errors="{s.errors}" skipped="{skipped}">',
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
    lines += ["  </testsuite>", "</testsuites>"]
    return "\n".join(lines) + "\n"
