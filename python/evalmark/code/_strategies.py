"""The code evaluators as engine strategies (``evaluate(sample, output) -> EvaluationResult``),
usable with :class:`evalmark.Scorer` and from suite files (their kinds are in
:mod:`evalmark.code._kinds`).

Each takes the code out of the output first (``extract``: ``"markdown"``, ``"none"``,
``"llm"`` with ``extract_model``, or a function; see :mod:`evalmark.code._extract`); when
there is none the result fails with metadata ``reason`` ``code_extraction_failed``.
:class:`CodeTests` reads its tests from the strategy's arguments or from the sample's metadata
(``tests``, ``cases``, ``entry-point``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evalmark._tracing._direct import recorded
from evalmark.code._execute import Compare, IOCase, run_cases, run_tests
from evalmark.code._extract import Extractor, Select, extract_code, extraction_failed
from evalmark.code._sandbox import PYTHON, Limits, SandboxSpec, get_sandbox
from evalmark.code._static import (
    CHECKER_LIMITS,
    DataFormat,
    check_data_syntax,
    check_python_syntax,
    resolve_command,
    run_checker,
)
from evalmark.errors import StrategyError
from evalmark.models._protocols import ChatModel
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import output_text

__all__ = [
    "CodeChecker",
    "CodeTests",
    "DataSyntax",
    "PythonSyntax",
    "cases_from",
]

_FILENAMES = {
    "python": "solution.py",
    "shell": "script.sh",
    "javascript": "solution.js",
    "typescript": "solution.ts",
    "json": "data.json",
    "yaml": "data.yaml",
    "toml": "data.toml",
}


class _Extracting:
    """Reads the code out of an output; shared by every code strategy."""

    name: str

    def __init__(
        self,
        *,
        extract: Extractor,
        language: str | None,
        select: Select,
        name: str,
        extract_model: ChatModel | None = None,
    ) -> None:
        if not callable(extract) and extract not in ("none", "markdown", "llm"):
            raise ValueError(
                f"{name}: extract must be 'none', 'markdown', 'llm' or a function (reply) -> "
                f"str | None, got {extract!r}"
            )
        if extract == "llm" and extract_model is None:
            raise ValueError(
                f"{name}: extract='llm' needs extract_model= (a chat model; a cassette records "
                "its calls)"
            )
        if select not in ("first", "last", "all"):
            raise ValueError(f"{name}: select must be 'first', 'last' or 'all', got {select!r}")
        self.extract = extract
        self.extract_model = extract_model
        self.language = language
        self.select: Select = select
        self.name = name

    def _code(self, sample: Sample, output: Any) -> tuple[str | None, str]:
        text = output_text(output, strategy=self.name, sample=sample)
        found = extract_code(
            text,
            self.extract,
            language=self.language,
            select=self.select,
            model=self.extract_model,
        )
        return found.code, found.reason


class PythonSyntax(_Extracting):
    """Passes when the extracted code parses and compiles as Python."""

    def __init__(
        self,
        *,
        extract: Extractor = "markdown",
        extract_model: ChatModel | None = None,
        select: Select = "first",
        name: str | None = None,
    ) -> None:
        super().__init__(
            extract=extract,
            language="python",
            select=select,
            name=name or "python-syntax",
            extract_model=extract_model,
        )

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Parse and compile the code."""
        code, reason = self._code(sample, output)
        if code is None:
            return extraction_failed(reason)
        return check_python_syntax(code)


class DataSyntax(_Extracting):
    """Passes when the output (by default the whole of it; ``extract="markdown"`` takes a
    fenced block of that language) parses as ``format``: ``json``, ``yaml`` or ``toml``."""

    def __init__(
        self,
        format: DataFormat,
        *,
        extract: Extractor = "none",
        extract_model: ChatModel | None = None,
        select: Select = "first",
        name: str | None = None,
    ) -> None:
        if format not in ("json", "yaml", "toml"):
            raise ValueError(f"format must be 'json', 'yaml' or 'toml', got {format!r}")
        self.format: DataFormat = format
        super().__init__(
            extract=extract,
            language=format,
            select=select,
            name=name or f"{format}-syntax",
            extract_model=extract_model,
        )

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Parse the text."""
        code, reason = self._code(sample, output)
        if code is None:
            return extraction_failed(reason)
        return check_data_syntax(code, self.format)


class CodeChecker(_Extracting):
    """Runs a command-line checker (``ruff``, ``mypy``, ``shellcheck``...) on the extracted
    code, written to ``filename`` (by language: ``solution.py``, ``script.sh``...); passes when
    it exits with one of ``ok_exit_codes``, else its diagnostics are the explanation.
    ``{file}`` in the command is the file (appended when absent)."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        language: str = "python",
        extract: Extractor = "markdown",
        extract_model: ChatModel | None = None,
        select: Select = "first",
        filename: str | None = None,
        sandbox: SandboxSpec = "local",
        timeout: float | None = None,
        ok_exit_codes: Sequence[int] = (0,),
        name: str | None = None,
    ) -> None:
        if isinstance(command, str):
            command = command.split()
        self.command = tuple(command)
        resolve_command(self.command)  # fail now, not on every sample
        super().__init__(
            extract=extract,
            language=language,
            select=select,
            name=name or self.command[0].rsplit("/", 1)[-1],
            extract_model=extract_model,
        )
        self.filename = filename or _FILENAMES.get(language, "solution.txt")
        self.sandbox = get_sandbox(sandbox)
        self.limits = (
            CHECKER_LIMITS
            if timeout is None
            else Limits(
                timeout=timeout,
                cpu_seconds=max(int(timeout), 1),
                memory_bytes=CHECKER_LIMITS.memory_bytes,
                processes=CHECKER_LIMITS.processes,
                output_bytes=CHECKER_LIMITS.output_bytes,
            )
        )
        self.ok_exit_codes = tuple(ok_exit_codes)

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Run the checker on the code."""
        code, reason = self._code(sample, output)
        if code is None:
            return extraction_failed(reason, sandbox=self.sandbox.name)
        return run_checker(
            code,
            self.command,
            filename=self.filename,
            sandbox=self.sandbox,
            limits=self.limits,
            ok_exit_codes=self.ok_exit_codes,
        )


def cases_from(value: object, *, where: str) -> tuple[IOCase, ...]:
    """Stdin/stdout cases from a list of mappings with ``name``, ``stdin``,
    ``expected-stdout`` (or ``expected_stdout``) and ``args``; names default to ``case-N``."""
    if isinstance(value, IOCase):
        return (value,)
    if not isinstance(value, list | tuple) or not value:
        raise StrategyError(f"{where}: cases must be a non-empty list of mappings")
    cases: list[IOCase] = []
    for number, item in enumerate(value, start=1):
        if isinstance(item, IOCase):
            cases.append(item)
            continue
        if not isinstance(item, Mapping):
            raise StrategyError(f"{where}: case {number} must be a mapping, got {item!r}")
        fields = {str(k).replace("_", "-"): v for k, v in item.items()}
        unknown = set(fields) - {"name", "stdin", "expected-stdout", "args"}
        if unknown:
            raise StrategyError(
                f"{where}: case {number} has unknown keys {sorted(unknown)}; the keys are "
                "name, stdin, expected-stdout, args"
            )
        expected = fields.get("expected-stdout")
        stdin = fields.get("stdin", "")
        args = fields.get("args", [])
        name = fields.get("name", f"case-{number}")
        if not isinstance(expected, str):
            raise StrategyError(f"{where}: case {number} needs expected-stdout (a string)")
        if not isinstance(stdin, str) or not isinstance(name, str):
            raise StrategyError(f"{where}: case {number}: name and stdin must be strings")
        if not isinstance(args, list | tuple) or not all(isinstance(a, str) for a in args):
            raise StrategyError(f"{where}: case {number}: args must be a list of strings")
        cases.append(IOCase(name=name, expected_stdout=expected, stdin=stdin, args=tuple(args)))
    return tuple(cases)


class CodeTests(_Extracting):
    """Runs the extracted program in a sandbox against test code or stdin/stdout cases.

    ``tests`` (Python test code, see :func:`evalmark.code.run_tests`) or ``cases``
    (:class:`IOCase` items or mappings); when neither is given, each sample's metadata
    supplies ``tests`` or ``cases`` (and ``entry-point``). ``sandbox`` is ``"bwrap"`` (the
    default), ``"local"`` (not a security boundary) or a :class:`~evalmark.code.Sandbox`
    object; its name is in every result's metadata.
    """

    def __init__(
        self,
        tests: str | None = None,
        cases: Sequence[IOCase | Mapping[str, Any]] | None = None,
        *,
        entry_point: str | None = None,
        language: str = "python",
        extract: Extractor = "markdown",
        extract_model: ChatModel | None = None,
        select: Select = "first",
        sandbox: SandboxSpec = "bwrap",
        limits: Limits | None = None,
        compare: Compare = "lines",
        command: Sequence[str] = (PYTHON, "{file}"),
        name: str | None = None,
    ) -> None:
        super().__init__(
            extract=extract,
            language=language,
            select=select,
            name=name or "code-tests",
            extract_model=extract_model,
        )
        if tests is not None and cases is not None:
            raise ValueError(f"{self.name}: give tests or cases, not both")
        self.tests = tests
        self.cases = cases_from(list(cases), where=self.name) if cases is not None else None
        self.entry_point = entry_point
        self.sandbox = get_sandbox(sandbox)
        self.limits = limits or Limits()
        self.compare: Compare = compare
        self.command = tuple(command)
        self.filename = _FILENAMES.get(language, "solution.txt")

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Run the code against the tests or cases."""
        tests, cases, entry_point = self._checks_for(sample)
        code, reason = self._code(sample, output)
        if code is None:
            return extraction_failed(reason, sandbox=self.sandbox.name)
        if tests is not None:
            return run_tests(
                code, tests, sandbox=self.sandbox, limits=self.limits, entry_point=entry_point
            )
        assert cases is not None
        return run_cases(
            code,
            cases,
            sandbox=self.sandbox,
            limits=self.limits,
            command=self.command,
            filename=self.filename,
            compare=self.compare,
        )

    def _checks_for(self, sample: Sample) -> tuple[str | None, tuple[IOCase, ...] | None, Any]:
        if self.tests is not None or self.cases is not None:
            return self.tests, self.cases, self.entry_point
        meta = sample.metadata
        where = f"{self.name}: sample '{sample.name}'"
        tests = meta.get("tests")
        raw_cases = meta.get("cases")
        entry_point = meta.get("entry-point", meta.get("entry_point", self.entry_point))
        if tests is None and raw_cases is None:
            raise StrategyError(
                f"{where} has no tests: give the strategy tests= or cases=, or put 'tests' "
                "(Python test code) or 'cases' (stdin/stdout cases) in the sample's metadata"
            )
        if tests is not None and raw_cases is not None:
            raise StrategyError(f"{where}: metadata holds both tests and cases; keep one")
        if tests is not None and not isinstance(tests, str):
            raise StrategyError(f"{where}: metadata 'tests' must be Python code (a string)")
        if entry_point is not None and not isinstance(entry_point, str):
            raise StrategyError(f"{where}: metadata 'entry-point' must be a function name")
        cases = cases_from(raw_cases, where=where) if raw_cases is not None else None
        return tests, cases, entry_point
