"""``FactsText.many_rows`` over many rows writes what the row-by-row explanation writes: the
error's text for a row that could not be read, else the missing facts, else all present."""

from __future__ import annotations

import numpy as np

from evalmark.strategies._text_explain import FactsText


def test_many_rows_matches_the_row_by_row_texts() -> None:
    rng = np.random.default_rng(3)
    counts = rng.integers(1, 4, size=300)
    ends = np.cumsum(counts).astype(np.int64)
    starts = (ends - counts).astype(np.int64)
    facts = [f"fact {k}" for k in range(int(ends[-1]))]
    found = rng.random(len(facts)) < 0.7
    bad = {5: "could not read row 5", 77: "could not read row 77"}

    def row(index: int) -> str:
        if index in bad:
            return bad[index]
        span = range(int(starts[index]), int(ends[index]))
        missing = [repr(facts[k]) for k in span if not found[k]]
        if missing:
            return f"{len(missing)} of {len(span)} expected facts missing: " + "; ".join(missing)
        return f"all {len(span)} facts present"

    explain = FactsText(facts, found, starts, ends, bad, row)
    rows = [int(r) for r in rng.permutation(300)[:200]] + [5, 77]
    assert explain.many_rows(rows) == [row(r) for r in rows]
