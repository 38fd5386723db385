"""Static checks of extracted code: Python parses and compiles; JSON, YAML or TOML parses; or a
command-line checker (``ruff``, ``mypy``, ``shellcheck``, ...) passes on the file.

Each returns an :class:`~evalmark.results._results.EvaluationResult` whose metadata ``reason`` is
``passed``, ``syntax_error``, ``parse_error``, ``checker_failed`` or ``timeout``; failures
say where (line and column) and what.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import sys
import tomllib
from collections.abc import Sequence
from typing import Any, Literal

import yaml

from evalmark.code._sandbox import Limits, RunRequest, SandboxSpec, get_sandbox, tail
from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult

__all__ = [
    "CHECKER_LIMITS",
    "DataFormat",
    "check_data_syntax",
    "check_python_syntax",
    "run_checker",
]

DataFormat = Literal["json", "yaml", "toml"]

CHECKER_LIMITS = Limits(
    timeout=60.0,
    cpu_seconds=60,
    memory_bytes=4096 * 1024 * 1024,
    processes=256,
    output_bytes=64 * 1024,
    open_files=4096,
)
"""Limits for a command-line checker: type checkers need more memory and time than the code."""


def check_python_syntax(code: str, *, filename: str = "solution.py") -> EvaluationResult:
    """Passes when ``code`` parses (``ast.parse``) and compiles (``compile``, which also finds
    errors the parser accepts, such as ``return`` outside a function)."""
    try:
        tree = ast.parse(code, filename=filename)
        compile(tree, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        line = exc.lineno or 0
        column = exc.offset or 0
        source = (exc.text or "").strip()
        where = f"{filename}, line {line}, column {column}"
        text = f"Python syntax error: {exc.msg} ({where})"
        if source:
            text += f": {source}"
        meta = {"reason": "syntax_error", "line": line, "column": column, "message": exc.msg}
        return EvaluationResult.failing(text, metadata=meta)
    except ValueError as exc:  # e.g. a NUL byte in the source
        meta = {"reason": "syntax_error", "message": str(exc)}
        return EvaluationResult.failing(f"Python syntax error: {exc}", metadata=meta)
    except (RecursionError, MemoryError):  # CPython's parser on very deep nesting
        message = "nested deeper than the Python parser can follow"
        meta = {"reason": "syntax_error", "message": message}
        return EvaluationResult.failing(f"Python syntax error: {message}", metadata=meta)
    return EvaluationResult.passing(1.0, "parses and compiles as Python", {"reason": "passed"})


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


def check_data_syntax(text: str, format: DataFormat) -> EvaluationResult:
    """Passes when ``text`` parses as ``format``: ``json`` (RFC 8259: no NaN or Infinity),
    ``yaml`` (safe loader; several documents allowed) or ``toml``."""
    try:
        if format == "json":
            json.loads(text, parse_constant=_no_constants)
        elif format == "yaml":
            for _ in yaml.safe_load_all(text):
                pass
        elif format == "toml":
            tomllib.loads(text)
        else:
            raise ValueError(f"format must be 'json', 'yaml' or 'toml', got {format!r}")
    except json.JSONDecodeError as exc:
        return _parse_failure(format, exc.msg, exc.lineno, exc.colno)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "unreadable YAML"
        return _parse_failure(
            format, problem, mark.line + 1 if mark else None, mark.column + 1 if mark else None
        )
    except yaml.YAMLError as exc:
        return _parse_failure(format, str(exc), None, None)
    except tomllib.TOMLDecodeError as exc:
        return _parse_failure(format, str(exc), None, None)
    except ValueError as exc:
        if str(exc).startswith("format must be"):
            raise
        return _parse_failure(format, str(exc), None, None)
    except RecursionError:
        return _parse_failure(format, "nested deeper than the parser can follow", None, None)
    return EvaluationResult.passing(1.0, f"parses as {format.upper()}", {"reason": "passed"})


def _parse_failure(
    format: str, message: str, line: int | None, column: int | None
) -> EvaluationResult:
    where = f" (line {line}, column {column})" if line is not None else ""
    meta: dict[str, Any] = {"reason": "parse_error", "message": message}
    if line is not None:
        meta["line"], meta["column"] = line, column
    return EvaluationResult.failing(f"not valid {format.upper()}: {message}{where}", metadata=meta)


def resolve_command(command: Sequence[str]) -> list[str]:
    """``command`` with its program found on PATH or next to the running interpreter (where a
    virtualenv keeps ruff and mypy); :class:`StrategyError` when it is nowhere."""
    if not command:
        raise StrategyError("a checker command is needed, e.g. ['ruff', 'check', '{file}']")
    program = command[0]
    if os.sep in program:
        found = program if os.access(program, os.X_OK) else None
    else:
        search = os.pathsep.join(
            [os.environ.get("PATH", os.defpath), os.path.dirname(sys.executable)]
        )
        found = shutil.which(program, path=search)
    if found is None:
        raise StrategyError(
            f"checker {program!r} not found on PATH: install it, or give its full path"
        )
    return [found, *command[1:]]


def run_checker(
    code: str,
    command: Sequence[str],
    *,
    filename: str = "solution.py",
    sandbox: SandboxSpec = "local",
    limits: Limits = CHECKER_LIMITS,
    ok_exit_codes: Sequence[int] = (0,),
) -> EvaluationResult:
    """Write ``code`` to ``filename`` in a fresh work directory and run ``command`` on it.

    ``{file}`` in the command is the file name (appended when absent). Passes when the
    checker exits with one of ``ok_exit_codes``; otherwise the explanation holds its
    diagnostics (stdout, then stderr). Runs in the ``local`` sandbox by default: checkers read
    the code, they do not run it, and they usually live outside the system directories a
    bwrap sandbox exposes.
    """
    argv = resolve_command(command)
    label = os.path.basename(argv[0])
    if not any("{file}" in item for item in argv):
        argv.append("{file}")
    argv = [item.replace("{file}", filename) for item in argv]
    box = get_sandbox(sandbox)
    outcome = box.run(RunRequest(argv=tuple(argv), files={filename: code.encode()}), limits)
    output = b"\n".join(part.strip() for part in (outcome.stdout, outcome.stderr) if part.strip())
    diagnostics = tail(output, 2000)
    meta: dict[str, Any] = {
        "sandbox": outcome.sandbox,
        "checker": label,
        "exit_code": outcome.exit_code,
        "diagnostics": diagnostics,
    }
    if outcome.timed_out:
        meta["reason"] = "timeout"
        text = f"{label} timed out after {limits.timeout:g} s"
        return EvaluationResult.failing(text + _block(diagnostics), metadata=meta)
    if outcome.exit_code is not None and outcome.exit_code in ok_exit_codes:
        meta["reason"] = "passed"
        return EvaluationResult.passing(1.0, f"{label}: no problems", meta)
    meta["reason"] = "checker_failed"
    text = f"{label} reported problems ({outcome.describe()})"
    return EvaluationResult.failing(text + _block(diagnostics), metadata=meta)


def _block(text: str) -> str:
    return f":\n{text}" if text else ""
