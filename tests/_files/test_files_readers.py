"""The readers behind every data file (samples, test cases, conversations, suites): characters
YAML forbids, integers too long for Python, unreadable typed values, aliases and data nested too
deeply each give a typed error naming the file, line and column, and what to do."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalmark import load_conversations, load_samples, load_suite, load_test_cases, write_samples
from evalmark.cli import main
from evalmark.code._config import load_code_config
from evalmark.errors import DataFileError, SampleError, SuiteError, TestCaseError

SAMPLE = "- name: a{value}\n  parameters: [q]\n  expected-output: x\n"
CASE = "- input: a{value}\n  actual-output: b\n"
CONVERSATION = "- id: c{value}\n  turns:\n    - input: a\n      actual-output: b\n"
SUITE = "name: demo{value}\nsamples: s.yaml\napplication: {{function: 'app.py:answer'}}\n"
SUITE += "strategies: [contains]\n"

Loader = Callable[[Path], Any]
KINDS: list[tuple[str, str, Loader, type[DataFileError]]] = [
    ("samples", SAMPLE, load_samples, SampleError),
    ("test cases", CASE, load_test_cases, TestCaseError),
    ("conversations", CONVERSATION, load_conversations, TestCaseError),
    ("suite", SUITE, load_suite, SuiteError),
    ("code config", "tasks: tasks.jsonl{value}\n", load_code_config, DataFileError),
]
KIND_IDS = [kind[0] for kind in KINDS]


def write(folder: Path, template: str, value: str) -> Path:
    (folder / "s.yaml").write_text(SAMPLE.format(value=""), encoding="utf-8")
    path = folder / "file.yaml"
    path.write_text(template.format(value=value), encoding="utf-8")
    return path


def error_of(loader: Loader, path: Path, error: type[DataFileError]) -> DataFileError:
    with pytest.raises(error) as caught:
        loader(path)
    assert isinstance(caught.value, DataFileError)
    assert caught.value.path == str(path)
    return caught.value


# --- characters YAML forbids ---------------------------------------------------------------------

FORBIDDEN = [
    "\x00",
    "\x01",
    "\x08",
    "\x0b",
    "\x1b",
    "\x7f",
    "\x80",
    "\x86",
    "\x9f",
    "\ufffe",
    "\uffff",
]


@pytest.mark.parametrize("char", FORBIDDEN, ids=[f"U+{ord(c):04X}" for c in FORBIDDEN])
@pytest.mark.parametrize(("kind", "template", "loader", "error"), KINDS, ids=KIND_IDS)
def test_a_forbidden_character_is_named_with_its_line_column_and_escape(
    tmp_path: Path,
    kind: str,
    template: str,
    loader: Loader,
    error: type[DataFileError],
    char: str,
) -> None:
    path = write(tmp_path, template, char)
    found = error_of(loader, path, error)
    first_line = template.format(value="").split("\n")[0]
    assert (found.line, found.column) == (1, len(first_line) + 1)
    message = str(found)
    assert f"U+{ord(char):04X} is not allowed in a YAML file" in message
    escape = f"\\x{ord(char):02x}" if ord(char) <= 0xFF else f"\\u{ord(char):04x}"
    assert f'"{escape}" inside a double-quoted string' in message
    assert message.startswith(f"{path}:1:{len(first_line) + 1}: ")


@pytest.mark.parametrize("char", FORBIDDEN, ids=[f"U+{ord(c):04X}" for c in FORBIDDEN])
def test_the_escape_the_message_suggests_loads_and_round_trips(tmp_path: Path, char: str) -> None:
    escape = f"\\x{ord(char):02x}" if ord(char) <= 0xFF else f"\\u{ord(char):04x}"
    path = tmp_path / "s.yaml"
    path.write_text(f'- name: "a{escape}"\n  parameters: [q]\n  expected-output: x\n')
    (loaded,) = load_samples(path)
    assert loaded.name == f"a{char}"
    again = tmp_path / "again.yaml"
    write_samples([loaded], again)
    assert load_samples(again)[0] == loaded


@pytest.mark.parametrize("char", ["\t", "\xa0", "\ue000", "\ufeff", "\U0001f600"])
def test_characters_yaml_allows_are_read(tmp_path: Path, char: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(f'- name: "a{char}b"\n  parameters: [q]\n  expected-output: x\n')
    assert load_samples(path)[0].name == f"a{char}b"


def test_evalmark_run_reports_the_character_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "s.yaml").write_text(SAMPLE.format(value="\x01"), encoding="utf-8")
    (tmp_path / "app.py").write_text("def answer(q):\n    return 'x'\n")
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE.format(value=""), encoding="utf-8")
    code = main(["run", str(suite), "--no-report"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"evalmark run: error: {tmp_path / 's.yaml'}:1:10: the control character")
    assert "Traceback" not in err


# --- integers too long for Python ----------------------------------------------------------------


@pytest.mark.parametrize("digits", [4_301, 5_000, 100_000])
@pytest.mark.parametrize(
    ("loader", "text", "line", "column", "error"),
    [
        (
            load_samples,
            "- name: a\n  parameters: [{value}]\n  expected-output: x\n",
            2,
            16,
            SampleError,
        ),
        (
            load_samples,
            "- name: a\n  parameters: [q]\n  expected-output: x\n  metadata: {{k: {value}}}\n",
            4,
            17,
            SampleError,
        ),
        (
            load_test_cases,
            "- input: a\n  actual-output: b\n  latency-ms: {value}\n",
            3,
            15,
            TestCaseError,
        ),
        (load_suite, "name: a\nsamples: s.yaml\nconcurrency: {value}\n", 3, 14, SuiteError),
        (
            load_suite,
            "name: a\nsamples: s.yaml\nstrategies: [{{semantic-similarity: {{seed: -{value}}}}}]\n",
            3,
            43,
            SuiteError,
        ),
    ],
    ids=["samples parameters", "samples metadata", "test case latency", "suite", "suite option"],
)
def test_an_integer_too_long_to_read_is_named_with_its_line(
    tmp_path: Path,
    loader: Loader,
    text: str,
    line: int,
    column: int,
    error: type[DataFileError],
    digits: int,
) -> None:
    path = write(tmp_path, text, "7" * digits)
    found = error_of(loader, path, error)
    assert (found.line, found.column) == (line, column)
    assert f"the number has {digits:,} digits, more than the 4,300 Python reads" in str(found)
    assert "put it in quotes" in str(found)


def test_integers_python_can_read_still_load(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    longest = "9" * 4_300
    hexadecimal = "0x" + "f" * 5_000  # not decimal: no limit applies
    path.write_text(
        f"- name: a\n  parameters: [{longest}, {hexadecimal}, '{'1' * 5_000}']\n"
        "  expected-output: x\n"
    )
    (loaded,) = load_samples(path)
    assert loaded.parameters[0] == int(longest)
    assert loaded.parameters[1] == int("f" * 5_000, 16)
    assert loaded.parameters[2] == "1" * 5_000


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_json_integer_too_long_names_its_line_and_the_fix(tmp_path: Path, suffix: str) -> None:
    record = json.dumps({"name": "a", "parameters": [0], "expected-output": "x"})
    record = record.replace("[0]", f"[{'7' * 5_000}]")
    path = tmp_path / f"s{suffix}"
    path.write_text(f"[\n{record}\n]\n" if suffix == ".json" else f"{record}\n")
    found = error_of(load_samples, path, SampleError)
    assert found.line == (2 if suffix == ".json" else 1)
    assert "write a longer one as a string" in str(found)


# --- typed values that cannot be built --------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("!!int abc", "'abc' cannot be read as !!int"),
        ("!!float many", "'many' cannot be read as !!float"),
        ("!!bool maybe", "'maybe' cannot be read as !!bool"),
        ("2001-02-30", "'2001-02-30' cannot be read as !!timestamp"),
        ("!!timestamp soon", "'soon' cannot be read as !!timestamp"),
        ("!!binary 'abc'", "malformed YAML: failed to decode base64 data"),
    ],
)
@pytest.mark.parametrize(("kind", "template", "loader", "error"), KINDS, ids=KIND_IDS)
def test_a_typed_value_that_cannot_be_built_is_named(
    tmp_path: Path,
    kind: str,
    template: str,
    loader: Loader,
    error: type[DataFileError],
    value: str,
    says: str,
) -> None:
    indent = "" if kind in ("suite", "code config") else "  "
    text = template.format(value="") + f"{indent}metadata: {{when: {value}}}\n"
    path = write(tmp_path, "{value}", text)
    found = error_of(loader, path, error)
    assert says in str(found)
    assert found.line == text.count("\n"), str(found)


# --- aliases -------------------------------------------------------------------------------------


def test_an_alias_that_refers_to_itself_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("- name: a\n  parameters: &p [q, *p]\n  expected-output: x\n")
    found = error_of(load_samples, path, SampleError)
    assert "an alias refers to the item that holds it" in str(found)
    assert found.line == 2


def test_aliases_that_multiply_the_data_are_refused(tmp_path: Path) -> None:
    lines = [
        "- name: a",
        "  expected-output: x",
        "  metadata:",
        "    l0: &l0 [x, x, x, x, x, x, x, x, x, x]",
    ]
    for i in range(1, 8):
        lines.append(f"    l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]")
    lines.append("  parameters: [*l7]")
    path = tmp_path / "s.yaml"
    path.write_text("\n".join(lines) + "\n")
    found = error_of(load_samples, path, SampleError)
    assert "the aliases (*name) expand to" in str(found)


def test_shared_aliases_within_reason_still_load(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "- name: a\n  parameters: &p [q]\n  expected-output: x\n"
        "- name: b\n  parameters: *p\n  expected-output: y\n"
    )
    assert [s.parameters for s in load_samples(path)] == [("q",), ("q",)]


# --- nesting too deep ----------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [10_000, 100_000])
@pytest.mark.parametrize("suffix", [".yaml", ".json", ".jsonl"])
@pytest.mark.parametrize(
    ("loader", "record", "error"),
    [
        (load_samples, {"name": "a", "parameters": ["DEEP"], "expected-output": "x"}, SampleError),
        (
            load_test_cases,
            {"input": "a", "actual-output": "b", "metadata": {"k": "DEEP"}},
            TestCaseError,
        ),
        (load_conversations, {"id": "c", "turns": ["DEEP"]}, TestCaseError),
    ],
    ids=["samples", "test cases", "conversations"],
)
def test_data_nested_too_deeply_is_a_typed_error_with_a_line(
    tmp_path: Path,
    loader: Loader,
    record: dict[str, Any],
    error: type[DataFileError],
    suffix: str,
    depth: int,
) -> None:
    deep = "[" * depth + "]" * depth
    line = json.dumps(record).replace('"DEEP"', deep)
    text = {
        ".json": f"[\n  {{}},\n  {line}\n]\n",
        ".jsonl": f"{{}}\n\n{line}\n",
        ".yaml": f"- {{}}\n- {line}\n",
    }
    path = tmp_path / f"deep{suffix}"
    path.write_text(text[suffix])
    found = error_of(loader, path, error)
    assert found.line == {".json": 3, ".jsonl": 3, ".yaml": 2}[suffix], str(found)
    assert found.column is not None
    assert "nest" in str(found) and "flatten" in str(found)


@pytest.mark.parametrize("depth", [10_000, 100_000])
def test_a_suite_nested_too_deeply_is_a_typed_error_with_a_line(tmp_path: Path, depth: int) -> None:
    deep = "[" * depth + "]" * depth
    path = write(tmp_path, SUITE + "tags: " + deep.replace("{", "{{").replace("}", "}}") + "\n", "")
    found = error_of(load_suite, path, SuiteError)
    assert found.line == 5 and "flatten" in str(found)


@pytest.mark.parametrize("depth", [990, 10_000, 100_000])
@pytest.mark.parametrize("where", ["flow", "block"])
def test_a_code_config_nested_too_deeply_is_a_typed_error_with_a_line(
    tmp_path: Path, depth: int, where: str
) -> None:
    path = tmp_path / "code.yaml"
    if where == "flow":
        path.write_text("tasks: " + "[" * depth + "]" * depth + "\n")
    else:
        path.write_text("tasks:\n" + "".join("  " * i + "- \n" for i in range(1, depth // 10)))
    found = error_of(load_code_config, path, DataFileError)
    assert found.line is not None
    if where == "flow":
        assert found.line == 1 and "flatten" in str(found)


def test_deep_but_readable_data_still_loads(tmp_path: Path) -> None:
    deep = "[" * 200 + "1" + "]" * 200
    for suffix, text in (
        (".yaml", f"- name: a\n  parameters: [{deep}]\n  expected-output: x\n"),
        (
            ".json",
            json.dumps([{"name": "a", "parameters": [0], "expected-output": "x"}]).replace(
                "[0]", f"[{deep}]"
            ),
        ),
    ):
        path = tmp_path / f"s{suffix}"
        path.write_text(text)
        value: Any = load_samples(path)[0].parameters[0]
        for _ in range(199):
            value = value[0]
        assert value == [1]


# --- JSON strings ----------------------------------------------------------------------------


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x1f"])
def test_a_raw_control_character_in_a_json_string_is_named_as_such(
    tmp_path: Path, char: str
) -> None:
    path = tmp_path / "s.json"
    path.write_text(f'[{{"name": "a{char}b", "parameters": [], "expected-output": "x"}}]')
    found = error_of(load_samples, path, SampleError)
    assert (found.line, found.column) == (1, 13)
    assert f"control character U+{ord(char):04X}" in str(found)
    assert "write it escaped" in str(found)
    assert "strings need double quotes" not in str(found)
