"""Properties of ``evalmark report`` for generated reports: rendering a JSON report as JSON gives
its bytes back and every other format renders; a report compared with itself never fails
``--max-drop``; a run that only improves on its baseline passes ``--max-drop 0`` and one that
turns a pass into a fail with a lower score fails it."""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult
from evalmark.cli import main
from evalmark.report import Report, write_report
from evalmark.results._results import ResultColumn

NAME = st.text(st.characters(exclude_categories=("Cs", "Cc")), min_size=1, max_size=8)
# a case's verdict and score for one check: (passed, score)
VERDICT = st.tuples(st.booleans(), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]))


@st.composite
def grids(draw: st.DrawFn) -> tuple[list[str], list[str], list[list[tuple[bool, float]]]]:
    """Case names, check names and a verdict for every (check, case)."""
    cases = draw(st.lists(NAME, min_size=1, max_size=6, unique=True))
    checks = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
    cells = [[draw(VERDICT) for _ in cases] for _ in checks]
    return cases, checks, cells


def build(
    cases: list[str], checks: list[str], cells: list[list[tuple[bool, float]]], name: str = "r"
) -> Report:
    """A report of these verdicts."""
    columns = {
        check: ResultColumn.from_results(
            [EvaluationResult(passed, score, "", {}) for passed, score in column]
        )
        for check, column in zip(checks, cells, strict=True)
    }
    return Report(name=name, sample_names=cases, sample_tags=[() for _ in cases], columns=columns)


def run(argv: list[str]) -> int:
    """``evalmark`` in-process with its output swallowed; the exit code."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


@settings(max_examples=examples(25))
@given(grids())
def test_rendering_json_as_json_gives_its_bytes_and_every_format_renders(
    grid: tuple[list[str], list[str], list[list[tuple[bool, float]]]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        source = write_report(build(*grid), Path(folder) / "r.json")
        for fmt in ("json", "markdown", "html", "junit"):
            out = Path(folder) / f"out-{fmt}"
            assert run(["report", "render", str(source), "--format", fmt, "-o", str(out)]) == 0
            assert out.stat().st_size > 0
        assert (Path(folder) / "out-json").read_bytes() == source.read_bytes()


@settings(max_examples=examples(25))
@given(grids(), st.sampled_from(["0", "0.05", "1"]), st.data())
def test_only_improving_never_fails_max_drop_and_a_worse_case_fails_zero(
    grid: tuple[list[str], list[str], list[list[tuple[bool, float]]]],
    max_drop: str,
    data: st.DataObject,
) -> None:
    cases, checks, cells = grid
    better = [
        [
            (True, 1.0) if data.draw(st.booleans(), label="improve") else (passed, score)
            for passed, score in column
        ]
        for column in cells
    ]
    with tempfile.TemporaryDirectory() as folder:
        before = write_report(build(cases, checks, cells), Path(folder) / "a.json")
        after = write_report(build(cases, checks, better), Path(folder) / "b.json")
        assert run(["report", "diff", str(before), str(before), "--max-drop", max_drop]) == 0
        assert run(["report", "diff", str(before), str(after), "--max-drop", max_drop]) == 0
        passing = [(i, j) for i, col in enumerate(cells) for j, (ok, _) in enumerate(col) if ok]
        if passing:
            i, j = data.draw(st.sampled_from(passing), label="worsen")
            worse = [list(column) for column in cells]
            worse[i][j] = (False, 0.0)
            after = write_report(build(cases, checks, worse), Path(folder) / "c.json")
            assert run(["report", "diff", str(before), str(after), "--max-drop", "0"]) == 1
