"""``render_report(suite, "json")`` writes each report with the column writer: the bytes of
``dumps`` of the whole suite document."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_report_json_fast import guardrail_report, plain_report, rich_report, scored_report

from evalmark.report import Report, SuiteReport, render_report
from evalmark.report._document import dumps
from evalmark.report._render.json import render_with_reports


def _renamed(factory: Callable[[], Report], name: str) -> Callable[[], Report]:
    def make() -> Report:
        return factory().with_name(name)

    return make


SUITES: list[list[Callable[[], Report]]] = [
    [],
    [scored_report],
    [rich_report],
    [
        _renamed(scored_report, "a"),
        _renamed(guardrail_report, "b 東京"),
        _renamed(lambda: plain_report(0, 0), "c"),
        _renamed(lambda: plain_report(30, 2, outputs=False), 'd"q'),
    ],
]


@pytest.mark.parametrize("factories", SUITES)
def test_suite_json_is_the_reference_bytes(factories: list[Callable[[], Report]]) -> None:
    expected = dumps(SuiteReport([make() for make in factories], name="s ü").to_dict())
    suite = SuiteReport([make() for make in factories], name="s ü")
    assert render_report(suite, "json") == expected
    assert render_report(SuiteReport.from_json(expected), "json") == expected


@pytest.mark.parametrize("indent", [1, 2, 4, 0])
def test_every_indent(indent: int) -> None:
    head = {"format": "f", "name": "n"}
    want = dumps(
        {**head, "reports": [_doc(r) for r in (scored_report(), rich_report())]}, indent or None
    )
    assert render_with_reports(head, [scored_report(), rich_report()], indent) == want


def _doc(report: Report) -> object:
    from evalmark.report._document import report_document

    return report_document(report)


def test_reports_the_writer_leaves_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """A report the column writer declines is written by the reference path, indented into
    the suite: still the same bytes."""
    import evalmark.report._render.json as json_render

    expected = dumps(SuiteReport([rich_report(), guardrail_report()], name="r").to_dict())
    monkeypatch.setattr(json_render, "samples_template", lambda *args: None)
    assert (
        render_report(SuiteReport([rich_report(), guardrail_report()], name="r"), "json")
        == expected
    )
