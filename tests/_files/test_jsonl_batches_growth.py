"""jsonl_batches with ``first_size``: the first batch is small and each next one four times the
last, up to the batch size; the lines and their numbers are those of a plain read."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark._files.json_read import jsonl_batches

LINE = st.sampled_from([b'{"a": 1}\n', b"\n", b"  \r\n", b'{"b": "x y"}\r\n', b"[1, 2]\n"])


def _read(data: bytes, size: int, **options: int | None) -> list[tuple[list[int], list[bytes]]]:
    return [
        (list(lines), texts) for lines, texts in jsonl_batches(io.BytesIO(data), size, **options)
    ]


@settings(max_examples=examples(80), deadline=None)
@given(
    st.lists(LINE, max_size=60),
    st.booleans(),
    st.integers(1, 30),
    st.integers(1, 6),
    st.sampled_from([None, 1, 40, 1 << 20]),
)
def test_batches_that_start_small_hold_the_same_lines_and_grow_fourfold(
    lines: list[bytes], bom: bool, size: int, first: int, budget: int | None
) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + b"".join(lines)
    whole = _read(data, 1 << 30)
    batches = _read(data, size, max_bytes=budget, first_size=first)
    flat = [pair for got, texts in batches for pair in zip(got, texts, strict=True)]
    assert flat == [pair for got, texts in whole for pair in zip(got, texts, strict=True)]
    # No batch holds more than size rows. With no blank line (a batch of blank lines is not
    # handed out), the first holds first_size and each next one four times the last.
    assert all(len(pair[0]) <= size for pair in batches)
    if budget is None and all(line.strip() for line in lines):
        expected, left, now = [], len(lines), min(size, first)
        while left:
            expected.append(min(now, left))
            left, now = left - expected[-1], min(size, now * 4)
        assert [len(pair[0]) for pair in batches] == expected
