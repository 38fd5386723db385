"""Properties of a registered report ``Formatter`` over generated extensions: they are kept
lower-cased with one leading dot, a file whose name ends with one (in any case) is written by
it, it renders what its function returns, and a function that returns anything but text is
refused naming the format."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult
from evalmark.report import Formatter, Report, register_formatter, unregister_formatter
from evalmark.report._formatters import formatter_for_path
from evalmark.results._results import ResultColumn

EXTENSION = st.from_regex(r"\.?[a-zA-Z]{1,6}", fullmatch=True).filter(
    lambda e: e.lower().lstrip(".") not in {"md", "markdown", "json", "html", "htm", "xml"}
)


def a_report(passed: int) -> Report:
    results = [EvaluationResult.passing(1.0)] * passed + [EvaluationResult.failing(0.0, "no")]
    return Report(
        name="r",
        sample_names=[f"s{i}" for i in range(len(results))],
        sample_tags=[()] * len(results),
        columns={"check": ResultColumn.from_results(results)},
    )


def count(report: Report, **options: object) -> str:
    return f"{report.passed} of {report.evaluations}{options.get('suffix', '')}"


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(EXTENSION, min_size=1, max_size=3), st.integers(0, 4))
def test_a_registered_formatter_owns_its_extensions_and_renders_its_text(
    extensions: list[str], passed: int
) -> None:
    name = "counts-under-test"
    formatter = register_formatter(name, count, extensions=extensions)
    try:
        assert isinstance(formatter, Formatter) and formatter.name == name
        assert formatter.extensions == tuple("." + e.lower().lstrip(".") for e in extensions)
        for extension in formatter.extensions:  # no other format ends with these
            assert formatter_for_path(Path("out" + extension.upper())) == formatter
        report = a_report(passed)
        assert formatter.render(report) == f"{passed} of {passed + 1}"
        assert formatter.render(report, suffix="!") == f"{passed} of {passed + 1}!"
    finally:
        unregister_formatter(name)


def test_a_formatter_that_returns_no_text_is_refused_naming_it() -> None:
    formatter = Formatter("bytes", (".bin",), lambda report: b"x")
    with pytest.raises(TypeError, match="'bytes' returned bytes"):
        formatter.render(a_report(1))
