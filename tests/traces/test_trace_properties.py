"""Properties of reading traces: for generated sessions every encoding (OTLP JSON lines,
protobuf framed and bare) gives the same test cases, named and ordered as the sessions; any
bytes give test cases or a typed error, and every trace read is a case or has problems."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import trace_producers as tp
from budget import examples
from evalmark.errors import DataFileError
from evalmark.traces import TraceProblem, check, read

sessions = st.lists(
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=10),
    min_size=1,
    max_size=3,
    unique=True,
)


@settings(max_examples=examples(30))
@given(sessions)
def test_every_encoding_gives_the_same_cases_named_by_their_sessions(names: list[str]) -> None:
    request = tp.encode(tp.agent_spans(names))
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        files = [
            tp.write_json_lines(tmp / "a.jsonl", [request]),
            tp.write_protobuf(tmp / "a.pb", [request]),
            tp.write_protobuf(tmp / "b.pb", [request], framed=False),
        ]
        read_back = [list(read(path, match="session.id")) for path in files]
        digests = [{hashlib.sha256(p.read_bytes()).hexdigest()} for p in files]
    assert [c.name for c in read_back[0]] == names
    assert [{c.metadata["trace-file-sha256"] for c in cases} for cases in read_back] == digests
    same = [[tp.unsourced(c) for c in cases] for cases in read_back]
    assert same[0] == same[1] == same[2]


@settings(max_examples=examples(60))
@given(
    st.binary(max_size=60)
    | st.text(st.sampled_from('{}[]":,resourceSpans \n1'), max_size=40).map(str.encode),
    st.sampled_from([".jsonl", ".json", ".pb"]),
)
def test_any_bytes_give_cases_or_a_typed_error(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"t{suffix}"
        path.write_bytes(data)
        try:
            problems: list[TraceProblem] = []
            cases = list(read(path, problems=problems))
            count, found = check(path)
        except DataFileError as exc:
            assert str(exc)
            return
    # every trace read is a case or has problems, and reading and checking agree on them
    assert problems == found
    assert len(cases) == count - len({p.trace_id for p in found})
