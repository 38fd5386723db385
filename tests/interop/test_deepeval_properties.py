"""Properties of the DeepEval importer over generated goldens: a JSON list and JSON Lines of the
same goldens read the same samples with every input and expected output kept; the recorded
answers become one build answering every golden; a ``|``-joined context splits into its parts;
a golden missing its answer among answered goldens is named by its line; and a field evalmark
does not carry is refused unless its loss is allowed."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import ImportFormatError
from evalmark.interop import read

TEXT = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=10).filter(str.strip)
PART = st.text(
    st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp"), exclude_characters="|"),
    min_size=1,
    max_size=8,
).filter(lambda s: s == s.strip() and s != "")


@st.composite
def goldens(draw: st.DrawFn, answered: bool | None = None) -> list[dict[str, Any]]:
    count = draw(st.integers(1, 5))
    with_answers = draw(st.booleans()) if answered is None else answered
    rows = []
    for _ in range(count):
        row: dict[str, Any] = {"input": draw(TEXT), "expected_output": draw(TEXT)}
        if with_answers:
            row["actual_output"] = draw(TEXT)
        rows.append(row)
    return rows


def _read(rows: list[dict[str, Any]], suffix: str, **options: Any) -> Any:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"goldens{suffix}"
        if suffix == ".json":
            path.write_text(json.dumps(rows, indent=2), encoding="utf-8")
        else:
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return read("deepeval", path, **options)


# a character outside the BMP, which JSON writers escape as a surrogate pair
@example(rows=[{"input": "0", "expected_output": "\U00010000"}])
@settings(max_examples=examples(40), deadline=None)
@given(goldens())
def test_a_json_list_and_json_lines_of_the_same_goldens_read_the_same_samples(
    rows: list[dict[str, Any]],
) -> None:
    listed, lined = _read(rows, ".json"), _read(rows, ".jsonl")
    assert listed.samples == lined.samples
    assert [s.parameters[0] for s in listed.samples] == [r["input"] for r in rows]
    assert [s.expected_output for s in listed.samples] == [r["expected_output"] for r in rows]
    assert len({s.name for s in listed.samples}) == len(rows)


@settings(max_examples=examples(40), deadline=None)
@given(goldens(answered=True))
def test_recorded_answers_become_one_build_answering_every_golden(
    rows: list[dict[str, Any]],
) -> None:
    imported = _read(rows, ".jsonl")
    (build,) = imported.outputs.values()
    assert [build[s.name] for s in imported.samples] == [r["actual_output"] for r in rows]


@settings(max_examples=examples(40), deadline=None)
@given(TEXT, TEXT, st.lists(PART, min_size=1, max_size=4))
def test_a_joined_context_splits_into_its_parts(
    question: str, answer: str, parts: list[str]
) -> None:
    row = {"input": question, "expected_output": answer, "context": "|".join(parts)}
    (sample,) = _read([row], ".jsonl").samples
    assert sample.context == tuple(parts)


@settings(max_examples=examples(40), deadline=None)
@given(goldens(answered=True).filter(lambda rows: len(rows) >= 2), st.data())
def test_a_golden_without_its_answer_among_answered_goldens_is_named_by_its_line(
    rows: list[dict[str, Any]], data: st.DataObject
) -> None:
    broken = data.draw(st.integers(0, len(rows) - 1))
    rows[broken]["actual_output"] = None
    with pytest.raises(ImportFormatError, match="every answer") as caught:
        _read(rows, ".jsonl")
    assert caught.value.line == broken + 1


@settings(max_examples=examples(40), deadline=None)
@given(goldens(), st.data())
def test_a_field_not_carried_is_refused_unless_its_loss_is_allowed(
    rows: list[dict[str, Any]], data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(rows) - 1))
    rows[at]["expectations"] = {"steps": [data.draw(TEXT)]}
    with pytest.raises(ImportFormatError, match="--allow-loss expectations") as caught:
        _read(rows, ".jsonl")
    assert caught.value.line == at + 1
    kept = _read(rows, ".jsonl", allow_loss=["expectations"])
    assert kept.lost == ("expectations",)
    assert [s.parameters[0] for s in kept.samples] == [r["input"] for r in rows]
