"""The Rust scan of a promptfoo results file reads JSON as the typed reading (msgspec) does:
on files written every way JSON allows and changed in ways it does not (escaped keys, repeated
keys, odd numbers, integers outside int64, lone surrogates, deep nesting, bytes around or cut
off), the scan accepts no file the typed reading refuses or leaves to the plain reading, and
reads the same import from each it accepts."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.interop._model import Imported
from json_edits import edited
from promptfoo_files import imports, results_files, same

_ODD = ["", "é", "😀", 'a"b\\c/', "\n\t\x00\x1f\x7f", "\u2028", "\ud800", "x\udc00y", "{"]
_KEYS = ["prompt", "raw", "testIdx", "testCase", "assert", "type", "value", "output", "results"]
_NUMBERS = [b"1e400", b"-0.0E-0", b"01", b"1.", b"2e+2", b"99999999999999999999", b"-"]


def _sometimes(values: list[Any], odds: int) -> st.SearchStrategy[Any]:
    """One of ``values`` once in ``odds`` draws, else None (most files stay readable)."""
    return st.one_of(*[st.none()] * (odds - 1), st.sampled_from(values))


def _with_odd_values(document: Any, odd: str, depth: int | None) -> None:
    """Put ``odd`` in every row's answer and question, and ``depth`` nested lists in the
    first row's ``metadata``."""
    rows = document.get("results", {}).get("results", [])
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row.get("response"), dict):
            row["response"]["output"] = odd
        if isinstance(row.get("prompt"), dict):
            row["prompt"]["raw"] = odd
    if depth is not None and rows and isinstance(rows, list):
        rows[0]["metadata"] = json.loads("[" * depth + "]" * depth)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    results_files(),
    _sometimes(_ODD, 2),
    st.sampled_from([None, 0, 2]),
    st.booleans(),
    _sometimes(_KEYS, 2),
    _sometimes(_KEYS, 4),
    _sometimes([30, 70], 4),
    _sometimes(_NUMBERS, 4),
    _sometimes([b" \t\r\n", b"\x0c", "\ufeff".encode(), b"\xff"], 3),
    st.one_of(*[st.none()] * 6, st.floats(0, 1)),
)
def test_the_scan_reads_json_as_the_typed_reading(
    found: tuple[bytes, bool],
    odd: str | None,
    indent: int | None,
    ascii_only: bool,
    escape: str | None,
    repeat: str | None,
    depth: int | None,
    number: bytes | None,
    around: bytes | None,
    cut: float | None,
) -> None:
    document = json.loads(found[0])
    if odd is not None or depth is not None:
        _with_odd_values(document, odd if odd is not None else "x", depth)
    text = json.dumps(document, indent=indent, ensure_ascii=ascii_only)
    data = text.encode("utf-8", "surrogatepass")  # a lone surrogate: not UTF-8
    # a number in place of one, or not JSON
    replaced = (b"0.0", number) if number is not None else None
    data, _ = edited(data, escape, repeat, replaced, around or b"", cut)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.json"
        path.write_bytes(data)
        quick, typed = imports(path)
        if quick is not None:
            assert isinstance(typed, Imported)
            same(quick, typed)
    event("the scan reads" if quick is not None else "the scan refuses")
