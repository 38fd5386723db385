"""Properties of code-task and solution files for generated records: tasks read back equal in
YAML, JSON and JSON Lines (keys in kebab or snake case, aliases alike); unnamed cases are
``case-N``; one broken task is named by file and line; a solution recorded twice is refused at
its line naming the first; and any bytes give records or a typed error."""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.code._tasks import load_solutions, load_tasks
from evalmark.errors import DataFileError, EvalmarkError

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=10)
IDS = TEXT.filter(lambda s: s.strip() == s and s != "")
CASES = st.lists(
    st.fixed_dictionaries(
        {"expected-stdout": TEXT},
        optional={"name": IDS, "stdin": TEXT, "args": st.lists(TEXT, max_size=2)},
    ),
    min_size=1,
    max_size=3,
)
TASKS = st.lists(
    st.fixed_dictionaries(
        {"id": IDS},
        optional={
            "prompt": TEXT,
            "entry-point": IDS,
            "tags": st.lists(IDS, max_size=2),
        },
    ).flatmap(
        lambda t: st.one_of(
            st.just({**t, "tests": "assert True"}),
            CASES.map(lambda c: {**t, "cases": c}),
        )
    ),
    min_size=1,
    max_size=4,
    unique_by=lambda t: t["id"],
)


def snake(record: Any) -> Any:
    if isinstance(record, dict):
        return {k.replace("-", "_"): snake(v) for k, v in record.items()}
    if isinstance(record, list):
        return [snake(v) for v in record]
    return record


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    if path.suffix == ".yaml":
        path.write_text(yaml.safe_dump(records, allow_unicode=True, sort_keys=False), "utf-8")
    elif path.suffix == ".json":
        path.write_text(json.dumps(snake(records), ensure_ascii=False, indent=1), "utf-8")
    else:
        path.write_text("".join(json.dumps(snake(r)) + "\n" for r in records), "utf-8")
    return path


@settings(max_examples=examples(40), deadline=None)
@given(TASKS)
def test_tasks_read_back_equal_from_every_format(records: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        loaded = [
            load_tasks(write(Path(folder) / f"tasks{suffix}", records))
            for suffix in (".yaml", ".json", ".jsonl")
        ]
    assert loaded[0] == loaded[1] == loaded[2]
    for record, task in zip(records, loaded[0], strict=True):
        assert task.id == record["id"]
        assert task.prompt == record.get("prompt", "")
        assert task.entry_point == record.get("entry-point")
        assert task.tags == tuple(record.get("tags", ()))
        assert task.tests == record.get("tests")
        cases = record.get("cases", [])
        io = task.io_cases()
        assert [c.name for c in io] == [
            c.get("name") or f"case-{i}" for i, c in enumerate(cases, start=1)
        ]
        assert [c.expected_stdout for c in io] == [c["expected-stdout"] for c in cases]
        assert [c.stdin for c in io] == [c.get("stdin", "") for c in cases]


@settings(max_examples=examples(40), deadline=None)
@given(
    TASKS,
    st.sampled_from(["unknown key", "id is a number", "tags is text", "case without stdout"]),
    st.data(),
)
def test_one_broken_task_is_named_by_file_and_line(
    records: list[dict[str, Any]], how: str, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(records) - 1))
    record = dict(records[at])
    if how == "unknown key":
        record["promt"] = "x"
    elif how == "id is a number":
        record["id"] = 7
    elif how == "tags is text":
        record["tags"] = 5
    else:
        record.pop("tests", None)
        record["cases"] = [{"stdin": "x"}]
    records = [*records[:at], record, *records[at + 1 :]]
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "tasks.jsonl", records)
        with pytest.raises(DataFileError) as caught:
            load_tasks(path)
    assert caught.value.line == at + 1
    assert str(path) in str(caught.value)


@settings(max_examples=examples(40), deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["t1", "t2", "名"]), st.integers(0, 3)), min_size=1, max_size=8
    ),
)
def test_a_solution_recorded_twice_is_refused_at_its_line_naming_the_first(
    keys: list[tuple[str, int]],
) -> None:
    records = [
        {"task": t, "sample": s, "completion": f"print({i})"} for i, (t, s) in enumerate(keys)
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "solutions.jsonl", records)
        if len(set(keys)) == len(keys):
            loaded = load_solutions(path)
            assert [(s.task, s.sample, s.completion) for s in loaded] == [
                (r["task"], r["sample"], r["completion"]) for r in records
            ]
            return
        with pytest.raises(DataFileError) as caught:
            load_solutions(path)
    second = next(i for i, k in enumerate(keys) if k in keys[:i])
    first = keys.index(keys[second])
    assert caught.value.line == second + 1
    assert f"(first at line {first + 1})" in str(caught.value)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.binary(max_size=60) | TEXT.map(str.encode),
    st.sampled_from([".yaml", ".json", ".jsonl"]),
    st.sampled_from([load_tasks, load_solutions]),
)
def test_any_bytes_give_records_or_a_typed_error(data: bytes, suffix: str, load: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"f{suffix}"
        path.write_bytes(data)
        with contextlib.suppress(EvalmarkError):  # any other exception fails the property
            load(path)


ALIASES = {"id": "name", "tests": "test", "entry-point": "entrypoint"}


@settings(max_examples=examples(40), deadline=None)
@given(TASKS, st.data())
def test_a_key_written_as_another_tools_name_is_refused_with_the_key_meant(
    records: list[dict[str, Any]], data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(records) - 1))
    key = data.draw(st.sampled_from(sorted(set(records[at]) & set(ALIASES))))
    record = {ALIASES[k] if k == key else k: v for k, v in records[at].items()}
    records = [*records[:at], record, *records[at + 1 :]]
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "tasks.jsonl", records)
        with pytest.raises(DataFileError) as caught:
            load_tasks(path)
    assert caught.value.line == at + 1
    assert f"did you mean '{key.replace('-', '_')}'" in str(caught.value) or (
        f"did you mean '{key}'" in str(caught.value)
    )
