"""Evaluators for generated code: extraction, static checks, sandboxed execution, pass@k.

- :func:`extract_code`: the code in a reply (``"none"``, ``"markdown"`` fenced blocks with a
  language filter, or a function).
- :func:`check_python_syntax`, :func:`check_data_syntax` (JSON, YAML, TOML) and
  :func:`run_checker` (any command-line checker: ruff, mypy, shellcheck...).
- :func:`run_tests` (Python test code) and :func:`run_cases` (stdin/stdout cases) in a sandbox:
  ``"bwrap"`` (bubblewrap namespaces), ``"local"`` (rlimits only; not a security boundary) or
  any :class:`Sandbox` object.
- :func:`pass_at_k` and :func:`run_tasks`: n recorded samples per task, scored in the sandbox.
- Strategies for the engine and suite files: :class:`PythonSyntax`, :class:`DataSyntax`,
  :class:`CodeChecker`, :class:`CodeTests` (suite-file kinds, added by
  :func:`register_code_strategies`).

See docs/code.md.
"""

from __future__ import annotations

from evalmark.code._execute import IOCase, run_cases, run_tests
from evalmark.code._extract import extract_code
from evalmark.code._kinds import register_code_strategies
from evalmark.code._passk import pass_at_k
from evalmark.code._sandbox import Limits, RunOutcome, RunRequest, Sandbox
from evalmark.code._static import check_data_syntax, check_python_syntax, run_checker
from evalmark.code._strategies import (
    CodeChecker,
    CodeTests,
    DataSyntax,
    PythonSyntax,
)
from evalmark.code._tasks import run_tasks

__all__ = [
    "CodeChecker",
    "CodeTests",
    "DataSyntax",
    "IOCase",
    "Limits",
    "PythonSyntax",
    "RunOutcome",
    "RunRequest",
    "Sandbox",
    "check_data_syntax",
    "check_python_syntax",
    "extract_code",
    "pass_at_k",
    "register_code_strategies",
    "run_cases",
    "run_checker",
    "run_tasks",
    "run_tests",
]
