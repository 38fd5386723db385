"""Properties of the data-file errors over generated problems: every kind of data-file error
says where each problem is (file, line, column, record) and what it is, counts them with the
ones left out, locates itself at its first problem, and reads back from its pickle."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import (
    CalibrationError,
    DataFileError,
    ImportFormatError,
    Problem,
    PromptFileError,
    ReportFormatError,
    SampleError,
    SuiteError,
    TestCaseError,
    TraceError,
)

TEXT = st.text(st.characters(exclude_categories=("Cs", "Cc")), min_size=1, max_size=12)
PROBLEMS = st.builds(
    Problem,
    TEXT,
    path=st.none() | st.sampled_from(["a.yaml", "data/b.jsonl", "名.csv"]),
    line=st.none() | st.integers(1, 10**6),
    column=st.none() | st.integers(1, 200),
    record=st.none() | TEXT,
)
KINDS = st.sampled_from(
    [
        DataFileError,
        CalibrationError,
        ImportFormatError,
        PromptFileError,
        ReportFormatError,
        SampleError,
        SuiteError,
        TestCaseError,
        TraceError,
    ]
)


def where(problem: Problem) -> str:
    """The oracle of a problem's place: file[:line[:column]], "<data>" for a line alone."""
    if problem.path is None and problem.line is None:
        return ""
    place = problem.path or "<data>"
    if problem.line is not None:
        place += f":{problem.line}"
        if problem.column is not None:
            place += f":{problem.column}"
    return place


@settings(max_examples=examples(150), deadline=None)
@given(KINDS, st.lists(PROBLEMS, min_size=1, max_size=5), st.integers(0, 3))
def test_a_data_file_error_names_every_problem_and_reads_back(
    kind: type[DataFileError], problems: list[Problem], more: int
) -> None:
    error = kind(problems, more=more)
    text = str(error)
    for problem in problems:
        assert problem.message in text and where(problem) in text
        if problem.record:
            assert problem.record in text
    lines = text.split("\n")
    if len(problems) == 1 and not more:
        assert lines == [str(problems[0])]
    else:
        assert lines[0] == f"{len(problems) + more} problems found:"
        assert lines[1 : len(problems) + 1] == [f"  {p}" for p in problems]
        assert (lines[-1] == f"  ... and {more} more") is bool(more)
    first = problems[0]
    assert (error.path, error.line, error.column, error.record) == (
        first.path,
        first.line,
        first.column,
        first.record,
    )
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is kind and str(back) == text and back.problems == error.problems
