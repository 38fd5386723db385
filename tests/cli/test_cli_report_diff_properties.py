"""Properties of ``evalmark report diff`` and ``report render`` over generated pairs of reports:
the command's exit code is the library's no-drop gate (``require_no_drop``) for any allowed
drop, a larger allowed drop never turns a pass into a failure, a report never drops against
itself, and rendering the same file twice writes the same bytes in every format.
"""

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
from evalmark.gates import require_no_drop
from evalmark.report import Report, compare, write_report
from evalmark.results._results import ResultColumn

CASES = st.lists(st.text(alphabet="abcdef", min_size=1, max_size=3), min_size=1, max_size=8)
DROPS = st.sampled_from([0.0, 0.05, 0.1, 0.25, 0.5, 1.0])


def report(names: list[str], verdicts: list[bool]) -> Report:
    results = [EvaluationResult(v, 1.0 if v else 0.0, "") for v in verdicts]
    return Report(
        name="r",
        sample_names=names,
        sample_tags=[() for _ in names],
        columns={"check": ResultColumn.from_results(results)},
    )


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Report, Report]:
    names = sorted(set(draw(CASES)))
    size = len(names)
    before = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    after = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    return report(names, before), report(names, after)


def run(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


def diff(before: Report, after: Report, max_drop: float) -> int:
    with tempfile.TemporaryDirectory() as folder:
        a, b = Path(folder) / "a.json", Path(folder) / "b.json"
        write_report(before, a)
        write_report(after, b)
        return run(["report", "diff", str(a), str(b), "--max-drop", str(max_drop)])


def library_holds(before: Report, after: Report, max_drop: float) -> bool:
    try:
        require_no_drop(compare(after, before), max_drop)
    except AssertionError:
        return False
    return True


@settings(max_examples=examples(25), deadline=None)
@given(pairs(), DROPS)
def test_the_diff_exit_code_is_the_librarys_no_drop_gate(
    pair: tuple[Report, Report], max_drop: float
) -> None:
    before, after = pair
    code = diff(before, after, max_drop)
    assert code in (0, 1)
    assert (code == 0) == library_holds(before, after, max_drop)


@settings(max_examples=examples(20), deadline=None)
@given(pairs(), DROPS, DROPS)
def test_a_larger_allowed_drop_never_turns_a_pass_into_a_failure(
    pair: tuple[Report, Report], d1: float, d2: float
) -> None:
    before, after = pair
    small, large = sorted((d1, d2))
    if diff(before, after, small) == 0:
        assert diff(before, after, large) == 0


@settings(max_examples=examples(20), deadline=None)
@given(pairs(), DROPS)
def test_a_report_never_drops_against_itself(pair: tuple[Report, Report], max_drop: float) -> None:
    before, _ = pair
    assert diff(before, before, max_drop) == 0


@settings(max_examples=examples(15), deadline=None)
@given(pairs(), st.sampled_from(["markdown", "html", "junit", "json"]))
def test_rendering_a_file_twice_writes_the_same_bytes(
    pair: tuple[Report, Report], format: str
) -> None:
    before, _ = pair
    with tempfile.TemporaryDirectory() as folder:
        source = write_report(before, Path(folder) / "r.json")
        outputs = [Path(folder) / f"out{i}.txt" for i in range(2)]
        for out in outputs:
            argv = ["report", "render", str(source), "--format", format, "-o", str(out)]
            assert run(argv) == 0
        assert outputs[0].read_bytes() == outputs[1].read_bytes()
