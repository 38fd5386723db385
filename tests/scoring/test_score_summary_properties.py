"""Properties of the ``Summary`` of a scoring run over generated rows, some of them bad: every
row read is either scored or skipped, each metric counts the scored rows, the summary file
holds ``Summary.as_dict()`` and the summary is the same for any chunk size."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.scoring import ScoreOptions, Summary, parse_metrics, score_file

WORDS = st.lists(st.sampled_from(["a", "the", "cat", "名", "é"]), max_size=4).map(" ".join)
# a row, or a bad one (no "actual" value)
ROWS = st.lists(st.tuples(WORDS, WORDS | st.none()), min_size=1, max_size=20)


def summarize(rows: list[tuple[str, str | None]], chunk_size: int) -> tuple[Summary, Any]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rows.jsonl"
        path.write_text(
            "".join(
                json.dumps({"expected": e} if a is None else {"expected": e, "actual": a}) + "\n"
                for e, a in rows
            ),
            encoding="utf-8",
        )
        options = ScoreOptions(
            parse_metrics(["token_f1", "rouge_l"]), chunk_size=chunk_size, on_error="skip"
        )
        summary = score_file(path, options, summary_path=Path(folder) / "summary.json")
        written = json.loads((Path(folder) / "summary.json").read_text(encoding="utf-8"))
    return summary, written


@settings(max_examples=examples(60), deadline=None)
@given(ROWS, st.integers(1, 7))
def test_every_row_is_scored_or_skipped_and_the_file_holds_the_summary(
    rows: list[tuple[str, str | None]], chunk_size: int
) -> None:
    summary, written = summarize(rows, chunk_size)
    assert isinstance(summary, Summary)
    bad = sum(a is None for _, a in rows)
    assert summary.rows == len(rows) and summary.skipped == bad
    assert list(summary.metrics) == ["token_f1", "rouge_l"]
    for figures in summary.metrics.values():
        assert figures.count + figures.nulls == len(rows) - bad
    assert written == summary.as_dict()
    assert summarize(rows, 10_000)[0] == summary


@settings(max_examples=examples(80), deadline=None)
@given(
    st.lists(
        st.sampled_from([0.0, 0.125, 1 / 3, 0.5, 1.0]) | st.floats(-1e3, 1e3, allow_nan=False),
        max_size=200,
    ),
    st.integers(1, 40),
)
def test_the_table_of_chunked_scores_is_the_table_of_all_of_them(
    values: list[float], chunk: int
) -> None:
    import numpy as np

    from evalmark.scoring._summary import Distribution

    dist = Distribution()
    for at in range(0, len(values), chunk):
        dist.add(np.array(values[at : at + chunk], dtype=np.float64))
    got_values, got_counts = dist.table()
    want_values, want_counts = np.unique(np.array(values, dtype=np.float64), return_counts=True)
    assert got_values.tolist() == want_values.tolist()
    assert got_counts.tolist() == want_counts.tolist()
