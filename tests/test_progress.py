"""The one progress line every command shows: when it appears, what it says, how it ends."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from evalmark._progress import ERASE, LineProgress, NoProgress, make_progress


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def line(stream: io.StringIO, clock: Clock, **options: object) -> LineProgress:
    return LineProgress(
        "evaluating", None, "samples", stream, noun="samples", clock=clock, **options
    )  # type: ignore[arg-type]


def test_nothing_is_drawn_before_the_delay() -> None:
    clock, stream = Clock(), io.StringIO()
    bar = line(stream, clock, delay=0.5, transient=True)
    clock.now += 0.4
    bar.advance(3, 7)
    assert stream.getvalue() == ""
    bar.close()
    assert stream.getvalue() == ""  # a quick run leaves no trace
    clock.now += 0.2
    bar.advance(1, 7)
    assert "4/7 samples" in stream.getvalue() and "57%" in stream.getvalue()


def test_redraws_at_most_ten_times_a_second() -> None:
    clock, stream = Clock(), io.StringIO()
    bar = line(stream, clock)
    for _ in range(50):
        bar.advance(1, 100)
        clock.now += 0.01
    assert stream.getvalue().count(ERASE) == 5


def test_a_note_stands_above_the_line_and_the_line_comes_back() -> None:
    clock, stream = Clock(), io.StringIO()
    bar = LineProgress("pairs.jsonl", 1000, "bytes", stream, clock=clock)
    bar.update(500, 20)
    bar.note("line 2: a long row")
    text = stream.getvalue()
    assert f"{ERASE}line 2: a long row\n" in text
    assert text.endswith("20 rows  0 rows/s  0:00") or "pairs.jsonl   50%  20 rows" in text
    bar.describe("(long rows)")
    assert "pairs.jsonl (long rows)" in stream.getvalue().rsplit(ERASE, 1)[1]


def test_closing_keeps_or_erases_the_line() -> None:
    clock = Clock()
    kept, gone = io.StringIO(), io.StringIO()
    for stream, transient in ((kept, False), (gone, True)):
        bar = line(stream, clock, transient=transient)
        bar.advance(2, 2)
        clock.now += 1
        bar.close()
    assert kept.getvalue().endswith("2/2 samples  2 samples/s  0:01\n")
    assert gone.getvalue().endswith(ERASE)


def test_shown_on_a_terminal_unless_told_otherwise() -> None:
    assert isinstance(make_progress(None, "x", None, "rows", stream=Terminal()), LineProgress)
    assert isinstance(make_progress(None, "x", None, "rows", stream=io.StringIO()), NoProgress)
    assert isinstance(make_progress(False, "x", None, "rows", stream=Terminal()), NoProgress)
    assert isinstance(make_progress(True, "x", None, "rows", stream=io.StringIO()), LineProgress)


@given(
    st.lists(st.integers(min_value=0, max_value=1000), min_size=1, max_size=30),
    st.integers(1, 5000),
)
def test_the_final_line_counts_every_advance(steps: list[int], total: int) -> None:
    clock, stream = Clock(), io.StringIO()
    bar = line(stream, clock)
    for step in steps:
        bar.advance(step, total)
        clock.now += 0.05
    bar.close()
    final = stream.getvalue().rsplit(ERASE, 1)[-1]
    assert f"{sum(steps):,}/{total:,} samples" in final
    share = int(final.split("%")[0].split()[-1])
    assert 0 <= share <= 100
    assert final.endswith("\n") and "\n" not in final[:-1]
