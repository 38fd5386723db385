"""The code evaluators as strategy kinds a suite file can name, and their options:

- ``python-syntax``: ``extract`` (``markdown``, the default; ``none``; or ``llm``: the suite's judge
  model copies the code out, recorded like any judge call), ``select``;
- ``json-syntax``, ``yaml-syntax``, ``toml-syntax``: ``extract`` (default ``none``), ``select``;
- ``code-checker``: ``command`` (required: ``"ruff check --select F"`` or a list),
  ``language``, ``filename``, ``timeout``, ``ok-exit-codes``, ``extract``, ``select``;
- ``code-tests``: ``tests``, ``entry-point``, ``language``, ``sandbox`` (``bwrap`` or
  ``local``), ``compare``, ``extract``, ``select``, and the limits ``timeout``,
  ``cpu-seconds``, ``memory-mb``, ``processes``, ``file-size-mb``, ``disk-mb``, ``files``,
  ``open-files``. Without ``tests`` it reads each sample's metadata (``tests``, ``cases``,
  ``entry-point``).

The kinds reach the registry (:mod:`evalmark.strategies._registry`) through the
``evalmark.strategies`` entry points of evalmark's own package metadata, so a suite file can
name them without importing this module; :func:`register_code_strategies` registers them by
hand (for an install without those entry points).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from evalmark.code._sandbox import Limits
from evalmark.code._strategies import CodeChecker, CodeTests, DataSyntax, PythonSyntax
from evalmark.errors import StrategyError
from evalmark.strategies._kinds import Checker, StrategyKind, check_choice, check_positive_int
from evalmark.strategies._kinds import check_text as _check_text
from evalmark.strategies._registry import STRATEGY_KINDS, register_strategy

__all__ = [
    "CODE_CHECKER",
    "CODE_KINDS",
    "CODE_TESTS",
    "JSON_SYNTAX",
    "PYTHON_SYNTAX",
    "TOML_SYNTAX",
    "YAML_SYNTAX",
    "register_code_strategies",
]

Options = Mapping[str, Any]
_MIB = 1024 * 1024


class _Check:
    """An option checker with the JSON Schema of the values it accepts."""

    def __init__(self, schema: dict[str, Any], check: Checker) -> None:
        self.schema = schema
        self._check = check

    def __call__(self, value: Any) -> str | None:
        return self._check(value)


def _positive_number(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        return "expected a number of seconds greater than 0"
    return None


def _command(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return None
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return None
    return "expected a command: a string ('ruff check --select F') or a list of strings"


def _exit_codes(value: Any) -> str | None:
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return None
    return "expected a list of exit codes, e.g. [0, 1]"


check_seconds = _Check({"type": "number", "exclusiveMinimum": 0}, _positive_number)
check_command = _Check(
    {
        "anyOf": [
            {"type": "string", "minLength": 1},
            {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
        ]
    },
    _command,
)
check_exit_codes = _Check(
    {"type": "array", "items": {"type": "integer"}, "minItems": 1}, _exit_codes
)
_EXTRACT: dict[str, Checker] = {
    "extract": check_choice("markdown", "none", "llm"),
    "select": check_choice("first", "last", "all"),
}
_LIMITS: dict[str, Checker] = {
    "timeout": check_seconds,
    "cpu-seconds": check_positive_int,
    "memory-mb": check_positive_int,
    "processes": check_positive_int,
    "file-size-mb": check_positive_int,
    "disk-mb": check_positive_int,
    "files": check_positive_int,
    "open-files": check_positive_int,
}


def _extracting(options: Options, judge: Any, default: str = "markdown") -> dict[str, Any]:
    extract = options.get("extract", default)
    if extract == "llm" and judge is None:
        raise StrategyError(
            f"check {options['name']!r}: extract: llm asks the suite's judge model to copy the "
            "code out; set judge: in the suite (a cassette records its calls)"
        )
    return {
        "extract": extract,
        "select": options.get("select", "first"),
        "name": options["name"],
        "extract_model": judge if extract == "llm" else None,
    }


def _limits(options: Options) -> Limits:
    fields: dict[str, Any] = {}
    if "timeout" in options:
        fields["timeout"] = float(options["timeout"])
    for option, field, scale in (
        ("cpu-seconds", "cpu_seconds", 1),
        ("memory-mb", "memory_bytes", _MIB),
        ("processes", "processes", 1),
        ("file-size-mb", "file_size_bytes", _MIB),
        ("disk-mb", "disk_bytes", _MIB),
        ("files", "files", 1),
        ("open-files", "open_files", 1),
    ):
        if option in options:
            fields[field] = int(options[option]) * scale
    if "timeout" in fields and "cpu-seconds" not in options:
        # keep the CPU limit above the wall clock (see Limits)
        fields["cpu_seconds"] = max(Limits().cpu_seconds, int(fields["timeout"]) * 2)
    return Limits(**fields)


def _data(format: str) -> StrategyKind:
    return StrategyKind(
        f"{format}-syntax",
        f"the output (or a fenced {format} block) parses as {format.upper()}",
        lambda o, j: DataSyntax(format, **_extracting(o, j, "none")),  # type: ignore[arg-type]
        dict(_EXTRACT),
    )


PYTHON_SYNTAX = StrategyKind(
    "python-syntax",
    "the code in the output parses and compiles as Python",
    lambda o, j: PythonSyntax(**_extracting(o, j)),
    dict(_EXTRACT),
)
JSON_SYNTAX = _data("json")
YAML_SYNTAX = _data("yaml")
TOML_SYNTAX = _data("toml")


def _code_checker(options: Options, judge: Any) -> CodeChecker:
    command = options.get("command")
    if not command:
        raise StrategyError(
            f"check {options['name']!r}: code-checker needs a 'command', for example "
            "command: ruff check {file}"
        )
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    return CodeChecker(
        argv,
        language=options.get("language", "python"),
        filename=options.get("filename"),
        timeout=float(options["timeout"]) if "timeout" in options else None,
        ok_exit_codes=tuple(options.get("ok-exit-codes", (0,))),
        **_extracting(options, judge),
    )


CODE_CHECKER = StrategyKind(
    "code-checker",
    "a command-line checker (ruff, mypy, shellcheck...) passes on the code in the output",
    _code_checker,
    {
        "command": check_command,
        "language": _check_text,
        "filename": _check_text,
        "timeout": check_seconds,
        "ok-exit-codes": check_exit_codes,
        **_EXTRACT,
    },
)


def _code_tests(options: Options, judge: Any) -> CodeTests:
    return CodeTests(
        options.get("tests"),
        entry_point=options.get("entry-point"),
        language=options.get("language", "python"),
        sandbox=options.get("sandbox", "bwrap"),
        limits=_limits(options),
        compare=options.get("compare", "lines"),
        **_extracting(options, judge),
    )


CODE_TESTS = StrategyKind(
    "code-tests",
    "the code in the output passes its tests (or stdin/stdout cases) in a sandbox",
    _code_tests,
    {
        "tests": _check_text,
        "entry-point": _check_text,
        "language": _check_text,
        "sandbox": check_choice("bwrap", "local"),
        "compare": check_choice("lines", "exact", "tokens"),
        **_EXTRACT,
        **_LIMITS,
    },
)

CODE_KINDS: tuple[StrategyKind, ...] = (
    PYTHON_SYNTAX,
    JSON_SYNTAX,
    YAML_SYNTAX,
    TOML_SYNTAX,
    CODE_CHECKER,
    CODE_TESTS,
)


def register_code_strategies() -> None:
    """Register the code kinds with the strategy registry (those not registered yet)."""
    for kind in CODE_KINDS:
        if kind.name not in STRATEGY_KINDS:
            register_strategy(kind)
