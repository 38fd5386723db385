"""Tasks, recorded solutions, run_tasks (concurrency, order, pass@k) and the code-run file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.code import Sandbox, pass_at_k, run_tasks
from evalmark.code._config import check_gate, load_code_config
from evalmark.code._sandbox import LocalSandbox
from evalmark.code._tasks import CodeTask, Solution, load_solutions, load_tasks
from evalmark.errors import DataFileError

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "code"

SQUARE = CodeTask(
    id="square",
    tests=(
        "def test_two():\n    assert square(2) == 4\n\n"
        "def test_three():\n    assert square(3) == 9\n"
    ),
)


def _echo() -> CodeTask:
    import msgspec

    return msgspec.convert(
        {"id": "echo", "cases": [{"expected-stdout": "hi\n", "stdin": "hi\n"}]}, CodeTask
    )


def reply(code: str) -> str:
    return f"Sure:\n\n```python\n{code}```\n"


def solutions() -> list[Solution]:
    right = reply("def square(x):\n    return x * x\n")
    wrong = reply("def square(x):\n    return x + x\n")
    slow = reply("import time\ntime.sleep(0.3)\n\ndef square(x):\n    return x ** 2\n")
    echo_right = reply("print(input())\n")
    return [
        Solution(task="square", sample=3, completion=wrong),
        Solution(task="square", sample=0, completion=slow),
        Solution(task="square", sample=1, completion=right),
        Solution(task="square", sample=2, completion="I cannot write code today."),
        Solution(task="echo", sample=1, completion=echo_right),
        Solution(task="echo", sample=0, completion=reply("print('hello')\n")),
        Solution(task="echo", sample=2, completion=echo_right),
        Solution(task="echo", sample=3, completion=echo_right),
    ]


def test_run_tasks_in_order_with_pass_at_k(sandbox: Sandbox) -> None:
    run = run_tasks([SQUARE, _echo()], solutions(), sandbox=sandbox, k=(1, 2, 4), concurrency=3)
    assert run.sandbox == sandbox.name
    assert [t.id for t in run.tasks] == ["square", "echo"]
    assert [s.sample for s in run.tasks[0].samples] == [0, 1, 2, 3]
    verdicts = [s.result.passed for s in run.samples]
    assert verdicts == [True, True, False, False, False, True, True, True]
    square, echo = run.tasks
    assert (square.n, square.correct, echo.n, echo.correct) == (4, 2, 4, 3)
    assert square.samples[2].result.metadata["reason"] == "code_extraction_failed"
    assert square.samples[3].result.metadata["failing_case"] == "test_three"
    for k in (1, 2, 4):
        assert square.pass_at_k[k] == pass_at_k(4, 2, k)
        assert run.pass_at_k[k] == pytest.approx((pass_at_k(4, 2, k) + pass_at_k(4, 3, k)) / 2)
    assert all(s.result.metadata["sandbox"] == sandbox.name for s in run.samples)


def test_results_do_not_depend_on_concurrency() -> None:
    box = LocalSandbox()
    serial = run_tasks([SQUARE, _echo()], solutions(), sandbox=box, k=(1, 3), concurrency=1)
    parallel = run_tasks([SQUARE, _echo()], solutions(), sandbox=box, k=(1, 3), concurrency=8)
    assert serial.to_dict() == parallel.to_dict()
    assert json.dumps(serial.to_dict(), sort_keys=True) == json.dumps(
        parallel.to_dict(), sort_keys=True
    )


def test_concurrency_is_bounded() -> None:
    import threading

    from evalmark.code import RunOutcome, RunRequest
    from evalmark.code._sandbox import Limits

    class Counting:
        name = "counting"

        def __init__(self) -> None:
            self.inner = LocalSandbox()
            self.active = 0
            self.most = 0
            self.lock = threading.Lock()

        def run(self, request: RunRequest, limits: Limits) -> RunOutcome:
            with self.lock:
                self.active += 1
                self.most = max(self.most, self.active)
            try:
                return self.inner.run(request, limits)
            finally:
                with self.lock:
                    self.active -= 1

    box = Counting()
    many = [
        Solution(task="square", sample=i, completion=solutions()[1].completion) for i in range(8)
    ]
    run = run_tasks([SQUARE], many, sandbox=box, concurrency=3)
    assert run.sandbox == "counting"
    assert all(s.result.metadata["sandbox"] == "counting" for s in run.samples)
    assert 1 <= box.most <= 3


def test_run_tasks_validation() -> None:
    good = solutions()
    with pytest.raises(ValueError, match="do not exist: nope"):
        run_tasks([SQUARE, _echo()], [*good, Solution(task="nope", sample=0, completion="")])
    with pytest.raises(ValueError, match="without solutions: echo"):
        run_tasks([SQUARE, _echo()], [s for s in good if s.task == "square"], sandbox="local")
    with pytest.raises(ValueError, match=r"pass@5 needs at least 5 samples per task"):
        run_tasks([SQUARE, _echo()], good, sandbox="local", k=(1, 5))
    with pytest.raises(ValueError, match="concurrency"):
        run_tasks([SQUARE], good, concurrency=0)
    with pytest.raises(ValueError, match="unknown sandbox 'docker'"):
        run_tasks([SQUARE, _echo()], good, sandbox="docker")


def test_a_user_supplied_runner_is_used_and_named() -> None:
    from evalmark.code import RunOutcome, RunRequest
    from evalmark.code._sandbox import Limits

    class Refusing:
        """A stand-in for a remote runner: every program "crashes"."""

        name = "remote-test"

        def run(self, request: RunRequest, limits: Limits) -> RunOutcome:
            assert "solution.py" in request.files
            return RunOutcome(sandbox=self.name, exit_code=3, stderr=b"remote says no\n")

    run = run_tasks([SQUARE], [solutions()[2]], sandbox=Refusing())
    result = run.samples[0].result
    assert not result.passed
    assert result.metadata["sandbox"] == "remote-test"
    assert result.metadata["exit_code"] == 3
    assert "remote says no" in result.explanation


# --------------------------------------------------------------------------- files


def test_the_golden_files_load() -> None:
    tasks = load_tasks(GOLDEN / "tasks.yaml")
    assert len(tasks) == 20 and len({t.id for t in tasks}) == 20
    found = load_solutions(GOLDEN / "solutions.jsonl")
    assert len(found) == 100
    ids = {t.id for t in tasks}
    assert {s.task for s in found} == ids
    assert sum(t.cases is not None for t in tasks) == 3
    config = load_code_config(GOLDEN)
    assert config.tasks == GOLDEN / "tasks.yaml" and config.k == (1, 5)
    assert config.limits.timeout == 4.0 and config.limits.memory_bytes == 512 * 1024**2
    assert dict(config.gate) == {1: 0.6, 5: 0.9}


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_task_file_problems_name_the_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "tasks.yaml",
        "- id: a\n  tests: 'assert True'\n- id: b\n  prompt: x\n- id: a\n  tests: x\n"
        "- id: c\n  tests: x\n  expected: 3\n",
    )
    with pytest.raises(DataFileError) as caught:
        load_tasks(path)
    text = str(caught.value)
    assert "tasks.yaml:3:3: task 'b': a task needs exactly one of 'tests'" in text
    assert "duplicate id 'a'" in text
    assert "unknown key 'expected'" in text


def test_solution_file_problems(tmp_path: Path) -> None:
    path = write(
        tmp_path / "solutions.jsonl",
        '{"task": "a", "sample": 0, "completion": "x"}\n'
        '{"task": "a", "sample": 0, "completion": "y"}\n'
        '{"task": "a", "sample": -1, "completion": "y"}\n',
    )
    with pytest.raises(DataFileError) as caught:
        load_solutions(path)
    text = str(caught.value)
    assert "sample must be a number >= 0" in text
    missing = write(tmp_path / "broken.jsonl", '{"task": "a", "completion": "x"}\n')
    with pytest.raises(DataFileError, match=r"broken\.jsonl:1"):
        load_solutions(missing)
    twice = write(
        tmp_path / "twice.jsonl",
        '{"task": "a", "sample": 0, "completion": "x"}\n'
        '{"task": "a", "sample": 0, "completion": "y"}\n',
    )
    with pytest.raises(DataFileError, match=r"twice.jsonl:2: .*recorded twice \(first at line 1\)"):
        load_solutions(twice)
    with pytest.raises(DataFileError, match="no such file"):
        load_solutions(tmp_path / "absent.jsonl")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tasks: t.yaml\n", "code.yaml:1:1: the 'solutions' key is missing"),
        ("tasks: t.yaml\nsolutions: s.jsonl\nsandbox: docker\n", "code.yaml:3:10: sandbox must"),
        ("tasks: t.yaml\nsolutions: s.jsonl\nk: [0]\n", "code.yaml:3:4: k must be"),
        ("tasks: t.yaml\nsolutions: s.jsonl\nlimits: {ram: 1}\n", "unknown limit 'ram'"),
        ("tasks: t.yaml\nsolutions: s.jsonl\nlimits: {timeout: -1}\n", "timeout must be"),
        ("tasks: t.yaml\nsolutions: s.jsonl\ngate: {best: 1}\n", "gate keys are pass@K"),
        ("tasks: t.yaml\nsolutions: s.jsonl\ngate: {pass@1: 2}\n", "threshold between 0 and 1"),
        ("tasks: t.yaml\nsolutions: s.jsonl\nextra: 1\n", "unknown key 'extra'"),
        ("- a\n", "a code-run file is a mapping"),
        ("tasks: [\n", "malformed YAML"),
    ],
)
def test_code_run_file_problems(tmp_path: Path, text: str, message: str) -> None:
    write(tmp_path / "code.yaml", text)
    with pytest.raises(DataFileError, match=message.replace("[", r"\[").replace("(", r"\(")):
        load_code_config(tmp_path)


def test_the_gate_adds_its_k_and_checks_thresholds(tmp_path: Path) -> None:
    write(tmp_path / "code.yaml", "tasks: t.yaml\nsolutions: s.jsonl\nk: 1\ngate: {pass@3: 0.5}\n")
    config = load_code_config(tmp_path / "code.yaml")
    assert config.k == (1, 3)
    checks = check_gate(config.gate, {1: 0.2, 3: 0.5})
    assert [(c.k, c.passed) for c in checks] == [(3, True)]
    assert not check_gate({1: 0.5}, {1: 0.49})[0].passed
