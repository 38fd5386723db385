"""Static checks: Python, JSON, YAML and TOML syntax; command-line checkers."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalmark.code import Limits, check_data_syntax, check_python_syntax, run_checker
from evalmark.errors import StrategyError


def test_valid_python_passes() -> None:
    result = check_python_syntax("def f(x):\n    return x * 2\n")
    assert result.passed and result.metadata["reason"] == "passed"


def test_a_parse_error_names_line_and_column() -> None:
    result = check_python_syntax("x = 1\ndef f(:\n    pass\n")
    assert not result.passed
    assert result.metadata["reason"] == "syntax_error"
    assert result.metadata["line"] == 2
    assert "solution.py, line 2" in result.explanation
    assert "def f(:" in result.explanation


@pytest.mark.parametrize(
    "code",
    ["return 1\n", "nonlocal x\n", "def f():\n    x = 1\n    global x\n", "await g()\n"],
)
def test_errors_only_the_compiler_finds(code: str) -> None:
    import ast

    ast.parse(code)  # the parser accepts these...
    result = check_python_syntax(code)  # ...compile() does not
    assert not result.passed and result.metadata["reason"] == "syntax_error"


def test_a_nul_byte_is_a_syntax_error_not_a_crash() -> None:
    result = check_python_syntax("x = 1\0\n")
    assert not result.passed and result.metadata["reason"] == "syntax_error"


@pytest.mark.parametrize(
    ("format", "good", "bad", "where"),
    [
        ("json", '{"a": [1, 2.5, null]}', '{"a": 1,}', (1, 9)),
        ("yaml", "a: [1, 2]\n---\nb: c\n", "a: [1, 2\nb: c\n", (2, 2)),
        ("toml", 'a = 1\n[t]\nb = "x"\n', "a = \n", None),
    ],
)
def test_data_formats(format: str, good: str, bad: str, where: tuple[int, int] | None) -> None:
    assert check_data_syntax(good, format).passed  # type: ignore[arg-type]
    result = check_data_syntax(bad, format)  # type: ignore[arg-type]
    assert not result.passed and result.metadata["reason"] == "parse_error"
    assert result.explanation.startswith(f"not valid {format.upper()}")
    if where is not None:
        assert (result.metadata["line"], result.metadata["column"]) == where


def test_json_refuses_nan_and_infinity() -> None:
    for text in ('{"a": NaN}', "[Infinity]", "-Infinity"):
        assert not check_data_syntax(text, "json").passed


def test_yaml_is_read_safely() -> None:
    result = check_data_syntax("!!python/object/apply:os.system ['echo hi']", "yaml")
    assert not result.passed  # the safe loader refuses the tag; nothing runs


def test_unknown_format() -> None:
    with pytest.raises(ValueError, match="format must be"):
        check_data_syntax("x", "xml")  # type: ignore[arg-type]


@pytest.fixture
def tool_dir() -> Iterator[Path]:
    """A folder any user can read (the sandbox may run as another user)."""
    folder = Path(tempfile.mkdtemp(prefix="evalmark-tools-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for item in folder.iterdir():
            item.unlink()
        folder.rmdir()


def make_checker(folder: Path, body: str) -> str:
    script = folder / "fake-checker"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH | 0o444)
    return str(script)


def test_a_checker_that_passes(tool_dir: Path) -> None:
    checker = make_checker(tool_dir, 'test -f "$1" && exit 0\nexit 3\n')
    result = run_checker("x = 1\n", [checker])
    assert result.passed and result.metadata["reason"] == "passed"
    assert result.metadata["sandbox"] == "local"


def test_a_checkers_diagnostics_are_the_explanation(tool_dir: Path) -> None:
    checker = make_checker(tool_dir, 'echo "$2:1:1: E999 made-up problem"\necho oops >&2\nexit 1\n')
    result = run_checker("x = 1\n", [checker, "--strict", "{file}"], filename="mod.py")
    assert not result.passed
    assert result.metadata["reason"] == "checker_failed"
    assert result.metadata["exit_code"] == 1
    assert "mod.py:1:1: E999 made-up problem" in result.explanation
    assert "oops" in result.explanation
    assert "fake-checker reported problems (exit code 1)" in result.explanation


def test_ok_exit_codes(tool_dir: Path) -> None:
    checker = make_checker(tool_dir, "exit 2\n")
    assert run_checker("x", [checker], ok_exit_codes=(0, 2)).passed
    assert not run_checker("x", [checker]).passed


def test_a_checker_that_hangs_is_killed(tool_dir: Path) -> None:
    checker = make_checker(tool_dir, "sleep 30\n")
    result = run_checker("x", [checker], limits=Limits(timeout=1.0))
    assert not result.passed
    assert result.metadata["reason"] == "timeout"
    assert "timed out after 1 s" in result.explanation


def test_a_missing_checker_is_a_clear_error() -> None:
    with pytest.raises(StrategyError, match="not found on PATH"):
        run_checker("x", ["evalmark-no-such-checker", "{file}"])


def test_ruff_on_real_code() -> None:
    if not os.access(os.path.join(os.path.dirname(sys.executable), "ruff"), os.X_OK):
        pytest.skip("ruff is not installed next to this interpreter")
    bad = run_checker("import os\n", ["ruff", "check", "--no-cache", "--select", "F", "{file}"])
    assert not bad.passed and "F401" in bad.explanation and "solution.py" in bad.explanation
    good = run_checker("print(1)\n", ["ruff", "check", "--no-cache", "--select", "F", "{file}"])
    assert good.passed, good.explanation
