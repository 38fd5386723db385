"""Programming tasks, recorded solutions, and scoring them in a sandbox with pass@k.

A **task** has an ``id``, an optional ``prompt``, a ``language`` (``python``), and either
``tests`` (Python test code, see :func:`evalmark.code.run_tests`; ``entry-point`` for a
HumanEval-style ``check(candidate)``) or ``cases`` (stdin/stdout cases). Tasks come from a YAML,
JSON or JSON Lines file.

A **solution** is one recorded model completion: ``{"task": ID, "sample": N, "completion":
TEXT}``, one per line of a JSON Lines file; ``sample`` numbers the n samples of a task (0, 1,
...). The completion is the model's whole reply; the code is extracted from it.

:func:`run_tasks` scores every solution (``concurrency`` at a time; results in task order,
then sample order, whatever the timing) and reports, per task and overall, the unbiased pass@k.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec

from evalmark._files.read import read_records
from evalmark._files.source import format_of, read_bytes
from evalmark._files.validate import RecordSpec, Report, convert_records
from evalmark.code._execute import IOCase, run_cases, run_tests
from evalmark.code._extract import Extractor, Select, extract_code, extraction_failed
from evalmark.code._passk import mean_pass_at_k, pass_at_k
from evalmark.code._sandbox import Limits, SandboxSpec, get_sandbox
from evalmark.code._sandbox.stop import stop_scope
from evalmark.errors import DataFileError, Problem
from evalmark.results._results import EvaluationResult

__all__ = [
    "CaseSpec",
    "CodeRun",
    "CodeTask",
    "SampleResult",
    "Solution",
    "TaskResult",
    "evaluate_completion",
    "load_solutions",
    "load_tasks",
    "run_tasks",
]


class CaseSpec(
    msgspec.Struct, frozen=True, kw_only=True, rename="kebab", forbid_unknown_fields=True
):
    """A stdin/stdout case as written in a tasks file."""

    expected_stdout: str
    name: str | None = None
    stdin: str = ""
    args: tuple[str, ...] = ()


class CodeTask(
    msgspec.Struct, frozen=True, kw_only=True, rename="kebab", forbid_unknown_fields=True
):
    """One programming task: test code or stdin/stdout cases for the code a model writes."""

    id: str
    prompt: str = ""
    language: str = "python"
    tests: str | None = None
    cases: tuple[CaseSpec, ...] | None = None
    entry_point: str | None = None
    tags: tuple[str, ...] = ()

    def io_cases(self) -> tuple[IOCase, ...]:
        """The task's cases as :class:`IOCase` values (unnamed ones are ``case-N``)."""
        return tuple(
            IOCase(
                name=case.name or f"case-{number}",
                expected_stdout=case.expected_stdout,
                stdin=case.stdin,
                args=case.args,
            )
            for number, case in enumerate(self.cases or (), start=1)
        )


class Solution(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One recorded completion: sample number ``sample`` of task ``task``."""

    task: str
    sample: int
    completion: str


TASK_SPEC = RecordSpec(
    kind="task",
    keys=("id", "prompt", "language", "tests", "cases", "entry-point", "tags"),
    aliases={"name": "id", "test": "tests", "entrypoint": "entry-point"},
    nested_lists={
        "cases": RecordSpec(
            kind="case",
            keys=("name", "stdin", "expected-stdout", "args"),
            aliases={"expected": "expected-stdout", "stdout": "expected-stdout"},
        )
    },
)
SOLUTION_SPEC = RecordSpec(
    kind="solution",
    keys=("task", "sample", "completion"),
    aliases={"task-id": "task", "index": "sample", "output": "completion"},
)


def _task_rules(fields: dict[str, Any], report: Report) -> None:
    has_tests, has_cases = fields.get("tests") is not None, fields.get("cases") is not None
    if has_tests == has_cases:
        report(
            (),
            "a task needs exactly one of 'tests' (Python test code) and 'cases' (stdin/stdout "
            "cases)" + ("; it has both" if has_tests else ""),
        )
    if fields.get("language", "python") != "python" and has_tests:
        report(("tests",), "'tests' are Python test code: use 'cases' for other languages")


def _solution_rules(fields: dict[str, Any], report: Report) -> None:
    sample = fields.get("sample")
    if isinstance(sample, int) and not isinstance(sample, bool) and sample < 0:
        report(("sample",), f"sample must be a number >= 0, got {sample}", of_value=True)


def _records(path: Path, what: str) -> tuple[str, list[Any]]:
    fmt = format_of(path)
    if fmt is None:
        raise DataFileError(
            [Problem(f"a {what} file is .yaml, .yml, .json or .jsonl", path=str(path))]
        )
    return fmt, read_records(read_bytes(path, DataFileError), str(path), fmt, DataFileError)


def load_tasks(path: str | os.PathLike[str]) -> tuple[CodeTask, ...]:
    """Read tasks from a YAML, JSON or JSON Lines file; problems name the file and line."""
    target = Path(path)
    fmt, records = _records(target, "tasks")
    tasks = convert_records(
        records,
        path=str(target),
        spec=TASK_SPEC,
        target=CodeTask,
        error=DataFileError,
        snake_case=fmt != "yaml",
        rules=_task_rules,
        unique_key="id",
        name_key="id",
    )
    return tuple(tasks)


def load_solutions(path: str | os.PathLike[str]) -> tuple[Solution, ...]:
    """Read recorded solutions (JSON Lines: ``task``, ``sample``, ``completion``)."""
    target = Path(path)
    fmt, records = _records(target, "solutions")
    solutions = convert_records(
        records,
        path=str(target),
        spec=SOLUTION_SPEC,
        target=Solution,
        error=DataFileError,
        snake_case=fmt != "yaml",
        rules=_solution_rules,
        name_key="task",
    )
    seen: dict[tuple[str, int], int] = {}
    problems = []
    for record, solution in zip(records, solutions, strict=True):
        key = (solution.task, solution.sample)
        if key in seen:
            problems.append(
                Problem(
                    f"task '{solution.task}' sample {solution.sample} is recorded twice "
                    f"(first at line {seen[key]}); number the samples 0, 1, 2...",
                    path=str(target),
                    line=record.line,
                )
            )
        else:
            seen[key] = record.line
    if problems:
        raise DataFileError(problems[:20], more=max(len(problems) - 20, 0))
    return tuple(solutions)


# --------------------------------------------------------------------------- running


@dataclass(frozen=True, slots=True)
class SampleResult:
    """The verdict on one solution."""

    task: str
    sample: int
    result: EvaluationResult

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"task": self.task, "sample": self.sample, **self.result.to_dict()}


@dataclass(frozen=True, slots=True)
class TaskResult:
    """One task's samples, how many passed, and its pass@k for each k asked."""

    id: str
    samples: tuple[SampleResult, ...]
    pass_at_k: Mapping[int, float]

    @property
    def n(self) -> int:
        """Samples scored."""
        return len(self.samples)

    @property
    def correct(self) -> int:
        """Samples that passed."""
        return sum(1 for s in self.samples if s.result.passed)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "id": self.id,
            "n": self.n,
            "correct": self.correct,
            "pass_at_k": {f"pass@{k}": v for k, v in self.pass_at_k.items()},
            "samples": [s.to_dict() for s in self.samples],
        }


@dataclass(frozen=True, slots=True)
class CodeRun:
    """Everything :func:`run_tasks` found: per task and overall pass@k, in task order."""

    sandbox: str
    k: tuple[int, ...]
    tasks: tuple[TaskResult, ...]
    pass_at_k: Mapping[int, float] = field(default_factory=dict)

    @property
    def samples(self) -> tuple[SampleResult, ...]:
        """Every sample's result, task by task."""
        return tuple(s for task in self.tasks for s in task.samples)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (no timings, no paths: the same inputs give the same dict)."""
        return {
            "sandbox": self.sandbox,
            "k": list(self.k),
            "pass_at_k": {f"pass@{k}": v for k, v in self.pass_at_k.items()},
            "tasks": [t.to_dict() for t in self.tasks],
        }


def evaluate_completion(
    task: CodeTask,
    completion: str,
    *,
    sandbox: SandboxSpec = "bwrap",
    limits: Limits | None = None,
    extract: Extractor = "markdown",
    select: Select = "first",
) -> EvaluationResult:
    """Extract the code from one completion and run it against ``task``'s tests or cases."""
    box = get_sandbox(sandbox)
    found = extract_code(completion, extract, language=task.language, select=select)
    if found.code is None:
        return extraction_failed(found.reason, sandbox=box.name)
    if task.tests is not None:
        return run_tests(
            found.code, task.tests, sandbox=box, limits=limits, entry_point=task.entry_point
        )
    return run_cases(found.code, task.io_cases(), sandbox=box, limits=limits)


def _check_k(k: Iterable[int], counts: Mapping[str, int]) -> tuple[int, ...]:
    ks = tuple(sorted(set(k)))
    if not ks:
        raise ValueError("give at least one k for pass@k, e.g. k=(1,)")
    for value in ks:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"every k of pass@k must be a whole number >= 1, got {value!r}")
    short = [f"{task} ({n})" for task, n in counts.items() if n < ks[-1]]
    if short:
        listed = ", ".join(short[:5]) + (f" and {len(short) - 5} more" if len(short) > 5 else "")
        raise ValueError(
            f"pass@{ks[-1]} needs at least {ks[-1]} samples per task; too few for {listed}: "
            "record more samples or ask for a smaller k"
        )
    return ks


def run_tasks(
    tasks: Sequence[CodeTask] | str | os.PathLike[str],
    solutions: Sequence[Solution] | str | os.PathLike[str],
    *,
    sandbox: SandboxSpec = "bwrap",
    limits: Limits | None = None,
    k: Iterable[int] = (1,),
    concurrency: int = 2,
    extract: Extractor = "markdown",
    select: Select = "first",
    progress: Callable[[int, int], None] | None = None,
) -> CodeRun:
    """Score every solution of every task in the sandbox and compute pass@k.

    ``tasks`` and ``solutions`` are loaded values or file paths. At most ``concurrency`` runs
    are in flight; results come back in task order, then sample order. Every task needs at
    least one solution and every solution a known task; pass@k needs ``k`` samples per task.
    ``progress(n, total)`` is called, on the calling thread, each time n more runs finished.
    Raises :class:`~evalmark.errors.SandboxUnavailableError` when the sandbox cannot run.
    """
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a whole number >= 1, got {concurrency!r}")
    task_list = load_tasks(tasks) if isinstance(tasks, str | os.PathLike) else tuple(tasks)
    solution_list = (
        load_solutions(solutions) if isinstance(solutions, str | os.PathLike) else tuple(solutions)
    )
    by_task: dict[str, list[Solution]] = {task.id: [] for task in task_list}
    if len(by_task) != len(task_list):
        raise ValueError("task ids must be unique")
    unknown = sorted({s.task for s in solution_list if s.task not in by_task})
    if unknown:
        raise ValueError(
            f"solutions name tasks that do not exist: {', '.join(unknown[:5])}; check the ids "
            "against the tasks file"
        )
    for solution in solution_list:
        by_task[solution.task].append(solution)
    empty = [task for task, items in by_task.items() if not items]
    if empty:
        raise ValueError(
            f"tasks without solutions: {', '.join(empty[:5])}; record at least one sample per "
            "task (pass@k is undefined without samples)"
        )
    ks = _check_k(k, {task: len(items) for task, items in by_task.items()})
    box = get_sandbox(sandbox)
    check = getattr(box, "check", None)
    if callable(check):
        check()  # fail once, clearly, before starting the pool
    jobs = [
        (task, solution)
        for task in task_list
        for solution in sorted(by_task[task.id], key=lambda s: s.sample)
    ]

    def score(job: tuple[CodeTask, Solution]) -> SampleResult:
        task, solution = job
        result = evaluate_completion(
            task, solution.completion, sandbox=box, limits=limits, extract=extract, select=select
        )
        return SampleResult(task.id, solution.sample, result)

    # Ctrl-C (KeyboardInterrupt in this thread) kills the sandboxes running now and starts no
    # others, instead of waiting for every queued run to reach its wall clock.
    with stop_scope() as scope:
        pool = ThreadPoolExecutor(concurrency, thread_name_prefix="evalmark-code")
        try:
            futures = [pool.submit(contextvars.copy_context().run, score, job) for job in jobs]
            if progress is not None:
                for _ in as_completed(futures):
                    progress(1, len(jobs))
            results = [future.result() for future in futures]
        except BaseException:
            scope.stop()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
    grouped: dict[str, list[SampleResult]] = {task.id: [] for task in task_list}
    for item in results:
        grouped[item.task].append(item)
    task_results = []
    for task in task_list:
        samples = tuple(grouped[task.id])
        n, c = len(samples), sum(1 for s in samples if s.result.passed)
        values = MappingProxyType({value: pass_at_k(n, c, value) for value in ks})
        task_results.append(TaskResult(task.id, samples, values))
    overall = MappingProxyType(
        {value: mean_pass_at_k(((t.n, t.correct) for t in task_results), value) for value in ks}
    )
    return CodeRun(box.name, ks, tuple(task_results), overall)
