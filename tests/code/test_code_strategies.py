"""The code evaluators as engine strategies."""

from __future__ import annotations

import os
import sys

import pytest

from evalmark import Sample, Scorer
from evalmark.code import CodeChecker, CodeTests, DataSyntax, PythonSyntax, Sandbox
from evalmark.code._sandbox import LocalSandbox
from evalmark.errors import StrategyError

GOOD = "Here you go:\n\n```python\ndef double(x):\n    return 2 * x\n```\n"
BAD = "```python\ndef double(x):\n    return x +\n```\n"
PROSE = "Multiply the number by two."
TESTS = "def test_double():\n    assert double(4) == 8\n"
REFERENCE = "def double(x):\n    return x * 2\n"


def sample(name: str = "double", **metadata: object) -> Sample:
    # expected-output holds a reference solution: code-tests does not compare against it.
    return Sample(
        name=name, parameters=["write double"], expected_output=REFERENCE, metadata=dict(metadata)
    )


def test_python_syntax() -> None:
    strategy = PythonSyntax()
    assert strategy.name == "python-syntax"
    assert strategy.evaluate(sample(), GOOD).passed
    bad = strategy.evaluate(sample(), BAD)
    assert not bad.passed and bad.metadata["reason"] == "syntax_error"


def test_nothing_to_extract_is_a_failed_result_not_an_exception(sandbox: Sandbox) -> None:
    for strategy in (
        PythonSyntax(),
        DataSyntax("json", extract="markdown"),
        CodeTests(TESTS, sandbox=sandbox),
    ):
        result = strategy.evaluate(sample(), PROSE)
        assert not result.passed and result.error is None
        assert result.metadata["reason"] == "code_extraction_failed"
        assert result.explanation == "no code to check: no fenced code block in the output"
    tests = CodeTests(TESTS, sandbox=sandbox).evaluate(sample(), PROSE)
    assert tests.metadata["sandbox"] == sandbox.name


def test_data_syntax_takes_the_whole_output_by_default() -> None:
    assert DataSyntax("json").evaluate(sample(), '{"a": 1}').passed
    assert not DataSyntax("json").evaluate(sample(), "{'a': 1}").passed
    fenced = 'Result:\n```json\n{"a": [1, 2]}\n```\n'
    assert DataSyntax("json", extract="markdown").evaluate(sample(), fenced).passed
    assert DataSyntax("yaml").evaluate(sample(), "a: 1\n").passed
    assert DataSyntax("toml").name == "toml-syntax"
    with pytest.raises(ValueError, match="format must be"):
        DataSyntax("ini")  # type: ignore[arg-type]


def test_code_tests_with_fixed_tests(sandbox: Sandbox) -> None:
    strategy = CodeTests(TESTS, sandbox=sandbox)
    assert strategy.evaluate(sample(), GOOD).passed
    wrong = strategy.evaluate(sample(), GOOD.replace("2 * x", "x + 2"))
    assert not wrong.passed and wrong.metadata["failing_case"] == "test_double"


def test_code_tests_reads_tests_and_cases_from_the_sample(sandbox: Sandbox) -> None:
    strategy = CodeTests(sandbox=sandbox)
    assert strategy.evaluate(sample(tests=TESTS), GOOD).passed
    check = "def check(candidate):\n    assert candidate(3) == 6\n"
    assert strategy.evaluate(sample(tests=check, **{"entry-point": "double"}), GOOD).passed
    program = "```python\nprint(2 * int(input()))\n```"
    cases = [{"name": "four", "stdin": "2\n", "expected-stdout": "4\n"}]
    assert strategy.evaluate(sample(cases=cases), program).passed
    snake = [{"stdin": "3\n", "expected_stdout": "7\n"}]
    failed = strategy.evaluate(sample(cases=snake), program)
    assert failed.metadata["failing_case"] == "case-1"


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({}, "has no tests"),
        ({"tests": TESTS, "cases": []}, "both tests and cases"),
        ({"tests": 3}, "must be Python code"),
        ({"cases": [{"stdin": "x"}]}, "needs expected-stdout"),
        ({"cases": [{"expected": "x"}]}, "unknown keys"),
        ({"cases": "x"}, "non-empty list"),
    ],
)
def test_code_tests_sample_problems(metadata: dict[str, object], message: str) -> None:
    with pytest.raises(StrategyError, match=message):
        CodeTests(sandbox="local").evaluate(sample(**metadata), GOOD)


def test_code_checker(tmp_path: object) -> None:
    ruff = os.path.join(os.path.dirname(sys.executable), "ruff")
    if not os.access(ruff, os.X_OK):
        pytest.skip("ruff is not installed next to this interpreter")
    strategy = CodeChecker([ruff, "check", "--no-cache", "--select", "F"])
    assert strategy.name == "ruff"
    assert strategy.evaluate(sample(), GOOD).passed
    unused = "```python\nimport os\n```"
    result = strategy.evaluate(sample(), unused)
    assert not result.passed and "F401" in result.explanation
    with pytest.raises(StrategyError, match="not found"):
        CodeChecker(["evalmark-no-such-checker"])


def test_options_are_checked_when_built() -> None:
    with pytest.raises(ValueError, match="extract must be"):
        PythonSyntax(extract="html")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="select must be"):
        PythonSyntax(select="any")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tests or cases, not both"):
        CodeTests("x", cases=[{"expected-stdout": ""}])
    with pytest.raises(ValueError, match="unknown sandbox"):
        CodeTests(TESTS, sandbox="docker")


def test_with_the_scorer_concurrently_in_sample_order() -> None:
    samples = [
        sample(f"s{i}", tests=f"def test_value():\n    assert double({i}) == {2 * i}\n")
        for i in range(6)
    ]
    replies = {f"write {i}": GOOD if i % 2 == 0 else BAD for i in range(6)}

    def answer(prompt: str) -> str:
        return replies[prompt]

    samples = [
        Sample(
            name=s.name,
            parameters=[f"write {i}"],
            expected_output=REFERENCE,
            metadata=dict(s.metadata),
        )
        for i, s in enumerate(samples)
    ]
    report = Scorer(concurrency=3).evaluate(
        samples, answer, CodeTests(sandbox=LocalSandbox()), PythonSyntax()
    )
    rows = list(report.rows())
    assert [row.name for row in rows] == [f"s{i}" for i in range(6)]
    assert [row.passed for row in rows] == [True, False] * 3
    failing = rows[1].results["code-tests"]
    assert failing.metadata["reason"] == "solution_error"
    assert rows[1].results["python-syntax"].metadata["reason"] == "syntax_error"
