"""The code strategy kinds: found through the registry's entry points, options checked, and
usable from a suite file run by ``evalmark run``."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import EntryPoint, EntryPoints
from pathlib import Path

import pytest

import evalmark.strategies._registry as registry
from evalmark.cli import main
from evalmark.code import CodeChecker, CodeTests, DataSyntax, PythonSyntax
from evalmark.code._kinds import (
    CODE_KINDS,
    CODE_TESTS,
    check_command,
    check_exit_codes,
    check_seconds,
)
from evalmark.strategies._kinds import option_schema

# The entry points evalmark's pyproject.toml declares for these kinds (the lead adds them):
ENTRY_POINTS = {
    "python-syntax": "evalmark.code._kinds:PYTHON_SYNTAX",
    "json-syntax": "evalmark.code._kinds:JSON_SYNTAX",
    "yaml-syntax": "evalmark.code._kinds:YAML_SYNTAX",
    "toml-syntax": "evalmark.code._kinds:TOML_SYNTAX",
    "code-checker": "evalmark.code._kinds:CODE_CHECKER",
    "code-tests": "evalmark.code._kinds:CODE_TESTS",
}


@pytest.fixture
def code_entry_points(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A registry that knows the code kinds only through those entry points."""
    kinds = {name: kind for name, kind in registry._kinds.items() if name not in ENTRY_POINTS}
    monkeypatch.setattr(registry, "_kinds", kinds)
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    points = EntryPoints(
        EntryPoint(name, value, registry.ENTRY_POINT_GROUP) for name, value in ENTRY_POINTS.items()
    )

    def entry_points(group: str) -> EntryPoints:
        return points if group == registry.ENTRY_POINT_GROUP else EntryPoints(())

    monkeypatch.setattr(registry, "entry_points", entry_points)
    yield


def test_the_entry_points_name_every_kind() -> None:
    assert sorted(ENTRY_POINTS) == sorted(kind.name for kind in CODE_KINDS)
    for name, value in ENTRY_POINTS.items():
        assert EntryPoint(name, value, registry.ENTRY_POINT_GROUP).load().name == name


def test_kinds_load_through_entry_points(code_entry_points: None) -> None:
    assert "code-tests" not in registry._kinds
    kind = registry.get_strategy_kind("code-tests")
    assert kind is CODE_TESTS
    assert {k.name for k in CODE_KINDS} <= set(registry.STRATEGY_KINDS)


def test_building_each_kind() -> None:
    built = {kind.name: kind.build({}, None) for kind in CODE_KINDS if kind.name != "code-checker"}
    assert isinstance(built["python-syntax"], PythonSyntax)
    assert isinstance(built["yaml-syntax"], DataSyntax) and built["yaml-syntax"].extract == "none"
    tests = built["code-tests"]
    assert isinstance(tests, CodeTests) and tests.sandbox.name == "bwrap"
    assert tests.name == "code-tests"


def test_options_become_limits_and_arguments() -> None:
    strategy = CODE_TESTS.build(
        {"sandbox": "local", "timeout": 3, "memory-mb": 256, "entry-point": "f", "name": "t"},
        None,
    )
    assert isinstance(strategy, CodeTests)
    assert strategy.sandbox.name == "local" and strategy.name == "t"
    assert strategy.limits.timeout == 3.0 and strategy.limits.memory_bytes == 256 * 1024**2
    assert strategy.limits.cpu_seconds > strategy.limits.timeout  # kept above the wall clock
    assert strategy.entry_point == "f"
    from evalmark.code._kinds import CODE_CHECKER

    checker = CODE_CHECKER.build({"command": "/bin/sh -c 'exit 0'", "timeout": 5}, None)
    assert isinstance(checker, CodeChecker)
    assert checker.command == ("/bin/sh", "-c", "exit 0") and checker.limits.timeout == 5.0


def test_option_checkers_and_their_schemas() -> None:
    assert check_seconds(2.5) is None and check_seconds(0) and check_seconds(True)
    assert check_command("ruff check") is None and check_command(["mypy", "--strict"]) is None
    assert check_command("") and check_command([1])
    assert check_exit_codes([0, 1]) is None and check_exit_codes([]) and check_exit_codes("0")
    assert option_schema(check_seconds) == {"type": "number", "exclusiveMinimum": 0}
    assert option_schema(CODE_TESTS.accepted["sandbox"]) == {"enum": ["bwrap", "local"]}


SAMPLES = """\
- name: double
  parameters: ["Write double(x)."]
  expected-output: "def double(x): return 2 * x"
  metadata:
    tests: |
      def test_double():
          assert double(4) == 8
- name: echo
  parameters: ["Write a program that prints its input."]
  expected-output: "print(input())"
  metadata:
    cases:
      - {name: hello, stdin: "hello\\n", expected-stdout: "hello\\n"}
- name: broken
  parameters: ["Write triple(x)."]
  expected-output: "def triple(x): return 3 * x"
  metadata:
    tests: "assert triple(2) == 6"
"""

APP = """\
REPLIES = {
    "Write double(x).": "```python\\ndef double(x):\\n    return 2 * x\\n```",
    "Write a program that prints its input.": "```python\\nprint(input())\\n```",
    "Write triple(x).": "```python\\ndef triple(x):\\n    return 2 * x\\n```",
}


def answer(question):
    return REPLIES[question]
"""


def write_suite(folder: Path, pass_rate: float) -> Path:
    (folder / "samples.yaml").write_text(SAMPLES)
    (folder / "app.py").write_text(APP)
    suite = folder / "suite.yaml"
    suite.write_text(
        "name: code\nsamples: samples.yaml\napplication:\n  function: app.py:answer\n"
        "strategies:\n  - python-syntax\n  - code-tests: {sandbox: local, timeout: 10}\n"
        f"gate:\n  pass-rate: {pass_rate}\n"
    )
    return suite


def test_a_suite_file_runs_code_checks(
    code_entry_points: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = write_suite(tmp_path, 0.6)
    assert main(["run", str(suite), "--no-report"]) == 0
    printed = capsys.readouterr().out
    assert "broken" in printed and "code-tests" in printed
    assert main(["run", str(write_suite(tmp_path, 0.9)), "--no-report", "-q"]) == 1


def test_a_bad_option_is_reported_with_the_suite_line(
    code_entry_points: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = write_suite(tmp_path, 0.5)
    suite.write_text(suite.read_text().replace("sandbox: local", "sandbox: docker"))
    assert main(["run", str(suite), "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "suite.yaml:" in err and "sandbox" in err and "'bwrap', 'local'" in err
