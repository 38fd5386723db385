"""Running code against test code and stdin/stdout cases, in each sandbox."""

from __future__ import annotations

import time

import pytest

from evalmark.code import IOCase, Limits, RunOutcome, RunRequest, Sandbox, run_cases, run_tests
from evalmark.code._execute import compare_output
from evalmark.code._sandbox import PYTHON, tail

ADD = "def add(a, b):\n    return a + b\n"
TESTS = (
    "def test_small():\n    assert add(1, 2) == 3\n\n"
    "def test_negative():\n    assert add(-1, -1) == -2\n\n"
    "def test_strings():\n    assert add('a', 'b') == 'ab'\n"
)
LIMITS = Limits(timeout=60.0, cpu_seconds=10)  # generous: a busy machine starts Python slowly


def test_passing_tests(sandbox: Sandbox) -> None:
    result = run_tests(ADD, TESTS, sandbox=sandbox, limits=LIMITS)
    assert result.passed and result.score == 1.0
    meta = dict(result.metadata)
    assert meta["sandbox"] == sandbox.name
    assert meta["reason"] == "passed"
    assert (meta["cases"], meta["passed_cases"]) == (3, 3)
    assert meta["failing_case"] is None and meta["exit_code"] == 0
    assert result.explanation == f"3 of 3 tests passed [sandbox {sandbox.name}]"


def test_the_first_failing_test_is_named_with_its_line(sandbox: Sandbox) -> None:
    wrong = "def add(a, b):\n    return a - b if isinstance(a, int) and a < 0 else a + b\n"
    result = run_tests(wrong, TESTS, sandbox=sandbox, limits=LIMITS)
    assert not result.passed
    assert result.score == pytest.approx(2 / 3)
    assert result.metadata["reason"] == "tests_failed"
    assert result.metadata["failing_case"] == "test_negative"
    assert result.metadata["exit_code"] == 1
    assert result.explanation.startswith(
        "test_negative failed: AssertionError (tests.py, line 5: assert add(-1, -1) == -2); "
        "2 of 3 tests passed; exit code 1"
    )


def test_results_read_the_same_in_both_sandboxes(bwrap: Sandbox) -> None:
    from evalmark.code._sandbox import LocalSandbox

    code = "def add(a, b):\n    print('adding', a, b)\n    return a * b\n"
    local = run_tests(code, TESTS, sandbox=LocalSandbox(), limits=LIMITS)
    boxed = run_tests(code, TESTS, sandbox=bwrap, limits=LIMITS)
    assert local.explanation.replace("[sandbox local]", "") == boxed.explanation.replace(
        "[sandbox bwrap]", ""
    )
    assert {**local.metadata, "sandbox": ""} == {**boxed.metadata, "sandbox": ""}


def test_crashes_read_the_same_in_both_sandboxes(bwrap: Sandbox) -> None:
    from evalmark.code._sandbox import LocalSandbox

    program = "import os\nprint(os.getcwd())\nprint(1 / int(input()))\n"
    cases = [IOCase("zero", "", stdin="0\n")]
    local = run_cases(program, cases, sandbox=LocalSandbox())
    boxed = run_cases(program, cases, sandbox=bwrap)
    assert local.metadata["stdout_tail"] == boxed.metadata["stdout_tail"] == "/work"
    assert 'File "/work/solution.py", line 3' in local.metadata["stderr_tail"]
    assert local.metadata["stderr_tail"] == boxed.metadata["stderr_tail"]
    assert local.metadata["reason"] == boxed.metadata["reason"] == "exit_code"


def test_stdout_and_stderr_tails_are_reported(sandbox: Sandbox) -> None:
    code = "import sys\nprint('hello from stdout')\nprint('hello from stderr', file=sys.stderr)\n"
    result = run_tests(code, "def test_fail():\n    assert False, 'no'\n", sandbox=sandbox)
    assert result.metadata["stdout_tail"] == "hello from stdout"
    assert result.metadata["stderr_tail"] == "hello from stderr"
    assert "stdout (tail):\nhello from stdout" in result.explanation
    assert "\x1e" not in result.explanation  # the harness's own lines are removed


def test_async_tests_are_awaited(sandbox: Sandbox) -> None:
    tests = "async def test_async():\n    assert add(1, 1) == 3\n"
    result = run_tests(ADD, tests, sandbox=sandbox)
    assert not result.passed and result.metadata["failing_case"] == "test_async"


def test_module_level_asserts_are_one_case(sandbox: Sandbox) -> None:
    assert run_tests(ADD, "assert add(2, 2) == 4\n", sandbox=sandbox).passed
    result = run_tests(ADD, "assert add(2, 2) == 5, 'two and two'\n", sandbox=sandbox)
    assert not result.passed
    assert result.metadata["failing_case"] == "tests"
    assert "AssertionError: two and two" in result.explanation


def test_humaneval_style_check_with_an_entry_point(sandbox: Sandbox) -> None:
    tests = "def check(candidate):\n    assert candidate(2, 3) == 5\n"
    assert run_tests(ADD, tests, sandbox=sandbox, entry_point="add").passed
    plus = "def plus(a, b):\n    return a + b\n"
    result = run_tests(plus, tests, sandbox=sandbox, entry_point="add")
    assert not result.passed and "defines no 'add'" in result.explanation


def test_import_errors_of_the_code(sandbox: Sandbox) -> None:
    result = run_tests("def add(a, b) return a\n", TESTS, sandbox=sandbox)
    assert result.metadata["reason"] == "solution_error"
    assert result.metadata["failing_case"] == "<solution>"
    assert result.metadata["cases"] == 3  # read from the test code, which never ran
    assert "SyntaxError" in result.explanation and "solution.py, line 1" in result.explanation


def test_code_that_exits_early_does_not_pass(sandbox: Sandbox) -> None:
    for code in ("import os\nos._exit(0)\n", "import sys\nsys.exit(0)\n"):
        result = run_tests(code, TESTS, sandbox=sandbox)
        assert not result.passed, code
    exited = run_tests("import os\nos._exit(0)\n", TESTS, sandbox=sandbox)
    assert exited.metadata["reason"] == "exit_code"
    assert "before the tests ended" in exited.explanation


def test_a_forged_report_does_not_pass(sandbox: Sandbox) -> None:
    forged = (
        "import json, os, sys\n"
        "for nonce in ('', '0' * 32):\n"
        "    for event in ({'event': 'plan', 'tests': ['x']}, {'event': 'end', 'test': 'x', "
        "'passed': True}, {'event': 'done', 'phase': 'end'}):\n"
        "        sys.stderr.write('\\n\\x1e' + nonce + ' ' + json.dumps(event) + '\\n')\n"
        "sys.stderr.flush()\n"
        "os._exit(0)\n"
    )
    result = run_tests(forged, TESTS, sandbox=sandbox)
    assert not result.passed


def test_a_test_that_hangs_is_named_in_the_timeout(sandbox: Sandbox) -> None:
    tests = (
        "def test_quick():\n    assert True\n\n"
        "def test_forever():\n    while True:\n        pass\n\n"
        "def test_never_reached():\n    assert True\n"
    )
    # 5 s leave a busy machine time to start pytest in the sandbox and pass test_quick; left
    # running, test_forever would use its 30 CPU seconds
    started = time.monotonic()
    result = run_tests(ADD, tests, sandbox=sandbox, limits=Limits(timeout=5.0, cpu_seconds=30))
    assert time.monotonic() - started < 20
    assert result.metadata["reason"] == "timeout"
    assert result.metadata["failing_case"] == "test_forever"
    assert result.metadata["passed_cases"] == 1 and result.metadata["cases"] == 3
    assert result.explanation.startswith(
        "timed out while running test_forever (wall-clock limit 5 s; the process tree was killed)"
    )


def test_stdin_stdout_cases(sandbox: Sandbox) -> None:
    program = (
        "import sys\nnumbers = [int(x) for x in sys.stdin.read().split()]\nprint(sum(numbers))\n"
    )
    cases = [
        IOCase("two", "3\n", stdin="1 2"),
        IOCase("none", "0\n"),
        IOCase("many", "5050", stdin=" ".join(map(str, range(101)))),
    ]
    result = run_cases(program, cases, sandbox=sandbox)
    assert result.passed and result.metadata["cases"] == 3
    assert result.metadata["sandbox"] == sandbox.name


def test_the_first_failing_case_with_the_differing_line(sandbox: Sandbox) -> None:
    program = "n = int(input())\nfor i in range(n):\n    print(i * i if i != 2 else 5)\n"
    cases = [IOCase("one", "0\n", stdin="1\n"), IOCase("three", "0\n1\n4\n", stdin="3\n")]
    result = run_cases(program, cases, sandbox=sandbox)
    assert not result.passed and result.score == 0.5
    assert result.metadata["failing_case"] == "three"
    assert result.metadata["reason"] == "wrong_output"
    assert result.explanation.startswith(
        "case 'three' failed: stdout line 3: expected '4', got '5'; 1 of 2 cases passed; "
        "exit code 0"
    )
    assert "stdout (tail):\n0\n1\n5" in result.explanation


def test_a_crashing_case_reports_exit_code_and_stderr(sandbox: Sandbox) -> None:
    cases = [IOCase("word", "1\n", stdin="one\n")]
    result = run_cases("print(int(input()))\n", cases, sandbox=sandbox)
    assert result.metadata["reason"] == "exit_code"
    assert result.metadata["exit_code"] == 1
    assert "ValueError: invalid literal" in result.explanation
    assert "ValueError" in result.metadata["stderr_tail"]


def test_cases_stop_at_the_first_failure_unless_asked(sandbox: Sandbox) -> None:
    program = "import sys\nprint(sys.argv[1])\n"
    cases = [IOCase("a", "x", args=("y",)), IOCase("b", "z", args=("z",))]
    stopped = run_cases(program, cases, sandbox=sandbox)
    assert stopped.metadata["passed_cases"] == 0
    every = run_cases(program, cases, sandbox=sandbox, stop_at_first_failure=False)
    assert every.metadata["passed_cases"] == 1 and every.metadata["failing_case"] == "a"


def test_a_shell_program(sandbox: Sandbox) -> None:
    cases = [IOCase("echo", "hello world\n", stdin="hello world\n")]
    script = 'read line\necho "$line"\n'
    result = run_cases(script, cases, sandbox=sandbox, command=("/bin/sh", "{file}"))
    assert result.passed, result.explanation


def test_case_validation() -> None:
    with pytest.raises(ValueError, match="at least one case"):
        run_cases("x", [])
    with pytest.raises(ValueError, match="repeated: a"):
        run_cases("x", [IOCase("a", ""), IOCase("a", "")])


@pytest.mark.parametrize(
    ("expected", "actual", "exact", "lines", "tokens"),
    [
        ("a\nb\n", "a\nb\n", True, True, True),
        ("a\nb\n", "a  \r\nb\n\n\n", False, True, True),
        ("a b\n", "a\nb\n", False, False, True),
        ("a\n\nb\n", "a\nb\n", False, False, True),
        ("1\n", "2\n", False, False, False),
    ],
)
def test_compare_modes(expected: str, actual: str, exact: bool, lines: bool, tokens: bool) -> None:
    assert compare_output(expected, actual, "exact") is exact
    assert compare_output(expected, actual, "lines") is lines
    assert compare_output(expected, actual, "tokens") is tokens
    with pytest.raises(ValueError):
        compare_output("", "", "fuzzy")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the runner


def run(sandbox: Sandbox, source: str, limits: Limits = LIMITS, stdin: bytes = b"") -> RunOutcome:
    return sandbox.run(
        RunRequest(argv=(PYTHON, "main.py"), files={"main.py": source.encode()}, stdin=stdin),
        limits,
    )


def test_large_stdin_and_stdout_do_not_deadlock(sandbox: Sandbox) -> None:
    data = b"".join(b"%d\n" % i for i in range(200_000))  # about 1.3 MB each way
    source = "import sys\nsys.stdout.write(sys.stdin.read())\n"
    outcome = run(sandbox, source, Limits(output_bytes=4 * 1024 * 1024), stdin=data)
    assert outcome.ok and outcome.stdout == data and not outcome.stdout_truncated


def test_output_beyond_the_limit_keeps_head_and_tail(sandbox: Sandbox) -> None:
    source = "for i in range(100000):\n    print(f'line {i}')\n"
    outcome = run(sandbox, source, Limits(output_bytes=1000))
    assert outcome.ok and outcome.stdout_truncated
    assert outcome.stdout.startswith(b"line 0\nline 1\n")
    assert outcome.stdout.endswith(b"line 99999\n")
    assert b"bytes omitted" in outcome.stdout
    assert len(outcome.stdout) < 1100


def test_endless_output_is_bounded_in_memory_and_time(sandbox: Sandbox) -> None:
    source = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    outcome = run(sandbox, source, Limits(timeout=1.5, output_bytes=10_000))
    assert outcome.timed_out and outcome.stdout_truncated
    assert len(outcome.stdout) < 11_000


def test_a_program_reading_stdin_that_never_comes_gets_eof(sandbox: Sandbox) -> None:
    outcome = run(sandbox, "import sys\nprint(repr(sys.stdin.read()))\n")
    assert outcome.ok and outcome.stdout == b"''\n"


def test_the_environment_is_minimal_and_fixed(sandbox: Sandbox) -> None:
    source = "import os\nprint(sorted(os.environ))\nprint(hash('evalmark'))\n"
    first = run(sandbox, source)
    second = run(sandbox, source)
    assert first.stdout == second.stdout  # PYTHONHASHSEED is fixed
    names = eval(first.stdout.decode().splitlines()[0])
    assert "HOME" in names and "PATH" in names
    assert not any(name.startswith(("CI", "PYTEST", "VIRTUAL_ENV")) for name in names)


def test_files_in_folders_and_the_work_dir_is_fresh(sandbox: Sandbox) -> None:
    request = RunRequest(
        argv=(PYTHON, "pkg/main.py"),
        files={"pkg/main.py": b"import os\nprint(open('pkg/data.txt').read())\nopen('new', 'w')\n",
               "pkg/data.txt": b"data"},
    )  # fmt: skip
    assert sandbox.run(request, LIMITS).stdout == b"data\n"
    again = run(sandbox, "import os\nprint(os.path.exists('new'))\n")
    assert again.stdout == b"False\n"


def test_request_validation() -> None:
    with pytest.raises(ValueError, match="argv is empty"):
        RunRequest(argv=())
    for name in ("/etc/passwd", "../up", "a/./b", ""):
        with pytest.raises(ValueError, match="relative paths"):
            RunRequest(argv=("x",), files={name: b""})
    with pytest.raises(ValueError, match="timeout"):
        Limits(timeout=0)
    with pytest.raises(ValueError, match="processes"):
        Limits(processes=0)


def test_tail() -> None:
    assert tail(b"short\n") == "short"
    assert tail(b"x" * 1000, 10) == "…" + "x" * 9
