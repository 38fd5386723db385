"""Running extracted code in a sandbox: against test code, or against stdin/stdout cases.

Both return an :class:`~evalmark.results._results.EvaluationResult`: score = cases passed / cases,
an explanation naming the first failing case with the exit code and the tail of stdout and
stderr, and metadata with ``sandbox``, ``reason``, ``cases``, ``passed_cases``,
``failing_case``, ``exit_code``, ``signal``, ``stdout_tail`` and ``stderr_tail``.

``reason`` is ``passed``; ``tests_failed`` or ``wrong_output``; ``solution_error`` (importing
the code raised); ``timeout``; a limit (``cpu_limit``, ``memory_limit``, ``file_size_limit``,
``disk_full``, ``process_limit``); ``signal``; or ``exit_code`` (the program ended early).
"""

from __future__ import annotations

import ast
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from evalmark.code._sandbox import (
    PYTHON,
    Limits,
    RunOutcome,
    RunRequest,
    SandboxSpec,
    get_sandbox,
    tail,
)
from evalmark.code._sandbox.base import limit_reason, signal_name
from evalmark.results._results import EvaluationResult

__all__ = ["Compare", "IOCase", "compare_output", "run_cases", "run_tests"]

Compare = Literal["exact", "lines", "tokens"]

SOLUTION_FILE = "solution.py"
TESTS_FILE = "tests.py"
HARNESS_FILE = "_evalmark_harness.py"
NONCE_FILE = "_evalmark_nonce"
_TAIL = 600


def _harness_source() -> bytes:
    return resources.files("evalmark.code").joinpath("_harness.py").read_bytes()


@dataclass(frozen=True, slots=True)
class IOCase:
    """One stdin/stdout case: the program gets ``stdin`` (and ``args`` after its file name)
    and must exit 0 printing ``expected_stdout``."""

    name: str
    expected_stdout: str
    stdin: str = ""
    args: tuple[str, ...] = ()


def compare_output(expected: str, actual: str, compare: Compare = "lines") -> bool:
    """Whether ``actual`` stdout matches ``expected``: ``exact``; ``lines`` (the default:
    line endings, trailing spaces on each line and trailing blank lines ignored); or
    ``tokens`` (equal after splitting on whitespace)."""
    if compare == "exact":
        return expected == actual
    if compare == "tokens":
        return expected.split() == actual.split()
    if compare == "lines":
        return _lines(expected) == _lines(actual)
    raise ValueError(f"compare must be 'exact', 'lines' or 'tokens', got {compare!r}")


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


# --------------------------------------------------------------------------- test code


@dataclass(slots=True)
class _Events:
    plan: list[str]
    started: list[str]
    ended: list[dict[str, Any]]
    done: dict[str, Any] | None
    stderr: bytes  # the program's own stderr, events removed


def _read_events(stderr: bytes, nonce: str) -> _Events:
    marker = f"\x1e{nonce} "
    events = _Events([], [], [], None, b"")
    kept: list[str] = []
    lines = stderr.decode("utf-8", "replace").split("\n")
    for index, line in enumerate(lines):
        if line.startswith(marker):
            try:
                event = json.loads(line[len(marker) :])
            except ValueError:
                continue
            kind = event.get("event")
            if kind == "plan":
                events.plan = [str(name) for name in event.get("tests", [])]
            elif kind == "start":
                events.started.append(str(event.get("test")))
            elif kind == "end":
                events.ended.append(event)
            elif kind == "done":
                events.done = event
            continue
        next_is_marker = index + 1 < len(lines) and lines[index + 1].startswith(marker)
        if line == "" and next_is_marker:
            continue  # the newline each event starts with
        kept.append(line)
    events.stderr = "\n".join(kept).encode()
    return events


def run_tests(
    code: str,
    tests: str,
    *,
    sandbox: SandboxSpec = "bwrap",
    limits: Limits | None = None,
    entry_point: str | None = None,
) -> EvaluationResult:
    """Run Python ``tests`` against ``code`` in the sandbox.

    ``code`` is importable as ``solution`` and its names are visible in the tests. Every
    ``test*`` function of the tests is a case, run in order; with ``entry_point``, a
    HumanEval-style ``check(candidate)`` is called with that function; tests without test
    functions are one case (their module body). Passes when every case passes.
    """
    box = get_sandbox(sandbox)
    limits = limits or Limits()
    nonce = secrets.token_hex(16)
    request = RunRequest(
        argv=(PYTHON, HARNESS_FILE, SOLUTION_FILE, TESTS_FILE, entry_point or ""),
        files={
            SOLUTION_FILE: code.encode(),
            TESTS_FILE: tests.encode(),
            HARNESS_FILE: _harness_source(),
            NONCE_FILE: nonce.encode(),
        },
    )
    outcome = box.run(request, limits)
    events = _read_events(outcome.stderr, nonce)
    ended = {str(e.get("test")): e for e in events.ended}
    total = len(events.plan or _planned_cases(tests, entry_point))
    passed_cases = sum(1 for e in events.ended if e.get("passed") is True)
    failures = [e for e in events.ended if e.get("passed") is not True]
    done = events.done
    meta: dict[str, Any] = {"cases": total, "passed_cases": passed_cases}

    def finish(
        passed: bool, score: float, text: str, reason: str, case: str | None
    ) -> EvaluationResult:
        return _result(passed, score, text, reason, case, outcome, box.name, events.stderr, meta)

    if done is not None and done.get("phase") == "end" and not failures and outcome.ok:
        return finish(True, 1.0, f"{_count(total, total, 'test')} passed", "passed", None)
    if done is not None and done.get("phase") in ("solution", "tests"):
        phase = str(done["phase"])
        error = done.get("error") or {}
        case = "<solution>" if phase == "solution" else "tests"
        where = "importing the code" if phase == "solution" else "the test module"
        fallback = "solution_error" if phase == "solution" else "tests_failed"
        reason = _error_reason(error) or fallback
        text = f"{where} raised {_error_line(error)}" + _location(error)
        return finish(False, 0.0, text, reason, case)
    if failures:
        first = failures[0]
        error = first.get("error") or {}
        name = str(first.get("test"))
        reason = _error_reason(error) or "tests_failed"
        text = f"{name} failed: {_error_line(error)}{_location(error)}; "
        text += f"{_count(passed_cases, total, 'test')} passed"
        return finish(False, passed_cases / total, text, reason, name)
    # The program ended (or was killed) without finishing the tests.
    running = next((name for name in reversed(events.started) if name not in ended), None)
    case = running or "<solution>"
    text = f"{outcome.describe()} while running {case}"
    if outcome.timed_out:
        text = (
            f"timed out while running {case} (wall-clock limit {limits.timeout:g} s; the "
            "process tree was killed)"
        )
    elif outcome.ok:
        text = f"the program exited (exit code 0) while running {case}, before the tests ended"
    text += f"; {_count(passed_cases, total, 'test')} passed before"
    reason = outcome.reason if outcome.reason != "ok" else "exit_code"
    return finish(False, passed_cases / total, text, reason, case)


def _planned_cases(tests: str, entry_point: str | None) -> list[str]:
    """The cases the harness will run, read from the test code without running it (for runs
    that end before the harness reports its plan)."""
    try:
        tree = ast.parse(tests)
    except (SyntaxError, ValueError):
        return ["tests"]
    names = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    ]
    has_check = any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "check"
        for node in tree.body
    )
    if entry_point is not None and has_check:
        names.append("check")
    return list(dict.fromkeys(names)) or ["tests"]


def _count(passed: int, total: int, noun: str) -> str:
    return f"{passed} of {total} {noun}{'s' if total != 1 else ''}"


def _error_line(error: dict[str, Any]) -> str:
    kind = str(error.get("type") or "an error")
    message = str(error.get("message") or "")
    first = message.strip().splitlines()[0] if message.strip() else ""
    return f"{kind}: {first}" if first else kind


def _error_reason(error: dict[str, Any]) -> str | None:
    return limit_reason(_error_line(error))


def _location(error: dict[str, Any]) -> str:
    """`` (tests.py, line 7: assert f(2) == 4)`` from the last frame of a traceback."""
    lines = str(error.get("traceback") or "").splitlines()
    for index in range(len(lines) - 1, -1, -1):
        text = lines[index].strip()
        if text.startswith('File "'):
            parts = text.split('"')
            file = parts[1] if len(parts) > 2 else ""
            line = text.split("line ")[-1].split(",")[0] if "line " in text else "?"
            source = lines[index + 1].strip() if index + 1 < len(lines) else ""
            if source.startswith(("Traceback", error.get("type") or "\0")):
                source = ""
            shown = f"{file}, line {line}" + (f": {source}" if source else "")
            return f" ({shown})"
    return ""


# --------------------------------------------------------------------------- stdin/stdout


def run_cases(
    code: str,
    cases: Sequence[IOCase],
    *,
    sandbox: SandboxSpec = "bwrap",
    limits: Limits | None = None,
    command: Sequence[str] = (PYTHON, "{file}"),
    filename: str = SOLUTION_FILE,
    compare: Compare = "lines",
    stop_at_first_failure: bool = True,
) -> EvaluationResult:
    """Run the program once per case, feeding its stdin and comparing its stdout.

    ``command`` runs the program (``{file}`` is its file name, :data:`PYTHON` the sandbox's
    interpreter); a case's ``args`` follow. Stops at the first failing case unless
    ``stop_at_first_failure=False``; cases not run count as failed.
    """
    if not cases:
        raise ValueError("run_cases needs at least one case")
    names = [case.name for case in cases]
    if len(set(names)) != len(names):
        repeated = sorted({name for name in names if names.count(name) > 1})
        raise ValueError(f"case names must be unique; repeated: {', '.join(repeated)}")
    box = get_sandbox(sandbox)
    limits = limits or Limits()
    argv = tuple(item.replace("{file}", filename) for item in command)
    total = len(cases)
    passed_cases = 0
    first: tuple[IOCase, RunOutcome, str, str] | None = None
    last_outcome: RunOutcome | None = None
    for case in cases:
        outcome = box.run(
            RunRequest(
                argv=(*argv, *case.args),
                files={filename: code.encode()},
                stdin=case.stdin.encode(),
            ),
            limits,
        )
        last_outcome = outcome
        stdout = outcome.stdout.decode("utf-8", "replace")
        if outcome.ok and not outcome.stdout_truncated:
            if compare_output(case.expected_stdout, stdout, compare):
                passed_cases += 1
                continue
            problem, reason = _difference(case.expected_stdout, stdout, compare), "wrong_output"
        elif outcome.ok:
            problem = f"stdout exceeded the {limits.output_bytes}-byte capture limit"
            reason = "wrong_output"
        elif outcome.timed_out:
            problem = f"timed out (wall-clock limit {limits.timeout:g} s; process tree killed)"
            reason = "timeout"
        else:
            problem, reason = outcome.describe(), outcome.reason
            last = _last_line(outcome.stderr)
            if last and last not in problem:
                problem += f": {last}"
        if first is None:
            first = (case, outcome, problem, reason)
        if stop_at_first_failure:
            break
    meta: dict[str, Any] = {"cases": total, "passed_cases": passed_cases}
    assert last_outcome is not None
    if first is None:
        text = f"{_count(total, total, 'case')} passed"
        return _result(
            True, 1.0, text, "passed", None, last_outcome, box.name, last_outcome.stderr, meta
        )
    case, outcome, problem, reason = first
    text = f"case {case.name!r} failed: {problem}; {_count(passed_cases, total, 'case')} passed"
    score = passed_cases / total
    return _result(False, score, text, reason, case.name, outcome, box.name, outcome.stderr, meta)


def _difference(expected: str, actual: str, compare: Compare) -> str:
    if compare == "tokens":
        want, got = expected.split(), actual.split()
    else:
        want, got = _lines(expected), _lines(actual)
    for index in range(max(len(want), len(got))):
        a = want[index] if index < len(want) else None
        b = got[index] if index < len(got) else None
        if a != b:
            unit = "token" if compare == "tokens" else "line"
            shown_a = "nothing" if a is None else _short(a)
            shown_b = "nothing" if b is None else _short(b)
            return f"stdout {unit} {index + 1}: expected {shown_a}, got {shown_b}"
    return f"stdout differs: expected {_short(expected)}, got {_short(actual)}"


def _last_line(data: bytes, limit: int = 200) -> str:
    lines = [line.strip() for line in data.decode("utf-8", "replace").splitlines()]
    last = next((line for line in reversed(lines) if line), "")
    return last if len(last) <= limit else last[: limit - 1] + "…"


def _short(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


# --------------------------------------------------------------------------- results


def _result(
    passed: bool,
    score: float,
    text: str,
    reason: str,
    case: str | None,
    outcome: RunOutcome,
    sandbox: str,
    stderr: bytes,
    meta: dict[str, Any],
) -> EvaluationResult:
    """The result; ``sandbox`` is the name of the sandbox that was asked to run the code."""
    stdout_tail = tail(outcome.stdout, _TAIL)
    stderr_tail = tail(stderr, _TAIL)
    if not passed:
        if outcome.exit_code is not None and "exit code" not in text:
            text += f"; exit code {outcome.exit_code}"
        if stdout_tail:
            text += f"\nstdout (tail):\n{stdout_tail}"
        if stderr_tail:
            text += f"\nstderr (tail):\n{stderr_tail}"
    text += f"\n[sandbox {sandbox}]" if "\n" in text else f" [sandbox {sandbox}]"
    metadata = {
        "sandbox": sandbox,
        "reason": reason,
        **meta,
        "failing_case": case,
        "exit_code": outcome.exit_code,
        "signal": signal_name(outcome.signal) if outcome.signal is not None else None,
        "stdout_tail": stdout_tail,
        "stderr_tail": stderr_tail,
    }
    return EvaluationResult(passed, score, text, metadata)
