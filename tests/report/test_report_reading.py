"""Reading JSON reports back: any bytes and any nesting give a report or a typed
``ReportFormatError`` naming the file and the place, never another exception; the command line
says so in one line and exits 2."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmark.cli import main
from evalmark.errors import ReportFormatError
from evalmark.report import Report, SuiteReport, render_report, write_report
from evalmark.results._results import EvaluationResult, ResultColumn


def small_report() -> Report:
    results = [EvaluationResult.passing(0.9), EvaluationResult.failing(0.2, "wrong")]
    return Report(
        name="small",
        sample_names=["a", "b"],
        sample_tags=[("x",), ()],
        columns={"check": ResultColumn.from_results(results)},
        outputs=["yes", "no"],
        metadata={"build": "healthy"},
    )


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_a_report_nested_too_deep_is_a_typed_error_naming_the_file(depth: int) -> None:
    with pytest.raises(ReportFormatError, match=r"^deep\.json: not a report: the JSON is nested"):
        Report.from_json(deep(depth), source="deep.json")
    document = json.loads(render_report(small_report(), "json"))
    node: Any = {}
    for _ in range(150):
        node = {"inner": node}
    document["metadata"] = {"nested": node}
    with pytest.raises(ReportFormatError, match=r"metadata: nested more than 100 levels"):
        Report.from_json(json.dumps(document), source="r.json")
    with pytest.raises(ReportFormatError, match="nested too deep"):
        SuiteReport.from_json(deep(depth), source="suite.json")


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda d: d.update(samples={}), "samples: expected an array, got an object"),
        (lambda d: d["samples"][1].update(name=None), "samples[1].name: expected a string"),
        (lambda d: d["samples"][0].update(tags="x"), "samples[0].tags: expected an array"),
        (lambda d: d["samples"][0]["results"].pop("check"), "no result for strategy 'check'"),
        (
            lambda d: d["samples"][0]["results"]["check"].update(score="high"),
            "samples[0].results.check:",
        ),
        (
            lambda d: d["samples"][0]["results"]["check"].pop("passed"),
            "samples[0].results.check: missing the key 'passed'",
        ),
        (lambda d: d["samples"][0].update(cost="lots"), "samples[0]: unreadable usage"),
        (lambda d: d.update(skipped=[{"name": 1}]), "skipped[0].name: expected a string"),
        (lambda d: d.update(version=2), "version 2 is not supported"),
    ],
)
def test_a_damaged_report_names_the_field(change: Any, fragment: str) -> None:
    document = json.loads(render_report(small_report(), "json"))
    change(document)
    with pytest.raises(ReportFormatError) as error:
        Report.from_json(json.dumps(document), source="damaged.json")
    assert str(error.value).startswith("damaged.json")
    assert fragment in str(error.value)


def test_malformed_json_names_the_line() -> None:
    text = render_report(small_report(), "json").replace('"verdict": "pass"', '"verdict": pass', 1)
    with pytest.raises(ReportFormatError, match=r"^bad\.json:\d+: not a JSON report") as error:
        Report.from_json(text, source="bad.json")
    assert error.value.line is not None and error.value.line > 1
    with pytest.raises(ReportFormatError, match="not a JSON report"):
        Report.from_json(b"\xff\xfe garbage")


def test_a_good_report_still_reads_back() -> None:
    report = small_report()
    assert render_report(Report.from_json(render_report(report, "json")), "json") == render_report(
        report, "json"
    )
    suite = SuiteReport([report])
    assert render_report(
        SuiteReport.from_json(render_report(suite, "json")), "json"
    ) == render_report(suite, "json")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_give_a_typed_error(data: bytes) -> None:
    for reader in (Report.from_json, SuiteReport.from_json):
        with contextlib.suppress(ReportFormatError):
            reader(data)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_json_in_place_of_any_field_gives_a_report_or_a_typed_error(data: Any) -> None:
    document = json.loads(render_report(small_report(), "json"))
    paths = [
        ("name",),
        ("metadata",),
        ("samples",),
        ("strategies",),
        ("skipped",),
        ("samples", 0),
        ("samples", 0, "name"),
        ("samples", 0, "tags"),
        ("samples", 0, "output"),
        ("samples", 0, "results"),
        ("samples", 0, "results", "check"),
        ("samples", 0, "results", "check", "score"),
        ("samples", 0, "results", "check", "error"),
        ("samples", 0, "results", "check", "metadata"),
        ("samples", 0, "tokens"),
        ("samples", 1, "latency_ms"),
    ]
    path = data.draw(st.sampled_from(paths))
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = data.draw(_json)
    text = json.dumps(document, allow_nan=False) if _finite(document) else None
    if text is None:
        return
    try:
        report = Report.from_json(text)
    except ReportFormatError:
        return
    render_report(report, "markdown")  # whatever reads back also renders


def _finite(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("action", ["render", "diff"])
def test_the_cli_says_which_file_and_exits_2(
    action: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    write_report(small_report(), good)
    bad = tmp_path / "deep.json"
    bad.write_text(deep(100_000), encoding="utf-8")
    args = (
        ["report", "render", str(bad)]
        if action == "render"
        else ["report", "diff", str(good), str(bad)]
    )
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    said = f"{bad}: not an evalmark JSON report or suite report (not a report: the JSON is nested"
    assert said in err


def test_a_suite_with_two_reports_of_one_name_names_the_file() -> None:
    document = json.loads(render_report(SuiteReport([small_report()]), "json"))
    document["reports"].append(document["reports"][0])
    with pytest.raises(ReportFormatError, match=r"^s\.json: reports: suite 'suite': report names"):
        SuiteReport.from_json(json.dumps(document), source="s.json")
