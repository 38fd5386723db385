"""The test runner evalmark copies into a sandbox next to the code under test.

Run as ``python _evalmark_harness.py SOLUTION TESTS [ENTRY_POINT]`` in the work directory. It
runs SOLUTION as the module ``solution``, runs TESTS in a namespace that already holds the
solution's names (as if the two files were one, HumanEval style), then calls every
``test*`` function TESTS defines, in order; with ENTRY_POINT, a ``check(candidate)`` function
is called with the solution's ENTRY_POINT. TESTS without test functions is one case, its
module body, named ``tests``. Events go to a private copy of stderr as lines
``\\x1e<nonce> <json>``: ``start`` (``<solution>``, ``tests``, then each test), ``plan`` (the
test names), ``end`` (a test's verdict and error) and ``done`` (``phase`` ``end``, or the
phase whose error stopped the run: ``solution`` or ``tests``). The nonce is read from
``_evalmark_nonce``, which is deleted before any code under test runs, so the code cannot
easily forge a report (code that inspects the interpreter's memory still could: the sandbox
contains what code does, it does not make in-process tests tamper-proof).

This file runs under the sandbox's interpreter, not evalmark's: standard library only, and
Python 3.8 syntax.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any

NONCE_FILE = "_evalmark_nonce"
HARNESS = "_evalmark_harness.py"


def _describe(exc: BaseException) -> dict[str, Any]:
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if not frame.filename.endswith(HARNESS)
    ]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)
    return {
        "type": type(exc).__name__,
        "message": (exc.msg if isinstance(exc, SyntaxError) else str(exc))[:1000],
        "traceback": "".join(lines)[-3000:],
    }


def main(argv: list[str]) -> int:
    with open(NONCE_FILE, encoding="utf-8") as handle:
        nonce = handle.read().strip()
    os.remove(NONCE_FILE)
    channel = os.dup(2)

    def emit(event: str, **payload: Any) -> None:
        payload["event"] = event
        line = "\n\x1e" + nonce + " " + json.dumps(payload, sort_keys=True) + "\n"
        os.write(channel, line.encode("utf-8", "replace"))

    solution_path, tests_path = argv[1], argv[2]
    entry_point = argv[3] if len(argv) > 3 and argv[3] else None
    sys.path.insert(0, os.getcwd())
    emit("start", test="<solution>")
    module = types.ModuleType("solution")
    module.__file__ = solution_path
    sys.modules["solution"] = module
    try:
        with open(solution_path, encoding="utf-8") as handle:
            solution_source = handle.read()
        # Compiled under its relative name, so tracebacks read the same in every sandbox.
        exec(compile(solution_source, solution_path, "exec"), module.__dict__)
    except BaseException as exc:  # anything the code does is a finding
        emit("done", phase="solution", error=_describe(exc))
        return 1
    namespace: dict[str, Any] = {
        name: value
        for name, value in vars(module).items()
        if not (name.startswith("__") and name.endswith("__"))
    }
    namespace["__name__"] = "tests"
    with open(tests_path, encoding="utf-8") as handle:
        source = handle.read()
    emit("start", test="tests")
    try:
        exec(compile(source, tests_path, "exec"), namespace)
    except BaseException as exc:
        emit("done", phase="tests", error=_describe(exc))
        return 1
    cases: list[tuple[str, Callable[[], Any]]] = []
    for name, value in list(namespace.items()):
        code = getattr(value, "__code__", None)
        if (
            name.startswith("test")
            and callable(value)
            and getattr(code, "co_filename", None) == tests_path
        ):
            cases.append((name, value))
    check = namespace.get("check")
    if entry_point is not None and callable(check):
        if entry_point not in namespace:
            message = f"the code defines no {entry_point!r}"
            emit("done", phase="solution", error={"type": "NameError", "message": message})
            return 1
        candidate = namespace[entry_point]
        cases.append(("check", lambda: check(candidate)))
    if not cases:
        emit("plan", tests=["tests"])
        emit("end", test="tests", passed=True)
        emit("done", phase="end")
        return 0
    emit("plan", tests=[name for name, _ in cases])
    failed = 0
    for name, function in cases:
        emit("start", test=name)
        try:
            value = function()
            if inspect.iscoroutine(value):  # an async test
                import asyncio

                asyncio.run(value)
        except BaseException as exc:
            failed += 1
            emit("end", test=name, passed=False, error=_describe(exc))
        else:
            emit("end", test=name, passed=True)
    emit("done", phase="end")
    return 1 if failed else 0


if __name__ == "__main__":
    status = main(sys.argv)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(status)
