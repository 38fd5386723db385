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
  :class:`CodeChecker`, :class:`CodeTests` (suite-file kinds in :data:`CODE_KINDS`).

See docs/code.md.
"""

from __future__ import annotations

from evalmark.code._config import CodeConfig, GateCheck, check_gate, load_code_config
from evalmark.code._execute import IOCase, compare_output, run_cases, run_tests
from evalmark.code._extract import (
    CodeBlock,
    Extraction,
    extract_code,
    extraction_failed,
    markdown_blocks,
)
from evalmark.code._kinds import CODE_KINDS, register_code_strategies
from evalmark.code._passk import mean_pass_at_k, pass_at_k
from evalmark.code._sandbox import (
    PYTHON,
    SANDBOXES,
    BwrapSandbox,
    Limits,
    LocalSandbox,
    RunOutcome,
    RunRequest,
    Sandbox,
    bwrap_unavailable_reason,
    get_sandbox,
)
from evalmark.code._static import check_data_syntax, check_python_syntax, run_checker
from evalmark.code._strategies import (
    CodeChecker,
    CodeTests,
    DataSyntax,
    PythonSyntax,
)
from evalmark.code._tasks import (
    CodeRun,
    CodeTask,
    SampleResult,
    Solution,
    TaskResult,
    evaluate_completion,
    load_solutions,
    load_tasks,
    run_tasks,
)
from evalmark.errors import SandboxUnavailableError

__all__ = [
    "CODE_KINDS",
    "PYTHON",
    "SANDBOXES",
    "BwrapSandbox",
    "CodeBlock",
    "CodeChecker",
    "CodeConfig",
    "CodeRun",
    "CodeTask",
    "CodeTests",
    "DataSyntax",
    "Extraction",
    "GateCheck",
    "IOCase",
    "Limits",
    "LocalSandbox",
    "PythonSyntax",
    "RunOutcome",
    "RunRequest",
    "SampleResult",
    "Sandbox",
    "SandboxUnavailableError",
    "Solution",
    "TaskResult",
    "bwrap_unavailable_reason",
    "check_data_syntax",
    "check_gate",
    "check_python_syntax",
    "compare_output",
    "evaluate_completion",
    "extract_code",
    "extraction_failed",
    "get_sandbox",
    "load_code_config",
    "load_solutions",
    "load_tasks",
    "markdown_blocks",
    "mean_pass_at_k",
    "pass_at_k",
    "register_code_strategies",
    "run_cases",
    "run_checker",
    "run_tasks",
    "run_tests",
]
