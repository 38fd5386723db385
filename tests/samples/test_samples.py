"""Samples: the model, the YAML/JSON/JSONL loaders, their errors, plug-ins and round trips."""

from __future__ import annotations

import gc
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import evalmark
import evalmark.samples._plugins as plugins_module
from evalmark import (
    Parameters,
    Sample,
    Samples,
    load_samples,
    register_sample_loader,
    unregister_sample_loader,
    write_samples,
)
from evalmark.errors import SampleError
from evalmark.samples._sample import decode_hook


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def sample(name: str, *tags: str, output: str = "yes") -> Sample:
    return Sample(name=name, parameters=["q"], expected_output=output, tags=tags)


def load_error(*sources: object) -> SampleError:
    with pytest.raises(SampleError) as info:
        load_samples(*sources)
    return info.value


# --------------------------------------------------------------------------- model


def test_parameters_index_and_get() -> None:
    params = Parameters(["question", {"k": 1}])
    assert params[0] == "question"
    assert params.get(1) == {"k": 1}
    assert params.get(-1) == {"k": 1}
    assert params.get(2) is None
    assert params.get(5, "fallback") == "fallback"
    assert params == ("question", {"k": 1})
    with pytest.raises(TypeError, match="integers"):
        params.get("0")  # type: ignore[arg-type]


def test_sample_lists_become_tuples_so_equality_does_not_depend_on_how_it_was_made() -> None:
    made = Sample(
        name="a",
        parameters=["q"],  # type: ignore[arg-type]
        expected_outputs=["x", "y"],  # type: ignore[arg-type]
        tags=["t"],  # type: ignore[arg-type]
        context=["doc"],  # type: ignore[arg-type]
    )
    assert isinstance(made.parameters, Parameters)
    assert made.expected_outputs == ("x", "y")
    assert made.tags == ("t",)
    decoded = msgspec.json.decode(
        b'{"name":"a","parameters":["q"],"expected-outputs":["x","y"],"tags":["t"],'
        b'"context":["doc"]}',
        type=Sample,
        dec_hook=decode_hook,
    )
    assert decoded == made


def test_sample_is_frozen() -> None:
    s = sample("a")
    with pytest.raises(AttributeError):
        s.name = "b"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"expected_output": "x", "expected_outputs": ["x"]}, "exactly one of"),
        ({}, "missing the expectation"),
    ],
)
def test_sample_needs_exactly_one_expectation(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(SampleError, match=message) as info:
        Sample(name="refund", parameters=["q"], **kwargs)
    assert "sample 'refund'" in str(info.value)


def test_sample_rejects_a_string_as_parameters_and_as_tags() -> None:
    with pytest.raises(SampleError, match="parameters must be a list"):
        Sample(name="a", parameters="q", expected_output="x")  # type: ignore[arg-type]
    with pytest.raises(SampleError, match="tags must be a list of strings"):
        Sample(name="a", parameters=["q"], expected_output="x", tags="smoke")  # type: ignore[arg-type]
    with pytest.raises(SampleError, match=r"visible text .*got '\\x85', which is blank"):
        Sample(name="\x85", parameters=["q"], expected_output="x")


def test_samples_behaves_as_a_sequence() -> None:
    items = Samples([sample("a"), sample("b"), sample("c")])
    assert len(items) == 3
    assert [s.name for s in items] == ["a", "b", "c"]
    assert items[0].name == "a" and items[-1].name == "c"
    assert items["b"] is items[1]
    assert isinstance(items[1:], Samples) and items[1:].names == ("b", "c")
    assert "b" in items and items[0] in items and "z" not in items
    assert items.index("c") == 2
    assert isinstance(items, Sequence)
    assert list(reversed(items)) == [items[2], items[1], items[0]]
    with pytest.raises(KeyError, match="did you mean 'b'"):
        items["bb"]
    assert (items[:1] + items[1:]) == items


def test_samples_refuses_duplicate_names_and_other_values() -> None:
    with pytest.raises(SampleError, match="used more than once: 'a'"):
        Samples([sample("a"), sample("b"), sample("a")])
    with pytest.raises(TypeError, match="Sample values only, got dict"):
        Samples([sample("a"), {"name": "b"}])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="iterable of Sample"):
        Samples(sample("a"))  # type: ignore[arg-type]


def test_filter_by_tags_keeps_any_match_in_order() -> None:
    items = Samples(
        [sample("a", "billing"), sample("b", "api"), sample("c", "api", "smoke"), sample("d")]
    )
    assert items.filter_by_tags("smoke", "billing").names == ("a", "c")
    assert items.filter_by_tags("api").names == ("b", "c")
    assert items.tags == ("api", "billing", "smoke")


def test_filter_by_an_unknown_tag_is_an_error_with_a_suggestion() -> None:
    items = Samples([sample("a", "smoke")])
    with pytest.raises(SampleError, match=r"'smkoe' \(did you mean 'smoke'\?\)"):
        items.filter_by_tags("smkoe")
    with pytest.raises(ValueError, match="at least one tag"):
        items.filter_by_tags()


# --------------------------------------------------------------------------- formats

YAML_TEXT = """\
---
# comment
- name: refund-window
  parameters:
    - How long is the refund window?
  expected-output: |
    30 days.
    Full refund.
  expected-facts: [30 days]
  context:
    - Annual plans can be refunded within 30 days.
  tags: [billing, smoke]
  metadata:
    difficulty: easy
- name: retriever
  parameters: [refund, 3]
  expected-outputs:
    - segment one
    - segment two
"""


def test_yaml_with_literal_blocks_and_leading_document_marker(tmp_path: Path) -> None:
    loaded = load_samples(write(tmp_path / "s.yaml", YAML_TEXT))
    assert loaded.names == ("refund-window", "retriever")
    first = loaded[0]
    assert first.expected_output == "30 days.\nFull refund.\n"
    assert first.expected_facts == ("30 days",)
    assert first.metadata == {"difficulty": "easy"}
    assert loaded[1].parameters == ("refund", 3)
    assert loaded[1].expected_outputs == ("segment one", "segment two")
    assert loaded[1].expected_output is None


def test_yaml_without_document_marker_and_yml_extension(tmp_path: Path) -> None:
    text = YAML_TEXT.replace("---\n", "")
    assert load_samples(write(tmp_path / "s.YML", text)) == load_samples(
        write(tmp_path / "t.yaml", YAML_TEXT)
    )


def test_json_and_jsonl_equal_yaml(tmp_path: Path) -> None:
    from_yaml = load_samples(write(tmp_path / "s.yaml", YAML_TEXT))
    records = yaml.safe_load(YAML_TEXT)
    from_json = load_samples(write(tmp_path / "s.json", json.dumps(records, indent=2)))
    lines = "\n\n".join(json.dumps(r) for r in records) + "\n"
    from_jsonl = load_samples(write(tmp_path / "s.jsonl", lines))
    assert from_yaml == from_json == from_jsonl


def snake(record: dict[str, Any]) -> dict[str, Any]:
    return {k.replace("-", "_"): v for k, v in record.items()}


def test_json_and_jsonl_accept_snake_case_keys(tmp_path: Path) -> None:
    records = yaml.safe_load(YAML_TEXT)
    expected = load_samples(write(tmp_path / "s.yaml", YAML_TEXT))
    snaked = [snake(r) for r in records]
    assert load_samples(write(tmp_path / "s.json", json.dumps(snaked))) == expected
    text = "\n".join(json.dumps(r) for r in [snaked[0], records[1]])
    assert load_samples(write(tmp_path / "mixed.jsonl", text)) == expected


def test_utf8_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    record = {"name": "a", "parameters": ["q"], "expected-output": "x"}
    for suffix, text in (
        (".json", json.dumps([record])),
        (".jsonl", json.dumps(record)),
        (".yaml", yaml.safe_dump([record])),
    ):
        path = tmp_path / f"bom{suffix}"
        path.write_bytes(b"\xef\xbb\xbf" + text.encode())
        assert load_samples(path).names == ("a",)


def test_order_is_kept_within_and_across_sources(tmp_path: Path) -> None:
    def records(*names: str) -> list[dict[str, Any]]:
        return [{"name": n, "parameters": [n], "expected-output": n} for n in names]

    a = write(tmp_path / "a.yaml", yaml.safe_dump(records("z", "b", "m")))
    b = write(tmp_path / "b.json", json.dumps(records("a", "y")))
    c = write(tmp_path / "c.jsonl", "\n".join(json.dumps(r) for r in records("c", "x")))
    assert load_samples(a, b, c).names == ("z", "b", "m", "a", "y", "c", "x")
    assert load_samples(c, a).names == ("c", "x", "z", "b", "m")
    assert load_samples(Samples([sample("first")]), b).names == ("first", "a", "y")


def test_load_with_tags_keeps_samples_carrying_any_tag(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", YAML_TEXT)
    assert load_samples(path, tags=["smoke"]).names == ("refund-window",)
    assert load_samples(path, tags="smoke").names == ("refund-window",)
    with pytest.raises(SampleError, match="no sample carries the tag 'nightly'"):
        load_samples(path, tags=["nightly"])


def test_relative_paths_resolve_against_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "s.yaml", YAML_TEXT)
    monkeypatch.chdir(tmp_path)
    assert len(load_samples("s.yaml")) == 2


def test_an_empty_json_list_is_no_samples_but_an_empty_file_is_an_error(tmp_path: Path) -> None:
    assert len(load_samples(write(tmp_path / "s.json", "[]"))) == 0
    for suffix in (".json", ".jsonl", ".yaml"):
        error = load_error(write(tmp_path / f"empty{suffix}", "\n"))
        assert "the file is empty" in str(error)


# --------------------------------------------------------------------------- errors


def test_missing_file_shows_the_resolved_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "samples.yaml", YAML_TEXT)
    error = load_error("sampels.yaml")
    message = str(error)
    assert str(tmp_path / "sampels.yaml") in message
    assert "no such file" in message
    assert f"did you mean {tmp_path / 'samples.yaml'}" in message


def test_unsupported_extension_and_directories(tmp_path: Path) -> None:
    assert "unsupported file type '.csv'" in str(load_error(write(tmp_path / "s.csv", "a,b")))
    assert "is a directory" in str(load_error(tmp_path))
    assert "no registered sample loader supports" in str(load_error("hf://org/data"))
    with pytest.raises(TypeError, match="cannot load samples from int"):
        load_samples(3)


def test_malformed_yaml_reports_line_and_column(tmp_path: Path) -> None:
    path = write(
        tmp_path / "bad.yaml",
        "- name: a\n  parameters: [q\n  expected-output: x\n",
    )
    error = load_error(path)
    assert error.path == str(path)
    assert error.line == 3 and error.column is not None
    assert str(error).startswith(f"{path}:3:")
    assert "malformed YAML" in str(error)


def test_yaml_tab_indentation_gets_a_hint(tmp_path: Path) -> None:
    error = load_error(write(tmp_path / "tab.yaml", "- name: a\n\tparameters: [q]\n"))
    assert error.line == 2
    assert "spaces, not tabs" in str(error)


def test_malformed_json_reports_line_and_column(tmp_path: Path) -> None:
    path = write(
        tmp_path / "bad.json",
        '[\n  {"name": "a",\n   "parameters": ["q"],\n   "expected-output": "x",}\n]\n',
    )
    error = load_error(path)
    assert (error.line, error.column) == (4, 27)
    assert "malformed JSON" in str(error) and "trailing comma" in str(error)
    assert str(error).startswith(f"{path}:4:27:")


def test_malformed_jsonl_line_is_named(tmp_path: Path) -> None:
    good = json.dumps({"name": "a", "parameters": ["q"], "expected-output": "x"})
    path = write(tmp_path / "bad.jsonl", f'{good}\n\n{{"name": "b", \n')
    error = load_error(path)
    assert error.line == 3
    assert "malformed JSON" in str(error)


def test_pretty_printed_json_in_a_jsonl_file_gets_a_hint(tmp_path: Path) -> None:
    error = load_error(write(tmp_path / "pretty.jsonl", '[\n  {"name": "a"}\n]\n'))
    assert error.line == 1
    assert "belongs in a .json file" in str(error)


@pytest.mark.parametrize(
    ("key", "suggestion"),
    [
        ("expected", "expected-output"),
        ("expected_output", "expected-output"),
        ("output", "expected-output"),
        ("parameter", "parameters"),
        ("input", "parameters"),
        ("paramters", "parameters"),
        ("expected-fact", "expected-facts"),
    ],
)
def test_unknown_yaml_key_suggests_the_right_one(tmp_path: Path, key: str, suggestion: str) -> None:
    fields = {"name": "refund", "parameters": ["q"], "expected-output": "x"}
    fields.pop(suggestion, None)
    fields[key] = ["q"] if suggestion == "parameters" else "x"
    text = "# leading comment\n" + yaml.safe_dump([fields], sort_keys=False)
    path = write(tmp_path / "s.yaml", text)
    error = load_error(path)
    message = str(error)
    key_line = next(
        number
        for number, line in enumerate(text.splitlines(), start=1)
        if line.lstrip("- ").startswith(f"{key}:")
    )
    assert error.line == key_line
    assert message.startswith(f"{path}:{key_line}:")
    assert "sample 'refund'" in message
    assert f"unknown key '{key}'" in message
    assert f"did you mean '{suggestion}'?" in message


def test_unknown_json_key_suggests_and_names_the_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.json",
        '[\n  {"name": "a", "parameters": ["q"], "expected-output": "x"},\n'
        '  {"name": "b",\n   "input": ["q"],\n   "expected_output": "x"}\n]\n',
    )
    error = load_error(path)
    assert (error.line, error.record) == (4, "sample 'b'")
    assert "unknown key 'input' in a sample; did you mean 'parameters'?" in str(error)


def test_a_key_without_any_close_match_lists_the_accepted_keys(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", '{"name":"a","parameters":[],"expected-output":"x","zzz":1}')
    assert "the accepted keys are 'name', 'parameters'" in str(load_error(path))


def test_both_spellings_of_one_key_are_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        '{"name":"a","parameters":[],"expected-output":"x","expected_output":"y"}',
    )
    assert "are the same key; keep only one" in str(load_error(path))


def test_both_expectations_or_neither_are_errors(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.yaml",
        "- name: both\n  parameters: [q]\n  expected-output: x\n  expected-outputs: [x]\n"
        "- name: neither\n  parameters: [q]\n",
    )
    error = load_error(path)
    both, neither = error.problems
    assert (both.line, both.record) == (4, "sample 'both'")
    assert "both 'expected-output' and 'expected-outputs' are given; keep one" in both.message
    assert (neither.line, neither.record) == (5, "sample 'neither'")
    assert "missing the expectation: add 'expected-output'" in neither.message
    assert str(error).startswith("2 problems found:")


def test_parameters_that_are_not_a_list(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.yaml",
        "- name: refund\n  parameters: How long is the refund window?\n  expected-output: x\n",
    )
    error = load_error(path)
    assert (error.line, error.column) == (2, 15)
    assert "sample 'refund'" in str(error)
    assert "'parameters' must be a list, even for a single input" in str(error)
    jsonl = write(tmp_path / "s.jsonl", '{"name":"a","parameters":"q","expected_output":"x"}')
    assert "'parameters' must be a list" in str(load_error(jsonl))


def test_missing_name_and_missing_parameters(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.yaml",
        "- parameters: [q]\n  expected-output: x\n- name: b\n  expected-output: x\n",
    )
    first, second = load_error(path).problems
    assert (first.line, first.record) == (1, "sample #1")
    assert "missing 'name'" in first.message
    assert (second.line, second.record) == (3, "sample 'b'")
    assert "missing 'parameters'" in second.message


def test_duplicate_name_in_one_file_names_both_lines(tmp_path: Path) -> None:
    record = {"name": "refund", "parameters": ["q"], "expected-output": "x"}
    other = dict(record, name="other")
    path = write(tmp_path / "s.jsonl", "\n".join(json.dumps(r) for r in (record, other, record)))
    error = load_error(path)
    assert error.line == 3
    assert "duplicate name 'refund' (first used at line 1)" in str(error)


def test_duplicate_name_across_sources_names_both_files(tmp_path: Path) -> None:
    record = {"name": "refund", "parameters": ["q"], "expected-output": "x"}
    a = write(tmp_path / "a.json", json.dumps([dict(record, name="x"), record]))
    b = write(tmp_path / "b.yaml", "# first line\n" + yaml.safe_dump([record]))
    message = str(load_error(a, b))
    assert f"{b}:2: sample 'refund'" in message
    assert f"also used at {a}:1" in message


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("  tags: 5\n", "tags: expected a list, got an integer"),
        ("  expected-facts: [ok, 42]\n", "expected-facts[1]: expected a string, got an integer"),
        ("  context: a document\n", "context: expected a list, got a string; write it as a list"),
        ("  metadata: [1]\n", "metadata: expected a mapping, got a list"),
    ],
)
def test_wrong_types_are_reported_with_the_path(tmp_path: Path, line: str, message: str) -> None:
    text = "- name: a\n  parameters: [q]\n  expected-output: x\n" + line
    error = load_error(write(tmp_path / "s.yaml", text))
    assert error.line == 4
    assert message in str(error)


def test_yaml_booleans_and_numbers_in_text_fields_get_a_quoting_hint(tmp_path: Path) -> None:
    text = "- name: a\n  parameters: [q]\n  expected-output: no\n- name: 42\n  parameters: []\n"
    text += "  expected-output: x\n"
    first, second = load_error(write(tmp_path / "s.yaml", text)).problems
    assert "expected a string, got a boolean" in first.message
    assert "put the value in quotes" in first.message
    assert (second.line, second.record) == (4, "sample #2")
    assert "'name' must be a non-empty string, got an integer" in second.message


def test_python_object_tags_are_refused_and_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = (
        "- name: a\n  parameters:\n"
        f"    - !!python/object/apply:os.system ['touch {marker}']\n"
        "  expected-output: x\n"
    )
    error = load_error(write(tmp_path / "evil.yaml", text))
    assert not marker.exists()
    assert error.line == 3
    message = str(error)
    assert "'!!python/object/apply:os.system' would build a Python object" in message
    assert "never runs code" in message


def test_custom_yaml_tags_are_refused(tmp_path: Path) -> None:
    error = load_error(write(tmp_path / "s.yaml", "- !include other.yaml\n"))
    assert "unsupported YAML tag '!include'" in str(error)


def test_top_level_mapping_gets_a_hint(tmp_path: Path) -> None:
    single = load_error(write(tmp_path / "one.yaml", "name: a\nparameters: [q]\n"))
    assert "starting each record with '- '" in str(single)
    nested = load_error(write(tmp_path / "nested.yaml", "samples:\n  - name: a\n"))
    assert "mapping with the key 'samples'" in str(nested)
    as_json = load_error(write(tmp_path / "s.json", '{"samples": []}'))
    assert "expected a JSON list of records, found a mapping" in str(as_json)


def test_duplicate_yaml_keys_are_refused(tmp_path: Path) -> None:
    text = "- name: a\n  parameters: [q]\n  expected-output: x\n  expected-output: y\n"
    error = load_error(write(tmp_path / "s.yaml", text))
    assert error.line == 4
    assert "the key 'expected-output' appears twice (first at line 3)" in str(error)


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"name":"a","parameters":[],"expected-output":"x"}\n{"name":"\xff"}\n')
    error = load_error(path)
    assert error.line == 2
    assert "not valid UTF-8" in str(error)


def test_every_problem_of_a_file_is_reported_up_to_a_limit(tmp_path: Path) -> None:
    lines = [
        json.dumps({"name": f"s{i}", "parameters": "q", "expected-output": "x"}) for i in range(25)
    ]
    error = load_error(write(tmp_path / "s.jsonl", "\n".join(lines)))
    assert len(error.problems) == 20
    assert error.more == 5
    assert str(error).startswith("25 problems found:")
    assert "... and 5 more" in str(error)
    assert [p.line for p in error.problems] == list(range(1, 21))


def test_sample_error_is_a_value_error() -> None:
    assert issubclass(SampleError, ValueError)


# --------------------------------------------------------------------------- plug-ins


class MemoryLoader:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.calls: list[object] = []

    def supports(self, source: object) -> bool:
        return isinstance(source, str | os.PathLike) and os.fspath(source).startswith(self.prefix)

    def load(self, source: object) -> Samples:
        self.calls.append(source)
        return Samples([sample(f"from-{self.prefix}")])


@pytest.fixture
def no_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugins_module, "_from_entry_points", [])


@pytest.mark.usefixtures("no_entry_points")
def test_registered_loader_is_asked_before_the_built_in_ones(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", YAML_TEXT)
    loader = MemoryLoader(str(tmp_path))
    assert register_sample_loader(loader) is loader
    try:
        assert load_samples(path).names == (f"from-{tmp_path}",)
        assert loader.calls == [path]
        assert load_samples("mem://x", path).names[0] == f"from-{tmp_path}"
    except SampleError as exc:
        assert "mem://x" in str(exc)
    finally:
        unregister_sample_loader(loader)
    assert load_samples(path).names == ("refund-window", "retriever")


@pytest.mark.usefixtures("no_entry_points")
def test_loader_for_a_custom_scheme_merges_with_files(tmp_path: Path) -> None:
    loader = register_sample_loader(MemoryLoader("mem://"))
    try:
        path = write(tmp_path / "s.yaml", YAML_TEXT)
        assert load_samples("mem://one", path).names == (
            "from-mem://",
            "refund-window",
            "retriever",
        )
    finally:
        unregister_sample_loader(loader)


def test_register_checks_the_loader() -> None:
    with pytest.raises(TypeError, match="needs supports"):
        register_sample_loader(object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="register an instance"):
        register_sample_loader(MemoryLoader)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a registered"):
        unregister_sample_loader(MemoryLoader("x"))


@pytest.mark.usefixtures("no_entry_points")
def test_a_loader_returning_something_else_is_reported() -> None:
    class Broken(MemoryLoader):
        def load(self, source: object) -> Samples:
            return 42  # type: ignore[return-value]

    loader = register_sample_loader(Broken("bad://"))
    try:
        with pytest.raises(SampleError, match="returned int"):
            load_samples("bad://x")
    finally:
        unregister_sample_loader(loader)


class _EntryPoint:
    def __init__(self, name: str, target: object) -> None:
        self.name = name
        self.value = f"plugin:{name}"
        self._target = target

    def load(self) -> object:
        if isinstance(self._target, Exception):
            raise self._target
        return self._target


def test_entry_point_loaders_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    class FromPlugin(MemoryLoader):
        def __init__(self) -> None:
            super().__init__("plugin://")

    def entry_points(group: str) -> list[_EntryPoint]:
        assert group == "evalmark.sample_loaders"
        return [_EntryPoint("memory", FromPlugin)]

    monkeypatch.setattr(plugins_module, "_from_entry_points", None)
    monkeypatch.setattr(plugins_module.importlib_metadata, "entry_points", entry_points)
    assert load_samples("plugin://x").names == ("from-plugin://",)


def test_a_broken_entry_point_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugins_module, "_from_entry_points", None)
    monkeypatch.setattr(
        plugins_module.importlib_metadata,
        "entry_points",
        lambda group: [_EntryPoint("broken", ImportError("no module named x"))],
    )
    with pytest.raises(SampleError, match=r"plug-in 'broken'.*no module named x"):
        load_samples("anything.yaml")


# --------------------------------------------------------------------------- writing


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".jsonl"])
def test_write_samples_round_trips(tmp_path: Path, suffix: str) -> None:
    original = load_samples(write(tmp_path / "s.yaml", YAML_TEXT))
    target = tmp_path / f"out{suffix}"
    write_samples(original, target)
    assert load_samples(target) == original
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    if suffix == ".yaml":
        assert "expected-output: |\n" in target.read_text()


def test_write_samples_escapes_characters_yaml_reads_as_line_breaks(tmp_path: Path) -> None:
    text = "a\x85b\u2028c\u2029d"
    original = Samples([Sample(name=text, parameters=[text], expected_output=text + "\nx")])
    write_samples(original, tmp_path / "out.yaml")
    assert load_samples(tmp_path / "out.yaml") == original


def test_write_samples_needs_a_known_extension(tmp_path: Path) -> None:
    with pytest.raises(SampleError, match=r"choose a \.yaml"):
        write_samples([], tmp_path / "out.txt")


# --------------------------------------------------------------------------- round trips

# PyYAML's own writer (the independent one used below) emits NEL and the Unicode line and
# paragraph separators unescaped, and reads them back as line breaks; evalmark's writer escapes
# them (tested separately).
_text = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\x85\u2028\u2029"),
    max_size=40,
)
_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text
)
_json_values = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def samples_strategy(draw: st.DrawFn) -> Sample:
    many = draw(st.booleans())
    return Sample(
        name=draw(_text.filter(lambda s: s.strip() != "")),
        parameters=draw(st.lists(_json_values, max_size=3)),  # type: ignore[arg-type]
        expected_output=None if many else draw(_text),
        expected_outputs=draw(st.lists(_text, max_size=3)) if many else None,  # type: ignore[arg-type]
        expected_facts=draw(st.lists(_text, max_size=3)),  # type: ignore[arg-type]
        context=draw(st.lists(_text, max_size=2)),  # type: ignore[arg-type]
        tags=draw(st.lists(_text, max_size=3)),  # type: ignore[arg-type]
        metadata=draw(st.dictionaries(_text, _json_values, max_size=3)),
    )


def as_record(s: Sample) -> dict[str, Any]:
    """A plain kebab-case record built without evalmark's own encoder."""
    record: dict[str, Any] = {"name": s.name, "parameters": list(s.parameters)}
    if s.expected_output is not None:
        record["expected-output"] = s.expected_output
    else:
        record["expected-outputs"] = list(s.expected_outputs or ())
    record["expected-facts"] = list(s.expected_facts)
    record["context"] = list(s.context)
    record["tags"] = list(s.tags)
    record["metadata"] = s.metadata
    return record


def same(a: Sample, b: Sample) -> bool:
    # Floats survive JSON and YAML exactly; compare the encoded forms so -0.0 and 0.0 differ.
    return bool(msgspec.json.encode(a) == msgspec.json.encode(b) and a == b)


@given(st.lists(samples_strategy(), max_size=4, unique_by=lambda s: s.name))
def test_generated_samples_round_trip_through_every_format(
    tmp_path_factory: pytest.TempPathFactory, items: list[Sample]
) -> None:
    folder = tmp_path_factory.mktemp("rt")
    records = [as_record(s) for s in items]
    (folder / "s.json").write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    (folder / "s.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
    )
    (folder / "s.yaml").write_text(
        yaml.safe_dump(records, allow_unicode=True, sort_keys=False), encoding="utf-8"
    )
    if not items:
        (folder / "s.yaml").write_text("[]\n", encoding="utf-8")
        (folder / "s.jsonl").write_text("", encoding="utf-8")
    for suffix in (".json", ".jsonl", ".yaml"):
        if not items and suffix == ".jsonl":
            continue
        loaded = load_samples(folder / f"s{suffix}")
        assert len(loaded) == len(items)
        for got, want in zip(loaded, items, strict=True):
            assert same(got, want), suffix
        out = folder / f"written{suffix}"
        write_samples(loaded, out)
        if items or suffix != ".jsonl":
            assert load_samples(out) == loaded


def test_floats_keep_their_value_through_the_slow_path(tmp_path: Path) -> None:
    # snake_case sends JSON through the record-by-record reader, which parses numbers exactly
    record = {"name": "a", "parameters": [0.1, 1e-7, 2**70], "expected_output": "x"}
    loaded = load_samples(write(tmp_path / "s.json", json.dumps([record])))[0]
    assert loaded.parameters == (0.1, 1e-7, 2**70)
    assert all(type(v) is float for v in loaded.parameters[:2])
    assert not math.isnan(loaded.parameters[0])


def test_top_level_names_are_exported() -> None:
    for name in ("Sample", "Samples", "Parameters", "load_samples"):
        assert name in evalmark.__all__
    assert "SampleError" not in evalmark.__all__  # exceptions live in evalmark.errors


def test_loading_from_many_threads_equals_loading_serially(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    records = [
        {"name": f"s{i}", "parameters": [f"q{i}"], "expected_output": f"a{i}"} for i in range(300)
    ]
    paths = [
        write(tmp_path / "a.jsonl", "\n".join(json.dumps(r) for r in records)),
        write(tmp_path / "b.yaml", YAML_TEXT),
    ]
    serial = load_samples(*paths)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: load_samples(*paths), range(32)))
    assert all(result == serial for result in results)
    assert gc.isenabled()


def test_yaml_anchors_and_merge_keys_share_fields(tmp_path: Path) -> None:
    text = """\
- &base
  name: a
  parameters: &question [How long is the refund window?]
  expected-output: 30 days
  tags: [billing]
- <<: *base
  name: b
  expected-output: 14 days
- name: c
  parameters: *question
  expected-output: 30 days
"""
    loaded = load_samples(write(tmp_path / "s.yaml", text))
    assert loaded.names == ("a", "b", "c")
    assert loaded["b"].tags == ("billing",) and loaded["b"].expected_output == "14 days"
    assert loaded["c"].parameters == loaded["a"].parameters
    error = load_error(write(tmp_path / "t.yaml", text.replace("&question ", "")))
    assert error.line == 10
    assert "every *alias needs an &anchor" in str(error)


def test_samples_pickle() -> None:
    import pickle

    items = Samples([sample("a", "t"), Sample(name="b", parameters=[1], expected_outputs=["x"])])
    again = pickle.loads(pickle.dumps(items))
    assert again == items
    assert isinstance(again[1].parameters, Parameters)


def test_a_leading_tilde_means_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path / "s.yaml", YAML_TEXT)
    assert len(load_samples("~/s.yaml")) == 2


def test_the_same_file_given_twice_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "s.yaml", YAML_TEXT)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SampleError, match=r"is given twice \(as .*s\.yaml and s\.yaml\)"):
        load_samples(path, "s.yaml")


def test_data_nested_too_deeply_is_an_error_not_a_crash(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    line = f'{{"name": "a", "parameters": [{deep}], "expected-output": "x"}}\n'
    for suffix in (".jsonl", ".json"):
        text = line if suffix == ".jsonl" else f"[{line}]"
        error = load_error(write(tmp_path / f"deep{suffix}", text))
        assert "nested too deeply" in str(error)
    yaml_error = load_error(write(tmp_path / "deep.yaml", f"- parameters: [{deep}]\n"))
    assert "nesting depth" in str(yaml_error)
